"""Window specifications for window functions: ``Window.partitionBy("k")
.orderBy("ts").rowsBetween(-1, 0)``, used as ``F.row_number().over(w)``
or ``F.sum("v").over(w)`` (batch DataFrames; a stream refuses them, as
Spark does)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sparklet.sql.column import Column

__all__ = ["Window", "WindowSpec"]

#: Offsets at or beyond these mean unbounded (Spark's ``Long`` extremes).
_JAVA_MIN_LONG = -(1 << 63)
_JAVA_MAX_LONG = (1 << 63) - 1
_PRECEDING_THRESHOLD = max(-sys.maxsize, _JAVA_MIN_LONG)
_FOLLOWING_THRESHOLD = min(sys.maxsize, _JAVA_MAX_LONG)


def _columns(cols: tuple[Any, ...]) -> list["Column"]:
    from sparklet.sql.column import _to_col

    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return [_to_col(c) for c in cols]


class WindowSpec:
    """A window's partitioning, ordering and frame. Build one with
    :class:`Window`; each method returns a new spec."""

    def __init__(
        self,
        partition_by: list["Column"] | None = None,
        order_by: list["Column"] | None = None,
        frame: tuple[bool, int | None, int | None] | None = None,
    ) -> None:
        self._partition_by = partition_by or []
        self._order_by = order_by or []
        self._frame = frame

    def partitionBy(self, *cols: Any) -> "WindowSpec":
        """Partition the rows by these columns (names or Columns)."""
        return WindowSpec(_columns(cols), self._order_by, self._frame)

    def orderBy(self, *cols: Any) -> "WindowSpec":
        """Order each partition by these columns (ascending unless a
        Column says otherwise, as with ``F.desc``)."""
        return WindowSpec(self._partition_by, _columns(cols), self._frame)

    def rowsBetween(self, start: int, end: int) -> "WindowSpec":
        """A frame of rows from ``start`` to ``end`` relative to the current
        row (``Window.unboundedPreceding``, ``Window.currentRow``, ...)."""
        return WindowSpec(self._partition_by, self._order_by, (True, *_bounds(start, end)))

    def rangeBetween(self, start: int, end: int) -> "WindowSpec":
        """A frame of the rows whose ordering value lies within ``start`` to
        ``end`` of the current row's."""
        return WindowSpec(self._partition_by, self._order_by, (False, *_bounds(start, end)))

    def __repr__(self) -> str:
        return f"<WindowSpec partitionBy={self._partition_by} orderBy={self._order_by}>"


def _bounds(start: int, end: int) -> tuple[int | None, int | None]:
    return (
        None if start <= _PRECEDING_THRESHOLD else int(start),
        None if end >= _FOLLOWING_THRESHOLD else int(end),
    )


class Window:
    """Entry points for window specifications, as in PySpark."""

    unboundedPreceding: int = _JAVA_MIN_LONG
    unboundedFollowing: int = _JAVA_MAX_LONG
    currentRow: int = 0

    @staticmethod
    def partitionBy(*cols: Any) -> WindowSpec:
        """A window partitioned by these columns."""
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols: Any) -> WindowSpec:
        """A window over the whole DataFrame ordered by these columns."""
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start: int, end: int) -> WindowSpec:
        """A window with a row frame (see :meth:`WindowSpec.rowsBetween`)."""
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start: int, end: int) -> WindowSpec:
        """A window with a range frame (see :meth:`WindowSpec.rangeBetween`)."""
        return WindowSpec().rangeBetween(start, end)
