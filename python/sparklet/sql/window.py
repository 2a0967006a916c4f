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
    """A window's partitioning, ordering and frame, for ``F.func().over(w)``.

    Build one with :class:`Window`; each method returns a new spec. Window
    functions run on batch DataFrames; a stream refuses them, as Spark does.

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> w = Window.partitionBy("k").orderBy("v").rowsBetween(-1, Window.currentRow)
    >>> df = spark.createDataFrame([("a", 1), ("a", 2), ("a", 3)], "k STRING, v INT")
    >>> df.select("v", F.sum("v").over(w).alias("pair_sum")).collect()
    [Row(v=1, pair_sum=1), Row(v=2, pair_sum=3), Row(v=3, pair_sum=5)]
    """

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
        """Partition the rows by columns: each partition is a window of its own.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns.

        Returns
        -------
        WindowSpec
            A new spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.orderBy("v").partitionBy("k")
        >>> df = spark.createDataFrame([("a", 1), ("b", 2)], "k STRING, v INT")
        >>> df.select("k", F.row_number().over(w).alias("n")).orderBy("k").collect()
        [Row(k='a', n=1), Row(k='b', n=1)]
        """
        return WindowSpec(_columns(cols), self._order_by, self._frame)

    def orderBy(self, *cols: Any) -> "WindowSpec":
        """Order each partition by columns (ascending unless a Column says
        otherwise, as ``F.desc("v")``).

        With an ordering and no frame, an aggregate's frame runs from the
        partition's start to the current row (its peers included), as in Spark.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns.

        Returns
        -------
        WindowSpec
            A new spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.partitionBy("k").orderBy(F.desc("v"))
        >>> df = spark.createDataFrame([("a", 1), ("a", 2)], "k STRING, v INT")
        >>> df.select("v", F.rank().over(w).alias("rank")).orderBy("v").collect()
        [Row(v=1, rank=2), Row(v=2, rank=1)]
        """
        return WindowSpec(self._partition_by, _columns(cols), self._frame)

    def rowsBetween(self, start: int, end: int) -> "WindowSpec":
        """A frame of rows, counted from the current row.

        Parameters
        ----------
        start : int
            The first row (negative: before the current one);
            ``Window.unboundedPreceding`` for the partition's start.
        end : int
            The last row; ``Window.unboundedFollowing`` for the partition's end,
            ``Window.currentRow`` (0) for the current row.

        Returns
        -------
        WindowSpec
            A new spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.orderBy("v").rowsBetween(Window.currentRow, 1)
        >>> df = spark.createDataFrame([(1,), (2,), (3,)], "v INT")
        >>> df.select("v", F.sum("v").over(w).alias("next_two")).collect()
        [Row(v=1, next_two=3), Row(v=2, next_two=5), Row(v=3, next_two=3)]
        """
        return WindowSpec(self._partition_by, self._order_by, (True, *_bounds(start, end)))

    def rangeBetween(self, start: int, end: int) -> "WindowSpec":
        """A frame of the rows whose ordering value lies within an offset of the
        current row's.

        Parameters
        ----------
        start : int
            The lowest offset from the current row's value (or
            ``Window.unboundedPreceding``).
        end : int
            The highest offset (or ``Window.unboundedFollowing``).

        Returns
        -------
        WindowSpec
            A new spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.orderBy("v").rangeBetween(-1, 0)
        >>> df = spark.createDataFrame([(1,), (2,), (5,)], "v INT")
        >>> df.select("v", F.count("v").over(w).alias("within_one")).collect()
        [Row(v=1, within_one=1), Row(v=2, within_one=2), Row(v=5, within_one=1)]
        """
        return WindowSpec(self._partition_by, self._order_by, (False, *_bounds(start, end)))

    def __repr__(self) -> str:
        return f"<WindowSpec partitionBy={self._partition_by} orderBy={self._order_by}>"


def _bounds(start: int, end: int) -> tuple[int | None, int | None]:
    return (
        None if start <= _PRECEDING_THRESHOLD else int(start),
        None if end >= _FOLLOWING_THRESHOLD else int(end),
    )


class Window:
    """Where window specifications start: ``Window.partitionBy(...)``,
    ``Window.orderBy(...)``.

    ``Window.unboundedPreceding``, ``Window.unboundedFollowing`` and
    ``Window.currentRow`` are the frame bounds.

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 5), ("b", 1)], "k STRING, v INT")
    >>> w = Window.partitionBy("k")
    >>> df.select("k", "v", F.max("v").over(w).alias("top")).orderBy("k", "v").collect()
    [Row(k='a', v=3, top=5), Row(k='a', v=5, top=5), Row(k='b', v=1, top=1)]
    """

    unboundedPreceding: int = _JAVA_MIN_LONG
    unboundedFollowing: int = _JAVA_MAX_LONG
    currentRow: int = 0

    @staticmethod
    def partitionBy(*cols: Any) -> WindowSpec:
        """A window partitioned by columns.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns.

        Returns
        -------
        WindowSpec
            The spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> df = spark.createDataFrame([("a", 3), ("b", 1)], "k STRING, v INT")
        >>> df.select("k", F.count("v").over(Window.partitionBy("k")).alias("n")).orderBy("k").collect()
        [Row(k='a', n=1), Row(k='b', n=1)]
        """
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols: Any) -> WindowSpec:
        """A window over all rows, ordered by columns.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns.

        Returns
        -------
        WindowSpec
            The spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> df = spark.createDataFrame([(3,), (1,)], "v INT")
        >>> df.select("v", F.row_number().over(Window.orderBy("v")).alias("n")).collect()
        [Row(v=1, n=1), Row(v=3, n=2)]
        """
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start: int, end: int) -> WindowSpec:
        """A window over all rows with a frame of rows (see
        :meth:`WindowSpec.rowsBetween`).

        Parameters
        ----------
        start : int
            The first row, from the current one.
        end : int
            The last row.

        Returns
        -------
        WindowSpec
            The spec.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
        >>> df = spark.createDataFrame([(3,), (1,)], "v INT")
        >>> df.select(F.sum("v").over(w).alias("total")).collect()
        [Row(total=4), Row(total=4)]
        """
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start: int, end: int) -> WindowSpec:
        """A window over all rows with a range frame (see
        :meth:`WindowSpec.rangeBetween`).

        Parameters
        ----------
        start : int
            The lowest offset from the current row's ordering value.
        end : int
            The highest offset.

        Returns
        -------
        WindowSpec
            The spec, to order with ``orderBy``.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> w = Window.rangeBetween(-10, 0).orderBy("v")
        >>> df = spark.createDataFrame([(1,), (5,), (30,)], "v INT")
        >>> df.select("v", F.sum("v").over(w).alias("last_ten")).collect()
        [Row(v=1, last_ten=1), Row(v=5, last_ten=6), Row(v=30, last_ten=30)]
        """
        return WindowSpec().rangeBetween(start, end)
