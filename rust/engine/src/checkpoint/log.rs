//! Versioned, atomically written log files (Spark's `HDFSMetadataLog`).
//!
//! Each file starts with a version line (`v1`) followed by JSON lines. A file
//! is written to a temporary name in the same folder, fsynced, renamed into
//! place and the folder fsynced, so a crash leaves either the old state or
//! the complete new file, never a torn file that reads as valid.
//!
//! Temporary checkpoints (a query started without `checkpointLocation`)
//! skip the fsyncs: nothing can resume from one once its process is gone
//! (its folder has a random name and goes with the query), and while the
//! process lives the page cache serves it the files whatever happens to
//! the process; an fsync only guards against an OS crash, after which no
//! one reads the folder. Spark never fsyncs its checkpoint files.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The log format version this build writes and the newest it reads.
pub const VERSION: u32 = 1;

/// Error naming a checkpoint file and what is wrong with it.
pub fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    corrupt_file(format!(
        "The checkpoint file {} is corrupt: {what}",
        path.display()
    ))
}

fn corrupt_file(what: String) -> Error {
    Error::Checkpoint {
        condition: "CHECKPOINT_FILE_CORRUPT".into(),
        message: format!("{what}. Nothing was deleted; restore the file or start the query with a new checkpointLocation."),
    }
}

/// A checkpoint on a file system without locks is not guarded against a
/// second run.
pub fn warn_unlocked(path: &Path) {
    log::warn!(
        "{} cannot be locked (the file system has no locks): nothing stops a second run on this checkpoint",
        path.display()
    );
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

/// Write `body` to `path` atomically, fsynced when `fsync` (only under
/// `spark.sparklet.checkpoint.fsync`, and never in a temporary checkpoint).
pub fn write_atomic(path: &Path, body: &[u8], fsync: bool) -> Result<()> {
    write_atomic_with(path, fsync, |f| f.write_all(body).map_err(|e| io(path, e)))
}

/// Write `path` atomically (fsynced when `fsync`) with `write`, which streams the
/// body into the file (large files need not be built in memory first).
pub fn write_atomic_with(
    path: &Path,
    fsync: bool,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<()>,
) -> Result<()> {
    write_then_place(path, fsync, write, |tmp, path| {
        std::fs::rename(tmp, path).map_err(|e| io(path, e))
    })
}

/// Write `body` to `path` atomically (fsynced when `fsync`), where no file may be yet:
/// a log entry once written is final (Spark's `HDFSMetadataLog` refuses to
/// overwrite one too), and finding one means a second run writes the same
/// checkpoint.
pub fn write_atomic_new(path: &Path, body: &[u8], fsync: bool) -> Result<()> {
    write_then_place(
        path,
        fsync,
        |f| f.write_all(body).map_err(|e| io(path, e)),
        |tmp, path| {
            // a hard link fails where a file exists, which a rename would replace
            let placed = match std::fs::hard_link(tmp, path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    Err(concurrent_update(path))
                }
                // a file system without hard links: check, then rename
                Err(_) if path.exists() => Err(concurrent_update(path)),
                Err(_) => return std::fs::rename(tmp, path).map_err(|e| io(path, e)),
                Ok(()) => Ok(()),
            };
            let _ = std::fs::remove_file(tmp);
            placed
        },
    )
}

/// The error of a log entry found written by someone else.
fn concurrent_update(path: &Path) -> Error {
    Error::Checkpoint {
        condition: "CONCURRENT_STREAM_LOG_UPDATE".into(),
        message: format!(
            "Concurrent update to the log: {} was already written. Multiple streaming queries are concurrently using this checkpoint; \
             make sure only one streaming query runs on a checkpoint location at a time.",
            path.display()
        ),
    }
}

