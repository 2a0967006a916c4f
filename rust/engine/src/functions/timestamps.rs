//! Spark's timestamp construction and calendar arithmetic, in the session
//! time zone: `make_timestamp` (`_ltz`, `_ntz`, and the `try_` forms that
//! give null for an invalid time), `timestampadd` / `timestampdiff` by a
//! unit, `months_between`, and `localtimestamp()`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array, TimestampMicrosecondArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Float64Type, Int64Type, TimeUnit};
use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use chrono_tz::Tz;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{ScalarUDF, Volatility};

use super::udfs::{kernel_udf, micros, strings, ts_type, zoned};
use crate::formats::datetime::{local_to_utc_micros, session_zone};

pub(super) fn all() -> Vec<ScalarUDF> {
    let ntz = DataType::Timestamp(TimeUnit::Microsecond, None);
    let imm = Volatility::Immutable;
    vec![
        LocalTimestamp::udf(),
        kernel_udf("to_time", DataType::Time64(TimeUnit::Microsecond), |a| {
            to_time(a, false)
        }),
        kernel_udf(
            "try_to_time",
            DataType::Time64(TimeUnit::Microsecond),
            |a| to_time(a, true),
        ),
        kernel_udf("make_date", DataType::Date32, make_date),
        kernel_udf(
            "make_time",
            DataType::Time64(TimeUnit::Microsecond),
            make_time,
        ),
        zoned(
            "make_timestamp",
            ts_type(),
            |a, tz| make(a, tz, Kind::Zoned, false),
            imm,
        ),
        zoned(
            "make_timestamp_ltz",
            ts_type(),
            |a, tz| make(a, tz, Kind::Zoned, false),
            imm,
        ),
        zoned(
            "try_make_timestamp",
            ts_type(),
            |a, tz| make(a, tz, Kind::Zoned, true),
            imm,
        ),
        zoned(
            "try_make_timestamp_ltz",
            ts_type(),
            |a, tz| make(a, tz, Kind::Zoned, true),
            imm,
        ),
        zoned(
            "make_timestamp_ntz",
            ntz.clone(),
            |a, tz| make(a, tz, Kind::WallClock, false),
            imm,
        ),
        zoned(
            "try_make_timestamp_ntz",
            ntz,
            |a, tz| make(a, tz, Kind::WallClock, true),
            imm,
        ),
        zoned("timestampadd", ts_type(), timestamp_add, imm),
        zoned("timestampdiff", DataType::Int64, timestamp_diff, imm),
        zoned("months_between", DataType::Float64, months_between, imm),
        zoned(
            "convert_timezone",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            convert_timezone,
            imm,
        ),
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// An instant: the fields are wall-clock time in a zone
    Zoned,
    /// A timestamp without time zone: the fields as they are
    WallClock,
}

fn ints(a: &ArrayRef) -> DFResult<arrow::array::PrimitiveArray<Int64Type>> {
    Ok(cast(a, &DataType::Int64)?
        .as_primitive::<Int64Type>()
        .clone())
}

/// `make_timestamp(year, month, day, hour, min, sec[, timezone])`.
fn make(args: &[ArrayRef], session: &Tz, kind: Kind, lenient: bool) -> DFResult<ArrayRef> {
    if !(6..=7).contains(&args.len()) {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] make_timestamp takes (year, month, day, hour, min, sec[, timezone])"
                .into(),
        ));
    }
    let fields: Vec<_> = args[..5].iter().map(ints).collect::<DFResult<_>>()?;
    let secs = cast(&args[5], &DataType::Float64)?;
    let secs = secs.as_primitive::<Float64Type>();
    let zones = match args.get(6) {
        Some(z) => Some(strings(z)?),
        None => None,
    };
    let mut out = Vec::with_capacity(secs.len());
    for row in 0..secs.len() {
        if fields.iter().any(|f| f.is_null(row)) || secs.is_null(row) {
            out.push(None);
            continue;
        }
        let zone = match &zones {
            Some(z) if z.is_null(row) => {
                out.push(None);
                continue;
            }
            Some(z) => Some(session_zone(z.value(row)).ok_or_else(|| {
                DataFusionError::Execution(format!(
                    "[INVALID_TIMEZONE] make_timestamp: '{}' is not a time zone",
                    z.value(row)
                ))
            })?),
            None => None,
        };
        let v = |i: usize| fields[i].value(row);
        let local = wall_clock(v(0), v(1), v(2), v(3), v(4), secs.value(row));
        let value = local.and_then(|t| match kind {
            Kind::WallClock => Some(t.and_utc().timestamp_micros()),
            Kind::Zoned => local_to_utc_micros(t, zone.as_ref().unwrap_or(session)),
        });
        match value {
            Some(v) => out.push(Some(v)),
            None if lenient => out.push(None),
            None => {
                return Err(DataFusionError::Execution(format!(
                    "[DATETIME_FIELD_OUT_OF_BOUNDS] make_timestamp: {}-{}-{} {}:{}:{} is not a valid timestamp (try_make_timestamp gives null instead)",
                    v(0),
                    v(1),
                    v(2),
                    v(3),
                    v(4),
                    secs.value(row)
                )))
            }
        }
    }
    let array = TimestampMicrosecondArray::from(out);
    Ok(Arc::new(match kind {
        Kind::Zoned => array.with_timezone("UTC"),
        Kind::WallClock => array,
    }))
}

