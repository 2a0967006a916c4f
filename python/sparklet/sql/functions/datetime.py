"""Date, time and event-time window functions, as PySpark's (times in the
session's time zone, ``spark.sql.session.timeZone``)."""

from __future__ import annotations

from typing import Any

from sparklet import _native
from sparklet.errors._raise import not_expected_type
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
    "window", "cumulate_window", "session_window", "window_time", "make_dt_interval", "make_interval", "make_time", "time_trunc", "to_time", "try_to_time", "try_to_timestamp", "try_to_date", "to_timestamp_ltz",
 "to_timestamp_ntz",
 "to_unix_timestamp",
 "make_timestamp", "make_timestamp_ltz", "make_timestamp_ntz", "try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz", "timestamp_add", "timestamp_diff",
 "convert_timezone",
]  # fmt: skip


def year(col: ColumnOrName) -> Column:
    """The year of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.year("ts")).show()
    +--------+
    |year(ts)|
    +--------+
    |    2024|
    +--------+
    <BLANKLINE>
    """
    return _fn("year", col)


def quarter(col: ColumnOrName) -> Column:
    """The quarter (1-4) of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column, 1 to 4

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.quarter("ts")).show()
    +-----------+
    |quarter(ts)|
    +-----------+
    |          1|
    +-----------+
    <BLANKLINE>
    """
    return _fn("quarter", col)


def month(col: ColumnOrName) -> Column:
    """The month (1-12) of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column, 1 to 12

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.month("ts")).show()
    +---------+
    |month(ts)|
    +---------+
    |        2|
    +---------+
    <BLANKLINE>
    """
    return _fn("month", col)


def day(col: ColumnOrName) -> Column:
    """The day of the month of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column: the day of the month

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.day("ts")).show()
    +-------+
    |day(ts)|
    +-------+
    |     29|
    +-------+
    <BLANKLINE>
    """
    return _fn("day", col)


def dayofmonth(col: ColumnOrName) -> Column:
    """The day of the month of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column: the day of the month

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.dayofmonth("ts")).show()
    +--------------+
    |dayofmonth(ts)|
    +--------------+
    |            29|
    +--------------+
    <BLANKLINE>
    """
    return _fn("dayofmonth", col)


def dayofweek(col: ColumnOrName) -> Column:
    """The day of the week, 1 (Sunday) to 7 (Saturday).

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column, 1 (Sunday) to 7 (Saturday)

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.dayofweek("ts")).show()
    +-------------+
    |dayofweek(ts)|
    +-------------+
    |            5|
    +-------------+
    <BLANKLINE>
    """
    return _fn("dayofweek", col)


def dayofyear(col: ColumnOrName) -> Column:
    """The day of the year (1-366).

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column, 1 to 366

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.dayofyear("ts")).show()
    +-------------+
    |dayofyear(ts)|
    +-------------+
    |           60|
    +-------------+
    <BLANKLINE>
    """
    return _fn("dayofyear", col)


def weekofyear(col: ColumnOrName) -> Column:
    """The ISO week of the year.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column: the ISO 8601 week, weeks starting on Monday

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.weekofyear("ts")).show()
    +--------------+
    |weekofyear(ts)|
    +--------------+
    |             9|
    +--------------+
    <BLANKLINE>
    """
    return _fn("weekofyear", col)


def weekday(col: ColumnOrName) -> Column:
    """The day of the week, 0 (Monday) to 6 (Sunday).

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        an ``int`` column, 0 (Monday) to 6 (Sunday)

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.weekday("ts")).show()
    +-----------+
    |weekday(ts)|
    +-----------+
    |          3|
    +-----------+
    <BLANKLINE>
    """
    return _fn("weekday", col)


def hour(col: ColumnOrName) -> Column:
    """The hour of a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        an ``int`` column, 0 to 23

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.hour("ts")).show()
    +--------+
    |hour(ts)|
    +--------+
    |      13|
    +--------+
    <BLANKLINE>
    """
    return _fn("hour", col)


def minute(col: ColumnOrName) -> Column:
    """The minute of a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        an ``int`` column, 0 to 59

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.minute("ts")).show()
    +----------+
    |minute(ts)|
    +----------+
    |        45|
    +----------+
    <BLANKLINE>
    """
    return _fn("minute", col)


def second(col: ColumnOrName) -> Column:
    """The second of a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        an ``int`` column, 0 to 59

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.second("ts")).show()
    +----------+
    |second(ts)|
    +----------+
    |        30|
    +----------+
    <BLANKLINE>
    """
    return _fn("second", col)


