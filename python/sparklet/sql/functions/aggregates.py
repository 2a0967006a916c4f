"""Aggregate functions, as PySpark's: in ``groupBy().agg()`` of batch
DataFrames, and in streaming aggregations, whose state keeps each
aggregate's partial state."""

from __future__ import annotations

from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, lit

__all__ = [
    "count", "sum", "avg", "mean", "min", "max", "first", "last", "first_value", "last_value",
    "any_value", "collect_list", "collect_set", "array_agg", "stddev", "std", "stddev_samp",
    "stddev_pop", "variance", "var_samp", "var_pop", "approx_count_distinct", "countDistinct",
    "count_distinct", "sum_distinct", "sumDistinct", "median", "corr", "covar_pop", "covar_samp",
    "bool_and", "bool_or", "every", "some", "bit_and", "bit_or", "bit_xor", "grouping", "string_agg", "listagg", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "count_if", "max_by", "min_by", "product", "kurtosis", "skewness", "try_avg", "percentile", "percentile_approx", "approx_percentile",
 "try_sum",
 "vector_sum", "vector_avg",
 "bitmap_construct_agg", "bitmap_or_agg", "bitmap_and_agg",
 "collect_union", "mode",
]  # fmt: skip


def count(col: ColumnOrName) -> Column:
    """Number of non-null values (``count("*")`` counts rows).

    Parameters
    ----------
    col : Column or str
        the values to count (nulls are not counted), or ``F.lit(1)`` / ``"*"`` for rows

    Returns
    -------
    Column
        a ``bigint`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", None), ("b", 5)], "k string, v int")
    >>> df.agg(F.count("v"), F.count(F.lit(1))).show()
    +--------+--------+
    |count(v)|count(1)|
    +--------+--------+
    |       2|       3|
    +--------+--------+
    <BLANKLINE>
    """
    if isinstance(col, str) and col == "*":
        return _call("count", lit(1))
    return _call("count", _to_col(col))


def sum(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The sum of the values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the sums (``bigint`` for integers, ``double`` for floats, a wider decimal for decimals)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.sum("v")).orderBy("k").show()
    +---+------+
    |  k|sum(v)|
    +---+------+
    |  a|     4|
    |  b|     5|
    +---+------+
    <BLANKLINE>
    """
    return _fn("sum", col)


def avg(col: ColumnOrName) -> Column:
    """The mean of the values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column (a decimal for decimals)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.avg("v")).orderBy("k").show()
    +---+------+
    |  k|avg(v)|
    +---+------+
    |  a|   2.0|
    |  b|   5.0|
    +---+------+
    <BLANKLINE>
    """
    return _fn("avg", col)


def mean(col: ColumnOrName) -> Column:
    """The mean of the values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column (a decimal for decimals)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.agg(F.mean("v")).show()
    +------+
    |avg(v)|
    +------+
    |   3.0|
    +------+
    <BLANKLINE>
    """
    return _fn("mean", col)


def min(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The smallest value.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the smallest values, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.min("v")).orderBy("k").show()
    +---+------+
    |  k|min(v)|
    +---+------+
    |  a|     1|
    |  b|     5|
    +---+------+
    <BLANKLINE>
    """
    return _fn("min", col)


