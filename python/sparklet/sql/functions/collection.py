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
    """An array column of the given columns (or of one list of them).

    Parameters
    ----------
    *cols : Column or str or list[Any] or tuple[Any, ...]
        the elements' columns (or names), of one type; or one list of them

    Returns
    -------
    Column
        an array column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2)], ["a", "b"])
    >>> df.select(F.array("a", "b"), F.array(F.lit("x"))).show()
    +-----------+--------+
    |array(a, b)|array(x)|
    +-----------+--------+
    |     [1, 2]|     [x]|
    +-----------+--------+
    <BLANKLINE>
    """
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("array", *cols)  # type: ignore[arg-type]


def array_contains(col: ColumnOrName, value: Any) -> Column:
    """True where the array contains ``value``.

    Parameters
    ----------
    col : Column or str
        the arrays
    value : Any
        the value to look for

    Returns
    -------
    Column
        a ``boolean`` column (null when the array is null, or holds null and not the value)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_contains("a", 2)).show()
    +--------------------+
    |array_contains(a, 2)|
    +--------------------+
    |                true|
    |               false|
    +--------------------+
    <BLANKLINE>
    """
    return _call("array_contains", _to_col(col), _lit_or_col(value))


def size(col: ColumnOrName) -> Column:
    """Elements in an array or entries in a map (-1 for null).

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        an ``int`` column: the number of elements (-1 for null)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.size("a")).show()
    +-------+
    |size(a)|
    +-------+
    |      4|
    |      0|
    +-------+
    <BLANKLINE>
    """
    return _fn("size", col)


def cardinality(col: ColumnOrName) -> Column:
    """Elements in an array or entries in a map (-1 for null).

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        an ``int`` column: the number of elements (-1 for null)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.cardinality("a")).show()
    +--------------+
    |cardinality(a)|
    +--------------+
    |             4|
    |             0|
    +--------------+
    <BLANKLINE>
    """
    return _fn("cardinality", col)


def array_size(col: ColumnOrName) -> Column:
    """Elements in an array (null for null).

    Parameters
    ----------
    col : Column or str
        the arrays

    Returns
    -------
    Column
        an ``int`` column: the number of elements (null for null)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_size("a")).show()
    +-------------+
    |array_size(a)|
    +-------------+
    |            4|
    |            0|
    +-------------+
    <BLANKLINE>
    """
    return _fn("array_size", col)


def explode(col: ColumnOrName) -> Column:
    """One row per array element (rows with null or empty arrays are dropped).

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        a column ``col`` (maps: ``key`` and ``value``) with one row per element; empty and null arrays give none

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.explode("a")).show()
    +---+
    |col|
    +---+
    |  1|
    |  2|
    |  2|
    |  3|
    +---+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr))


def explode_outer(col: ColumnOrName) -> Column:
    """One row per array element; a null or empty array gives one row of null.

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        a column ``col`` with one row per element, and a null row for an empty or null array

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.explode_outer("a")).show()
    +----+
    | col|
    +----+
    |   1|
    |   2|
    |   2|
    |   3|
    |NULL|
    +----+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr, "explode_outer"))


def posexplode(col: ColumnOrName) -> Column:
    """One row per array element, with its position (columns ``pos`` and ``col``).

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        columns ``pos`` (from 0) and ``col``, one row per element

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.posexplode("a")).show()
    +---+---+
    |pos|col|
    +---+---+
    |  0|  3|
    |  1|  1|
    |  2|  2|
    +---+---+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr, "posexplode"))


def posexplode_outer(col: ColumnOrName) -> Column:
    """As :func:`posexplode`; a null or empty array gives one row of nulls.

    Parameters
    ----------
    col : Column or str
        the arrays or maps

    Returns
    -------
    Column
        columns ``pos`` and ``col``, one row per element, a null row for an empty or null array

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.posexplode_outer("a")).show()
    +----+----+
    | pos| col|
    +----+----+
    |   0|   1|
    |   1|   2|
    |   2|   2|
    |   3|   3|
    |NULL|NULL|
    +----+----+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr, "posexplode_outer"))