def to_timestamp(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """Parse a string into a timestamp (Spark's datetime patterns).

    Parameters
    ----------
    col : Column or str
        the strings
    format : str, optional
        a datetime pattern such as ``yyyy-MM-dd HH:mm`` (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``timestamp`` column (null where the string does not match; ANSI mode raises)

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29 13:45:30",)], ["s"])
    >>> df.select(F.to_timestamp("s")).show()
    +-------------------+
    |    to_timestamp(s)|
    +-------------------+
    |2024-02-29 13:45:30|
    +-------------------+
    <BLANKLINE>
    >>> df2 = spark.createDataFrame([("29/02/2024 08:00",)], ["s"])
    >>> df2.select(F.to_timestamp("s", "dd/MM/yyyy HH:mm")).show()
    +---------------------------------+
    |to_timestamp(s, dd/MM/yyyy HH:mm)|
    +---------------------------------+
    |              2024-02-29 08:00:00|
    +---------------------------------+
    <BLANKLINE>
    """
    args = [_to_col(col)] + ([lit(format)] if format is not None else [])
    return _call("to_timestamp", *args)


def to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """Parse a string (or truncate a timestamp) into a date.

    Parameters
    ----------
    col : Column or str
        the strings (or timestamps)
    format : str, optional
        a datetime pattern such as ``dd/MM/yyyy`` (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29",)], ["s"])
    >>> df.select(F.to_date("s")).show()
    +----------+
    |to_date(s)|
    +----------+
    |2024-02-29|
    +----------+
    <BLANKLINE>
    >>> df2 = spark.createDataFrame([("29/02/2024",)], ["s"])
    >>> df2.select(F.to_date("s", "dd/MM/yyyy")).show()
    +----------------------+
    |to_date(s, dd/MM/yyyy)|
    +----------------------+
    |            2024-02-29|
    +----------------------+
    <BLANKLINE>
    """
    args = [_to_col(col)] + ([lit(format)] if format is not None else [])
    return _call("to_date", *args)


def date_format(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    """Format a date or timestamp with a Spark datetime pattern.

    Parameters
    ----------
    date : Column or str
        the dates or timestamps
    format : str
        a datetime pattern such as ``yyyy-MM-dd``

    Returns
    -------
    Column
        the formatted strings

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.date_format("ts", "yyyy-MM-dd HH:mm"), F.date_format("ts", "EEE, d MMM")).show()
    +---------------------------------+---------------------------+
    |date_format(ts, yyyy-MM-dd HH:mm)|date_format(ts, EEE, d MMM)|
    +---------------------------------+---------------------------+
    |                 2024-02-29 13:45|                Thu, 29 Feb|
    +---------------------------------+---------------------------+
    <BLANKLINE>
    """
    return _call("date_format", _to_col(date), lit(format))


def current_timestamp() -> Column:
    """The current time (the same within one query).

    Returns
    -------
    Column
        a ``timestamp`` column: the time the query started, the same on every row

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.current_timestamp()).dtypes
    [('current_timestamp()', 'timestamp')]
    """
    return _call("current_timestamp")


def now() -> Column:
    """The current time (the same within one query).

    Returns
    -------
    Column
        a ``timestamp`` column: the time the query started, the same on every row

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.now()).dtypes
    [('now()', 'timestamp')]
    """
    return _call("now")


def localtimestamp() -> Column:
    """The current time in the session's time zone, without a zone.

    Returns
    -------
    Column
        a ``timestamp_ntz`` column: the query's start in the session time zone

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.localtimestamp()).dtypes
    [('localtimestamp()', 'timestamp_ntz')]
    """
    return _call("localtimestamp")


def current_date() -> Column:
    """The current date.

    Returns
    -------
    Column
        a ``date`` column: the day the query started, in the session time zone

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.current_date()).dtypes
    [('current_date()', 'date')]
    """
    return _call("current_date")


def curdate() -> Column:
    """The current date.

    Returns
    -------
    Column
        a ``date`` column: the day the query started, in the session time zone

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.curdate()).dtypes
    [('current_date()', 'date')]
    """
    return _call("curdate")


def current_timezone() -> Column:
    """The session's time zone (``spark.sql.session.timeZone``).

    Returns
    -------
    Column
        a ``string`` column: the session time zone (``spark.sql.session.timeZone``)

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.current_timezone()).show()
    +------------------+
    |current_timezone()|
    +------------------+
    |               UTC|
    +------------------+
    <BLANKLINE>
    """
    from sparklet.sql.session import SparkSession

    zone = SparkSession._require_active().conf.get("spark.sql.session.timeZone")
    return lit(zone).alias("current_timezone()")


def unix_timestamp(timestamp: ColumnOrName | None = None, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002
    """Seconds since the epoch (now, or of ``timestamp`` parsed with ``format``).

    Parameters
    ----------
    timestamp : Column or str, optional
        the timestamps, or strings in ``format`` (default: now)
    format : str, optional
        the strings' datetime pattern

    Returns
    -------
    Column
        a ``bigint`` column: seconds since 1970-01-01 00:00:00 UTC (null where a string does not match)

    Examples
    --------
    >>> df = spark.createDataFrame([("1970-01-02 00:00:00",)], ["s"])
    >>> df.select(F.unix_timestamp("s").alias("seconds")).show()
    +-------+
    |seconds|
    +-------+
    |  86400|
    +-------+
    <BLANKLINE>
    """
    if timestamp is None:
        return _call("unix_timestamp")
    return _call("unix_timestamp", _to_col(timestamp), lit(format))


def from_unixtime(timestamp: ColumnOrName, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002
    """Format seconds since the epoch as a string.

    Parameters
    ----------
    timestamp : Column or str
        seconds since 1970-01-01 00:00:00 UTC
    format : str, optional
        the datetime pattern to write

    Returns
    -------
    Column
        the times as strings, in the session time zone

    Examples
    --------
    >>> df = spark.createDataFrame([(86400,)], ["n"])
    >>> df.select(F.from_unixtime("n"), F.from_unixtime("n", "yyyy/MM/dd")).show()
    +-------------------------------------+----------------------------+
    |from_unixtime(n, yyyy-MM-dd HH:mm:ss)|from_unixtime(n, yyyy/MM/dd)|
    +-------------------------------------+----------------------------+
    |                  1970-01-02 00:00:00|                  1970/01/02|
    +-------------------------------------+----------------------------+
    <BLANKLINE>
    """
    return _call("from_unixtime", _to_col(timestamp), lit(format))


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:  # noqa: A002
    """Truncate a timestamp to ``format`` (year, month, day, hour, ...).

    Parameters
    ----------
    format : str
        the unit: ``year``, ``quarter``, ``month``, ``week``, ``day``, ``hour``, ``minute``, ``second``, ...
    timestamp : Column or str
        the timestamps

    Returns
    -------
    Column
        a ``timestamp`` column: the times cut down to the unit's start

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.date_trunc("hour", "ts"), F.date_trunc("month", "ts")).show()
    +--------------------+---------------------+
    |date_trunc(hour, ts)|date_trunc(month, ts)|
    +--------------------+---------------------+
    | 2024-02-29 13:00:00|  2024-02-01 00:00:00|
    +--------------------+---------------------+
    <BLANKLINE>
    """
    return _call("date_trunc", lit(format), _to_col(timestamp))


def trunc(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    """Truncate a date to ``format`` (year, quarter, month, week).

    Parameters
    ----------
    date : Column or str
        the dates
    format : str
        the unit: ``year``, ``quarter``, ``month`` or ``week``

    Returns
    -------
    Column
        a ``date`` column: the unit's first day

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.trunc("d", "year"), F.trunc("d", "month")).show()
    +--------------+---------------+
    |trunc(d, year)|trunc(d, month)|
    +--------------+---------------+
    |    2024-01-01|     2024-02-01|
    +--------------+---------------+
    <BLANKLINE>
    """
    return _call("trunc", _to_col(date), lit(format))


def date_add(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days after ``start``.

    Parameters
    ----------
    start : Column or str
        the dates
    days : Column or str or int
        how many days (a number, or a column)

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.date_add("d", 1), F.date_add("d", -29)).show()
    +--------------+----------------+
    |date_add(d, 1)|date_add(d, -29)|
    +--------------+----------------+
    |    2024-03-01|      2024-01-31|
    +--------------+----------------+
    <BLANKLINE>
    """
    return _call("date_add", _to_col(start), _int_or_col(days))


def dateadd(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days after ``start``.

    Parameters
    ----------
    start : Column or str
        the dates
    days : Column or str or int
        how many days (a number, or a column)

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.dateadd("d", 1)).show()
    +--------------+
    |date_add(d, 1)|
    +--------------+
    |    2024-03-01|
    +--------------+
    <BLANKLINE>
    """
    return _call("dateadd", _to_col(start), _int_or_col(days))


def date_sub(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` days before ``start``.

    Parameters
    ----------
    start : Column or str
        the dates
    days : Column or str or int
        how many days (a number, or a column)

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.date_sub("d", 29)).show()
    +---------------+
    |date_sub(d, 29)|
    +---------------+
    |     2024-01-31|
    +---------------+
    <BLANKLINE>
    """
    return _call("date_sub", _to_col(start), _int_or_col(days))


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """Days from ``start`` to ``end``.

    Parameters
    ----------
    end : Column or str
        the later dates
    start : Column or str
        the earlier dates

    Returns
    -------
    Column
        an ``int`` column: days from ``start`` to ``end``

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 3, 1), datetime.date(2024, 2, 1))], ["a", "b"])
    >>> df.select(F.datediff("a", "b")).show()
    +--------------+
    |datediff(a, b)|
    +--------------+
    |            29|
    +--------------+
    <BLANKLINE>
    """
    return _fn("datediff", end, start)


def date_diff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """Days from ``start`` to ``end``.

    Parameters
    ----------
    end : Column or str
        the later dates
    start : Column or str
        the earlier dates

    Returns
    -------
    Column
        an ``int`` column: days from ``start`` to ``end``

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 3, 1), datetime.date(2024, 2, 1))], ["a", "b"])
    >>> df.select(F.date_diff("a", "b")).show()
    +---------------+
    |date_diff(a, b)|
    +---------------+
    |             29|
    +---------------+
    <BLANKLINE>
    """
    return _fn("date_diff", end, start)


def add_months(start: ColumnOrName, months: ColumnOrName | int) -> Column:
    """``months`` months after ``start``.

    Parameters
    ----------
    start : Column or str
        the dates
    months : Column or str or int
        how many months (a number, or a column)

    Returns
    -------
    Column
        a ``date`` column (the day is kept, or the month's last when it has fewer days)

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 1, 31),)], ["d"])
    >>> df.select(F.add_months("d", 1), F.add_months("d", -2)).show()
    +----------------+-----------------+
    |add_months(d, 1)|add_months(d, -2)|
    +----------------+-----------------+
    |      2024-02-29|       2023-11-30|
    +----------------+-----------------+
    <BLANKLINE>
    """
    return _call("add_months", _to_col(start), _int_or_col(months))


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:
    """Months from ``date2`` to ``date1`` (rounded to 8 digits unless ``roundOff`` is false).

    Parameters
    ----------
    date1 : Column or str
        the later dates or timestamps
    date2 : Column or str
        the earlier ones
    roundOff : bool, optional
        round the result to 8 digits

    Returns
    -------
    Column
        a ``double`` column: whole months plus the rest as a fraction of 31 days

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 3, 31), datetime.date(2024, 1, 15))], ["a", "b"])
    >>> df.select(F.months_between("a", "b"), F.months_between("a", "b", False)).show()
    +--------------------------+---------------------------+
    |months_between(a, b, true)|months_between(a, b, false)|
    +--------------------------+---------------------------+
    |                2.51612903|         2.5161290322580645|
    +--------------------------+---------------------------+
    <BLANKLINE>
    """
    return _call("months_between", _to_col(date1), _to_col(date2), lit(roundOff))


def last_day(date: ColumnOrName) -> Column:
    """The last day of the month of ``date``.

    Parameters
    ----------
    date : Column or str
        the dates

    Returns
    -------
    Column
        a ``date`` column: the last day of each date's month

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.last_day("d")).show()
    +-----------+
    |last_day(d)|
    +-----------+
    | 2024-02-29|
    +-----------+
    <BLANKLINE>
    """
    return _fn("last_day", date)


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:
    """The first ``dayOfWeek`` ("Mon", "Tue", ...) after ``date``.

    Parameters
    ----------
    date : Column or str
        the dates
    dayOfWeek : str
        the day's name: ``Mon``, ``Tue``, ... (or in full)

    Returns
    -------
    Column
        a ``date`` column: the first such day after each date

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.next_day("d", "Mon")).show()
    +----------------+
    |next_day(d, Mon)|
    +----------------+
    |      2024-03-04|
    +----------------+
    <BLANKLINE>
    """
    return _call("next_day", _to_col(date), lit(dayOfWeek))


def make_date(year: ColumnOrName, month: ColumnOrName, day: ColumnOrName) -> Column:
    """The date of ``year``, ``month`` and ``day``.

    Parameters
    ----------
    year : Column or str
        the years
    month : Column or str
        the months, 1 to 12
    day : Column or str
        the days of the month

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29)], ["y", "m", "d"])
    >>> df.select(F.make_date("y", "m", "d")).show()
    +------------------+
    |make_date(y, m, d)|
    +------------------+
    |        2024-02-29|
    +------------------+
    <BLANKLINE>
    """
    return _fn("make_date", year, month, day)


def timestamp_seconds(col: ColumnOrName) -> Column:
    """The timestamp ``col`` seconds after the epoch.

    Parameters
    ----------
    col : Column or str
        seconds since 1970-01-01 00:00:00 UTC

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1709214330,)], ["n"])
    >>> df.select(F.timestamp_seconds("n")).show()
    +--------------------+
    |timestamp_seconds(n)|
    +--------------------+
    | 2024-02-29 13:45:30|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("timestamp_seconds", col)


def timestamp_millis(col: ColumnOrName) -> Column:
    """The timestamp ``col`` milliseconds after the epoch.

    Parameters
    ----------
    col : Column or str
        milliseconds since 1970-01-01 00:00:00 UTC

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1709214330123,)], ["n"])
    >>> df.select(F.timestamp_millis("n")).show(truncate=False)
    +-----------------------+
    |timestamp_millis(n)    |
    +-----------------------+
    |2024-02-29 13:45:30.123|
    +-----------------------+
    <BLANKLINE>
    """
    return _fn("timestamp_millis", col)


def timestamp_micros(col: ColumnOrName) -> Column:
    """The timestamp ``col`` microseconds after the epoch.

    Parameters
    ----------
    col : Column or str
        microseconds since 1970-01-01 00:00:00 UTC

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1709214330123456,)], ["n"])
    >>> df.select(F.timestamp_micros("n")).show(truncate=False)
    +--------------------------+
    |timestamp_micros(n)       |
    +--------------------------+
    |2024-02-29 13:45:30.123456|
    +--------------------------+
    <BLANKLINE>
    """
    return _fn("timestamp_micros", col)


def unix_seconds(col: ColumnOrName) -> Column:
    """Seconds from the epoch to a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        a ``bigint`` column: seconds since 1970-01-01 00:00:00 UTC

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.unix_seconds("ts")).show()
    +----------------+
    |unix_seconds(ts)|
    +----------------+
    |      1709214330|
    +----------------+
    <BLANKLINE>
    """
    return _fn("unix_seconds", col)


def unix_millis(col: ColumnOrName) -> Column:
    """Milliseconds from the epoch to a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        a ``bigint`` column: milliseconds since 1970-01-01 00:00:00 UTC

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.unix_millis("ts")).show()
    +---------------+
    |unix_millis(ts)|
    +---------------+
    |  1709214330000|
    +---------------+
    <BLANKLINE>
    """
    return _fn("unix_millis", col)


def unix_micros(col: ColumnOrName) -> Column:
    """Microseconds from the epoch to a timestamp.

    Parameters
    ----------
    col : Column or str
        the timestamps

    Returns
    -------
    Column
        a ``bigint`` column: microseconds since 1970-01-01 00:00:00 UTC

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.unix_micros("ts")).show()
    +----------------+
    | unix_micros(ts)|
    +----------------+
    |1709214330000000|
    +----------------+
    <BLANKLINE>
    """
    return _fn("unix_micros", col)


def unix_date(col: ColumnOrName) -> Column:
    """Days from the epoch to a date.

    Parameters
    ----------
    col : Column or str
        the dates

    Returns
    -------
    Column
        an ``int`` column: days since 1970-01-01

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.unix_date("d")).show()
    +------------+
    |unix_date(d)|
    +------------+
    |       19782|
    +------------+
    <BLANKLINE>
    """
    return _fn("unix_date", col)


def date_from_unix_date(days: ColumnOrName) -> Column:
    """The date ``days`` days after the epoch.

    Parameters
    ----------
    days : Column or str
        days since 1970-01-01

    Returns
    -------
    Column
        a ``date`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(19782,)], ["n"])
    >>> df.select(F.date_from_unix_date("n")).show()
    +----------------------+
    |date_from_unix_date(n)|
    +----------------------+
    |            2024-02-29|
    +----------------------+
    <BLANKLINE>
    """
    return _fn("date_from_unix_date", days)


def from_utc_timestamp(timestamp: ColumnOrName, tz: Column | str) -> Column:
    """A UTC timestamp shown as the wall clock time of zone ``tz``.

    Parameters
    ----------
    timestamp : Column or str
        the timestamps, read as UTC
    tz : Column or str
        the time zone to shift them to (an ID such as ``Asia/Tokyo``)

    Returns
    -------
    Column
        a ``timestamp`` column: the wall-clock time in ``tz``

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.from_utc_timestamp("ts", "Asia/Tokyo")).show()
    +----------------------------------+
    |from_utc_timestamp(ts, Asia/Tokyo)|
    +----------------------------------+
    |               2024-02-29 22:45:30|
    +----------------------------------+
    <BLANKLINE>
    """
    return _call("from_utc_timestamp", _to_col(timestamp), _lit_or_col(tz))


def to_utc_timestamp(timestamp: ColumnOrName, tz: Column | str) -> Column:
    """A wall clock time of zone ``tz`` as the UTC timestamp.

    Parameters
    ----------
    timestamp : Column or str
        the timestamps, read as wall-clock times in ``tz``
    tz : Column or str
        their time zone (an ID such as ``Asia/Tokyo``)

    Returns
    -------
    Column
        a ``timestamp`` column: the same instants in UTC

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.to_utc_timestamp("ts", "Asia/Tokyo")).show()
    +--------------------------------+
    |to_utc_timestamp(ts, Asia/Tokyo)|
    +--------------------------------+
    |             2024-02-29 04:45:30|
    +--------------------------------+
    <BLANKLINE>
    """
    return _call("to_utc_timestamp", _to_col(timestamp), _lit_or_col(tz))


def monthname(col: ColumnOrName) -> Column:
    """The month's three-letter name.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        the months' three-letter names

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.monthname("d")).show()
    +------------+
    |monthname(d)|
    +------------+
    |         Feb|
    +------------+
    <BLANKLINE>
    """
    return _fn("monthname", col)


def dayname(col: ColumnOrName) -> Column:
    """The day's three-letter name.

    Parameters
    ----------
    col : Column or str
        the dates or timestamps

    Returns
    -------
    Column
        the days' three-letter names

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.date(2024, 2, 29),)], ["d"])
    >>> df.select(F.dayname("d")).show()
    +----------+
    |dayname(d)|
    +----------+
    |       Thu|
    +----------+
    <BLANKLINE>
    """
    return _fn("dayname", col)


def date_part(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp.

    Parameters
    ----------
    field : Column
        the part: ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``, ``DAYOFWEEK``, ``HOUR``, ``MINUTE``, ``SECOND``, ...
    source : Column or str
        the dates, timestamps or intervals

    Returns
    -------
    Column
        the part (``SECOND``: a decimal with microseconds)

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.date_part(F.lit("YEAR"), "ts"), F.date_part(F.lit("SECOND"), "ts")).show()
    +-------------------+---------------------+
    |date_part(YEAR, ts)|date_part(SECOND, ts)|
    +-------------------+---------------------+
    |               2024|            30.000000|
    +-------------------+---------------------+
    <BLANKLINE>
    """
    return _call("date_part", field, _to_col(source))


