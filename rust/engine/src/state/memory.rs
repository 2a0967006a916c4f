//! The default state store: a sorted map in memory, made durable by a delta
//! file per committed version and a snapshot every `minDeltasForSnapshot`
//! versions (Spark's HDFS-backed provider), both Arrow IPC files:
//!
//! ```text
//! state/<op>/<partition>/<version>.delta      key, deleted, value columns
//! state/<op>/<partition>/<version>.snapshot   key, value columns
//! ```
//!
//! Opening version N loads the newest snapshot at or below N and the deltas
//! after it. Snapshots and cleanup of old files run on a side thread.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, BinaryArray, BinaryBuilder, BooleanArray, RecordBatch};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;

use super::entries::{Entries, Value, ValueRef};
use super::{StateRow, StateStore, StateStoreProvider, StoreMetrics, StoreSpec};
use crate::checkpoint::log;
use crate::error::{Error, Result};

/// The in-memory provider.
#[derive(Debug, Default)]
pub struct MemoryProvider;

impl StateStoreProvider for MemoryProvider {
    fn open(&self, spec: &StoreSpec, version: i64) -> Result<Box<dyn StateStore>> {
        let codec = Codec::new(&spec.value_fields)?;
        let map = encode_all(spec, &codec, load(spec, version)?)?;
        Ok(Box::new(MemoryStore {
            spec: spec.clone(),
            version,
            map,
            codec: Arc::new(codec),
            snapshotting: None,
            last_snapshot: Arc::new(AtomicI64::new(-1)),
            cache_hits: 0,
            cache_misses: u64::from(version > 0),
        }))
    }
}

struct MemoryStore {
    spec: StoreSpec,
    version: i64,
    /// The entries, tracking what changed since the last commit.
    map: Entries,
    codec: Arc<Codec>,
    /// The snapshot (and cleanup) being written off the batch's path.
    snapshotting: Option<std::thread::JoinHandle<()>>,
    last_snapshot: Arc<AtomicI64>,
    cache_hits: u64,
    cache_misses: u64,
}

/// Encodes state rows as Arrow row-format bytes (a few bytes per value
/// instead of a `ScalarValue` each). A single binary value (an operator's
/// own encoding) is kept as its bytes.
struct Codec {
    conv: Option<RowConverter>,
    /// The state is one binary column, held as its bytes.
    raw: bool,
}

/// Values gathered for a file: bytes in one column, or scalar rows.
enum Gathered {
    Bytes(BinaryArray),
    Rows(Vec<StateRow>),
}

