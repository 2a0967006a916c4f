"""Batch reading: :class:`DataFrameReader` (``spark.read``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from sparklet.sql._options import OptionsMixin
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.types import StructType

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

PathOrPaths = Union[str, list[str]]

__all__ = ["DataFrameReader"]


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
