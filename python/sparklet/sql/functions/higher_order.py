"""Higher-order functions over arrays, as PySpark's: the Python function is
called once with placeholder columns, and the expression it returns runs
on every element in the engine (no Python per row)."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _session_native

__all__ = ["transform", "filter", "exists", "forall"]

_counter = itertools.count()


def _apply(name: str, col: ColumnOrName, f: Callable[..., Column]) -> Column:
    arity = len(inspect.signature(f).parameters)
    params = [f"__sparklet_lambda_{next(_counter)}" for _ in range(arity)]
    body = f(*[Column(_native.lambda_variable(p)) for p in params])
    if not isinstance(body, Column):
        from sparklet.errors import PySparkValueError

        raise PySparkValueError(
            f"[HIGHER_ORDER_FUNCTION_SHOULD_RETURN_COLUMN] Function `{getattr(f, '__name__', 'lambda')}` should "
            f"return Column, got {type(body).__name__}.",
            errorClass="HIGHER_ORDER_FUNCTION_SHOULD_RETURN_COLUMN",
            messageParameters={"func_name": getattr(f, "__name__", "lambda"), "return_type": type(body).__name__},
        )
    return Column(_native.higher_order(_session_native(), name, [_to_col(col)._expr], params, body._expr))


def transform(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """Each element of the array mapped by ``f``."""
    return _apply("transform", col, f)


def filter(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:  # noqa: A001 - PySpark's name
    """The elements of the array for which ``f`` is true."""
    return _apply("filter", col, f)


def exists(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for some element (null when none does and one is null)."""
    return _apply("exists", col, f)


def forall(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for every element (null when none fails and one is null)."""
    return _apply("forall", col, f)