def max(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The largest value.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the largest values, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.max("v")).orderBy("k").show()
    +---+------+
    |  k|max(v)|
    +---+------+
    |  a|     3|
    |  b|     5|
    +---+------+
    <BLANKLINE>
    """
    return _fn("max", col)


def first(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """A group's first value (in the order rows arrive; skipping nulls
    with ``ignorenulls``).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    ignorenulls : bool, optional
        skip nulls

    Returns
    -------
    Column
        the first value of each group, in the order the rows arrive (not deterministic after a shuffle)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", None), ("b", 5)], "k string, v int")
    >>> df.groupBy("k").agg(F.first("v", ignorenulls=True)).orderBy("k").show()
    +---+--------+
    |  k|first(v)|
    +---+--------+
    |  a|       1|
    |  b|       5|
    +---+--------+
    <BLANKLINE>
    """
    return _call("first", _to_col(col), lit(bool(ignorenulls)))


def last(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """A group's last value (in the order rows arrive; skipping nulls
    with ``ignorenulls``).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    ignorenulls : bool, optional
        skip nulls

    Returns
    -------
    Column
        the last value of each group, in the order the rows arrive

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", None), ("b", 5)], "k string, v int")
    >>> df.groupBy("k").agg(F.last("v", ignorenulls=True)).orderBy("k").show()
    +---+-------+
    |  k|last(v)|
    +---+-------+
    |  a|      1|
    |  b|      5|
    +---+-------+
    <BLANKLINE>
    """
    return _call("last", _to_col(col), lit(bool(ignorenulls)))


def first_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """A group's first value (in the order rows arrive; skipping nulls
    with ``ignoreNulls``).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    ignoreNulls : bool or Column, optional
        skip nulls

    Returns
    -------
    Column
        the first value of each group, in the order the rows arrive

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", None), ("b", 5)], "k string, v int")
    >>> df.groupBy("k").agg(F.first_value("v", F.lit(True))).orderBy("k").show()
    +---+--------------+
    |  k|first_value(v)|
    +---+--------------+
    |  a|             1|
    |  b|             5|
    +---+--------------+
    <BLANKLINE>
    """
    return _call("first_value", _to_col(col), _ignore_nulls(ignoreNulls))


def last_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """A group's last value (in the order rows arrive; skipping nulls
    with ``ignoreNulls``).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    ignoreNulls : bool or Column, optional
        skip nulls

    Returns
    -------
    Column
        the last value of each group, in the order the rows arrive

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", None), ("b", 5)], "k string, v int")
    >>> df.groupBy("k").agg(F.last_value("v", F.lit(True))).orderBy("k").show()
    +---+-------------+
    |  k|last_value(v)|
    +---+-------------+
    |  a|            1|
    |  b|            5|
    +---+-------------+
    <BLANKLINE>
    """
    return _call("last_value", _to_col(col), _ignore_nulls(ignoreNulls))


def any_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """Some value of the group (a non-null one with ``ignoreNulls``).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    ignoreNulls : bool or Column, optional
        skip nulls

    Returns
    -------
    Column
        some value of each group

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.any_value("v").isNotNull()).orderBy("k").show()
    +---+--------------------------+
    |  k|(any_value(v) IS NOT NULL)|
    +---+--------------------------+
    |  a|                      true|
    |  b|                      true|
    +---+--------------------------+
    <BLANKLINE>
    """
    return _call("any_value", _to_col(col), _ignore_nulls(ignoreNulls))


def _ignore_nulls(flag: bool | Column | None) -> Column:
    """The ``ignoreNulls`` argument as a column: PySpark takes a bool or a
    boolean literal column."""
    return flag if isinstance(flag, Column) else lit(bool(flag))


def collect_list(col: ColumnOrName) -> Column:
    """The group's non-null values, as an array.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        an array of the group's non-null values (in arrival order)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.sort_array(F.collect_list("v")).alias("vs")).orderBy("k").show()
    +---+------+
    |  k|    vs|
    +---+------+
    |  a|[1, 3]|
    |  b|   [5]|
    +---+------+
    <BLANKLINE>
    """
    return _fn("collect_list", col)


def array_agg(col: ColumnOrName) -> Column:
    """The group's non-null values, as an array.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        an array of the group's non-null values (in arrival order)

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(F.sort_array(F.array_agg("v")).alias("vs")).orderBy("k").show()
    +---+------+
    |  k|    vs|
    +---+------+
    |  a|[1, 3]|
    |  b|   [5]|
    +---+------+
    <BLANKLINE>
    """
    return _fn("collect_list", col)


def collect_set(col: ColumnOrName) -> Column:
    """The group's distinct non-null values, as an array.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        an array of the group's distinct non-null values

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 1), ("a", 2)], ["k", "v"])
    >>> df.groupBy("k").agg(F.sort_array(F.collect_set("v")).alias("vs")).show()
    +---+------+
    |  k|    vs|
    +---+------+
    |  a|[1, 2]|
    +---+------+
    <BLANKLINE>
    """
    return _fn("collect_set", col)


def stddev(col: ColumnOrName) -> Column:
    """The sample standard deviation.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the sample standard deviation

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.stddev("a")).show()
    +---------+
    |stddev(a)|
    +---------+
    |      2.0|
    +---------+
    <BLANKLINE>
    """
    return _fn("stddev", col)


def std(col: ColumnOrName) -> Column:
    """The sample standard deviation.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the sample standard deviation

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.std("a")).show()
    +------+
    |std(a)|
    +------+
    |   2.0|
    +------+
    <BLANKLINE>
    """
    return _fn("std", col)


def stddev_samp(col: ColumnOrName) -> Column:
    """The sample standard deviation.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the sample standard deviation (null for one row)

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.stddev_samp("a")).show()
    +--------------+
    |stddev_samp(a)|
    +--------------+
    |           2.0|
    +--------------+
    <BLANKLINE>
    """
    return _fn("stddev_samp", col)


def stddev_pop(col: ColumnOrName) -> Column:
    """The population standard deviation.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the population standard deviation

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.stddev_pop("a")).show()
    +-----------------+
    |    stddev_pop(a)|
    +-----------------+
    |1.632993161855452|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("stddev_pop", col)


