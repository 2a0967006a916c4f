"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query;
:class:`GroupStateTester` unit-tests an ``applyInPandasWithState`` function
and :class:`TwsTester` a ``transformWithStateInPandas`` processor;
:func:`testStream` runs Spark's stream-test DSL (``AddData``,
``CheckAnswer``, ``StopStream``, ``AdvanceManualClock`` ...);
``assertDataFrameEqual`` and ``assertSchemaEqual`` compare results as
:mod:`pyspark.testing` does. Installed, sparklet is also a pytest plugin
(``sparklet.testing.pytest_plugin``): a ``spark`` fixture, and queries left
running stopped after each test."""

from sparklet.testing import stream_test
from sparklet.testing.group_state import GroupStateTester
from sparklet.testing.memory_stream import MemoryStream
from sparklet.testing.stream_test import *  # noqa: F403  (its __all__: the DSL)
from sparklet.testing.tws_tester import TwsTester
from sparklet.testing.utils import assertDataFrameEqual, assertSchemaEqual

__all__ = [
    "GroupStateTester",
    "MemoryStream",
    "TwsTester",
    "assertDataFrameEqual",
    "assertSchemaEqual",
    *stream_test.__all__,
]
