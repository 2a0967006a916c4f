"""``assertDataFrameEqual`` and ``assertSchemaEqual``, as in
:mod:`pyspark.testing`: compare results in tests with a message that shows
what differs."""

from __future__ import annotations

import math
from typing import Any

from sparklet.errors import PySparkAssertionError
from sparklet.sql.types import ArrayType, DataType, MapType, Row, StructField, StructType

__all__ = ["assertDataFrameEqual", "assertSchemaEqual"]


def _field_key(f: StructField, ignore_nullable: bool, ignore_name: bool) -> tuple[Any, ...]:
    return (
        None if ignore_name else f.name,
        _type_key(f.dataType, ignore_nullable),
        None if ignore_nullable else f.nullable,
    )


def _type_key(t: DataType, ignore_nullable: bool) -> Any:
    if isinstance(t, StructType):
        return ("struct", tuple(_field_key(f, ignore_nullable, False) for f in t.fields))
    if isinstance(t, ArrayType):
        return ("array", _type_key(t.elementType, ignore_nullable))
    if isinstance(t, MapType):
        return ("map", _type_key(t.keyType, ignore_nullable), _type_key(t.valueType, ignore_nullable))
    return t.simpleString()


def assertSchemaEqual(
    actual: StructType,
    expected: StructType,
    ignoreNullable: bool = True,
    ignoreColumnOrder: bool = False,
    ignoreColumnName: bool = False,
) -> None:
    """Assert that two schemas are equal, as :mod:`pyspark.testing` does.

    Fields are compared by name, type and (unless ignored) nullability,
    nested types included, in order unless ``ignoreColumnOrder``.

    Parameters
    ----------
    actual : StructType
        The schema under test, such as ``df.schema``.
    expected : StructType
        The schema it should be.
    ignoreNullable : bool, default True
        Compare fields without their ``nullable`` flags (at every level).
    ignoreColumnOrder : bool, default False
        Compare the top-level fields as a set, not a sequence.
    ignoreColumnName : bool, default False
        Compare the top-level fields by position and type only.

    Raises
    ------
    PySparkAssertionError
        ``DIFFERENT_SCHEMA`` when they differ, with both schemas' fields
        side by side and the differing ones marked ``!``;
        ``UNSUPPORTED_DATA_TYPE`` when either is not a ``StructType``.

    Examples
    --------
    >>> from sparklet.sql.types import IntegerType, LongType, StructField, StructType
    >>> from sparklet.testing import assertSchemaEqual
    >>> s1 = StructType([StructField("id", LongType(), True)])
    >>> s2 = StructType([StructField("id", LongType(), False)])
    >>> assertSchemaEqual(s1, s2)
    >>> assertSchemaEqual(s1, s2, ignoreNullable=False)
    Traceback (most recent call last):
        ...
    sparklet.errors.exceptions.PySparkAssertionError: [DIFFERENT_SCHEMA] Schemas do not match.
    --- actual | +++ expected
    ! ('id', 'bigint', True) ... | ('id', 'bigint', False)
    >>> assertSchemaEqual(spark.range(1).schema, StructType([StructField("id", IntegerType())]))
    Traceback (most recent call last):
        ...
    sparklet.errors.exceptions.PySparkAssertionError: [DIFFERENT_SCHEMA] Schemas do not match.
    --- actual | +++ expected
    ! ('id', 'bigint', None) ... | ('id', 'int', None)
    """
    for name, s in (("actual", actual), ("expected", expected)):
        if not isinstance(s, StructType):
            raise PySparkAssertionError(
                f"[UNSUPPORTED_DATA_TYPE] `{name}` should be a StructType, got {type(s).__name__}.",
                "UNSUPPORTED_DATA_TYPE",
            )
    a = [_field_key(f, ignoreNullable, ignoreColumnName) for f in actual.fields]
    e = [_field_key(f, ignoreNullable, ignoreColumnName) for f in expected.fields]
    if ignoreColumnOrder:
        a, e = sorted(a, key=repr), sorted(e, key=repr)
    if a != e:
        lines = [
            f"{'  ' if x == y else '! '}{x!r:60} | {y!r}"
            for x, y in zip(a + [None] * (len(e) - len(a)), e + [None] * (len(a) - len(e)))
        ]
        raise PySparkAssertionError(
            "[DIFFERENT_SCHEMA] Schemas do not match.\n--- actual | +++ expected\n" + "\n".join(lines),
            "DIFFERENT_SCHEMA",
        )