/// Write a temporary file beside `path` with `write`, fsync it, and move
/// it into place with `place` (then fsync the folder).
fn write_then_place(
    path: &Path,
    fsync: bool,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<()>,
    place: impl FnOnce(&Path, &Path) -> Result<()>,
) -> Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4()));
    // errors name the file being written, not its temporary name
    let written = (|| {
        let f = std::fs::File::create(&tmp).map_err(|e| io(path, e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        // an encoder's error (Arrow IPC, say) names no file: this one
        write(&mut w).map_err(|e| e.naming(path))?;
        let f = w.into_inner().map_err(|e| io(path, e.into_error()))?;
        if fsync {
            f.sync_all().map_err(|e| io(path, e))?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    place(&tmp, path)?;
    sync_dir(dir, fsync)
}

/// Make a rename or create in `dir` durable (when `fsync`).
pub fn sync_dir(dir: &Path, fsync: bool) -> Result<()> {
    if !fsync {
        return Ok(());
    }
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, e))
}

/// Write a versioned log file: `v1`, then one line per entry.
pub fn write_entries(path: &Path, entries: &[String], fsync: bool) -> Result<()> {
    write_atomic(path, versioned(entries).as_bytes(), fsync)
}

/// Write a versioned log file that must not exist yet ([`write_atomic_new`]).
pub fn write_new_entries(path: &Path, entries: &[String], fsync: bool) -> Result<()> {
    write_atomic_new(path, versioned(entries).as_bytes(), fsync)
}

fn versioned(entries: &[String]) -> String {
    let mut body = format!("v{VERSION}");
    for e in entries {
        body.push('\n');
        body.push_str(e);
    }
    body
}

/// Read a versioned log file's entry lines, checking its version.
pub fn read_entries(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).map_err(|e| io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|_| corrupt(path, "it is not UTF-8 text"))?;
    let mut lines = text.lines();
    let first = lines.next().ok_or_else(|| corrupt(path, "it is empty"))?;
    let version: u32 = first
        .strip_prefix('v')
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| {
            corrupt(
                path,
                format!("the first line {first:?} is not a version like \"v1\""),
            )
        })?;
    if version > VERSION {
        return Err(Error::Checkpoint {
            condition: "INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION".into(),
            message: format!(
                "The checkpoint file {} has log version v{version}, but this sparklet reads at most v{VERSION}. \
                 It was written by a newer version; upgrade sparklet to continue this query.",
                path.display()
            ),
        });
    }
    Ok(lines.map(str::to_string).collect())
}

/// Parse one JSON line of `path`.
pub fn parse_json(path: &Path, line: &str) -> Result<serde_json::Value> {
    serde_json::from_str(line).map_err(|e| corrupt(path, format!("invalid JSON {line:?}: {e}")))
}

/// Batch ids of the numbered files in `dir` (`0`, `1`, ...; `N.compact` when
/// `compact` is set), ascending. Temporary files are ignored.
pub fn batch_files(dir: &Path) -> Result<Vec<(i64, PathBuf)>> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io(dir, e)),
    };
    for item in rd {
        let item = item.map_err(|e| io(dir, e))?;
        let name = item.file_name().to_string_lossy().to_string();
        let id = name.strip_suffix(".compact").unwrap_or(&name);
        if let Ok(n) = id.parse::<i64>() {
            out.push((n, item.path()));
        }
    }
    out.sort_by_key(|(n, p)| (*n, p.extension().is_some()));
    Ok(out)
}

/// Delete numbered files in `dir` with id below `keep_from` (retention);
/// returns how many went. A file already gone is no error: retention runs
/// beside the batches, and at high batch rates one purge can overlap the next.
pub fn purge_before(dir: &Path, keep_from: i64) -> Result<usize> {
    let mut removed = 0;
    for (n, p) in batch_files(dir)? {
        if n < keep_from {
            match std::fs::remove_file(&p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&p, e)),
                Err(_) => {}
                Ok(()) => removed += 1,
            }
        }
    }
    Ok(removed)
}

