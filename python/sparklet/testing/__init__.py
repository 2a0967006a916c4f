"""Testing helpers: :class:`MemoryStream` feeds rows into a streaming query."""

from sparklet.testing.memory_stream import MemoryStream

__all__ = ["MemoryStream"]
