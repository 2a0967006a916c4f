"""The :class:`Column` expression, as :class:`pyspark.sql.Column`."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from sparklet import _native
from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.sql.types import DataType, _parse_datatype_string

__all__ = ["Column"]

_INT64 = (-(2**63), 2**63 - 1)


def _lit_expr(value: Any) -> Any:
    """Return the native literal expression for a Python value."""
    if value is None:
        return _native.null_of(pa.null())
    if isinstance(value, (bool, float, str)) or (isinstance(value, int) and _INT64[0] <= value <= _INT64[1]):
        # built natively: pyarrow's converters import pandas (~0.4 s)
        return _native.lit_plain(value)
    if isinstance(value, int):
        arr = pa.array([value])  # beyond BIGINT: pyarrow's error
    elif isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        arr = pa.array([value], pa.timestamp("us", tz="UTC"))
    elif isinstance(value, datetime.date):
        arr = pa.array([value], pa.date32())
    elif isinstance(value, decimal.Decimal):
        arr = pa.array([value])
    elif isinstance(value, (bytes, bytearray)):
        arr = pa.array([bytes(value)], pa.binary())
    elif isinstance(value, (list, tuple)):
        arr = pa.array([list(value)])
    else:
        raise PySparkTypeError(
            f"[UNSUPPORTED_LITERAL] Unsupported literal type {type(value).__name__}: {value!r}.",
            "UNSUPPORTED_LITERAL",
        )
    return _native.lit_array(arr)


def _to_expr(value: Any) -> Any:
    """A Column's native expression, or a literal for a plain value."""
    if isinstance(value, Column):
        return value._expr
    return _lit_expr(value)


def _to_col(value: "Column" | str) -> "Column":
    """A Column for a Column or a column name."""
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return Column(_native.col(value))
    raise PySparkTypeError(
        f"[NOT_COLUMN_OR_STR] Argument `col` should be a Column or str, got {type(value).__name__}.",
        "NOT_COLUMN_OR_STR",
    )


