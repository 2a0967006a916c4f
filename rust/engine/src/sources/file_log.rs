//! The file source's log (Spark's `FileStreamSourceLog`) in `sources/<n>/`:
//! one file per batch listing the files it took, compacted every
//! [`COMPACT_INTERVAL`] batches into `<N>.compact` holding every entry so far.
//!
//! ```text
//! v1
//! {"path":"file:///data/in/a.json","timestamp":1732870000000,"batchId":0}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::checkpoint::log;
use crate::error::{Error, Result};

/// Batches between compactions (Spark's `fileSource.log.compactInterval`).
pub const COMPACT_INTERVAL: i64 = 10;

/// A file taken by a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// Absolute path.
    pub path: PathBuf,
    /// Modification time when taken, ms.
    pub timestamp: i64,
    /// The batch (logOffset) that took it.
    pub batch_id: i64,
}

fn to_line(e: &LogEntry) -> String {
    serde_json::json!({
        "path": format!("file://{}", e.path.display()),
        "timestamp": e.timestamp,
        "batchId": e.batch_id,
    })
    .to_string()
}

fn from_line(file: &Path, line: &str) -> Result<LogEntry> {
    let v = log::parse_json(file, line)?;
    let path = v
        .get("path")
        .and_then(|p| p.as_str())
        .ok_or_else(|| log::corrupt(file, format!("entry {line:?} has no \"path\"")))?;
    Ok(LogEntry {
        path: PathBuf::from(path.strip_prefix("file://").unwrap_or(path)),
        timestamp: v.get("timestamp").and_then(|t| t.as_i64()).unwrap_or(0),
        batch_id: v
            .get("batchId")
            .and_then(|b| b.as_i64())
            .ok_or_else(|| log::corrupt(file, format!("entry {line:?} has no \"batchId\"")))?,
    })
}

/// Read every entry: the newest compact file plus the batches after it.
pub fn read_all(dir: &Path) -> Result<BTreeMap<i64, Vec<LogEntry>>> {
    let mut out: BTreeMap<i64, Vec<LogEntry>> = BTreeMap::new();
    for (_, path) in &log::live_files(dir)? {
        for line in log::read_entries(path)? {
            if line.trim().is_empty() {
                continue;
            }
            let e = from_line(path, &line)?;
            out.entry(e.batch_id).or_default().push(e);
        }
    }
    Ok(out)
}

/// Record batch `batch_id`'s files; every [`COMPACT_INTERVAL`] batches also
/// write `<batch_id>.compact` with `all` entries and drop the files it covers.
pub fn write_batch(
    dir: &Path,
    batch_id: i64,
    files: &[LogEntry],
    all: &BTreeMap<i64, Vec<LogEntry>>,
    fsync: bool,
) -> Result<()> {
    let lines: Vec<String> = files.iter().map(to_line).collect();
    if (batch_id + 1) % COMPACT_INTERVAL == 0 {
        let everything: Vec<String> = all.values().flatten().map(to_line).collect();
        log::write_entries(&dir.join(format!("{batch_id}.compact")), &everything, fsync)?;
        // the compact file holds everything: older files are no longer read
        for (n, p) in log::batch_files(dir)? {
            if n < batch_id || (n == batch_id && p.extension().is_none()) {
                std::fs::remove_file(&p).map_err(|e| Error::io(p.display().to_string(), e))?;
            }
        }
        return Ok(());
    }
    log::write_entries(&dir.join(batch_id.to_string()), &lines, fsync)
}