def _is_pandas(data: Any) -> bool:
    return hasattr(data, "to_dict") and hasattr(data, "columns")


def _rows(data: Any) -> tuple[list[Any], StructType | None]:
    """Rows and (for a DataFrame) the schema of what was given."""
    from sparklet.sql.dataframe import DataFrame

    if isinstance(data, DataFrame):
        return data.collect(), data.schema
    if _is_pandas(data):
        import pandas as pd

        def value(v: Any) -> Any:  # pandas' missing values (NaN, NaT, NA) are nulls
            return None if not isinstance(v, (list, tuple, dict)) and pd.isna(v) else v

        cols = [str(c) for c in data.columns]
        rows = data.itertuples(index=False, name=None)
        return [Row._from_pairs(cols, [value(v) for v in r]) for r in rows], None
    if isinstance(data, list):
        return list(data), None
    raise PySparkAssertionError(
        "[INVALID_TYPE_DF_EQUALITY_ARG] Expected a DataFrame, a pandas DataFrame or a list of Rows, "
        f"got {type(data).__name__}.",
        "INVALID_TYPE_DF_EQUALITY_ARG",
    )


def _close(a: Any, e: Any, rtol: float, atol: float) -> bool:
    if isinstance(a, float) and isinstance(e, float):
        if math.isnan(a) and math.isnan(e):
            return True
        return math.isclose(a, e, rel_tol=rtol, abs_tol=atol)
    if isinstance(a, (tuple, list)) and isinstance(e, (tuple, list)):
        return len(a) == len(e) and all(_close(x, y, rtol, atol) for x, y in zip(a, e))
    if isinstance(a, dict) and isinstance(e, dict):
        return a.keys() == e.keys() and all(_close(a[k], e[k], rtol, atol) for k in a)
    return bool(a == e)


def _sort_key(row: Any) -> tuple[Any, ...]:
    # None first, then by value; mixed types by their text
    return tuple((v is not None, repr(v) if not isinstance(v, (int, float, str)) else v) for v in row)