/// The date and time of the fields; seconds may carry a fraction, and 60
/// (with no fraction) is the next minute, as Spark allows.
fn wall_clock(
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    secs: f64,
) -> Option<NaiveDateTime> {
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(year).ok()?,
        u32::try_from(month).ok()?,
        u32::try_from(day).ok()?,
    )?;
    if !(0.0..=60.0).contains(&secs) || (secs >= 60.0 && secs.fract() != 0.0) {
        return None;
    }
    let micros = (secs * 1e6).round() as i64;
    let time = NaiveTime::from_hms_opt(u32::try_from(hour).ok()?, u32::try_from(min).ok()?, 0)?;
    Some(NaiveDateTime::new(date, time) + chrono::Duration::microseconds(micros))
}

/// A unit of `timestampadd` / `timestampdiff`: months, or microseconds.
enum Unit {
    Months(i64),
    Micros(i64),
}

fn unit(name: &str) -> DFResult<Unit> {
    Ok(match name.to_ascii_uppercase().as_str() {
        "YEAR" => Unit::Months(12),
        "QUARTER" => Unit::Months(3),
        "MONTH" => Unit::Months(1),
        "WEEK" => Unit::Micros(7 * 86_400_000_000),
        "DAY" | "DAYOFYEAR" => Unit::Micros(86_400_000_000),
        "HOUR" => Unit::Micros(3_600_000_000),
        "MINUTE" => Unit::Micros(60_000_000),
        "SECOND" => Unit::Micros(1_000_000),
        "MILLISECOND" => Unit::Micros(1_000),
        "MICROSECOND" => Unit::Micros(1),
        other => {
            return Err(DataFusionError::Plan(format!(
                "[INVALID_PARAMETER_VALUE.DATETIME_UNIT] the unit '{other}' is not one of YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND"
            )))
        }
    })
}

fn local(micros: i64, tz: &Tz) -> Option<NaiveDateTime> {
    Some(
        DateTime::from_timestamp_micros(micros)?
            .with_timezone(tz)
            .naive_local(),
    )
}

/// `timestampadd(unit, quantity, ts)`: months on the calendar of the
/// session time zone (the day clamped to the month's end), other units as
/// elapsed time.
fn timestamp_add(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let [u, quantity, ts] = args else {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] timestampadd takes (unit, quantity, timestamp)".into(),
        ));
    };
    let (units, quantity, ts) = (strings(u)?, ints(quantity)?, micros(ts, tz)?);
    let mut out = Vec::with_capacity(ts.len());
    for (row, t) in ts.iter().enumerate() {
        let (Some(t), false, false) = (t, quantity.is_null(row), units.is_null(row)) else {
            out.push(None);
            continue;
        };
        let q = quantity.value(row);
        out.push(match unit(units.value(row))? {
            Unit::Micros(m) => t.checked_add(q.saturating_mul(m)),
            Unit::Months(m) => {
                let months = q * m;
                local(*t, tz).and_then(|l| {
                    let shifted = if months >= 0 {
                        l.checked_add_months(Months::new(months as u32))
                    } else {
                        l.checked_sub_months(Months::new(months.unsigned_abs() as u32))
                    }?;
                    local_to_utc_micros(shifted, tz)
                })
            }
        });
    }
    Ok(Arc::new(
        TimestampMicrosecondArray::from(out).with_timezone("UTC"),
    ))
}

/// Whole months from `a` to `b` on the calendar of `tz`, counted as Spark
/// does (a month is complete when the day and time of day reach `a`'s).
fn whole_months(a: NaiveDateTime, b: NaiveDateTime) -> i64 {
    let months = (i64::from(b.year()) - i64::from(a.year())) * 12 + i64::from(b.month())
        - i64::from(a.month());
    let later_in_month =
        |x: NaiveDateTime, y: NaiveDateTime| (x.day(), x.time()) > (y.day(), y.time());
    if months > 0 && later_in_month(a, b) {
        months - 1
    } else if months < 0 && later_in_month(b, a) {
        months + 1
    } else {
        months
    }
}

