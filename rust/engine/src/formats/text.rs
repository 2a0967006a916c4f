//! The text format: one `value` string row per line (or per file with `wholetext`).

use std::sync::Arc;

use arrow::array::{RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::ReadOptions;
use crate::error::{Error, Result};

/// Spark's text schema: `value STRING`.
pub fn text_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("value", DataType::Utf8, true)]))
}

/// The text schema of a read: the user's (one string column, named as
/// they name it) or Spark's `value STRING`.
pub fn schema_of(user: Option<SchemaRef>) -> Result<SchemaRef> {
    let schema = user.unwrap_or_else(text_schema);
    check(&schema)?;
    Ok(schema)
}

fn check(schema: &SchemaRef) -> Result<()> {
    if schema.fields().len() != 1 || schema.field(0).data_type() != &DataType::Utf8 {
        return Err(Error::analysis(
            "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
            "Text data source supports only a single column of string type",
        ));
    }
    Ok(())
}

/// Parse `text` into rows of its one string column.
pub fn parse(text: &str, schema: &SchemaRef, opts: &ReadOptions) -> Result<RecordBatch> {
    check(schema)?;
    let values: StringArray = if opts.whole_text {
        StringArray::from(vec![text])
    } else {
        text.lines().map(Some).collect()
    };
    Ok(RecordBatch::try_new(
        Arc::clone(schema),
        vec![Arc::new(values)],
    )?)
}