def assertDataFrameEqual(
    actual: Any,
    expected: Any,
    checkRowOrder: bool = False,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    ignoreNullable: bool = True,
    ignoreColumnOrder: bool = False,
    ignoreColumnName: bool = False,
    ignoreColumnType: bool = False,
    maxErrors: int | None = None,
) -> None:
    """Assert that two DataFrames hold the same rows, as :mod:`pyspark.testing` does.

    Rows are compared in any order unless ``checkRowOrder``; floats (also
    inside arrays, maps and structs) within ``rtol`` and ``atol``, and NaN
    equal to NaN. When both sides are DataFrames their schemas are compared
    first, with :func:`assertSchemaEqual`.

    Parameters
    ----------
    actual : DataFrame, pandas.DataFrame or list of Row
        The result under test. pandas' missing values (NaN, NaT, NA) count
        as nulls; a pandas DataFrame is compared with a pandas DataFrame
        only, row by row in order (``checkRowOrder`` does not apply), as in
        PySpark.
    expected : DataFrame, pandas.DataFrame or list of Row
        The result it should be.
    checkRowOrder : bool, default False
        Compare the rows in order instead of as sorted multisets.
    rtol, atol : float, default 1e-5 and 1e-8
        Relative and absolute tolerance for floats, as ``math.isclose``.
    ignoreNullable : bool, default True
        Compare the schemas without nullability.
    ignoreColumnOrder : bool, default False
        Match columns by name instead of by position.
    ignoreColumnName : bool, default False
        Compare the schemas by position and type only.
    ignoreColumnType : bool, default False
        Skip the schema comparison; compare values only.
    maxErrors : int, optional
        Show at most this many differing rows in the message.

    Raises
    ------
    PySparkAssertionError
        ``DIFFERENT_ROWS`` with the differing rows, actual above expected
        (``DIFFERENT_PANDAS_DATAFRAME`` for two pandas DataFrames);
        ``DIFFERENT_SCHEMA`` when two DataFrames' schemas differ;
        ``INVALID_TYPE_DF_EQUALITY_ARG`` when either side is of another
        type, or ``actual`` is a pandas DataFrame and ``expected`` is not.

    Examples
    --------
    >>> from sparklet.testing import assertDataFrameEqual
    >>> df1 = spark.createDataFrame([("a", 1.0), ("b", 2.0)], ["k", "v"])
    >>> df2 = spark.createDataFrame([("b", 2.0), ("a", 1.0000001)], ["k", "v"])
    >>> assertDataFrameEqual(df1, df2)
    >>> assertDataFrameEqual(df1, [Row(k="a", v=1.0), Row(k="b", v=2.0)])
    >>> assertDataFrameEqual(df1, df2, checkRowOrder=True)
    Traceback (most recent call last):
        ...
    sparklet.errors.exceptions.PySparkAssertionError: [DIFFERENT_ROWS] Results do not match: ( 100.00000 % )
    2 of 2 rows differ (2 actual, 2 expected).
    ! Row(k='a', v=1.0)
      Row(k='b', v=2.0) (expected)
    ! Row(k='b', v=2.0)
      Row(k='a', v=1.0000001) (expected)
    >>> assertDataFrameEqual(df1.orderBy("k").toPandas(), df2.orderBy("k").toPandas())
    >>> assertDataFrameEqual(df1.toPandas(), df2)
    Traceback (most recent call last):
        ...
    sparklet.errors.exceptions.PySparkAssertionError: [INVALID_TYPE_DF_EQUALITY_ARG] `actual` is a pandas DataFrame, so `expected` must be one too, got DataFrame.
    """
    if actual is None and expected is None:
        return
    if _is_pandas(actual) and not _is_pandas(expected):
        # PySpark compares a pandas result with pandas only
        raise PySparkAssertionError(
            "[INVALID_TYPE_DF_EQUALITY_ARG] `actual` is a pandas DataFrame, so `expected` must be one too, "
            f"got {type(expected).__name__}.",
            "INVALID_TYPE_DF_EQUALITY_ARG",
        )
    both_pandas = _is_pandas(actual) and _is_pandas(expected)
    if both_pandas:
        checkRowOrder = True  # PySpark compares two pandas DataFrames row by row, in order
    a_rows, a_schema = _rows(actual)
    e_rows, e_schema = _rows(expected)
    if a_schema is not None and e_schema is not None and not ignoreColumnType:
        assertSchemaEqual(a_schema, e_schema, ignoreNullable, ignoreColumnOrder, ignoreColumnName)
    if ignoreColumnOrder:

        def by_name(r: Any) -> Any:
            return tuple(v for _, v in sorted(r.asDict().items())) if isinstance(r, Row) else r

        a_rows, e_rows = [by_name(r) for r in a_rows], [by_name(r) for r in e_rows]
    if not checkRowOrder:
        a_rows, e_rows = sorted(a_rows, key=_sort_key), sorted(e_rows, key=_sort_key)
    diffs = []
    for i in range(max(len(a_rows), len(e_rows))):
        a = a_rows[i] if i < len(a_rows) else None
        e = e_rows[i] if i < len(e_rows) else None
        if a is None or e is None or not _close(tuple(a), tuple(e), rtol, atol):
            diffs.append(f"! {a!r}\n  {e!r} (expected)")
    if diffs:
        shown = diffs if maxErrors is None else diffs[:maxErrors]
        condition = "DIFFERENT_PANDAS_DATAFRAME" if both_pandas else "DIFFERENT_ROWS"
        raise PySparkAssertionError(
            f"[{condition}] Results do not match: ( {100 * len(diffs) / max(len(a_rows), len(e_rows)):.5f} % )\n"
            f"{len(diffs)} of {max(len(a_rows), len(e_rows))} rows "
            f"differ ({len(a_rows)} actual, {len(e_rows)} expected"
            f"{'' if checkRowOrder else ', compared sorted'}).\n" + "\n".join(shown),
            condition,
        )