/// `timestampdiff(unit, start, end)`: whole units from `start` to `end`.
fn timestamp_diff(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let [u, start, end] = args else {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] timestampdiff takes (unit, start, end)".into(),
        ));
    };
    let (units, start, end) = (strings(u)?, micros(start, tz)?, micros(end, tz)?);
    let mut out = Vec::with_capacity(start.len());
    for row in 0..start.len() {
        let (Some(s), Some(e), false) = (start[row], end[row], units.is_null(row)) else {
            out.push(None);
            continue;
        };
        out.push(match unit(units.value(row))? {
            Unit::Micros(m) => Some((e - s) / m),
            Unit::Months(m) => match (local(s, tz), local(e, tz)) {
                (Some(a), Some(b)) => Some(whole_months(a, b) / m),
                _ => None,
            },
        });
    }
    Ok(Arc::new(Int64Array::from(out)))
}

/// `convert_timezone([source,] target, ts)`: the wall-clock time `ts` in
/// `source` (the session time zone by default) as wall-clock time in
/// `target`, a timestamp without time zone.
fn convert_timezone(args: &[ArrayRef], session: &Tz) -> DFResult<ArrayRef> {
    let (source, target, ts) = match args {
        [target, ts] => (None, target, ts),
        [source, target, ts] => (Some(strings(source)?), target, ts),
        _ => {
            return Err(DataFusionError::Plan(
                "[WRONG_NUM_ARGS] convert_timezone takes ([sourceTz,] targetTz, sourceTs)".into(),
            ))
        }
    };
    let target = strings(target)?;
    // the timestamp's wall clock: text as written, a timestamp in the session zone
    let wall = micros(ts, &Tz::UTC)?;
    let zone = |name: &str| {
        session_zone(name).ok_or_else(|| {
            DataFusionError::Execution(format!(
                "[INVALID_TIMEZONE] convert_timezone: '{name}' is not a time zone"
            ))
        })
    };
    let mut out = Vec::with_capacity(wall.len());
    for (row, w) in wall.iter().enumerate() {
        let from = match &source {
            Some(s) if s.is_null(row) => None,
            Some(s) => Some(zone(s.value(row))?),
            None => Some(*session),
        };
        let to = (!target.is_null(row))
            .then(|| zone(target.value(row)))
            .transpose()?;
        let value = match (w, from, to) {
            (Some(w), Some(from), Some(to)) => DateTime::from_timestamp_micros(*w)
                .and_then(|t| local_to_utc_micros(t.naive_utc(), &from))
                .and_then(|instant| local(instant, &to))
                .map(|l| l.and_utc().timestamp_micros()),
            _ => None,
        };
        out.push(value);
    }
    Ok(Arc::new(TimestampMicrosecondArray::from(out)))
}

