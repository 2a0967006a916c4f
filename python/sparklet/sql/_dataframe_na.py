"""Missing values: :meth:`DataFrame.fillna`, ``dropna``, ``replace`` and
``df.na`` (:class:`DataFrameNaFunctions`), with Spark's type rules: a
number fills or replaces in numeric columns only, a string in string
columns, a boolean in boolean columns; NaN counts as missing in floating
columns; the columns keep their names and types."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type, value_not_allowed
from sparklet.sql.column import Column
from sparklet.sql.types import (
    BooleanType,
    DataType,
    DoubleType,
    FloatType,
    NumericType,
    StringType,
)

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame

__all__ = ["DataFrameNaFunctions"]

_Scalar = (bool, int, float, str)


def _kind(value: Any) -> str:
    """The kind of columns a fill or replacement value applies to."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "none"


def _applies(kind: str, data_type: DataType) -> bool:
    if kind == "bool":
        return isinstance(data_type, BooleanType)
    if kind == "number":
        return isinstance(data_type, NumericType) and not isinstance(data_type, BooleanType)
    if kind == "string":
        return isinstance(data_type, StringType)
    return True


def _subset_names(df: DataFrame, subset: Any, argument: str = "subset") -> list[str] | None:
    if subset is None:
        return None
    if isinstance(subset, str):
        return [subset]
    if isinstance(subset, (list, tuple)) and all(isinstance(c, str) for c in subset):
        return list(subset)
    raise not_expected_type(argument, "list, str or tuple", subset)


def _fields(df: DataFrame, names: list[str] | None) -> list[Any]:
    """The schema fields named (all when ``names`` is None); an unknown name
    is Spark's unresolved-column error."""
    fields = df.schema.fields
    if names is None:
        return fields
    for n in names:
        df._check_column(n)
    return [f for f in fields if f.name in names]


def _literal(value: Any, data_type: DataType) -> Column:
    from sparklet.sql import functions as F

    return F.lit(value).cast(data_type)


def _missing(c: Column, data_type: DataType) -> Column:
    """``c`` is null, or NaN in a floating column."""
    from sparklet.sql import functions as F

    if isinstance(data_type, (FloatType, DoubleType)):
        return c.isNull() | F.isnan(c)
    return c.isNull()


def fill(df: DataFrame, value: Any, subset: Any = None) -> DataFrame:
    """``df.na.fill`` / ``df.fillna``."""
    from sparklet.sql import functions as F

    if not isinstance(value, (*_Scalar, dict)):
        raise not_expected_type("value", "bool, dict, float, int or str", value)
    if isinstance(value, dict):
        for v in value.values():
            if not isinstance(v, _Scalar):
                raise not_expected_type("value", "bool, float, int or str", v)
        by_name = dict(value)
        fields = _fields(df, list(by_name))
    else:
        names = _subset_names(df, subset)
        fields = [f for f in _fields(df, names) if _applies(_kind(value), f.dataType)]
        by_name = {f.name: value for f in fields}
    replaced = {}
    for f in fields:
        # a dict's values fill their columns whatever the type (cast to it)
        v = by_name[f.name]
        c = F.col(f"`{f.name}`")
        replaced[f.name] = (
            F.when(_missing(c, f.dataType), _literal(v, f.dataType)).otherwise(c).alias(f.name)
            if isinstance(f.dataType, (FloatType, DoubleType))
            else F.coalesce(c, _literal(v, f.dataType)).alias(f.name)
        )
    return _with(df, replaced)


def _with(df: DataFrame, replaced: dict[str, Column]) -> DataFrame:
    """``df`` with the named columns replaced, in place and order."""
    from sparklet.sql import functions as F

    if not replaced:
        return df
    return df.select(*[replaced.get(n, F.col(f"`{n}`")) for n in df.columns])


def drop(df: DataFrame, how: str = "any", thresh: int | None = None, subset: Any = None) -> DataFrame:
    """``df.na.drop`` / ``df.dropna``: rows with fewer than ``thresh`` values
    that are neither null nor NaN (``how="any"``: all; ``"all"``: one)."""
    from sparklet.sql import functions as F

    if how not in ("any", "all"):
        raise value_not_allowed("how", ["any", "all"])
    fields = _fields(df, _subset_names(df, subset))
    if thresh is None:
        thresh = len(fields) if how == "any" else 1
    if not fields:
        return df if thresh <= 0 else df.filter(F.lit(False))
    present = [F.when(~_missing(F.col(f"`{f.name}`"), f.dataType), 1).otherwise(0) for f in fields]
    total = present[0]
    for p in present[1:]:
        total = total + p
    return df.filter(total >= F.lit(thresh))


