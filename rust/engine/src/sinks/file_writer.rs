//! Writing rows as data files, shared by the streaming file sink and the
//! batch writer (`df.write`): each format with Spark's options, and
//! `partitionBy` as Hive-style `key=value` folders with Spark's escaping.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use crate::error::{Error, Result};
use crate::formats::datetime::java_to_chrono;
use crate::sources::file::FileFormat;

/// Spark's name for a null partition value.
const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";
/// Spark's default formats of dates and timestamps in CSV and JSON.
const DATE_FORMAT: &str = "yyyy-MM-dd";
const TIMESTAMP_FORMAT: &str = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";
const TIMESTAMP_NTZ_FORMAT: &str = "yyyy-MM-dd'T'HH:mm:ss.SSS";

pub(crate) fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

/// Parquet's codecs this build writes, by Spark's names.
fn parquet_codec(name: &str) -> Result<(parquet::basic::Compression, &'static str)> {
    use parquet::basic::{Compression, ZstdLevel};
    Ok(match name.to_ascii_lowercase().as_str() {
        "snappy" => (Compression::SNAPPY, "snappy."),
        "zstd" => (Compression::ZSTD(ZstdLevel::default()), "zstd."),
        "none" | "uncompressed" => (Compression::UNCOMPRESSED, ""),
        other => {
            return Err(Error::illegal_argument(format!(
                "Codec [{other}] is not available. Available codecs are uncompressed, none, snappy, zstd."
            )))
        }
    })
}

/// The format, its options and the partition columns of a write.
pub struct FileWriter {
    format: FileFormat,
    partition_by: Vec<String>,
    header: bool,
    sep: u8,
    quote: u8,
    escape: u8,
    null_value: String,
    quote_all: bool,
    date_format: String,
    timestamp_format: String,
    /// Java's `X` offset: `Z` for UTC, where chrono writes `+00:00`.
    zulu: bool,
    timestamp_ntz_format: String,
    ignore_null_fields: bool,
    line_sep: String,
    parquet_codec: parquet::basic::Compression,
    orc_codec: Option<orc_rust::compression::CompressionType>,
    extension: String,
    /// The session time zone: timestamps are written in it, as Spark does.
    time_zone: Option<Arc<str>>,
}

fn byte_option(options: &HashMap<String, String>, keys: &[&str], default: u8) -> Result<u8> {
    match keys.iter().find_map(|k| options.get(*k)) {
        None => Ok(default),
        Some(v) if v.len() == 1 => Ok(v.as_bytes()[0]),
        Some(v) if v == "\\t" => Ok(b'\t'),
        Some(v) => Err(Error::illegal_argument(format!(
            "[INVALID_DELIMITER_VALUE] Option '{}' must be a single character, got '{v}'.",
            keys[0]
        ))),
    }
}

