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
    """The row's position in its window partition, from 1.

    Returns
    -------
    Column
        an ``int`` column: 1, 2, 3, ... in the window's order

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 3), ("a", 7), ("b", 1)], ["k", "v"])
    >>> df.select("k", "v", F.row_number().over(Window.partitionBy("k").orderBy("v"))).show()
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  k|  v|row_number() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  a|  3|                                                                                                             1|
    |  a|  3|                                                                                                             2|
    |  a|  7|                                                                                                             3|
    |  b|  1|                                                                                                             1|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("row_number")


def rank() -> Column:
    """The row's rank in its partition, with gaps after ties.

    Returns
    -------
    Column
        an ``int`` column: the row's rank, with gaps after ties

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 3), ("a", 7), ("b", 1)], ["k", "v"])
    >>> df.select("k", "v", F.rank().over(Window.partitionBy("k").orderBy("v"))).show()
    +---+---+--------------------------------------------------------------------------------------------------------+
    |  k|  v|RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---+--------------------------------------------------------------------------------------------------------+
    |  a|  3|                                                                                                       1|
    |  a|  3|                                                                                                       1|
    |  a|  7|                                                                                                       3|
    |  b|  1|                                                                                                       1|
    +---+---+--------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("rank")


def dense_rank() -> Column:
    """The row's rank in its partition, without gaps after ties.

    Returns
    -------
    Column
        an ``int`` column: the row's rank, without gaps after ties

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 3), ("a", 7), ("b", 1)], ["k", "v"])
    >>> df.select("k", "v", F.dense_rank().over(Window.partitionBy("k").orderBy("v"))).show()
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  k|  v|DENSE_RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  a|  3|                                                                                                             1|
    |  a|  3|                                                                                                             1|
    |  a|  7|                                                                                                             2|
    |  b|  1|                                                                                                             1|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("dense_rank")


def percent_rank() -> Column:
    """``(rank - 1) / (rows in partition - 1)``.

    Returns
    -------
    Column
        a ``double`` column: ``(rank - 1) / (rows - 1)``, from 0 to 1

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 3), ("a", 7), ("b", 1)], ["k", "v"])
    >>> df.select("k", "v", F.percent_rank().over(Window.partitionBy("k").orderBy("v"))).show()
    +---+---+----------------------------------------------------------------------------------------------------------------+
    |  k|  v|PERCENT_RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---+----------------------------------------------------------------------------------------------------------------+
    |  a|  3|                                                                                                             0.0|
    |  a|  3|                                                                                                             0.0|
    |  a|  7|                                                                                                             1.0|
    |  b|  1|                                                                                                             0.0|
    +---+---+----------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("percent_rank")


def cume_dist() -> Column:
    """The fraction of the partition's rows at or before the row.

    Returns
    -------
    Column
        a ``double`` column: the share of the partition's rows at or before this one

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([("a", 3), ("a", 3), ("a", 7), ("b", 1)], ["k", "v"])
    >>> df.select("k", "v", F.cume_dist().over(Window.partitionBy("k").orderBy("v"))).show()
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  k|  v|cume_dist() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    |  a|  3|                                                                                            0.6666666666666666|
    |  a|  3|                                                                                            0.6666666666666666|
    |  a|  7|                                                                                                           1.0|
    |  b|  1|                                                                                                           1.0|
    +---+---+--------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("cume_dist")


def ntile(n: int) -> Column:
    """The row's bucket when the partition is split into ``n`` ordered groups.

    Parameters
    ----------
    n : int
        how many buckets

    Returns
    -------
    Column
        an ``int`` column: the bucket, 1 to ``n``, splitting the partition's rows as evenly as can be

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (4,), (5,)], ["v"])
    >>> df.select("v", F.ntile(2).over(Window.orderBy("v"))).show()
    +---+-------------------------------------------------------------------------------------------+
    |  v|ntile(2) OVER (ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+-------------------------------------------------------------------------------------------+
    |  1|                                                                                          1|
    |  2|                                                                                          1|
    |  3|                                                                                          1|
    |  4|                                                                                          2|
    |  5|                                                                                          2|
    +---+-------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("ntile", lit(n))


def lag(col: ColumnOrName, offset: int = 1, default: Any | None = None) -> Column:
    """The value ``offset`` rows before the row in its partition (``default`` when none).

    Parameters
    ----------
    col : Column or str
        the values
    offset : int, optional
        how many rows back
    default : Any, optional
        the value where there is no such row (default null)

    Returns
    -------
    Column
        the value ``offset`` rows before, in the window's order

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([(1, 10), (2, 20), (3, 30)], ["t", "v"])
    >>> df.select("t", F.lag("v").over(Window.orderBy("t")), F.lag("v", 2, 0).over(Window.orderBy("t"))).show()
    +---+--------------------------------------------------------------------------------------------+-----------------------------------------------------------------------------------------+
    |  t|lag(v, 1, NULL) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)|lag(v, 2, 0) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN -2 FOLLOWING AND -2 FOLLOWING)|
    +---+--------------------------------------------------------------------------------------------+-----------------------------------------------------------------------------------------+
    |  1|                                                                                        NULL|                                                                                        0|
    |  2|                                                                                          10|                                                                                        0|
    |  3|                                                                                          20|                                                                                       10|
    +---+--------------------------------------------------------------------------------------------+-----------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("lag", _to_col(col), lit(offset), _lit_or_col(default))


def lead(col: ColumnOrName, offset: int = 1, default: Any | None = None) -> Column:
    """The value ``offset`` rows after the row in its partition (``default`` when none).

    Parameters
    ----------
    col : Column or str
        the values
    offset : int, optional
        how many rows ahead
    default : Any, optional
        the value where there is no such row (default null)

    Returns
    -------
    Column
        the value ``offset`` rows after, in the window's order

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([(1, 10), (2, 20), (3, 30)], ["t", "v"])
    >>> df.select("t", F.lead("v").over(Window.orderBy("t"))).show()
    +---+-------------------------------------------------------------------------------------------+
    |  t|lead(v, 1, NULL) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING)|
    +---+-------------------------------------------------------------------------------------------+
    |  1|                                                                                         20|
    |  2|                                                                                         30|
    |  3|                                                                                       NULL|
    +---+-------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("lead", _to_col(col), lit(offset), _lit_or_col(default))


def nth_value(col: ColumnOrName, offset: int, ignoreNulls: bool | None = False) -> Column:
    """The ``offset``-th value of the window frame (from 1).

    Parameters
    ----------
    col : Column or str
        the values
    offset : int
        which row of the frame, from 1
    ignoreNulls : bool, optional
        count only non-null values

    Returns
    -------
    Column
        the value on the frame's ``offset``-th row (null while the frame has fewer)

    Examples
    --------
    >>> from sparklet.sql import Window
    >>> df = spark.createDataFrame([(1, 10), (2, 20), (3, 30)], ["t", "v"])
    >>> df.select("t", F.nth_value("v", 2).over(Window.orderBy("t"))).show()
    +---+---------------------------------------------------------------------------------------------------+
    |  t|nth_value(v, 2) OVER (ORDER BY t ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)|
    +---+---------------------------------------------------------------------------------------------------+
    |  1|                                                                                               NULL|
    |  2|                                                                                                 20|
    |  3|                                                                                                 20|
    +---+---------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("nth_value", _to_col(col), lit(offset), lit(bool(ignoreNulls)))
