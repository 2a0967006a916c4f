//! Spark's interval strings as `CalendarInterval` reads them
//! (`IntervalUtils.stringToInterval`): what triggers and `withWatermark`
//! accept. Stricter than `trigger::parse_duration_ms` (which also reads the
//! `10s` / `5 ms` forms of Spark's time configs): only full unit names,
//! optionally plural, a fraction only on seconds, and Spark's
//! `INVALID_INTERVAL_FORMAT` conditions for the rest.

use crate::error::{Error, Result};

/// An interval as Spark keeps it: months apart (their length varies), the rest in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CalendarInterval {
    /// Months and years (12 months each).
    pub months: i64,
    /// Weeks, days, hours, minutes, seconds and below, in microseconds.
    pub micros: i64,
}

const UNITS: [(&str, i64); 9] = [
    ("year", 0),
    ("month", 0),
    ("week", 7 * 86_400_000_000),
    ("day", 86_400_000_000),
    ("hour", 3_600_000_000),
    ("minute", 60_000_000),
    ("second", 1_000_000),
    ("millisecond", 1_000),
    ("microsecond", 1),
];

/// Parse `text` as Spark's `stringToInterval` does, with its error conditions.
pub fn parse_calendar_interval(text: &str) -> Result<CalendarInterval> {
    let fail = |sub: &str, detail: String| {
        Error::illegal_argument_in(
            &format!("INVALID_INTERVAL_FORMAT.{sub}"),
            format!(
                "Error parsing '{text}' to interval. Please ensure that the value provided is in a valid format for defining an interval. You can reference the documentation for the correct format. {detail}"
            ),
        )
    };
    let lower = text.trim().to_ascii_lowercase();
    let body = match lower.strip_prefix("interval") {
        Some("") => "",
        Some(rest) if rest.starts_with(char::is_whitespace) => rest.trim_start(),
        Some(_) => {
            return Err(fail(
                "INVALID_PREFIX",
                "Invalid interval prefix interval.".into(),
            ))
        }
        None => lower.as_str(),
    };
    if body.is_empty() {
        return Err(fail(
            "INPUT_IS_EMPTY",
            "Interval string cannot be empty.".into(),
        ));
    }
    let words: Vec<&str> = body.split_whitespace().collect();
    let mut out = CalendarInterval::default();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let (negative, digits) = match word.as_bytes()[0] {
            b'-' => (true, &word[1..]),
            b'+' => (false, &word[1..]),
            b'0'..=b'9' | b'.' => (false, word),
            _ => {
                return Err(fail(
                    "UNRECOGNIZED_NUMBER",
                    format!("Unrecognized number {word}."),
                ))
            }
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !numeric(whole) || !numeric(fraction) || (whole.is_empty() && fraction.is_empty()) {
            return Err(fail("INVALID_VALUE", format!("Invalid value {word}.")));
        }
        if fraction.len() > 9 {
            return Err(fail(
                "INVALID_PRECISION",
                format!("Interval can only support nanosecond precision, {word} is out of range."),
            ));
        }
        let Some(unit_word) = words.get(i + 1) else {
            return Err(fail(
                "MISSING_UNIT",
                format!("Expect a unit name after {word} but hit EOL."),
            ));
        };
        let unit = UNITS
            .iter()
            .find(|(name, _)| *unit_word == *name || unit_word.strip_suffix('s') == Some(name))
            .ok_or_else(|| fail("INVALID_UNIT", format!("Invalid unit {unit_word}.")))?;
        if !fraction.is_empty() && unit.0 != "second" {
            return Err(fail(
                "INVALID_FRACTION",
                format!("{unit_word} cannot have fractional part."),
            ));
        }
        let overflow = || {
            Error::illegal_argument_in(
                "INVALID_INTERVAL_FORMAT.ARITHMETIC_EXCEPTION",
                format!("Error parsing '{text}' to interval. Please ensure that the value provided is in a valid format for defining an interval. You can reference the documentation for the correct format. Uncaught arithmetic exception while parsing '{text}'."),
            )
        };
        let value: i64 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| overflow())?
        };
        let sign = if negative { -1 } else { 1 };
        match unit.0 {
            "year" => out.months += sign * value.checked_mul(12).ok_or_else(overflow)?,
            "month" => out.months += sign * value,
            _ => {
                let mut micros = value.checked_mul(unit.1).ok_or_else(overflow)?;
                if !fraction.is_empty() {
                    // nanosecond digits, kept to microseconds
                    let nanos: i64 = format!("{fraction:0<9}").parse().map_err(|_| overflow())?;
                    micros += nanos / 1_000;
                }
                out.micros = out.micros.checked_add(sign * micros).ok_or_else(overflow)?;
            }
        }
        i += 2;
    }
    Ok(out)
}

/// A trigger's interval (`processingTime`, `continuous`, `realTime`) in
/// milliseconds, refused as Spark's `Triggers.convert` refuses it.
pub fn trigger_interval_ms(text: &str) -> Result<i64> {
    let interval = parse_calendar_interval(text)?;
    if interval.months != 0 {
        // a legacy condition: its message has no [condition] prefix
        return Err(Error::IllegalArgument {
            condition: Some("_LEGACY_ERROR_TEMP_3262".into()),
            message: format!("Doesn't support month or year interval: {text}"),
        });
    }
    if interval.micros < 0 {
        return Err(Error::illegal_argument(
            "requirement failed: the interval of trigger should not be negative",
        ));
    }
    Ok(interval.micros / 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(text: &str) -> String {
        match parse_calendar_interval(text) {
            Err(Error::IllegalArgument { condition, .. }) => condition.unwrap_or_default(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn reads_spark_interval_strings() {
        let micros = |t: &str| parse_calendar_interval(t).unwrap().micros;
        assert_eq!(micros("10 seconds"), 10_000_000);
        assert_eq!(micros("interval 1 minute 30 seconds"), 90_000_000);
        assert_eq!(micros("1.5 seconds"), 1_500_000);
        assert_eq!(micros("1 week -1 day"), 6 * 86_400_000_000);
        assert_eq!(micros("250 milliseconds 3 microseconds"), 250_003);
        assert_eq!(
            parse_calendar_interval("1 year 2 months").unwrap().months,
            14
        );
    }

    #[test]
    fn refuses_as_spark_does() {
        assert_eq!(condition("10s"), "INVALID_INTERVAL_FORMAT.INVALID_VALUE");
        assert_eq!(condition("10"), "INVALID_INTERVAL_FORMAT.MISSING_UNIT");
        assert_eq!(
            condition("interval"),
            "INVALID_INTERVAL_FORMAT.INPUT_IS_EMPTY"
        );
        assert_eq!(
            condition("1.5 minutes"),
            "INVALID_INTERVAL_FORMAT.INVALID_FRACTION"
        );
        assert_eq!(
            condition("abc seconds"),
            "INVALID_INTERVAL_FORMAT.UNRECOGNIZED_NUMBER"
        );
        assert_eq!(condition("10 sec"), "INVALID_INTERVAL_FORMAT.INVALID_UNIT");
        assert_eq!(
            condition("--1 second"),
            "INVALID_INTERVAL_FORMAT.INVALID_VALUE"
        );
    }
}
