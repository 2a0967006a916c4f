//! The checkpoint files of a state store partition, Arrow IPC files that
//! both providers write and read:
//!
//! ```text
//! state/<op>/<partition>/<version>.delta      key, deleted, value columns
//! state/<op>/<partition>/<version>.snapshot   key, value columns
//! ```
//!
//! Version N is the newest snapshot at or below N plus the deltas after it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, BinaryArray, BooleanArray, RecordBatch};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use datafusion::common::ScalarValue;

use super::codec::{binary, Codec, Gathered};
use super::{StateRow, StoreSpec};
use crate::checkpoint::log;
use crate::error::{Error, Result};

pub fn schema(spec: &StoreSpec, with_deleted: bool) -> SchemaRef {
    let mut fields: Vec<FieldRef> = vec![Arc::new(Field::new("key", DataType::Binary, false))];
    if with_deleted {
        fields.push(Arc::new(Field::new("deleted", DataType::Boolean, false)));
    }
    for (i, f) in spec.value_fields.iter().enumerate() {
        // state field names may repeat across aggregates: number them
        fields.push(Arc::new(Field::new(
            format!("v{i}_{}", f.name()),
            f.data_type().clone(),
            true,
        )));
    }
    Arc::new(Schema::new(fields))
}

fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    log::corrupt(path, what)
}

/// Write an IPC file of one record batch.
pub fn write_ipc(path: &Path, schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<()> {
    write_ipc_batches(path, schema, std::iter::once(Ok(columns)))
}

/// Write an IPC file of record batches made one at a time (a file of any
/// size is written with one batch in memory).
pub fn write_ipc_batches(
    path: &Path,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = Result<Vec<ArrayRef>>>,
) -> Result<()> {
    log::write_atomic_with(path, |out| {
        let mut w = FileWriter::try_new(out, &schema)?;
        for columns in batches {
            w.write(&RecordBatch::try_new(Arc::clone(&schema), columns?)?)?;
        }
        w.finish()?;
        Ok(())
    })
}

/// Turns a file's value columns (and its row count) into one value per row.
pub trait Decode<V>: Fn(&[ArrayRef], usize) -> Result<Vec<V>> {}
impl<V, F: Fn(&[ArrayRef], usize) -> Result<Vec<V>>> Decode<V> for F {}

/// Values as state rows of scalars.
pub fn scalar_rows(cols: &[ArrayRef], rows: usize) -> Result<Vec<StateRow>> {
    (0..rows)
        .map(|r| {
            cols.iter()
                .map(|c| ScalarValue::try_from_array(c, r).map_err(Error::from))
                .collect::<Result<StateRow>>()
        })
        .collect()
}

/// Values encoded as the stores hold them (whole columns at once: no
/// scalar per value).
pub fn encoded_rows(codec: &Codec) -> impl Decode<Vec<u8>> + '_ {
    move |cols: &[ArrayRef], _: usize| codec.encode_columns(cols)
}

/// Call `f` with each row of an IPC state file (key, deleted, value), a
/// record batch at a time.
pub fn for_each_row<V>(
    spec: &StoreSpec,
    path: &Path,
    with_deleted: bool,
    decode: &impl Decode<V>,
    mut f: impl FnMut(&[u8], bool, V) -> Result<()>,
) -> Result<()> {
    for batch in batches(spec, path, with_deleted)? {
        let batch = batch?;
        let (keys, deleted, offset) = key_columns(&batch, with_deleted);
        let values = decode(&batch.columns()[offset..], batch.num_rows())?;
        for (r, v) in values.into_iter().enumerate() {
            f(keys.value(r), deleted(r), v)?;
        }
    }
    Ok(())
}

/// A state file's key column, its deleted flags and where values start.
fn key_columns(
    batch: &RecordBatch,
    with_deleted: bool,
) -> (&BinaryArray, impl Fn(usize) -> bool + '_, usize) {
    let keys = batch.column(0).as_binary::<i32>();
    let flags = with_deleted.then(|| batch.column(1).as_boolean());
    let deleted = move |r: usize| flags.is_some_and(|f| f.value(r));
    (keys, deleted, if with_deleted { 2 } else { 1 })
}

