"""Sketch functions, as PySpark's: aggregates that build Apache
DataSketches sketches (HyperLogLog, theta, tuple, KLL) as binary values, and
functions that read and combine them. Optional trailing arguments are
literals; Spark's defaults show in the column name."""

from __future__ import annotations

from typing import Any

from sparklet.sql.column import Column, _as_col, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call

__all__ = [
    "tuple_union_theta_double",
    "tuple_intersection_theta_double",
    "tuple_difference_theta_double",
    "tuple_union_theta_integer",
    "tuple_intersection_theta_integer",
    "tuple_difference_theta_integer",
    "hll_sketch_agg",
    "hll_union_agg",
    "hll_sketch_estimate",
    "hll_union",
    "theta_sketch_agg",
    "theta_union_agg",
    "theta_intersection_agg",
    "theta_sketch_estimate",
    "theta_union",
    "theta_intersection",
    "theta_difference",
    "kll_sketch_agg_bigint",
    "kll_merge_agg_bigint",
    "kll_sketch_get_n_bigint",
    "kll_sketch_get_quantile_bigint",
    "kll_sketch_get_rank_bigint",
    "kll_sketch_merge_bigint",
    "kll_sketch_to_string_bigint",
    "kll_sketch_agg_float",
    "kll_merge_agg_float",
    "kll_sketch_get_n_float",
    "kll_sketch_get_quantile_float",
    "kll_sketch_get_rank_float",
    "kll_sketch_merge_float",
    "kll_sketch_to_string_float",
    "kll_sketch_agg_double",
    "kll_merge_agg_double",
    "kll_sketch_get_n_double",
    "kll_sketch_get_quantile_double",
    "kll_sketch_get_rank_double",
    "kll_sketch_merge_double",
    "kll_sketch_to_string_double",
    "tuple_sketch_agg_double",
    "tuple_union_agg_double",
    "tuple_intersection_agg_double",
    "tuple_sketch_estimate_double",
    "tuple_sketch_summary_double",
    "tuple_sketch_theta_double",
    "tuple_union_double",
    "tuple_intersection_double",
    "tuple_difference_double",
    "tuple_sketch_agg_integer",
    "tuple_union_agg_integer",
    "tuple_intersection_agg_integer",
    "tuple_sketch_estimate_integer",
    "tuple_sketch_summary_integer",
    "tuple_sketch_theta_integer",
    "tuple_union_integer",
    "tuple_intersection_integer",
    "tuple_difference_integer",
]