/// The files of a compacting log to read: the newest `<N>.compact` (which
/// holds every entry up to N) and the plain batch files after it, which
/// must all be there: a missing one would lose its batch's entries without
/// a word (and for good at the next compaction).
pub fn live_files(dir: &Path) -> Result<Vec<(i64, PathBuf)>> {
    let files = batch_files(dir)?;
    let is_compact = |p: &Path| p.extension().is_some_and(|e| e == "compact");
    let last_compact = files
        .iter()
        .filter(|(_, p)| is_compact(p))
        .map(|(n, _)| *n)
        .next_back();
    let live: Vec<(i64, PathBuf)> = files
        .into_iter()
        .filter(|(n, p)| match last_compact {
            Some(c) => (is_compact(p) && *n == c) || (!is_compact(p) && *n > c),
            None => !is_compact(p),
        })
        .collect();
    let mut expected = last_compact.map_or(0, |c| c + 1);
    for (n, p) in &live {
        if is_compact(p) {
            continue;
        }
        if *n != expected {
            let lost = match (last_compact, expected) {
                // nothing before the first file: the compact file that held it went
                (None, 0) => format!("{}.compact", n - 1),
                _ => expected.to_string(),
            };
            return Err(missing(&dir.join(lost)));
        }
        expected += 1;
    }
    Ok(live)
}

/// Error naming a checkpoint file that should be there and is not.
pub fn missing(path: &Path) -> Error {
    corrupt_file(format!("The checkpoint file {} is missing", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_without_durability_is_written_all_the_same() -> Result<()> {
        let root = std::env::temp_dir().join(format!("sparklet-volatile-{}", uuid::Uuid::new_v4()));
        // atomically, only the fsyncs skipped
        write_entries(&root.join("commits").join("0"), &["{}".into()], false)?;
        assert_eq!(read_entries(&root.join("commits").join("0"))?, vec!["{}"]);
        let _ = std::fs::remove_dir_all(&root);
        Ok(())
    }

    #[test]
    fn a_compacting_log_with_a_file_missing_is_refused_naming_it(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let dir = std::env::temp_dir().join(format!("sparklet-live-{}", uuid::Uuid::new_v4()));
        for name in ["9.compact", "10", "11", "12"] {
            write_entries(&dir.join(name), &[], true)?;
        }
        assert_eq!(live_files(&dir)?.len(), 4);
        std::fs::remove_file(dir.join("11"))?;
        let err = live_files(&dir).unwrap_err().to_string();
        assert!(err.contains(&dir.join("11").display().to_string()), "{err}");
        // the compact file gone: the batches it held are lost, and it is named
        write_entries(&dir.join("11"), &[], true)?;
        std::fs::remove_file(dir.join("9.compact"))?;
        let err = live_files(&dir).unwrap_err().to_string();
        assert!(
            err.contains(&dir.join("9.compact").display().to_string()),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }

    #[test]
    fn an_encoder_error_names_the_file_it_was_writing() {
        let dir = std::env::temp_dir().join(format!("sparklet-naming-{}", uuid::Uuid::new_v4()));
        let path = dir.join("1.delta");
        let err = write_atomic_with(&path, true, |_| {
            Err(Error::Internal(
                "No space left on device (os error 28)".into(),
            ))
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains(&dir.display().to_string()) && err.contains("1.delta"),
            "{err}"
        );
        assert!(err.contains("No space left"), "{err}");
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn purging_files_already_gone_is_no_error(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let dir = std::env::temp_dir().join(format!("sparklet-purge-{}", uuid::Uuid::new_v4()));
        for n in 0..5 {
            write_entries(&dir.join(n.to_string()), &[], true)?;
        }
        purge_before(&dir, 3)?;
        purge_before(&dir, 3)?;
        std::fs::remove_file(dir.join("3"))?;
        purge_before(&dir, 5)?;
        assert!(batch_files(&dir)?.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }

    #[test]
    fn a_log_entry_once_written_is_never_replaced(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = std::env::temp_dir().join(format!("sparklet-log-new-{}", uuid::Uuid::new_v4()));
        let path = root.join("offsets").join("3");
        write_new_entries(&path, &["{\"a\":1}".into()], true)?;
        let err = write_new_entries(&path, &["{\"a\":2}".into()], true).unwrap_err();
        assert_eq!(err.condition(), Some("CONCURRENT_STREAM_LOG_UPDATE"));
        assert!(err.to_string().contains(&path.display().to_string()));
        assert_eq!(read_entries(&path)?, vec!["{\"a\":1}"]);
        // no temporary file is left beside it
        assert_eq!(std::fs::read_dir(root.join("offsets"))?.count(), 1);
        let _ = std::fs::remove_dir_all(&root);
        Ok(())
    }
}
