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
    """A column by name (``"a.b"`` reaches field ``b`` of struct ``a``)."""
    return Column(_native.col(col))


column = col


def lit(col: Any) -> Column:
    """A literal value (a Column is returned unchanged)."""
    if isinstance(col, Column):
        return col
    return Column(_lit_expr(col))


def expr(str: str) -> Column:  # noqa: A002 - PySpark's parameter name
    """A column from SQL text, resolved against the DataFrame it is used on
    (``"*"``: every column, as in ``count(expr("*"))``)."""
    if str.strip() == "*":
        return col("*")
    return Column(_native.sql_expr(str))


def when(condition: Column, value: Any) -> Column:
    """Start a CASE WHEN chain; continue with ``.when`` and ``.otherwise``."""
    return Column(_native.case_when(condition._expr, _as_col(value)._expr))


def asc(col: ColumnOrName) -> Column:
    """Sort ascending by ``col`` (nulls first), for ``orderBy``."""
    return _to_col(col).asc()


def desc(col: ColumnOrName) -> Column:
    """Sort descending by ``col`` (nulls last), for ``orderBy``."""
    return _to_col(col).desc()


def asc_nulls_first(col: ColumnOrName) -> Column:
    """Sort ascending by ``col``, nulls first."""
    return _to_col(col).asc_nulls_first()


def asc_nulls_last(col: ColumnOrName) -> Column:
    """Sort ascending by ``col``, nulls last."""
    return _to_col(col).asc_nulls_last()


def desc_nulls_first(col: ColumnOrName) -> Column:
    """Sort descending by ``col``, nulls first."""
    return _to_col(col).desc_nulls_first()


def desc_nulls_last(col: ColumnOrName) -> Column:
    """Sort descending by ``col``, nulls last."""
    return _to_col(col).desc_nulls_last()


def coalesce(*cols: ColumnOrName) -> Column:
    """The first non-null value."""
    return _fn("coalesce", *cols)


def isnull(col: ColumnOrName) -> Column:
    """True where the value is null."""
    return _to_col(col).isNull()


def isnotnull(col: ColumnOrName) -> Column:
    """True where the value is not null."""
    return _to_col(col).isNotNull()


def isnan(col: ColumnOrName) -> Column:
    """True where the value is NaN."""
    return _fn("isnan", col)


def broadcast(df: Any) -> Any:
    """Mark ``df`` as small enough to broadcast in a join. One process
    broadcasts nothing: the DataFrame is returned as it is (sparklet's join
    picks its build side by size itself)."""
    return df


def call_function(funcName: str, *cols: ColumnOrName) -> Column:
    """Call a function of the session (built in or registered) by name."""
    from sparklet.sql.session import SparkSession

    registered = SparkSession._require_active().udf._registered.get(funcName.lower())
    if registered is not None:
        return registered(*cols)
    return _fn(funcName, *cols)
