//! JSON lines (and `multiLine` documents) with Spark's parse modes.
//!
//! Each record is checked as JSON (with what Spark allows beyond it:
//! single quotes, NaN and the infinities), its fields converted by Spark's
//! rules (`json_values`: a field that cannot be is null and marks the
//! record malformed, the others keep their values), and the converted
//! records decoded together by arrow-json.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::json::ReaderBuilder;

use super::{apply_mode, json_values, split_corrupt_column, ReadOptions};
use crate::error::{Error, Result};

/// The deepest nesting a record may have: Jackson's default
/// (`StreamReadConstraints.maxNestingDepth`), past which Spark reads the
/// record as malformed. Deeper records would also overflow the stack of
/// arrow-json's decoders.
pub const MAX_NESTING_DEPTH: usize = 1000;

/// Whether `rec` nests arrays and objects deeper than `limit` (brackets
/// inside strings do not count). A level takes a byte at least, so a
/// shorter record is not scanned.
fn nests_deeper_than(rec: &str, limit: usize) -> bool {
    if rec.len() <= limit {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in rec.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Whether `rec` can be a row: a JSON object the reader reads (see
/// [`readable`]).
pub fn is_record(rec: &str, opts: &ReadOptions) -> bool {
    rec.trim_start().starts_with('{') && readable(rec, opts).is_some()
}

/// Split a file's text into JSON records: one a line (lines end at `\n`,
/// `\r\n` or `\r`, as Spark's default line separator), or with `multiLine`
/// the file's one document (an array's objects become rows later).
fn records(text: &str, multi_line: bool) -> Vec<&str> {
    if !multi_line {
        return text
            .split(['\n', '\r'])
            .filter(|l| !l.trim().is_empty())
            .collect();
    }
    let doc = text.trim();
    if doc.is_empty() {
        return vec![];
    }
    vec![doc]
}

/// Whether `rec` is JSON Spark reads: strict JSON, or with what Spark allows
/// beyond it made strict (the text to read then), within the nesting limit.
fn readable<'a>(rec: &'a str, opts: &ReadOptions) -> Option<std::borrow::Cow<'a, str>> {
    use std::borrow::Cow;
    if nests_deeper_than(rec, MAX_NESTING_DEPTH) {
        return None;
    }
    let valid = |t: &str| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok();
    if valid(rec) {
        return Some(Cow::Borrowed(rec));
    }
    let relaxed = json_values::relaxed(rec, opts);
    let text = relaxed.as_deref().unwrap_or(rec);
    if valid(text) {
        return relaxed.map(Cow::Owned);
    }
    // text after the record's first value is not read
    let first = json_values::first_value(text).filter(|t| valid(t))?;
    Some(Cow::Owned(first.to_string()))
}

/// Parse JSON `text` (from `path`) into rows of `schema`.
pub fn parse(
    text: &str,
    schema: &SchemaRef,
    opts: &ReadOptions,
    path: &str,
) -> Result<RecordBatch> {
    let (data_schema, corrupt_idx) = split_corrupt_column(schema, opts);
    let fields = data_schema.fields();
    // the converted rows as JSON lines, and each one's raw record when malformed
    let mut converted = String::with_capacity(text.len() + text.len() / 4);
    let mut malformed: Vec<Option<String>> = Vec::new();
    for rec in records(text, opts.multi_line) {
        let rows =
            readable(rec, opts).and_then(|t| json_values::rows(&t, fields, opts, &mut converted));
        match rows {
            Some(rows) => {
                malformed.extend(rows.into_iter().map(|ok| (!ok).then(|| rec.to_string())))
            }
            None => {
                converted.push_str("{}\n");
                malformed.push(Some(rec.to_string()));
            }
        }
    }
    let data = decode(&data_schema, &converted, malformed.len())?;
    apply_mode(schema, data, corrupt_idx, malformed, opts, path)
}

/// Rows of `schema` from `rows` JSON lines already converted to it.
fn decode(schema: &SchemaRef, lines: &str, rows: usize) -> Result<RecordBatch> {
    let nullable = Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ));
    let internal = |e: arrow::error::ArrowError| {
        Error::Internal(format!(
            "json reader: a converted record did not decode: {e}"
        ))
    };
    let mut decoder = ReaderBuilder::new(Arc::clone(&nullable))
        .with_batch_size(rows.max(1))
        .build_decoder()
        .map_err(internal)?;
    let read = decoder.decode(lines.as_bytes()).map_err(internal)?;
    if read != lines.len() {
        return Err(Error::Internal(format!(
            "json reader: {read} of {} converted bytes decoded",
            lines.len()
        )));
    }
    let batch = decoder
        .flush()
        .map_err(internal)?
        .unwrap_or_else(|| RecordBatch::new_empty(Arc::clone(&nullable)));
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::clone(schema), batch.columns().to_vec(), &options)
        .map_err(|e| Error::Internal(format!("json reader built an inconsistent batch: {e}")))
}

/// Infer a schema from JSON `text` (batch reads without a schema). Fields
/// are sorted by name, as Spark's inference does.
pub fn infer_schema(text: &str, opts: &ReadOptions) -> Result<Schema> {
    let recs = records(text, opts.multi_line)
        .into_iter()
        .filter_map(|r| match serde_json::from_str::<serde_json::Value>(r) {
            Ok(serde_json::Value::Array(items)) => {
                Some(items.iter().map(|v| v.to_string()).collect())
            }
            Ok(v) if v.is_object() => Some(vec![r.to_string()]),
            _ => None,
        })
        .flatten()
        .collect::<Vec<_>>()
        .join("\n");
    let (schema, _) =
        arrow::json::reader::infer_json_schema(std::io::Cursor::new(recs.as_bytes()), None)?;
    let mut fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    fields.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(Schema::new(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_depth_counts_brackets_outside_strings() {
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        assert!(!nests_deeper_than(&deep(998), MAX_NESTING_DEPTH));
        assert!(nests_deeper_than(&deep(1000), MAX_NESTING_DEPTH));
        // brackets in a string, escaped quotes included, are text
        let text = format!("{{\"a\":\"\\\"{}\"}}", "[".repeat(5000));
        assert!(!nests_deeper_than(&text, MAX_NESTING_DEPTH));
    }
}
