"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query;
:class:`GroupStateTester` unit-tests an ``applyInPandasWithState`` function."""

from sparklet.testing.group_state import GroupStateTester
from sparklet.testing.memory_stream import MemoryStream

__all__ = ["GroupStateTester", "MemoryStream"]
