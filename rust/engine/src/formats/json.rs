//! JSON lines (and `multiLine` documents) with Spark's parse modes.
//!
//! Fast path: every record is validated with serde and the valid ones are
//! decoded together by arrow-json. Only when arrow-json rejects the chunk
//! (a type mismatch) are records decoded one by one to find the bad ones.
//! Timestamp and date fields are read as strings and converted with the
//! `timestampFormat` / `dateFormat` patterns, as Spark does.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::compute::concat_batches;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::json::ReaderBuilder;

use super::datetime::is_datetime;
use super::{apply_mode, convert_columns, split_corrupt_column, ReadOptions};
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

/// Whether `rec` can be a row: a JSON object, well formed, nested no
/// deeper than Spark reads.
pub fn is_record(rec: &str) -> bool {
    rec.trim_start().starts_with('{')
        && !nests_deeper_than(rec, MAX_NESTING_DEPTH)
        && serde_json::from_str::<serde::de::IgnoredAny>(rec).is_ok()
}

/// Split a file's text into JSON records.
fn records(text: &str, multi_line: bool) -> Vec<String> {
    if !multi_line {
        return text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Array(items)) => items.iter().map(|v| v.to_string()).collect(),
        Ok(v) => vec![v.to_string()],
        Err(_) if text.trim().is_empty() => vec![],
        Err(_) => vec![text.to_string()],
    }
}

/// The schema arrow-json decodes into: datetimes as strings.
fn decode_schema(data: &SchemaRef) -> SchemaRef {
    Arc::new(Schema::new(
        data.fields()
            .iter()
            .map(|f| {
                if is_datetime(f.data_type()) {
                    Field::new(f.name(), DataType::Utf8, true)
                } else {
                    f.as_ref().clone().with_nullable(true)
                }
            })
            .collect::<Vec<_>>(),
    ))
}

fn decode(
    schema: &SchemaRef,
    recs: &[&str],
) -> std::result::Result<RecordBatch, arrow::error::ArrowError> {
    let mut decoder = ReaderBuilder::new(Arc::clone(schema))
        .with_batch_size(recs.len().max(1))
        .build_decoder()?;
    for r in recs {
        decoder.decode(r.as_bytes())?;
        decoder.decode(b"\n")?;
    }
    Ok(decoder
        .flush()?
        .unwrap_or_else(|| RecordBatch::new_empty(Arc::clone(schema))))
}

/// Parse JSON `text` (from `path`) into rows of `schema`.
pub fn parse(
    text: &str,
    schema: &SchemaRef,
    opts: &ReadOptions,
    path: &str,
) -> Result<RecordBatch> {
    let recs = records(text, opts.multi_line);
    let (data_schema, corrupt_idx) = split_corrupt_column(schema, opts);
    let dschema = decode_schema(&data_schema);
    let mut malformed: Vec<Option<String>> = vec![None; recs.len()];
    let mut inputs: Vec<&str> = Vec::with_capacity(recs.len());
    for (i, r) in recs.iter().enumerate() {
        if is_record(r) {
            inputs.push(r);
        } else {
            malformed[i] = Some(r.clone());
            inputs.push("{}");
        }
    }
    let decoded = match decode(&dschema, &inputs) {
        Ok(b) => b,
        Err(_) => {
            // slow path: find the records arrow-json rejects
            let mut parts = Vec::with_capacity(inputs.len());
            for (i, r) in inputs.iter().enumerate() {
                match decode(&dschema, &[r]) {
                    Ok(b) => parts.push(b),
                    Err(_) => {
                        malformed[i] = Some(recs[i].clone());
                        parts.push(decode(&dschema, &["{}"])?);
                    }
                }
            }
            concat_batches(&dschema, &parts)?
        }
    };
    let strings: Vec<ArrayRef> = decoded.columns().to_vec();
    // non-datetime columns are already typed; convert only the string-read ones
    let mut converted = Vec::with_capacity(strings.len());
    let mut datetime_cols = Vec::new();
    for (i, f) in data_schema.fields().iter().enumerate() {
        if is_datetime(f.data_type()) {
            datetime_cols.push(i);
        }
        converted.push(Arc::clone(&strings[i]));
    }
    if !datetime_cols.is_empty() {
        let fields: Vec<Field> = datetime_cols
            .iter()
            .map(|i| data_schema.field(*i).clone())
            .collect();
        let sub_schema = Arc::new(Schema::new(fields));
        let sub = datetime_cols
            .iter()
            .map(|i| Arc::clone(&strings[*i]))
            .collect();
        let raw = |row: usize| recs[row].clone();
        let typed = convert_columns(&sub_schema, sub, opts, &mut malformed, &raw)?;
        for (k, i) in datetime_cols.iter().enumerate() {
            converted[*i] = Arc::clone(typed.column(k));
        }
    }
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(recs.len()));
    let data = RecordBatch::try_new_with_options(data_schema, converted, &options)
        .map_err(|e| Error::Internal(format!("json reader built an inconsistent batch: {e}")))?;
    apply_mode(schema, data, corrupt_idx, malformed, opts, path)
}

/// Infer a schema from JSON `text` (batch reads without a schema). Fields
/// are sorted by name, as Spark's inference does.
pub fn infer_schema(text: &str, opts: &ReadOptions) -> Result<Schema> {
    let recs = records(text, opts.multi_line)
        .into_iter()
        .filter(|r| serde_json::from_str::<serde_json::Value>(r).is_ok_and(|v| v.is_object()))
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
