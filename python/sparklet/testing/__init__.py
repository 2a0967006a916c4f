"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query;
:class:`GroupStateTester` unit-tests an ``applyInPandasWithState`` function
and :class:`TwsTester` a ``transformWithStateInPandas`` processor;
:func:`testStream` runs Spark's stream-test DSL (``AddData``,
``CheckAnswer``, ``StopStream``, ``AdvanceManualClock`` ...);
``assertDataFrameEqual`` and ``assertSchemaEqual`` compare results as
:mod:`pyspark.testing` does. Installed, sparklet is also a pytest plugin
(``sparklet.testing.pytest_plugin``): a ``spark`` fixture, and queries left
running stopped after each test."""

from sparklet.testing.group_state import GroupStateTester
from sparklet.testing.memory_stream import MemoryStream
from sparklet.testing.stream_test import (
    AddData,
    AdvanceManualClock,
    AssertOnQuery,
    CheckAnswer,
    CheckLastBatch,
    CheckNewAnswer,
    ExpectFailure,
    ManualClock,
    StartStream,
    StopStream,
    testStream,
)
from sparklet.testing.tws_tester import TwsTester
from sparklet.testing.utils import assertDataFrameEqual, assertSchemaEqual

__all__ = [
    "AddData",
    "AdvanceManualClock",
    "AssertOnQuery",
    "CheckAnswer",
    "CheckLastBatch",
    "CheckNewAnswer",
    "ExpectFailure",
    "GroupStateTester",
    "ManualClock",
    "MemoryStream",
    "StartStream",
    "StopStream",
    "TwsTester",
    "assertDataFrameEqual",
    "assertSchemaEqual",
    "testStream",
]