def datepart(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp.

    Parameters
    ----------
    field : Column
        the part: ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``, ``DAYOFWEEK``, ``HOUR``, ``MINUTE``, ``SECOND``, ...
    source : Column or str
        the dates, timestamps or intervals

    Returns
    -------
    Column
        the part (``SECOND``: a decimal with microseconds)

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.datepart(F.lit("MONTH"), "ts")).show()
    +-----------------------+
    |datepart(MONTH FROM ts)|
    +-----------------------+
    |                      2|
    +-----------------------+
    <BLANKLINE>
    """
    return _call("datepart", field, _to_col(source))


def extract(field: Column, source: ColumnOrName) -> Column:
    """A part (``field``: YEAR, MONTH, DAY, HOUR, ...) of a date or timestamp.

    Parameters
    ----------
    field : Column
        the part: ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``, ``DAYOFWEEK``, ``HOUR``, ``MINUTE``, ``SECOND``, ...
    source : Column or str
        the dates, timestamps or intervals

    Returns
    -------
    Column
        the part (``SECOND``: a decimal with microseconds)

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.extract(F.lit("HOUR"), "ts")).show()
    +---------------------+
    |extract(HOUR FROM ts)|
    +---------------------+
    |                   13|
    +---------------------+
    <BLANKLINE>
    """
    return _call("extract", field, _to_col(source))


def _micros(interval: str, what: str) -> int:
    if not isinstance(interval, str) or not interval.strip():
        raise not_expected_type(what, "str", interval)
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

    Parameters
    ----------
    timeColumn : Column or str
        the event times (timestamps)
    windowDuration : str
        the windows' length, such as ``'10 minutes'``
    slideDuration : str, optional
        how often a window starts (default: ``windowDuration``, tumbling windows)
    startTime : str, optional
        the offset of the windows' starts from 1970-01-01 00:00:00 UTC

    Returns
    -------
    Column
        a struct column ``window`` of ``start`` and ``end`` timestamps

    Examples
    --------
    >>> df = spark.sql("SELECT * FROM VALUES (TIMESTAMP '2024-02-29 13:04:00', 1), (TIMESTAMP '2024-02-29 13:07:00', 2) AS t(ts, v)")
    >>> df.groupBy(F.window("ts", "5 minutes")).agg(F.sum("v")).orderBy("window").show(truncate=False)
    +------------------------------------------+------+
    |window                                    |sum(v)|
    +------------------------------------------+------+
    |{2024-02-29 13:00:00, 2024-02-29 13:05:00}|1     |
    |{2024-02-29 13:05:00, 2024-02-29 13:10:00}|2     |
    +------------------------------------------+------+
    <BLANKLINE>
    >>> df.groupBy(F.window("ts", "10 minutes", "5 minutes")).agg(F.sum("v")).orderBy("window").show(truncate=False)
    +------------------------------------------+------+
    |window                                    |sum(v)|
    +------------------------------------------+------+
    |{2024-02-29 12:55:00, 2024-02-29 13:05:00}|1     |
    |{2024-02-29 13:00:00, 2024-02-29 13:10:00}|3     |
    |{2024-02-29 13:05:00, 2024-02-29 13:15:00}|2     |
    +------------------------------------------+------+
    <BLANKLINE>
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

    Parameters
    ----------
    timeColumn : Column or str
        the event times (timestamps)
    stepDuration : str
        how much each window grows, such as ``'1 minute'``
    maxSize : str
        the longest window, such as ``'1 hour'``
    startTime : str, optional
        the offset of the periods' starts from 1970-01-01 00:00:00 UTC

    Returns
    -------
    Column
        a struct column ``window`` of ``start`` and ``end`` timestamps

    Examples
    --------
    >>> df = spark.sql("SELECT * FROM VALUES (TIMESTAMP '2024-02-29 13:04:00', 1), (TIMESTAMP '2024-02-29 13:07:00', 2) AS t(ts, v)")
    >>> df.groupBy(F.cumulate_window("ts", "5 minutes", "15 minutes")).agg(F.sum("v")).orderBy("window").show(truncate=False)
    +------------------------------------------+------+
    |window                                    |sum(v)|
    +------------------------------------------+------+
    |{2024-02-29 13:00:00, 2024-02-29 13:05:00}|1     |
    |{2024-02-29 13:00:00, 2024-02-29 13:10:00}|3     |
    |{2024-02-29 13:00:00, 2024-02-29 13:15:00}|3     |
    +------------------------------------------+------+
    <BLANKLINE>
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

    Parameters
    ----------
    timeColumn : Column or str
        the event times (timestamps)
    gapDuration : str or Column
        the gap that ends a session, such as ``'5 minutes'`` (or a column of such strings)

    Returns
    -------
    Column
        a struct column ``session_window`` of ``start`` and ``end`` timestamps

    Examples
    --------
    >>> df = spark.sql("SELECT * FROM VALUES (TIMESTAMP '2024-02-29 13:00:00', 1), (TIMESTAMP '2024-02-29 13:03:00', 2), (TIMESTAMP '2024-02-29 13:20:00', 3) AS t(ts, v)")
    >>> df.groupBy(F.session_window("ts", "5 minutes")).agg(F.sum("v")).orderBy("session_window").show(truncate=False)
    +------------------------------------------+------+
    |session_window                            |sum(v)|
    +------------------------------------------+------+
    |{2024-02-29 13:00:00, 2024-02-29 13:08:00}|3     |
    |{2024-02-29 13:20:00, 2024-02-29 13:25:00}|3     |
    +------------------------------------------+------+
    <BLANKLINE>
    """
    gap = lit(_micros(gapDuration, "gapDuration")) if isinstance(gapDuration, str) else gapDuration
    return _call("session_window", _to_col(timeColumn), gap).alias("session_window")


