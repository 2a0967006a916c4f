//! Spark's text functions neither DataFusion nor `datafusion-spark` has:
//! `conv`, `mask`, `format_number`, `regexp_extract_all`,
//! `json_array_length`, `json_object_keys`, and `contains` /
//! `startswith` / `endswith` of binary as well as strings.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, ListBuilder, StringBuilder};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Float64Type, Int64Type};
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::ScalarUDF;

use super::udfs::{kernel_udf, regex_cache, strings};

fn list_of_strings() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

pub(super) fn all() -> Vec<ScalarUDF> {
    vec![
        kernel_udf("conv", DataType::Utf8, conv),
        kernel_udf("mask", DataType::Utf8, mask),
        kernel_udf("format_number", DataType::Utf8, format_number),
        kernel_udf("regexp_extract_all", list_of_strings(), regexp_extract_all),
        kernel_udf("regexp_instr", DataType::Int32, regexp_instr),
        kernel_udf("json_array_length", DataType::Int32, json_array_length),
        kernel_udf("json_object_keys", list_of_strings(), json_object_keys),
        kernel_udf("instr", DataType::Int32, instr),
        kernel_udf("schema_of_json", DataType::Utf8, schema_of_json),
        kernel_udf("to_base32", DataType::Utf8, to_base32),
        kernel_udf("from_base32", DataType::Binary, from_base32),
        kernel_udf("hmac", DataType::Binary, hmac),
        kernel_udf(
            "jaro_winkler_similarity",
            DataType::Float64,
            jaro_winkler_similarity,
        ),
        kernel_udf(
            "sentences",
            DataType::List(Arc::new(Field::new("item", list_of_strings(), true))),
            sentences,
        ),
        kernel_udf("contains", DataType::Boolean, |a| {
            bytes_test("contains", a, |x, y| {
                y.is_empty() || x.windows(y.len()).any(|w| w == y)
            })
        }),
        kernel_udf("startswith", DataType::Boolean, |a| {
            bytes_test("startswith", a, <[u8]>::starts_with)
        }),
        kernel_udf("endswith", DataType::Boolean, |a| {
            bytes_test("endswith", a, <[u8]>::ends_with)
        }),
    ]
}

/// `reverse` of binary: the bytes in reverse order (the rewrite of
/// `reverse` calls it for binary input).
pub(super) fn reverse_bytes() -> ScalarUDF {
    kernel_udf("reverse", DataType::Binary, |a| {
        let bin = cast(&a[0], &DataType::Binary)?;
        let out: arrow::array::BinaryArray = bin
            .as_binary::<i32>()
            .iter()
            .map(|b| b.map(|b| b.iter().rev().copied().collect::<Vec<u8>>()))
            .collect();
        Ok(Arc::new(out))
    })
}

fn ints(a: &ArrayRef) -> DFResult<arrow::array::Int64Array> {
    Ok(cast(a, &DataType::Int64)?
        .as_primitive::<Int64Type>()
        .clone())
}

fn wrong_args(name: &str, expected: &str) -> DataFusionError {
    DataFusionError::Plan(format!("[WRONG_NUM_ARGS] {name} takes {expected}"))
}

/// `f(left, right)` on the bytes of two strings or binaries (a string's
/// UTF-8 bytes answer `contains` / `startswith` / `endswith` as its
/// characters do).
fn bytes_test(
    name: &str,
    args: &[ArrayRef],
    f: impl Fn(&[u8], &[u8]) -> bool,
) -> DFResult<ArrayRef> {
    let [left, right] = args else {
        return Err(wrong_args(name, "(left, right)"));
    };
    let (left, right) = (
        cast(left, &DataType::Binary)?,
        cast(right, &DataType::Binary)?,
    );
    let (left, right) = (left.as_binary::<i32>(), right.as_binary::<i32>());
    let out: arrow::array::BooleanArray = left
        .iter()
        .zip(right.iter())
        .map(|(l, r)| Some(f(l?, r?)))
        .collect();
    Ok(Arc::new(out))
}

