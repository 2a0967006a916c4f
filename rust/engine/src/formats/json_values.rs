//! How Spark reads one JSON value into a column of a given type (the rules
//! of Spark's `JacksonParser`), for records already known to be valid JSON.
//!
//! A record's fields are taken as raw text slices, so that a string column
//! gets a non-string value's exact text (`1.50`, `{"a": 1}`), a decimal is
//! rounded half-up from its written digits, and every field is converted
//! on its own: a field Spark cannot convert is null and marks the record
//! malformed, while the record's other fields keep their values (Spark 4's
//! partial results). The converted values are JSON that arrow-json decodes
//! exactly into the column's type (timestamps as µs, dates as days,
//! decimals as strings of their scale, binary as hex).

use arrow::datatypes::{DataType, Fields, TimeUnit};
use base64::Engine;

use super::datetime::{parse_date_days, parse_timestamp_micros};
use super::ReadOptions;

/// What [`relaxed`] puts before a bare `NaN` or infinity it quotes, so that
/// the string is not taken for one the record wrote.
const BARE: char = '\0';

/// A record's top-level JSON value converted: the rows it holds, each as
/// JSON text appended to `out` (a line each) with whether all its fields
/// converted; None when the record is no row (a scalar, or an array holding
/// something other than objects), and then nothing is appended.
pub(crate) fn rows(
    rec: &str,
    fields: &Fields,
    opts: &ReadOptions,
    out: &mut String,
) -> Option<Vec<bool>> {
    let rec = rec.trim();
    let objects = match rec.as_bytes().first()? {
        b'{' => vec![rec],
        // Spark reads a top-level array of objects as one row per object
        b'[' => {
            let items = elements(rec);
            if !items.iter().all(|e| e.starts_with('{')) {
                return None;
            }
            items
        }
        _ => return None,
    };
    Some(
        objects
            .into_iter()
            .map(|o| {
                let ok = object(o, fields, opts, out);
                out.push('\n');
                ok
            })
            .collect(),
    )
}

/// An object as a row of `fields` appended to `out`: each field converted
/// (missing and failed ones null); whether all converted.
fn object(raw: &str, fields: &Fields, opts: &ReadOptions, out: &mut String) -> bool {
    let members = members(raw);
    if breaks_the_parser(&members, fields) {
        out.push_str("{}");
        return false;
    }
    let mut all_ok = true;
    out.push('{');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, f.name());
        out.push(':');
        // the last of duplicate keys wins, as in Jackson's reading
        match members.iter().rev().find(|(k, _)| key_is(k, f.name())) {
            None => out.push_str("null"),
            Some((_, v)) => {
                let mark = out.len();
                match field(v, f.data_type(), opts, out) {
                    Some(ok) => all_ok &= ok,
                    None => {
                        out.truncate(mark);
                        out.push_str("null");
                        all_ok = false;
                    }
                }
            }
        }
    }
    out.push('}');
    all_ok
}
/// Whether a binary field holds base64 that ends in the middle of a group
/// (`x`, `abcde`, `YQ=`): Jackson's decoder then fails the whole record,
/// so Spark keeps none of its fields (other bad base64 fails its field only).
fn breaks_the_parser(members: &[(&str, &str)], fields: &Fields) -> bool {
    fields.iter().any(|f| {
        matches!(f.data_type(), DataType::Binary | DataType::LargeBinary)
            && members
                .iter()
                .rev()
                .find(|(k, _)| key_is(k, f.name()))
                .is_some_and(|(_, v)| {
                    v.starts_with('"') && unquote(v).is_some_and(|s| cut_short_base64(&s))
                })
    })
}

/// Base64 letters that stop one letter into a group, or one `=` short.
fn cut_short_base64(s: &str) -> bool {
    let data = s.trim_end_matches('=');
    let pads = s.len() - data.len();
    let letters = data
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    letters && matches!((data.len() % 4, pads), (1, 0) | (2, 1))
}

/// Whether the raw key `raw` (quotes included) is `name`.
fn key_is(raw: &str, name: &str) -> bool {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return inner == name;
    }
    serde_json::from_str::<String>(raw).is_ok_and(|k| k == name)
}

