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
        """Set the data source format (``json``, ``csv``, ``parquet``, ``text``, ``rate`` ...)."""
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> Self:
        """Set the schema (a StructType or a DDL string such as ``"id INT, ts TIMESTAMP"``)."""
        self._set_schema(schema)
        return self

    def option(self, key: str, value: Any) -> Self:
        """Set one option (booleans are stored as ``true``/``false``)."""
        self._set(**{key: value})
        return self

    def options(self, **options: Any) -> Self:
        """Set several options."""
        self._set(**options)
        return self

    def _arrow_schema(self) -> Any:
        return self._schema._to_arrow_schema() if self._schema is not None else None