def window_time(windowColumn: ColumnOrName) -> Column:
    """The event time of a window: its end minus one microsecond (named
    ``window_time(window)`` after its argument, as in Spark).

    Parameters
    ----------
    windowColumn : Column or str
        a ``window`` struct column

    Returns
    -------
    Column
        a ``timestamp`` column: the window's end minus one microsecond, the time of its aggregated rows

    Examples
    --------
    >>> df = spark.sql("SELECT * FROM VALUES (TIMESTAMP '2024-02-29 13:04:00', 1) AS t(ts, v)")
    >>> w = df.groupBy(F.window("ts", "5 minutes")).agg(F.sum("v").alias("total"))
    >>> w.select(F.window_time("window"), "total").show(truncate=False)
    +--------------------------+-----+
    |window_time(window)       |total|
    +--------------------------+-----+
    |2024-02-29 13:04:59.999999|1    |
    +--------------------------+-----+
    <BLANKLINE>
    """
    return _call("window_time", _to_col(windowColumn))


def make_dt_interval(
    days: ColumnOrName | None = None,
    hours: ColumnOrName | None = None,
    mins: ColumnOrName | None = None,
    secs: ColumnOrName | None = None,
) -> Column:
    """A day-time interval of the parts given (missing parts are 0).

    Parameters
    ----------
    days : Column or str, optional
        the days (default 0)
    hours : Column or str, optional
        the hours (default 0)
    mins : Column or str, optional
        the minutes (default 0)
    secs : Column or str, optional
        the seconds, with a fraction (default 0)

    Returns
    -------
    Column
        a day-time ``interval`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 12, 30, 1.5)], ["d", "h", "m", "s"])
    >>> df.select(F.make_dt_interval("d", "h", "m", "s")).show(truncate=False)
    +-------------------------------------+
    |make_dt_interval(d, h, m, s)         |
    +-------------------------------------+
    |INTERVAL '1 12:30:01.5' DAY TO SECOND|
    +-------------------------------------+
    <BLANKLINE>
    """
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
    """An interval of the parts given (missing parts are 0).

    Parameters
    ----------
    years : Column or str, optional
        the years (default 0)
    months : Column or str, optional
        the months (default 0)
    weeks : Column or str, optional
        the weeks (default 0)
    days : Column or str, optional
        the days (default 0)
    hours : Column or str, optional
        the hours (default 0)
    mins : Column or str, optional
        the minutes (default 0)
    secs : Column or str, optional
        the seconds, with a fraction (default 0)

    Returns
    -------
    Column
        a calendar ``interval`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2, 3)], ["y", "m", "d"])
    >>> df.select(F.make_interval(years="y", months="m", days="d")).show(truncate=False)
    +----------------------------------+
    |make_interval(y, m, 0, d, 0, 0, 0)|
    +----------------------------------+
    |1 years 2 months 3 days           |
    +----------------------------------+
    <BLANKLINE>
    """
    return _fn("make_interval", *_parts(years, months, weeks, days, hours, mins, secs, seconds_last=True))


