"""Date, time and event-time window functions, as PySpark's (times in the
session's time zone, ``spark.sql.session.timeZone``)."""

from __future__ import annotations

from typing import Any

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, _lit_or_col, lit

__all__ = [
    "year", "quarter", "month", "day", "dayofmonth", "dayofweek", "dayofyear", "weekofyear",
    "weekday", "hour", "minute", "second", "to_timestamp", "to_date", "date_format",
    "current_timestamp", "now", "localtimestamp", "current_date", "curdate", "current_timezone",
    "unix_timestamp", "from_unixtime", "date_trunc", "trunc", "date_add", "dateadd", "date_sub",
    "datediff", "date_diff", "add_months", "months_between", "last_day", "next_day", "make_date",
    "timestamp_seconds", "timestamp_millis", "timestamp_micros", "unix_seconds", "unix_millis",
    "unix_micros", "unix_date", "date_from_unix_date", "from_utc_timestamp", "to_utc_timestamp",
    "monthname", "dayname", "date_part", "datepart", "extract",
    "window", "cumulate_window", "session_window", "window_time", "make_dt_interval", "make_interval", "make_time", "time_trunc", "to_time", "try_to_timestamp", "try_to_date", "to_timestamp_ltz",
 "to_timestamp_ntz",
 "to_unix_timestamp",
 "make_timestamp", "make_timestamp_ltz", "make_timestamp_ntz", "try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz", "timestamp_add", "timestamp_diff",
 "convert_timezone",
]  # fmt: skip


def year(col: ColumnOrName) -> Column:
    """The year of a date or timestamp."""
    return _fn("year", col)


def quarter(col: ColumnOrName) -> Column:
    """The quarter (1-4) of a date or timestamp."""
    return _fn("quarter", col)


def month(col: ColumnOrName) -> Column:
    """The month (1-12) of a date or timestamp."""
    return _fn("month", col)


def day(col: ColumnOrName) -> Column:
    """The day of the month of a date or timestamp."""
    return _fn("day", col)


def dayofmonth(col: ColumnOrName) -> Column:
    """The day of the month of a date or timestamp."""
    return _fn("dayofmonth", col)


def dayofweek(col: ColumnOrName) -> Column:
    """The day of the week, 1 (Sunday) to 7 (Saturday)."""
    return _fn("dayofweek", col)


def dayofyear(col: ColumnOrName) -> Column:
    """The day of the year (1-366)."""
    return _fn("dayofyear", col)


def weekofyear(col: ColumnOrName) -> Column:
    """The ISO week of the year."""
    return _fn("weekofyear", col)


def weekday(col: ColumnOrName) -> Column:
    """The day of the week, 0 (Monday) to 6 (Sunday)."""
    return _fn("weekday", col)


def hour(col: ColumnOrName) -> Column:
    """The hour of a timestamp."""
    return _fn("hour", col)


def minute(col: ColumnOrName) -> Column:
    """The minute of a timestamp."""
    return _fn("minute", col)


def second(col: ColumnOrName) -> Column:
    """The second of a timestamp."""
    return _fn("second", col)


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


def now() -> Column:
    """The current time (the same within one query)."""
    return _call("now")


def localtimestamp() -> Column:
    """The current time in the session's time zone, without a zone."""
    return _call("localtimestamp")


def current_date() -> Column:
    """The current date."""
    return _call("current_date")


def curdate() -> Column:
    """The current date."""
    return _call("curdate")


def current_timezone() -> Column:
    """The session's time zone (``spark.sql.session.timeZone``)."""
    from sparklet.sql.session import SparkSession

    zone = SparkSession._require_active().conf.get("spark.sql.session.timeZone")
    return lit(zone).alias("current_timezone()")


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