/// `months_between(end, start[, roundOff])`: whole months when the days of
/// month match or both are their month's last; else the day difference
/// (and time of day) in months of 31 days; rounded to 8 digits unless
/// `roundOff` is false.
fn months_between(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    if !(2..=3).contains(&args.len()) {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] months_between takes (date1, date2[, roundOff])".into(),
        ));
    }
    let (first, second) = (micros(&args[0], tz)?, micros(&args[1], tz)?);
    let round = match args.get(2) {
        Some(r) => Some(cast(r, &DataType::Boolean)?.as_boolean().clone()),
        None => None,
    };
    let mut out = Vec::with_capacity(first.len());
    for row in 0..first.len() {
        let (Some(a), Some(b)) = (
            first[row].and_then(|m| local(m, tz)),
            second[row].and_then(|m| local(m, tz)),
        ) else {
            out.push(None);
            continue;
        };
        let last_day =
            |d: NaiveDateTime| d.date().succ_opt().is_some_and(|n| n.month() != d.month());
        let months = f64::from((a.year() - b.year()) * 12 + a.month() as i32 - b.month() as i32);
        let value = if a.day() == b.day() || (last_day(a) && last_day(b)) {
            months
        } else {
            let seconds = |d: NaiveDateTime| {
                f64::from(d.day()) * 86_400.0 + f64::from(d.num_seconds_from_midnight())
            };
            months + (seconds(a) - seconds(b)) / (31.0 * 86_400.0)
        };
        let round_off = round
            .as_ref()
            .is_none_or(|r| r.is_null(row) || r.value(row));
        out.push(Some(if round_off {
            (value * 1e8).round() / 1e8
        } else {
            value
        }));
    }
    Ok(Arc::new(Float64Array::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn whole_months_count_complete_months() {
        assert_eq!(
            whole_months(at("2016-03-11 09:00:07"), at("2024-04-02 09:00:07")) / 12,
            8
        );
        assert_eq!(
            whole_months(at("2016-03-11 09:00:07"), at("2016-04-11 09:00:06")),
            0
        );
        assert_eq!(
            whole_months(at("2016-04-11 09:00:07"), at("2016-03-11 09:00:07")),
            -1
        );
    }

    #[test]
    fn wall_clock_takes_fractions_and_a_sixtieth_second() {
        let t = wall_clock(2014, 12, 28, 6, 30, 45.887).unwrap();
        assert_eq!(t.to_string(), "2014-12-28 06:30:45.887");
        assert_eq!(
            wall_clock(2014, 12, 28, 6, 30, 60.0).unwrap().to_string(),
            "2014-12-28 06:31:00"
        );
        assert!(wall_clock(2014, 2, 30, 0, 0, 0.0).is_none());
        assert!(wall_clock(2014, 1, 1, 0, 0, 60.5).is_none());
    }
}

/// Spark's error for a date or time field out of its range.
fn field_out_of_bounds(what: &str) -> DataFusionError {
    crate::error::kernel_error("DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION", what)
}

/// `make_date(year, month, day)`: Spark's error for a field out of range
/// or a day the month does not have.
fn make_date(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [year, month, day] = args else {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] make_date takes (year, month, day)".into(),
        ));
    };
    let fields = [year, month, day]
        .map(|a| cast(a, &DataType::Int64))
        .into_iter()
        .collect::<DFResult<Vec<_>, _>>()?;
    let [year, month, day] = [0, 1, 2].map(|i| fields[i].as_primitive::<Int64Type>());
    let mut out = arrow::array::Date32Builder::with_capacity(year.len());
    for row in 0..year.len() {
        if year.is_null(row) || month.is_null(row) || day.is_null(row) {
            out.append_null();
            continue;
        }
        let (y, m, d) = (year.value(row), month.value(row), day.value(row));
        out.append_value(civil_date(y, m, d)?);
    }
    Ok(Arc::new(out.finish()))
}

/// Days since 1970-01-01 of `y-m-d`, checked field by field as Java's
/// `LocalDate.of` (whose messages Spark passes on).
fn civil_date(y: i64, m: i64, d: i64) -> DFResult<i32> {
    let range = |field: &str, value: i64, range: &str| {
        field_out_of_bounds(&format!(
            "Invalid value for {field} (valid values {range}): {value}."
        ))
    };
    if !(-999_999_999..=999_999_999).contains(&y) {
        return Err(range("Year", y, "-999999999 - 999999999"));
    }
    if !(1..=12).contains(&m) {
        return Err(range("MonthOfYear", m, "1 - 12"));
    }
    if !(1..=31).contains(&d) {
        return Err(range("DayOfMonth", d, "1 - 28/31"));
    }
    let Some(first) = i32::try_from(y)
        .ok()
        .and_then(|y| NaiveDate::from_ymd_opt(y, m as u32, 1))
    else {
        return Err(field_out_of_bounds(&format!(
            "the year {y} is past the dates sparklet holds (years -262142 to 262142)"
        )));
    };
    match first.with_day(d as u32) {
        Some(date) => Ok(date.num_days_from_ce() - 719_163),
        None if m == 2 && d == 29 => Err(field_out_of_bounds(&format!(
            "Invalid date 'February 29' as '{y}' is not a leap year."
        ))),
        None => {
            let month =
                chrono::Month::try_from(m as u8).map_or(String::new(), |m| m.name().to_uppercase());
            Err(field_out_of_bounds(&format!("Invalid date '{month} {d}'.")))
        }
    }
}

