//! A query's checkpoint folder, laid out as Spark's:
//!
//! ```text
//! metadata            {"id":"<query id>"}
//! offsets/<batchId>   v1 / {"batchWatermarkMs":..,"batchTimestampMs":..,"conf":{..}} / one offset line per source ("-" for none)
//! commits/<batchId>   v1 / {"nextBatchWatermarkMs":..}
//! sources/<n>/...     each source's own log (files taken, start time, ...)
//! state/...           state stores (stateful operators)
//! .sparklet-lock      held by the run that owns the checkpoint (empty)
//! ```
//!
//! Every file is written atomically ([`log::write_atomic`]); `metadata`,
//! `offsets/N` and `commits/N` are never replaced once written. Recovery is
//! a pure decision over what the folder holds ([`recovery`]).
//!
//! One run at a time owns a checkpoint, across threads and processes: it
//! holds an exclusive `flock` on `.sparklet-lock` ([`Checkpoint::try_lock`]).
//! The kernel releases the lock when its file closes, so when the process
//! ends, killed or not: a lock never outlives its run, and the file's
//! presence means nothing (it is never deleted, so that two runs always
//! lock the same file).

pub mod log;
pub mod paths;
pub mod recovery;
pub mod resume;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use paths::CheckpointPaths;

use crate::error::{Error, Result};
use crate::sources::Offset;

/// The metadata line of an `offsets/N` file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OffsetSeqMetadata {
    /// Event-time watermark in effect for the batch.
    pub batch_watermark_ms: i64,
    /// Processing time of the batch (so a replay sees the same `current_timestamp`).
    pub batch_timestamp_ms: i64,
    /// Session settings that must not change across restarts.
    pub conf: BTreeMap<String, String>,
}

/// One `offsets/N` file: the end offset of every source for batch N.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetSeq {
    /// Batch metadata.
    pub metadata: OffsetSeqMetadata,
    /// Per source, in plan order; `None` when a source had no data yet.
    pub offsets: Vec<Option<Offset>>,
}

/// The name of the lock file in a checkpoint's folder.
pub const LOCK_FILE: &str = ".sparklet-lock";

/// A run's ownership of a checkpoint, held until dropped.
#[derive(Debug)]
pub struct CheckpointLock {
    /// `None` where the file system has no locks (warned at start).
    _file: Option<std::fs::File>,
}

/// A query's checkpoint folder.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    paths: CheckpointPaths,
}

impl Checkpoint {
    /// Open (and create) the checkpoint `paths` lays out.
    pub fn open(paths: CheckpointPaths) -> Result<Self> {
        for d in [paths.offsets(), paths.commits(), paths.sources()] {
            std::fs::create_dir_all(&d).map_err(|e| Error::io(d.display().to_string(), e))?;
        }
        Ok(Checkpoint { paths })
    }

    /// Its paths and durability.
    pub fn paths(&self) -> &CheckpointPaths {
        &self.paths
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        self.paths.root()
    }

    fn offsets_dir(&self) -> PathBuf {
        self.paths.offsets()
    }

    fn commits_dir(&self) -> PathBuf {
        self.paths.commits()
    }