/// `raw` converted to `dt`, appended to `out` as JSON arrow-json reads into
/// `dt`: whether every part of it converted (a struct keeps the fields that
/// did), or None when it cannot be (what was appended is then to be cut).
fn field(raw: &str, dt: &DataType, opts: &ReadOptions, out: &mut String) -> Option<bool> {
    use std::fmt::Write;
    let first = *raw.as_bytes().first()?;
    if raw == "null" {
        out.push_str("null");
        return Some(true);
    }
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            if first != b'"' {
                push_string(out, raw); // a non-string value as its text
            } else if raw.as_bytes().get(1..7) == Some(b"\\u0000") {
                push_string(out, unquote(raw)?.trim_start_matches(BARE));
            } else {
                out.push_str(raw);
            }
        }
        DataType::Boolean if raw == "true" || raw == "false" => out.push_str(raw),
        DataType::Boolean => return None,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let i = integer(raw)?;
            let fits = match dt {
                DataType::Int8 => i8::try_from(i).is_ok(),
                DataType::Int16 => i16::try_from(i).is_ok(),
                DataType::Int32 => i32::try_from(i).is_ok(),
                _ => true,
            };
            if !fits {
                return None;
            }
            out.push_str(raw);
        }
        DataType::Float32 => push_float(out, float(raw)? as f32 as f64),
        DataType::Float64 => push_float(out, float(raw)?),
        DataType::Decimal128(p, s) => {
            let text = if first == b'"' {
                unquote(raw)?
            } else {
                raw.to_string()
            };
            push_string(out, &decimal(&text, *p, *s)?);
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let micros = if first == b'"' {
                parse_timestamp_micros(&unquote(raw)?, opts.timestamp_format.as_deref())?
            } else {
                // a whole number is seconds since the epoch (multiplied
                // as Spark does, wrapping on overflow)
                integer(raw)?.wrapping_mul(1_000_000)
            };
            let _ = write!(out, "{micros}");
        }
        DataType::Date32 if first == b'"' => {
            let text = unquote(raw)?;
            let days = parse_date_days(&text, opts.date_format.as_deref()).or_else(|| {
                // Spark also reads a whole number as days since the epoch
                // (how Spark 1.5 wrote dates)
                opts.date_format
                    .is_none()
                    .then(|| text.parse::<i32>().ok())
                    .flatten()
            })?;
            let _ = write!(out, "{days}");
        }
        DataType::Date32 => return None,
        DataType::Binary | DataType::LargeBinary if first == b'"' => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(unquote(raw)?)
                .ok()?;
            out.push('"');
            for b in bytes {
                let _ = write!(out, "{b:02x}");
            }
            out.push('"');
        }
        DataType::Binary | DataType::LargeBinary => return None,
        DataType::Struct(fields) if first == b'{' => return Some(object(raw, fields, opts, out)),
        DataType::Struct(_) => return None,
        // an element or value Spark cannot convert fails the whole column value
        DataType::List(item) | DataType::LargeList(item) if first == b'[' => {
            out.push('[');
            for (i, e) in elements(raw).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !field(e, item.data_type(), opts, out)? {
                    return None;
                }
            }
            out.push(']');
        }
        DataType::List(_) | DataType::LargeList(_) => return None,
        DataType::Map(entries, _) if first == b'{' => {
            let DataType::Struct(kv) = entries.data_type() else {
                return None;
            };
            let value_type = kv.get(1)?.data_type();
            out.push('{');
            for (i, (k, v)) in members(raw).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push(':');
                if !field(v, value_type, opts, out)? {
                    return None;
                }
            }
            out.push('}');
        }
        DataType::Map(_, _) => return None,
        DataType::Null => out.push_str("null"),
        // other types as arrow-json reads them
        _ => out.push_str(raw),
    }
    Some(true)
}

/// `s` as a JSON string.
fn push_string(out: &mut String, s: &str) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
fn unquote(raw: &str) -> Option<String> {
    let inner = raw.get(1..raw.len().checked_sub(1)?)?;
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    serde_json::from_str(raw).ok()
}