def struct(*cols: ColumnOrName) -> Column:
    """A struct column of the given columns (named after them).

    Parameters
    ----------
    *cols : Column or str
        the fields' columns (or names); the fields take their names

    Returns
    -------
    Column
        a struct column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["a", "b"])
    >>> df.select(F.struct("a", "b").alias("s")).show()
    +------+
    |     s|
    +------+
    |{1, x}|
    +------+
    <BLANKLINE>
    """
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    args = []
    for c in cols:
        cc = _to_col(c)
        args.append(lit(c if isinstance(c, str) else cc._expr.name()))
        args.append(cc)
    return _call("named_struct", *args)


def named_struct(*cols: ColumnOrName) -> Column:
    """A struct of (name, value) pairs.

    Parameters
    ----------
    *cols : Column or str
        pairs of a field's name (a literal) and its value

    Returns
    -------
    Column
        a struct column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["a", "b"])
    >>> df.select(F.named_struct(F.lit("n"), "a", F.lit("t"), "b").alias("s")).collect()
    [Row(s=Row(n=1, t='x'))]
    """
    return _fn("named_struct", *cols)


def element_at(col: ColumnOrName, extraction: Any) -> Column:
    """An array's element at 1-based ``extraction`` (negative from the end), or a map's value at key ``extraction``.

    Parameters
    ----------
    col : Column or str
        the arrays or maps
    extraction : Any
        the 1-based index (negative: from the end), or the map's key

    Returns
    -------
    Column
        the element, null for a missing key (an index out of range raises in ANSI mode)

    Examples
    --------
    >>> df = spark.createDataFrame([([10, 20, 30], {"k": 1})], ["a", "m"])
    >>> df.select(F.element_at("a", 1), F.element_at("a", -1), F.element_at("m", F.lit("k"))).show()
    +----------------+-----------------+----------------+
    |element_at(a, 1)|element_at(a, -1)|element_at(m, k)|
    +----------------+-----------------+----------------+
    |              10|               30|               1|
    +----------------+-----------------+----------------+
    <BLANKLINE>
    """
    return _call("element_at", _to_col(col), _lit_or_col(extraction))


