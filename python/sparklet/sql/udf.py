"""Python UDFs, as :mod:`pyspark.sql.functions` ``udf`` and ``pandas_udf``
and ``spark.udf.register``.

The engine calls a UDF once per record batch (up to 64K rows), taking the
GIL only for that call: a row-wise ``udf`` runs over the batch's rows, a
``pandas_udf`` receives pandas Series and returns one. An exception in the
function stops the query (or fails the action) with its traceback.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from sparklet import _native
from sparklet.errors import PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql._convert import column_values
from sparklet.sql.column import Column, _to_col
from sparklet.sql.types import DataType, StringType, _parse_datatype_string

__all__ = ["UserDefinedFunction", "UDFRegistration", "udf", "pandas_udf", "PandasUDFType"]


def _data_type(returnType: DataType | str) -> DataType:
    if isinstance(returnType, str):
        return _parse_datatype_string(returnType)
    if isinstance(returnType, DataType):
        return returnType
    raise not_expected_type("returnType", "DataType or str", returnType)


def _rows_runner(f: Callable[..., Any], returns: pa.DataType) -> Callable[[pa.Table, int], pa.Array]:
    """Apply ``f`` to each row of the argument table."""

    def run(table: pa.Table, n: int) -> pa.Array:
        if table.num_columns == 0:
            values = [f() for _ in range(n)]
        else:
            values = [f(*row) for row in zip(*(column_values(c) for c in table.columns))]
        try:
            return pa.array(values, type=returns)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            # results of another type than declared are cast to it, as
            # PySpark's Arrow-optimized UDFs do (4 to "4"; "a" to int fails)
            return pa.array(values).cast(returns)

    return run


def _series_runner(f: Callable[..., Any], returns: pa.DataType) -> Callable[[pa.Table, int], pa.Array]:
    """Apply ``f`` to the argument columns as pandas Series (struct columns as DataFrames)."""

    def run(table: pa.Table, n: int) -> pa.Array:
        args = []
        for c in table.columns:
            if pa.types.is_struct(c.type):
                args.append(pa.Table.from_struct_array(c).to_pandas())
            else:
                args.append(c.to_pandas())
        out = f(*args)
        if len(out) != n:
            raise PySparkRuntimeError(
                f"[RESULT_ROWS_MISMATCH] The number of output rows ({len(out)}) must match the number of "
                f"input rows ({n}).",
                "RESULT_ROWS_MISMATCH",
            )
        if hasattr(out, "columns"):  # a DataFrame: a struct column
            table = pa.Table.from_pandas(out, preserve_index=False)
            return table.to_struct_array().combine_chunks().cast(returns)
        return pa.Array.from_pandas(out, type=returns)

    return run


def _by_parameter(func: Callable[..., Any], given: int, named: dict[str, Column | str]) -> list[Any]:
    """Keyword arguments of a call of ``func`` after ``given`` positional
    ones, as the positional arguments they stand for (in the function's
    order; they must fill its next parameters)."""
    params = list(inspect.signature(func).parameters)
    wanted = params[given : given + len(named)]
    if sorted(named) != sorted(wanted):
        raise PySparkTypeError(
            f"[UNEXPECTED_POSITIONAL_ARGUMENT] The function {getattr(func, '__name__', func)} takes the parameters "
            f"{params}: after {given} positional arguments, named arguments {sorted(named)} do not fill {wanted}.",
            "UNEXPECTED_POSITIONAL_ARGUMENT",
        )
    return [_to_col(named[p])._expr for p in wanted]


class UserDefinedFunction:
    """A Python function usable as a column expression (call it with columns)."""

    def __init__(self, func: Callable[..., Any], returnType: DataType | str, name: str | None, kind: str) -> None:
        self.func = func
        self.returnType = _data_type(returnType)
        self._name: str = name or getattr(func, "__name__", None) or type(func).__name__
        self.deterministic = True
        self._kind = kind  # "rows" (udf) or "series" (pandas_udf)
        functools.update_wrapper(self, func)

    def _runner(self) -> Callable[[pa.Table, int], pa.Array]:
        make = _rows_runner if self._kind == "rows" else _series_runner
        return make(self.func, self.returnType._to_arrow())

    def __call__(self, *cols: Column | str, **named: Column | str) -> Column:
        exprs = [_to_col(c)._expr for c in cols]
        # named as Spark names the call: `calc(b => (id * 10), a => id)`
        shown = [e.name() for e in exprs] + [f"{k} => {_to_col(v)._expr.name()}" for k, v in named.items()]
        args = exprs + _by_parameter(self.func, len(cols), named) if named else exprs
        return Column(_native.udf_call(self._name, self._runner(), self.returnType._to_arrow(), args)).alias(
            f"{self._name}({', '.join(shown)})"
        )

    def asNondeterministic(self) -> "UserDefinedFunction":
        """Mark the function as non-deterministic (sparklet never folds or
        deduplicates a Python UDF's calls either way)."""
        self.deterministic = False
        return self


def udf(
    f: Callable[..., Any] | DataType | str | None = None,
    returnType: DataType | str = "string",
    *,
    useArrow: bool | None = None,
) -> Any:
    """A row-wise Python UDF: ``F.udf(lambda s: s.upper(), "string")``, or as a
    decorator, ``@F.udf("int")``. Rows reach the function as Python values
    (``None`` for null); it runs over Arrow batches, ``useArrow`` or not.

    Parameters
    ----------
    f : callable or DataType or str, optional
        the function; or, used as ``@F.udf(returnType)``, the return type
    returnType : DataType or str, default "string"
        the type of the function's results, as a DataType or a DDL string
    useArrow : bool, optional
        accepted for PySpark's sake; sparklet always passes Arrow batches

    Returns
    -------
    UserDefinedFunction
        a function of columns (or names) giving a Column; with ``f`` omitted,
        a decorator that makes one

    Examples
    --------
    >>> shout = F.udf(lambda s: None if s is None else s.upper() + "!", "string")
    >>> df = spark.createDataFrame([("hi",), (None,)], "s string")
    >>> df.select(shout("s").alias("loud")).show()
    +----+
    |loud|
    +----+
    | HI!|
    |NULL|
    +----+
    <BLANKLINE>
    >>> @F.udf("int")
    ... def plus_one(n):
    ...     return n + 1
    >>> spark.range(2).select(plus_one("id").alias("n")).show()
    +---+
    |  n|
    +---+
    |  1|
    |  2|
    +---+
    <BLANKLINE>
    """
    if f is None or isinstance(f, (DataType, str)):
        rt = f if f is not None else returnType
        return lambda fn: UserDefinedFunction(fn, rt, None, "rows")
    return UserDefinedFunction(f, returnType, None, "rows")


class PandasUDFType:
    """The legacy kinds of pandas UDF (type hints choose the kind now)."""

    SCALAR = 200
    GROUPED_MAP = 201
    GROUPED_AGG = 202


def _is_aggregate(f: Callable[..., Any]) -> bool:
    """Series -> scalar type hints make a grouped aggregate pandas UDF."""
    try:
        hints = inspect.signature(f)
    except (TypeError, ValueError):
        return False
    ret = hints.return_annotation
    if ret is inspect.Signature.empty:
        return False
    text = ret if isinstance(ret, str) else getattr(ret, "__name__", str(ret))
    return "Series" not in text and "DataFrame" not in text and "Iterator" not in text


def pandas_udf(
    f: Callable[..., Any] | DataType | str | None = None,
    returnType: DataType | str | None = None,
    functionType: int | None = None,
) -> Any:
    """A vectorized UDF over pandas Series: ``@F.pandas_udf("double")`` on a
    ``def f(v: pd.Series) -> pd.Series``. A ``Series -> scalar`` function
    (by its type hints, or ``PandasUDFType.GROUPED_AGG``) is an aggregate,
    for ``groupBy().agg(...)`` on batch DataFrames.

    Parameters
    ----------
    f : callable or DataType or str, optional
        the function; or, used as ``@F.pandas_udf(returnType)``, the return type
    returnType : DataType or str, optional
        the type of the results, as a DataType or a DDL string
    functionType : int, optional
        a legacy ``PandasUDFType``; type hints choose the kind otherwise

    Returns
    -------
    UserDefinedFunction
        a function of columns (or names) giving a Column; with ``f`` omitted,
        a decorator that makes one

    Raises
    ------
    PySparkValueError
        ``CANNOT_BE_NONE`` when no return type is given

    Examples
    --------
    >>> import pandas as pd
    >>> @F.pandas_udf("double")
    ... def half(v: pd.Series) -> pd.Series:
    ...     return v / 2
    >>> spark.range(3).select(half("id").alias("half")).show()
    +----+
    |half|
    +----+
    | 0.0|
    | 0.5|
    | 1.0|
    +----+
    <BLANKLINE>
    >>> @F.pandas_udf("double")
    ... def mean(v: pd.Series) -> float:
    ...     return v.mean()
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
    >>> df.groupBy("k").agg(mean("v").alias("mean_v")).orderBy("k").show()
    +---+------+
    |  k|mean_v|
    +---+------+
    |  a|   2.0|
    |  b|   5.0|
    +---+------+
    <BLANKLINE>
    """
    if f is None or isinstance(f, (DataType, str)):
        rt = f if f is not None else returnType
        if isinstance(returnType, int):
            functionType = returnType
        return lambda fn: _make_pandas_udf(fn, rt, functionType)
    return _make_pandas_udf(f, returnType, functionType)


def _make_pandas_udf(f: Callable[..., Any], returnType: Any, functionType: int | None) -> Any:
    if returnType is None:
        raise PySparkValueError(
            "[CANNOT_BE_NONE] Argument `returnType` can not be None.",
            "CANNOT_BE_NONE",
        )
    aggregate = functionType == PandasUDFType.GROUPED_AGG or (functionType is None and _is_aggregate(f))
    if aggregate:
        from sparklet.sql.udaf import AggregatePandasUDF

        return AggregatePandasUDF(f, returnType)
    return UserDefinedFunction(f, returnType, None, "series")


class UDFRegistration:
    """``spark.udf``: register Python functions for use in SQL.

    Examples
    --------
    >>> _ = spark.udf.register("reg_shout", lambda s: s.upper() + "!")
    >>> spark.sql("SELECT reg_shout('hi') AS loud").show()
    +----+
    |loud|
    +----+
    | HI!|
    +----+
    <BLANKLINE>
    """

    def __init__(self, session: Any) -> None:
        self._session = session
        # by lower-case name, for functions.call_udf (names are case-insensitive)
        self._registered: dict[str, UserDefinedFunction] = {}

    def register(
        self, name: str, f: Callable[..., Any] | UserDefinedFunction, returnType: DataType | str | None = None
    ) -> UserDefinedFunction:
        """Make ``f`` callable as ``name`` in ``spark.sql`` (and ``F.call_udf``); returns the UDF, usable in the DataFrame API too.

        Parameters
        ----------
        name : str
            the name in SQL
        f : callable or UserDefinedFunction
            a Python function, or a UDF made by ``F.udf`` / ``F.pandas_udf`` (its own type kept)
        returnType : DataType or str, optional
            the result type for a plain function (default string)

        Returns
        -------
        UserDefinedFunction
            the registered UDF

        Examples
        --------
        >>> plus_one = spark.udf.register("reg_plus_one", lambda n: n + 1, "int")
        >>> spark.sql("SELECT reg_plus_one(41) AS answer").show()
        +------+
        |answer|
        +------+
        |    42|
        +------+
        <BLANKLINE>
        >>> spark.range(2).select(plus_one("id").alias("n")).show()
        +---+
        |  n|
        +---+
        |  1|
        |  2|
        +---+
        <BLANKLINE>
        """
        if isinstance(f, UserDefinedFunction):
            if returnType is not None:
                raise PySparkTypeError(
                    "[CANNOT_SPECIFY_RETURN_TYPE_FOR_UDF] Cannot specify return type for a UDF: "
                    f"'{name}' already has one.",
                    "CANNOT_SPECIFY_RETURN_TYPE_FOR_UDF",
                )
            u = f
        else:
            u = UserDefinedFunction(f, returnType if returnType is not None else StringType(), name, "rows")
        u._name = name
        _native.register_udf(self._session._native, name, u._runner(), u.returnType._to_arrow())
        self._registered[name.lower()] = u
        return u
