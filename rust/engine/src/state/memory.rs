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
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, BinaryArray, BinaryBuilder, BooleanArray, RecordBatch};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;

use super::entries::Entries;
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
            bytes: map_bytes(&map),
            map,
            codec: Arc::new(codec),
            touched: Vec::new(),
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
    map: Entries<Value>,
    /// Approximate bytes held, kept as entries change (no scan per batch).
    bytes: u64,
    codec: Arc<Codec>,
    /// Keys put or removed since the last commit (in any order, repeats
    /// allowed): the delta holds each one's final value or its removal.
    touched: Vec<Box<[u8]>>,
    /// The snapshot (and cleanup) being written off the batch's path.
    snapshotting: Option<std::thread::JoinHandle<()>>,
    last_snapshot: Arc<AtomicI64>,
    cache_hits: u64,
    cache_misses: u64,
}

/// A value as held in memory: compact row-format bytes when the state types
/// allow it, else the scalars themselves.
#[derive(Clone)]
enum Value {
    Encoded(Box<[u8]>),
    Raw(Box<[u8]>),
    Scalars(StateRow),
}

/// Encodes state rows as Arrow row-format bytes (a few bytes per value
/// instead of a `ScalarValue` each). A single binary value (an operator's
/// own encoding) is kept as its bytes.
struct Codec(Option<RowConverter>, bool);

impl Codec {
    fn new(fields: &[FieldRef]) -> Result<Self> {
        let raw = fields.len() == 1 && *fields[0].data_type() == DataType::Binary;
        let sort: Vec<SortField> = fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        if raw || fields.is_empty() || !RowConverter::supports_fields(&sort) {
            return Ok(Codec(None, raw));
        }
        Ok(Codec(Some(RowConverter::new(sort)?), false))
    }

    fn encode(&self, mut row: StateRow) -> Result<Value> {
        if self.1 {
            if let Some(ScalarValue::Binary(Some(bytes))) = row.pop() {
                return Ok(Value::Raw(bytes.into()));
            }
            return Err(Error::Internal("a binary state value expected".into()));
        }
        let Some(conv) = &self.0 else {
            return Ok(Value::Scalars(row));
        };
        let arrays = row
            .iter()
            .map(|v| v.to_array())
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let rows = conv.convert_columns(&arrays)?;
        Ok(Value::Encoded(rows.row(0).as_ref().into()))
    }

    fn decode(&self, value: &Value) -> Result<StateRow> {
        match (value, &self.0) {
            (Value::Raw(bytes), _) => Ok(vec![ScalarValue::Binary(Some(bytes.to_vec()))]),
            (Value::Scalars(row), _) => Ok(row.clone()),
            (Value::Encoded(bytes), Some(conv)) => {
                let arrays = conv.convert_rows([conv.parser().parse(bytes)])?;
                Ok(arrays
                    .iter()
                    .map(|a| ScalarValue::try_from_array(a, 0))
                    .collect::<std::result::Result<Vec<_>, _>>()?)
            }
            (Value::Encoded(_), None) => {
                Err(Error::Internal("encoded state without a codec".into()))
            }
        }
    }

    /// Values as columns of the state schema, decoded in one pass.
    fn columns(&self, spec: &StoreSpec, values: &[&Value]) -> Result<Vec<ArrayRef>> {
        if self.1 {
            let bytes = binary(values.iter().map(|v| match v {
                Value::Raw(b) => Some(b.as_ref()),
                _ => None,
            }));
            return Ok(vec![Arc::new(bytes)]);
        }
        if let Some(conv) = &self.0 {
            if values.iter().all(|v| matches!(v, Value::Encoded(_))) {
                let parser = conv.parser();
                let rows = values.iter().map(|v| match v {
                    Value::Encoded(b) => parser.parse(b),
                    _ => parser.parse(&[]),
                });
                return Ok(conv.convert_rows(rows)?);
            }
        }
        let rows = values
            .iter()
            .map(|v| self.decode(v))
            .collect::<Result<Vec<_>>>()?;
        value_columns(spec, &rows.iter().collect::<Vec<_>>())
    }

    fn size(value: &Value) -> usize {
        match value {
            Value::Encoded(b) | Value::Raw(b) => b.len() + 16,
            Value::Scalars(r) => r.iter().map(ScalarValue::size).sum::<usize>() + 24,
        }
    }
}

/// An entry's payloads plus the key's Vec header and the map's per-entry share.
fn entry_bytes(key_len: usize, value: &Value) -> u64 {
    (key_len + 24 + Codec::size(value) + 16) as u64
}

fn map_bytes(map: &Entries<Value>) -> u64 {
    map.iter().map(|(k, v)| entry_bytes(k.len(), v)).sum()
}

