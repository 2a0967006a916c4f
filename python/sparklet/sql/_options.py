"""Option handling shared by readers and writers."""

from __future__ import annotations

from typing import Any, Self, Union

from sparklet.sql.types import StructType, to_struct_type


def to_str(value: Any) -> str | None:
    """An option value as Spark stores it (booleans lower-case)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


class OptionsMixin:
    """``format``/``option``/``options``/``schema`` shared by the readers."""

    _format: str | None
    _options: dict[str, str]
    _schema: StructType | None

    def _init_options(self) -> None:
        self._format = None
        self._options = {}
        self._schema = None

    def _set(self, **options: Any) -> None:
        for k, v in options.items():
            s = to_str(v)
            if s is not None:
                self._options[k] = s

    def _set_schema(self, schema: StructType | str | None) -> None:
        if schema is not None:
            self._schema = to_struct_type(schema)

    def format(self, source: str) -> Self:
        """Set the data source format.

        Parameters
        ----------
        source : str
            A built-in format (``json``, ``csv``, ``parquet``, ``orc``,
            ``text``, ``kafka``, ``delta``, ``rate``, ``socket`` ...) or the
            name of a registered Python data source.

        Returns
        -------
        The same reader, for chaining.

        Examples
        --------
        >>> spark.readStream.format("rate").load().isStreaming
        True
        """
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> Self:
        """Set the schema of the data read.

        File sources need one when streaming, as in Spark (they do not infer
        one from files that may not have arrived yet).

        Parameters
        ----------
        schema : StructType or str
            A :class:`StructType`, or a DDL string such as
            ``"id INT, ts TIMESTAMP"``.

        Returns
        -------
        The same reader, for chaining.

        Raises
        ------
        PySparkTypeError
            When ``schema`` is neither.

        Examples
        --------
        >>> import os; os.makedirs("in")
        >>> spark.readStream.schema("id INT, ts TIMESTAMP").json("in/").schema.simpleString()
        'struct<id:int,ts:timestamp>'
        """
        self._set_schema(schema)
        return self

    def option(self, key: str, value: Any) -> Self:
        """Set one option of the source.

        Parameters
        ----------
        key : str
            The option's name, as Spark spells it (``maxFilesPerTrigger``,
            ``header``, ``kafka.bootstrap.servers`` ...).
        value : str, int, float or bool
            Stored as text; booleans as ``true``/``false``, None unsets.

        Returns
        -------
        The same reader, for chaining.

        Examples
        --------
        >>> df = spark.readStream.format("rate").option("rowsPerSecond", 10).load()
        >>> df.columns
        ['timestamp', 'value']
        """
        self._set(**{key: value})
        return self

    def options(self, **options: Any) -> Self:
        """Set several options at once, as :meth:`option` sets one.

        Parameters
        ----------
        **options : str, int, float or bool
            Option names and values.

        Returns
        -------
        The same reader, for chaining.

        Examples
        --------
        >>> df = spark.readStream.options(rowsPerSecond=10, numPartitions=1).format("rate").load()
        >>> df.isStreaming
        True
        """
        self._set(**options)
        return self

    def _arrow_schema(self) -> Any:
        return self._schema._to_arrow_schema() if self._schema is not None else None
