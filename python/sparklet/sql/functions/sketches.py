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
    """The union of a tuple sketch of double summaries with a theta sketch (whose keys take the mode's new summary)."""
    return _call(
        "tuple_union_theta_double", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_intersection_theta_double(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of a tuple sketch of double summaries with a theta sketch."""
    return _call("tuple_intersection_theta_double", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_theta_double(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of a tuple sketch of double summaries not in a theta sketch."""
    return _call("tuple_difference_theta_double", _to_col(col1), _to_col(col2))


def tuple_union_theta_integer(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of a tuple sketch of integer summaries with a theta sketch (whose keys take the mode's new summary)."""
    return _call(
        "tuple_union_theta_integer", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_intersection_theta_integer(
    col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None
) -> Column:
    """The intersection of a tuple sketch of integer summaries with a theta sketch."""
    return _call("tuple_intersection_theta_integer", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_theta_integer(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of a tuple sketch of integer summaries not in a theta sketch."""
    return _call("tuple_difference_theta_integer", _to_col(col1), _to_col(col2))


def _optional(*given: tuple[Any, Any]) -> list[Column]:
    """Trailing optional arguments as literals: up to the last one given,
    those left out before it take Spark's default."""
    last = max((i for i, (v, _) in enumerate(given) if v is not None), default=-1)
    return [_as_col(default if v is None else v) for v, default in given[: last + 1]]


def hll_sketch_agg(col: ColumnOrName, lgConfigK: Column | int | None = None) -> Column:
    """A HyperLogLog sketch (HLL_8) of the values, with ``2**lgConfigK`` buckets (default 12)."""
    return _call("hll_sketch_agg", _to_col(col), *_optional((lgConfigK, 12)))


def hll_union_agg(col: ColumnOrName, allowDifferentLgConfigK: Column | bool | None = None) -> Column:
    """The union of the HyperLogLog sketches (of one ``lgConfigK`` unless allowed otherwise)."""
    return _call("hll_union_agg", _to_col(col), *_optional((allowDifferentLgConfigK, False)))


def hll_sketch_estimate(col: ColumnOrName) -> Column:
    """The number of distinct values a HyperLogLog sketch estimates."""
    return _call("hll_sketch_estimate", _to_col(col))


def hll_union(col1: ColumnOrName, col2: ColumnOrName, allowDifferentLgConfigK: Column | bool | None = None) -> Column:
    """The union of two HyperLogLog sketches."""
    return _call("hll_union", _to_col(col1), _to_col(col2), *_optional((allowDifferentLgConfigK, False)))


def theta_sketch_agg(col: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """A theta sketch of the values, of ``2**lgNomEntries`` nominal entries (default 12)."""
    return _call("theta_sketch_agg", _to_col(col), *_optional((lgNomEntries, 12)))


def theta_union_agg(col: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """The union of the theta sketches."""
    return _call("theta_union_agg", _to_col(col), *_optional((lgNomEntries, 12)))


def theta_intersection_agg(col: ColumnOrName) -> Column:
    """The intersection of the theta sketches."""
    return _call("theta_intersection_agg", _to_col(col))


def theta_sketch_estimate(col: ColumnOrName) -> Column:
    """The number of distinct values a theta sketch estimates."""
    return _call("theta_sketch_estimate", _to_col(col))


def theta_union(col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None) -> Column:
    """The union of two theta sketches."""
    return _call("theta_union", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12)))


def theta_intersection(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The intersection of two theta sketches."""
    return _call("theta_intersection", _to_col(col1), _to_col(col2))


def theta_difference(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The values of the first theta sketch not in the second."""
    return _call("theta_difference", _to_col(col1), _to_col(col2))


def kll_sketch_agg_bigint(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the bigint values (accuracy ``k``, default 200)."""
    return _call("kll_sketch_agg_bigint", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_bigint(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of bigint values."""
    return _call("kll_merge_agg_bigint", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_bigint(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of bigint values has seen."""
    return _call("kll_sketch_get_n_bigint", _to_col(col))


def kll_sketch_get_quantile_bigint(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of bigint values."""
    return _call("kll_sketch_get_quantile_bigint", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_bigint(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of bigint values."""
    return _call("kll_sketch_get_rank_bigint", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_bigint(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of bigint values."""
    return _call("kll_sketch_merge_bigint", _to_col(left), _to_col(right))


def kll_sketch_to_string_bigint(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of bigint values, as text."""
    return _call("kll_sketch_to_string_bigint", _to_col(col))


def kll_sketch_agg_float(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the float values (accuracy ``k``, default 200)."""
    return _call("kll_sketch_agg_float", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_float(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of float values."""
    return _call("kll_merge_agg_float", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_float(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of float values has seen."""
    return _call("kll_sketch_get_n_float", _to_col(col))


def kll_sketch_get_quantile_float(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of float values."""
    return _call("kll_sketch_get_quantile_float", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_float(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of float values."""
    return _call("kll_sketch_get_rank_float", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_float(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of float values."""
    return _call("kll_sketch_merge_float", _to_col(left), _to_col(right))


def kll_sketch_to_string_float(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of float values, as text."""
    return _call("kll_sketch_to_string_float", _to_col(col))


def kll_sketch_agg_double(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """A KLL quantile sketch of the double values (accuracy ``k``, default 200)."""
    return _call("kll_sketch_agg_double", _to_col(col), *_optional((k, 200)))


def kll_merge_agg_double(col: ColumnOrName, k: Column | int | None = None) -> Column:
    """The merge of the KLL sketches of double values."""
    return _call("kll_merge_agg_double", _to_col(col), *_optional((k, 200)))


def kll_sketch_get_n_double(col: ColumnOrName) -> Column:
    """The number of values a KLL sketch of double values has seen."""
    return _call("kll_sketch_get_n_double", _to_col(col))


def kll_sketch_get_quantile_double(sketch: ColumnOrName, rank: ColumnOrName) -> Column:
    """The value at normalized ``rank`` (0 to 1) of a KLL sketch of double values."""
    return _call("kll_sketch_get_quantile_double", _to_col(sketch), _to_col(rank))


def kll_sketch_get_rank_double(sketch: ColumnOrName, quantile: ColumnOrName) -> Column:
    """The normalized rank of ``quantile`` in a KLL sketch of double values."""
    return _call("kll_sketch_get_rank_double", _to_col(sketch), _to_col(quantile))


def kll_sketch_merge_double(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The merge of two KLL sketches of double values."""
    return _call("kll_sketch_merge_double", _to_col(left), _to_col(right))


def kll_sketch_to_string_double(col: ColumnOrName) -> Column:
    """A summary of a KLL sketch of double values, as text."""
    return _call("kll_sketch_to_string_double", _to_col(col))


def tuple_sketch_agg_double(
    key: ColumnOrName, summary: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """A tuple sketch of the keys, each with a double summary of its values combined by ``mode`` (sum, min, max, alwaysone)."""
    return _call(
        "tuple_sketch_agg_double", _to_col(key), _to_col(summary), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_union_agg_double(
    col: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of the tuple sketches of double summaries."""
    return _call("tuple_union_agg_double", _to_col(col), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_agg_double(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of the tuple sketches of double summaries."""
    return _call("tuple_intersection_agg_double", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_estimate_double(col: ColumnOrName) -> Column:
    """The number of distinct keys a tuple sketch of double summaries estimates."""
    return _call("tuple_sketch_estimate_double", _to_col(col))


def tuple_sketch_summary_double(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The double summaries of a tuple sketch combined by ``mode``."""
    return _call("tuple_sketch_summary_double", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_theta_double(col: ColumnOrName) -> Column:
    """The theta (sampling fraction) of a tuple sketch of double summaries."""
    return _call("tuple_sketch_theta_double", _to_col(col))


def tuple_union_double(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of two tuple sketches of double summaries."""
    return _call("tuple_union_double", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_double(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of two tuple sketches of double summaries."""
    return _call("tuple_intersection_double", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_double(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of the first tuple sketch of double summaries not in the second."""
    return _call("tuple_difference_double", _to_col(col1), _to_col(col2))


def tuple_sketch_agg_integer(
    key: ColumnOrName, summary: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """A tuple sketch of the keys, each with a integer summary of its values combined by ``mode`` (sum, min, max, alwaysone)."""
    return _call(
        "tuple_sketch_agg_integer", _to_col(key), _to_col(summary), *_optional((lgNomEntries, 12), (mode, "sum"))
    )


def tuple_union_agg_integer(
    col: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of the tuple sketches of integer summaries."""
    return _call("tuple_union_agg_integer", _to_col(col), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_agg_integer(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of the tuple sketches of integer summaries."""
    return _call("tuple_intersection_agg_integer", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_estimate_integer(col: ColumnOrName) -> Column:
    """The number of distinct keys a tuple sketch of integer summaries estimates."""
    return _call("tuple_sketch_estimate_integer", _to_col(col))


def tuple_sketch_summary_integer(col: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The integer summaries of a tuple sketch combined by ``mode``."""
    return _call("tuple_sketch_summary_integer", _to_col(col), *_optional((mode, "sum")))


def tuple_sketch_theta_integer(col: ColumnOrName) -> Column:
    """The theta (sampling fraction) of a tuple sketch of integer summaries."""
    return _call("tuple_sketch_theta_integer", _to_col(col))


def tuple_union_integer(
    col1: ColumnOrName, col2: ColumnOrName, lgNomEntries: Column | int | None = None, mode: Column | str | None = None
) -> Column:
    """The union of two tuple sketches of integer summaries."""
    return _call("tuple_union_integer", _to_col(col1), _to_col(col2), *_optional((lgNomEntries, 12), (mode, "sum")))


def tuple_intersection_integer(col1: ColumnOrName, col2: ColumnOrName, mode: Column | str | None = None) -> Column:
    """The intersection of two tuple sketches of integer summaries."""
    return _call("tuple_intersection_integer", _to_col(col1), _to_col(col2), *_optional((mode, "sum")))


def tuple_difference_integer(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The keys of the first tuple sketch of integer summaries not in the second."""
    return _call("tuple_difference_integer", _to_col(col1), _to_col(col2))