/// The batches of an IPC state file, read one at a time and checked
/// against the query's state schema.
fn batches(
    spec: &StoreSpec,
    path: &Path,
    with_deleted: bool,
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let reader =
        FileReader::try_new(std::io::BufReader::new(file), None).map_err(|e| corrupt(path, e))?;
    let expected = schema(spec, with_deleted);
    let path = path.to_path_buf();
    Ok(reader.map(move |batch| {
        let batch = batch.map_err(|e| corrupt(&path, e))?;
        check_schema(&path, &batch, &expected)?;
        Ok(batch)
    }))
}

fn check_schema(path: &Path, batch: &RecordBatch, expected: &Schema) -> Result<()> {
    let fields = batch.schema().fields().clone();
    if fields.len() == expected.fields().len()
        && fields
            .iter()
            .zip(expected.fields())
            .all(|(a, b)| a.data_type() == b.data_type() && a.name() == b.name())
    {
        return Ok(());
    }
    let names = |fs: &arrow::datatypes::Fields| {
        fs.iter()
            .map(|f| format!("{} {}", f.name(), f.data_type()))
            .collect::<Vec<_>>()
    };
    Err(Error::Checkpoint {
        condition: "CHECKPOINT_INCOMPATIBLE".into(),
        message: format!(
            "The state file {} has schema {:?} but the query's state needs {:?}: the stateful operator changed. Use a new checkpointLocation.",
            path.display(),
            names(&fields),
            names(expected.fields())
        ),
    })
}

