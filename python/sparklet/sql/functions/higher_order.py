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
    its 0-based index if ``f`` takes two arguments).

    Parameters
    ----------
    col : Column or str
        the arrays
    f : Callable[..., Column]
        a function of an element (and its 0-based index) giving the new element

    Returns
    -------
    Column
        the arrays of ``f``'s results

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.transform("a", lambda x: x * 2), F.transform("a", lambda x, i: x + i)).show()
    +--------------------------------------------------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
    |transform(a, lambdafunction((namedlambdavariable() * 2), namedlambdavariable()))|transform(a, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))|
    +--------------------------------------------------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
    |                                                                       [6, 2, 4]|                                                                                                                  [3, 2, 4]|
    +--------------------------------------------------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("transform", [_to_col(col)], f)


def filter(col: ColumnOrName, f: Callable[..., Column]) -> Column:  # noqa: A001 - PySpark's name
    """The elements of the array for which ``f`` (of the element, and of
    its 0-based index if it takes two arguments) is true.

    Parameters
    ----------
    col : Column or str
        the arrays
    f : Callable[..., Column]
        a function of an element (and its index) giving whether to keep it

    Returns
    -------
    Column
        the arrays of the kept elements

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.filter("a", lambda x: x > 1)).show()
    +-----------------------------------------------------------------------------+
    |filter(a, lambdafunction((namedlambdavariable() > 1), namedlambdavariable()))|
    +-----------------------------------------------------------------------------+
    |                                                                       [3, 2]|
    +-----------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("filter", [_to_col(col)], f)


def exists(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for some element (null when none does and one is null).

    Parameters
    ----------
    col : Column or str
        the arrays
    f : Callable[[Column], Column]
        a function of an element giving a boolean

    Returns
    -------
    Column
        a ``boolean`` column: whether ``f`` holds for some element

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.exists("a", lambda x: x > 2)).show()
    +-----------------------------------------------------------------------------+
    |exists(a, lambdafunction((namedlambdavariable() > 2), namedlambdavariable()))|
    +-----------------------------------------------------------------------------+
    |                                                                         true|
    +-----------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("exists", [_to_col(col)], f)


def forall(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """True where ``f`` holds for every element (null when none fails and one is null).

    Parameters
    ----------
    col : Column or str
        the arrays
    f : Callable[[Column], Column]
        a function of an element giving a boolean

    Returns
    -------
    Column
        a ``boolean`` column: whether ``f`` holds for every element

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.forall("a", lambda x: x > 0)).show()
    +-----------------------------------------------------------------------------+
    |forall(a, lambdafunction((namedlambdavariable() > 0), namedlambdavariable()))|
    +-----------------------------------------------------------------------------+
    |                                                                         true|
    +-----------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("forall", [_to_col(col)], f)


def aggregate(
    col: ColumnOrName,
    initialValue: ColumnOrName,
    merge: Callable[[Column, Column], Column],
    finish: Callable[[Column], Column] | None = None,
) -> Column:
    """The array folded into one value: ``merge(acc, x)`` from
    ``initialValue`` over the elements in order, then ``finish(acc)``.

    Parameters
    ----------
    col : Column or str
        the arrays
    initialValue : Column or str
        the starting state (of the type ``merge`` gives)
    merge : Callable[[Column, Column], Column]
        a function of the state and an element giving the next state
    finish : Callable[[Column], Column], optional
        a function of the final state giving the result (default: the state)

    Returns
    -------
    Column
        the folded value of each array

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.aggregate("a", F.lit(0).cast("bigint"), lambda acc, x: acc + x)).show()
    +------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |aggregate(a, CAST(0 AS BIGINT), lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(), namedlambdavariable()))|
    +------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |                                                                                                                                                                                                           6|
    +------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    fs = (merge,) if finish is None else (merge, finish)
    return _apply("aggregate", [_to_col(col), _to_col(initialValue)], *fs)


def reduce(
    col: ColumnOrName,
    initialValue: ColumnOrName,
    merge: Callable[[Column, Column], Column],
    finish: Callable[[Column], Column] | None = None,
) -> Column:
    """As :func:`aggregate`.

    Parameters
    ----------
    col : Column or str
        the arrays
    initialValue : Column or str
        the starting state (of the type ``merge`` gives)
    merge : Callable[[Column, Column], Column]
        a function of the state and an element giving the next state
    finish : Callable[[Column], Column], optional
        a function of the final state giving the result (default: the state)

    Returns
    -------
    Column
        the folded value of each array

    Examples
    --------
    >>> df = spark.createDataFrame([([3, 1, 2],)], ["a"])
    >>> df.select(F.reduce("a", F.lit(0).cast("bigint"), lambda acc, x: acc + x, lambda acc: acc * 10)).show()
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |reduce(a, CAST(0 AS BIGINT), lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), lambdafunction((namedlambdavariable() * 10), namedlambdavariable()))|
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |                                                                                                                                                                                                              60|
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    fs = (merge,) if finish is None else (merge, finish)
    return _apply("reduce", [_to_col(col), _to_col(initialValue)], *fs)


