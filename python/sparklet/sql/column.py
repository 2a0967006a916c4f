"""The :class:`Column` expression, as :class:`pyspark.sql.Column`."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from sparklet import _native
from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type
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
    raise not_expected_type("col", "Column or str", value)


class Column:
    """A column expression: built from ``df["name"]``, ``F.col``, functions of
    :mod:`sparklet.sql.functions` and Python operators.

    A Column is evaluated only inside a DataFrame (``select``, ``filter``,
    ``withColumn`` ...). Operators build expressions: ``+ - * / % **``,
    comparisons, ``&`` (and), ``|`` (or), ``~`` (not); ``bool(column)`` is an
    error, as in PySpark, since ``and``/``or`` cannot be overloaded.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "a"), (None, "b")], "n INT, s STRING")
    >>> df.select((df.n + 1).alias("m"), df["s"] == "a").collect()
    [Row(m=2, (s = a)=True), Row(m=None, (s = a)=False)]
    >>> df.filter(df.n.isNotNull() & (df.s != "z")).count()
    1
    """

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
        """Equality in which two nulls are equal (SQL's ``<=>``).

        Parameters
        ----------
        other : Column or value
            What to compare with.

        Returns
        -------
        Column
            A boolean column, never null.

        Examples
        --------
        >>> df = spark.createDataFrame([(None, None), (1, None), (1, 1)], "a INT, b INT")
        >>> df.select(df.a.eqNullSafe(df.b), df.a == df.b).collect()
        [Row((a <=> b)=True, (a = b)=None), Row((a <=> b)=False, (a = b)=None), Row((a <=> b)=True, (a = b)=True)]
        """
        return self._bin("<=>", other)

    def alias(self, *alias: str, **kwargs: Any) -> "Column":
        """Name the column (``name`` is the same method).

        Parameters
        ----------
        *alias : str
            One name; or, for a generator that makes several columns
            (``F.inline``, ``F.posexplode``), one name per column.
        **kwargs
            ``metadata``: a dict kept as the output field's
            ``StructField.metadata``.

        Returns
        -------
        Column
            The named column.

        Raises
        ------
        PySparkValueError
            ``ONLY_ALLOWED_FOR_SINGLE_COLUMN`` without a name;
            ``INVALID_KWARGS`` for another keyword.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,)], "n INT")
        >>> df.select((df.n * 2).alias("twice")).columns
        ['twice']
        >>> df.select(df.n.alias("n2", metadata={"unit": "s"})).schema["n2"].metadata
        {'unit': 's'}
        >>> spark.sql("SELECT array(struct(1, 'a')) AS xs").select(F.inline("xs").alias("i", "c")).columns
        ['i', 'c']
        """
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
        """Convert to another type (``astype`` is the same method).

        Casts are ANSI, as Spark 4's by default: a value that does not
        convert is an error (``CAST_INVALID_INPUT``); :meth:`try_cast` gives
        null instead.

        Parameters
        ----------
        dataType : DataType or str
            The type, or its DDL name (``"int"``, ``"decimal(10,2)"``,
            ``"array<string>"``).

        Returns
        -------
        Column
            The converted column; a cast column keeps its name.

        Raises
        ------
        PySparkTypeError
            ``NOT_DATATYPE_OR_STR`` when ``dataType`` is neither.
        NumberFormatException
            ``CAST_INVALID_INPUT``, when the query runs, for text that is not
            a number (``DateTimeException`` for a date or timestamp).

        Examples
        --------
        >>> df = spark.createDataFrame([("1",), ("2.5",)], "s STRING")
        >>> df.select(df.s.cast("double")).collect()
        [Row(s=1.0), Row(s=2.5)]
        >>> df.select(df.s.cast("int")).collect()
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.NumberFormatException: [CAST_INVALID_INPUT] The value '2.5' of the type "STRING" cannot be cast to "INT" because it is malformed. ...
        """
        dt = _parse_datatype_string(dataType) if isinstance(dataType, str) else dataType
        if not isinstance(dt, DataType):
            raise not_expected_type("dataType", "DataType or str", dataType)
        return Column(self._expr.cast(dt._to_arrow()))

    astype = cast

    def try_cast(self, dataType: DataType | str) -> "Column":
        """Convert to another type, null where a value does not convert.

        Parameters
        ----------
        dataType : DataType or str
            The type, or its DDL name.

        Returns
        -------
        Column
            The converted column.

        Examples
        --------
        >>> df = spark.createDataFrame([("1",), ("x",)], "s STRING")
        >>> df.select(df.s.try_cast("int").alias("n")).collect()
        [Row(n=1), Row(n=None)]
        """
        dt = _parse_datatype_string(dataType) if isinstance(dataType, str) else dataType
        if not isinstance(dt, DataType):
            raise not_expected_type("dataType", "DataType or str", dataType)
        return Column(self._expr.try_cast(dt._to_arrow()))

    def bitwiseAND(self, other: Any) -> "Column":
        """Bitwise AND of two integral columns.

        Parameters
        ----------
        other : Column or int
            The other operand.

        Returns
        -------
        Column
            ``self & other`` bit by bit.

        Examples
        --------
        >>> df = spark.createDataFrame([(12, 10)], "a INT, b INT")
        >>> df.select(df.a.bitwiseAND(df.b)).collect()
        [Row((a & b)=8)]
        """
        return self._bin("&", other)

    def bitwiseOR(self, other: Any) -> "Column":
        """Bitwise OR of two integral columns.

        Parameters
        ----------
        other : Column or int
            The other operand.

        Returns
        -------
        Column
            ``self | other`` bit by bit.

        Examples
        --------
        >>> df = spark.createDataFrame([(12, 10)], "a INT, b INT")
        >>> df.select(df.a.bitwiseOR(df.b)).collect()
        [Row((a | b)=14)]
        """
        return self._bin("|", other)

    def bitwiseXOR(self, other: Any) -> "Column":
        """Bitwise exclusive OR of two integral columns.

        Parameters
        ----------
        other : Column or int
            The other operand.

        Returns
        -------
        Column
            ``self ^ other`` bit by bit.

        Examples
        --------
        >>> df = spark.createDataFrame([(12, 10)], "a INT, b INT")
        >>> df.select(df.a.bitwiseXOR(df.b)).collect()
        [Row((a ^ b)=6)]
        """
        return self._bin("^", other)

    def isNaN(self) -> "Column":
        """True where a floating-point value is NaN (false for null).

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([(float("nan"),), (1.0,), (None,)], "x DOUBLE")
        >>> df.select(df.x.isNaN()).collect()
        [Row(isnan(x)=True), Row(isnan(x)=False), Row(isnan(x)=False)]
        """
        from sparklet.sql.functions._core import _call

        return _call("isnan", self)

    def isNull(self) -> "Column":
        """True where the value is null.

        Returns
        -------
        Column
            A boolean column, never null.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,), (None,)], "n INT")
        >>> df.filter(df.n.isNull()).count()
        1
        """
        return Column(self._expr.is_null())

    def isNotNull(self) -> "Column":
        """True where the value is not null.

        Returns
        -------
        Column
            A boolean column, never null.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,), (None,)], "n INT")
        >>> df.filter(df.n.isNotNull()).collect()
        [Row(n=1)]
        """
        return Column(self._expr.is_not_null())

    def isin(self, *values: Any) -> "Column":
        """True where the value equals one of the values given.

        Parameters
        ----------
        *values : value, Column or list
            The values, as arguments or one list.

        Returns
        -------
        Column
            A boolean column (null for a null value, as SQL's ``IN``).

        Examples
        --------
        >>> df = spark.createDataFrame([("a",), ("b",), ("c",)], "s STRING")
        >>> df.filter(df.s.isin("a", "c")).collect()
        [Row(s='a'), Row(s='c')]
        >>> df.filter(df.s.isin(["b"])).count()
        1
        """
        if len(values) == 1 and isinstance(values[0], (list, tuple, set)):
            values = tuple(values[0])
        return Column(self._expr.isin([_to_expr(v) for v in values]))

    def like(self, pattern: str) -> "Column":
        r"""SQL ``LIKE``: ``%`` matches any text, ``_`` one character.

        Parameters
        ----------
        pattern : str
            The pattern (``\`` escapes a wildcard).

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("Alice",), ("Bob",)], "name STRING")
        >>> df.filter(df.name.like("Al%")).collect()
        [Row(name='Alice')]
        """
        return Column(self._expr.like(pattern, False))

    def ilike(self, pattern: str) -> "Column":
        """SQL ``ILIKE``: ``LIKE`` ignoring case.

        Parameters
        ----------
        pattern : str
            The pattern.

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("Alice",), ("Bob",)], "name STRING")
        >>> df.filter(df.name.ilike("%ALI%")).collect()
        [Row(name='Alice')]
        """
        return Column(self._expr.like(pattern, True))

    def rlike(self, pattern: str) -> "Column":
        """True where a regular expression matches anywhere in the value.

        Parameters
        ----------
        pattern : str
            The regular expression (Java's syntax, as Spark).

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("Alice",), ("Bob",)], "name STRING")
        >>> df.filter(df.name.rlike("^B.b$")).collect()
        [Row(name='Bob')]
        """
        return Column(self._expr.rlike(pattern))

    def withField(self, fieldName: str, col: "Column") -> "Column":
        """The struct with a field added or replaced.

        Parameters
        ----------
        fieldName : str
            The field's name; ``"a.b"`` for a field of a nested struct.
        col : Column
            Its value.

        Returns
        -------
        Column
            The new struct.

        Raises
        ------
        PySparkTypeError
            ``NOT_STR`` or ``NOT_COLUMN`` for arguments of other types.

        Examples
        --------
        >>> df = spark.sql("SELECT named_struct('a', 1, 'b', 2) AS s")
        >>> df.select(df.s.withField("c", F.lit(3)).alias("s")).first().s
        Row(a=1, b=2, c=3)
        >>> df.select(df.s.withField("a", F.lit(9)).alias("s")).first().s
        Row(a=9, b=2)
        """
        if not isinstance(fieldName, str):
            raise not_expected_type("fieldName", "str", fieldName)
        if not isinstance(col, Column):
            raise not_expected_type("col", "Column", col)
        return Column(self._expr.with_field(fieldName, col._expr))

    def dropFields(self, *fieldNames: str) -> "Column":
        """The struct without the fields named.

        Parameters
        ----------
        *fieldNames : str
            The fields; ``"a.b"`` for a field of a nested struct.

        Returns
        -------
        Column
            The new struct.

        Examples
        --------
        >>> df = spark.sql("SELECT named_struct('a', 1, 'b', 2, 'c', 3) AS s")
        >>> df.select(df.s.dropFields("a", "c").alias("s")).first().s
        Row(b=2)
        """
        return Column(self._expr.drop_fields(list(fieldNames)))

    def transform(self, f: "Callable[[Column], Column]") -> "Column":
        """Apply a function of a column: ``c.transform(f)`` is ``f(c)``, so
        functions chain left to right.

        Parameters
        ----------
        f : callable
            Takes this Column, returns a Column.

        Returns
        -------
        Column
            ``f(self)``.

        Examples
        --------
        >>> df = spark.createDataFrame([("  hi ",)], "s STRING")
        >>> df.select(df.s.transform(F.trim).transform(F.upper).alias("s")).collect()
        [Row(s='HI')]
        """
        return f(self)

    def between(self, lowerBound: Any, upperBound: Any) -> "Column":
        """True where ``lowerBound <= value <= upperBound`` (both ends included).

        Parameters
        ----------
        lowerBound : Column or value
            The lower end.
        upperBound : Column or value
            The upper end.

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.range(5)
        >>> df.filter(df.id.between(1, 3)).collect()
        [Row(id=1), Row(id=2), Row(id=3)]
        """
        within: Column = (self >= lowerBound) & (self <= upperBound)
        return within

    def startswith(self, other: Any) -> "Column":
        """True where the text starts with ``other``.

        Parameters
        ----------
        other : Column or str
            The prefix.

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("spark",), ("sparklet",), ("flink",)], "s STRING")
        >>> df.filter(df.s.startswith("spark")).count()
        2
        """
        from sparklet.sql.functions._core import _call

        return _call("starts_with", self, _as_col(other))

    def endswith(self, other: Any) -> "Column":
        """True where the text ends with ``other``.

        Parameters
        ----------
        other : Column or str
            The suffix.

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("spark",), ("sparklet",)], "s STRING")
        >>> df.filter(df.s.endswith("let")).collect()
        [Row(s='sparklet')]
        """
        from sparklet.sql.functions._core import _call

        return _call("ends_with", self, _as_col(other))

    def contains(self, other: Any) -> "Column":
        """True where the text contains ``other``.

        Parameters
        ----------
        other : Column or str
            The text looked for.

        Returns
        -------
        Column
            A boolean column.

        Examples
        --------
        >>> df = spark.createDataFrame([("spark",), ("flink",)], "s STRING")
        >>> df.filter(df.s.contains("ar")).collect()
        [Row(s='spark')]
        """
        from sparklet.sql.functions._core import _call

        return _call("strpos", self, _as_col(other)) > 0

    def substr(self, startPos: int | "Column", length: int | "Column") -> "Column":
        """Part of a text (or binary) value.

        Parameters
        ----------
        startPos : int or Column
            The first character, counted from 1 (negative: from the end).
        length : int or Column
            How many characters.

        Returns
        -------
        Column
            The substring.

        Raises
        ------
        PySparkTypeError
            ``NOT_SAME_TYPE`` when one is an int and the other a Column.

        Examples
        --------
        >>> df = spark.createDataFrame([("sparklet",)], "s STRING")
        >>> df.select(df.s.substr(1, 5).alias("head")).collect()
        [Row(head='spark')]
        """
        from sparklet.sql.functions._core import _call

        return _call("substr", self, _as_col(startPos), _as_col(length))

    def getField(self, name: str) -> "Column":
        """A field of a struct column.

        Parameters
        ----------
        name : str
            The field's name.

        Returns
        -------
        Column
            The field, named ``struct.field``.

        Examples
        --------
        >>> df = spark.sql("SELECT named_struct('a', 1, 'b', 'x') AS s")
        >>> df.select(df.s.getField("b")).collect()
        [Row(s.b='x')]
        """
        return Column(self._expr.get_field(name))

    def getItem(self, key: Any) -> "Column":
        """An array's element, a map's value, or a struct's field.

        Parameters
        ----------
        key : int, str or Column
            An array's 0-based position (past the end: ``INVALID_ARRAY_INDEX``
            when the query runs; ``F.get`` gives null instead), a map's key
            (null when absent), or a struct field's name.

        Returns
        -------
        Column
            The element, named ``col[key]`` (a struct's field by its name).

        Examples
        --------
        >>> df = spark.sql("SELECT array(10, 20) AS xs, map('k', 'v') AS m")
        >>> df.select(df.xs.getItem(1), df.m.getItem("k"), df.m["absent"]).collect()
        [Row(xs[1]=20, m[k]='v', m[absent]=None)]
        """
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
        """Compute this window function or aggregate over a window.

        Parameters
        ----------
        window : WindowSpec
            Partitioning, ordering and frame (:class:`~sparklet.sql.Window`).

        Returns
        -------
        Column
            The value for each row.

        Examples
        --------
        >>> from sparklet.sql import Window
        >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], "k STRING, v INT")
        >>> w = Window.partitionBy("k").orderBy("v")
        >>> df.select("k", "v", F.row_number().over(w).alias("n"), F.sum("v").over(w).alias("running")).collect()
        [Row(k='a', v=1, n=1, running=1), Row(k='a', v=3, n=2, running=4), Row(k='b', v=5, n=1, running=5)]
        """
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
        """Ascending order for ``orderBy``/``sort``, nulls first (as Spark).

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.asc()).collect()
        [Row(n=None), Row(n=1), Row(n=2)]
        """
        return Column(self._expr.sorted(True, True))

    def asc_nulls_first(self) -> "Column":
        """Ascending order, nulls first.

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.asc_nulls_first()).collect()
        [Row(n=None), Row(n=1), Row(n=2)]
        """
        return Column(self._expr.sorted(True, True))

    def asc_nulls_last(self) -> "Column":
        """Ascending order, nulls last.

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.asc_nulls_last()).collect()
        [Row(n=1), Row(n=2), Row(n=None)]
        """
        return Column(self._expr.sorted(True, False))

    def desc(self) -> "Column":
        """Descending order, nulls last (as Spark).

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.desc()).collect()
        [Row(n=2), Row(n=1), Row(n=None)]
        """
        return Column(self._expr.sorted(False, False))

    def desc_nulls_last(self) -> "Column":
        """Descending order, nulls last.

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.desc_nulls_last()).collect()
        [Row(n=2), Row(n=1), Row(n=None)]
        """
        return Column(self._expr.sorted(False, False))

    def desc_nulls_first(self) -> "Column":
        """Descending order, nulls first.

        Returns
        -------
        Column
            A sort key.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,), (None,), (1,)], "n INT")
        >>> df.orderBy(df.n.desc_nulls_first()).collect()
        [Row(n=None), Row(n=2), Row(n=1)]
        """
        return Column(self._expr.sorted(False, True))

    def when(self, condition: "Column", value: Any) -> "Column":
        """Add a branch to a ``F.when(...)`` chain.

        Parameters
        ----------
        condition : Column
            A boolean column.
        value : Column or value
            The result where ``condition`` is true and no earlier branch was.

        Returns
        -------
        Column
            The chain so far.

        Raises
        ------
        PySparkValueError
            When this column is not a ``F.when`` chain, or already has its
            ``otherwise``.

        Examples
        --------
        >>> df = spark.range(3)
        >>> size = F.when(df.id == 0, "none").when(df.id == 1, "one").otherwise("many")
        >>> df.select(size.alias("size")).collect()
        [Row(size='none'), Row(size='one'), Row(size='many')]
        """
        return Column(self._expr.when(condition._expr, _to_expr(value)))

    def otherwise(self, value: Any) -> "Column":
        """The value where no branch of a ``F.when(...)`` chain matched (null
        without it).

        Parameters
        ----------
        value : Column or value
            The value.

        Returns
        -------
        Column
            The finished chain.

        Raises
        ------
        PySparkValueError
            When this column is not a ``F.when`` chain, or already has its
            ``otherwise``.

        Examples
        --------
        >>> df = spark.range(2)
        >>> df.select(F.when(df.id > 0, "positive").otherwise("zero").alias("sign")).collect()
        [Row(sign='zero'), Row(sign='positive')]
        """
        return Column(self._expr.otherwise(_to_expr(value)))


def _as_col(value: Any) -> Column:
    """A Column for a Column or a literal value (strings are literals here)."""
    if isinstance(value, Column):
        return value
    return Column(_lit_expr(value))