impl Gathered {
    /// The values of `entries` (key, value pairs).
    fn from(entries: &[(&[u8], ValueRef<'_>)]) -> Self {
        let values = entries.iter().map(|(_, v)| v);
        if values.clone().all(|v| matches!(v, ValueRef::Bytes(_))) {
            return Gathered::Bytes(binary(values.map(|v| match v {
                ValueRef::Bytes(b) => Some(*b),
                ValueRef::Scalars(_) => None,
            })));
        }
        Gathered::Rows(
            values
                .map(|v| match v {
                    ValueRef::Scalars(r) => (*r).clone(),
                    ValueRef::Bytes(b) => vec![ScalarValue::Binary(Some(b.to_vec()))],
                })
                .collect(),
        )
    }
}

impl Codec {
    fn new(fields: &[FieldRef]) -> Result<Self> {
        let raw = fields.len() == 1 && *fields[0].data_type() == DataType::Binary;
        let sort: Vec<SortField> = fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        if raw || fields.is_empty() || !RowConverter::supports_fields(&sort) {
            return Ok(Codec { conv: None, raw });
        }
        Ok(Codec {
            conv: Some(RowConverter::new(sort)?),
            raw: false,
        })
    }

    /// Whether every value is held as bytes.
    fn bytes_only(&self) -> bool {
        self.raw || self.conv.is_some()
    }

    fn encode(&self, mut row: StateRow) -> Result<Value> {
        if self.raw {
            if let Some(ScalarValue::Binary(Some(bytes))) = row.pop() {
                return Ok(Value::Bytes(bytes.into()));
            }
            return Err(Error::Internal("a binary state value expected".into()));
        }
        let Some(conv) = &self.conv else {
            return Ok(Value::Scalars(row));
        };
        let arrays = row
            .iter()
            .map(|v| v.to_array())
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let rows = conv.convert_columns(&arrays)?;
        Ok(Value::Bytes(rows.row(0).as_ref().into()))
    }

    fn decode(&self, value: ValueRef<'_>) -> Result<StateRow> {
        match (value, &self.conv) {
            (ValueRef::Scalars(row), _) => Ok(row.clone()),
            (ValueRef::Bytes(bytes), _) if self.raw => {
                Ok(vec![ScalarValue::Binary(Some(bytes.to_vec()))])
            }
            (ValueRef::Bytes(bytes), Some(conv)) => {
                let arrays = conv.convert_rows([conv.parser().parse(bytes)])?;
                Ok(arrays
                    .iter()
                    .map(|a| ScalarValue::try_from_array(a, 0))
                    .collect::<std::result::Result<Vec<_>, _>>()?)
            }
            (ValueRef::Bytes(_), None) => {
                Err(Error::Internal("encoded state without a codec".into()))
            }
        }
    }

    /// Values as columns of the state schema, decoded in one pass.
    fn columns(&self, spec: &StoreSpec, values: Gathered) -> Result<Vec<ArrayRef>> {
        match (values, &self.conv) {
            (Gathered::Bytes(bytes), _) if self.raw => Ok(vec![Arc::new(bytes)]),
            (Gathered::Bytes(bytes), Some(conv)) => {
                let parser = conv.parser();
                Ok(conv.convert_rows(bytes.iter().map(|b| parser.parse(b.unwrap_or_default())))?)
            }
            (Gathered::Bytes(_), None) => {
                Err(Error::Internal("encoded state without a codec".into()))
            }
            (Gathered::Rows(rows), _) => value_columns(spec, &rows.iter().collect::<Vec<_>>()),
        }
    }
}

/// Loaded rows as the store's map (nothing in it counts as changed).
fn encode_all(
    spec: &StoreSpec,
    codec: &Codec,
    rows: BTreeMap<Vec<u8>, StateRow>,
) -> Result<Entries> {
    let mut map = Entries::new(spec.key_order, codec.bytes_only());
    for (k, v) in rows {
        map.insert(&k, codec.encode(v)?, false);
    }
    map.committed();
    Ok(map)
}

fn schema(spec: &StoreSpec, with_deleted: bool) -> SchemaRef {
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

/// A binary column sized up front: growing it by doubling costs a copy and
/// fresh zeroed pages per step, which showed in every commit's profile.
fn binary<'a>(values: impl Iterator<Item = Option<&'a [u8]>> + Clone) -> BinaryArray {
    let (n, bytes) = values
        .clone()
        .fold((0, 0), |(n, b), v| (n + 1, b + v.map_or(0, <[u8]>::len)));
    let mut builder = BinaryBuilder::with_capacity(n, bytes);
    for v in values {
        builder.append_option(v);
    }
    builder.finish()
}

fn write_ipc(path: &Path, schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<()> {
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns)?;
    let mut buf = Vec::with_capacity(batch.get_array_memory_size() + 4096);
    {
        let mut w = FileWriter::try_new(&mut buf, &schema)?;
        w.write(&batch)?;
        w.finish()?;
    }
    log::write_atomic(path, &buf)
}

fn value_columns(spec: &StoreSpec, rows: &[&StateRow]) -> Result<Vec<ArrayRef>> {
    (0..spec.value_fields.len())
        .map(|c| {
            if rows.is_empty() {
                return Ok(arrow::array::new_empty_array(
                    spec.value_fields[c].data_type(),
                ));
            }
            let values = rows.iter().map(|r| r[c].clone());
            Ok(ScalarValue::iter_to_array(values)?)
        })
        .collect()
}

/// Read an IPC state file: (key, deleted, values) per row.
fn read_file(
    spec: &StoreSpec,
    path: &Path,
    with_deleted: bool,
) -> Result<Vec<(Vec<u8>, bool, StateRow)>> {
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
        let keys = batch.column(0).as_binary::<i32>();
        let offset = if with_deleted { 2 } else { 1 };
        for r in 0..batch.num_rows() {
            let deleted = with_deleted && batch.column(1).as_boolean().value(r);
            let values = (offset..batch.num_columns())
                .map(|c| ScalarValue::try_from_array(batch.column(c), r))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            out.push((keys.value(r).to_vec(), deleted, values));
        }
    }
    Ok(out)
}

fn files(dir: &Path, ext: &str) -> Result<Vec<(i64, PathBuf)>> {
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
fn load(spec: &StoreSpec, version: i64) -> Result<BTreeMap<Vec<u8>, StateRow>> {
    let mut map = BTreeMap::new();
    if version == 0 {
        return Ok(map);
    }
    let snapshot = files(&spec.dir, ".snapshot")?
        .into_iter()
        .rfind(|(v, _)| *v <= version);
    let base = match &snapshot {
        Some((v, path)) => {
            for (k, _, row) in read_file(spec, path, false)? {
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
        for (k, deleted, row) in read_file(spec, path, true)? {
            if deleted {
                map.remove(&k);
            } else {
                map.insert(k, row);
            }
        }
    }
    Ok(map)
}

impl StateStore for MemoryStore {
    fn version(&self) -> i64 {
        self.version
    }

    fn get(&self, key: &[u8]) -> Result<Option<StateRow>> {
        self.map.get(key).map(|v| self.codec.decode(v)).transpose()
    }

    fn contains(&self, key: &[u8]) -> Result<bool> {
        Ok(self.map.get(key).is_some())
    }

    fn put(&mut self, key: Vec<u8>, value: StateRow) -> Result<()> {
        let value = self.codec.encode(value)?;
        self.map.insert(&key, value, false);
        Ok(())
    }

    fn get_bytes(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>> {
        match self.map.get(key) {
            Some(ValueRef::Bytes(b)) if self.codec.raw => Ok(Some(Cow::Borrowed(b))),
            Some(_) => Err(Error::Internal("a binary state value expected".into())),
            None => Ok(None),
        }
    }

    fn put_bytes(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.put_raw(key, value, false).map(|_| ())
    }

    fn put_bytes_if_absent(&mut self, key: &[u8], value: &[u8]) -> Result<bool> {
        self.put_raw(key, value, true)
    }

    fn append_bytes(&mut self, key: &[u8], extra: &[u8]) -> Result<()> {
        self.raw_only()?;
        self.map.append_bytes(key, extra);
        Ok(())
    }

    fn remove(&mut self, key: &[u8]) {
        self.map.remove(key);
    }

    fn remove_below(&mut self, bound: &[u8]) -> usize {
        self.map.remove_below(bound)
    }

    fn keys(&self) -> Box<dyn Iterator<Item = &[u8]> + '_> {
        Box::new(self.map.iter().map(|(k, _)| k))
    }

    fn entries(&self) -> Result<Vec<(Vec<u8>, StateRow)>> {
        self.map
            .iter()
            .map(|(k, v)| Ok((k.to_vec(), self.codec.decode(v)?)))
            .collect()
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Vec<(Vec<u8>, StateRow)>> {
        self.map
            .with_prefix(prefix)
            .into_iter()
            .map(|(k, v)| Ok((k.to_vec(), self.codec.decode(v)?)))
            .collect()
    }

    fn commit(&mut self) -> Result<i64> {
        let version = self.version + 1;
        std::fs::create_dir_all(&self.spec.dir)
            .map_err(|e| Error::io(self.spec.dir.display().to_string(), e))?;
        let (present, removed) = self.map.changes();
        let mut value_cols = self.codec.columns(&self.spec, Gathered::from(&present))?;
        if !removed.is_empty() {
            for (c, f) in value_cols.iter_mut().zip(&self.spec.value_fields) {
                let nulls = arrow::array::new_null_array(f.data_type(), removed.len());
                *c = arrow::compute::concat(&[c.as_ref(), nulls.as_ref()])?;
            }
        }
        let keys = binary(
            present
                .iter()
                .map(|(k, _)| Some(*k))
                .chain(removed.iter().map(|k| Some(*k))),
        );
        let deleted: BooleanArray = std::iter::repeat_n(Some(false), present.len())
            .chain(std::iter::repeat_n(Some(true), removed.len()))
            .collect();
        let mut cols: Vec<ArrayRef> = vec![Arc::new(keys), Arc::new(deleted)];
        cols.extend(value_cols);
        write_ipc(
            &self.spec.dir.join(format!("{version}.delta")),
            schema(&self.spec, true),
            cols,
        )?;
        self.map.committed();
        if version % self.spec.min_deltas_for_snapshot.max(1) == 0 {
            self.snapshot_in_background(version);
        }
        self.version = version;
        self.cache_hits += 1; // the next batch finds this version in memory
        Ok(version)
    }

    fn abort(&mut self) {
        // reload the committed version: uncommitted changes vanish
        if let Ok(map) = load(&self.spec, self.version) {
            if let Ok(encoded) = encode_all(&self.spec, &self.codec, map) {
                self.map = encoded;
            }
        }
    }

    fn metrics(&self) -> StoreMetrics {
        StoreMetrics {
            num_keys: self.map.len() as u64,
            memory_bytes: self.map.memory_bytes(),
            last_snapshot_version: self.last_snapshot.load(Ordering::Relaxed),
            cache_hits: self.cache_hits,
            cache_misses: self.cache_misses,
        }
    }
}

impl MemoryStore {
    /// Put a binary value, for stores whose state is one binary column.
    fn put_raw(&mut self, key: &[u8], value: &[u8], only_if_absent: bool) -> Result<bool> {
        self.raw_only()?;
        Ok(self.map.insert_bytes(key, value, only_if_absent))
    }

    fn raw_only(&self) -> Result<()> {
        if self.codec.raw {
            Ok(())
        } else {
            Err(Error::Internal("a binary state value expected".into()))
        }
    }

    /// Write `version` as a snapshot, then drop versions no longer needed, on
    /// a side thread: a snapshot is an optimisation of recovery (the delta
    /// files already hold the version), so it stays off the batch's path. A
    /// crash before it lands only means a restart replays more deltas. The
    /// entries are copied into two columns first (no copy per entry).
    fn snapshot_in_background(&mut self, version: i64) {
        self.wait_for_snapshot(); // at most one in flight
        let entries: Vec<(&[u8], ValueRef)> = self.map.iter().collect();
        let keys = binary(entries.iter().map(|(k, _)| Some(*k)));
        let values = Gathered::from(&entries);
        let (spec, codec, last) = (
            self.spec.clone(),
            Arc::clone(&self.codec),
            Arc::clone(&self.last_snapshot),
        );
        let keep_from = version - spec.min_versions_to_retain.max(1);
        self.snapshotting = Some(std::thread::spawn(move || {
            let written = (|| {
                let mut cols: Vec<ArrayRef> = vec![Arc::new(keys)];
                cols.extend(codec.columns(&spec, values)?);
                write_ipc(
                    &spec.dir.join(format!("{version}.snapshot")),
                    schema(&spec, false),
                    cols,
                )
            })();
            match written {
                Ok(()) => {
                    last.store(version, Ordering::Relaxed);
                    cleanup(&spec.dir, keep_from);
                }
                Err(e) => ::log::warn!(
                    "state snapshot {version} in {} not written ({e}); recovery will replay deltas",
                    spec.dir.display()
                ),
            }
        }));
    }

    fn wait_for_snapshot(&mut self) {
        if let Some(h) = self.snapshotting.take() {
            let _ = h.join();
        }
    }
}

impl Drop for MemoryStore {
    fn drop(&mut self) {
        self.wait_for_snapshot();
    }
}

/// Remove snapshots and deltas older than the newest snapshot before `keep_from`.
fn cleanup(dir: &Path, keep_from: i64) {
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

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MemoryStore({} @ v{}, {} keys)",
            self.spec.dir.display(),
            self.version,
            self.map.len()
        )
    }
}