def array_distinct(col: ColumnOrName) -> Column:
    """The array without repeated elements.

    Parameters
    ----------
    col : Column or str
        the arrays

    Returns
    -------
    Column
        the arrays without repeated elements, in first-seen order

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_distinct("a")).show()
    +-----------------+
    |array_distinct(a)|
    +-----------------+
    |        [1, 2, 3]|
    |               []|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("array_distinct", col)


def array_max(col: ColumnOrName) -> Column:
    """The largest element.

    Parameters
    ----------
    col : Column or str
        the arrays

    Returns
    -------
    Column
        the largest element (null for an empty array)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_max("a")).show()
    +------------+
    |array_max(a)|
    +------------+
    |           3|
    |        NULL|
    +------------+
    <BLANKLINE>
    """
    return _fn("array_max", col)


def array_min(col: ColumnOrName) -> Column:
    """The smallest element.

    Parameters
    ----------
    col : Column or str
        the arrays

    Returns
    -------
    Column
        the smallest element (null for an empty array)

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_min("a")).show()
    +------------+
    |array_min(a)|
    +------------+
    |           1|
    |        NULL|
    +------------+
    <BLANKLINE>
    """
    return _fn("array_min", col)


def array_position(col: ColumnOrName, value: Any) -> Column:
    """1-based position of the first ``value``; 0 when absent.

    Parameters
    ----------
    col : Column or str
        the arrays
    value : Any
        the value to find

    Returns
    -------
    Column
        a ``bigint`` column: the 1-based position of its first occurrence, 0 when absent

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_position("a", 2)).show()
    +--------------------+
    |array_position(a, 2)|
    +--------------------+
    |                   2|
    |                   0|
    +--------------------+
    <BLANKLINE>
    """
    return _call("array_position", _to_col(col), _lit_or_col(value))


def array_remove(col: ColumnOrName, element: Any) -> Column:
    """The array without any ``element``.

    Parameters
    ----------
    col : Column or str
        the arrays
    element : Any
        the value to remove

    Returns
    -------
    Column
        the arrays without any element equal to it

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 2, 3],), ([],)], ["a"])
    >>> df.select(F.array_remove("a", 2)).show()
    +------------------+
    |array_remove(a, 2)|
    +------------------+
    |            [1, 3]|
    |                []|
    +------------------+
    <BLANKLINE>
    """
    return _call("array_remove", _to_col(col), _lit_or_col(element))


def array_repeat(col: ColumnOrName, count: ColumnOrName | int) -> Column:
    """An array of ``count`` copies of ``col``.

    Parameters
    ----------
    col : Column or str
        the values to repeat
    count : Column or str or int
        how many times

    Returns
    -------
    Column
        an array column

    Examples
    --------
    >>> df = spark.createDataFrame([("ab",)], ["s"])
    >>> df.select(F.array_repeat("s", 3)).show()
    +------------------+
    |array_repeat(s, 3)|
    +------------------+
    |      [ab, ab, ab]|
    +------------------+
    <BLANKLINE>
    """
    return _call("array_repeat", _to_col(col), lit(count) if isinstance(count, int) else _to_col(count))


def array_union(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of either array, without repeats.

    Parameters
    ----------
    col1 : Column or str
        the first arrays
    col2 : Column or str
        the second arrays

    Returns
    -------
    Column
        the elements in either array, without repeats

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], [3, 4])], ["a", "b"])
    >>> df.select(F.array_union("a", "b")).show()
    +-----------------+
    |array_union(a, b)|
    +-----------------+
    |     [1, 2, 3, 4]|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("array_union", col1, col2)


def array_intersect(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of both arrays, without repeats.

    Parameters
    ----------
    col1 : Column or str
        the first arrays
    col2 : Column or str
        the second arrays

    Returns
    -------
    Column
        the elements in both arrays, without repeats

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], [3, 4])], ["a", "b"])
    >>> df.select(F.array_intersect("a", "b")).show()
    +---------------------+
    |array_intersect(a, b)|
    +---------------------+
    |                  [3]|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("array_intersect", col1, col2)


def array_except(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The elements of ``col1`` not in ``col2``, without repeats.

    Parameters
    ----------
    col1 : Column or str
        the first arrays
    col2 : Column or str
        the second arrays

    Returns
    -------
    Column
        the elements of ``col1`` not in ``col2``, without repeats

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], [3, 4])], ["a", "b"])
    >>> df.select(F.array_except("a", "b")).show()
    +------------------+
    |array_except(a, b)|
    +------------------+
    |            [1, 2]|
    +------------------+
    <BLANKLINE>
    """
    return _fn("array_except", col1, col2)


def array_append(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its end.

    Parameters
    ----------
    col : Column or str
        the arrays
    value : Any
        the element to add (a literal or a column)

    Returns
    -------
    Column
        the arrays with the element at the end

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.array_append("a", 4)).show()
    +------------------+
    |array_append(a, 4)|
    +------------------+
    |      [3, 1, 2, 4]|
    +------------------+
    <BLANKLINE>
    """
    return _call("array_append", _to_col(col), _lit_or_col(value))


def array_prepend(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its start.

    Parameters
    ----------
    col : Column or str
        the arrays
    value : Any
        the element to add (a literal or a column)

    Returns
    -------
    Column
        the arrays with the element at the start

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.array_prepend("a", 0)).show()
    +-------------------+
    |array_prepend(a, 0)|
    +-------------------+
    |       [0, 3, 1, 2]|
    +-------------------+
    <BLANKLINE>
    """
    return _call("array_prepend", _to_col(col), _lit_or_col(value))


