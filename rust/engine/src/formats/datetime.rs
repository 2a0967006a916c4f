//! Spark's datetime patterns (Java `DateTimeFormatter` style) and the
//! string-to-timestamp parsing shared by readers and functions.

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Date32Array, StringArray, TimestampMicrosecondArray};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, TimeUnit};
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use super::ReadOptions;
use crate::error::Result;

/// Translate a Java/Spark datetime pattern (`yyyy-MM-dd HH:mm:ss.SSS`) into a
/// chrono format string (`%Y-%m-%d %H:%M:%S%.3f`).
pub fn java_to_chrono(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // quoted literal; '' is a single quote
            i += 1;
            if i < chars.len() && chars[i] == '\'' {
                out.push('\'');
                i += 1;
                continue;
            }
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '%' {
                    out.push_str("%%");
                } else {
                    out.push(chars[i]);
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        let mut n = 1;
        while i + n < chars.len() && chars[i + n] == c {
            n += 1;
        }
        let spec = match (c, n) {
            ('y', 2) => "%y".to_string(),
            ('y', _) | ('u', _) => "%Y".to_string(),
            ('M', 1) => "%-m".to_string(),
            ('M', 2) => "%m".to_string(),
            ('M', 3) => "%b".to_string(),
            ('M', _) => "%B".to_string(),
            ('d', 1) => "%-d".to_string(),
            ('d', _) => "%d".to_string(),
            ('D', _) => "%j".to_string(),
            ('H', 1) => "%-H".to_string(),
            ('H', _) => "%H".to_string(),
            ('h', 1) => "%-I".to_string(),
            ('h', _) => "%I".to_string(),
            ('m', 1) => "%-M".to_string(),
            ('m', _) => "%M".to_string(),
            ('s', 1) => "%-S".to_string(),
            ('s', _) => "%S".to_string(),
            ('S', k) => match k {
                1..=3 => "%3f".to_string(),
                4..=6 => "%6f".to_string(),
                _ => "%9f".to_string(),
            },
            ('a', _) => "%p".to_string(),
            ('E', 4..) => "%A".to_string(),
            ('E', _) => "%a".to_string(),
            ('X', 1) | ('x', 1) => "%#z".to_string(),
            ('X', _) | ('x', _) | ('Z', 5) => "%:z".to_string(),
            ('Z', _) => "%z".to_string(),
            ('z', _) | ('V', _) => "%Z".to_string(),
            ('%', _) => "%%".repeat(n),
            (other, k) => std::iter::repeat_n(other, k).collect(),
        };
        out.push_str(&spec);
        i += n;
    }
    out
}

/// Parse `s` as a timestamp in microseconds since the epoch (UTC), with a
/// Java-style `pattern` or, without one, Spark's default ISO-8601 forms.
pub fn parse_timestamp_micros(s: &str, pattern: Option<&str>) -> Option<i64> {
    parse_timestamp_micros_in(s, pattern, &chrono_tz::Tz::UTC)
}

/// As [`parse_timestamp_micros`], text without a zone being wall-clock
/// time in `tz` (Spark's session time zone).
pub fn parse_timestamp_micros_in(
    s: &str,
    pattern: Option<&str>,
    tz: &chrono_tz::Tz,
) -> Option<i64> {
    let s = s.trim();
    match pattern {
        None => super::datetime_text::string_to_timestamp_micros_in(s, tz),
        Some(p) => {
            let fmt = java_to_chrono(p);
            if let Ok(dt) = DateTime::parse_from_str(s, &fmt) {
                return Some(dt.with_timezone(&Utc).timestamp_micros());
            }
            if let Ok(ndt) = NaiveDateTime::parse_from_str(s, &fmt) {
                return local_to_utc_micros(ndt, tz);
            }
            if let Ok(d) = NaiveDate::parse_from_str(s, &fmt) {
                return local_to_utc_micros(d.and_time(NaiveTime::MIN), tz);
            }
            None
        }
    }
}

/// The instant of wall-clock time `local` in `tz`: in a gap (spring
/// forward) the time after it, in an overlap the earlier one, as Java's
/// `ZonedDateTime.of` resolves them.
pub fn local_to_utc_micros(local: NaiveDateTime, tz: &chrono_tz::Tz) -> Option<i64> {
    use chrono::offset::LocalResult;
    use chrono::TimeZone;
    match tz.from_local_datetime(&local) {
        LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => Some(t.timestamp_micros()),
        LocalResult::None => {
            let later = local + chrono::Duration::hours(1);
            tz.from_local_datetime(&later)
                .earliest()
                .map(|t| t.timestamp_micros())
        }
    }
}

/// Java's three-letter zone ids (`ZoneId.SHORT_IDS`, which Spark reads
/// zone names with): the region or offset each stands for.
pub const JAVA_SHORT_ZONE_IDS: &[(&str, &str)] = &[
    ("ACT", "Australia/Darwin"),
    ("AET", "Australia/Sydney"),
    ("AGT", "America/Argentina/Buenos_Aires"),
    ("ART", "Africa/Cairo"),
    ("AST", "America/Anchorage"),
    ("BET", "America/Sao_Paulo"),
    ("BST", "Asia/Dhaka"),
    ("CAT", "Africa/Harare"),
    ("CNT", "America/St_Johns"),
    ("CST", "America/Chicago"),
    ("CTT", "Asia/Shanghai"),
    ("EAT", "Africa/Addis_Ababa"),
    ("ECT", "Europe/Paris"),
    ("EST", "-05:00"),
    ("HST", "-10:00"),
    ("IET", "America/Indiana/Indianapolis"),
    ("IST", "Asia/Kolkata"),
    ("JST", "Asia/Tokyo"),
    ("MIT", "Pacific/Apia"),
    ("MST", "-07:00"),
    ("NET", "Asia/Yerevan"),
    ("NST", "Pacific/Auckland"),
    ("PLT", "Asia/Karachi"),
    ("PNT", "America/Phoenix"),
    ("PRT", "America/Puerto_Rico"),
    ("PST", "America/Los_Angeles"),
    ("SST", "Pacific/Guadalcanal"),
    ("VST", "Asia/Ho_Chi_Minh"),
];