/// Loaded rows as the store's map.
fn encode_all(
    spec: &StoreSpec,
    codec: &Codec,
    rows: BTreeMap<Vec<u8>, StateRow>,
) -> Result<Entries<Value>> {
    let mut map = Entries::new(spec.key_order);
    for (k, v) in rows {
        map.insert(k.into_boxed_slice(), codec.encode(v)?);
    }
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
        Ok(self.map.contains(key))
    }

    fn put(&mut self, key: Vec<u8>, value: StateRow) -> Result<()> {
        let value = self.codec.encode(value)?;
        self.insert(key.into_boxed_slice(), value);
        Ok(())
    }

    fn get_bytes(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>> {
        match self.map.get(key) {
            Some(Value::Raw(b)) => Ok(Some(Cow::Borrowed(b))),
            Some(_) => Err(Error::Internal("a binary state value expected".into())),
            None => Ok(None),
        }
    }

    fn put_bytes(&mut self, key: Vec<u8>, value: Vec<u8>) -> Result<()> {
        if !self.codec.1 {
            return Err(Error::Internal("a binary state value expected".into()));
        }
        self.insert(key.into_boxed_slice(), Value::Raw(value.into_boxed_slice()));
        Ok(())
    }

    fn remove(&mut self, key: &[u8]) {
        if let Some(old) = self.map.remove(key) {
            self.bytes -= entry_bytes(key.len(), &old);
            self.touched.push(key.into());
        }
    }

    fn remove_below(&mut self, bound: &[u8]) -> usize {
        let gone = self.map.remove_below(bound);
        let n = gone.len();
        for (k, v) in gone {
            self.bytes -= entry_bytes(k.len(), &v);
            self.touched.push(k);
        }
        n
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
        let touched = std::mem::take(&mut self.touched);
        // each key once (hashing is cheaper than sorting long keys)
        let mut seen: HashSet<&[u8], foldhash::fast::FixedState> =
            HashSet::with_capacity_and_hasher(touched.len(), Default::default());
        // present keys first (their final values), then the removed ones
        let (mut present, mut values, mut removed) = (Vec::new(), Vec::new(), Vec::new());
        for k in touched.iter().filter(|k| seen.insert(k)) {
            match self.map.get(k) {
                Some(v) => {
                    present.push(k);
                    values.push(v);
                }
                None => removed.push(k),
            }
        }
        let mut value_cols = self.codec.columns(&self.spec, &values)?;
        if !removed.is_empty() {
            for (c, f) in value_cols.iter_mut().zip(&self.spec.value_fields) {
                let nulls = arrow::array::new_null_array(f.data_type(), removed.len());
                *c = arrow::compute::concat(&[c.as_ref(), nulls.as_ref()])?;
            }
        }
        let keys = binary(present.iter().chain(&removed).map(|k| Some(k.as_ref())));
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
                self.bytes = map_bytes(&self.map);
            }
        }
        self.touched.clear();
    }

    fn metrics(&self) -> StoreMetrics {
        let (last_snapshot_version, cache_hits, cache_misses) = (
            self.last_snapshot.load(Ordering::Relaxed),
            self.cache_hits,
            self.cache_misses,
        );
        StoreMetrics {
            num_keys: self.map.len() as u64,
            memory_bytes: self.bytes,
            last_snapshot_version,
            cache_hits,
            cache_misses,
        }
    }
}

impl MemoryStore {
    fn insert(&mut self, key: Box<[u8]>, value: Value) {
        self.touched.push(key.clone());
        let key_len = key.len();
        self.bytes += entry_bytes(key_len, &value);
        if let Some(old) = self.map.insert(key, value) {
            self.bytes -= entry_bytes(key_len, &old);
        }
    }

    /// Write `version` as a snapshot, then drop versions no longer needed, on
    /// a side thread: a snapshot is an optimisation of recovery (the delta
    /// files already hold the version), so it stays off the batch's path. A
    /// crash before it lands only means a restart replays more deltas.
    fn snapshot_in_background(&mut self, version: i64) {
        self.wait_for_snapshot(); // at most one in flight
        let entries: Vec<(Box<[u8]>, Value)> = self
            .map
            .iter()
            .map(|(k, v)| (k.into(), v.clone()))
            .collect();
        let (spec, codec, last) = (
            self.spec.clone(),
            Arc::clone(&self.codec),
            Arc::clone(&self.last_snapshot),
        );
        let keep_from = version - spec.min_versions_to_retain.max(1);
        self.snapshotting = Some(std::thread::spawn(move || {
            let written = (|| {
                let keys = binary(entries.iter().map(|(k, _)| Some(k.as_ref())));
                let values: Vec<&Value> = entries.iter().map(|(_, v)| v).collect();
                let mut cols: Vec<ArrayRef> = vec![Arc::new(keys)];
                cols.extend(codec.columns(&spec, &values)?);
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
