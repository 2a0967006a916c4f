"""Column functions, as :mod:`pyspark.sql.functions`.

String arguments name columns (``F.upper("name")``) unless the parameter is
a pattern, format or literal by nature (``F.regexp_extract(c, "(\\d+)", 1)``).
"""

from __future__ import annotations

from typing import Any, Union

from sparklet import _native
from sparklet.sql import _remote
from sparklet.sql.column import Column, _as_col, _lit_expr, _to_col
from sparklet.sql.types import StructType, to_struct_type

ColumnOrName = Union[Column, str]


def _session_native() -> Any:
    from sparklet.sql.session import SparkSession

    return SparkSession._require_active()._native


def _call(name: str, *cols: Column) -> Column:
    return Column(_native.call(_session_native(), name, [c._expr for c in cols]))


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
    """A column from SQL text, resolved against the DataFrame it is used on."""
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


def coalesce(*cols: ColumnOrName) -> Column:
    """The first non-null value."""
    return _call("coalesce", *[_to_col(c) for c in cols])


def isnull(col: ColumnOrName) -> Column:
    """True where the value is null."""
    return _to_col(col).isNull()


def isnan(col: ColumnOrName) -> Column:
    """True where the value is NaN."""
    return _call("isnan", _to_col(col))


def _unary(name: str):  # type: ignore[no-untyped-def]
    def f(col: ColumnOrName) -> Column:
        return _call(name, _to_col(col))

    f.__name__ = name
    f.__doc__ = f"Spark's ``{name}`` function."
    return f


upper = _unary("upper")
lower = _unary("lower")
trim = _unary("trim")
ltrim = _unary("ltrim")
rtrim = _unary("rtrim")
length = _unary("length")
reverse = _unary("reverse")
initcap = _unary("initcap")
abs = _unary("abs")  # noqa: A001 - PySpark's name
sqrt = _unary("sqrt")
exp = _unary("exp")
log10 = _unary("log10")
floor = _unary("floor")
ceil = _unary("ceil")
signum = _unary("signum")
to_json = _unary("to_json")
md5 = _unary("md5")
size = _unary("size")


def _part(part: str):  # type: ignore[no-untyped-def]
    def f(col: ColumnOrName) -> Column:
        return _call("date_part", lit(part), _to_col(col)).cast("int")

    f.__doc__ = f"The {part} of a date or timestamp."
    return f


year = _part("year")
month = _part("month")
dayofmonth = _part("day")
hour = _part("hour")
minute = _part("minute")
second = _part("second")


def log(arg1: ColumnOrName | float, arg2: ColumnOrName | None = None) -> Column:
    """Natural logarithm, or ``log(base, col)``."""
    if arg2 is None:
        return _call("ln", _to_col(arg1))  # type: ignore[arg-type]
    return _call("log", lit(arg1), _to_col(arg2))


def round(col: ColumnOrName, scale: int = 0) -> Column:  # noqa: A001
    """Round to ``scale`` decimal places (half up)."""
    return _call("round", _to_col(col), lit(scale))


