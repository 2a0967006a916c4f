"""Batch reading: :class:`DataFrameReader` (``spark.read``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from sparklet.sql._options import OptionsMixin
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.types import StructType

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

PathOrPaths = Union[str, list[str]]

__all__ = ["DataFrameReader", "DataFrameWriter"]


class DataFrameReader(OptionsMixin):
    """Reads files into batch DataFrames: JSON, CSV, Parquet, text; and a
    streaming query's state from its checkpoint with ``format("statestore")``
    (options ``batchId``, ``operatorId``, ``storeName``, ``joinSide``) and
    ``format("state-metadata")``."""

    def __init__(self, spark: "SparkSession") -> None:
        self._spark = spark
        self._init_options()

    def load(
        self,
        path: PathOrPaths | None = None,
        format: str | None = None,  # noqa: A002
        schema: StructType | str | None = None,
        **options: Any,
    ) -> DataFrame:
        """Load files at ``path`` (a path, glob, or list of them), or the state
        in the checkpoint folder ``path`` for the state formats."""
        if format is not None:
            self.format(format)
        self._set_schema(schema)
        self._set(**options)
        paths = [path] if isinstance(path, str) else list(path or [])
        if not paths and "path" in self._options:
            paths = [self._options["path"]]
        native = self._spark._native.read(self._format or "parquet", paths, self._arrow_schema(), self._options)
        return DataFrame(native, self._spark)

    def json(self, path: PathOrPaths, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read JSON lines (or documents with ``multiLine=True``)."""
        return self.load(path, "json", schema, **options)

    def csv(self, path: PathOrPaths, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read CSV (``header``, ``sep``, ``inferSchema``, ``mode`` ...)."""
        return self.load(path, "csv", schema, **options)

    def parquet(self, *paths: str, **options: Any) -> DataFrame:
        """Read Parquet files."""
        return self.load(list(paths), "parquet", None, **options)

    def text(self, paths: PathOrPaths, **options: Any) -> DataFrame:
        """Read text lines into a ``value`` column."""
        return self.load(paths, "text", None, **options)

    def table(self, tableName: str) -> DataFrame:
        """A table or view by name."""
        return self._spark.table(tableName)


class DataFrameWriter:
    """Writes a batch DataFrame (``df.write``). ``format("kafka")`` sends each
    row as a record (columns ``value``, and optionally ``key``, ``topic``,
    ``headers``, ``partition``; options ``kafka.bootstrap.servers``,
    ``topic`` and other ``kafka.*`` client settings)."""

    def __init__(self, df: DataFrame) -> None:
        self._df = df
        self._format: str | None = None
        self._options: dict[str, str] = {}
        self._mode = "errorifexists"

    def format(self, source: str) -> "DataFrameWriter":
        """Set the output format (``kafka``)."""
        self._format = source
        return self

    def mode(self, saveMode: str | None) -> "DataFrameWriter":
        """Set the save mode (Kafka appends whatever the mode)."""
        if saveMode is not None:
            self._mode = saveMode
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriter":
        """Set one output option."""
        return self.options(**{key: value})

    def options(self, **options: Any) -> "DataFrameWriter":
        """Set output options."""
        for k, v in options.items():
            if v is not None:
                self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def save(self, path: str | None = None, format: str | None = None, **options: Any) -> None:  # noqa: A002
        """Write the DataFrame."""
        from sparklet.errors import AnalysisException

        if format is not None:
            self.format(format)
        self.options(**options)
        fmt = (self._format or "parquet").lower()
        if fmt != "kafka":
            raise AnalysisException(
                f"df.write supports format('kafka'); for '{fmt}' files, write df.toArrow() "
                "with pyarrow (pyarrow.parquet.write_table, pyarrow.csv.write_csv)."
            )
        self._df._native.write_kafka({k.lower(): v for k, v in self._options.items()})
