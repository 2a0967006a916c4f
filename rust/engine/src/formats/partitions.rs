//! Partition discovery for batch reads: files under `key=value/` folders get
//! those keys as columns (types inferred as Spark does: int, bigint, double,
//! else string), as written by `partitionBy`.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{new_null_array, ArrayRef, RecordBatch, StringArray};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::sources::file::FileEntry;

const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// `key=value` pairs of `file`'s folders below `root`.
pub fn values(root: &Path, file: &Path) -> Vec<(String, Option<String>)> {
    let Ok(rel) = file.strip_prefix(root) else {
        return vec![];
    };
    let mut out = Vec::new();
    if let Some(parent) = rel.parent() {
        for comp in parent.components() {
            let s = comp.as_os_str().to_string_lossy();
            if let Some((k, v)) = s.split_once('=') {
                let v = unescape(v);
                out.push((unescape(k), (v != NULL_PARTITION).then_some(v)));
            }
        }
    }
    out
}

fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn infer(values: &[Option<String>]) -> DataType {
    let present: Vec<&str> = values.iter().flatten().map(String::as_str).collect();
    if present.is_empty() {
        return DataType::Utf8;
    }
    if present.iter().all(|v| v.parse::<i32>().is_ok()) {
        DataType::Int32
    } else if present.iter().all(|v| v.parse::<i64>().is_ok()) {
        DataType::Int64
    } else if present.iter().all(|v| v.parse::<f64>().is_ok()) {
        DataType::Float64
    } else {
        DataType::Utf8
    }
}

/// The partition columns of `files` under `root` (empty if unpartitioned),
/// typed by `user` where it names them.
pub fn columns(root: &Path, files: &[FileEntry], user: Option<&SchemaRef>) -> Vec<Field> {
    let mut names: Vec<String> = Vec::new();
    for f in files {
        for (k, _) in values(root, &f.path) {
            if !names.contains(&k) {
                names.push(k);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let dt = user
                .and_then(|s| s.field_with_name(&name).ok().map(|f| f.data_type().clone()))
                .unwrap_or_else(|| {
                    let vals: Vec<Option<String>> = files
                        .iter()
                        .map(|f| {
                            values(root, &f.path)
                                .into_iter()
                                .find(|(k, _)| *k == name)
                                .and_then(|(_, v)| v)
                        })
                        .collect();
                    infer(&vals)
                });
            Field::new(name, dt, true)
        })
        .collect()
}

/// Read one Parquet file into `schema`'s columns (matched by name; missing
/// columns are null, as Spark's schema merging reads them).
pub fn read_parquet_file(path: &Path, schema: &SchemaRef) -> Result<Vec<RecordBatch>> {
    let display = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(&display, e))?;
    let footer = |e: parquet::errors::ParquetError| Error::Input {
        condition: "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER".into(),
        message: format!("Could not read footer for file: {display}: {e}"),
    };
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(footer)?;
    super::parquet_types::check(&display, builder.schema(), schema)?;
    let reader = builder.build().map_err(footer)?;
    let mut out = Vec::new();
    for batch in reader {
        out.push(conform(&batch?, schema)?);
    }
    Ok(out)
}

/// A file's `batch` as rows of the read's `schema`: columns by name, cast
/// where the types differ, null where the file has none.
pub fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let cols = schema
        .fields()
        .iter()
        .map(|f| match batch.column_by_name(f.name()) {
            Some(c) if c.data_type() == f.data_type() => Ok(Arc::clone(c)),
            Some(c) => Ok(cast_with_options(
                c,
                f.data_type(),
                &CastOptions::default(),
            )?),
            None => Ok(new_null_array(f.data_type(), batch.num_rows())),
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let opts = arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        cols,
        &opts,
    )?)
}

/// Append `parts` (constant per file) to `batches` read from `file`.
pub fn append(
    root: &Path,
    file: &Path,
    batches: Vec<RecordBatch>,
    parts: &[Field],
    out_schema: &SchemaRef,
) -> Result<Vec<RecordBatch>> {
    let vals = values(root, file);
    batches
        .into_iter()
        .map(|b| {
            let mut cols = b.columns().to_vec();
            for f in parts {
                let v = vals
                    .iter()
                    .find(|(k, _)| k == f.name())
                    .and_then(|(_, v)| v.clone());
                let strings: ArrayRef = Arc::new(StringArray::from(vec![v; b.num_rows()]));
                cols.push(cast_with_options(
                    &strings,
                    f.data_type(),
                    &CastOptions {
                        safe: true,
                        ..Default::default()
                    },
                )?);
            }
            Ok(RecordBatch::try_new(Arc::clone(out_schema), cols)?)
        })
        .collect()
}

/// A partitioned read's schema: `data`'s columns (any named as a partition
/// column left out), then the partition columns.
pub fn with_partitions(data: &Schema, parts: &[Field]) -> SchemaRef {
    let mut fields: Vec<Field> = split_schema(data, parts)
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.extend(parts.iter().cloned());
    Arc::new(Schema::new(fields))
}

/// A user's schema with the partition columns it does not name appended
/// (those it names keep their place and its type).
pub fn with_user_partitions(user: &Schema, parts: &[Field]) -> SchemaRef {
    let mut fields: Vec<Field> = user.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.extend(
        parts
            .iter()
            .filter(|p| user.field_with_name(p.name()).is_err())
            .cloned(),
    );
    Arc::new(Schema::new(fields))
}

/// The data schema (without partition columns) and the full schema.
pub fn split_schema(full: &Schema, parts: &[Field]) -> SchemaRef {
    Arc::new(Schema::new(
        full.fields()
            .iter()
            .filter(|f| !parts.iter().any(|p| p.name() == f.name()))
            .cloned()
            .collect::<Vec<_>>(),
    ))
}
