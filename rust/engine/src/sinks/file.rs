//! The file sink: `writeStream.format("parquet"|"csv"|"json"|"text")` with a
//! `path` and optional `partitionBy`.
//!
//! Each batch writes new data files, then appends `_spark_metadata/<N>`
//! listing them (the manifest, as Spark's `FileStreamSinkLog`). Readers that
//! honour the manifest (`spark.read`, [`committed_files`]) see a batch only
//! once its manifest entry exists, so a crash mid-batch leaves invisible
//! orphan files, never partial or duplicate data. A replayed batch whose
//! manifest entry exists is skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use arrow::array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::{Sink, SinkBatch};
use crate::checkpoint::log;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::sources::file::FileFormat;

/// Folder of the manifest inside the sink's path.
pub const MANIFEST_DIR: &str = "_spark_metadata";
/// Spark's name for a null partition value.
const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

/// Files listed by the manifest under `root`, in batch order (latest compact
/// file plus the batches after it). `None` when `root` has no manifest.
pub fn committed_files(root: &Path) -> Result<Option<Vec<PathBuf>>> {
    let dir = root.join(MANIFEST_DIR);
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for (file, _) in manifest_entries(&dir)?.into_values().flatten() {
        out.push(file);
    }
    Ok(Some(out))
}

/// Manifest entries (file path and the entry as written) by batch id.
fn manifest_entries(dir: &Path) -> Result<BTreeMap<i64, Vec<(PathBuf, serde_json::Value)>>> {
    let mut out: BTreeMap<i64, Vec<(PathBuf, serde_json::Value)>> = BTreeMap::new();
    for (n, path) in &log::live_files(dir)? {
        for line in log::read_entries(path)? {
            if line.trim().is_empty() {
                continue;
            }
            let v = log::parse_json(path, &line)?;
            if v.get("action").and_then(|a| a.as_str()) == Some("delete") {
                continue;
            }
            let p = v
                .get("path")
                .and_then(|p| p.as_str())
                .ok_or_else(|| log::corrupt(path, format!("entry {line:?} has no \"path\"")))?;
            let file = PathBuf::from(p.strip_prefix("file://").unwrap_or(p));
            // compact files hold several batches; keep them under the compact id
            out.entry(*n).or_default().push((file, v));
        }
    }
    Ok(out)
}

/// Writes each batch as files plus a manifest entry.
pub struct FileSink {
    format: FileFormat,
    root: PathBuf,
    partition_by: Vec<String>,
    header: bool,
    sep: u8,
    compact_interval: i64,
    /// `retention`: entries older than this are dropped when compacting.
    retention_ms: Option<i64>,
}

impl FileSink {
    /// A sink writing `format` files under `path`.
    pub fn new(
        format: FileFormat,
        path: &str,
        partition_by: Vec<String>,
        options: &std::collections::HashMap<String, String>,
        compact_interval: i64,
        schema: &SchemaRef,
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
        let root = crate::sources::file::absolute(path)?;
        std::fs::create_dir_all(root.join(MANIFEST_DIR)).map_err(|e| io(&root, e))?;
        Ok(FileSink {
            format,
            root,
            partition_by,
            header: options
                .get("header")
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            sep: options
                .get("sep")
                .and_then(|s| s.bytes().next())
                .unwrap_or(b','),
            compact_interval: compact_interval.max(1),
            retention_ms: options
                .get("retention")
                .map(|v| {
                    crate::engine::trigger::parse_duration_ms(v).map_err(|_| {
                        Error::illegal_argument(format!("Invalid value '{v}' for option 'retention': expected a duration like '12h'"))
                    })
                })
                .transpose()?,
        })
    }

    fn manifest_dir(&self) -> PathBuf {
        self.root.join(MANIFEST_DIR)
    }

    /// Newest batch id in the manifest.
    /// The newest batch in the manifest, which must have every file a
    /// reader needs (none missing after the last compaction).
    fn last_batch(&self) -> Result<Option<i64>> {
        Ok(log::live_files(&self.manifest_dir())?
            .last()
            .map(|(n, _)| *n))
    }

