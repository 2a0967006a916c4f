"""Higher-order functions over arrays and maps, as PySpark's: each Python
function is called once with placeholder columns, and the expression it
returns runs on every element in the engine (no Python per row)."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from typing import Any

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _session_native

__all__ = [
    "transform", "filter", "exists", "forall", "aggregate", "reduce", "zip_with", "transform_keys",
    "transform_values", "map_filter", "map_zip_with",
]  # fmt: skip

_counter = itertools.count()


def _lambda(f: Callable[..., Column]) -> tuple[list[str], Any]:
    """``f`` as a lambda: its parameters' names and the body it returns."""
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
    return params, body._expr


def _apply(name: str, cols: list[Column], *fs: Callable[..., Column]) -> Column:
    lambdas = [_lambda(f) for f in fs]
    return Column(_native.higher_order(_session_native(), name, [c._expr for c in cols], lambdas))


def transform(col: ColumnOrName, f: Callable[..., Column]) -> Column:
    """Each element of the array mapped by ``f`` (of the element, and of
    its 0-based index if ``f`` takes two arguments)."""
    return _apply("transform", [_to_col(col)], f)


def filter(col: ColumnOrName, f: Callable[..., Column]) -> Column:  # noqa: A001 - PySpark's name
    """The elements of the array for which ``f`` (of the element, and of
    its 0-based index if it takes two arguments) is true."""
    return _apply("filter", [_to_col(col)], f)


def exists(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for some element (null when none does and one is null)."""
    return _apply("exists", [_to_col(col)], f)


def forall(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for every element (null when none fails and one is null)."""
    return _apply("forall", [_to_col(col)], f)


def aggregate(
    col: ColumnOrName,
    initialValue: ColumnOrName,
    merge: Callable[[Column, Column], Column],
    finish: Callable[[Column], Column] | None = None,
) -> Column:
    """The array folded into one value: ``merge(acc, x)`` from
    ``initialValue`` over the elements in order, then ``finish(acc)``."""
    fs = (merge,) if finish is None else (merge, finish)
    return _apply("aggregate", [_to_col(col), _to_col(initialValue)], *fs)


def reduce(
    col: ColumnOrName,
    initialValue: ColumnOrName,
    merge: Callable[[Column, Column], Column],
    finish: Callable[[Column], Column] | None = None,
) -> Column:
    """As :func:`aggregate`."""
    fs = (merge,) if finish is None else (merge, finish)
    return _apply("reduce", [_to_col(col), _to_col(initialValue)], *fs)


def zip_with(left: ColumnOrName, right: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """``f`` of the two arrays' elements pair by pair (the shorter padded with nulls)."""
    return _apply("zip_with", [_to_col(left), _to_col(right)], f)


def transform_keys(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map with each key replaced by ``f(key, value)``."""
    return _apply("transform_keys", [_to_col(col)], f)


def transform_values(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map with each value replaced by ``f(key, value)``."""
    return _apply("transform_values", [_to_col(col)], f)


def map_filter(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map's entries for which ``f(key, value)`` is true."""
    return _apply("map_filter", [_to_col(col)], f)


def map_zip_with(col1: ColumnOrName, col2: ColumnOrName, f: Callable[[Column, Column, Column], Column]) -> Column:
    """A map of every key of either map to ``f(key, value1, value2)`` (a
    missing value is null)."""
    return _apply("map_zip_with", [_to_col(col1), _to_col(col2)], f)


def _sort_by(col: ColumnOrName, comparator: Callable[[Column, Column], Column]) -> Column:
    """``array_sort`` with a comparator: negative puts the first element first."""
    return _apply("array_sort", [_to_col(col)], comparator)