def zip_with(left: ColumnOrName, right: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """``f`` of the two arrays' elements pair by pair (the shorter padded with nulls).

    Parameters
    ----------
    left : Column or str
        the first arrays
    right : Column or str
        the second arrays (the shorter is padded with nulls)
    f : Callable[[Column, Column], Column]
        a function of two elements giving the merged element

    Returns
    -------
    Column
        an array column

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], [10, 20])], ["a", "b"])
    >>> df.select(F.zip_with("a", "b", lambda x, y: x + y)).show()
    +-----------------------------------------------------------------------------------------------------------------------------+
    |zip_with(a, b, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))|
    +-----------------------------------------------------------------------------------------------------------------------------+
    |                                                                                                               [11, 22, NULL]|
    +-----------------------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("zip_with", [_to_col(left), _to_col(right)], f)


def transform_keys(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map with each key replaced by ``f(key, value)``.

    Parameters
    ----------
    col : Column or str
        the maps
    f : Callable[[Column, Column], Column]
        a function of a key and its value giving the new key

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.transform_keys("m", lambda k, v: F.upper(k))).show()
    +-------------------------------------------------------------------------------------------------------------+
    |transform_keys(m, lambdafunction(upper(namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))|
    +-------------------------------------------------------------------------------------------------------------+
    |                                                                                             {A -> 1, B -> 2}|
    +-------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("transform_keys", [_to_col(col)], f)


def transform_values(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map with each value replaced by ``f(key, value)``.

    Parameters
    ----------
    col : Column or str
        the maps
    f : Callable[[Column, Column], Column]
        a function of a key and its value giving the new value

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.transform_values("m", lambda k, v: v * 10)).show()
    +---------------------------------------------------------------------------------------------------------------+
    |transform_values(m, lambdafunction((namedlambdavariable() * 10), namedlambdavariable(), namedlambdavariable()))|
    +---------------------------------------------------------------------------------------------------------------+
    |                                                                                             {a -> 10, b -> 20}|
    +---------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("transform_values", [_to_col(col)], f)


def map_filter(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The map's entries for which ``f(key, value)`` is true.

    Parameters
    ----------
    col : Column or str
        the maps
    f : Callable[[Column, Column], Column]
        a function of a key and its value giving whether to keep the entry

    Returns
    -------
    Column
        a map column

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2},)], ["m"])
    >>> df.select(F.map_filter("m", lambda k, v: v > 1)).show()
    +--------------------------------------------------------------------------------------------------------+
    |map_filter(m, lambdafunction((namedlambdavariable() > 1), namedlambdavariable(), namedlambdavariable()))|
    +--------------------------------------------------------------------------------------------------------+
    |                                                                                                {b -> 2}|
    +--------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("map_filter", [_to_col(col)], f)


def map_zip_with(col1: ColumnOrName, col2: ColumnOrName, f: Callable[[Column, Column, Column], Column]) -> Column:
    """A map of every key of either map to ``f(key, value1, value2)`` (a
    missing value is null).

    Parameters
    ----------
    col1 : Column or str
        the first maps
    col2 : Column or str
        the second maps
    f : Callable[[Column, Column, Column], Column]
        a function of a key and its two values (null where a map lacks it) giving the new value

    Returns
    -------
    Column
        a map column of every key of either map

    Examples
    --------
    >>> df = spark.createDataFrame([({"a": 1, "b": 2}, {"a": 10})], ["x", "y"])
    >>> df.select(F.map_zip_with("x", "y", lambda k, v1, v2: F.coalesce(v1, F.lit(0)) + F.coalesce(v2, F.lit(0)))).show()
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |map_zip_with(x, y, lambdafunction((coalesce(namedlambdavariable(), 0) + coalesce(namedlambdavariable(), 0)), namedlambdavariable(), namedlambdavariable(), namedlambdavariable()))|
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    |                                                                                                                                                                 {a -> 11, b -> 2}|
    +----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------+
    <BLANKLINE>
    """
    return _apply("map_zip_with", [_to_col(col1), _to_col(col2)], f)


def _sort_by(col: ColumnOrName, comparator: Callable[[Column, Column], Column]) -> Column:
    """``array_sort`` with a comparator: negative puts the first element first."""
    return _apply("array_sort", [_to_col(col)], comparator)
