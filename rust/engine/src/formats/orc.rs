//! Apache ORC files through the `orc-rust` crate: a file's schema, its rows
//! in a read's schema, and a file written as Spark's ORC writer writes one
//! (zstd by default, as Spark 4). Timestamps are read at microsecond precision, as
//! Spark holds them. The crate writes flat columns only: a nested column
//! is Spark's unsupported-type error, named.

use std::path::Path;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Schema, SchemaRef};
use orc_rust::arrow_reader::ArrowReaderBuilder;
use orc_rust::compression::CompressionType;
use orc_rust::schema::TimestampPrecision;

use crate::error::{Error, Result};

fn footer_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Input {
        condition: "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER".into(),
        message: format!("Could not read footer for file: {}: {e}", path.display()),
    }
}

fn open(path: &Path) -> Result<ArrowReaderBuilder<std::fs::File>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    Ok(ArrowReaderBuilder::try_new(file)
        .map_err(|e| footer_error(path, e))?
        .with_timestamp_precision(TimestampPrecision::Microsecond))
}

/// The Arrow schema of an ORC file (a Spark `timestamp` is an instant).
pub fn schema_of(path: &Path) -> Result<Schema> {
    let schema = open(path)?.schema();
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Timestamp(unit, None) => f
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(*unit, Some("UTC".into()))),
            _ => f.as_ref().clone(),
        })
        .collect();
    Ok(Schema::new(fields))
}

/// The rows of the ORC file `path`, as `schema`.
pub fn read_file(path: &Path, schema: &SchemaRef) -> Result<Vec<RecordBatch>> {
    let reader = open(path)?.build();
    reader
        .map(|b| super::partitions::conform(&b?, schema))
        .collect()
}

/// Spark's ORC `compression` names: the codec, and the file name's infix.
pub fn codec(name: &str) -> Result<(Option<CompressionType>, &'static str)> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => (None, ""),
        "snappy" => (Some(CompressionType::Snappy), "snappy."),
        "zlib" => (Some(CompressionType::Zlib), "zlib."),
        "lz4" => (Some(CompressionType::Lz4), "lz4."),
        "zstd" => (Some(CompressionType::Zstd), "zstd."),
        other => {
            return Err(Error::illegal_argument(format!(
                "Codec [{other}] is not available. Available codecs are uncompressed, lz4, zstd, \
                 snappy, zlib, none."
            )))
        }
    })
}

/// Check that every column of `schema` can be written to ORC here.
pub fn check_writable(schema: &Schema) -> Result<()> {
    for f in schema.fields() {
        if f.data_type().is_nested() || matches!(f.data_type(), DataType::Decimal128(..)) {
            return Err(Error::analysis(
                "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                format!(
                    "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The ORC datasource doesn't support the \
                     column `{}` of the type \"{}\" in sparklet (nested and decimal ORC columns \
                     are read, not written).",
                    f.name(),
                    crate::plan::spark_names::type_name(f.data_type())
                ),
            ));
        }
    }
    Ok(())
}

/// Write `batches` (of `schema`) as one ORC file.
pub fn write(
    file: &std::fs::File,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    codec: Option<CompressionType>,
) -> std::result::Result<(), orc_rust::error::OrcError> {
    let mut builder = orc_rust::arrow_writer::ArrowWriterBuilder::new(file, Arc::clone(schema));
    if let Some(c) = codec {
        builder = builder.with_compression(c);
    }
    let mut writer = builder.try_build()?;
    for b in batches {
        writer.write(b)?;
    }
    writer.close()
}
