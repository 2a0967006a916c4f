//! CSV with Spark's options (`header`, `sep`, `quote`, `escape`,
//! `inferSchema`) and parse modes. Fields are tokenized by the `csv` crate and
//! converted column-wise; a field that does not convert, or a record with the
//! wrong number of fields, makes the row malformed.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::{apply_mode, convert_columns, split_corrupt_column, ReadOptions};
use crate::error::Result;

struct Parsed {
    header: Option<Vec<String>>,
    rows: Vec<(Vec<String>, String)>,
}

/// Split CSV text into records: without `multiLine` one a line (as Spark
/// reads it: a quote left open ends with its line, so it cannot swallow the
/// lines after it), with it as the quotes say. Each record comes with its
/// text (as written, for the corrupt-record column). Fields are split as
/// Spark's parser splits them (see `csv_fields`).
fn tokenize(text: &str, opts: &ReadOptions) -> Parsed {
    let dialect = super::csv_fields::Dialect {
        sep: opts.sep,
        quote: opts.quote,
        escape: opts.escape,
        multi_line: opts.multi_line,
    };
    let records = super::csv_fields::records(text, dialect);
    let mut header = None;
    let mut rows = Vec::new();
    for (fields, raw) in records {
        // Spark skips blank lines (a `""` line is a record); with
        // multiLine only empty ones (its parser reads the file whole)
        if raw.is_empty() || !opts.multi_line && raw.trim().is_empty() {
            continue;
        }
        if header.is_none() && opts.header {
            header = Some(fields);
            continue;
        }
        rows.push((fields, raw));
    }
    Parsed { header, rows }
}

/// Parse CSV `text` (from `path`) into rows of `schema`. Columns are matched
/// by position, as Spark does with a user schema.
pub fn parse(
    text: &str,
    schema: &SchemaRef,
    opts: &ReadOptions,
    path: &str,
) -> Result<RecordBatch> {
    let parsed = tokenize(text, opts);
    let (data_schema, corrupt_idx) = split_corrupt_column(schema, opts);
    let width = data_schema.fields().len();
    let n = parsed.rows.len();
    let mut malformed: Vec<Option<String>> = vec![None; n];
    let mut columns: Vec<Vec<Option<&str>>> = vec![Vec::with_capacity(n); width];
    for (row, (fields, raw)) in parsed.rows.iter().enumerate() {
        if fields.len() != width {
            malformed[row] = Some(raw.clone());
        }
        for (c, column) in columns.iter_mut().enumerate() {
            // Spark reads an empty field as null, and one that is `nullValue`
            column.push(
                fields
                    .get(c)
                    .map(String::as_str)
                    .filter(|s| !s.is_empty() && opts.null_value.as_deref() != Some(*s)),
            );
        }
    }
    let strings: Vec<ArrayRef> = columns
        .into_iter()
        .map(|c| Arc::new(StringArray::from(c)) as ArrayRef)
        .collect();
    let raw = |row: usize| parsed.rows[row].1.clone();
    let data = convert_columns(&data_schema, strings, opts, &mut malformed, &raw)?;
    apply_mode(schema, data, corrupt_idx, malformed, opts, path)
}

/// The schema of a CSV file without a user schema: names from the header (or
/// `_c0`, `_c1`, ...), all strings unless `inferSchema` is set.
pub fn infer_schema(text: &str, opts: &ReadOptions) -> Schema {
    let parsed = tokenize(text, opts);
    let width = parsed
        .header
        .as_ref()
        .map(Vec::len)
        .or_else(|| parsed.rows.first().map(|r| r.0.len()))
        .unwrap_or(0);
    let names: Vec<String> = match &parsed.header {
        Some(h) => h.clone(),
        None => (0..width).map(|i| format!("_c{i}")).collect(),
    };
    let fields = names
        .into_iter()
        .enumerate()
        .map(|(c, name)| {
            let dt = if opts.infer_schema {
                infer_column(
                    parsed
                        .rows
                        .iter()
                        .filter_map(|r| r.0.get(c).map(String::as_str)),
                )
            } else {
                DataType::Utf8
            };
            Field::new(name, dt, true)
        })
        .collect::<Vec<_>>();
    Schema::new(fields)
}

/// Narrowest of int, bigint, double, boolean, timestamp, string that holds every value.
fn infer_column<'a>(values: impl Iterator<Item = &'a str>) -> DataType {
    let mut candidates = [true; 5]; // int, long, double, bool, timestamp
    let mut any = false;
    for v in values.map(str::trim).filter(|v| !v.is_empty()) {
        any = true;
        candidates[0] &= v.parse::<i32>().is_ok();
        candidates[1] &= v.parse::<i64>().is_ok();
        candidates[2] &= v.parse::<f64>().is_ok();
        candidates[3] &= v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false");
        candidates[4] &= super::datetime::parse_timestamp_micros(v, None).is_some() && v.len() > 10;
    }
    if !any {
        return DataType::Utf8;
    }
    let types = [
        DataType::Int32,
        DataType::Int64,
        DataType::Float64,
        DataType::Boolean,
        DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, Some("UTC".into())),
    ];
    candidates
        .iter()
        .zip(types)
        .find(|(ok, _)| **ok)
        .map(|(_, t)| t)
        .unwrap_or(DataType::Utf8)
}