/// A JSON whole number (no fraction, no exponent), as Jackson's integer token.
fn integer(raw: &str) -> Option<i64> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// A floating-point column's value: any JSON number, or the strings Spark
/// reads as NaN and the infinities.
fn float(raw: &str) -> Option<f64> {
    if raw.starts_with('"') {
        let text = unquote(raw)?;
        return match text.strip_prefix(BARE).unwrap_or(&text) {
            "NaN" | "+NaN" | "-NaN" => Some(f64::NAN),
            "Infinity" | "+Infinity" | "+INF" | "INF" => Some(f64::INFINITY),
            "-Infinity" | "-INF" => Some(f64::NEG_INFINITY),
            _ => None,
        };
    }
    if !raw.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// A float as JSON arrow-json reads back exactly (NaN and the infinities as
/// the strings its number parser takes).
fn push_float(out: &mut String, v: f64) {
    use std::fmt::Write;
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"inf\"" } else { "\"-inf\"" });
    } else {
        let _ = write!(out, "{v:?}");
    }
}
/// `text` (a JSON number or a decimal string) at `scale`, rounded half up,
/// or None when it is not a number or needs more than `precision` digits.
fn decimal(text: &str, precision: u8, scale: i8) -> Option<String> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // value = digits * 10^(exponent - fraction.len()); keep `scale` decimals
    let mut digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b - b'0')
        .collect();
    let shift = i64::from(exponent) - fraction.len() as i64 + i64::from(scale);
    if shift >= 0 {
        if shift > i64::from(precision) + 1 {
            return digits
                .iter()
                .all(|d| *d == 0)
                .then(|| format_decimal(&[], false, scale));
        }
        digits.extend(std::iter::repeat_n(0, shift as usize));
    } else {
        let drop = (-shift) as usize;
        let round_up = if drop > digits.len() {
            false
        } else {
            digits[digits.len() - drop] >= 5
        };
        digits.truncate(digits.len().saturating_sub(drop));
        if round_up {
            let mut i = digits.len();
            loop {
                if i == 0 {
                    digits.insert(0, 1);
                    break;
                }
                i -= 1;
                if digits[i] == 9 {
                    digits[i] = 0;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
    }
    let first = digits.iter().position(|d| *d != 0).unwrap_or(digits.len());
    let significant = &digits[first..];
    if significant.len() > usize::from(precision) {
        return None;
    }
    Some(format_decimal(significant, negative, scale))
}

fn format_decimal(digits: &[u8], negative: bool, scale: i8) -> String {
    let scale = usize::try_from(scale).unwrap_or(0);
    let mut padded: Vec<u8> = vec![0; (scale + 1).saturating_sub(digits.len())];
    padded.extend_from_slice(digits);
    let point = padded.len() - scale;
    let mut out = String::with_capacity(padded.len() + 2);
    if negative && digits.iter().any(|d| *d != 0) {
        out.push('-');
    }
    for (i, d) in padded.iter().enumerate() {
        if i == point {
            out.push('.');
        }
        out.push(char::from(b'0' + d));
    }
    out
}

/// The end (exclusive) of the JSON value starting at `start` in valid JSON
/// `s`, and where the next token starts.
fn value_end(s: &[u8], start: usize) -> usize {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut i = start;
    while i < s.len() {
        let b = s[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                b',' | b']' | b'}' | b':' if depth == 0 => return i,
                b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return i,
                _ => {}
            }
        }
        i += 1;
    }
    s.len()
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The record's first JSON value when text follows it (`{"a": 1} x`): Spark's
/// parser reads a record's first value and stops there.
pub(crate) fn first_value(rec: &str) -> Option<&str> {
    let s = rec.as_bytes();
    let start = skip_ws(s, 0);
    if !matches!(s.get(start), Some(b'{' | b'[')) {
        return None;
    }
    let end = value_end(s, start);
    (end < s.len()).then(|| &rec[start..end])
}

/// The raw values of a valid JSON array.
fn elements(raw: &str) -> Vec<&str> {
    let s = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(s, 1);
    while i < s.len() && s[i] != b']' {
        let end = value_end(s, i);
        out.push(&raw[i..end]);
        match after_comma(s, end) {
            Some(next) => i = next,
            None => break,
        }
    }
    out
}

/// Where the next item starts after a value ending at `end`, if a comma follows.
fn after_comma(s: &[u8], end: usize) -> Option<usize> {
    let i = skip_ws(s, end);
    (i < s.len() && s[i] == b',').then(|| skip_ws(s, i + 1))
}

/// The (raw key, raw value) members of a valid JSON object.
fn members(raw: &str) -> Vec<(&str, &str)> {
    let s = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(s, 1);
    while i < s.len() && s[i] == b'"' {
        let key_end = value_end(s, i);
        let colon = skip_ws(s, key_end);
        let start = skip_ws(s, colon + 1);
        let end = value_end(s, start);
        out.push((&raw[i..key_end], &raw[start..end]));
        match after_comma(s, end) {
            Some(next) => i = next,
            None => break,
        }
    }
    out
}

/// `rec` with what Spark's JSON reader allows beyond strict JSON
/// (single-quoted strings, and the bare NaN and infinity tokens, each unless
/// its option is off) made strict, or None when it has none of it.
pub(crate) fn relaxed(rec: &str, opts: &ReadOptions) -> Option<String> {
    const TOKENS: [&str; 6] = ["+Infinity", "-Infinity", "Infinity", "+INF", "-INF", "NaN"];
    let s = rec.as_bytes();
    let mut out = String::with_capacity(rec.len() + 8);
    let mut changed = false;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'"' => {
                let end = value_end(s, i);
                out.push_str(&rec[i..end]);
                i = end.max(i + 1);
            }
            b'\'' if opts.allow_single_quotes => {
                // a single-quoted string: the same text, double-quoted
                changed = true;
                out.push('"');
                i += 1;
                while i < s.len() && s[i] != b'\'' {
                    match s[i] {
                        b'\\' if s.get(i + 1) == Some(&b'\'') => {
                            out.push('\'');
                            i += 2;
                            continue;
                        }
                        b'\\' => {
                            out.push('\\');
                            if let Some(next) = rec.get(i + 1..).and_then(|r| r.chars().next()) {
                                out.push(next);
                                i += 1 + next.len_utf8();
                            } else {
                                i += 1;
                            }
                            continue;
                        }
                        b'"' => out.push_str("\\\""),
                        _ => {
                            let c = rec[i..].chars().next().unwrap_or(' ');
                            out.push(c);
                            i += c.len_utf8();
                            continue;
                        }
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            _ => match TOKENS
                .iter()
                .find(|t| opts.allow_non_numeric_numbers && rec[i..].starts_with(*t))
            {
                Some(t) => {
                    // a string marked as a bare token: only float columns
                    // read it as a number, a string column as its text
                    changed = true;
                    out.push_str("\"\\u0000");
                    out.push_str(t);
                    out.push('"');
                    i += t.len();
                }
                None => {
                    let c = rec[i..].chars().next().unwrap_or(' ');
                    out.push(c);
                    i += c.len_utf8();
                }
            },
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_half_up_from_their_digits() {
        let d = |t: &str| decimal(t, 10, 2);
        assert_eq!(d("12345678.999").as_deref(), Some("12345679.00"));
        assert_eq!(d("0.005").as_deref(), Some("0.01"));
        assert_eq!(d("2.675").as_deref(), Some("2.68"));
        assert_eq!(d("-2.675").as_deref(), Some("-2.68"));
        assert_eq!(d("1e2").as_deref(), Some("100.00"));
        assert_eq!(d("0.004").as_deref(), Some("0.00"));
        assert_eq!(d("123456789012.5"), None); // needs 14 digits
        assert_eq!(d("1e999999999"), None);
        assert_eq!(d("1e-999999999").as_deref(), Some("0.00"));
        assert_eq!(d("x"), None);
        assert_eq!(decimal("99.995", 4, 2), None); // rounds to 100.00
    }

    #[test]
    fn base64_cut_short_is_told_from_other_bad_base64() {
        for s in ["x", "Y", "abcde", "YQ="] {
            assert!(cut_short_base64(s), "{s}");
        }
        for s in ["12", "abc", "a=", "====", "a b", "aGVsbG8=", "", "NaN"] {
            assert!(!cut_short_base64(s), "{s}");
        }
    }

    #[test]
    fn members_and_elements_keep_raw_text() {
        let m = members(r#"{ "a" : 1.50 , "b":{"x": [1, "]"]}, "c\"":"s"}"#);
        assert_eq!(
            m,
            vec![
                ("\"a\"", "1.50"),
                ("\"b\"", r#"{"x": [1, "]"]}"#),
                (r#""c\"""#, "\"s\"")
            ]
        );
        assert_eq!(
            elements("[1, {\"a\":2} ,\"x\"]"),
            vec!["1", "{\"a\":2}", "\"x\""]
        );
        assert!(elements("[]").is_empty() && members("{}").is_empty());
    }

    #[test]
    fn relaxed_quotes_single_quoted_strings_and_bare_nan() -> crate::error::Result<()> {
        let defaults = ReadOptions::from_options(&Default::default())?;
        let strict = ReadOptions::from_options(
            &[
                ("allowsinglequotes".to_string(), "false".to_string()),
                ("allownonnumericnumbers".to_string(), "false".to_string()),
            ]
            .into(),
        )?;
        assert_eq!(super::relaxed(r#"{'a': NaN}"#, &strict), None);
        let relaxed = |r: &str| relaxed(r, &defaults);
        assert_eq!(relaxed(r#"{'a': 'x'}"#).as_deref(), Some(r#"{"a": "x"}"#));
        assert_eq!(
            relaxed(r#"{"a": NaN, "b": -Infinity}"#).as_deref(),
            Some(r#"{"a": "\u0000NaN", "b": "\u0000-Infinity"}"#)
        );
        assert_eq!(relaxed(r#"{"a": "NaN"}"#), None);
        assert_eq!(
            relaxed(r#"{'q': "say \"hi\"", 'r': 'a"b'}"#).as_deref(),
            Some(r#"{"q": "say \"hi\"", "r": "a\"b"}"#)
        );
        Ok(())
    }
}