def array_compact(col: ColumnOrName) -> Column:
    """The array without nulls.

    Parameters
    ----------
    col : Column or str
        the arrays

    Returns
    -------
    Column
        the arrays without null elements

    Examples
    --------
    >>> df = spark.createDataFrame([([1, None, 2],)], ["a"])
    >>> df.select(F.array_compact("a")).show()
    +----------------+
    |array_compact(a)|
    +----------------+
    |          [1, 2]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("array_compact", col)


def array_join(col: ColumnOrName, delimiter: str, null_replacement: str | None = None) -> Column:
    """The elements joined by ``delimiter`` (nulls skipped, or replaced).

    Parameters
    ----------
    col : Column or str
        the arrays
    delimiter : str
        what goes between the elements
    null_replacement : str, optional
        what stands for a null element (default: nulls are left out)

    Returns
    -------
    Column
        the elements joined as a string

    Examples
    --------
    >>> df = spark.createDataFrame([(["a", None, "c"],)], ["a"])
    >>> df.select(F.array_join("a", ","), F.array_join("a", ",", "-")).show()
    +----------------+-------------------+
    |array_join(a, ,)|array_join(a, ,, -)|
    +----------------+-------------------+
    |             a,c|              a,-,c|
    +----------------+-------------------+
    <BLANKLINE>
    """
    args = [_to_col(col), lit(delimiter)] + ([] if null_replacement is None else [lit(null_replacement)])
    return _call("array_join", *args)


def arrays_overlap(a1: ColumnOrName, a2: ColumnOrName) -> Column:
    """True where the arrays share a non-null element.

    Parameters
    ----------
    a1 : Column or str
        the first arrays
    a2 : Column or str
        the second arrays

    Returns
    -------
    Column
        a ``boolean`` column: whether they share a non-null element

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], [3, 4])], ["a", "b"])
    >>> df.select(F.arrays_overlap("a", "b")).show()
    +--------------------+
    |arrays_overlap(a, b)|
    +--------------------+
    |                true|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("arrays_overlap", a1, a2)


def flatten(col: ColumnOrName) -> Column:
    """An array of arrays as one array.

    Parameters
    ----------
    col : Column or str
        arrays of arrays

    Returns
    -------
    Column
        the inner arrays concatenated

    Examples
    --------
    >>> df = spark.createDataFrame([([[1, 2], [3]],)], ["a"])
    >>> df.select(F.flatten("a")).show()
    +----------+
    |flatten(a)|
    +----------+
    | [1, 2, 3]|
    +----------+
    <BLANKLINE>
    """
    return _fn("flatten", col)


def slice(x: ColumnOrName, start: ColumnOrName | int, length: ColumnOrName | int) -> Column:  # noqa: A001
    """``length`` elements from 1-based ``start`` (negative from the end).

    Parameters
    ----------
    x : Column or str
        the arrays
    start : Column or str or int
        the first element's 1-based index (negative: from the end)
    length : Column or str or int
        how many elements

    Returns
    -------
    Column
        the sub-arrays

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.slice("a", 2, 2)).show()
    +--------------+
    |slice(a, 2, 2)|
    +--------------+
    |        [1, 2]|
    +--------------+
    <BLANKLINE>
    """
    return _call("slice", _to_col(x), _lit_or_col(start), _lit_or_col(length))


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    """The array sorted (nulls first ascending, last descending).

    Parameters
    ----------
    col : Column or str
        the arrays
    asc : bool, optional
        ascending (nulls first) or descending (nulls last)

    Returns
    -------
    Column
        the sorted arrays

    Examples
    --------
    >>> df = spark.createDataFrame([([3, None, 1],)], ["a"])
    >>> df.select(F.sort_array("a"), F.sort_array("a", asc=False)).show()
    +-------------------+--------------------+
    |sort_array(a, true)|sort_array(a, false)|
    +-------------------+--------------------+
    |       [NULL, 1, 3]|        [3, 1, NULL]|
    +-------------------+--------------------+
    <BLANKLINE>
    """
    return _call("sort_array", _to_col(col), lit(asc))


