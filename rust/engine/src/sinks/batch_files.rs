//! The batch file writer (`df.write.parquet(path)` ...): Spark's save modes
//! and its commit protocol. Files are written under
//! `<path>/_temporary/<job>/` (hidden from readers, which skip `_` names)
//! and moved into place only once all are written, then `_SUCCESS` marks
//! the folder complete; a failed write removes its staging folder and
//! leaves what was there before.

use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use super::file_writer::{io, FileWriter};
use crate::error::{Error, Result};

/// What a write does when its path exists (`mode(...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// `error` / `errorifexists` / `default`: refuse.
    ErrorIfExists,
    /// Add files beside the existing ones.
    Append,
    /// Replace the folder's contents.
    Overwrite,
    /// Do nothing.
    Ignore,
}

impl SaveMode {
    /// Spark's names, case-insensitive; Spark's error otherwise.
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "error" | "errorifexists" | "default" => SaveMode::ErrorIfExists,
            "append" => SaveMode::Append,
            "overwrite" => SaveMode::Overwrite,
            "ignore" => SaveMode::Ignore,
            _ => {
                return Err(Error::illegal_argument(format!(
                    "[INVALID_SAVE_MODE] The specified save mode \"{name}\" is invalid. Valid save modes include \"append\", \"overwrite\", \"ignore\", \"error\", \"errorifexists\", and \"default\"."
                )))
            }
        })
    }
}

/// Staging folder of a write's files inside its destination.
const STAGING: &str = "_temporary";
/// Spark's marker of a completed write.
const SUCCESS: &str = "_SUCCESS";

/// Write `partitions` (each a task's rows) as files under `path` with
/// `mode`; the files written (none when `mode` is `ignore` and the path
/// exists).
pub fn write(
    writer: &FileWriter,
    path: &str,
    mode: SaveMode,
    schema: &SchemaRef,
    partitions: &[Vec<RecordBatch>],
) -> Result<Vec<PathBuf>> {
    let root = crate::sources::file::absolute(path)?;
    let exists = root.exists();
    match mode {
        SaveMode::ErrorIfExists if exists => {
            return Err(Error::analysis(
                "PATH_ALREADY_EXISTS",
                format!(
                    "Path file:{} already exists. Set mode as \"overwrite\" to overwrite the existing path.",
                    root.display()
                ),
            ))
        }
        SaveMode::Ignore if exists => return Ok(Vec::new()),
        _ => {}
    }
    let job = uuid::Uuid::new_v4();
    let staging = root.join(STAGING).join(job.to_string());
    let written = writer
        .write_parts(&staging, &job, schema, partitions, true)
        .inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&staging);
        })?;
    if mode == SaveMode::Overwrite && exists {
        clear(&root)?;
    }
    let mut placed = Vec::with_capacity(written.len());
    for relative in &written {
        let (from, to) = (staging.join(relative), root.join(relative));
        if let Some(folder) = to.parent() {
            std::fs::create_dir_all(folder).map_err(|e| io(folder, e))?;
        }
        std::fs::rename(&from, &to).map_err(|e| io(&to, e))?;
        placed.push(to);
    }
    let temp = root.join(STAGING);
    std::fs::remove_dir_all(&staging).map_err(|e| io(&staging, e))?;
    // other writes may be staging beside this one
    let _ = std::fs::remove_dir(&temp);
    let success = root.join(SUCCESS);
    std::fs::File::create(&success).map_err(|e| io(&success, e))?;
    Ok(placed)
}

/// Remove a folder's contents but its staging area (`overwrite`).
fn clear(root: &Path) -> Result<()> {
    if root.is_file() {
        return std::fs::remove_file(root).map_err(|e| io(root, e));
    }
    for entry in std::fs::read_dir(root).map_err(|e| io(root, e))? {
        let entry = entry.map_err(|e| io(root, e))?;
        let p = entry.path();
        if entry.file_name() == STAGING {
            continue;
        }
        let removed = if p.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        removed.map_err(|e| io(&p, e))?;
    }
    Ok(())
}
