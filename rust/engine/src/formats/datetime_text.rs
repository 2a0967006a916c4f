//! Dates and timestamps in the lenient text forms Spark reads without a
//! pattern (its casts, and its readers' fallback: `DateTimeUtils.
//! stringToDate` / `stringToTimestamp`): a year alone or a year and month,
//! one-digit months, days and hours, `T` or a blank between date and time,
//! up to nine fraction digits (kept to the microsecond), and a zone written
//! `Z`, `+h`, `-hh:mm`, `+hhmm`, `UTC+h`, `GMT-hh:mm`... (none: UTC).

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

/// The digits of each segment of a date, and how many there were.
struct Segments {
    values: [i64; 7],
    digits: [usize; 7],
}

/// Whether segment `i` (year, month, day, hour, minute, second) has a valid number of digits.
fn valid_digits(i: usize, digits: usize) -> bool {
    match i {
        0 => (4..=7).contains(&digits),
        6 => digits <= 9,
        _ => (1..=2).contains(&digits),
    }
}

/// A date: `[+-]yyyy`, `yyyy-[m]m`, `yyyy-[m]m-[d]d`, the last followed by
/// anything after a blank or `T`.
pub fn string_to_date(s: &str) -> Option<NaiveDate> {
    let (negative, body) = sign(s.trim())?;
    let mut seg = Segments {
        values: [0; 7],
        digits: [0; 7],
    };
    let mut i = 0;
    for b in body.bytes() {
        match b {
            b'0'..=b'9' => push_digit(&mut seg, i, b)?,
            b'-' if i < 2 => i += 1,
            b' ' | b'T' if i == 2 => break,
            _ => return None,
        }
    }
    date_of(&seg, i, negative)
}

/// A timestamp in microseconds since the epoch.
///
/// Text without a zone is wall-clock time in `tz` (Spark's session time zone).
pub fn string_to_timestamp_micros_in(s: &str, tz: &chrono_tz::Tz) -> Option<i64> {
    let (negative, body) = sign(s.trim())?;
    let bytes = body.as_bytes();
    let mut seg = Segments {
        values: [0; 7],
        digits: [0; 7],
    };
    let mut i = 0;
    let mut zone: Option<&str> = None;
    let mut j = 0;
    while j < bytes.len() {
        let b = bytes[j];
        if b.is_ascii_digit() {
            push_digit(&mut seg, i, b)?;
            j += 1;
            continue;
        }
        match (i, b) {
            (0 | 1, b'-') => i += 1,
            (2, b' ' | b'T') => i += 1,
            (3 | 4, b':') => i += 1,
            (5, b'.') => i += 1,
            (5 | 6, _) => {
                zone = Some(&body[j..]);
                break;
            }
            _ => return None,
        }
        j += 1;
    }
    // a date alone (`2024-01-01 ` included) is its midnight
    let date = date_of(&seg, i.min(2), negative)?;
    if i >= 3 && !(3..=i.min(5)).all(|k| valid_digits(k, seg.digits[k])) {
        return None;
    }
    if i == 6 && !valid_digits(6, seg.digits[6]) {
        return None;
    }
    let v = &seg.values;
    let nanos = v[6] * 10i64.pow(9 - seg.digits[6].min(9) as u32);
    let time = if i >= 3 {
        NaiveTime::from_hms_nano_opt(v[3] as u32, v[4] as u32, v[5] as u32, nanos as u32)?
    } else {
        NaiveTime::MIN
    };
    let naive = NaiveDateTime::new(date, time);
    let offset = match zone {
        None => return super::datetime::local_to_utc_micros(naive, tz),
        Some(z) => zone_offset_seconds(z.trim())?,
    };
    naive
        .and_utc()
        .timestamp_micros()
        .checked_sub(offset * 1_000_000)
}

fn sign(s: &str) -> Option<(bool, &str)> {
    Some(match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    })
}

