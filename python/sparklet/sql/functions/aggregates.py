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
    """Number of non-null values (``count("*")`` counts rows)."""
    if isinstance(col, str) and col == "*":
        return _call("count", lit(1))
    return _call("count", _to_col(col))


def sum(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The sum of the values."""
    return _fn("sum", col)


def avg(col: ColumnOrName) -> Column:
    """The mean of the values."""
    return _fn("avg", col)


def mean(col: ColumnOrName) -> Column:
    """The mean of the values."""
    return _fn("mean", col)


def min(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The smallest value."""
    return _fn("min", col)


def max(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The largest value."""
    return _fn("max", col)


def first(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """A group's first value (in the order rows arrive; skipping nulls
    with ``ignorenulls``)."""
    return _call("first", _to_col(col), lit(bool(ignorenulls)))


def last(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """A group's last value (in the order rows arrive; skipping nulls
    with ``ignorenulls``)."""
    return _call("last", _to_col(col), lit(bool(ignorenulls)))


def first_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """A group's first value (in the order rows arrive; skipping nulls
    with ``ignoreNulls``)."""
    return _call("first_value", _to_col(col), _ignore_nulls(ignoreNulls))


def last_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """A group's last value (in the order rows arrive; skipping nulls
    with ``ignoreNulls``)."""
    return _call("last_value", _to_col(col), _ignore_nulls(ignoreNulls))


def any_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:
    """Some value of the group (a non-null one with ``ignoreNulls``)."""
    return _call("any_value", _to_col(col), _ignore_nulls(ignoreNulls))


def _ignore_nulls(flag: bool | Column | None) -> Column:
    """The ``ignoreNulls`` argument as a column: PySpark takes a bool or a
    boolean literal column."""
    return flag if isinstance(flag, Column) else lit(bool(flag))


def collect_list(col: ColumnOrName) -> Column:
    """The group's non-null values, as an array."""
    return _fn("collect_list", col)


def array_agg(col: ColumnOrName) -> Column:
    """The group's non-null values, as an array."""
    return _fn("collect_list", col)


def collect_set(col: ColumnOrName) -> Column:
    """The group's distinct non-null values, as an array."""
    return _fn("collect_set", col)


def stddev(col: ColumnOrName) -> Column:
    """The sample standard deviation."""
    return _fn("stddev", col)


def std(col: ColumnOrName) -> Column:
    """The sample standard deviation."""
    return _fn("std", col)


def stddev_samp(col: ColumnOrName) -> Column:
    """The sample standard deviation."""
    return _fn("stddev_samp", col)


def stddev_pop(col: ColumnOrName) -> Column:
    """The population standard deviation."""
    return _fn("stddev_pop", col)


def variance(col: ColumnOrName) -> Column:
    """The sample variance."""
    return _fn("variance", col)


def var_samp(col: ColumnOrName) -> Column:
    """The sample variance."""
    return _fn("var_samp", col)


def var_pop(col: ColumnOrName) -> Column:
    """The population variance."""
    return _fn("var_pop", col)


def approx_count_distinct(col: ColumnOrName, rsd: float | None = None) -> Column:
    """An estimate of the number of distinct values (HyperLogLog)."""
    return _fn("approx_count_distinct", col)


def countDistinct(col: ColumnOrName, *cols: ColumnOrName) -> Column:
    """Number of distinct values (of distinct combinations of the columns,
    counting those without a null)."""
    if not cols:
        return _fn("count_distinct", col)
    all_cols = [_to_col(c) for c in (col, *cols)]
    names = ", ".join(c._expr.name() for c in all_cols)
    return _call("count_distinct", *all_cols).alias(f"count(DISTINCT {names})")


count_distinct = countDistinct


def sum_distinct(col: ColumnOrName) -> Column:
    """The sum of the distinct values."""
    return _fn("sum_distinct", col)


sumDistinct = sum_distinct


def median(col: ColumnOrName) -> Column:
    """The median of the values."""
    return _fn("median", col)