def variance(col: ColumnOrName) -> Column:
    """The sample variance.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the sample variance

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.variance("a")).show()
    +-----------+
    |variance(a)|
    +-----------+
    |        4.0|
    +-----------+
    <BLANKLINE>
    """
    return _fn("variance", col)


def var_samp(col: ColumnOrName) -> Column:
    """The sample variance.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the sample variance (null for one row)

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.var_samp("a")).show()
    +-----------+
    |var_samp(a)|
    +-----------+
    |        4.0|
    +-----------+
    <BLANKLINE>
    """
    return _fn("var_samp", col)


def var_pop(col: ColumnOrName) -> Column:
    """The population variance.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the population variance

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.var_pop("a")).show()
    +------------------+
    |        var_pop(a)|
    +------------------+
    |2.6666666666666665|
    +------------------+
    <BLANKLINE>
    """
    return _fn("var_pop", col)


def approx_count_distinct(col: ColumnOrName, rsd: float | None = None) -> Column:
    """An estimate of the number of distinct values (HyperLogLog).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    rsd : float, optional
        the largest relative standard deviation allowed (default 0.05)

    Returns
    -------
    Column
        a ``bigint`` column: an estimate of the number of distinct values (HyperLogLog++)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (2,)], ["v"])
    >>> df.agg(F.approx_count_distinct("v")).show()
    +------------------------+
    |approx_count_distinct(v)|
    +------------------------+
    |                       2|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("approx_count_distinct", col)


def countDistinct(col: ColumnOrName, *cols: ColumnOrName) -> Column:
    """Number of distinct values (of distinct combinations of the columns,
    counting those without a null).

    Parameters
    ----------
    col : Column or str
        the values
    *cols : Column or str
        more columns: count distinct combinations

    Returns
    -------
    Column
        a ``bigint`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x"), (2, "x"), (2, "x")], ["a", "b"])
    >>> df.agg(F.countDistinct("a"), F.countDistinct("a", "b")).show()
    +-----------------+--------------------+
    |count(DISTINCT a)|count(DISTINCT a, b)|
    +-----------------+--------------------+
    |                2|                   2|
    +-----------------+--------------------+
    <BLANKLINE>
    """
    if not cols:
        return _fn("count_distinct", col)
    all_cols = [_to_col(c) for c in (col, *cols)]
    names = ", ".join(c._expr.name() for c in all_cols)
    return _call("count_distinct", *all_cols).alias(f"count(DISTINCT {names})")


count_distinct = countDistinct


def sum_distinct(col: ColumnOrName) -> Column:
    """The sum of the distinct values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the sum of the distinct values

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (2,)], ["v"])
    >>> df.agg(F.sum_distinct("v")).show()
    +---------------+
    |sum(DISTINCT v)|
    +---------------+
    |              3|
    +---------------+
    <BLANKLINE>
    """
    return _fn("sum_distinct", col)


sumDistinct = sum_distinct


def median(col: ColumnOrName) -> Column:
    """The median of the values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the exact median

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.median("a")).show()
    +---------+
    |median(a)|
    +---------+
    |      3.0|
    +---------+
    <BLANKLINE>
    """
    return _fn("median", col)


def corr(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The Pearson correlation of two columns.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        a ``double`` column: the Pearson correlation coefficient

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.corr("a", "b")).show()
    +------------------+
    |        corr(a, b)|
    +------------------+
    |0.9819805060619659|
    +------------------+
    <BLANKLINE>
    """
    return _fn("corr", col1, col2)


def covar_pop(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The population covariance of two columns.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        a ``double`` column: the population covariance

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.covar_pop("a", "b")).show()
    +---------------+
    |covar_pop(a, b)|
    +---------------+
    |            4.0|
    +---------------+
    <BLANKLINE>
    """
    return _fn("covar_pop", col1, col2)


def covar_samp(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The sample covariance of two columns.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        a ``double`` column: the sample covariance

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.covar_samp("a", "b")).show()
    +----------------+
    |covar_samp(a, b)|
    +----------------+
    |             6.0|
    +----------------+
    <BLANKLINE>
    """
    return _fn("covar_samp", col1, col2)


def bool_and(col: ColumnOrName) -> Column:
    """True if every value is true.

    Parameters
    ----------
    col : Column or str
        the booleans

    Returns
    -------
    Column
        a ``boolean`` column: whether all are true

    Examples
    --------
    >>> df = spark.createDataFrame([(True,), (False,)], ["b"])
    >>> df.agg(F.bool_and("b")).show()
    +-----------+
    |bool_and(b)|
    +-----------+
    |      false|
    +-----------+
    <BLANKLINE>
    """
    return _fn("bool_and", col)


def every(col: ColumnOrName) -> Column:
    """True if every value is true.

    Parameters
    ----------
    col : Column or str
        the booleans

    Returns
    -------
    Column
        a ``boolean`` column: whether all are true

    Examples
    --------
    >>> df = spark.createDataFrame([(True,), (False,)], ["b"])
    >>> df.agg(F.every("b")).show()
    +--------+
    |every(b)|
    +--------+
    |   false|
    +--------+
    <BLANKLINE>
    """
    return _fn("every", col)


def bool_or(col: ColumnOrName) -> Column:
    """True if some value is true.

    Parameters
    ----------
    col : Column or str
        the booleans

    Returns
    -------
    Column
        a ``boolean`` column: whether any is true

    Examples
    --------
    >>> df = spark.createDataFrame([(True,), (False,)], ["b"])
    >>> df.agg(F.bool_or("b")).show()
    +----------+
    |bool_or(b)|
    +----------+
    |      true|
    +----------+
    <BLANKLINE>
    """
    return _fn("bool_or", col)


def some(col: ColumnOrName) -> Column:
    """True if some value is true.

    Parameters
    ----------
    col : Column or str
        the booleans

    Returns
    -------
    Column
        a ``boolean`` column: whether any is true

    Examples
    --------
    >>> df = spark.createDataFrame([(True,), (False,)], ["b"])
    >>> df.agg(F.some("b")).show()
    +-------+
    |some(b)|
    +-------+
    |   true|
    +-------+
    <BLANKLINE>
    """
    return _fn("some", col)


def bit_and(col: ColumnOrName) -> Column:
    """The bitwise AND of the values.

    Parameters
    ----------
    col : Column or str
        the integers

    Returns
    -------
    Column
        the bitwise AND of all values

    Examples
    --------
    >>> df = spark.createDataFrame([(6,), (3,)], ["n"])
    >>> df.agg(F.bit_and("n")).show()
    +----------+
    |bit_and(n)|
    +----------+
    |         2|
    +----------+
    <BLANKLINE>
    """
    return _fn("bit_and", col)


def bit_or(col: ColumnOrName) -> Column:
    """The bitwise OR of the values.

    Parameters
    ----------
    col : Column or str
        the integers

    Returns
    -------
    Column
        the bitwise OR of all values

    Examples
    --------
    >>> df = spark.createDataFrame([(6,), (3,)], ["n"])
    >>> df.agg(F.bit_or("n")).show()
    +---------+
    |bit_or(n)|
    +---------+
    |        7|
    +---------+
    <BLANKLINE>
    """
    return _fn("bit_or", col)


def bit_xor(col: ColumnOrName) -> Column:
    """The bitwise XOR of the values.

    Parameters
    ----------
    col : Column or str
        the integers

    Returns
    -------
    Column
        the bitwise XOR of all values

    Examples
    --------
    >>> df = spark.createDataFrame([(6,), (3,)], ["n"])
    >>> df.agg(F.bit_xor("n")).show()
    +----------+
    |bit_xor(n)|
    +----------+
    |         5|
    +----------+
    <BLANKLINE>
    """
    return _fn("bit_xor", col)


def grouping(col: ColumnOrName) -> Column:
    """1 where ``col`` is aggregated away in a rollup or cube row, else 0.

    Parameters
    ----------
    col : Column or str
        a grouping column of a ``cube``, ``rollup`` or ``groupingSets``

    Returns
    -------
    Column
        a ``tinyint`` column: 1 on the rows where ``col`` is aggregated over, else 0

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.cube("k").agg(F.grouping("k"), F.sum("v")).orderBy("k").show()
    +----+-----------+------+
    |   k|grouping(k)|sum(v)|
    +----+-----------+------+
    |NULL|          1|     9|
    |   a|          0|     4|
    |   b|          0|     5|
    +----+-----------+------+
    <BLANKLINE>
    """
    return _fn("grouping", col)


def string_agg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """The group's non-null values concatenated, separated by ``delimiter``.

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    delimiter : Column or str or bytes, optional
        what goes between the values (default: none)

    Returns
    -------
    Column
        the non-null values concatenated (in arrival order)

    Examples
    --------
    >>> df = spark.createDataFrame([("a",), ("b",), (None,)], "s string")
    >>> df.agg(F.string_agg("s", ",")).show()
    +----------------+
    |string_agg(s, ,)|
    +----------------+
    |             a,b|
    +----------------+
    <BLANKLINE>
    """
    return _call("string_agg", _to_col(col), lit(delimiter))


def listagg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """The group's non-null values concatenated, separated by ``delimiter``.

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    delimiter : Column or str or bytes, optional
        what goes between the values (default: none)

    Returns
    -------
    Column
        the non-null values concatenated (in arrival order)

    Examples
    --------
    >>> df = spark.createDataFrame([("a",), ("b",), (None,)], "s string")
    >>> df.agg(F.listagg("s", "-")).show()
    +-------------+
    |listagg(s, -)|
    +-------------+
    |          a-b|
    +-------------+
    <BLANKLINE>
    """
    return _call("listagg", _to_col(col), lit(delimiter))


def regr_avgx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``x`` over the rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: the mean of ``x`` over rows where both are non-null

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_avgx("b", "a")).show()
    +---------------+
    |regr_avgx(b, a)|
    +---------------+
    |            3.0|
    +---------------+
    <BLANKLINE>
    """
    return _fn("regr_avgx", y, x)


def regr_avgy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``y`` over the rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: the mean of ``y`` over rows where both are non-null

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_avgy("b", "a")).show()
    +-----------------+
    |  regr_avgy(b, a)|
    +-----------------+
    |4.666666666666667|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("regr_avgy", y, x)


def regr_count(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The number of rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``bigint`` column: rows where both are non-null

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_count("b", "a")).show()
    +----------------+
    |regr_count(b, a)|
    +----------------+
    |               3|
    +----------------+
    <BLANKLINE>
    """
    return _fn("regr_count", y, x)


def regr_intercept(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The intercept of the least-squares line of ``y`` on ``x``.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: the least-squares line's intercept

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.round(F.regr_intercept("b", "a"), 6)).show()
    +------------------------------+
    |round(regr_intercept(b, a), 6)|
    +------------------------------+
    |                      0.166667|
    +------------------------------+
    <BLANKLINE>
    """
    return _fn("regr_intercept", y, x)


def regr_r2(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The coefficient of determination of the regression line.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: the coefficient of determination

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.round(F.regr_r2("b", "a"), 6)).show()
    +-----------------------+
    |round(regr_r2(b, a), 6)|
    +-----------------------+
    |               0.964286|
    +-----------------------+
    <BLANKLINE>
    """
    return _fn("regr_r2", y, x)


def regr_slope(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The slope of the least-squares line of ``y`` on ``x``.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: the least-squares line's slope

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_slope("b", "a")).show()
    +----------------+
    |regr_slope(b, a)|
    +----------------+
    |             1.5|
    +----------------+
    <BLANKLINE>
    """
    return _fn("regr_slope", y, x)


def regr_sxx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(x)`` over the rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: ``regr_count * var_pop(x)``

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_sxx("b", "a")).show()
    +--------------+
    |regr_sxx(b, a)|
    +--------------+
    |           8.0|
    +--------------+
    <BLANKLINE>
    """
    return _fn("regr_sxx", y, x)


def regr_sxy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * covar_pop(y, x)`` over the rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: ``regr_count * covar_pop(y, x)``

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_sxy("b", "a")).show()
    +--------------+
    |regr_sxy(b, a)|
    +--------------+
    |          12.0|
    +--------------+
    <BLANKLINE>
    """
    return _fn("regr_sxy", y, x)


def regr_syy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(y)`` over the rows where both are non-null.

    Parameters
    ----------
    y : Column or str
        the dependent values
    x : Column or str
        the independent values

    Returns
    -------
    Column
        a ``double`` column: ``regr_count * var_pop(y)``

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.agg(F.regr_syy("b", "a")).show()
    +------------------+
    |    regr_syy(b, a)|
    +------------------+
    |18.666666666666664|
    +------------------+
    <BLANKLINE>
    """
    return _fn("regr_syy", y, x)


def count_if(col: ColumnOrName) -> Column:
    """The number of rows where ``col`` is true.

    Parameters
    ----------
    col : Column or str
        a boolean condition

    Returns
    -------
    Column
        a ``bigint`` column: rows where it is true

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.agg(F.count_if(F.col("v") > 2)).show()
    +-----------------+
    |count_if((v > 2))|
    +-----------------+
    |                2|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("count_if", col)


def _by(name: str, col: ColumnOrName, ord: ColumnOrName, k: int | None) -> Column:
    if k is not None:
        return _call(name, _to_col(col), _to_col(ord), lit(k))
    return _fn(name, col, ord)


def max_by(col: ColumnOrName, ord: ColumnOrName, k: int | None = None) -> Column:  # noqa: A002
    """The value of ``col`` on the row with the largest ``ord``.

    Parameters
    ----------
    col : Column or str
        the values to return
    ord : Column or str
        what to order them by
    k : int, optional
        return the ``k`` values with the largest ``ord`` as an array

    Returns
    -------
    Column
        the value of ``col`` on the row with the largest ``ord``

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 3), ("b", 9), ("c", 5)], ["name", "score"])
    >>> df.agg(F.max_by("name", "score")).show()
    +-------------------+
    |max_by(name, score)|
    +-------------------+
    |                  b|
    +-------------------+
    <BLANKLINE>
    """
    return _by("max_by", col, ord, k)


def min_by(col: ColumnOrName, ord: ColumnOrName, k: int | None = None) -> Column:  # noqa: A002
    """The value of ``col`` on the row with the smallest ``ord``.

    Parameters
    ----------
    col : Column or str
        the values to return
    ord : Column or str
        what to order them by
    k : int, optional
        return the ``k`` values with the smallest ``ord`` as an array

    Returns
    -------
    Column
        the value of ``col`` on the row with the smallest ``ord``

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 3), ("b", 9), ("c", 5)], ["name", "score"])
    >>> df.agg(F.min_by("name", "score")).show()
    +-------------------+
    |min_by(name, score)|
    +-------------------+
    |                  a|
    +-------------------+
    <BLANKLINE>
    """
    return _by("min_by", col, ord, k)


def product(col: ColumnOrName) -> Column:
    """The product of the values, as a double.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the product of the non-null values

    Examples
    --------
    >>> df = spark.createDataFrame([(2,), (3,), (4,)], ["n"])
    >>> df.agg(F.product("n")).show()
    +----------+
    |product(n)|
    +----------+
    |      24.0|
    +----------+
    <BLANKLINE>
    """
    return _fn("product", col)


def kurtosis(col: ColumnOrName) -> Column:
    """The excess kurtosis of the values (null without spread).

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the excess kurtosis

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (10,)], ["n"])
    >>> df.agg(F.round(F.kurtosis("n"), 6)).show()
    +---------------------+
    |round(kurtosis(n), 6)|
    +---------------------+
    |              -0.7696|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("kurtosis", col)


def skewness(col: ColumnOrName) -> Column:
    """The skewness of the values (null without spread).

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        a ``double`` column: the skewness

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (10,)], ["n"])
    >>> df.agg(F.round(F.skewness("n"), 6)).show()
    +---------------------+
    |round(skewness(n), 6)|
    +---------------------+
    |             1.018234|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("skewness", col)


def mode(col: ColumnOrName, deterministic: bool = False) -> Column:
    """The most frequent non-null value of the group; among equally
    frequent values, the lowest (Spark returns the lowest with
    ``deterministic=True`` and any of them without).

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    deterministic : bool, optional
        on a tie, the smallest value (default: any of them)

    Returns
    -------
    Column
        the most frequent value

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (2,)], ["n"])
    >>> df.agg(F.mode("n")).show()
    +-------+
    |mode(n)|
    +-------+
    |      2|
    +-------+
    <BLANKLINE>
    """
    return _call("mode", _to_col(col), lit(bool(deterministic)))


def try_avg(col: ColumnOrName) -> Column:
    """The mean of the values.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the average, null on overflow

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.agg(F.try_avg("v")).show()
    +----------+
    |try_avg(v)|
    +----------+
    |       3.0|
    +----------+
    <BLANKLINE>
    """
    return _fn("try_avg", col)


def percentile(col: ColumnOrName, percentage: Column | float, frequency: Column | int = 1) -> Column:
    """The exact percentile of the values at ``percentage`` (0 to 1),
    interpolated between the values around its rank.

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    percentage : Column or float
        the percentile, 0 to 1 (sparklet: one percentage)
    frequency : Column or int, optional
        how many times each row counts (a positive integer)

    Returns
    -------
    Column
        a ``double`` column (an array with a list of percentages): the exact, interpolated percentile

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (4,)], ["n"])
    >>> df.agg(F.percentile("n", 0.5)).show()
    +---------------------+
    |percentile(n, 0.5, 1)|
    +---------------------+
    |                  2.5|
    +---------------------+
    <BLANKLINE>
    """
    if isinstance(percentage, (list, tuple)) or not (isinstance(frequency, int) and frequency == 1):
        from sparklet.errors import PySparkNotImplementedError

        raise PySparkNotImplementedError(
            "[NOT_IMPLEMENTED] percentile of several percentages, or with a frequency, is not supported by sparklet.",
            errorClass="NOT_IMPLEMENTED",
            messageParameters={"feature": "percentile with an array of percentages or a frequency"},
        )
    return _call("percentile", _to_col(col), lit(percentage))


def percentile_approx(
    col: ColumnOrName, percentage: Column | float | list[float] | tuple[float, ...], accuracy: Column | int = 10000
) -> Column:
    """The smallest value with at least ``percentage`` of the values at or
    below it (an array of them for a list of percentages). sparklet keeps
    the values and answers exactly, within any accuracy.

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    percentage : Column or float or list[float] or tuple[float, ...]
        the percentile, 0 to 1 (or a list of them)
    accuracy : Column or int, optional
        how precise (larger: better, more memory; ``1/accuracy`` is the relative error)

    Returns
    -------
    Column
        the smallest value with at least that share of values at or below it, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (4,)], ["n"])
    >>> df.agg(F.percentile_approx("n", 0.5), F.percentile_approx("n", [0.25, 0.75], 100)).show()
    +--------------------------------+--------------------------------------------+
    |percentile_approx(n, 0.5, 10000)|percentile_approx(n, array(0.25, 0.75), 100)|
    +--------------------------------+--------------------------------------------+
    |                               2|                                      [1, 3]|
    +--------------------------------+--------------------------------------------+
    <BLANKLINE>
    """
    return _percentile_approx("percentile_approx", col, percentage, accuracy)


def approx_percentile(
    col: ColumnOrName, percentage: Column | float | list[float] | tuple[float, ...], accuracy: Column | int = 10000
) -> Column:
    """As :func:`percentile_approx`.

    Parameters
    ----------
    col : Column or str
        the values to aggregate
    percentage : Column or float or list[float] or tuple[float, ...]
        the percentile, 0 to 1 (or a list of them)
    accuracy : Column or int, optional
        how precise (larger: better, more memory; ``1/accuracy`` is the relative error)

    Returns
    -------
    Column
        the smallest value with at least that share of values at or below it, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (3,), (4,)], ["n"])
    >>> df.agg(F.approx_percentile("n", 0.5)).show()
    +--------------------------------+
    |approx_percentile(n, 0.5, 10000)|
    +--------------------------------+
    |                               2|
    +--------------------------------+
    <BLANKLINE>
    """
    return _percentile_approx("approx_percentile", col, percentage, accuracy)


def _percentile_approx(name: str, col: ColumnOrName, percentage: object, accuracy: Column | int) -> Column:
    if isinstance(percentage, tuple):
        percentage = list(percentage)
    return _call(name, _to_col(col), lit(percentage), lit(accuracy))


def try_sum(col: ColumnOrName) -> Column:
    """The sum of the values, null on overflow.

    Parameters
    ----------
    col : Column or str
        the values to aggregate

    Returns
    -------
    Column
        the sum, null on overflow

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.agg(F.try_sum("v")).show()
    +----------+
    |try_sum(v)|
    +----------+
    |         9|
    +----------+
    <BLANKLINE>
    """
    return _fn("try_sum", col)


def vector_sum(col: ColumnOrName) -> Column:
    """The element-wise sum of a group's float vectors (of one dimension).

    Parameters
    ----------
    col : Column or str
        the vectors (arrays of float), all of one length

    Returns
    -------
    Column
        the element-wise sum

    Examples
    --------
    >>> df = spark.createDataFrame([([1.0, 2.0],), ([3.0, 4.0],)], "v array<float>")
    >>> df.agg(F.vector_sum("v")).show()
    +-------------+
    |vector_sum(v)|
    +-------------+
    |   [4.0, 6.0]|
    +-------------+
    <BLANKLINE>
    """
    return _fn("vector_sum", col)


def vector_avg(col: ColumnOrName) -> Column:
    """The element-wise mean of a group's float vectors (of one dimension).

    Parameters
    ----------
    col : Column or str
        the vectors (arrays of float), all of one length

    Returns
    -------
    Column
        the element-wise mean

    Examples
    --------
    >>> df = spark.createDataFrame([([1.0, 2.0],), ([3.0, 4.0],)], "v array<float>")
    >>> df.agg(F.vector_avg("v")).show()
    +-------------+
    |vector_avg(v)|
    +-------------+
    |   [2.0, 3.0]|
    +-------------+
    <BLANKLINE>
    """
    return _fn("vector_avg", col)


def bitmap_construct_agg(col: ColumnOrName) -> Column:
    """A 4 KiB bitmap with the bits of the positions set (``bitmap_bit_position``'s).

    Parameters
    ----------
    col : Column or str
        bit positions (``bitmap_bit_position``)

    Returns
    -------
    Column
        a ``binary`` bitmap with those bits set

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (3,)], ["n"])
    >>> df.agg(F.bitmap_count(F.bitmap_construct_agg(F.bitmap_bit_position("n"))).alias("bits")).show()
    +----+
    |bits|
    +----+
    |   2|
    +----+
    <BLANKLINE>
    """
    return _fn("bitmap_construct_agg", col)


def bitmap_or_agg(col: ColumnOrName) -> Column:
    """The bitwise OR of the bitmaps.

    Parameters
    ----------
    col : Column or str
        bitmaps

    Returns
    -------
    Column
        a ``binary`` bitmap: the bitwise OR

    Examples
    --------
    >>> df = spark.createDataFrame([("10",), ("20",)], ["h"])
    >>> df.agg(F.hex(F.bitmap_or_agg(F.unhex("h"))).substr(1, 4).alias("bits")).show()
    +----+
    |bits|
    +----+
    |3000|
    +----+
    <BLANKLINE>
    """
    return _fn("bitmap_or_agg", col)


def bitmap_and_agg(col: ColumnOrName) -> Column:
    """The bitwise AND of the bitmaps (a shorter one counts as zeros past its end).

    Parameters
    ----------
    col : Column or str
        bitmaps

    Returns
    -------
    Column
        a ``binary`` bitmap: the bitwise AND

    Examples
    --------
    >>> df = spark.createDataFrame([("30",), ("20",)], ["h"])
    >>> df.agg(F.hex(F.bitmap_and_agg(F.unhex("h"))).substr(1, 4).alias("bits")).show()
    +----+
    |bits|
    +----+
    |2000|
    +----+
    <BLANKLINE>
    """
    return _fn("bitmap_and_agg", col)


def collect_union(col: ColumnOrName) -> Column:
    """The distinct elements of a group's arrays, as one array (kept as the
    group's distinct arrays until then).

    Parameters
    ----------
    col : Column or str
        arrays

    Returns
    -------
    Column
        an array of the distinct elements of all the arrays

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2],), ([2, 3],)], ["a"])
    >>> df.agg(F.sort_array(F.collect_union("a")).alias("all")).show()
    +---------+
    |      all|
    +---------+
    |[1, 2, 3]|
    +---------+
    <BLANKLINE>
    """
    from sparklet.sql.functions.collection import array_distinct, flatten

    c = _to_col(col)
    return array_distinct(flatten(_call("collect_set", c))).alias(f"collect_union({c._expr.name()})")
