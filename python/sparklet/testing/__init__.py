"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query;
:class:`GroupStateTester` unit-tests an ``applyInPandasWithState`` function
and :class:`TwsTester` a ``transformWithStateInPandas`` processor;
``assertDataFrameEqual`` and ``assertSchemaEqual`` compare results as
:mod:`pyspark.testing` does. Installed, sparklet is also a pytest plugin
(``sparklet.testing.pytest_plugin``): a ``spark`` fixture, and queries left
running stopped after each test."""

from sparklet.testing.group_state import GroupStateTester
from sparklet.testing.memory_stream import MemoryStream
from sparklet.testing.tws_tester import TwsTester
from sparklet.testing.utils import assertDataFrameEqual, assertSchemaEqual

__all__ = ["GroupStateTester", "MemoryStream", "TwsTester", "assertDataFrameEqual", "assertSchemaEqual"]
