//! File formats with Spark's reading semantics: JSON, CSV and text parsed
//! here (Spark's parse modes and corrupt-record column need per-record
//! control), Parquet through DataFusion's reader, ORC through `orc-rust`.
//!
//! The same readers serve batch `spark.read` and the streaming file source.

pub mod csv;
mod csv_fields;
pub mod datetime;
mod datetime_text;
pub mod json;
mod json_values;
pub mod orc;
pub mod parquet_types;
pub mod partitions;
pub mod text;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};

/// Spark's `mode` option for malformed records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseMode {
    /// Keep the row: nulls for what failed, the raw record in the corrupt-record column.
    Permissive,
    /// Drop malformed rows.
    DropMalformed,
    /// Fail on the first malformed row.
    FailFast,
}

/// Reader options shared by the text formats (keys lower-cased, as Spark's
/// option keys are case-insensitive).
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Parse mode.
    pub mode: ParseMode,
    /// Name of the column receiving malformed records.
    pub corrupt_column: String,
    /// CSV: first line is a header.
    pub header: bool,
    /// CSV: field separator.
    pub sep: u8,
    /// CSV: quote character.
    pub quote: u8,
    /// CSV: escape character.
    pub escape: u8,
    /// CSV: infer column types when no schema is given.
    pub infer_schema: bool,
    /// JSON: the file is one JSON document (object or array) instead of lines.
    pub multi_line: bool,
    /// Parquet `mergeSchema`: the union of every file's columns, not the
    /// first file's.
    pub merge_schema: bool,
    /// Java-style pattern for timestamps (`timestampFormat`).
    pub timestamp_format: Option<String>,
    /// Java-style pattern for dates (`dateFormat`).
    pub date_format: Option<String>,
    /// CSV `nullValue`: a field of this text is null (as an empty one is)
    pub null_value: Option<String>,
    /// text: one row per file.
    pub whole_text: bool,
    /// JSON: `allowSingleQuotes` (Spark's default: true).
    pub allow_single_quotes: bool,
    /// JSON: `allowNonNumericNumbers`, bare `NaN` and infinities (default: true).
    pub allow_non_numeric_numbers: bool,
}

impl ReadOptions {
    /// Parse Spark's option map (keys already lower-cased).
    pub fn from_options(options: &HashMap<String, String>) -> Result<Self> {
        let mode = match options.get("mode").map(|m| m.to_ascii_uppercase()) {
            None => ParseMode::Permissive,
            Some(m) => match m.as_str() {
                "PERMISSIVE" => ParseMode::Permissive,
                "DROPMALFORMED" => ParseMode::DropMalformed,
                "FAILFAST" => ParseMode::FailFast,
                other => {
                    // Spark's ParseMode.fromString: a warning, then permissive
                    log::warn!("{other} is not a valid parse mode. Using PERMISSIVE.");
                    ParseMode::Permissive
                }
            },
        };
        let bool_opt = |k: &str, name: &str| -> Result<bool> {
            options
                .get(k)
                .map(|v| crate::sources::parse_bool_option(name, v))
                .transpose()
                .map(|v| v.unwrap_or(false))
        };
        let char_opt = |k: &str, name: &str, default: u8| -> Result<u8> {
            match options.get(k) {
                None => Ok(default),
                Some(v) => {
                    let v = if v == "\\t" { "\t" } else { v.as_str() };
                    if v.len() == 1 {
                        Ok(v.as_bytes()[0])
                    } else {
                        Err(Error::illegal_argument(format!(
                            "Invalid value '{v}' for option '{name}': expected a single character"
                        )))
                    }
                }
            }
        };
        Ok(ReadOptions {
            mode,
            corrupt_column: options
                .get("columnnameofcorruptrecord")
                .cloned()
                .unwrap_or_else(|| "_corrupt_record".to_string()),
            header: bool_opt("header", "header")?,
            sep: char_opt("sep", "sep", char_opt("delimiter", "delimiter", b',')?)?,
            quote: char_opt("quote", "quote", b'"')?,
            escape: char_opt("escape", "escape", b'\\')?,
            infer_schema: bool_opt("inferschema", "inferSchema")?,
            multi_line: bool_opt("multiline", "multiLine")?,
            merge_schema: bool_opt("mergeschema", "mergeSchema")?,
            timestamp_format: options.get("timestampformat").cloned(),
            date_format: options.get("dateformat").cloned(),
            null_value: options.get("nullvalue").cloned(),
            whole_text: bool_opt("wholetext", "wholetext")?,
            allow_single_quotes: !options.contains_key("allowsinglequotes")
                || bool_opt("allowsinglequotes", "allowSingleQuotes")?,
            allow_non_numeric_numbers: !options.contains_key("allownonnumericnumbers")
                || bool_opt("allownonnumericnumbers", "allowNonNumericNumbers")?,
        })
    }
}