/// The zone Java's short id `name` stands for, else `name` itself.
pub fn java_zone_name(name: &str) -> &str {
    JAVA_SHORT_ZONE_IDS
        .iter()
        .find(|(short, _)| *short == name)
        .map_or(name, |(_, full)| full)
}

/// Spark's session time zone by name (`UTC`, `America/Los_Angeles`, Java's
/// `PST`); None for a name it does not know.
pub fn session_zone(name: &str) -> Option<chrono_tz::Tz> {
    let name = java_zone_name(name);
    match name {
        "Z" | "UT" => Some(chrono_tz::Tz::UTC),
        _ => name.parse::<chrono_tz::Tz>().ok(),
    }
}

/// Parse `s` as a date (days since the epoch).
pub fn parse_date_days(s: &str, pattern: Option<&str>) -> Option<i32> {
    let s = s.trim();
    let date = match pattern {
        None => super::datetime_text::string_to_date(s),
        Some(p) => {
            let fmt = java_to_chrono(p);
            NaiveDate::parse_from_str(s, &fmt).ok().or_else(|| {
                NaiveDateTime::parse_from_str(s, &fmt)
                    .ok()
                    .map(|d| d.date())
            })
        }
    }?;
    Some((date - NaiveDate::from_ymd_opt(1970, 1, 1)?).num_days() as i32)
}

/// Format microseconds since the epoch with a Java-style pattern (UTC).
pub fn format_timestamp_micros(micros: i64, pattern: &str) -> Option<String> {
    format_timestamp_micros_in(micros, pattern, &chrono_tz::Tz::UTC)
}

/// As [`format_timestamp_micros`], as wall-clock time in `tz`.
pub fn format_timestamp_micros_in(
    micros: i64,
    pattern: &str,
    tz: &chrono_tz::Tz,
) -> Option<String> {
    let dt = DateTime::from_timestamp_micros(micros)?.with_timezone(tz);
    let fmt = java_to_chrono(pattern);
    let mut out = String::new();
    use std::fmt::Write;
    write!(out, "{}", dt.format(&fmt)).ok()?;
    Some(out)
}

/// Convert a string column to `target`: timestamps and dates with the reader's
/// patterns, everything else with Arrow's cast. Values that do not convert
/// become null (the caller marks their rows malformed).
pub fn convert_string_column(
    col: &ArrayRef,
    target: &DataType,
    opts: &ReadOptions,
) -> Result<ArrayRef> {
    let strings = col.as_string::<i32>();
    Ok(match target {
        DataType::Utf8 => Arc::clone(col),
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let arr: TimestampMicrosecondArray = strings
                .iter()
                .map(|v| {
                    v.and_then(|s| parse_timestamp_micros(s, opts.timestamp_format.as_deref()))
                })
                .collect();
            Arc::new(arr.with_timezone_opt(tz.clone()))
        }
        DataType::Date32 => {
            let arr: Date32Array = strings
                .iter()
                .map(|v| v.and_then(|s| parse_date_days(s, opts.date_format.as_deref())))
                .collect();
            Arc::new(arr)
        }
        DataType::Boolean => {
            let arr: arrow::array::BooleanArray = strings
                .iter()
                .map(|v| {
                    // Scala's toBoolean: either word in any case, no blanks
                    v.and_then(|s| match s.to_ascii_lowercase().as_str() {
                        "true" => Some(true),
                        "false" => Some(false),
                        _ => None,
                    })
                })
                .collect();
            Arc::new(arr)
        }
        other => {
            // as Spark's CSV parser reads numbers: Java's parseDouble skips
            // blanks and reads Inf/-Inf; integers and decimals take none, and
            // a decimal's grouping commas are dropped (Locale.US)
            let float = matches!(other, DataType::Float32 | DataType::Float64);
            let decimal = matches!(other, DataType::Decimal128(..) | DataType::Decimal256(..));
            // borrowed unless a decimal's commas must go: this runs per value
            let texts: StringArray = strings
                .iter()
                .map(|v| -> Option<std::borrow::Cow<'_, str>> {
                    let s = v?;
                    if float {
                        return Some(match s.trim() {
                            "Inf" => "Infinity".into(),
                            "-Inf" => "-Infinity".into(),
                            // Java's float and double suffixes (`1.5d`)
                            t => t
                                .strip_suffix(['d', 'D', 'f', 'F'])
                                .filter(|n| n.ends_with(|c: char| c.is_ascii_digit() || c == '.'))
                                .unwrap_or(t)
                                .into(),
                        });
                    }
                    if s.trim() != s {
                        return None;
                    }
                    Some(if decimal && s.contains(',') {
                        s.replace(',', "").into()
                    } else {
                        s.into()
                    })
                })
                .collect();
            cast_with_options(
                &texts,
                other,
                &CastOptions {
                    safe: true,
                    ..Default::default()
                },
            )?
        }
    })
}

/// Is `t` a type the readers parse from strings themselves?
pub fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp(_, _) | DataType::Date32)
}