pub fn files(dir: &Path, ext: &str) -> Result<Vec<(i64, PathBuf)>> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(dir.display().to_string(), e)),
    };
    for item in rd {
        let item = item.map_err(|e| Error::io(dir.display().to_string(), e))?;
        let name = item.file_name().to_string_lossy().to_string();
        if let Some(v) = name.strip_suffix(ext).and_then(|v| v.parse::<i64>().ok()) {
            out.push((v, item.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The state at `version`: newest snapshot at or below it plus later deltas.
pub fn load(spec: &StoreSpec, version: i64) -> Result<BTreeMap<Vec<u8>, StateRow>> {
    let mut map = BTreeMap::new();
    replay(spec, version, &scalar_rows, |k, row| {
        match row {
            Some(row) => map.insert(k.to_vec(), row),
            None => map.remove(k),
        };
        Ok(())
    })?;
    Ok(map)
}

/// Replay the state at `version` into `apply` (a value, or None for a
/// removal): the newest snapshot at or below it, then the later deltas.
pub fn replay<V>(
    spec: &StoreSpec,
    version: i64,
    decode: &impl Decode<V>,
    mut apply: impl FnMut(&[u8], Option<V>) -> Result<()>,
) -> Result<()> {
    let base = match newest_snapshot(spec, version)? {
        Some((v, path)) => {
            for_each_row(spec, &path, false, decode, |k, _, value| {
                apply(k, Some(value))
            })?;
            v
        }
        None => 0,
    };
    for path in deltas(spec, base, version)? {
        for_each_row(spec, &path, true, decode, |k, deleted, value| {
            apply(k, (!deleted).then_some(value))
        })?;
    }
    Ok(())
}

/// The newest snapshot at or below `version` (None at version 0).
pub fn newest_snapshot(spec: &StoreSpec, version: i64) -> Result<Option<(i64, PathBuf)>> {
    if version == 0 {
        return Ok(None);
    }
    Ok(files(&spec.dir, ".snapshot")?
        .into_iter()
        .rfind(|(v, _)| *v <= version))
}

/// The delta files after version `from` up to `version`; a missing one is
/// an error naming it.
pub fn deltas(spec: &StoreSpec, from: i64, version: i64) -> Result<Vec<PathBuf>> {
    let mut all: BTreeMap<i64, PathBuf> = files(&spec.dir, ".delta")?.into_iter().collect();
    (from + 1..=version)
        .map(|v| {
            all.remove(&v).ok_or_else(|| Error::Checkpoint {
                condition: "CHECKPOINT_FILE_CORRUPT".into(),
                message: format!(
                    "The state of version {version} in {} cannot be loaded: {v}.delta is missing. Nothing was deleted.",
                    spec.dir.display()
                ),
            })
        })
        .collect()
}

/// Remove snapshots and deltas older than the newest snapshot before `keep_from`.
pub fn cleanup(dir: &Path, keep_from: i64) {
    let Ok(snaps) = files(dir, ".snapshot") else {
        return;
    };
    let Some(base) = snaps
        .iter()
        .map(|(v, _)| *v)
        .filter(|v| *v <= keep_from)
        .max()
    else {
        return;
    };
    for ext in [".snapshot", ".delta"] {
        if let Ok(fs) = files(dir, ext) {
            for (v, p) in fs {
                if v < base || (ext == ".delta" && v == base) {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    }
}

/// Write `version`'s delta: the keys `present` with their `values`, then the
/// `removed` keys.
pub fn write_delta(
    spec: &StoreSpec,
    codec: &Codec,
    version: i64,
    present: &[&[u8]],
    values: Gathered,
    removed: &[&[u8]],
) -> Result<()> {
    std::fs::create_dir_all(&spec.dir).map_err(|e| Error::io(spec.dir.display().to_string(), e))?;
    let mut value_cols = codec.columns(spec, values)?;
    if !removed.is_empty() {
        for (c, f) in value_cols.iter_mut().zip(&spec.value_fields) {
            let nulls = arrow::array::new_null_array(f.data_type(), removed.len());
            *c = arrow::compute::concat(&[c.as_ref(), nulls.as_ref()])?;
        }
    }
    let keys = binary(present.iter().chain(removed).map(|k| Some(*k)));
    let deleted: BooleanArray = std::iter::repeat_n(Some(false), present.len())
        .chain(std::iter::repeat_n(Some(true), removed.len()))
        .collect();
    let mut cols: Vec<ArrayRef> = vec![Arc::new(keys), Arc::new(deleted)];
    cols.extend(value_cols);
    write_ipc(
        &spec.dir.join(format!("{version}.delta")),
        schema(spec, true),
        cols,
    )
}

/// Write `version`'s snapshot of every entry (`keys` with their `values`).
pub fn write_snapshot(
    spec: &StoreSpec,
    codec: &Codec,
    version: i64,
    keys: BinaryArray,
    values: Gathered,
) -> Result<()> {
    let columns = snapshot_columns(spec, codec, keys, values);
    write_snapshot_chunks(spec, version, std::iter::once(columns))
}

/// A snapshot's columns for `keys` with their `values`.
pub fn snapshot_columns(
    spec: &StoreSpec,
    codec: &Codec,
    keys: BinaryArray,
    values: Gathered,
) -> Result<Vec<ArrayRef>> {
    let mut cols: Vec<ArrayRef> = vec![Arc::new(keys)];
    cols.extend(codec.columns(spec, values)?);
    Ok(cols)
}

/// Write `version`'s snapshot from chunks of [`snapshot_columns`], one
/// record batch each.
pub fn write_snapshot_chunks(
    spec: &StoreSpec,
    version: i64,
    chunks: impl IntoIterator<Item = Result<Vec<ArrayRef>>>,
) -> Result<()> {
    write_ipc_batches(
        &spec.dir.join(format!("{version}.snapshot")),
        schema(spec, false),
        chunks,
    )
}

/// Snapshots written off the batch's path, at most one at a time: a
/// snapshot only shortens recovery (the deltas already hold the version),
/// so a crash before it lands means a restart replays more deltas.
pub struct Snapshots {
    writing: Option<std::thread::JoinHandle<()>>,
    /// The last version written (-1: none).
    last: Arc<AtomicI64>,
}

impl Default for Snapshots {
    fn default() -> Self {
        Snapshots {
            writing: None,
            last: Arc::new(AtomicI64::new(-1)),
        }
    }
}

impl Snapshots {
    /// Write `version`'s snapshot with `write` on a side thread, then drop
    /// the files no longer needed (after waiting for the one in flight).
    pub fn start(
        &mut self,
        spec: &StoreSpec,
        version: i64,
        write: impl FnOnce() -> Result<()> + Send + 'static,
    ) {
        self.wait();
        let (dir, last) = (spec.dir.clone(), Arc::clone(&self.last));
        let keep_from = version - spec.min_versions_to_retain.max(1);
        self.writing = Some(std::thread::spawn(move || match write() {
            Ok(()) => {
                last.store(version, Ordering::Relaxed);
                cleanup(&dir, keep_from);
            }
            Err(e) => ::log::warn!(
                "state snapshot {version} in {} not written ({e}); recovery will replay deltas",
                dir.display()
            ),
        }));
    }

    /// Wait for the snapshot in flight.
    pub fn wait(&mut self) {
        if let Some(h) = self.writing.take() {
            let _ = h.join();
        }
    }

    /// The last version written by this store (-1: none).
    pub fn last_version(&self) -> i64 {
        self.last.load(Ordering::Relaxed)
    }
}

impl Drop for Snapshots {
    fn drop(&mut self) {
        self.wait();
    }
}