def tuple_union_theta_double(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of a tuple sketch of double summaries with a theta sketch (whose keys take the mode's new summary).

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of double summaries
    col2 : Column or str
        theta sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_union_theta_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 4.0|
    +----+
    <BLANKLINE>
    """
    return _call(
        "tuple_union_theta_double", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_intersection_theta_double(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of a tuple sketch of double summaries with a theta sketch.

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of double summaries
    col2 : Column or str
        theta sketches
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_intersection_theta_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 2.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_theta_double", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_theta_double(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of a tuple sketch of double summaries not in a theta sketch.

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of double summaries
    col2 : Column or str
        theta sketches

    Returns
    -------
    Column
        a ``binary`` column: the difference (the tuple sketch's keys not in the theta sketch)'s sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_difference_theta_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 1.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_difference_theta_double", _to_col(col1), _to_col(col2))


def tuple_union_theta_integer(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of a tuple sketch of integer summaries with a theta sketch (whose keys take the mode's new summary).

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of integer summaries
    col2 : Column or str
        theta sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_union_theta_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 4.0|
    +----+
    <BLANKLINE>
    """
    return _call(
        "tuple_union_theta_integer", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_intersection_theta_integer(
    col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None
) -> Column:
    """The intersection of a tuple sketch of integer summaries with a theta sketch.

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of integer summaries
    col2 : Column or str
        theta sketches
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_intersection_theta_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 2.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_theta_integer", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_theta_integer(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of a tuple sketch of integer summaries not in a theta sketch.

    Parameters
    ----------
    col1 : Column or str
        tuple sketches of integer summaries
    col2 : Column or str
        theta sketches

    Returns
    -------
    Column
        a ``binary`` column: the difference (the tuple sketch's keys not in the theta sketch)'s sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.theta_sketch_agg(F.col("k") + 1).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_difference_theta_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 1.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_difference_theta_integer", _to_col(col1), _to_col(col2))


def _optional(*given: tuple[Any, Any]) -> list[Column]:
    """Trailing optional arguments as literals: up to the last one given,
    those left out before it take Spark's default."""
    last = max((i for i, (v, _) in enumerate(given) if v is not None), default=-1)
    return [_as_col(default if v is None else v) for v, default in given[: last + 1]]


def hll_sketch_agg(col: ColumnOrName, lgConfigK: Column | int | None = None) -> Column:
    """A HyperLogLog sketch (HLL_8) of the values, with ``2**lgConfigK`` buckets (default 12).

    Parameters
    ----------
    col : Column or str
        the values to count
    lgConfigK : Column or int, optional
        log2 of the sketch's buckets, 4 to 21 (default 12): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the HyperLogLog sketch of the group's values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.hll_sketch_estimate(F.hll_sketch_agg("v")).alias("distinct_v")).show()
    +----------+
    |distinct_v|
    +----------+
    |        10|
    +----------+
    <BLANKLINE>
    """
    return _call("hll_sketch_agg", _to_col(col), *_optional((lgConfigK, 12)))


def hll_union_agg(col: ColumnOrName, allowDifferentLgConfigK: Column | bool | None = None) -> Column:
    """The union of the HyperLogLog sketches (of one ``lgConfigK`` unless allowed otherwise).

    Parameters
    ----------
    col : Column or str
        HyperLogLog sketches
    allowDifferentLgConfigK : Column or bool, optional
        take sketches of different ``lgConfigK`` (the union takes the smallest)

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.hll_sketch_agg("v").alias("s"))
    >>> parts.agg(F.hll_sketch_estimate(F.hll_union_agg("s")).alias("distinct_v")).show()
    +----------+
    |distinct_v|
    +----------+
    |        10|
    +----------+
    <BLANKLINE>
    """
    return _call("hll_union_agg", _to_col(col), *_optional((allowDifferentLgConfigK, False)))


def hll_sketch_estimate(col: ColumnOrName) -> Column:
    """The number of distinct values a HyperLogLog sketch estimates.

    Parameters
    ----------
    col : Column or str
        HyperLogLog sketches

    Returns
    -------
    Column
        a ``bigint`` column: the estimated number of distinct values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.hll_sketch_estimate(F.hll_sketch_agg("k")).alias("distinct_k")).show()
    +----------+
    |distinct_k|
    +----------+
    |         3|
    +----------+
    <BLANKLINE>
    """
    return _call("hll_sketch_estimate", _to_col(col))


def hll_union(col1: ColumnOrName, col2: ColumnOrName, allowDifferentLgConfigK: Column | bool | None = None) -> Column:
    """The union of two HyperLogLog sketches.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    allowDifferentLgConfigK : Column or bool, optional
        take sketches of different ``lgConfigK``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.hll_sketch_agg("v").alias("a"), F.hll_sketch_agg(F.col("v") + 5).alias("b"))
    >>> s.select(F.hll_sketch_estimate(F.hll_union("a", "b")).alias("distinct")).show()
    +--------+
    |distinct|
    +--------+
    |      15|
    +--------+
    <BLANKLINE>
    """
    return _call("hll_union", _to_col(col1), _to_col(col2), *_optional((allowDifferentLgConfigK, False)))


def theta_sketch_agg(col: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """A theta sketch of the values, of ``2**lgNomEntries`` nominal entries (default 12).

    Parameters
    ----------
    col : Column or str
        the values to count
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the theta sketch of the group's values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.theta_sketch_estimate(F.theta_sketch_agg("v")).alias("distinct_v")).show()
    +----------+
    |distinct_v|
    +----------+
    |        10|
    +----------+
    <BLANKLINE>
    """
    return _call("theta_sketch_agg", _to_col(col), *_optional((lgNomEntries, 12)))


def theta_union_agg(col: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """The union of the theta sketches.

    Parameters
    ----------
    col : Column or str
        theta sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.theta_sketch_agg("v").alias("s"))
    >>> parts.agg(F.theta_sketch_estimate(F.theta_union_agg("s")).alias("distinct_v")).show()
    +----------+
    |distinct_v|
    +----------+
    |        10|
    +----------+
    <BLANKLINE>
    """
    return _call("theta_union_agg", _to_col(col), *_optional((lgNomEntries, 12)))


def theta_intersection_agg(col: ColumnOrName) -> Column:
    """The intersection of the theta sketches.

    Parameters
    ----------
    col : Column or str
        theta sketches

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.theta_sketch_agg(F.col("v") % 2).alias("s"))
    >>> parts.agg(F.theta_sketch_estimate(F.theta_intersection_agg("s")).alias("in_every_group")).show()
    +--------------+
    |in_every_group|
    +--------------+
    |             2|
    +--------------+
    <BLANKLINE>
    """
    return _call("theta_intersection_agg", _to_col(col))


def theta_sketch_estimate(col: ColumnOrName) -> Column:
    """The number of distinct values a theta sketch estimates.

    Parameters
    ----------
    col : Column or str
        theta sketches

    Returns
    -------
    Column
        a ``bigint`` column: the estimated number of distinct values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.theta_sketch_estimate(F.theta_sketch_agg("k")).alias("distinct_k")).show()
    +----------+
    |distinct_k|
    +----------+
    |         3|
    +----------+
    <BLANKLINE>
    """
    return _call("theta_sketch_estimate", _to_col(col))


def theta_union(col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """The union of two theta sketches.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.theta_sketch_agg("v").alias("a"), F.theta_sketch_agg(F.col("v") + 5).alias("b"))
    >>> s.select(F.theta_sketch_estimate(F.theta_union("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 15|
    +---+
    <BLANKLINE>
    """
    return _call("theta_union", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12)))


def theta_intersection(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The intersection of two theta sketches.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.theta_sketch_agg("v").alias("a"), F.theta_sketch_agg(F.col("v") + 5).alias("b"))
    >>> s.select(F.theta_sketch_estimate(F.theta_intersection("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    |  5|
    +---+
    <BLANKLINE>
    """
    return _call("theta_intersection", _to_col(col1), _to_col(col2))


def theta_difference(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The values of the first theta sketch not in the second.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the difference (``col1``'s values not in ``col2``)'s sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.theta_sketch_agg("v").alias("a"), F.theta_sketch_agg(F.col("v") + 5).alias("b"))
    >>> s.select(F.theta_sketch_estimate(F.theta_difference("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    |  5|
    +---+
    <BLANKLINE>
    """
    return _call("theta_difference", _to_col(col1), _to_col(col2))


def kll_sketch_agg_bigint(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the bigint values (accuracy ``k``, default 200).

    Parameters
    ----------
    col : Column or str
        the bigint values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the KLL quantiles sketch of the group's values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_bigint(F.kll_sketch_agg_bigint("v")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_agg_bigint", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_bigint(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of bigint values.

    Parameters
    ----------
    col : Column or str
        KLL sketches of bigint values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.kll_sketch_agg_bigint("v").alias("s"))
    >>> parts.agg(F.kll_sketch_get_n_bigint(F.kll_merge_agg_bigint("s")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_merge_agg_bigint", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_bigint(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of bigint values has seen.

    Parameters
    ----------
    col : Column or str
        KLL sketches of bigint values

    Returns
    -------
    Column
        a ``bigint`` column: how many values the sketch has seen

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_bigint(F.kll_sketch_agg_bigint("v")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_n_bigint", _to_col(col))


def kll_sketch_get_quantile_bigint(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of bigint values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of bigint values
    rank : Column or str
        the normalized rank, 0 to 1 (or an array of them)

    Returns
    -------
    Column
        the (approximate) value at that rank

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_bigint("v").alias("s"))
    >>> s.select(F.kll_sketch_get_quantile_bigint("s", F.lit(0.5)).alias("median")).show()
    +------+
    |median|
    +------+
    |     4|
    +------+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_quantile_bigint", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_bigint(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of bigint values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of bigint values
    quantile : Column or str
        the value (or an array of them)

    Returns
    -------
    Column
        a ``double`` column: the (approximate) normalized rank of the value, 0 to 1

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_bigint("v").alias("s"))
    >>> s.select(F.kll_sketch_get_rank_bigint("s", F.lit(4)).alias("rank")).show()
    +----+
    |rank|
    +----+
    | 0.5|
    +----+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_rank_bigint", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_bigint(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of bigint values.

    Parameters
    ----------
    left : Column or str
        the first sketches
    right : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_bigint("v").alias("a"), F.kll_sketch_agg_bigint((F.col("v") + 10)).alias("b"))
    >>> s.select(F.kll_sketch_get_n_bigint(F.kll_sketch_merge_bigint("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 20|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_merge_bigint", _to_col(left), _to_col(right))


def kll_sketch_to_string_bigint(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of bigint values, as text.

    Parameters
    ----------
    col : Column or str
        KLL sketches of bigint values

    Returns
    -------
    Column
        a ``string`` column: a human-readable summary of each sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_bigint("v").alias("s"))
    >>> s.select(F.kll_sketch_to_string_bigint("s").contains("KLL").alias("described")).show()
    +---------+
    |described|
    +---------+
    |    false|
    +---------+
    <BLANKLINE>
    """
    return _call("kll_sketch_to_string_bigint", _to_col(col))


def kll_sketch_agg_float(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the float values (accuracy ``k``, default 200).

    Parameters
    ----------
    col : Column or str
        the float values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the KLL quantiles sketch of the group's values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_float(F.kll_sketch_agg_float(F.col("v").cast("float"))).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_agg_float", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_float(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of float values.

    Parameters
    ----------
    col : Column or str
        KLL sketches of float values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.kll_sketch_agg_float(F.col("v").cast("float")).alias("s"))
    >>> parts.agg(F.kll_sketch_get_n_float(F.kll_merge_agg_float("s")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_merge_agg_float", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_float(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of float values has seen.

    Parameters
    ----------
    col : Column or str
        KLL sketches of float values

    Returns
    -------
    Column
        a ``bigint`` column: how many values the sketch has seen

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_float(F.kll_sketch_agg_float(F.col("v").cast("float"))).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_n_float", _to_col(col))


def kll_sketch_get_quantile_float(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of float values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of float values
    rank : Column or str
        the normalized rank, 0 to 1 (or an array of them)

    Returns
    -------
    Column
        the (approximate) value at that rank

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_float(F.col("v").cast("float")).alias("s"))
    >>> s.select(F.kll_sketch_get_quantile_float("s", F.lit(0.5)).alias("median")).show()
    +------+
    |median|
    +------+
    |   4.0|
    +------+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_quantile_float", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_float(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of float values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of float values
    quantile : Column or str
        the value (or an array of them)

    Returns
    -------
    Column
        a ``double`` column: the (approximate) normalized rank of the value, 0 to 1

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_float(F.col("v").cast("float")).alias("s"))
    >>> s.select(F.kll_sketch_get_rank_float("s", F.lit(4).cast("float")).alias("rank")).show()
    +----+
    |rank|
    +----+
    | 0.5|
    +----+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_rank_float", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_float(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of float values.

    Parameters
    ----------
    left : Column or str
        the first sketches
    right : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_float(F.col("v").cast("float")).alias("a"), F.kll_sketch_agg_float((F.col("v") + 10).cast("float")).alias("b"))
    >>> s.select(F.kll_sketch_get_n_float(F.kll_sketch_merge_float("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 20|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_merge_float", _to_col(left), _to_col(right))


def kll_sketch_to_string_float(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of float values, as text.

    Parameters
    ----------
    col : Column or str
        KLL sketches of float values

    Returns
    -------
    Column
        a ``string`` column: a human-readable summary of each sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_float(F.col("v").cast("float")).alias("s"))
    >>> s.select(F.kll_sketch_to_string_float("s").contains("KLL").alias("described")).show()
    +---------+
    |described|
    +---------+
    |    false|
    +---------+
    <BLANKLINE>
    """
    return _call("kll_sketch_to_string_float", _to_col(col))


def kll_sketch_agg_double(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the double values (accuracy ``k``, default 200).

    Parameters
    ----------
    col : Column or str
        the double values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the KLL quantiles sketch of the group's values

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_double(F.kll_sketch_agg_double(F.col("v").cast("double"))).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_agg_double", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_double(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of double values.

    Parameters
    ----------
    col : Column or str
        KLL sketches of double values
    k : Column or int, optional
        the sketch's size parameter, 8 to 65535 (default 200): more is more precise

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy("k").agg(F.kll_sketch_agg_double(F.col("v").cast("double")).alias("s"))
    >>> parts.agg(F.kll_sketch_get_n_double(F.kll_merge_agg_double("s")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_merge_agg_double", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_double(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of double values has seen.

    Parameters
    ----------
    col : Column or str
        KLL sketches of double values

    Returns
    -------
    Column
        a ``bigint`` column: how many values the sketch has seen

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.kll_sketch_get_n_double(F.kll_sketch_agg_double(F.col("v").cast("double"))).alias("n")).show()
    +---+
    |  n|
    +---+
    | 10|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_n_double", _to_col(col))


def kll_sketch_get_quantile_double(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of double values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of double values
    rank : Column or str
        the normalized rank, 0 to 1 (or an array of them)

    Returns
    -------
    Column
        the (approximate) value at that rank

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_double(F.col("v").cast("double")).alias("s"))
    >>> s.select(F.kll_sketch_get_quantile_double("s", F.lit(0.5)).alias("median")).show()
    +------+
    |median|
    +------+
    |   4.0|
    +------+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_quantile_double", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_double(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of double values.

    Parameters
    ----------
    sketch : Column or str
        KLL sketches of double values
    quantile : Column or str
        the value (or an array of them)

    Returns
    -------
    Column
        a ``double`` column: the (approximate) normalized rank of the value, 0 to 1

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_double(F.col("v").cast("double")).alias("s"))
    >>> s.select(F.kll_sketch_get_rank_double("s", F.lit(4).cast("double")).alias("rank")).show()
    +----+
    |rank|
    +----+
    | 0.5|
    +----+
    <BLANKLINE>
    """
    return _call("kll_sketch_get_rank_double", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_double(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of double values.

    Parameters
    ----------
    left : Column or str
        the first sketches
    right : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the merged sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_double(F.col("v").cast("double")).alias("a"), F.kll_sketch_agg_double((F.col("v") + 10).cast("double")).alias("b"))
    >>> s.select(F.kll_sketch_get_n_double(F.kll_sketch_merge_double("a", "b")).alias("n")).show()
    +---+
    |  n|
    +---+
    | 20|
    +---+
    <BLANKLINE>
    """
    return _call("kll_sketch_merge_double", _to_col(left), _to_col(right))


def kll_sketch_to_string_double(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of double values, as text.

    Parameters
    ----------
    col : Column or str
        KLL sketches of double values

    Returns
    -------
    Column
        a ``string`` column: a human-readable summary of each sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.kll_sketch_agg_double(F.col("v").cast("double")).alias("s"))
    >>> s.select(F.kll_sketch_to_string_double("s").contains("KLL").alias("described")).show()
    +---------+
    |described|
    +---------+
    |    false|
    +---------+
    <BLANKLINE>
    """
    return _call("kll_sketch_to_string_double", _to_col(col))


def tuple_sketch_agg_double(
    key: ColumnOrName, summary: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """A tuple sketch of the keys, each with a double summary of its values combined by ``mode`` (sum, min, max, alwaysone).

    Parameters
    ----------
    key : Column or str
        the keys to count
    summary : Column or str
        the double values to summarize per key
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the tuple sketch of the keys with their double summaries

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_estimate_double(F.tuple_sketch_agg_double("k", "x")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call(
        "tuple_sketch_agg_double", _to_col(key), _to_col(summary), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_union_agg_double(
    col: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of the tuple sketches of double summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of double summaries
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy(F.col("v") % 2).agg(F.tuple_sketch_agg_double("k", "x").alias("s"))
    >>> parts.agg(F.tuple_sketch_estimate_double(F.tuple_union_agg_double("s")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_union_agg_double", _to_col(col), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_agg_double(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of the tuple sketches of double summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of double summaries
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy(F.col("v") % 2).agg(F.tuple_sketch_agg_double("k", "x").alias("s"))
    >>> parts.agg(F.tuple_sketch_estimate_double(F.tuple_intersection_agg_double("s")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_agg_double", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_estimate_double(col: ColumnOrName) -> Column:
    """The number of distinct keys a tuple sketch of double summaries estimates.

    Parameters
    ----------
    col : Column or str
        tuple sketches of double summaries

    Returns
    -------
    Column
        a ``double`` column: the estimated number of distinct keys

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_estimate_double(F.tuple_sketch_agg_double("k", "x")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_sketch_estimate_double", _to_col(col))


def tuple_sketch_summary_double(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The double summaries of a tuple sketch combined by ``mode``.

    Parameters
    ----------
    col : Column or str
        tuple sketches of double summaries
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        the keys' summaries combined by ``mode``

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("s"))
    >>> s.select(F.tuple_sketch_summary_double("s"), F.tuple_sketch_summary_double("s", F.lit("max"))).show()
    +-----------------------------------+-----------------------------------+
    |tuple_sketch_summary_double(s, sum)|tuple_sketch_summary_double(s, max)|
    +-----------------------------------+-----------------------------------+
    |                               45.0|                               18.0|
    +-----------------------------------+-----------------------------------+
    <BLANKLINE>
    """
    return _call("tuple_sketch_summary_double", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_theta_double(col: ColumnOrName) -> Column:
    """The theta (sampling fraction) of a tuple sketch of double summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of double summaries

    Returns
    -------
    Column
        a ``double`` column: the sampling fraction (1.0 while the sketch holds every key)

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_theta_double(F.tuple_sketch_agg_double("k", "x")).alias("theta")).show()
    +-----+
    |theta|
    +-----+
    |  1.0|
    +-----+
    <BLANKLINE>
    """
    return _call("tuple_sketch_theta_double", _to_col(col))


def tuple_union_double(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of two tuple sketches of double summaries.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.tuple_sketch_agg_double(F.col("k") + 1, "x").alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_union_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 4.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_union_double", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_double(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of two tuple sketches of double summaries.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.tuple_sketch_agg_double(F.col("k") + 1, "x").alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_intersection_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 2.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_double", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_double(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of the first tuple sketch of double summaries not in the second.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the difference (``col1``'s keys not in ``col2``)'s sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_double("k", "x").alias("a"), F.tuple_sketch_agg_double(F.col("k") + 1, "x").alias("b"))
    >>> s.select(F.tuple_sketch_estimate_double(F.tuple_difference_double("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 1.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_difference_double", _to_col(col1), _to_col(col2))


def tuple_sketch_agg_integer(
    key: ColumnOrName, summary: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """A tuple sketch of the keys, each with a integer summary of its values combined by ``mode`` (sum, min, max, alwaysone).

    Parameters
    ----------
    key : Column or str
        the keys to count
    summary : Column or str
        the integer values to summarize per key
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the tuple sketch of the keys with their integer summaries

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_estimate_integer(F.tuple_sketch_agg_integer("k", F.col("v").cast("int"))).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call(
        "tuple_sketch_agg_integer", _to_col(key), _to_col(summary), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_union_agg_integer(
    col: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of the tuple sketches of integer summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of integer summaries
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy(F.col("v") % 2).agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("s"))
    >>> parts.agg(F.tuple_sketch_estimate_integer(F.tuple_union_agg_integer("s")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_union_agg_integer", _to_col(col), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_agg_integer(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of the tuple sketches of integer summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of integer summaries
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> parts = df.groupBy(F.col("v") % 2).agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("s"))
    >>> parts.agg(F.tuple_sketch_estimate_integer(F.tuple_intersection_agg_integer("s")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_agg_integer", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_estimate_integer(col: ColumnOrName) -> Column:
    """The number of distinct keys a tuple sketch of integer summaries estimates.

    Parameters
    ----------
    col : Column or str
        tuple sketches of integer summaries

    Returns
    -------
    Column
        a ``double`` column: the estimated number of distinct keys

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_estimate_integer(F.tuple_sketch_agg_integer("k", F.col("v").cast("int"))).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 3.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_sketch_estimate_integer", _to_col(col))


def tuple_sketch_summary_integer(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The integer summaries of a tuple sketch combined by ``mode``.

    Parameters
    ----------
    col : Column or str
        tuple sketches of integer summaries
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        the keys' summaries combined by ``mode``

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("s"))
    >>> s.select(F.tuple_sketch_summary_integer("s"), F.tuple_sketch_summary_integer("s", F.lit("max"))).show()
    +------------------------------------+------------------------------------+
    |tuple_sketch_summary_integer(s, sum)|tuple_sketch_summary_integer(s, max)|
    +------------------------------------+------------------------------------+
    |                                  45|                                  18|
    +------------------------------------+------------------------------------+
    <BLANKLINE>
    """
    return _call("tuple_sketch_summary_integer", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_theta_integer(col: ColumnOrName) -> Column:
    """The theta (sampling fraction) of a tuple sketch of integer summaries.

    Parameters
    ----------
    col : Column or str
        tuple sketches of integer summaries

    Returns
    -------
    Column
        a ``double`` column: the sampling fraction (1.0 while the sketch holds every key)

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> df.agg(F.tuple_sketch_theta_integer(F.tuple_sketch_agg_integer("k", F.col("v").cast("int"))).alias("theta")).show()
    +-----+
    |theta|
    +-----+
    |  1.0|
    +-----+
    <BLANKLINE>
    """
    return _call("tuple_sketch_theta_integer", _to_col(col))


def tuple_union_integer(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of two tuple sketches of integer summaries.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    lgNomEntries : Column or int, optional
        log2 of the sketch's nominal entries, 4 to 26 (default 12): more is more precise
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the union's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.tuple_sketch_agg_integer(F.col("k") + 1, F.col("v").cast("int")).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_union_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 4.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_union_integer", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_integer(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of two tuple sketches of integer summaries.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches
    mode : Column or str, optional
        how summaries of one key combine: ``sum`` (default), ``min``, ``max`` or ``alwaysone``

    Returns
    -------
    Column
        a ``binary`` column: the intersection's sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.tuple_sketch_agg_integer(F.col("k") + 1, F.col("v").cast("int")).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_intersection_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 2.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_intersection_integer", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_integer(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of the first tuple sketch of integer summaries not in the second.

    Parameters
    ----------
    col1 : Column or str
        the first sketches
    col2 : Column or str
        the second sketches

    Returns
    -------
    Column
        a ``binary`` column: the difference (``col1``'s keys not in ``col2``)'s sketch

    Examples
    --------
    >>> df = spark.createDataFrame([(i % 3, i, float(i)) for i in range(10)], ["k", "v", "x"])
    >>> s = df.agg(F.tuple_sketch_agg_integer("k", F.col("v").cast("int")).alias("a"), F.tuple_sketch_agg_integer(F.col("k") + 1, F.col("v").cast("int")).alias("b"))
    >>> s.select(F.tuple_sketch_estimate_integer(F.tuple_difference_integer("a", "b")).alias("keys")).show()
    +----+
    |keys|
    +----+
    | 1.0|
    +----+
    <BLANKLINE>
    """
    return _call("tuple_difference_integer", _to_col(col1), _to_col(col2))
