"""Window functions, as PySpark's: ranking, offsets and distribution over
``.over(Window...)`` on batch DataFrames (aggregates go over a window too)."""

from __future__ import annotations

from typing import Any

from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _lit_or_col, lit

__all__ = [
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "nth_value",
]  # fmt: skip


def row_number() -> Column:
    """The row's position in its window partition, from 1."""
    return _call("row_number")


def rank() -> Column:
    """The row's rank in its partition, with gaps after ties."""
    return _call("rank")


def dense_rank() -> Column:
    """The row's rank in its partition, without gaps after ties."""
    return _call("dense_rank")


def percent_rank() -> Column:
    """``(rank - 1) / (rows in partition - 1)``."""
    return _call("percent_rank")


def cume_dist() -> Column:
    """The fraction of the partition's rows at or before the row."""
    return _call("cume_dist")


def ntile(n: int) -> Column:
    """The row's bucket when the partition is split into ``n`` ordered groups."""
    return _call("ntile", lit(n))


def lag(col: ColumnOrName, offset: int = 1, default: Any | None = None) -> Column:
    """The value ``offset`` rows before the row in its partition (``default`` when none)."""
    return _call("lag", _to_col(col), lit(offset), _lit_or_col(default))


def lead(col: ColumnOrName, offset: int = 1, default: Any | None = None) -> Column:
    """The value ``offset`` rows after the row in its partition (``default`` when none)."""
    return _call("lead", _to_col(col), lit(offset), _lit_or_col(default))


def nth_value(col: ColumnOrName, offset: int, ignoreNulls: bool | None = False) -> Column:
    """The ``offset``-th value of the window frame (from 1)."""
    return _call("nth_value", _to_col(col), lit(offset), lit(bool(ignoreNulls)))