def array_sort(col: ColumnOrName, comparator: Callable[[Column, Column], Column] | None = None) -> Column:
    """The array sorted ascending, nulls last; or by ``comparator(x, y)``
    (negative: ``x`` first, positive: ``y`` first).

    Parameters
    ----------
    col : Column or str
        the arrays
    comparator : Callable[[Column, Column], Column], optional
        a function of two elements giving a negative, zero or positive integer (default: ascending, nulls last)

    Returns
    -------
    Column
        the sorted arrays

    Examples
    --------
    >>> df = spark.createDataFrame([([3, None, 1],)], ["a"])
    >>> df.select(F.array_sort("a").alias("sorted")).show()
    +------------+
    |      sorted|
    +------------+
    |[1, 3, NULL]|
    +------------+
    <BLANKLINE>
    >>> df2 = spark.createDataFrame([(["bbb", "a", "cc"],)], ["a"])
    >>> df2.select(F.array_sort("a", lambda x, y: F.length(y) - F.length(x)).alias("longest_first")).show()
    +-------------+
    |longest_first|
    +-------------+
    | [bbb, cc, a]|
    +-------------+
    <BLANKLINE>
    """
    if comparator is not None:
        from sparklet.sql.functions.higher_order import _sort_by

        return _sort_by(col, comparator)
    return _fn("array_sort", col)


def sequence(start: ColumnOrName, stop: ColumnOrName, step: ColumnOrName | None = None) -> Column:
    """The values from ``start`` to ``stop`` (inclusive) by ``step``.

    Parameters
    ----------
    start : Column or str
        the first values
    stop : Column or str
        the last values (included when reached)
    step : Column or str, optional
        the increment (default 1, or -1 when ``stop`` is below ``start``)

    Returns
    -------
    Column
        an array column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 5)], ["a", "b"])
    >>> df.select(F.sequence("a", "b"), F.sequence("a", "b", F.lit(2))).show()
    +---------------+-----------------+
    | sequence(a, b)|sequence(a, b, 2)|
    +---------------+-----------------+
    |[1, 2, 3, 4, 5]|        [1, 3, 5]|
    +---------------+-----------------+
    <BLANKLINE>
    """
    return _fn("sequence", start, stop) if step is None else _fn("sequence", start, stop, step)


def create_map(*cols: ColumnOrName | list[Any] | tuple[Any, ...]) -> Column:
    """A map of alternating keys and values.

    Parameters
    ----------
    *cols : Column or str or list[Any] or tuple[Any, ...]
        keys and values, alternating (or one list of them)

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1)], ["k", "v"])
    >>> df.select(F.create_map("k", "v")).show()
    +---------+
    |map(k, v)|
    +---------+
    | {a -> 1}|
    +---------+
    <BLANKLINE>
    """
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("map", *cols)  # type: ignore[arg-type]


def map_keys(col: ColumnOrName) -> Column:
    """A map's keys.

    Parameters
    ----------
    col : Column or str
        the maps

    Returns
    -------
    Column
        an array of the keys

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.map_keys("m")).show()
    +-----------+
    |map_keys(m)|
    +-----------+
    |     [a, b]|
    +-----------+
    <BLANKLINE>
    """
    return _fn("map_keys", col)


def map_values(col: ColumnOrName) -> Column:
    """A map's values.

    Parameters
    ----------
    col : Column or str
        the maps

    Returns
    -------
    Column
        an array of the values

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.map_values("m")).show()
    +-------------+
    |map_values(m)|
    +-------------+
    |       [1, 2]|
    +-------------+
    <BLANKLINE>
    """
    return _fn("map_values", col)


def map_entries(col: ColumnOrName) -> Column:
    """A map's entries, as an array of key/value structs.

    Parameters
    ----------
    col : Column or str
        the maps

    Returns
    -------
    Column
        an array of ``key``, ``value`` structs

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.map_entries("m")).show()
    +----------------+
    |  map_entries(m)|
    +----------------+
    |[{a, 1}, {b, 2}]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("map_entries", col)


def map_from_arrays(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """A map of keys ``col1`` to values ``col2``.

    Parameters
    ----------
    col1 : Column or str
        the keys' arrays
    col2 : Column or str
        the values' arrays, of the same length

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([(["a", "b"], [1, 2])], ["k", "v"])
    >>> df.select(F.map_from_arrays("k", "v")).show()
    +---------------------+
    |map_from_arrays(k, v)|
    +---------------------+
    |     {a -> 1, b -> 2}|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("map_from_arrays", col1, col2)


