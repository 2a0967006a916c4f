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

pub fn write_ipc(path: &Path, schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<()> {
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns)?;
    let mut buf = Vec::with_capacity(batch.get_array_memory_size() + 4096);
    {
        let mut w = FileWriter::try_new(&mut buf, &schema)?;
        w.write(&batch)?;
        w.finish()?;
    }
    log::write_atomic(path, &buf)
}

/// A state file's entries: key, deleted, value.
pub type FileEntries<V> = Vec<(Vec<u8>, bool, V)>;

/// Read an IPC state file: (key, deleted, values) per row.
pub fn read_file(
    spec: &StoreSpec,
    path: &Path,
    with_deleted: bool,
) -> Result<FileEntries<StateRow>> {
    let mut out = Vec::new();
    for batch in read_batches(spec, path, with_deleted)? {
        let (keys, deleted, offset) = key_columns(&batch, with_deleted);
        for r in 0..batch.num_rows() {
            let values = (offset..batch.num_columns())
                .map(|c| ScalarValue::try_from_array(batch.column(c), r))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            out.push((keys.value(r).to_vec(), deleted(r), values));
        }
    }
    Ok(out)
}

/// Read an IPC state file with each value encoded as the stores hold it
/// (whole columns at once: no scalar per value).
pub fn read_file_encoded(
    spec: &StoreSpec,
    codec: &Codec,
    path: &Path,
    with_deleted: bool,
) -> Result<FileEntries<Vec<u8>>> {
    let mut out = Vec::new();
    for batch in read_batches(spec, path, with_deleted)? {
        let (keys, deleted, offset) = key_columns(&batch, with_deleted);
        let values = codec.encode_columns(&batch.columns()[offset..])?;
        for (r, v) in values.into_iter().enumerate() {
            out.push((keys.value(r).to_vec(), deleted(r), v));
        }
    }
    Ok(out)
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

/// The batches of an IPC state file, checked against the query's state schema.
fn read_batches(spec: &StoreSpec, path: &Path, with_deleted: bool) -> Result<Vec<RecordBatch>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let reader = FileReader::try_new(file, None).map_err(|e| corrupt(path, e))?;
    let expected = schema(spec, with_deleted);
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| corrupt(path, e))?;
        if batch.schema().fields().len() != expected.fields().len()
            || batch
                .schema()
                .fields()
                .iter()
                .zip(expected.fields())
                .any(|(a, b)| a.data_type() != b.data_type() || a.name() != b.name())
        {
            return Err(Error::Checkpoint {
                condition: "CHECKPOINT_INCOMPATIBLE".into(),
                message: format!(
                    "The state file {} has schema {:?} but the query's state needs {:?}: the stateful operator changed. Use a new checkpointLocation.",
                    path.display(),
                    batch.schema().fields().iter().map(|f| format!("{} {}", f.name(), f.data_type())).collect::<Vec<_>>(),
                    expected.fields().iter().map(|f| format!("{} {}", f.name(), f.data_type())).collect::<Vec<_>>()
                ),
            });
        }
        out.push(batch);
    }
    Ok(out)
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
    load_with(spec, version, |path, with_deleted| {
        read_file(spec, path, with_deleted)
    })
}

/// [`load`] with values encoded as the stores hold them.
pub fn load_encoded(
    spec: &StoreSpec,
    codec: &Codec,
    version: i64,
) -> Result<BTreeMap<Vec<u8>, Vec<u8>>> {
    load_with(spec, version, |path, with_deleted| {
        read_file_encoded(spec, codec, path, with_deleted)
    })
}

/// The state at `version`, each file's entries (key, deleted, value) read by `read`.
fn load_with<V>(
    spec: &StoreSpec,
    version: i64,
    read: impl Fn(&Path, bool) -> Result<FileEntries<V>>,
) -> Result<BTreeMap<Vec<u8>, V>> {
    let mut map = BTreeMap::new();
    if version == 0 {
        return Ok(map);
    }
    let snapshot = files(&spec.dir, ".snapshot")?
        .into_iter()
        .rfind(|(v, _)| *v <= version);
    let base = match &snapshot {
        Some((v, path)) => {
            for (k, _, row) in read(path, false)? {
                map.insert(k, row);
            }
            *v
        }
        None => 0,
    };
    let deltas: BTreeMap<i64, PathBuf> = files(&spec.dir, ".delta")?.into_iter().collect();
    for v in base + 1..=version {
        let path = deltas.get(&v).ok_or_else(|| Error::Checkpoint {
            condition: "CHECKPOINT_FILE_CORRUPT".into(),
            message: format!(
                "The state of version {version} in {} cannot be loaded: {v}.delta is missing. Nothing was deleted.",
                spec.dir.display()
            ),
        })?;
        for (k, deleted, row) in read(path, true)? {
            if deleted {
                map.remove(&k);
            } else {
                map.insert(k, row);
            }
        }
    }
    Ok(map)
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
    let mut cols: Vec<ArrayRef> = vec![Arc::new(keys)];
    cols.extend(codec.columns(spec, values)?);
    write_ipc(
        &spec.dir.join(format!("{version}.snapshot")),
        schema(spec, false),
        cols,
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