/// `make_time(hour, minute, second)`: a time of day, the seconds with up
/// to six decimals (Spark reads them as `decimal(16, 6)`).
fn make_time(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [hour, minute, second] = args else {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] make_time takes (hour, minute, second)".into(),
        ));
    };
    let (hour, minute) = (
        cast(hour, &DataType::Int64)?,
        cast(minute, &DataType::Int64)?,
    );
    let second = cast(second, &DataType::Decimal128(16, 6))?;
    let (hour, minute) = (
        hour.as_primitive::<Int64Type>(),
        minute.as_primitive::<Int64Type>(),
    );
    let second = second.as_primitive::<arrow::datatypes::Decimal128Type>();
    let mut out = arrow::array::Time64MicrosecondBuilder::with_capacity(hour.len());
    for row in 0..hour.len() {
        if hour.is_null(row) || minute.is_null(row) || second.is_null(row) {
            out.append_null();
            continue;
        }
        let (h, m, micros) = (hour.value(row), minute.value(row), second.value(row));
        let bad = |field: &str, value: String, range: &str| {
            field_out_of_bounds(&format!(
                "Invalid value for {field} (valid values {range}): {value}."
            ))
        };
        if !(0..24).contains(&h) {
            return Err(bad("HourOfDay", h.to_string(), "0 - 23"));
        }
        if !(0..60).contains(&m) {
            return Err(bad("MinuteOfHour", m.to_string(), "0 - 59"));
        }
        if !(0..60_000_000).contains(&micros) {
            return Err(bad(
                "SecondOfMinute",
                format!("{}", micros as f64 / 1e6),
                "0 - 59",
            ));
        }
        out.append_value((h * 3600 + m * 60) * 1_000_000 + micros as i64);
    }
    Ok(Arc::new(out.finish()))
}

/// `to_time(str[, format])` (and `try_to_time`, null where the text does
/// not match): a time of day read by a Java datetime pattern, or without
/// one as `H:mm[:ss[.SSSSSS]]`.
fn to_time(args: &[ArrayRef], lenient: bool) -> DFResult<ArrayRef> {
    if !(1..=2).contains(&args.len()) {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] to_time takes (str[, format])".into(),
        ));
    }
    let text = strings(&args[0])?;
    let formats = args.get(1).map(strings).transpose()?;
    let mut out = arrow::array::Time64MicrosecondBuilder::with_capacity(text.len());
    for row in 0..text.len() {
        let format = formats
            .as_ref()
            .map(|f| f.is_valid(row).then(|| f.value(row)));
        let (true, Some(format)) = (text.is_valid(row), format.or(Some(None))) else {
            out.append_null();
            continue;
        };
        let value = text.value(row).trim();
        let parsed = match format {
            None => ["%H:%M:%S%.f", "%H:%M"]
                .iter()
                .find_map(|f| NaiveTime::parse_from_str(value, f).ok()),
            Some(p) => {
                NaiveTime::parse_from_str(value, &crate::formats::datetime::java_to_chrono(p)).ok()
            }
        };
        match parsed {
            Some(t) => out.append_value(
                i64::from(t.num_seconds_from_midnight()) * 1_000_000 + i64::from(t.nanosecond() / 1_000),
            ),
            None if lenient => out.append_null(),
            None => {
                return Err(DataFusionError::Execution(format!(
                    "[CANNOT_PARSE_TIME] The input string '{value}' cannot be parsed to a TIME value because it does not match to the datetime format '{}'.",
                    format.unwrap_or("HH:mm:ss.SSSSSS")
                )))
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

/// `localtimestamp()`: the query's start as wall-clock time in the session
/// time zone (`timestamp_ntz`), the same on every row, as `now()` is.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LocalTimestamp {
    signature: datafusion::logical_expr::Signature,
}

impl LocalTimestamp {
    pub fn udf() -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            signature: datafusion::logical_expr::Signature::nullary(Volatility::Stable),
        })
    }
}

impl datafusion::logical_expr::ScalarUDFImpl for LocalTimestamp {
    fn name(&self) -> &str {
        "localtimestamp"
    }
    fn signature(&self) -> &datafusion::logical_expr::Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Timestamp(TimeUnit::Microsecond, None))
    }
    fn invoke_with_args(
        &self,
        _args: datafusion::logical_expr::ScalarFunctionArgs,
    ) -> DFResult<datafusion::logical_expr::ColumnarValue> {
        Err(DataFusionError::Internal(
            "localtimestamp() is replaced by its value when planned".into(),
        ))
    }
    fn simplify(
        &self,
        args: Vec<datafusion::logical_expr::Expr>,
        info: &datafusion::logical_expr::simplify::SimplifyContext,
    ) -> DFResult<datafusion::logical_expr::simplify::ExprSimplifyResult> {
        use datafusion::logical_expr::simplify::ExprSimplifyResult;
        let Some(start) = info.query_execution_start_time() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let tz = super::udfs::session_zone_of(&info.config_options().execution.time_zone)?;
        let wall = start.with_timezone(&tz).naive_local().and_utc();
        Ok(ExprSimplifyResult::Simplified(
            datafusion::logical_expr::Expr::Literal(
                datafusion::common::ScalarValue::TimestampMicrosecond(
                    Some(wall.timestamp_micros()),
                    None,
                ),
                None,
            ),
        ))
    }
}