def _parts(*parts: ColumnOrName | None, seconds_last: bool) -> list[ColumnOrName]:
    """Interval parts with the missing ones 0, as Spark fills them (seconds a decimal)."""
    import decimal

    out: list[ColumnOrName] = [lit(0) if p is None else p for p in parts]
    if seconds_last and parts[-1] is None:
        out[-1] = lit(decimal.Decimal(0))
    return out


def make_time(hour: ColumnOrName, minute: ColumnOrName, second: ColumnOrName) -> Column:
    """A time of day from its parts.

    Parameters
    ----------
    hour : Column or str
        the hours, 0 to 23
    minute : Column or str
        the minutes, 0 to 59
    second : Column or str
        the seconds, with a fraction

    Returns
    -------
    Column
        a ``time`` column

    Examples
    --------
    >>> spark.conf.set("spark.sql.timeType.enabled", "true")  # PySpark 4.3 refuses TIME without it
    >>> df = spark.createDataFrame([(13, 45, 30.5)], ["h", "m", "s"])
    >>> df.select(F.make_time("h", "m", "s")).show()
    +------------------+
    |make_time(h, m, s)|
    +------------------+
    |        13:45:30.5|
    +------------------+
    <BLANKLINE>
    """
    return _fn("make_time", hour, minute, second)