def trunc(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    """Truncate a date to ``format`` (year, quarter, month, week)."""
    return _call("trunc", _to_col(date), lit(format))


def date_add(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days after ``start``."""
    return _call("date_add", _to_col(start), _int_or_col(days))


def dateadd(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days after ``start``."""
    return _call("dateadd", _to_col(start), _int_or_col(days))


def date_sub(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days before ``start``."""
    return _call("date_sub", _to_col(start), _int_or_col(days))


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """Days from ``start`` to ``end``."""
    return _fn("datediff", end, start)


def date_diff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """Days from ``start`` to ``end``."""
    return _fn("date_diff", end, start)


def add_months(start: ColumnOrName, months: ColumnOrName | int) -> Column:
    """``months`` months after ``start``."""
    return _call("add_months", _to_col(start), _int_or_col(months))


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:
    """Months from ``date2`` to ``date1`` (rounded to 8 digits unless ``roundOff`` is false)."""
    return _call("months_between", _to_col(date1), _to_col(date2), lit(roundOff))


def last_day(date: ColumnOrName) -> Column:
    """The last day of the month of ``date``."""
    return _fn("last_day", date)


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:
    """The first ``dayOfWeek`` ("Mon", "Tue", ...) after ``date``."""
    return _call("next_day", _to_col(date), lit(dayOfWeek))


def make_date(year: ColumnOrName, month: ColumnOrName, day: ColumnOrName) -> Column:
    """The date of ``year``, ``month`` and ``day``."""
    return _fn("make_date", year, month, day)


def timestamp_seconds(col: ColumnOrName) -> Column:
    """The timestamp ``col`` seconds after the epoch."""
    return _fn("timestamp_seconds", col)


def timestamp_millis(col: ColumnOrName) -> Column:
    """The timestamp ``col`` milliseconds after the epoch."""
    return _fn("timestamp_millis", col)


def timestamp_micros(col: ColumnOrName) -> Column:
    """The timestamp ``col`` microseconds after the epoch."""
    return _fn("timestamp_micros", col)


def unix_seconds(col: ColumnOrName) -> Column:
    """Seconds from the epoch to a timestamp."""
    return _fn("unix_seconds", col)


def unix_millis(col: ColumnOrName) -> Column:
    """Milliseconds from the epoch to a timestamp."""
    return _fn("unix_millis", col)


def unix_micros(col: ColumnOrName) -> Column:
    """Microseconds from the epoch to a timestamp."""
    return _fn("unix_micros", col)


def unix_date(col: ColumnOrName) -> Column:
    """Days from the epoch to a date."""
    return _fn("unix_date", col)


def date_from_unix_date(days: ColumnOrName) -> Column:
    """The date ``days`` days after the epoch."""
    return _fn("date_from_unix_date", days)


def from_utc_timestamp(timestamp: ColumnOrName, tz: Column | str) -> Column:
    """A UTC timestamp shown as the wall clock time of zone ``tz``."""
    return _call("from_utc_timestamp", _to_col(timestamp), _lit_or_col(tz))


def to_utc_timestamp(timestamp: ColumnOrName, tz: Column | str) -> Column:
    """A wall clock time of zone ``tz`` as the UTC timestamp."""
    return _call("to_utc_timestamp", _to_col(timestamp), _lit_or_col(tz))


def monthname(col: ColumnOrName) -> Column:
    """The month's three-letter name."""
    return _fn("monthname", col)


def dayname(col: ColumnOrName) -> Column:
    """The day's three-letter name."""
    return _fn("dayname", col)


def date_part(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp."""
    return _call("date_part", field, _to_col(source))


def datepart(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp."""
    return _call("datepart", field, _to_col(source))


def extract(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp."""
    return _call("extract", field, _to_col(source))


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


def make_dt_interval(
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
) -> Column:
    """A day-time interval of the parts given (missing parts are 0)."""
    return _fn("make_dt_interval", *_parts(days, hours, mins, secs, seconds_last=True))


def make_interval(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    weeks: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
) -> Column:
    """An interval of the parts given (missing parts are 0)."""
    return _fn("make_interval", *_parts(years, months, weeks, days, hours, mins, secs, seconds_last=True))


def _parts(*parts: ColumnOrName | None, seconds_last: bool) -> list[ColumnOrName]:
    """Interval parts with the missing ones 0, as Spark fills them (seconds a decimal)."""
    import decimal

    out: list[ColumnOrName] = [lit(0) if p is None else p for p in parts]
    if seconds_last and parts[-1] is None:
        out[-1] = lit(decimal.Decimal(0))
    return out


def make_time(hour: ColumnOrName, minute: ColumnOrName, second: ColumnOrName) -> Column:
    """A time of day from its parts."""
    return _fn("make_time", hour, minute, second)


def time_trunc(unit: ColumnOrName, time: ColumnOrName) -> Column:
    """``time`` truncated to ``unit``."""
    return _fn("time_trunc", unit, time)


def to_time(str: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``str`` parsed as a time of day (by ``format`` if given)."""
    return _fn("to_time", str) if format is None else _fn("to_time", str, format)


def try_to_timestamp(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``col`` parsed as a timestamp (by ``format`` if given); null where it does not parse."""
    return _fn("try_to_timestamp", col) if format is None else _fn("try_to_timestamp", col, format)


def try_to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """``col`` parsed as a date (by ``format`` if given); null where it does not parse."""
    return _fn("try_to_date", col) if format is None else _call("try_to_date", _to_col(col), lit(format))


def to_timestamp_ltz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``timestamp`` parsed as a timestamp with the session's time zone."""
    if format is None:
        return _fn("to_timestamp_ltz", timestamp)
    return _fn("to_timestamp_ltz", timestamp, format)


def to_timestamp_ntz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """The text as a timestamp without time zone (in ``format``, a column or literal, if given)."""
    if format is None:
        return _fn("to_timestamp_ntz", timestamp)
    return _fn("to_timestamp_ntz", timestamp, format)


def to_unix_timestamp(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """Seconds since the epoch of a timestamp, or of text in ``format``
    (default ``yyyy-MM-dd HH:mm:ss``) read in the session time zone."""
    if format is None:
        return _fn("to_unix_timestamp", timestamp)
    return _fn("to_unix_timestamp", timestamp, format)


def _int_or_col(value: ColumnOrName | int) -> Column:
    """An int as a literal, else a Column or column name."""
    return lit(value) if isinstance(value, int) else _to_col(value)


def _make_timestamp(
    name: str, fields: tuple[ColumnOrName | None, ...], timezone: ColumnOrName | None, date: Any, time: Any
) -> Column:
    if date is not None or time is not None:
        from sparklet.errors import PySparkNotImplementedError

        raise PySparkNotImplementedError(
            f"[NOT_IMPLEMENTED] {name}(date=, time=) needs the TIME type, which sparklet does not have.",
            errorClass="NOT_IMPLEMENTED",
            messageParameters={"feature": f"{name} of a date and a time"},
        )
    if any(f is None for f in fields):
        from sparklet.errors import PySparkValueError

        raise PySparkValueError(
            f"[CANNOT_BE_NONE] {name} takes years, months, days, hours, mins and secs.",
            errorClass="CANNOT_BE_NONE",
            messageParameters={"arg_name": "years, months, days, hours, mins, secs"},
        )
    cols = [_to_col(f) for f in fields if f is not None]
    if timezone is not None:
        cols.append(_to_col(timezone))
    return _call(name, *cols)


def make_timestamp(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    timezone: ColumnOrName | None = None,
    date: ColumnOrName | None = None,
    time: ColumnOrName | None = None,
) -> Column:
    """The timestamp of the fields as wall-clock time in ``timezone`` (the
    session time zone by default); an invalid time is an error."""
    return _make_timestamp("make_timestamp", (years, months, days, hours, mins, secs), timezone, date, time)


def make_timestamp_ltz(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    timezone: ColumnOrName | None = None,
) -> Column:
    """As :func:`make_timestamp`."""
    return _make_timestamp("make_timestamp_ltz", (years, months, days, hours, mins, secs), timezone, None, None)


def make_timestamp_ntz(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    date: ColumnOrName | None = None,
    time: ColumnOrName | None = None,
) -> Column:
    """The timestamp without time zone of the fields."""
    return _make_timestamp("make_timestamp_ntz", (years, months, days, hours, mins, secs), None, date, time)


def try_make_timestamp(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    timezone: ColumnOrName | None = None,
    date: ColumnOrName | None = None,
    time: ColumnOrName | None = None,
) -> Column:
    """As :func:`make_timestamp`, null for an invalid time."""
    return _make_timestamp("try_make_timestamp", (years, months, days, hours, mins, secs), timezone, date, time)


def try_make_timestamp_ltz(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    timezone: ColumnOrName | None = None,
) -> Column:
    """As :func:`make_timestamp_ltz`, null for an invalid time."""
    return _make_timestamp("try_make_timestamp_ltz", (years, months, days, hours, mins, secs), timezone, None, None)


def try_make_timestamp_ntz(
    years: ColumnOrName | None = None,
    months: ColumnOrName | None = None,
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
    date: ColumnOrName | None = None,
    time: ColumnOrName | None = None,
) -> Column:
    """As :func:`make_timestamp_ntz`, null for an invalid time."""
    return _make_timestamp("try_make_timestamp_ntz", (years, months, days, hours, mins, secs), None, date, time)


def timestamp_add(unit: str, quantity: ColumnOrName, ts: ColumnOrName) -> Column:
    """``ts`` moved by ``quantity`` ``unit``s (YEAR, QUARTER, MONTH, WEEK,
    DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND), on the calendar
    of the session time zone."""
    return _call("timestampadd", lit(unit), _to_col(quantity), _to_col(ts))


def timestamp_diff(unit: str, start: ColumnOrName, end: ColumnOrName) -> Column:
    """Whole ``unit``s from ``start`` to ``end``."""
    return _call("timestampdiff", lit(unit), _to_col(start), _to_col(end))


def convert_timezone(sourceTz: Column | None, targetTz: Column, sourceTs: ColumnOrName) -> Column:
    """The wall-clock time ``sourceTs`` in ``sourceTz`` (the session time
    zone when None) as wall-clock time in ``targetTz``."""
    if sourceTz is None:
        return _call("convert_timezone", targetTz, _to_col(sourceTs))
    return _call("convert_timezone", sourceTz, targetTz, _to_col(sourceTs))