def map_from_entries(col: ColumnOrName) -> Column:
    """A map of an array of key/value structs.

    Parameters
    ----------
    col : Column or str
        arrays of two-field structs (key, value)

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([([("a", 1), ("b", 2)],)], "e array<struct<k:string,v:int>>")
    >>> df.select(F.map_from_entries("e")).show()
    +-------------------+
    |map_from_entries(e)|
    +-------------------+
    |   {a -> 1, b -> 2}|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("map_from_entries", col)


def map_concat(*cols: ColumnOrName | list[Any] | tuple[Any, ...]) -> Column:
    """The union of maps.

    Parameters
    ----------
    *cols : Column or str or list[Any] or tuple[Any, ...]
        the maps (or one list of them)

    Returns
    -------
    Column
        one map of all their entries

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1}, {"b": 2})], ["x", "y"])
    >>> df.select(F.map_concat("x", "y")).show()
    +----------------+
    |map_concat(x, y)|
    +----------------+
    |{a -> 1, b -> 2}|
    +----------------+
    <BLANKLINE>
    """
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return _fn("map_concat", *cols)  # type: ignore[arg-type]


def map_contains_key(col: ColumnOrName, value: Any) -> Column:
    """True where the map has key ``value``.

    Parameters
    ----------
    col : Column or str
        the maps
    value : Any
        the key to look for

    Returns
    -------
    Column
        a ``boolean`` column

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.map_contains_key("m", "a")).show()
    +----------------------+
    |map_contains_key(m, a)|
    +----------------------+
    |                  true|
    +----------------------+
    <BLANKLINE>
    """
    return _call("map_contains_key", _to_col(col), _lit_or_col(value))


def str_to_map(
    text: ColumnOrName, pairDelim: ColumnOrName | None = None, keyValueDelim: ColumnOrName | None = None
) -> Column:
    """A map of ``text`` split into pairs by ``pairDelim`` (","), each split by ``keyValueDelim`` (":").

    Parameters
    ----------
    text : Column or str
        the strings
    pairDelim : Column or str, optional
        what separates the pairs (default ``,``)
    keyValueDelim : Column or str, optional
        what separates a key from its value (default ``:``)

    Returns
    -------
    Column
        a ``map<string,string>`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("a:1,b:2",)], ["s"])
    >>> df.select(F.str_to_map("s")).show()
    +-------------------+
    |str_to_map(s, ,, :)|
    +-------------------+
    |   {a -> 1, b -> 2}|
    +-------------------+
    <BLANKLINE>
    """
    args = [_to_col(text)]
    args.append(lit(",") if pairDelim is None else _to_col(pairDelim))
    args.append(lit(":") if keyValueDelim is None else _to_col(keyValueDelim))
    return _call("str_to_map", *args)


def arrays_zip(*cols: ColumnOrName) -> Column:
    """An array of structs whose N-th struct holds the N-th value of each array.

    Parameters
    ----------
    *cols : Column or str
        the arrays (or their names)

    Returns
    -------
    Column
        an array of structs, the n-th holding each array's n-th element

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2], ["a", "b"])], ["n", "s"])
    >>> df.select(F.arrays_zip("n", "s")).show(truncate=False)
    +----------------+
    |arrays_zip(n, s)|
    +----------------+
    |[{1, a}, {2, b}]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("arrays_zip", *cols)


def try_element_at(col: ColumnOrName, extraction: ColumnOrName) -> Column:
    """The array's element at 1-based ``extraction`` (from the end if
    negative), or the map's value for key ``extraction``; null when absent.

    Parameters
    ----------
    col : Column or str
        the arrays or maps
    extraction : Column or str
        the 1-based index (negative: from the end), or the map's key

    Returns
    -------
    Column
        the element, null when out of range

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.try_element_at("a", F.lit(2)), F.try_element_at("a", F.lit(9))).show()
    +--------------------+--------------------+
    |try_element_at(a, 2)|try_element_at(a, 9)|
    +--------------------+--------------------+
    |                   1|                NULL|
    +--------------------+--------------------+
    <BLANKLINE>
    """
    return _fn("try_element_at", col, extraction)


def get(col: ColumnOrName, index: ColumnOrName | int) -> Column:
    """The array's element at 0-based ``index`` (null outside the array).

    Parameters
    ----------
    col : Column or str
        the arrays
    index : Column or str or int
        the 0-based index

    Returns
    -------
    Column
        the element, null when out of range

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.get("a", 0), F.get("a", 5)).show()
    +---------+---------+
    |get(a, 0)|get(a, 5)|
    +---------+---------+
    |        3|     NULL|
    +---------+---------+
    <BLANKLINE>
    """
    return _call("get", _to_col(col), lit(index) if isinstance(index, int) else _to_col(index))


def inline(col: ColumnOrName) -> Column:
    """One row per struct of the array, its fields as columns.

    Parameters
    ----------
    col : Column or str
        arrays of structs

    Returns
    -------
    Column
        the structs' fields as columns, one row per element

    Examples
    --------
    >>> df = spark.createDataFrame([([(1, "a"), (2, "b")],)], "s array<struct<n:int,t:string>>")
    >>> df.select(F.inline("s")).show()
    +---+---+
    |  n|  t|
    +---+---+
    |  1|  a|
    |  2|  b|
    +---+---+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr, "inline"))


def inline_outer(col: ColumnOrName) -> Column:
    """As :func:`inline`; a null or empty array gives one row of nulls.

    Parameters
    ----------
    col : Column or str
        arrays of structs

    Returns
    -------
    Column
        the structs' fields as columns, one row per element, a null row for an empty or null array

    Examples
    --------
    >>> df = spark.createDataFrame([([(1, "a")],), ([],)], "s array<struct<n:int,t:string>>")
    >>> df.select(F.inline_outer("s")).show()
    +----+----+
    |   n|   t|
    +----+----+
    |   1|   a|
    |NULL|NULL|
    +----+----+
    <BLANKLINE>
    """
    return Column(_native.explode(_to_col(col)._expr, "inline_outer"))


def stack(*cols: ColumnOrName | int) -> Column:
    """``cols[1:]`` in ``cols[0]`` rows (a literal), as columns ``col0``,
    ``col1``, ... (missing values null).

    Parameters
    ----------
    *cols : Column or str or int
        the number of rows, then the values to spread over them

    Returns
    -------
    Column
        columns ``col0``, ``col1``, ...: the values laid out in that many rows

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2, 3, 4)], ["a", "b", "c", "d"])
    >>> df.select(F.stack(F.lit(2), "a", "b", "c", "d")).show()
    +----+----+
    |col0|col1|
    +----+----+
    |   1|   2|
    |   3|   4|
    +----+----+
    <BLANKLINE>
    """
    from sparklet.sql.functions._core import _session_native

    args = [lit(c) if isinstance(c, int) else _to_col(c) for c in cols]
    return Column(_native.stack(_session_native(), [c._expr for c in args]))


def array_insert(arr: ColumnOrName, pos: ColumnOrName | int, value: Any) -> Column:
    """The array with ``value`` inserted at 1-based ``pos`` (negative from
    the end: -1 appends), nulls padding past either end.

    Parameters
    ----------
    arr : Column or str
        the arrays
    pos : Column or str or int
        the 1-based position the element takes (negative: from the end)
    value : Any
        the element

    Returns
    -------
    Column
        the arrays with the element inserted

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.array_insert("a", 2, F.lit(9)), F.array_insert("a", -1, F.lit(9))).show()
    +---------------------+----------------------+
    |array_insert(a, 2, 9)|array_insert(a, -1, 9)|
    +---------------------+----------------------+
    |         [3, 9, 1, 2]|          [3, 1, 2, 9]|
    +---------------------+----------------------+
    <BLANKLINE>
    """
    return _call("array_insert", _to_col(arr), lit(pos) if isinstance(pos, int) else _to_col(pos), _lit_or_col(value))
