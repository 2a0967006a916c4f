"""Array, map and struct functions, as PySpark's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, _lit_or_col, lit

__all__ = [
    "array", "array_contains", "size", "cardinality", "array_size", "explode", "struct",
    "named_struct", "element_at", "array_distinct", "array_max", "array_min", "array_position",
    "array_remove", "array_repeat", "array_union", "array_intersect", "array_except",
    "array_append", "array_prepend", "array_compact", "array_join", "arrays_overlap", "flatten",
    "slice", "sort_array", "array_sort", "sequence", "create_map", "map_keys", "map_values",
    "map_entries", "map_from_arrays", "map_from_entries", "map_concat", "map_contains_key",
    "str_to_map", "arrays_zip", "explode_outer", "posexplode", "posexplode_outer", "try_element_at",
 "get",
 "inline", "inline_outer", "stack",
 "array_insert",
]  # fmt: skip


def array(*cols: ColumnOrName | list[Any] | tuple[Any, ...]) -> Column:
    """An array column of the given columns (or of one list of them)."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("array", *cols)  # type: ignore[arg-type]


def array_contains(col: ColumnOrName, value: Any) -> Column:
    """True where the array contains ``value``."""
    return _call("array_contains", _to_col(col), _lit_or_col(value))


def size(col: ColumnOrName) -> Column:
    """Elements in an array or entries in a map (-1 for null)."""
    return _fn("size", col)


def cardinality(col: ColumnOrName) -> Column:
    """Elements in an array or entries in a map (-1 for null)."""
    return _fn("cardinality", col)


def array_size(col: ColumnOrName) -> Column:
    """Elements in an array (null for null)."""
    return _fn("array_size", col)


def explode(col: ColumnOrName) -> Column:
    """One row per array element (rows with null or empty arrays are dropped)."""
    return Column(_native.explode(_to_col(col)._expr))


def explode_outer(col: ColumnOrName) -> Column:
    """One row per array element; a null or empty array gives one row of null."""
    return Column(_native.explode(_to_col(col)._expr, "explode_outer"))


def posexplode(col: ColumnOrName) -> Column:
    """One row per array element, with its position (columns ``pos`` and ``col``)."""
    return Column(_native.explode(_to_col(col)._expr, "posexplode"))


def posexplode_outer(col: ColumnOrName) -> Column:
    """As :func:`posexplode`; a null or empty array gives one row of nulls."""
    return Column(_native.explode(_to_col(col)._expr, "posexplode_outer"))


def struct(*cols: ColumnOrName) -> Column:
    """A struct column of the given columns (named after them)."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    args = []
    for c in cols:
        cc = _to_col(c)
        args.append(lit(c if isinstance(c, str) else cc._expr.name()))
        args.append(cc)
    return _call("named_struct", *args)


def named_struct(*cols: ColumnOrName) -> Column:
    """A struct of (name, value) pairs."""
    return _fn("named_struct", *cols)


def element_at(col: ColumnOrName, extraction: Any) -> Column:
    """An array's element at 1-based ``extraction`` (negative from the end), or a map's value at key ``extraction``."""
    return _call("element_at", _to_col(col), _lit_or_col(extraction))


def array_distinct(col: ColumnOrName) -> Column:
    """The array without repeated elements."""
    return _fn("array_distinct", col)


def array_max(col: ColumnOrName) -> Column:
    """The largest element."""
    return _fn("array_max", col)


def array_min(col: ColumnOrName) -> Column:
    """The smallest element."""
    return _fn("array_min", col)


def array_position(col: ColumnOrName, value: Any) -> Column:
    """1-based position of the first ``value``; 0 when absent."""
    return _call("array_position", _to_col(col), _lit_or_col(value))


def array_remove(col: ColumnOrName, element: Any) -> Column:
    """The array without any ``element``."""
    return _call("array_remove", _to_col(col), _lit_or_col(element))


def array_repeat(col: ColumnOrName, count: ColumnOrName | int) -> Column:
    """An array of ``count`` copies of ``col``."""
    return _call("array_repeat", _to_col(col), lit(count) if isinstance(count, int) else _to_col(count))


def array_union(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of either array, without repeats."""
    return _fn("array_union", col1, col2)