/// The schema the parser fills: the user's schema without the corrupt-record
/// column, plus where that column goes (if the user asked for it).
pub(crate) fn split_corrupt_column(
    schema: &SchemaRef,
    opts: &ReadOptions,
) -> (SchemaRef, Option<usize>) {
    match schema.index_of(&opts.corrupt_column) {
        Ok(idx) if schema.field(idx).data_type() == &DataType::Utf8 => {
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != idx)
                .map(|(_, f)| f.as_ref().clone())
                .collect();
            (Arc::new(Schema::new(fields)), Some(idx))
        }
        _ => (Arc::clone(schema), None),
    }
}

/// Apply the parse mode to parsed rows: `malformed[i]` is the raw text of row
/// `i` when it failed to parse. Produces rows in the user's `schema`.
pub(crate) fn apply_mode(
    schema: &SchemaRef,
    data: RecordBatch,
    corrupt_idx: Option<usize>,
    malformed: Vec<Option<String>>,
    opts: &ReadOptions,
    path: &str,
) -> Result<RecordBatch> {
    let any_bad = malformed.iter().any(|m| m.is_some());
    if any_bad && opts.mode == ParseMode::FailFast {
        let (row, rec) = malformed
            .iter()
            .enumerate()
            .find_map(|(i, m)| m.as_ref().map(|m| (i, m.clone())))
            .unwrap_or_default();
        return Err(Error::Input {
            condition: "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION".into(),
            message: format!(
                "Malformed records are detected in record parsing: {rec}. Parse Mode: FAILFAST. \
                 To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'. \
                 (file {path}, record {})",
                row + 1
            ),
        });
    }
    let mut columns: Vec<ArrayRef> = data.columns().to_vec();
    if let Some(idx) = corrupt_idx {
        let corrupt: StringArray = malformed.iter().map(|m| m.as_deref()).collect();
        columns.insert(idx, Arc::new(corrupt));
    }
    let batch = RecordBatch::try_new(Arc::clone(schema), columns)?;
    if any_bad && opts.mode == ParseMode::DropMalformed {
        let keep: BooleanArray = malformed.iter().map(|m| Some(m.is_none())).collect();
        return Ok(filter_record_batch(&batch, &keep)?);
    }
    Ok(batch)
}

/// Convert parsed string columns to the target types; rows where a non-null
/// string did not convert are marked malformed with `raw(row)`.
pub(crate) fn convert_columns(
    target: &SchemaRef,
    strings: Vec<ArrayRef>,
    opts: &ReadOptions,
    malformed: &mut [Option<String>],
    raw: &dyn Fn(usize) -> String,
) -> Result<RecordBatch> {
    let mut out = Vec::with_capacity(strings.len());
    for (field, col) in target.fields().iter().zip(strings) {
        let converted = datetime::convert_string_column(&col, field.data_type(), opts)?;
        for (row, bad) in malformed.iter_mut().enumerate().take(col.len()) {
            if col.is_valid(row) && converted.is_null(row) && bad.is_none() {
                *bad = Some(raw(row));
            }
        }
        out.push(converted);
    }
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(malformed.len()));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(target),
        out,
        &options,
    )?)
}
