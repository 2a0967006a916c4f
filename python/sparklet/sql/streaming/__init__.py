"""sparklet's :mod:`pyspark.sql.streaming`."""

from sparklet.sql.streaming.query import (
    StreamingQuery,
    StreamingQueryManager,
    StreamingQueryProgress,
    StreamingQueryStatus,
)
from sparklet.sql.streaming.readwriter import DataStreamReader, DataStreamWriter
from sparklet.sql.streaming.state import GroupState, GroupStateTimeout

__all__ = [
    "DataStreamReader",
    "DataStreamWriter",
    "GroupState",
    "GroupStateTimeout",
    "StreamingQuery",
    "StreamingQueryManager",
    "StreamingQueryProgress",
    "StreamingQueryStatus",
]