    /// Take ownership of the checkpoint for a run: `None` while another
    /// run (of this process or another) holds it.
    pub fn try_lock(&self) -> Result<Option<CheckpointLock>> {
        let path = self.root().join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(CheckpointLock { _file: Some(file) })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
                log::warn_unlocked(&path);
                Ok(Some(CheckpointLock { _file: None }))
            }
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path.display().to_string(), e)),
        }
    }

    /// The query id stored in `metadata`, if it is written.
    pub fn stored_query_id(&self) -> Result<Option<String>> {
        let path = self.paths.metadata();
        if !path.exists() {
            return Ok(None);
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
        let v = log::parse_json(&path, text.trim())?;
        v.get("id")
            .and_then(|id| id.as_str())
            .map(|id| Some(id.to_string()))
            .ok_or_else(|| log::corrupt(&path, "it has no \"id\""))
    }

    /// The query id stored in `metadata`, written with `new_id` on first use.
    pub fn query_id(&self, new_id: &str) -> Result<String> {
        if let Some(id) = self.stored_query_id()? {
            return Ok(id);
        }
        log::write_atomic_new(
            &self.paths.metadata(),
            serde_json::json!({ "id": new_id }).to_string().as_bytes(),
            self.paths.fsync(),
        )?;
        Ok(new_id.to_string())
    }

    /// The setting `key` as the newest offsets record it (None: no offsets
    /// yet, or none recorded), as Spark keeps the settings a checkpoint
    /// started with. Reads only: creates nothing.
    pub fn recorded_conf(root: &Path, key: &str) -> Result<Option<String>> {
        // read only: durability does not matter
        let cp = Checkpoint {
            paths: CheckpointPaths::new(root, true),
        };
        let Some((n, _)) = log::batch_files(&cp.offsets_dir())?.pop() else {
            return Ok(None);
        };
        Ok(cp.read_offsets(n)?.metadata.conf.get(key).cloned())
    }

    /// Write `offsets/<batch>` (the write-ahead log entry of the batch).
    pub fn write_offsets(&self, batch: i64, seq: &OffsetSeq) -> Result<()> {
        let meta = serde_json::json!({
            "batchWatermarkMs": seq.metadata.batch_watermark_ms,
            "batchTimestampMs": seq.metadata.batch_timestamp_ms,
            "conf": seq.metadata.conf,
        });
        let mut lines = vec![meta.to_string()];
        for o in &seq.offsets {
            lines.push(
                o.as_ref()
                    .map_or_else(|| "-".to_string(), |v| v.to_string()),
            );
        }
        log::write_new_entries(
            &self.offsets_dir().join(batch.to_string()),
            &lines,
            self.paths.fsync(),
        )
    }

    /// Read `offsets/<batch>`.
    pub fn read_offsets(&self, batch: i64) -> Result<OffsetSeq> {
        let path = self.offsets_dir().join(batch.to_string());
        let lines = log::read_entries(&path)?;
        let (first, rest) = lines
            .split_first()
            .ok_or_else(|| log::corrupt(&path, "it has no metadata line"))?;
        let meta = log::parse_json(&path, first)?;
        let num = |k: &str| meta.get(k).and_then(|v| v.as_i64()).unwrap_or(0);
        let conf = meta
            .get("conf")
            .and_then(|c| c.as_object())
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().map_or_else(|| v.to_string(), str::to_string),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let offsets = rest
            .iter()
            .map(|l| {
                if l.trim() == "-" {
                    Ok(None)
                } else {
                    log::parse_json(&path, l).map(Some)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(OffsetSeq {
            metadata: OffsetSeqMetadata {
                batch_watermark_ms: num("batchWatermarkMs"),
                batch_timestamp_ms: num("batchTimestampMs"),
                conf,
            },
            offsets,
        })
    }

    /// Write `commits/<batch>`: the batch is done and will never be redelivered.
    pub fn write_commit(&self, batch: i64, next_watermark_ms: i64) -> Result<()> {
        let line = serde_json::json!({ "nextBatchWatermarkMs": next_watermark_ms }).to_string();
        log::write_new_entries(
            &self.commits_dir().join(batch.to_string()),
            &[line],
            self.paths.fsync(),
        )
    }

    /// Read `commits/<batch>`: the watermark for the next batch.
    pub fn read_commit(&self, batch: i64) -> Result<i64> {
        let path = self.commits_dir().join(batch.to_string());
        let lines = log::read_entries(&path)?;
        let first = lines
            .first()
            .ok_or_else(|| log::corrupt(&path, "it has no commit line"))?;
        Ok(log::parse_json(&path, first)?
            .get("nextBatchWatermarkMs")
            .and_then(|v| v.as_i64())
            .unwrap_or(0))
    }

    /// Batch ids of the newest and the one-before-newest entries of
    /// `offsets/`, and of the newest of `commits/`.
    pub fn latest(&self) -> Result<(Option<i64>, Option<i64>, Option<i64>)> {
        let offsets = log::batch_files(&self.offsets_dir())?;
        let mut newest = offsets.iter().rev().map(|(n, _)| *n);
        let (last, before) = (newest.next(), newest.next());
        let commit = log::batch_files(&self.commits_dir())?
            .last()
            .map(|(n, _)| *n);
        Ok((last, before, commit))
    }

    /// Keep the newest `retain` batches of `offsets/` and `commits/`.
    pub fn purge(&self, latest_batch: i64, retain: i64) -> Result<()> {
        let keep_from = latest_batch - retain.max(1) + 1;
        let removed = log::purge_before(&self.offsets_dir(), keep_from)?
            + log::purge_before(&self.commits_dir(), keep_from)?;
        if removed > 0 {
            ::log::info!(
                target: "sparklet_engine::checkpoint",
                "checkpoint {}: {removed} offsets and commits entries before batch {keep_from} removed",
                self.root().display()
            );
        }
        Ok(())
    }
}