    fn extension(&self) -> &'static str {
        match self.format {
            FileFormat::Parquet => "snappy.parquet",
            FileFormat::Json => "json",
            FileFormat::Csv => "csv",
            FileFormat::Text => "txt",
        }
    }

    /// Write `batches` to the data file `path`; an error names the file.
    fn write_file(&self, path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<()> {
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
                    .set_compression(parquet::basic::Compression::SNAPPY)
                    .build();
                let mut w =
                    parquet::arrow::ArrowWriter::try_new(&file, Arc::clone(schema), Some(props))
                        .map_err(parquet_error)?;
                for b in batches {
                    w.write(b).map_err(parquet_error)?;
                }
                w.close().map_err(parquet_error)?;
            }
            FileFormat::Json => {
                let mut w = arrow::json::LineDelimitedWriter::new(&file);
                for b in batches {
                    w.write(b)?;
                }
                w.finish()?;
            }
            FileFormat::Csv => {
                let mut w = arrow::csv::WriterBuilder::new()
                    .with_header(self.header)
                    .with_delimiter(self.sep)
                    .with_timestamp_tz_format("%Y-%m-%dT%H:%M:%S%.3f%:z".to_string())
                    .build(&file);
                for b in batches {
                    w.write(b)?;
                }
            }
            FileFormat::Text => {
                use std::io::Write;
                let mut out = std::io::BufWriter::new(&file);
                for b in batches {
                    let col = arrow::array::AsArray::as_string::<i32>(b.column(0).as_ref());
                    for v in col.iter() {
                        writeln!(out, "{}", v.unwrap_or("")).map_err(|e| io(path, e))?;
                    }
                }
                out.flush().map_err(|e| io(path, e))?;
            }
        }
        file.sync_all().map_err(|e| io(path, e))
    }

    /// Group rows by their partition values: (relative dir, rows without
    /// the partition columns).
    fn split(&self, data: &SinkBatch) -> Result<Vec<(String, Vec<RecordBatch>)>> {
        let keep: Vec<usize> = (0..data.schema.fields().len())
            .filter(|i| !self.partition_by.contains(data.schema.field(*i).name()))
            .collect();
        let out_schema = Arc::new(data.schema.project(&keep)?);
        if self.partition_by.is_empty() {
            return Ok(vec![(String::new(), data.batches.clone())]);
        }
        let opts = FormatOptions::default();
        let mut groups: BTreeMap<String, Vec<RecordBatch>> = BTreeMap::new();
        for b in &data.batches {
            let keys: Vec<(String, ArrayRef)> = self
                .partition_by
                .iter()
                .map(|p| Ok((p.clone(), Arc::clone(b.column(data.schema.index_of(p)?)))))
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

impl Sink for FileSink {
    fn description(&self) -> String {
        format!("FileSink[file:{}]", self.root.display())
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        match self.last_batch()? {
            Some(last) if batch_id <= last => return Ok(()), // committed by an earlier attempt: never written twice
            // the batch before this one ran and reached this sink: its file went
            Some(last) if last < batch_id - 1 => {
                return Err(log::missing(
                    &self.manifest_dir().join((batch_id - 1).to_string()),
                ))
            }
            _ => {}
        }
        let mut entries = Vec::new();
        for (dir, batches) in self.split(&data)? {
            if batches.iter().all(|b| b.num_rows() == 0) {
                continue; // Spark writes no file for an empty batch
            }
            let folder = if dir.is_empty() {
                self.root.clone()
            } else {
                self.root.join(&dir)
            };
            std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
            let name = format!(
                "part-00000-{}-c000.{}",
                uuid::Uuid::new_v4(),
                self.extension()
            );
            let path = folder.join(name);
            let schema = batches[0].schema();
            self.write_file(&path, &schema, &batches)?;
            log::sync_dir(&folder, true)?;
            let meta = std::fs::metadata(&path).map_err(|e| io(&path, e))?;
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as i64);
            entries.push(
                serde_json::json!({
                    "path": format!("file://{}", path.display()),
                    "size": meta.len(),
                    "isDir": false,
                    "modificationTime": mtime,
                    "blockReplication": 1,
                    "blockSize": 33_554_432,
                    "action": "add",
                })
                .to_string(),
            );
        }
        failpoint::hit("mid-sink", batch_id);
        let dir = self.manifest_dir();
        if (batch_id + 1) % self.compact_interval == 0 {
            // compact: every live entry so far plus this batch, in one file;
            // with `retention`, entries older than it are dropped
            let now_ms = std::time::SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64);
            let cutoff = self.retention_ms.map_or(i64::MIN, |r| now_ms - r);
            let all_entries = manifest_entries(&dir)?;
            let mut all: Vec<String> = all_entries
                .into_values()
                .flatten()
                .filter(|(_, v)| {
                    v.get("modificationTime")
                        .and_then(|t| t.as_i64())
                        .unwrap_or(i64::MAX)
                        >= cutoff
                })
                .map(|(_, v)| v.to_string())
                .collect();
            all.extend(entries);
            log::write_entries(&dir.join(format!("{batch_id}.compact")), &all, true)
        } else {
            log::write_entries(&dir.join(batch_id.to_string()), &entries, true)
        }
    }
}