fn push_digit(seg: &mut Segments, i: usize, b: u8) -> Option<()> {
    let digit = i64::from(b - b'0');
    // past the microsecond a fraction's digits are dropped, as in Spark
    if i != 6 || seg.digits[6] < 6 {
        seg.values[i] = seg.values[i].checked_mul(10)?.checked_add(digit)?;
    } else {
        seg.values[i] = seg.values[i].checked_mul(10)?;
    }
    seg.digits[i] += 1;
    Some(())
}

/// The date of segments 0..=last (the rest default to the first month and day).
fn date_of(seg: &Segments, last: usize, negative: bool) -> Option<NaiveDate> {
    if !(0..=last).all(|k| valid_digits(k, seg.digits[k])) {
        return None;
    }
    let year = i32::try_from(seg.values[0]).ok()?;
    let year = if negative { -year } else { year };
    let month = if last >= 1 { seg.values[1] as u32 } else { 1 };
    let day = if last >= 2 { seg.values[2] as u32 } else { 1 };
    NaiveDate::from_ymd_opt(year, month, day)
}

/// Seconds east of UTC of a zone written as Spark reads it: `Z`, `UTC`,
/// `GMT`, `UT`, optionally followed by an offset, or an offset alone:
/// `+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss` (region names: not read).
fn zone_offset_seconds(z: &str) -> Option<i64> {
    if z == "Z" {
        return Some(0);
    }
    let offset = ["UTC", "GMT", "UT"]
        .iter()
        .find_map(|p| z.strip_prefix(p))
        .unwrap_or(z);
    if offset.is_empty() {
        return Some(0);
    }
    let (sign, rest) = match offset.as_bytes()[0] {
        b'+' => (1, &offset[1..]),
        b'-' => (-1, &offset[1..]),
        _ => return None,
    };
    let parts: Vec<&str> = if rest.contains(':') {
        rest.split(':').collect()
    } else if rest.len() > 2 {
        // hhmm or hhmmss
        rest.as_bytes()
            .chunks(2)
            .map(|c| std::str::from_utf8(c).unwrap_or(""))
            .collect()
    } else {
        vec![rest]
    };
    let number = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let hours = number(parts.first()?)?;
    let minutes = parts.get(1).map_or(Some(0), |p| number(p))?;
    let seconds = parts.get(2).map_or(Some(0), |p| number(p))?;
    if parts.len() > 3 || hours > 18 || minutes > 59 || seconds > 59 {
        return None;
    }
    Some(sign * (hours * 3600 + minutes * 60 + seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Option<String> {
        string_to_timestamp_micros_in(s, &chrono_tz::Tz::UTC)
            .and_then(chrono::DateTime::from_timestamp_micros)
            .map(|t| t.format("%Y-%m-%d %H:%M:%S%.f").to_string())
    }

    #[test]
    fn reads_spark_timestamp_text() {
        assert_eq!(
            ts("2024-01-01 00:00:20 -2").as_deref(),
            Some("2024-01-01 02:00:20")
        );
        assert_eq!(ts("2024").as_deref(), Some("2024-01-01 00:00:00"));
        assert_eq!(
            ts("2024-1-2T3:04:05.1234567Z").as_deref(),
            Some("2024-01-02 03:04:05.123456")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00+05:30").as_deref(),
            Some("2024-01-01 04:30:00")
        );
        assert_eq!(
            ts("2024-01-01 10:00:00UTC+01:00").as_deref(),
            Some("2024-01-01 09:00:00")
        );
        assert_eq!(ts("2024-01-01x"), None);
        assert_eq!(ts("2024-01-01 25:00:00"), None);
        assert_eq!(
            string_to_date("2024-01-01Tjunk"),
            NaiveDate::from_ymd_opt(2024, 1, 1)
        );
    }

    #[test]
    fn text_without_a_zone_is_wall_clock_time_in_the_session_zone() {
        let la = chrono_tz::Tz::America__Los_Angeles;
        // PDT is UTC-7
        assert_eq!(
            string_to_timestamp_micros_in("2015-07-22 10:00:00", &la),
            Some(1_437_584_400_000_000)
        );
        // an explicit zone wins
        assert_eq!(
            string_to_timestamp_micros_in("2015-07-22 10:00:00Z", &la),
            Some(1_437_559_200_000_000)
        );
    }
}