impl FileWriter {
    /// A writer of `format` files for rows of `schema`; `options` are the
    /// write's options with lower-case keys.
    pub fn new(
        format: FileFormat,
        partition_by: Vec<String>,
        options: &HashMap<String, String>,
        schema: &SchemaRef,
        time_zone: Option<Arc<str>>,
    ) -> Result<Self> {
        for p in &partition_by {
            if schema.index_of(p).is_err() {
                return Err(Error::analysis(
                    "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                    format!(
                        "Partition column `{p}` not found in schema [{}].",
                        schema
                            .fields()
                            .iter()
                            .map(|f| format!("`{}`", f.name()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        if format == FileFormat::Text {
            let data: Vec<_> = schema
                .fields()
                .iter()
                .filter(|f| !partition_by.contains(f.name()))
                .collect();
            if data.len() != 1 || data[0].data_type() != &DataType::Utf8 {
                return Err(Error::analysis(
                    "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                    "Text data source supports only a single column of string type",
                ));
            }
        }
        let compression = options.get("compression").or(options.get("codec"));
        let (parquet_codec, parquet_prefix) =
            parquet_codec(compression.map_or("snappy", |c| c.as_str())).or_else(|e| {
                if format == FileFormat::Parquet {
                    Err(e)
                } else {
                    parquet_codec("snappy")
                }
            })?;
        let (orc_codec, orc_prefix) = match format {
            FileFormat::Orc => {
                let data = arrow::datatypes::Schema::new(
                    schema
                        .fields()
                        .iter()
                        .filter(|f| !partition_by.contains(f.name()))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
                crate::formats::orc::check_writable(&data)?;
                crate::formats::orc::codec(compression.map_or("zstd", |c| c.as_str()))?
            }
            _ => (None, ""),
        };
        if !matches!(format, FileFormat::Parquet | FileFormat::Orc) {
            if let Some(c) = compression
                .filter(|c| !matches!(c.to_ascii_lowercase().as_str(), "none" | "uncompressed"))
            {
                return Err(Error::illegal_argument(format!(
                    "Codec [{c}] is not available. Available codecs are none, uncompressed."
                )));
            }
        }
        let extension = match format {
            FileFormat::Parquet => format!("{parquet_prefix}parquet"),
            FileFormat::Orc => format!("{orc_prefix}orc"),
            FileFormat::Json => "json".into(),
            FileFormat::Csv => "csv".into(),
            FileFormat::Text => "txt".into(),
        };
        let get =
            |k: &str, default: &str| options.get(k).cloned().unwrap_or_else(|| default.into());
        Ok(FileWriter {
            format,
            partition_by,
            header: options
                .get("header")
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            sep: byte_option(options, &["sep", "delimiter"], b',')?,
            quote: byte_option(options, &["quote"], b'"')?,
            escape: byte_option(options, &["escape"], b'\\')?,
            null_value: get("nullvalue", ""),
            quote_all: options
                .get("quoteall")
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            date_format: java_to_chrono(&get("dateformat", DATE_FORMAT)),
            timestamp_format: java_to_chrono(&get("timestampformat", TIMESTAMP_FORMAT)),
            zulu: get("timestampformat", TIMESTAMP_FORMAT).contains('X'),
            timestamp_ntz_format: java_to_chrono(&get("timestampntzformat", TIMESTAMP_NTZ_FORMAT)),
            ignore_null_fields: !options
                .get("ignorenullfields")
                .is_some_and(|v| v.eq_ignore_ascii_case("false")),
            line_sep: get("linesep", "\n"),
            parquet_codec,
            orc_codec,
            extension,
            time_zone,
        })
    }

    /// The file name's extension (`snappy.parquet`, `csv`, ...).
    pub fn extension(&self) -> &str {
        &self.extension
    }

    /// Write `batches` to the data file `path`; an error names the file.
    pub fn write_file(
        &self,
        path: &Path,
        schema: &SchemaRef,
        batches: &[RecordBatch],
    ) -> Result<()> {
        self.write_file_unnamed(path, schema, batches)
            .map_err(|e| e.naming(path))
    }

    fn write_file_unnamed(
        &self,
        path: &Path,
        schema: &SchemaRef,
        batches: &[RecordBatch],
    ) -> Result<()> {
        let file = std::fs::File::create(path).map_err(|e| io(path, e))?;
        let parquet_error = |e: parquet::errors::ParquetError| io(path, std::io::Error::other(e));
        match self.format {
            FileFormat::Parquet => {
                let props = parquet::file::properties::WriterProperties::builder()
                    .set_compression(self.parquet_codec)
                    .build();
                super::parquet_columns::write(&file, schema, props, batches)
                    .map_err(parquet_error)?;
            }
            FileFormat::Orc => {
                crate::formats::orc::write(&file, schema, batches, self.orc_codec)
                    .map_err(|e| io(path, std::io::Error::other(e)))?;
            }
            FileFormat::Json => {
                let out = std::io::BufWriter::new(&file);
                let mut w = arrow::json::WriterBuilder::new()
                    .with_explicit_nulls(!self.ignore_null_fields)
                    .build::<_, arrow::json::writer::LineDelimited>(out);
                for b in batches {
                    w.write(&self.as_text_dates(b)?)?;
                }
                w.finish()?;
                w.into_inner()
                    .into_inner()
                    .map_err(|e| io(path, e.into_error()))?;
            }
            FileFormat::Csv => {
                let mut w = arrow::csv::WriterBuilder::new()
                    .with_header(self.header)
                    .with_delimiter(self.sep)
                    .with_quote(self.quote)
                    .with_escape(self.escape)
                    .with_double_quote(false)
                    .with_null(self.null_value.clone())
                    .with_quote_style(if self.quote_all {
                        arrow::csv::QuoteStyle::Always
                    } else {
                        arrow::csv::QuoteStyle::Necessary
                    })
                    .build(std::io::BufWriter::new(&file));
                for b in batches {
                    w.write(&self.as_text_dates(b)?)?;
                }
                use std::io::Write;
                w.into_inner().flush().map_err(|e| io(path, e))?;
            }
            FileFormat::Text => {
                use std::io::Write;
                let mut out = std::io::BufWriter::new(&file);
                for b in batches {
                    let col = arrow::array::AsArray::as_string::<i32>(b.column(0).as_ref());
                    for v in col.iter() {
                        write!(out, "{}{}", v.unwrap_or(""), self.line_sep)
                            .map_err(|e| io(path, e))?;
                    }
                }
                out.flush().map_err(|e| io(path, e))?;
            }
        }
        file.sync_all().map_err(|e| io(path, e))
    }

    /// Timestamps with a time zone shown in the session's, as Spark writes
    /// them.
    fn in_session_zone(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let Some(tz) = &self.time_zone else {
            return Ok(b.clone());
        };
        self.map_columns(b, |f, c| match f.data_type() {
            DataType::Timestamp(unit, Some(_)) => {
                let t = DataType::Timestamp(*unit, Some(Arc::clone(tz)));
                Ok(Some((t.clone(), arrow::compute::cast(c, &t)?)))
            }
            _ => Ok(None),
        })
    }

    /// CSV and JSON: dates and timestamps as text in Spark's formats (and
    /// zone offsets as Java writes them).
    fn as_text_dates(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let b = self.in_session_zone(b)?;
        self.map_columns(&b, |f, c| {
            let format = match f.data_type() {
                DataType::Date32 | DataType::Date64 => &self.date_format,
                DataType::Timestamp(_, Some(_)) => &self.timestamp_format,
                DataType::Timestamp(_, None) => &self.timestamp_ntz_format,
                _ => return Ok(None),
            };
            let opts = FormatOptions::default()
                .with_date_format(Some(format))
                .with_timestamp_tz_format(Some(format))
                .with_timestamp_format(Some(format));
            let fmt = ArrayFormatter::try_new(c.as_ref(), &opts)?;
            let zulu = self.zulu && matches!(f.data_type(), DataType::Timestamp(_, Some(_)));
            let text: arrow::array::StringArray = (0..c.len())
                .map(|i| {
                    (!c.is_null(i)).then(|| {
                        let s = fmt.value(i).to_string();
                        match s.strip_suffix("+00:00") {
                            Some(utc) if zulu => format!("{utc}Z"),
                            _ => s,
                        }
                    })
                })
                .collect();
            Ok(Some((DataType::Utf8, Arc::new(text) as ArrayRef)))
        })
    }

    /// `b` with some top-level columns replaced (`f` returns the new type
    /// and column, or None to keep it).
    fn map_columns(
        &self,
        b: &RecordBatch,
        f: impl Fn(&Field, &ArrayRef) -> Result<Option<(DataType, ArrayRef)>>,
    ) -> Result<RecordBatch> {
        let mut fields = Vec::with_capacity(b.num_columns());
        let mut cols = Vec::with_capacity(b.num_columns());
        for (field, col) in b.schema().fields().iter().zip(b.columns()) {
            match f(field, col)? {
                Some((t, c)) => {
                    fields.push(Field::new(field.name(), t, field.is_nullable()));
                    cols.push(c);
                }
                None => {
                    fields.push(field.as_ref().clone());
                    cols.push(Arc::clone(col));
                }
            }
        }
        Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)?)
    }

    /// Group rows by their partition values: (relative dir, rows without
    /// the partition columns).
    pub fn split(
        &self,
        schema: &SchemaRef,
        batches: &[RecordBatch],
    ) -> Result<Vec<(String, Vec<RecordBatch>)>> {
        let keep: Vec<usize> = (0..schema.fields().len())
            .filter(|i| !self.partition_by.contains(schema.field(*i).name()))
            .collect();
        let out_schema = Arc::new(schema.project(&keep)?);
        if self.partition_by.is_empty() {
            return Ok(vec![(String::new(), batches.to_vec())]);
        }
        let opts = FormatOptions::default();
        let mut groups: BTreeMap<String, Vec<RecordBatch>> = BTreeMap::new();
        for b in batches {
            let keys: Vec<(String, ArrayRef)> = self
                .partition_by
                .iter()
                .map(|p| Ok((p.clone(), Arc::clone(b.column(schema.index_of(p)?)))))
                .collect::<Result<_>>()?;
            let formatters = keys
                .iter()
                .map(|(_, a)| ArrayFormatter::try_new(a.as_ref(), &opts))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let mut rows: BTreeMap<String, Vec<u32>> = BTreeMap::new();
            for r in 0..b.num_rows() {
                let dir: Vec<String> = keys
                    .iter()
                    .zip(&formatters)
                    .map(|((name, arr), f)| {
                        let v = if arr.is_null(r) {
                            NULL_PARTITION.to_string()
                        } else {
                            escape(&f.value(r).to_string())
                        };
                        format!("{}={v}", escape(name))
                    })
                    .collect();
                rows.entry(dir.join("/")).or_default().push(r as u32);
            }
            let projected = b.project(&keep)?;
            for (dir, idx) in rows {
                let idx = UInt32Array::from(idx);
                let cols = projected
                    .columns()
                    .iter()
                    .map(|c| take(c.as_ref(), &idx, None))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                groups
                    .entry(dir)
                    .or_default()
                    .push(RecordBatch::try_new(Arc::clone(&out_schema), cols)?);
            }
        }
        Ok(groups.into_iter().collect())
    }

    /// Write the rows under `root`: each of `partitions` (the plan's
    /// output partitions, as Spark's tasks) one file per partition folder,
    /// named as Spark names them: `part-<task>-<job>-c000.<ext>`. Empty
    /// partitions write nothing; when all are, `keep_empty` writes one file
    /// of the schema alone (as Spark's batch writer does, so the folder can
    /// be read back). The files written, relative to `root`.
    pub fn write_parts(
        &self,
        root: &Path,
        job: &uuid::Uuid,
        schema: &SchemaRef,
        partitions: &[Vec<RecordBatch>],
        keep_empty: bool,
    ) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        let write = |task: usize, dir: &str, batches: &[RecordBatch], schema: SchemaRef| {
            let folder = root.join(dir);
            std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
            let name = format!("part-{task:05}-{job}-c000.{}", self.extension);
            self.write_file(&folder.join(&name), &schema, batches)?;
            Ok::<_, Error>(PathBuf::from(dir).join(name))
        };
        for (task, batches) in partitions.iter().enumerate() {
            for (dir, batches) in self.split(schema, batches)? {
                // Spark writes no file for an empty task
                if let Some(first) = batches.iter().find(|b| b.num_rows() > 0) {
                    written.push(write(task, &dir, &batches, first.schema())?);
                }
            }
        }
        if written.is_empty() && keep_empty && self.partition_by.is_empty() {
            written.push(write(0, "", &[], Arc::clone(schema))?);
        }
        Ok(written)
    }
}

/// Escape a partition path component as Spark does (`/`, `=`, `%`, ... as `%XX`).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || "\"#%'*/:=?\\\u{7f}{[]^".contains(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
