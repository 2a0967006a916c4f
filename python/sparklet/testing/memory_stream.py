"""``MemoryStream``: a streaming source fed from Python, for tests and notebooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sparklet.sql._convert import to_table
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.types import StructType, to_struct_type

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

__all__ = ["MemoryStream"]


class MemoryStream:
    """A stream whose rows come from :meth:`addData`.

    Each ``addData`` call is one offset; a running query picks the new rows
    up in its next micro-batch.

    Examples
    --------
    >>> from sparklet.sql import SparkSession
    >>> from sparklet.testing import MemoryStream
    >>> spark = SparkSession.builder.getOrCreate()
    >>> stream = MemoryStream(spark, "id INT, word STRING")
    >>> stream.addData([(1, "a"), (2, "b")])
    0
    >>> q = stream.toDF().writeStream.format("memory").queryName("doc_words").start()
    >>> q.processAllAvailable()
    >>> spark.table("doc_words").count()
    2
    >>> q.stop()
    """

    def __init__(self, spark: "SparkSession", schema: StructType | str) -> None:
        self._spark = spark
        self._schema = to_struct_type(schema)
        self._native, self._df_native = spark._native.memory_stream(self._schema._to_arrow_schema())

    @property
    def schema(self) -> StructType:
        """The rows' schema."""
        return self._schema

    def toDF(self) -> DataFrame:
        """The streaming DataFrame over this stream."""
        return DataFrame(self._df_native, self._spark)

    def addData(self, *data: Any) -> int:
        """Append rows: a list of tuples/Rows/dicts, a pandas DataFrame or a
        pyarrow Table (or rows as separate arguments). Returns the offset."""
        payload: Any = data[0] if len(data) == 1 and not isinstance(data[0], tuple) else list(data)
        table = to_table(payload, self._schema)
        return int(self._native.add_data(table))
