//! RocksDB snapshots in the checkpoint. Version N's snapshot of a RocksDB
//! store is the folder `N.rocksdb`: a RocksDB checkpoint of the working
//! copy, the files Spark's provider uploads. SST files never change, so
//! they are hard links where the checkpoint shares the working copy's file
//! system (copies otherwise): a snapshot costs its new files, not a pass
//! over the state, and versions share the files they have in common.
//! The small files RocksDB rewrites (MANIFEST, CURRENT, OPTIONS) are copied,
//! and the folder holds the state's schema (an empty Arrow file), checked
//! before it is read as the snapshot files' schemas are.
//!
//! A RocksDB store restores a snapshot by linking its files back into an
//! empty working copy; every other reader (the state reader, the in-memory
//! provider, rescaling) opens it read-only, a record batch of rows at a time.

use std::path::Path;

use arrow::array::{ArrayBuilder, ArrayRef, BinaryBuilder};
use rocksdb::{LogLevel, Options, ReadOptions, DB};

use super::codec::{Codec, Gathered};
use super::files::{schema_file_fields, snapshot_columns, write_schema_file};
use super::rocks::DATA;
use super::StoreSpec;
use crate::checkpoint::log::{corrupt, sync_dir};
use crate::error::{Error, Result};

/// The name ending of a snapshot folder (`<version>.rocksdb`).
pub const EXT: &str = ".rocksdb";

/// The state schema's file in a snapshot folder.
const SCHEMA_FILE: &str = "state-schema.arrow";

/// Rows per record batch when reading a snapshot folder.
const CHUNK_ROWS: usize = 65_536;

/// Whether `path` is a RocksDB snapshot folder (not a snapshot file).
pub fn is_folder(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == &EXT[1..])
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

/// Place the RocksDB checkpoint at `at` in `dir` as `version`'s snapshot
/// folder, atomically (a temporary folder renamed into place) and durably.
pub fn publish(spec: &StoreSpec, version: i64, at: &Path) -> Result<()> {
    let dir = &spec.dir;
    let target = dir.join(format!("{version}{EXT}"));
    let tmp = dir.join(format!(".{version}{EXT}.{}.tmp", uuid::Uuid::new_v4()));
    let placed = std::fs::create_dir_all(&tmp)
        .map_err(|e| io(&tmp, e))
        .and_then(|()| link_or_copy_all(at, &tmp))
        .and_then(|()| write_schema_file(spec, &tmp.join(SCHEMA_FILE)))
        .and_then(|()| sync_dir(&tmp, spec.fsync));
    if let Err(e) = placed {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    // a folder left by a run that crashed after its rename
    let _ = std::fs::remove_dir_all(&target);
    std::fs::rename(&tmp, &target).map_err(|e| io(&target, e))?;
    sync_dir(dir, spec.fsync)
}

/// Put the files of the snapshot folder `snapshot` into the empty working
/// copy folder `local`.
pub fn restore(spec: &StoreSpec, snapshot: &Path, local: &Path) -> Result<()> {
    if !restorable(spec, snapshot)? {
        return Err(Error::Internal(format!(
            "{} holds values of other fields than the query's: it is read, not restored",
            snapshot.display()
        )));
    }
    std::fs::create_dir_all(local).map_err(|e| io(local, e))?;
    link_or_copy_all(snapshot, local)?;
    sync_dir(local, spec.fsync)
}

/// Whether the snapshot folder holds values of the query's value fields
/// (one holding values of earlier fields, which the store reads by
/// evolution, is loaded through [`for_each_chunk`] instead).
pub fn restorable(spec: &StoreSpec, snapshot: &Path) -> Result<bool> {
    Ok(schema_file_fields(spec, &snapshot.join(SCHEMA_FILE))?.is_none())
}

/// Hard-link each SST file of `from` into `to` (copied where a link cannot
/// be made: another file system), and copy the other files.
fn link_or_copy_all(from: &Path, to: &Path) -> Result<()> {
    let entries = std::fs::read_dir(from).map_err(|e| io(from, e))?;
    for entry in entries {
        let src = entry.map_err(|e| io(from, e))?.path();
        let Some(name) = src.file_name() else {
            continue;
        };
        if name == SCHEMA_FILE {
            continue; // the checkpoint's, not RocksDB's
        }
        let dst = to.join(name);
        let is_sst = src.extension().is_some_and(|e| e == "sst");
        if is_sst && std::fs::hard_link(&src, &dst).is_ok() {
            continue;
        }
        std::fs::copy(&src, &dst).map_err(|e| io(&src, e))?;
        std::fs::File::open(&dst)
            .and_then(|f| f.sync_all())
            .map_err(|e| io(&dst, e))?;
    }
    Ok(())
}

/// Call `f` with the columns of a snapshot file's record batches (key,
/// then the value columns) for the data of the snapshot folder `snapshot`,
/// `CHUNK_ROWS` keys at a time in key order.
pub fn for_each_chunk(
    spec: &StoreSpec,
    snapshot: &Path,
    mut f: impl FnMut(Vec<ArrayRef>) -> Result<()>,
) -> Result<()> {
    // values of earlier fields decode as written, then adapt
    let written = schema_file_fields(spec, &snapshot.join(SCHEMA_FILE))?;
    let codec = Codec::new(written.as_deref().unwrap_or(&spec.value_fields))?;
    let mut opts = Options::default();
    opts.create_if_missing(false);
    // RocksDB's log to ours, not a LOG file written into the checkpoint
    opts.set_info_logger(rocksdb::InfoLogger::new_callback_logger(
        LogLevel::Warn,
        |_, line| ::log::debug!("RocksDB: {line}"),
    ));
    let db = DB::open_for_read_only(&opts, snapshot, false).map_err(|e| corrupt(snapshot, e))?;
    let mut ro = ReadOptions::default();
    ro.fill_cache(false);
    let mut items = db.raw_iterator_opt(ro);
    items.seek([DATA]);
    loop {
        // each entry copied once, from RocksDB's buffers into the columns
        let (mut keys, mut values) = (BinaryBuilder::new(), BinaryBuilder::new());
        while keys.len() < CHUNK_ROWS {
            let (Some(k), Some(v)) = (items.key(), items.value()) else {
                break;
            };
            keys.append_value(&k[1..]);
            values.append_value(v);
            items.next();
        }
        items.status().map_err(|e| corrupt(snapshot, e))?;
        if keys.is_empty() {
            return Ok(());
        }
        let mut columns = snapshot_columns(
            spec,
            &codec,
            keys.finish(),
            Gathered::Bytes(values.finish()),
        )?;
        if let (Some(fields), Some(evolution)) = (&written, &spec.evolution) {
            let values = evolution.adapt(fields, &columns[1..], &spec.value_fields)?;
            columns.truncate(1);
            columns.extend(values);
        }
        f(columns)?;
    }
}