def array_intersect(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of both arrays, without repeats."""
    return _fn("array_intersect", col1, col2)


def array_except(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of ``col1`` not in ``col2``, without repeats."""
    return _fn("array_except", col1, col2)


def array_append(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its end."""
    return _call("array_append", _to_col(col), _lit_or_col(value))


def array_prepend(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its start."""
    return _call("array_prepend", _to_col(col), _lit_or_col(value))


def array_compact(col: ColumnOrName) -> Column:
    """The array without nulls."""
    return _fn("array_compact", col)


def array_join(col: ColumnOrName, delimiter: str, null_replacement: str | None = None) -> Column:
    """The elements joined by ``delimiter`` (nulls skipped, or replaced)."""
    args = [_to_col(col), lit(delimiter)] + ([] if null_replacement is None else [lit(null_replacement)])
    return _call("array_join", *args)


def arrays_overlap(a1: ColumnOrName, a2: ColumnOrName) -> Column:
    """True where the arrays share a non-null element."""
    return _fn("arrays_overlap", a1, a2)


def flatten(col: ColumnOrName) -> Column:
    """An array of arrays as one array."""
    return _fn("flatten", col)


def slice(x: ColumnOrName, start: ColumnOrName | int, length: ColumnOrName | int) -> Column:  # noqa: A001
    """``length`` elements from 1-based ``start`` (negative from the end)."""
    return _call("slice", _to_col(x), _lit_or_col(start), _lit_or_col(length))


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    """The array sorted (nulls first ascending, last descending)."""
    return _call("sort_array", _to_col(col), lit(asc))


def array_sort(col: ColumnOrName, comparator: Callable[[Column, Column], Column] | None = None) -> Column:
    """The array sorted ascending, nulls last; or by ``comparator(x, y)``
    (negative: ``x`` first, positive: ``y`` first)."""
    if comparator is not None:
        from sparklet.sql.functions.higher_order import _sort_by

        return _sort_by(col, comparator)
    return _fn("array_sort", col)


def sequence(start: ColumnOrName, stop: ColumnOrName, step: ColumnOrName | None = None) -> Column:
    """The values from ``start`` to ``stop`` (inclusive) by ``step``."""
    return _fn("sequence", start, stop) if step is None else _fn("sequence", start, stop, step)


def create_map(*cols: ColumnOrName | list[Any] | tuple[Any, ...]) -> Column:
    """A map of alternating keys and values."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("map", *cols)  # type: ignore[arg-type]


def map_keys(col: ColumnOrName) -> Column:
    """A map's keys."""
    return _fn("map_keys", col)


def map_values(col: ColumnOrName) -> Column:
    """A map's values."""
    return _fn("map_values", col)


def map_entries(col: ColumnOrName) -> Column:
    """A map's entries, as an array of key/value structs."""
    return _fn("map_entries", col)


def map_from_arrays(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """A map of keys ``col1`` to values ``col2``."""
    return _fn("map_from_arrays", col1, col2)


def map_from_entries(col: ColumnOrName) -> Column:
    """A map of an array of key/value structs."""
    return _fn("map_from_entries", col)


def map_concat(*cols: ColumnOrName | list[Any] | tuple[Any, ...]) -> Column:
    """The union of maps."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("map_concat", *cols)  # type: ignore[arg-type]


def map_contains_key(col: ColumnOrName, value: Any) -> Column:
    """True where the map has key ``value``."""
    return _call("map_contains_key", _to_col(col), _lit_or_col(value))


def str_to_map(
    text: ColumnOrName, pairDelim: ColumnOrName | None = None, keyValueDelim: ColumnOrName | None = None
) -> Column:
    """A map of ``text`` split into pairs by ``pairDelim`` (","), each split by ``keyValueDelim`` (":")."""
    args = [_to_col(text)]
    args.append(lit(",") if pairDelim is None else _to_col(pairDelim))
    args.append(lit(":") if keyValueDelim is None else _to_col(keyValueDelim))
    return _call("str_to_map", *args)


def arrays_zip(*cols: ColumnOrName) -> Column:
    """An array of structs whose N-th struct holds the N-th value of each array."""
    return _fn("arrays_zip", *cols)


def try_element_at(col: ColumnOrName, extraction: ColumnOrName) -> Column:
    """The array's element at 1-based ``extraction`` (from the end if
    negative), or the map's value for key ``extraction``; null when absent."""
    return _fn("try_element_at", col, extraction)


def get(col: ColumnOrName, index: ColumnOrName | int) -> Column:
    """The array's element at 0-based ``index`` (null outside the array)."""
    return _call("get", _to_col(col), lit(index) if isinstance(index, int) else _to_col(index))


def inline(col: ColumnOrName) -> Column:
    """One row per struct of the array, its fields as columns."""
    return Column(_native.explode(_to_col(col)._expr, "inline"))


def inline_outer(col: ColumnOrName) -> Column:
    """As :func:`inline`; a null or empty array gives one row of nulls."""
    return Column(_native.explode(_to_col(col)._expr, "inline_outer"))


def stack(*cols: ColumnOrName | int) -> Column:
    """``cols[1:]`` in ``cols[0]`` rows (a literal), as columns ``col0``,
    ``col1``, ... (missing values null)."""
    from sparklet.sql.functions._core import _session_native

    args = [lit(c) if isinstance(c, int) else _to_col(c) for c in cols]
    return Column(_native.stack(_session_native(), [c._expr for c in args]))


def array_insert(arr: ColumnOrName, pos: ColumnOrName | int, value: Any) -> Column:
    """The array with ``value`` inserted at 1-based ``pos`` (negative from
    the end: -1 appends), nulls padding past either end."""
    return _call("array_insert", _to_col(arr), lit(pos) if isinstance(pos, int) else _to_col(pos), _lit_or_col(value))