def corr(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The Pearson correlation of two columns."""
    return _fn("corr", col1, col2)


def covar_pop(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The population covariance of two columns."""
    return _fn("covar_pop", col1, col2)


def covar_samp(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The sample covariance of two columns."""
    return _fn("covar_samp", col1, col2)


def bool_and(col: ColumnOrName) -> Column:
    """True if every value is true."""
    return _fn("bool_and", col)


def every(col: ColumnOrName) -> Column:
    """True if every value is true."""
    return _fn("every", col)


def bool_or(col: ColumnOrName) -> Column:
    """True if some value is true."""
    return _fn("bool_or", col)


def some(col: ColumnOrName) -> Column:
    """True if some value is true."""
    return _fn("some", col)


def bit_and(col: ColumnOrName) -> Column:
    """The bitwise AND of the values."""
    return _fn("bit_and", col)


def bit_or(col: ColumnOrName) -> Column:
    """The bitwise OR of the values."""
    return _fn("bit_or", col)


def bit_xor(col: ColumnOrName) -> Column:
    """The bitwise XOR of the values."""
    return _fn("bit_xor", col)


def grouping(col: ColumnOrName) -> Column:
    """1 where ``col`` is aggregated away in a rollup or cube row, else 0."""
    return _fn("grouping", col)


def string_agg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """The group's non-null values concatenated, separated by ``delimiter``."""
    return _call("string_agg", _to_col(col), lit(delimiter))


def listagg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """The group's non-null values concatenated, separated by ``delimiter``."""
    return _call("listagg", _to_col(col), lit(delimiter))


def regr_avgx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``x`` over the rows where both are non-null."""
    return _fn("regr_avgx", y, x)


def regr_avgy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``y`` over the rows where both are non-null."""
    return _fn("regr_avgy", y, x)


def regr_count(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The number of rows where both are non-null."""
    return _fn("regr_count", y, x)


def regr_intercept(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The intercept of the least-squares line of ``y`` on ``x``."""
    return _fn("regr_intercept", y, x)


def regr_r2(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The coefficient of determination of the regression line."""
    return _fn("regr_r2", y, x)


def regr_slope(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The slope of the least-squares line of ``y`` on ``x``."""
    return _fn("regr_slope", y, x)


def regr_sxx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(x)`` over the rows where both are non-null."""
    return _fn("regr_sxx", y, x)


def regr_sxy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * covar_pop(y, x)`` over the rows where both are non-null."""
    return _fn("regr_sxy", y, x)


def regr_syy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(y)`` over the rows where both are non-null."""
    return _fn("regr_syy", y, x)


def count_if(col: ColumnOrName) -> Column:
    """The number of rows where ``col`` is true."""
    return _fn("count_if", col)


def _by(name: str, col: ColumnOrName, ord: ColumnOrName, k: int | None) -> Column:
    if k is not None:
        return _call(name, _to_col(col), _to_col(ord), lit(k))
    return _fn(name, col, ord)


def max_by(col: ColumnOrName, ord: ColumnOrName, k: int | None = None) -> Column:  # noqa: A002
    """The value of ``col`` on the row with the largest ``ord``."""
    return _by("max_by", col, ord, k)


def min_by(col: ColumnOrName, ord: ColumnOrName, k: int | None = None) -> Column:  # noqa: A002
    """The value of ``col`` on the row with the smallest ``ord``."""
    return _by("min_by", col, ord, k)


def product(col: ColumnOrName) -> Column:
    """The product of the values, as a double."""
    return _fn("product", col)


def kurtosis(col: ColumnOrName) -> Column:
    """The excess kurtosis of the values (null without spread)."""
    return _fn("kurtosis", col)


def skewness(col: ColumnOrName) -> Column:
    """The skewness of the values (null without spread)."""
    return _fn("skewness", col)


def mode(col: ColumnOrName, deterministic: bool = False) -> Column:
    """The most frequent non-null value of the group; among equally
    frequent values, the lowest (Spark returns the lowest with
    ``deterministic=True`` and any of them without)."""
    return _call("mode", _to_col(col), lit(bool(deterministic)))


def try_avg(col: ColumnOrName) -> Column:
    """The mean of the values."""
    return _fn("try_avg", col)


def percentile(col: ColumnOrName, percentage: Column | float, frequency: Column | int = 1) -> Column:
    """The exact percentile of the values at ``percentage`` (0 to 1),
    interpolated between the values around its rank."""
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
    the values and answers exactly, within any accuracy."""
    return _percentile_approx("percentile_approx", col, percentage, accuracy)


def approx_percentile(
    col: ColumnOrName, percentage: Column | float | list[float] | tuple[float, ...], accuracy: Column | int = 10000
) -> Column:
    """As :func:`percentile_approx`."""
    return _percentile_approx("approx_percentile", col, percentage, accuracy)


def _percentile_approx(name: str, col: ColumnOrName, percentage: object, accuracy: Column | int) -> Column:
    if isinstance(percentage, tuple):
        percentage = list(percentage)
    return _call(name, _to_col(col), lit(percentage), lit(accuracy))


def try_sum(col: ColumnOrName) -> Column:
    """The sum of the values, null on overflow."""
    return _fn("try_sum", col)


def vector_sum(col: ColumnOrName) -> Column:
    """The element-wise sum of a group's float vectors (of one dimension)."""
    return _fn("vector_sum", col)


def vector_avg(col: ColumnOrName) -> Column:
    """The element-wise mean of a group's float vectors (of one dimension)."""
    return _fn("vector_avg", col)


def bitmap_construct_agg(col: ColumnOrName) -> Column:
    """A 4 KiB bitmap with the bits of the positions set (``bitmap_bit_position``'s)."""
    return _fn("bitmap_construct_agg", col)


def bitmap_or_agg(col: ColumnOrName) -> Column:
    """The bitwise OR of the bitmaps."""
    return _fn("bitmap_or_agg", col)


def bitmap_and_agg(col: ColumnOrName) -> Column:
    """The bitwise AND of the bitmaps (a shorter one counts as zeros past its end)."""
    return _fn("bitmap_and_agg", col)


def collect_union(col: ColumnOrName) -> Column:
    """The distinct elements of a group's arrays, as one array (kept as the
    group's distinct arrays until then)."""
    from sparklet.sql.functions.collection import array_distinct, flatten

    c = _to_col(col)
    return array_distinct(flatten(_call("collect_set", c))).alias(f"collect_union({c._expr.name()})")
