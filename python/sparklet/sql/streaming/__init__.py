"""sparklet's :mod:`pyspark.sql.streaming`."""

from sparklet.sql.streaming.listener import StreamingQueryListener
from sparklet.sql.streaming.query import (
    StreamingQuery,
    StreamingQueryManager,
    StreamingQueryProgress,
    StreamingQueryStatus,
)
from sparklet.sql.streaming.readwriter import DataStreamReader, DataStreamWriter
from sparklet.sql.streaming.state import GroupState, GroupStateTimeout
from sparklet.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle
from sparklet.sql.streaming.tws_tester import TwsTester

__all__ = [
    "DataStreamReader",
    "DataStreamWriter",
    "GroupState",
    "GroupStateTimeout",
    "StatefulProcessor",
    "StatefulProcessorHandle",
    "StreamingQuery",
    "StreamingQueryListener",
    "StreamingQueryManager",
    "StreamingQueryProgress",
    "StreamingQueryStatus",
    "TwsTester",
]
