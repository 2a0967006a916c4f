"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query;
:class:`GroupStateTester` unit-tests an ``applyInPandasWithState`` function
and :class:`TwsTester` a ``transformWithStateInPandas`` processor."""

from sparklet.testing.group_state import GroupStateTester
from sparklet.testing.memory_stream import MemoryStream
from sparklet.testing.tws_tester import TwsTester

__all__ = ["GroupStateTester", "MemoryStream", "TwsTester"]
