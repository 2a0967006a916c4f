"""sparklet's :mod:`pyspark.sql.streaming`."""

from sparklet.sql.streaming.query import (
    StreamingQuery,
    StreamingQueryManager,
    StreamingQueryProgress,
    StreamingQueryStatus,
)
from sparklet.sql.streaming.readwriter import DataStreamReader, DataStreamWriter

__all__ = [
    "DataStreamReader",
    "DataStreamWriter",
    "StreamingQuery",
    "StreamingQueryManager",
    "StreamingQueryProgress",
    "StreamingQueryStatus",
]