def time_trunc(unit: ColumnOrName, time: ColumnOrName) -> Column:
    """``time`` truncated to ``unit``.

    Parameters
    ----------
    unit : Column or str
        the unit: ``HOUR``, ``MINUTE``, ``SECOND``, ``MILLISECOND`` or ``MICROSECOND``
    time : Column or str
        the times

    Returns
    -------
    Column
        a ``time`` column: the times cut down to the unit's start

    Examples
    --------
    >>> spark.conf.set("spark.sql.timeType.enabled", "true")  # PySpark 4.3 refuses TIME without it
    >>> df = spark.sql("SELECT TIME '13:45:30.123' AS t")
    >>> df.select(F.time_trunc(F.lit("MINUTE"), "t")).show()
    +---------------------+
    |time_trunc(MINUTE, t)|
    +---------------------+
    |             13:45:00|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("time_trunc", unit, time)


def to_time(str: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``str`` parsed as a time of day (by ``format`` if given).

    Parameters
    ----------
    str : Column or str
        the strings
    format : Column or str, optional
        a datetime pattern such as ``hh.mm a`` (default: ``HH:mm:ss`` forms)

    Returns
    -------
    Column
        a ``time`` column

    Examples
    --------
    >>> spark.conf.set("spark.sql.timeType.enabled", "true")  # PySpark 4.3 refuses TIME without it
    >>> df = spark.createDataFrame([("13:45:30",)], ["s"])
    >>> df.select(F.to_time("s")).show()
    +----------+
    |to_time(s)|
    +----------+
    |  13:45:30|
    +----------+
    <BLANKLINE>
    >>> df2 = spark.createDataFrame([("01.02 PM",)], ["s"])
    >>> df2.select(F.to_time("s", F.lit("hh.mm a"))).show()
    +-------------------+
    |to_time(s, hh.mm a)|
    +-------------------+
    |           13:02:00|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("to_time", str) if format is None else _fn("to_time", str, format)


def try_to_time(str: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``str`` as a time of day, or null where it does not match.

    Parameters
    ----------
    str : Column or str
        the strings
    format : Column or str, optional
        a datetime pattern such as ``hh.mm a`` (default: ``HH:mm:ss`` forms)

    Returns
    -------
    Column
        a ``time`` column, null where the string does not match

    Examples
    --------
    >>> spark.conf.set("spark.sql.timeType.enabled", "true")  # PySpark 4.3 refuses TIME without it
    >>> df = spark.createDataFrame([("13:45:30.5",), ("9:05",), ("noon",)], ["s"])
    >>> df.select(F.try_to_time("s")).show()
    +-----------------------+
    |try_to_time(to_time(s))|
    +-----------------------+
    |             13:45:30.5|
    |               09:05:00|
    |                   NULL|
    +-----------------------+
    <BLANKLINE>
    """
    return _fn("try_to_time", str) if format is None else _fn("try_to_time", str, format)


