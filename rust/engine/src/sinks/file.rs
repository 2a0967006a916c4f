//! The file sink: `writeStream.format("parquet"|"orc"|"csv"|"json"|"text")` with a
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

use arrow::datatypes::SchemaRef;

use super::file_writer::{io, FileWriter};
use super::{Sink, SinkBatch};
use crate::checkpoint::log;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::sources::file::FileFormat;

/// Folder of the manifest inside the sink's path.
pub const MANIFEST_DIR: &str = "_spark_metadata";

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
    writer: FileWriter,
    root: PathBuf,
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
        time_zone: Option<Arc<str>>,
    ) -> Result<Self> {
        let writer = FileWriter::new(format, partition_by, options, schema, time_zone)?;
        let root = crate::sources::file::absolute(path)?;
        std::fs::create_dir_all(root.join(MANIFEST_DIR)).map_err(|e| io(&root, e))?;
        Ok(FileSink {
            writer,
            root,
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

    /// The newest batch in the manifest, which must have every file a
    /// reader needs (none missing after the last compaction).
    fn last_batch(&self) -> Result<Option<i64>> {
        Ok(log::live_files(&self.manifest_dir())?
            .last()
            .map(|(n, _)| *n))
    }
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
        let job = uuid::Uuid::new_v4();
        let files = self.writer.write_parts(
            &self.root,
            &job,
            &data.schema,
            std::slice::from_ref(&data.batches),
            false,
        )?;
        for relative in files {
            let path = self.root.join(relative);
            if let Some(folder) = path.parent() {
                log::sync_dir(folder, true)?;
            }
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
