"""What every function family builds on: columns by name, literals, and
calls of the engine's functions by Spark's name."""

from __future__ import annotations

from typing import Any, Union

from sparklet import _native
from sparklet.sql.column import Column, _as_col, _lit_expr, _to_col

ColumnOrName = Union[Column, str]

__all__ = [
    "col", "column", "lit", "expr", "when", "asc", "desc", "asc_nulls_first", "asc_nulls_last",
    "desc_nulls_first", "desc_nulls_last", "coalesce", "isnull", "isnotnull", "isnan", "broadcast",
    "call_function",
]  # fmt: skip


def _session_native() -> Any:
    from sparklet.sql.session import SparkSession

    return SparkSession._require_active()._native


def _call(name: str, *cols: Column) -> Column:
    """The engine's function ``name`` (Spark's name) over ``cols``."""
    return Column(_native.call(_session_native(), name, [c._expr for c in cols]))


def _fn(name: str, *cols: ColumnOrName) -> Column:
    """Spark's function ``name`` over columns given as Columns or names."""
    return _call(name, *[_to_col(c) for c in cols])


def _lit_or_col(value: Any) -> Column:
    """A Column as given, else a literal (for parameters Spark takes either way)."""
    return _as_col(value)


def _num_or_col(value: Any) -> Column:
    """A number as a literal, else a Column or column name."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return lit(value)
    return _to_col(value)


def col(col: str) -> Column:
    """A column by name (``"a.b"`` reaches field ``b`` of struct ``a``).

    Parameters
    ----------
    col : str
        the column's name; ``"a.b"`` names field ``b`` of struct ``a``, ``"*"`` all columns

    Returns
    -------
    Column
        a reference to the column, resolved against the DataFrame it is used on

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["id", "name"])
    >>> df.select(F.col("name"), F.col("id") + 1).show()
    +----+--------+
    |name|(id + 1)|
    +----+--------+
    |   x|       2|
    +----+--------+
    <BLANKLINE>
    """
    return Column(_native.col(col))


column = col


def lit(col: Any) -> Column:
    """A literal value (a Column is returned unchanged).

    Parameters
    ----------
    col : Any
        a Python value (a Column is returned as it is)

    Returns
    -------
    Column
        the value on every row

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.lit(5), F.lit("a"), F.lit(None), F.lit([1, 2])).show()
    +---+---+----+-----------+
    |  5|  a|NULL|array(1, 2)|
    +---+---+----+-----------+
    |  5|  a|NULL|     [1, 2]|
    +---+---+----+-----------+
    <BLANKLINE>
    """
    if isinstance(col, Column):
        return col
    return Column(_lit_expr(col))


def expr(str: str) -> Column:  # noqa: A002 - PySpark's parameter name
    """A column from SQL text, resolved against the DataFrame it is used on
    (``"*"``: every column, as in ``count(expr("*"))``).

    Parameters
    ----------
    str : str
        a SQL expression, such as ``"a + 1"`` or ``"upper(name) AS n"``

    Returns
    -------
    Column
        the expression's column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["id", "name"])
    >>> df.select(F.expr("id * 10"), F.expr("upper(name) AS n")).show()
    +---------+---+
    |(id * 10)|  n|
    +---------+---+
    |       10|  X|
    +---------+---+
    <BLANKLINE>
    """
    if str.strip() == "*":
        return col("*")
    return Column(_native.sql_expr(str))


def when(condition: Column, value: Any) -> Column:
    """Start a CASE WHEN chain; continue with ``.when`` and ``.otherwise``.

    Parameters
    ----------
    condition : Column
        a boolean column
    value : Any
        the value where it holds (a literal or a column)

    Returns
    -------
    Column
        a CASE WHEN column; chain ``.when(...)`` and ``.otherwise(...)`` (without otherwise: null elsewhere)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (5,), (None,)], "n int")
    >>> df.select("n", F.when(F.col("n") > 2, "big").when(F.col("n") > 0, "small").otherwise("none").alias("size")).show()
    +----+-----+
    |   n| size|
    +----+-----+
    |   1|small|
    |   5|  big|
    |NULL| none|
    +----+-----+
    <BLANKLINE>
    """
    return Column(_native.case_when(condition._expr, _as_col(value)._expr))


def asc(col: ColumnOrName) -> Column:
    """Sort ascending by ``col`` (nulls first), for ``orderBy``.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order for ``orderBy`` / ``sort``: ascending, nulls first

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.asc("n")).show()
    +----+
    |   n|
    +----+
    |NULL|
    |   1|
    |   3|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).asc()


def desc(col: ColumnOrName) -> Column:
    """Sort descending by ``col`` (nulls last), for ``orderBy``.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order for ``orderBy`` / ``sort``: descending, nulls last

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.desc("n")).show()
    +----+
    |   n|
    +----+
    |   3|
    |   1|
    |NULL|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).desc()


def asc_nulls_first(col: ColumnOrName) -> Column:
    """Sort ascending by ``col``, nulls first.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order: ascending, nulls first

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.asc_nulls_first("n")).show()
    +----+
    |   n|
    +----+
    |NULL|
    |   1|
    |   3|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).asc_nulls_first()