def try_to_timestamp(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``col`` parsed as a timestamp (by ``format`` if given); null where it does not parse.

    Parameters
    ----------
    col : Column or str
        the strings
    format : Column or str, optional
        a datetime pattern (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``timestamp`` column, null where the string does not match

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29 13:45:30",), ("not a time",)], ["s"])
    >>> df.select(F.try_to_timestamp("s")).show()
    +-------------------+
    |try_to_timestamp(s)|
    +-------------------+
    |2024-02-29 13:45:30|
    |               NULL|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("try_to_timestamp", col) if format is None else _fn("try_to_timestamp", col, format)


def try_to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    """``col`` parsed as a date (by ``format`` if given); null where it does not parse.

    Parameters
    ----------
    col : Column or str
        the strings
    format : str, optional
        a datetime pattern (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``date`` column, null where the string does not match

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29",), ("2024-02-30",)], ["s"])
    >>> df.select(F.try_to_date("s")).show()
    +--------------+
    |try_to_date(s)|
    +--------------+
    |    2024-02-29|
    |          NULL|
    +--------------+
    <BLANKLINE>
    """
    return _fn("try_to_date", col) if format is None else _call("try_to_date", _to_col(col), lit(format))


def to_timestamp_ltz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``timestamp`` parsed as a timestamp with the session's time zone.

    Parameters
    ----------
    timestamp : Column or str
        the strings (or timestamps)
    format : Column or str, optional
        a datetime pattern (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``timestamp`` column (with the session's local time zone)

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29 13:45:30",)], ["s"])
    >>> df.select(F.to_timestamp_ltz("s")).show()
    +-------------------+
    |to_timestamp_ltz(s)|
    +-------------------+
    |2024-02-29 13:45:30|
    +-------------------+
    <BLANKLINE>
    """
    if format is None:
        return _fn("to_timestamp_ltz", timestamp)
    return _fn("to_timestamp_ltz", timestamp, format)


def to_timestamp_ntz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """The text as a timestamp without time zone (in ``format``, a column or literal, if given).

    Parameters
    ----------
    timestamp : Column or str
        the strings
    format : Column or str, optional
        a datetime pattern (default: ISO 8601 forms)

    Returns
    -------
    Column
        a ``timestamp_ntz`` column (wall-clock times, no time zone)

    Examples
    --------
    >>> df = spark.createDataFrame([("2024-02-29 13:45:30",)], ["s"])
    >>> df.select(F.to_timestamp_ntz("s")).show()
    +-------------------+
    |to_timestamp_ntz(s)|
    +-------------------+
    |2024-02-29 13:45:30|
    +-------------------+
    <BLANKLINE>
    """
    if format is None:
        return _fn("to_timestamp_ntz", timestamp)
    return _fn("to_timestamp_ntz", timestamp, format)


def to_unix_timestamp(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """Seconds since the epoch of a timestamp, or of text in ``format``
    (default ``yyyy-MM-dd HH:mm:ss``) read in the session time zone.

    Parameters
    ----------
    timestamp : Column or str
        the strings (or timestamps, dates)
    format : Column or str, optional
        the strings' datetime pattern (default ``yyyy-MM-dd HH:mm:ss``)

    Returns
    -------
    Column
        a ``bigint`` column: seconds since 1970-01-01 00:00:00 UTC

    Examples
    --------
    >>> df = spark.createDataFrame([("1970-01-02",)], ["s"])
    >>> df.select(F.to_unix_timestamp("s", F.lit("yyyy-MM-dd"))).show()
    +--------------------------------+
    |to_unix_timestamp(s, yyyy-MM-dd)|
    +--------------------------------+
    |                           86400|
    +--------------------------------+
    <BLANKLINE>
    """
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
    session time zone by default); an invalid time is an error.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    timezone : Column or str, optional
        the time zone the fields are in (default: the session's)
    date : Column or str, optional
        a date (instead of the year, month and day)
    time : Column or str, optional
        a time (with ``date``, instead of the hour, minute and second)

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29, 13, 45, 30.5)], ["y", "mo", "d", "h", "mi", "s"])
    >>> df.select(F.make_timestamp("y", "mo", "d", "h", "mi", "s")).show(truncate=False)
    +----------------------------------+
    |make_timestamp(y, mo, d, h, mi, s)|
    +----------------------------------+
    |2024-02-29 13:45:30.5             |
    +----------------------------------+
    <BLANKLINE>
    """
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
    """As :func:`make_timestamp`.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    timezone : Column or str, optional
        the time zone the fields are in (default: the session's)

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29, 13, 45, 30.5)], ["y", "mo", "d", "h", "mi", "s"])
    >>> df.select(F.make_timestamp_ltz("y", "mo", "d", "h", "mi", "s")).show(truncate=False)
    +--------------------------------------+
    |make_timestamp_ltz(y, mo, d, h, mi, s)|
    +--------------------------------------+
    |2024-02-29 13:45:30.5                 |
    +--------------------------------------+
    <BLANKLINE>
    """
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
    """The timestamp without time zone of the fields.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    date : Column or str, optional
        a date (instead of the year, month and day)
    time : Column or str, optional
        a time (with ``date``, instead of the hour, minute and second)

    Returns
    -------
    Column
        a ``timestamp_ntz`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29, 13, 45, 30.5)], ["y", "mo", "d", "h", "mi", "s"])
    >>> df.select(F.make_timestamp_ntz("y", "mo", "d", "h", "mi", "s")).show(truncate=False)
    +--------------------------------------+
    |make_timestamp_ntz(y, mo, d, h, mi, s)|
    +--------------------------------------+
    |2024-02-29 13:45:30.5                 |
    +--------------------------------------+
    <BLANKLINE>
    """
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
    """As :func:`make_timestamp`, null for an invalid time.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    timezone : Column or str, optional
        the time zone the fields are in (default: the session's)
    date : Column or str, optional
        a date (instead of the year, month and day)
    time : Column or str, optional
        a time (with ``date``, instead of the hour, minute and second)

    Returns
    -------
    Column
        a ``timestamp`` column, null where the fields make no valid time

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29), (2023, 2, 29)], ["y", "mo", "d"])
    >>> df.select(F.try_make_timestamp("y", "mo", "d", F.lit(0), F.lit(0), F.lit(0))).show()
    +-------------------------------------+
    |try_make_timestamp(y, mo, d, 0, 0, 0)|
    +-------------------------------------+
    |                  2024-02-29 00:00:00|
    |                                 NULL|
    +-------------------------------------+
    <BLANKLINE>
    """
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
    """As :func:`make_timestamp_ltz`, null for an invalid time.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    timezone : Column or str, optional
        the time zone the fields are in (default: the session's)

    Returns
    -------
    Column
        a ``timestamp`` column, null where the fields make no valid time

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29), (2023, 2, 29)], ["y", "mo", "d"])
    >>> df.select(F.try_make_timestamp_ltz("y", "mo", "d", F.lit(0), F.lit(0), F.lit(0))).show()
    +-----------------------------------------+
    |try_make_timestamp_ltz(y, mo, d, 0, 0, 0)|
    +-----------------------------------------+
    |                      2024-02-29 00:00:00|
    |                                     NULL|
    +-----------------------------------------+
    <BLANKLINE>
    """
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
    """As :func:`make_timestamp_ntz`, null for an invalid time.

    Parameters
    ----------
    years : Column or str, optional
        the years
    months : Column or str, optional
        the months, 1 to 12
    days : Column or str, optional
        the days of the month
    hours : Column or str, optional
        the hours, 0 to 23
    mins : Column or str, optional
        the minutes, 0 to 59
    secs : Column or str, optional
        the seconds, with a fraction
    date : Column or str, optional
        a date (instead of the year, month and day)
    time : Column or str, optional
        a time (with ``date``, instead of the hour, minute and second)

    Returns
    -------
    Column
        a ``timestamp_ntz`` column, null where the fields make no valid time

    Examples
    --------
    >>> df = spark.createDataFrame([(2024, 2, 29), (2023, 2, 29)], ["y", "mo", "d"])
    >>> df.select(F.try_make_timestamp_ntz("y", "mo", "d", F.lit(0), F.lit(0), F.lit(0))).show()
    +-----------------------------------------+
    |try_make_timestamp_ntz(y, mo, d, 0, 0, 0)|
    +-----------------------------------------+
    |                      2024-02-29 00:00:00|
    |                                     NULL|
    +-----------------------------------------+
    <BLANKLINE>
    """
    return _make_timestamp("try_make_timestamp_ntz", (years, months, days, hours, mins, secs), None, date, time)


def timestamp_add(unit: str, quantity: ColumnOrName, ts: ColumnOrName) -> Column:
    """``ts`` moved by ``quantity`` ``unit``s (YEAR, QUARTER, MONTH, WEEK,
    DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND), on the calendar
    of the session time zone.

    Parameters
    ----------
    unit : str
        the unit: ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``, ``HOUR``, ``MINUTE``, ``SECOND``, ``MILLISECOND`` or ``MICROSECOND``
    quantity : Column or str
        how many units
    ts : Column or str
        the timestamps

    Returns
    -------
    Column
        a ``timestamp`` column

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30' AS ts")
    >>> df.select(F.timestamp_add("HOUR", F.lit(3), "ts"), F.timestamp_add("MONTH", F.lit(-1), "ts")).show()
    +-------------------------+---------------------------+
    |timestampadd(HOUR, 3, ts)|timestampadd(MONTH, -1, ts)|
    +-------------------------+---------------------------+
    |      2024-02-29 16:45:30|        2024-01-29 13:45:30|
    +-------------------------+---------------------------+
    <BLANKLINE>
    """
    return _call("timestampadd", lit(unit), _to_col(quantity), _to_col(ts))


def timestamp_diff(unit: str, start: ColumnOrName, end: ColumnOrName) -> Column:
    """Whole ``unit``s from ``start`` to ``end``.

    Parameters
    ----------
    unit : str
        the unit: ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``, ``HOUR``, ``MINUTE``, ``SECOND``, ``MILLISECOND`` or ``MICROSECOND``
    start : Column or str
        the earlier timestamps
    end : Column or str
        the later timestamps

    Returns
    -------
    Column
        a ``bigint`` column: whole units from ``start`` to ``end``

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP '2024-01-01 00:00:00' AS a, TIMESTAMP '2024-02-29 13:45:30' AS b")
    >>> df.select(F.timestamp_diff("DAY", "a", "b"), F.timestamp_diff("MONTH", "a", "b")).show()
    +------------------------+--------------------------+
    |timestampdiff(DAY, a, b)|timestampdiff(MONTH, a, b)|
    +------------------------+--------------------------+
    |                      59|                         1|
    +------------------------+--------------------------+
    <BLANKLINE>
    """
    return _call("timestampdiff", lit(unit), _to_col(start), _to_col(end))


def convert_timezone(sourceTz: Column | None, targetTz: Column, sourceTs: ColumnOrName) -> Column:
    """The wall-clock time ``sourceTs`` in ``sourceTz`` (the session time
    zone when None) as wall-clock time in ``targetTz``.

    Parameters
    ----------
    sourceTz : Column, optional
        the time zone the times are in (default: the session's)
    targetTz : Column
        the time zone to convert them to
    sourceTs : Column or str
        the wall-clock times (``timestamp_ntz``)

    Returns
    -------
    Column
        a ``timestamp_ntz`` column: the wall-clock times in ``targetTz``

    Examples
    --------
    >>> df = spark.sql("SELECT TIMESTAMP_NTZ '2024-02-29 13:45:30' AS t")
    >>> df.select(F.convert_timezone(F.lit("Europe/Paris"), F.lit("Asia/Tokyo"), "t")).show()
    +---------------------------------------------+
    |convert_timezone(Europe/Paris, Asia/Tokyo, t)|
    +---------------------------------------------+
    |                          2024-02-29 21:45:30|
    +---------------------------------------------+
    <BLANKLINE>
    """
    if sourceTz is None:
        return _call("convert_timezone", targetTz, _to_col(sourceTs))
    return _call("convert_timezone", sourceTz, targetTz, _to_col(sourceTs))