def replace(df: DataFrame, to_replace: Any, value: Any = "__unset__", subset: Any = None) -> DataFrame:
    """``df.na.replace`` / ``df.replace``."""
    from sparklet.sql import functions as F

    if value == "__unset__":
        if not isinstance(to_replace, dict):
            raise PySparkTypeError(
                "[ARGUMENT_REQUIRED] Argument `value` is required when argument `to_replace` is not a dictionary.",
                "ARGUMENT_REQUIRED",
            )
        value = None
    if not isinstance(to_replace, (*_Scalar, list, tuple, dict)):
        raise not_expected_type("to_replace", "bool, dict, float, int, list, str or tuple", to_replace)
    if value is not None and not isinstance(value, (*_Scalar, list, tuple)):
        raise not_expected_type("value", "bool, float, int, list, None, str or tuple", value)
    if isinstance(to_replace, dict):
        pairs = list(to_replace.items())
    else:
        keys = list(to_replace) if isinstance(to_replace, (list, tuple)) else [to_replace]
        values = list(value) if isinstance(value, (list, tuple)) else [value] * len(keys)
        if len(keys) != len(values):
            raise PySparkValueError(
                "[LENGTH_SHOULD_BE_THE_SAME] to_replace and value should be of the same length, "
                f"got {len(keys)} and {len(values)}.",
                "LENGTH_SHOULD_BE_THE_SAME",
            )
        pairs = list(zip(keys, values))
    kinds = {_kind(k) for k, _ in pairs} | {_kind(v) for _, v in pairs if v is not None}
    if len(kinds - {"none"}) > 1 and not kinds <= {"number", "none"}:
        raise PySparkValueError(
            "[MIXED_TYPE_REPLACEMENT] Mixed type replacements are not supported.", "MIXED_TYPE_REPLACEMENT"
        )
    kind = _kind(pairs[0][0]) if pairs else "none"
    names = _subset_names(df, subset)
    fields = [f for f in _fields(df, names) if _applies(kind, f.dataType)]
    replaced = {}
    for f in fields:
        c = F.col(f"`{f.name}`")
        out: Any = None
        for k, v in pairs:
            # NaN equals NaN here, as in Spark's replace
            hit = F.isnan(c) if isinstance(k, float) and math.isnan(k) else c == _literal(k, f.dataType)
            target = F.lit(None).cast(f.dataType) if v is None else _literal(v, f.dataType)
            out = F.when(hit, target) if out is None else out.when(hit, target)
        if out is not None:
            replaced[f.name] = out.otherwise(c).alias(f.name)
    return _with(df, replaced)


class DataFrameNaFunctions:
    """``df.na``: the missing-value functions of a DataFrame (the same as ``dropna``, ``fillna`` and ``replace``).

    Examples
    --------
    >>> df = spark.createDataFrame([(1, None), (None, "b"), (3, "c")], "n int, s string")
    >>> df.na.fill(0).na.fill("?").orderBy("s").show()
    +---+---+
    |  n|  s|
    +---+---+
    |  1|  ?|
    |  0|  b|
    |  3|  c|
    +---+---+
    <BLANKLINE>
    """

    def __init__(self, df: DataFrame) -> None:
        self.df = df

    def drop(self, how: str = "any", thresh: int | None = None, subset: Any = None) -> DataFrame:
        """Rows without missing values (see :meth:`DataFrame.dropna`).

        Parameters
        ----------
        how : str, default 'any'
            ``any``: drop a row with any null; ``all``: only a row of nulls
        thresh : int, optional
            keep rows with at least this many non-null values (overrides ``how``)
        subset : str or list of str, optional
            the columns to look at (default: all)

        Returns
        -------
        DataFrame
            the rows kept

        Examples
        --------
        >>> df = spark.createDataFrame([(1, None), (None, "b"), (3, "c")], "n int, s string")
        >>> df.na.drop().show()
        +---+---+
        |  n|  s|
        +---+---+
        |  3|  c|
        +---+---+
        <BLANKLINE>
        >>> df.na.drop(subset=["n"]).orderBy("n").show()
        +---+----+
        |  n|   s|
        +---+----+
        |  1|NULL|
        |  3|   c|
        +---+----+
        <BLANKLINE>
        """
        return drop(self.df, how, thresh, subset)

    def fill(self, value: Any, subset: Any = None) -> DataFrame:
        """Missing values filled (see :meth:`DataFrame.fillna`).

        Parameters
        ----------
        value : int, float, str, bool or dict
            the value for nulls of columns of its type, or a value per column name
        subset : str or list of str, optional
            the columns to fill (default: all of the value's type)

        Returns
        -------
        DataFrame
            the rows with nulls filled

        Examples
        --------
        >>> df = spark.createDataFrame([(1, None), (None, "b"), (3, "c")], "n int, s string")
        >>> df.na.fill({"n": 0, "s": "none"}).orderBy("n").show()
        +---+----+
        |  n|   s|
        +---+----+
        |  0|   b|
        |  1|none|
        |  3|   c|
        +---+----+
        <BLANKLINE>
        """
        return fill(self.df, value, subset)

    def replace(self, to_replace: Any, value: Any = "__unset__", subset: Any = None) -> DataFrame:
        """Values replaced (see :meth:`DataFrame.replace`).

        Parameters
        ----------
        to_replace : value, list or dict
            the values to replace, or a dict of old to new values
        value : value or list, optional
            the new values (not with a dict)
        subset : str or list of str, optional
            the columns to look at (default: all of the values' type)

        Returns
        -------
        DataFrame
            the rows with the values replaced

        Examples
        --------
        >>> df = spark.createDataFrame([(1, None), (None, "b"), (3, "c")], "n int, s string")
        >>> df.na.replace("b", "B").orderBy("n").show()
        +----+----+
        |   n|   s|
        +----+----+
        |NULL|   B|
        |   1|NULL|
        |   3|   c|
        +----+----+
        <BLANKLINE>
        """
        return replace(self.df, to_replace, value, subset)


# the class is shown as sparklet.sql.dataframe's (as PySpark's); its
# methods' examples are this module's
__test__ = {"DataFrameNaFunctions": DataFrameNaFunctions}