class Column:
    """A column expression, built with :mod:`sparklet.sql.functions` or ``df["name"]``."""

    def __init__(self, expr: Any) -> None:
        self._expr = expr

    def __repr__(self) -> str:
        return repr(self._expr)

    def _bin(self, op: str, other: Any) -> "Column":
        return Column(self._expr.binary(op, _to_expr(other)))

    def _rbin(self, op: str, other: Any) -> "Column":
        return Column(_to_expr(other).binary(op, self._expr))

    def __add__(self, o: Any) -> "Column":
        return self._bin("+", o)

    def __radd__(self, o: Any) -> "Column":
        return self._rbin("+", o)

    def __sub__(self, o: Any) -> "Column":
        return self._bin("-", o)

    def __rsub__(self, o: Any) -> "Column":
        return self._rbin("-", o)

    def __mul__(self, o: Any) -> "Column":
        return self._bin("*", o)

    def __rmul__(self, o: Any) -> "Column":
        return self._rbin("*", o)

    def __truediv__(self, o: Any) -> "Column":
        return self._bin("/", o)

    def __rtruediv__(self, o: Any) -> "Column":
        return self._rbin("/", o)

    def __mod__(self, o: Any) -> "Column":
        return self._bin("%", o)

    def __rmod__(self, o: Any) -> "Column":
        return self._rbin("%", o)

    def __pow__(self, o: Any) -> "Column":
        from sparklet.sql.functions import pow as power

        return power(self, o)

    def __rpow__(self, o: Any) -> "Column":
        from sparklet.sql.functions import pow as power

        return power(o, self)

    def __eq__(self, o: Any) -> "Column":  # type: ignore[override]
        return self._bin("==", o)

    def __ne__(self, o: Any) -> "Column":  # type: ignore[override]
        return self._bin("!=", o)

    def __lt__(self, o: Any) -> "Column":
        return self._bin("<", o)

    def __le__(self, o: Any) -> "Column":
        return self._bin("<=", o)

    def __gt__(self, o: Any) -> "Column":
        return self._bin(">", o)

    def __ge__(self, o: Any) -> "Column":
        return self._bin(">=", o)

    def __and__(self, o: Any) -> "Column":
        return self._bin("and", o)

    def __rand__(self, o: Any) -> "Column":
        return self._rbin("and", o)

    def __or__(self, o: Any) -> "Column":
        return self._bin("or", o)

    def __ror__(self, o: Any) -> "Column":
        return self._rbin("or", o)

    def __invert__(self) -> "Column":
        return Column(self._expr.not_())

    def __neg__(self) -> "Column":
        return Column(self._expr.negate())

    def __bool__(self) -> bool:
        raise PySparkValueError(
            "[CANNOT_CONVERT_COLUMN_INTO_BOOL] Cannot convert column into bool: please use '&' for 'and', "
            "'|' for 'or', '~' for 'not' when building DataFrame boolean expressions.",
            "CANNOT_CONVERT_COLUMN_INTO_BOOL",
        )

    __hash__ = None  # type: ignore[assignment]

    def eqNullSafe(self, other: Any) -> "Column":
        """Equality that treats two nulls as equal (``<=>``)."""
        return self._bin("<=>", other)

    def alias(self, *alias: str, **kwargs: Any) -> "Column":
        """Name the column (a generator's columns, one name each:
        ``F.inline("a").alias("x", "y")``); ``metadata=`` (a dict) becomes
        the output field's ``StructField.metadata``."""
        if len(alias) > 1:
            return Column(_native.multi_alias(self._expr, list(alias)))
        if len(alias) != 1:
            raise PySparkValueError(
                "[ONLY_ALLOWED_FOR_SINGLE_COLUMN] alias takes one name.", "ONLY_ALLOWED_FOR_SINGLE_COLUMN"
            )
        metadata = kwargs.pop("metadata", None)
        if kwargs:
            raise PySparkValueError(
                f"[INVALID_KWARGS] alias takes only the keyword argument metadata, not {sorted(kwargs)}.",
                "INVALID_KWARGS",
            )
        if metadata is not None:
            import json

            return Column(self._expr.alias(alias[0], json.dumps(metadata)))
        return Column(self._expr.alias(alias[0]))

    name = alias

    def cast(self, dataType: DataType | str) -> "Column":
        """Convert to ``dataType`` (a DataType or a DDL name such as ``"int"``)."""
        dt = _parse_datatype_string(dataType) if isinstance(dataType, str) else dataType
        if not isinstance(dt, DataType):
            raise PySparkTypeError(
                f"[NOT_DATATYPE_OR_STR] Argument `dataType` should be a DataType or str, got {type(dataType).__name__}.",
                "NOT_DATATYPE_OR_STR",
            )
        return Column(self._expr.cast(dt._to_arrow()))

    astype = cast

    def try_cast(self, dataType: DataType | str) -> "Column":
        """Convert to ``dataType``, null where a value does not convert."""
        dt = _parse_datatype_string(dataType) if isinstance(dataType, str) else dataType
        if not isinstance(dt, DataType):
            raise PySparkTypeError(
                f"[NOT_DATATYPE_OR_STR] Argument `dataType` should be a DataType or str, got {type(dataType).__name__}.",
                "NOT_DATATYPE_OR_STR",
            )
        return Column(self._expr.try_cast(dt._to_arrow()))

    def bitwiseAND(self, other: Any) -> "Column":
        """Bitwise AND with ``other``."""
        return self._bin("&", other)

    def bitwiseOR(self, other: Any) -> "Column":
        """Bitwise OR with ``other``."""
        return self._bin("|", other)

    def bitwiseXOR(self, other: Any) -> "Column":
        """Bitwise XOR with ``other``."""
        return self._bin("^", other)

    def isNaN(self) -> "Column":
        """True where the value is NaN."""
        from sparklet.sql.functions._core import _call

        return _call("isnan", self)

    def isNull(self) -> "Column":
        """True where the value is null."""
        return Column(self._expr.is_null())

    def isNotNull(self) -> "Column":
        """True where the value is not null."""
        return Column(self._expr.is_not_null())

    def isin(self, *values: Any) -> "Column":
        """True where the value is one of ``values``."""
        if len(values) == 1 and isinstance(values[0], (list, tuple, set)):
            values = tuple(values[0])
        return Column(self._expr.isin([_to_expr(v) for v in values]))

    def like(self, pattern: str) -> "Column":
        """SQL LIKE match (``%`` and ``_`` wildcards)."""
        return Column(self._expr.like(pattern, False))

    def ilike(self, pattern: str) -> "Column":
        """Case-insensitive LIKE."""
        return Column(self._expr.like(pattern, True))

    def rlike(self, pattern: str) -> "Column":
        """Regular-expression match anywhere in the value."""
        return Column(self._expr.rlike(pattern))

    def withField(self, fieldName: str, col: "Column") -> "Column":
        """The struct with field ``fieldName`` (``"a.b"`` for a nested one)
        added or replaced by ``col``."""
        if not isinstance(fieldName, str):
            raise PySparkTypeError(
                f"[NOT_STR] Argument `fieldName` should be a str, got {type(fieldName).__name__}.",
                "NOT_STR",
            )
        if not isinstance(col, Column):
            raise PySparkTypeError(
                f"[NOT_COLUMN] Argument `col` should be a Column, got {type(col).__name__}.", "NOT_COLUMN"
            )
        return Column(self._expr.with_field(fieldName, col._expr))

    def dropFields(self, *fieldNames: str) -> "Column":
        """The struct without the fields named (``"a.b"`` for a nested one)."""
        return Column(self._expr.drop_fields(list(fieldNames)))

    def transform(self, f: "Callable[[Column], Column]") -> "Column":
        """``f(self)``: chains functions of a column (``c.transform(trim).transform(upper)``)."""
        return f(self)

    def between(self, lowerBound: Any, upperBound: Any) -> "Column":
        """True where ``lowerBound <= value <= upperBound`` (as Spark
        builds it: ``(v >= lower) AND (v <= upper)``)."""
        within: Column = (self >= lowerBound) & (self <= upperBound)
        return within

    def startswith(self, other: Any) -> "Column":
        """True where the string starts with ``other``."""
        from sparklet.sql.functions._core import _call

        return _call("starts_with", self, _as_col(other))

    def endswith(self, other: Any) -> "Column":
        """True where the string ends with ``other``."""
        from sparklet.sql.functions._core import _call

        return _call("ends_with", self, _as_col(other))

    def contains(self, other: Any) -> "Column":
        """True where the string contains ``other``."""
        from sparklet.sql.functions._core import _call

        return _call("strpos", self, _as_col(other)) > 0

    def substr(self, startPos: int | "Column", length: int | "Column") -> "Column":
        """Substring from 1-based ``startPos`` of ``length`` characters."""
        from sparklet.sql.functions._core import _call

        return _call("substr", self, _as_col(startPos), _as_col(length))

    def getField(self, name: str) -> "Column":
        """A field of a struct column."""
        return Column(self._expr.get_field(name))

    def getItem(self, key: Any) -> "Column":
        """An array's element (0-based), a map's value by key, or a struct's
        field by name (named ``col[key]``, a struct's field ``col.key``)."""
        return Column(self._expr.get_item(_to_expr(key)))

    def __getitem__(self, key: Any) -> "Column":
        if isinstance(key, slice):
            if key.step is not None:
                raise PySparkValueError("[SLICE_WITH_STEP] Slice with step is not supported.", "SLICE_WITH_STEP")
            return self.substr(key.start, key.stop)
        return self.getItem(key)

    def __getattr__(self, item: str) -> "Column":
        if item.startswith("_"):
            raise AttributeError(item)
        return self.getItem(item)

    def over(self, window: Any) -> "Column":
        """This window function or aggregate computed over ``window`` (a
        :class:`~sparklet.sql.window.WindowSpec`)."""
        from sparklet.sql.window import WindowSpec

        if not isinstance(window, WindowSpec):
            raise PySparkTypeError(
                f"[NOT_EXPECTED_TYPE] Argument `window` should be WindowSpec, got {type(window).__name__}.",
                "NOT_EXPECTED_TYPE",
            )
        return Column(
            self._expr.over(
                [c._expr for c in window._partition_by],
                [c._expr for c in window._order_by],
                window._frame,
            )
        )

    def asc(self) -> "Column":
        """Ascending sort order, nulls first."""
        return Column(self._expr.sorted(True, True))

    def asc_nulls_first(self) -> "Column":
        """Ascending sort order, nulls first."""
        return Column(self._expr.sorted(True, True))

    def asc_nulls_last(self) -> "Column":
        """Ascending sort order, nulls last."""
        return Column(self._expr.sorted(True, False))

    def desc(self) -> "Column":
        """Descending sort order, nulls last."""
        return Column(self._expr.sorted(False, False))

    def desc_nulls_last(self) -> "Column":
        """Descending sort order, nulls last."""
        return Column(self._expr.sorted(False, False))

    def desc_nulls_first(self) -> "Column":
        """Descending sort order, nulls first."""
        return Column(self._expr.sorted(False, True))

    def when(self, condition: "Column", value: Any) -> "Column":
        """Add a branch to a ``when`` chain."""
        return Column(self._expr.when(condition._expr, _to_expr(value)))

    def otherwise(self, value: Any) -> "Column":
        """The value when no ``when`` branch matched."""
        return Column(self._expr.otherwise(_to_expr(value)))


def _as_col(value: Any) -> Column:
    """A Column for a Column or a literal value (strings are literals here)."""
    if isinstance(value, Column):
        return value
    return Column(_lit_expr(value))