def asc_nulls_last(col: ColumnOrName) -> Column:
    """Sort ascending by ``col``, nulls last.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order: ascending, nulls last

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.asc_nulls_last("n")).show()
    +----+
    |   n|
    +----+
    |   1|
    |   3|
    |NULL|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).asc_nulls_last()


def desc_nulls_first(col: ColumnOrName) -> Column:
    """Sort descending by ``col``, nulls first.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order: descending, nulls first

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.desc_nulls_first("n")).show()
    +----+
    |   n|
    +----+
    |NULL|
    |   3|
    |   1|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).desc_nulls_first()


def desc_nulls_last(col: ColumnOrName) -> Column:
    """Sort descending by ``col``, nulls last.

    Parameters
    ----------
    col : Column or str
        the sort key

    Returns
    -------
    Column
        a sort order: descending, nulls last

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (None,), (1,)], "n int")
    >>> df.orderBy(F.desc_nulls_last("n")).show()
    +----+
    |   n|
    +----+
    |   3|
    |   1|
    |NULL|
    +----+
    <BLANKLINE>
    """
    return _to_col(col).desc_nulls_last()


def coalesce(*cols: ColumnOrName) -> Column:
    """The first non-null value.

    Parameters
    ----------
    *cols : Column or str
        the columns (or names), in order of preference

    Returns
    -------
    Column
        the first non-null value of each row

    Examples
    --------
    >>> df = spark.createDataFrame([(None, 2), (1, None)], "a int, b int")
    >>> df.select(F.coalesce("a", "b", F.lit(0))).show()
    +-----------------+
    |coalesce(a, b, 0)|
    +-----------------+
    |                2|
    |                1|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("coalesce", *cols)


def isnull(col: ColumnOrName) -> Column:
    """True where the value is null.

    Parameters
    ----------
    col : Column or str
        the values

    Returns
    -------
    Column
        a ``boolean`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (None,)], "n int")
    >>> df.select(F.isnull("n")).show()
    +-----------+
    |(n IS NULL)|
    +-----------+
    |      false|
    |       true|
    +-----------+
    <BLANKLINE>
    """
    return _to_col(col).isNull()


def isnotnull(col: ColumnOrName) -> Column:
    """True where the value is not null.

    Parameters
    ----------
    col : Column or str
        the values

    Returns
    -------
    Column
        a ``boolean`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (None,)], "n int")
    >>> df.select(F.isnotnull("n")).show()
    +---------------+
    |(n IS NOT NULL)|
    +---------------+
    |           true|
    |          false|
    +---------------+
    <BLANKLINE>
    """
    return _to_col(col).isNotNull()


def isnan(col: ColumnOrName) -> Column:
    """True where the value is NaN.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``boolean`` column (false for null)

    Examples
    --------
    >>> df = spark.createDataFrame([(1.0,), (float("nan"),), (None,)], "x double")
    >>> df.select(F.isnan("x")).show()
    +--------+
    |isnan(x)|
    +--------+
    |   false|
    |    true|
    |   false|
    +--------+
    <BLANKLINE>
    """
    return _fn("isnan", col)


def broadcast(df: Any) -> Any:
    """Mark ``df`` as small enough to broadcast in a join. One process
    broadcasts nothing: the DataFrame is returned as it is (sparklet's join
    picks its build side by size itself).

    Parameters
    ----------
    df : Any
        the small side of a join

    Returns
    -------
    DataFrame
        ``df``, marked; the result is the same without the hint

    Examples
    --------
    >>> small = spark.createDataFrame([(1, "one")], ["id", "name"])
    >>> spark.range(3).join(F.broadcast(small), "id").show()
    +---+----+
    | id|name|
    +---+----+
    |  1| one|
    +---+----+
    <BLANKLINE>
    """
    return df


def call_function(funcName: str, *cols: ColumnOrName) -> Column:
    """Call a function of the session (built in or registered) by name.

    Parameters
    ----------
    funcName : str
        a SQL function's name (built-in, or a registered UDF)
    *cols : Column or str
        its arguments

    Returns
    -------
    Column
        the function's result

    Examples
    --------
    >>> df = spark.createDataFrame([("spark",)], ["s"])
    >>> df.select(F.call_function("upper", "s"), F.call_function("concat_ws", F.lit("-"), "s", "s")).show()
    +--------+------------------+
    |upper(s)|concat_ws(-, s, s)|
    +--------+------------------+
    |   SPARK|       spark-spark|
    +--------+------------------+
    <BLANKLINE>
    """
    from sparklet.sql.session import SparkSession

    registered = SparkSession._require_active().udf._registered.get(funcName.lower())
    if registered is not None:
        return registered(*cols)
    return _fn(funcName, *cols)
