"""``spark.sql(text, args, **kwargs)``'s substitutions, as PySpark makes them:
``{name}`` fields (Python's format syntax, ``{df.col}`` and ``{df[col]}``
too) from ``kwargs`` — a DataFrame becomes a temporary view, a Column its
name, anything else a SQL literal — and parameters from ``args``: ``:name``
from a dict, ``?`` from a list, each a SQL literal."""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import re
import string
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sparklet.errors import AnalysisException, PySparkTypeError

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

_views = itertools.count()


def literal(value: Any) -> str:
    """``value`` as SQL text."""
    from sparklet.sql.column import Column

    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, float):
        return f"CAST('{value!r}' AS DOUBLE)"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(literal(v) for v in value) + ")"
    if isinstance(value, Column):
        raise PySparkTypeError(
            "[UNSUPPORTED_PARAMETER] sparklet takes Python values as SQL parameters, not Column expressions: "
            f"{value!r}.",
            "UNSUPPORTED_PARAMETER",
        )
    raise PySparkTypeError(
        f"[UNSUPPORTED_DATA_TYPE_FOR_SQL_PARAMETER] {type(value).__name__} is not a SQL literal.",
        "UNSUPPORTED_DATA_TYPE_FOR_SQL_PARAMETER",
    )


class _Formatter(string.Formatter):
    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self.views: list[str] = []

    def format_field(self, value: Any, format_spec: str) -> str:
        from sparklet.sql.column import Column
        from sparklet.sql.dataframe import DataFrame

        if isinstance(value, DataFrame):
            name = f"__sparklet_sql_df_{next(_views)}"
            value.createOrReplaceTempView(name)
            self.views.append(name)
            return name
        if isinstance(value, Column):
            quoted: str = value._expr.name()
            return "`" + quoted.replace("`", "``") + "`"
        return literal(value)


def _outside_quotes(text: str) -> Iterator[tuple[bool, str]]:
    """``text`` in pieces, each marked whether it is outside quotes."""
    for piece in re.split(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`)", text):
        yield not (piece[:1] in ("'", '"', "`") and len(piece) > 1), piece


def _parameter(session: SparkSession, value: Any) -> str:
    """A parameter's value as SQL: a Column is evaluated (a constant
    expression, as Spark requires), a list is an array, a dict a map."""
    from sparklet.sql.column import Column

    if isinstance(value, Column):
        value = session.range(1).select(value.alias("v")).first()[0]  # type: ignore[index]
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(_parameter(session, v) for v in value) + ")"
    if isinstance(value, dict):
        return "map(" + ", ".join(f"{_parameter(session, k)}, {_parameter(session, v)}" for k, v in value.items()) + ")"
    return literal(value)


def _parameters(session: SparkSession, text: str, args: Any) -> str:
    if isinstance(args, dict):

        def named(m: re.Match[str]) -> str:
            key = m.group(1)
            if key not in args:
                raise AnalysisException(
                    f"[UNBOUND_SQL_PARAMETER] Found the unbound parameter: {key}.", "UNBOUND_SQL_PARAMETER"
                )
            return _parameter(session, args[key])

        return "".join(re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", named, p) if out else p for out, p in _outside_quotes(text))
    values = iter(list(args))

    def positional(_: re.Match[str]) -> str:
        try:
            return _parameter(session, next(values))
        except StopIteration:
            raise AnalysisException(
                "[UNBOUND_SQL_PARAMETER] Found the unbound parameter: _16.", "UNBOUND_SQL_PARAMETER"
            ) from None

    return "".join(re.sub(r"\?", positional, p) if out else p for out, p in _outside_quotes(text))


@contextmanager
def formatted(session: SparkSession, text: str, args: Any, kwargs: dict[str, Any]) -> Iterator[str]:
    """The text with its substitutions made; the views made for DataFrames
    are dropped after the block (the plan keeps what it read)."""
    formatter = _Formatter(session)
    try:
        out = formatter.vformat(text, (), kwargs) if kwargs else text
        if args is not None:
            out = _parameters(session, out, args)
        yield out
    finally:
        for name in formatter.views:
            session.catalog.dropTempView(name)