/// `instr(str, substr[, start, occurrence])`: the 1-based position (in
/// characters) of the `occurrence`-th `substr` at or after `start`, 0 when
/// there is none.
fn instr(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if !(2..=4).contains(&args.len()) {
        return Err(wrong_args("instr", "(str, substr[, start[, occurrence]])"));
    }
    let (text, sub) = (strings(&args[0])?, strings(&args[1])?);
    let number = |i: usize| -> DFResult<Option<arrow::array::Int64Array>> {
        args.get(i).map(ints).transpose()
    };
    let (start, occurrence) = (number(2)?, number(3)?);
    let at = |a: &Option<arrow::array::Int64Array>, row: usize| match a {
        None => Some(1),
        Some(a) => a.is_valid(row).then(|| a.value(row)),
    };
    let out: Int32Array = (0..text.len())
        .map(|row| {
            let (true, true, Some(start), Some(nth)) = (
                text.is_valid(row),
                sub.is_valid(row),
                at(&start, row),
                at(&occurrence, row),
            ) else {
                return None;
            };
            let (hay, needle) = (text.value(row), sub.value(row));
            let chars: Vec<(usize, char)> = hay.char_indices().collect();
            let mut found = 0;
            for (i, (byte, _)) in chars.iter().enumerate().skip((start.max(1) - 1) as usize) {
                if hay[*byte..].starts_with(needle) {
                    found += 1;
                    if found == nth {
                        return Some(i as i32 + 1);
                    }
                }
            }
            Some(0)
        })
        .collect();
    Ok(Arc::new(out))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// `to_base32(bin)`: RFC 4648 base32, padded with `=`.
fn to_base32(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [bin] = args else {
        return Err(wrong_args("to_base32", "(col)"));
    };
    let bin = cast(bin, &DataType::Binary)?;
    let out: arrow::array::StringArray = bin
        .as_binary::<i32>()
        .iter()
        .map(|b| {
            b.map(|bytes| {
                let mut text = String::new();
                for chunk in bytes.chunks(5) {
                    let mut block = [0u8; 5];
                    block[..chunk.len()].copy_from_slice(chunk);
                    let bits = block.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
                    let chars = (chunk.len() * 8).div_ceil(5);
                    for i in 0..8 {
                        if i < chars {
                            text.push(BASE32[((bits >> (35 - 5 * i)) & 31) as usize] as char);
                        } else {
                            text.push('=');
                        }
                    }
                }
                text
            })
        })
        .collect();
    Ok(Arc::new(out))
}

/// `from_base32(str)`: the bytes of RFC 4648 base32 text (null where it is
/// not base32).
fn from_base32(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [text] = args else {
        return Err(wrong_args("from_base32", "(col)"));
    };
    let text = strings(text)?;
    let decode = |s: &str| -> Option<Vec<u8>> {
        let (mut bits, mut count, mut out) = (0u64, 0u32, Vec::new());
        for c in s.trim_end_matches('=').bytes() {
            let v = BASE32.iter().position(|b| *b == c.to_ascii_uppercase())? as u64;
            bits = (bits << 5) | v;
            count += 5;
            if count >= 8 {
                count -= 8;
                out.push((bits >> count) as u8);
                bits &= (1 << count) - 1;
            }
        }
        Some(out)
    };
    let out: arrow::array::BinaryArray = text.iter().map(|s| s.and_then(decode)).collect();
    Ok(Arc::new(out))
}

/// `hmac(key, message[, algorithm])`: the HMAC of the message (SHA-256 by
/// default; SHA-1, SHA-224, SHA-384, SHA-512, MD5 as named).
fn hmac(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    use sha2::Digest;
    if !(2..=3).contains(&args.len()) {
        return Err(wrong_args("hmac", "(key, message[, algorithm])"));
    }
    let (key, message) = (
        cast(&args[0], &DataType::Binary)?,
        cast(&args[1], &DataType::Binary)?,
    );
    let (key, message) = (key.as_binary::<i32>(), message.as_binary::<i32>());
    let algorithms = args.get(2).map(strings).transpose()?;
    fn mac<D: Digest>(block: usize, key: &[u8], message: &[u8]) -> Vec<u8> {
        let mut k = if key.len() > block {
            D::digest(key).to_vec()
        } else {
            key.to_vec()
        };
        k.resize(block, 0);
        let pad = |byte: u8| k.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
        let inner = D::new()
            .chain_update(pad(0x36))
            .chain_update(message)
            .finalize();
        D::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize()
            .to_vec()
    }
    let mut out = arrow::array::BinaryBuilder::new();
    for row in 0..key.len() {
        let algorithm = match &algorithms {
            Some(a) if a.is_null(row) => None,
            Some(a) => Some(a.value(row).to_ascii_uppercase()),
            None => Some("SHA-256".to_string()),
        };
        let (Some(algorithm), true, true) = (algorithm, key.is_valid(row), message.is_valid(row))
        else {
            out.append_null();
            continue;
        };
        let (k, m) = (key.value(row), message.value(row));
        let digest = match algorithm.replace('-', "").as_str() {
            "SHA256" => mac::<sha2::Sha256>(64, k, m),
            "SHA224" => mac::<sha2::Sha224>(64, k, m),
            "SHA384" => mac::<sha2::Sha384>(128, k, m),
            "SHA512" => mac::<sha2::Sha512>(128, k, m),
            "SHA1" | "SHA" => mac::<sha1::Sha1>(64, k, m),
            "MD5" => mac::<md5::Md5>(64, k, m),
            other => {
                return Err(DataFusionError::Execution(format!(
                    "[INVALID_PARAMETER_VALUE.ALGORITHM] hmac does not know the algorithm '{other}'; it takes SHA-256, SHA-224, SHA-384, SHA-512, SHA-1 or MD5"
                )))
            }
        };
        out.append_value(digest);
    }
    Ok(Arc::new(out.finish()))
}

/// The Jaro-Winkler similarity of two strings (prefix scale 0.1, up to 4
/// characters of common prefix).
fn jaro_winkler(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let (mut a_matched, mut b_matched) = (vec![false; a.len()], vec![false; b.len()]);
    let mut matches = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let (lo, hi) = (i.saturating_sub(window), (i + window + 1).min(b.len()));
        for j in lo..hi {
            if !b_matched[j] && b[j] == *ca {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_seq = a
        .iter()
        .zip(&a_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let b_seq = b
        .iter()
        .zip(&b_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let transpositions = a_seq.zip(b_seq).filter(|(x, y)| x != y).count() / 2;
    let m = matches as f64;
    let jaro = (m / a.len() as f64 + m / b.len() as f64 + (m - transpositions as f64) / m) / 3.0;
    let prefix = a.iter().zip(&b).take(4).take_while(|(x, y)| x == y).count() as f64;
    jaro + prefix * 0.1 * (1.0 - jaro)
}

fn jaro_winkler_similarity(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [left, right] = args else {
        return Err(wrong_args("jaro_winkler_similarity", "(left, right)"));
    };
    let (left, right) = (strings(left)?, strings(right)?);
    let out: arrow::array::Float64Array = left
        .iter()
        .zip(right.iter())
        .map(|(l, r)| Some(jaro_winkler(l?, r?)))
        .collect();
    Ok(Arc::new(out))
}

/// `sentences(str[, lang, country])`: the text's sentences (split at `.`,
/// `!`, `?`), each a list of its words (letters, digits and apostrophes).
fn sentences(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let Some(text) = args.first() else {
        return Err(wrong_args("sentences", "(str[, lang, country])"));
    };
    let text = strings(text)?;
    let mut out = ListBuilder::new(ListBuilder::new(StringBuilder::new()));
    for s in text.iter() {
        let Some(s) = s else {
            out.append_null();
            continue;
        };
        for sentence in s.split(['.', '!', '?']) {
            let words: Vec<&str> = sentence
                .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| !w.is_empty())
                .collect();
            if words.is_empty() {
                continue;
            }
            for w in words {
                out.values().values().append_value(w);
            }
            out.values().append(true);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// `schema_of_json(json[, unquotedNames])`: the type Spark infers for a
/// JSON text (with `true`, field names may be unquoted).
fn schema_of_json(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let Some(json) = args.first() else {
        return Err(wrong_args("schema_of_json", "(json)"));
    };
    let json = strings(json)?;
    let unquoted = match args.get(1) {
        Some(a) => cast(a, &DataType::Boolean)?.as_boolean().value(0),
        None => false,
    };
    let quote_names = regex::Regex::new(r#"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:"#)
        .map_err(|e| DataFusionError::Internal(e.to_string()))?;
    let mut out = StringBuilder::new();
    for s in json.iter() {
        let Some(s) = s else {
            out.append_null();
            continue;
        };
        let text = if unquoted {
            quote_names.replace_all(s, r#"$1"$2":"#).into_owned()
        } else {
            s.to_string()
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            DataFusionError::Execution(format!(
                "[INVALID_JSON_SCHEMA] schema_of_json: '{s}' is not JSON ({e})"
            ))
        })?;
        out.append_value(super::variant::schema_of_json(&value));
    }
    Ok(Arc::new(out.finish()))
}

/// `conv(num, fromBase, toBase)`: the number written in `fromBase` (its
/// leading valid digits), in `toBase` upper-case; as Spark, a 64-bit
/// unsigned value, signed when `toBase` is negative.
fn conv(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [num, from, to] = args else {
        return Err(wrong_args("conv", "(num, fromBase, toBase)"));
    };
    let (num, from, to) = (strings(num)?, ints(from)?, ints(to)?);
    let mut out = StringBuilder::new();
    for row in 0..num.len() {
        if num.is_null(row) || from.is_null(row) || to.is_null(row) {
            out.append_null();
            continue;
        }
        match conv_one(num.value(row), from.value(row), to.value(row)) {
            Some(v) => out.append_value(v),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn conv_one(text: &str, from: i64, to: i64) -> Option<String> {
    let valid = |b: i64| (2..=36).contains(&b.abs());
    if !valid(from) || !valid(to) {
        return None;
    }
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let radix = from.unsigned_abs() as u32;
    let mut value: u64 = 0;
    let mut any = false;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        value = value
            .wrapping_mul(u64::from(radix))
            .wrapping_add(u64::from(d));
        any = true;
    }
    if !any {
        return None;
    }
    if negative {
        value = value.wrapping_neg();
    }
    let out_radix = to.unsigned_abs();
    let (negative_out, mut magnitude) = if to < 0 && (value as i64) < 0 {
        (true, (value as i64).unsigned_abs())
    } else {
        (false, value)
    };
    let mut out = Vec::new();
    loop {
        let d = (magnitude % out_radix) as u32;
        out.push(std::char::from_digit(d, 36)?.to_ascii_uppercase());
        magnitude /= out_radix;
        if magnitude == 0 {
            break;
        }
    }
    if negative_out {
        out.push('-');
    }
    Some(out.into_iter().rev().collect())
}

/// `mask(str, upper='X', lower='x', digit='n', other=NULL)`: each letter or
/// digit replaced by its class's character; a null replacement keeps them.
fn mask(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let Some(text) = args.first() else {
        return Err(wrong_args(
            "mask",
            "(str[, upperChar, lowerChar, digitChar, otherChar])",
        ));
    };
    let text = strings(text)?;
    let replacement = |i: usize, default: Option<char>, row: usize| -> DFResult<Option<char>> {
        match args.get(i) {
            None => Ok(default),
            Some(a) => {
                let s = strings(a)?;
                Ok(s.is_valid(row)
                    .then(|| s.value(row).chars().next())
                    .flatten())
            }
        }
    };
    let mut out = StringBuilder::new();
    for row in 0..text.len() {
        if text.is_null(row) {
            out.append_null();
            continue;
        }
        let upper = replacement(1, Some('X'), row)?;
        let lower = replacement(2, Some('x'), row)?;
        let digit = replacement(3, Some('n'), row)?;
        let other = replacement(4, None, row)?;
        let masked: String = text
            .value(row)
            .chars()
            .map(|c| {
                let by = if c.is_ascii_uppercase() {
                    upper
                } else if c.is_ascii_lowercase() {
                    lower
                } else if c.is_ascii_digit() {
                    digit
                } else {
                    other
                };
                by.unwrap_or(c)
            })
            .collect();
        out.append_value(masked);
    }
    Ok(Arc::new(out.finish()))
}

/// `format_number(x, d)`: `#,###,###.##` with `d` decimals, rounded half
/// to even (Java's DecimalFormat); null for a negative `d`.
fn format_number(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [x, d] = args else {
        return Err(wrong_args("format_number", "(x, d)"));
    };
    let x = cast(x, &DataType::Float64)?;
    let x = x.as_primitive::<Float64Type>();
    let d = ints(d)?;
    let mut out = StringBuilder::new();
    for row in 0..x.len() {
        if x.is_null(row) || d.is_null(row) || d.value(row) < 0 {
            out.append_null();
            continue;
        }
        out.append_value(grouped(x.value(row), d.value(row) as usize));
    }
    Ok(Arc::new(out.finish()))
}

fn grouped(x: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let rounded = (x * scale).round_ties_even() / scale;
    let text = format!("{:.*}", decimals, rounded.abs());
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text.as_str(), None),
    };
    let mut out = String::new();
    if rounded < 0.0 {
        out.push('-');
    }
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = fraction {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `regexp_extract_all(str, regexp, idx=1)`: group `idx` of every match.
fn regexp_extract_all(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if args.len() < 2 {
        return Err(wrong_args("regexp_extract_all", "(str, regexp[, idx])"));
    }
    let (text, patterns) = (strings(&args[0])?, strings(&args[1])?);
    let idx = match args.get(2) {
        Some(a) => Some(ints(a)?),
        None => None,
    };
    let mut get = regex_cache();
    let mut out = ListBuilder::new(StringBuilder::new());
    for row in 0..text.len() {
        let group = idx
            .as_ref()
            .map_or(Some(1), |i| i.is_valid(row).then(|| i.value(row)));
        let (Some(group), true, true) = (group, text.is_valid(row), patterns.is_valid(row)) else {
            out.append_null();
            continue;
        };
        let re = get(patterns.value(row))?;
        check_group("regexp_extract_all", &re, group)?;
        for captures in re.captures_iter(text.value(row)) {
            let value = captures.get(group as usize).map_or("", |m| m.as_str());
            out.values().append_value(value);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// A group index the regex has (0 is the whole match), as Spark checks it.
fn check_group(name: &str, re: &regex::Regex, group: i64) -> DFResult<()> {
    let groups = re.captures_len() as i64 - 1;
    if group < 0 || group > groups {
        return Err(DataFusionError::Execution(format!(
            "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] {name}: the group index {group} is not between 0 and the regex's {groups} groups"
        )));
    }
    Ok(())
}

/// `regexp_instr(str, regexp[, idx])`: the 1-based character position
/// where the first match starts, 0 without one. Spark checks `idx` names a
/// group of the regex but answers the whole match's start whatever it is.
fn regexp_instr(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if !(2..=3).contains(&args.len()) {
        return Err(wrong_args("regexp_instr", "(str, regexp[, idx])"));
    }
    let (text, patterns) = (strings(&args[0])?, strings(&args[1])?);
    let idx = args.get(2).map(ints).transpose()?;
    let mut get = regex_cache();
    let mut out = Int32Array::builder(text.len());
    for row in 0..text.len() {
        let group = idx
            .as_ref()
            .map_or(Some(0), |i| i.is_valid(row).then(|| i.value(row)));
        let (Some(group), true, true) = (group, text.is_valid(row), patterns.is_valid(row)) else {
            out.append_null();
            continue;
        };
        let re = get(patterns.value(row))?;
        check_group("regexp_instr", &re, group)?;
        let value = text.value(row);
        out.append_value(
            re.find(value)
                .map_or(0, |m| value[..m.start()].chars().count() as i32 + 1),
        );
    }
    Ok(Arc::new(out.finish()))
}

/// `json_array_length(json)`: the number of elements of a JSON array, null
/// for anything else.
fn json_array_length(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [json] = args else {
        return Err(wrong_args("json_array_length", "(json)"));
    };
    let json = strings(json)?;
    let lengths: Int32Array = json
        .iter()
        .map(|s| match serde_json::from_str::<serde_json::Value>(s?) {
            Ok(serde_json::Value::Array(items)) => Some(items.len() as i32),
            _ => None,
        })
        .collect();
    Ok(Arc::new(lengths))
}

/// The keys of a JSON object in the order they are written.
struct ObjectKeys(Vec<String>);

impl<'de> serde::Deserialize<'de> for ObjectKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ObjectKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ObjectKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(ObjectKeys(keys))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// `json_object_keys(json)`: the keys of a JSON object, null for anything else.
fn json_object_keys(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let [json] = args else {
        return Err(wrong_args("json_object_keys", "(json)"));
    };
    let json = strings(json)?;
    let mut out = ListBuilder::new(StringBuilder::new());
    for s in json.iter() {
        match s.map(serde_json::from_str::<ObjectKeys>) {
            Some(Ok(ObjectKeys(keys))) => {
                for k in keys {
                    out.values().append_value(k);
                }
                out.append(true);
            }
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conv_reads_leading_digits_and_writes_upper_case() {
        assert_eq!(conv_one("010101", 2, 16).as_deref(), Some("15"));
        assert_eq!(conv_one("ff", 16, 10).as_deref(), Some("255"));
        assert_eq!(conv_one("-10", 16, -10).as_deref(), Some("-16"));
        assert_eq!(conv_one("-1", 10, 16).as_deref(), Some("FFFFFFFFFFFFFFFF"));
        assert_eq!(conv_one("12z", 10, 2).as_deref(), Some("1100"));
        assert_eq!(conv_one("z", 10, 2), None);
    }

    #[test]
    fn jaro_winkler_matches_the_reference_values() {
        assert!((jaro_winkler("MARTHA", "MARHTA") - 0.9611111111111111).abs() < 1e-12);
        assert!((jaro_winkler("DIXON", "DICKSONX") - 0.8133333333333332).abs() < 1e-12);
        assert_eq!(jaro_winkler("", ""), 1.0);
    }

    #[test]
    fn format_number_groups_thousands_and_rounds_half_even() {
        assert_eq!(grouped(5.0, 4), "5.0000");
        assert_eq!(grouped(1234567.891, 2), "1,234,567.89");
        assert_eq!(grouped(-1234.5, 0), "-1,234");
        assert_eq!(grouped(0.125, 2), "0.12");
    }
}