def pow(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:  # noqa: A001
    """``col1`` raised to ``col2``."""
    a = _to_col(col1) if isinstance(col1, (str, Column)) else lit(float(col1))
    b = _to_col(col2) if isinstance(col2, (str, Column)) else lit(float(col2))
    return _call("power", a, b)


def concat(*cols: ColumnOrName) -> Column:
    """Concatenate strings; null if any input is null."""
    return _call("concat", *[_to_col(c) for c in cols])


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    """Concatenate with a separator, skipping nulls."""
    return _call("concat_ws", lit(sep), *[_to_col(c) for c in cols])


def split(str: ColumnOrName, pattern: str, limit: int = -1) -> Column:  # noqa: A002
    """Split around matches of the regular expression ``pattern``."""
    return _call("split", _to_col(str), lit(pattern), lit(limit))


def substring(str: ColumnOrName, pos: int, len: int) -> Column:  # noqa: A002
    """Substring from 1-based ``pos`` of ``len`` characters."""
    return _call("substring", _to_col(str), lit(pos), lit(len))


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002
    """Group ``idx`` of the first match of ``pattern`` ("" when none)."""
    return _call("regexp_extract", _to_col(str), lit(pattern), lit(idx))


def regexp_replace(string: ColumnOrName, pattern: str | Column, replacement: str | Column) -> Column:
    """Replace every match of ``pattern`` with ``replacement``."""
    return _call("regexp_replace", _to_col(string), _as_col(pattern), _as_col(replacement))


def to_timestamp(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """Parse a string into a timestamp (Spark's datetime patterns)."""
    args = [_to_col(col)] + ([lit(format)] if format is not None else [])
    return _call("to_timestamp", *args)


def to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """Parse a string (or truncate a timestamp) into a date."""
    args = [_to_col(col)] + ([lit(format)] if format is not None else [])
    return _call("to_date", *args)


def date_format(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    """Format a date or timestamp with a Spark datetime pattern."""
    return _call("date_format", _to_col(date), lit(format))


def current_timestamp() -> Column:
    """The current time (the same within one query)."""
    return _call("current_timestamp")


def current_date() -> Column:
    """The current date."""
    return _call("current_date")


def unix_timestamp(timestamp: ColumnOrName | None = None, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002
    """Seconds since the epoch (now, or of ``timestamp`` parsed with ``format``)."""
    if timestamp is None:
        return _call("unix_timestamp")
    return _call("unix_timestamp", _to_col(timestamp), lit(format))


def from_unixtime(timestamp: ColumnOrName, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002
    """Format seconds since the epoch as a string."""
    return _call("from_unixtime", _to_col(timestamp), lit(format))


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:  # noqa: A002
    """Truncate a timestamp to ``format`` (year, month, day, hour, ...)."""
    return _call("date_trunc", lit(format), _to_col(timestamp))


def from_json(col: ColumnOrName, schema: StructType | str, options: dict | None = None) -> Column:
    """Parse a JSON string column into a struct (null when malformed)."""
    st = to_struct_type(schema)
    return Column(_native.from_json(_to_col(col)._expr, st._to_arrow()))


def get_json_object(col: ColumnOrName, path: str) -> Column:
    """Extract a value from a JSON string by path (``$.a.b[0]``)."""
    return _call("get_json_object", _to_col(col), lit(path))


def _micros(interval: str, what: str) -> int:
    if not isinstance(interval, str) or not interval.strip():
        from sparklet.errors import PySparkTypeError

        raise PySparkTypeError(
            f"[NOT_STR] Argument `{what}` should be a str, got {type(interval).__name__}.", "NOT_STR"
        )
    return int(_native.parse_interval_ms(interval)) * 1000


def window(
    timeColumn: ColumnOrName,
    windowDuration: str,
    slideDuration: str | None = None,
    startTime: str | None = None,
) -> Column:
    """Event-time windows of ``windowDuration`` (sliding every ``slideDuration``).

    The column is a struct with ``start`` and ``end``, named ``window``.
    Sliding windows give each row one window per overlapping window.
    """
    size = _micros(windowDuration, "windowDuration")
    slide = _micros(slideDuration, "slideDuration") if slideDuration is not None else size
    start = _micros(startTime, "startTime") if startTime is not None else 0
    if slide > size:
        from sparklet.errors import AnalysisException

        # Spark's analyzer refuses it in these words (sparklet: at once)
        name = timeColumn if isinstance(timeColumn, str) else "timeColumn"
        condition = "DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION"
        raise AnalysisException(
            f'[{condition}] Cannot resolve "window({name}, {size}, {slide}, {start})" due to data type mismatch: '
            f"The `slide_duration`({slide}L) must be <= the `window_duration`({size}L).",
            condition,
        )
    args = [_to_col(timeColumn), lit(size), lit(slide), lit(start)]
    if slide == size:
        return _call("window", *args).alias("window")
    return Column(_native.explode(_call("window_list", *args)._expr)).alias("window")


def cumulate_window(timeColumn: ColumnOrName, stepDuration: str, maxSize: str, startTime: str | None = None) -> Column:
    """Cumulating windows (Flink's CUMULATE; not in PySpark): each
    ``maxSize`` period has windows from its start growing by
    ``stepDuration`` up to ``maxSize``, and a row is in every one of them
    that ends after it. The column is a ``window`` struct, as
    :func:`window`'s, so ``groupBy`` with a watermark emits each window once
    the watermark passes its end (e.g. hourly totals updated every minute).
    """
    step = _micros(stepDuration, "stepDuration")
    size = _micros(maxSize, "maxSize")
    start = _micros(startTime, "startTime") if startTime is not None else 0
    args = [_to_col(timeColumn), lit(step), lit(size), lit(start)]
    return Column(_native.explode(_call("window_cumulate", *args)._expr)).alias("window")


def session_window(timeColumn: ColumnOrName, gapDuration: str | Column) -> Column:
    """Session windows: rows of a key whose event times are less than
    ``gapDuration`` apart fall in one session (``start`` to last event + gap).

    ``gapDuration`` is an interval string or a Column giving each row's gap
    (e.g. ``F.when(F.col("kind") == "slow", "1 minute").otherwise("10 seconds")``);
    rows with a gap that is not positive get no session.
    """
    gap = lit(_micros(gapDuration, "gapDuration")) if isinstance(gapDuration, str) else gapDuration
    return _call("session_window", _to_col(timeColumn), gap).alias("session_window")


def window_time(windowColumn: ColumnOrName) -> Column:
    """The event time of a window: its end minus one microsecond (named
    ``window_time(window)`` after its argument, as in Spark)."""
    return _call("window_time", _to_col(windowColumn))


def explode(col: ColumnOrName) -> Column:
    """One row per array element (rows with null or empty arrays are dropped)."""
    return Column(_native.explode(_to_col(col)._expr))


def struct(*cols: ColumnOrName) -> Column:
    """A struct column of the given columns."""
    args = []
    for c in cols:
        cc = _to_col(c)
        args.append(lit(c if isinstance(c, str) else cc._expr.name()))
        args.append(cc)
    return _call("named_struct", *args)


def array(*cols: ColumnOrName) -> Column:
    """An array column of the given columns."""
    return _call("make_array", *[_to_col(c) for c in cols])


def array_contains(col: ColumnOrName, value: Any) -> Column:
    """True where the array contains ``value``."""
    return _call("array_contains", _to_col(col), _as_col(value))


# aggregate functions (batch DataFrames now; streaming aggregation in a later release)
def count(col: ColumnOrName) -> Column:
    """Number of non-null values (``count("*")`` counts rows)."""
    if isinstance(col, str) and col == "*":
        return _call("count", lit(1))
    return _call("count", _to_col(col))


def _agg(name: str):  # type: ignore[no-untyped-def]
    def f(col: ColumnOrName) -> Column:
        return _call(name, _to_col(col))

    f.__name__ = name
    f.__doc__ = f"Aggregate: Spark's ``{name}``."
    return f


sum = _agg("sum")  # noqa: A001
avg = _agg("avg")
mean = _agg("mean")
min = _agg("min")  # noqa: A001
max = _agg("max")  # noqa: A001
first = _agg("first")
last = _agg("last")
collect_list = _agg("collect_list")
collect_set = _agg("collect_set")
stddev = _agg("stddev")
variance = _agg("variance")
approx_count_distinct = _agg("approx_count_distinct")


def countDistinct(col: ColumnOrName, *cols: ColumnOrName) -> Column:
    """Number of distinct values."""
    return _call("count_distinct", _to_col(col), *[_to_col(c) for c in cols])


count_distinct = countDistinct


from sparklet.sql.udf import PandasUDFType, pandas_udf, udf  # noqa: E402, F401 - PySpark exports them here

# with a Spark Connect session from SparkSession.builder.remote(), each
# function builds PySpark's column instead (see sparklet.sql._remote)
_remote.forward_functions(
    globals(),
    [
        name
        for name, f in list(globals().items())
        if not name.startswith("_")
        and callable(f)
        and not isinstance(f, type)
        and getattr(f, "__module__", None) in (__name__, "sparklet.sql.udf")
    ],
)
