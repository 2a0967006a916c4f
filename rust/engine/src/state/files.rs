//! The checkpoint files of a state store partition, Arrow IPC files that
//! both providers write and read:
//!
//! ```text
//! state/<op>/<partition>/<version>.delta      key, deleted, value columns
//! state/<op>/<partition>/<version>.snapshot   key, value columns
//! state/<op>/<partition>/<version>.rocksdb/   a RocksDB store's snapshot
//! ```
//!
//! (the RocksDB folders are in [`super::rocks_snapshot`]; both providers
//! read them). Version N is the newest snapshot at or below N plus the
//! deltas after it.
//! A delta whose version removed every key below a bound (watermark
//! eviction of time-prefixed keys) records the bound once, in its footer's
//! `removed_below` (hex), instead of each key it removed: replaying it
//! removes the range first, then applies the rows.

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
use super::entries::ValueRef;
use super::rocks_snapshot;
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

/// Write an IPC file of record batches made one at a time (a file of any
/// size is written with one batch in memory), fsynced when `fsync`.
pub fn write_ipc_batches(
    path: &Path,
    fsync: bool,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = Result<Vec<ArrayRef>>>,
) -> Result<()> {
    write_ipc_with(path, fsync, schema, batches, None)
}

/// [`write_ipc_batches`] with a footer entry.
fn write_ipc_with(
    path: &Path,
    fsync: bool,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = Result<Vec<ArrayRef>>>,
    footer: Option<(&str, String)>,
) -> Result<()> {
    log::write_atomic_with(path, fsync, |out| {
        let mut w = FileWriter::try_new(out, &schema)?;
        if let Some((key, value)) = footer {
            w.write_metadata(key, value);
        }
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

/// The footer entry of a delta that removed every key below a bound.
const REMOVED_BELOW: &str = "removed_below";

/// One change a delta file records.
pub enum Change<'a, V> {
    /// The key has this value.
    Put(&'a [u8], V),
    /// The key is gone.
    Remove(&'a [u8]),
    /// Every key ordered before this bound is gone.
    RemoveBelow(&'a [u8]),
}

impl<'a, V> Change<'a, V> {
    /// The change with its value (if any) converted by `f`.
    pub fn map_value<W>(self, f: impl FnOnce(V) -> Result<W>) -> Result<Change<'a, W>> {
        Ok(match self {
            Change::Put(k, v) => Change::Put(k, f(v)?),
            Change::Remove(k) => Change::Remove(k),
            Change::RemoveBelow(b) => Change::RemoveBelow(b),
        })
    }
}

/// Call `f` with each entry of a snapshot (a file, or a RocksDB store's
/// folder), a record batch at a time.
pub fn for_each_entry<V>(
    spec: &StoreSpec,
    path: &Path,
    decode: &impl Decode<V>,
    mut f: impl FnMut(&[u8], V) -> Result<()>,
) -> Result<()> {
    let mut each = |columns: &[ArrayRef]| {
        let keys = columns[0].as_binary::<i32>();
        let values = decode(&columns[1..], arrow::array::Array::len(keys))?;
        for (r, v) in values.into_iter().enumerate() {
            f(keys.value(r), v)?;
        }
        Ok(())
    };
    if rocks_snapshot::is_folder(path) {
        return rocks_snapshot::for_each_chunk(spec, path, |columns| each(&columns));
    }
    for columns in read_columns(spec, path, false)? {
        each(&columns?)?;
    }
    Ok(())
}

/// Call `f` with each change of a delta file in the order to apply them:
/// its range removal first, then its rows a record batch at a time.
pub fn for_each_change<V>(
    spec: &StoreSpec,
    path: &Path,
    decode: &impl Decode<V>,
    mut f: impl FnMut(Change<'_, V>) -> Result<()>,
) -> Result<()> {
    let reader = ipc_reader(path)?;
    if let Some(hex) = reader.custom_metadata().get(REMOVED_BELOW) {
        let bound = from_hex(hex).ok_or_else(|| corrupt(path, "a malformed removed_below"))?;
        f(Change::RemoveBelow(&bound))?;
    }
    for columns in conformed(spec, path, reader, true)? {
        let columns = columns?;
        let keys = columns[0].as_binary::<i32>();
        let deleted = columns[1].as_boolean();
        let values = decode(&columns[2..], arrow::array::Array::len(keys))?;
        for (r, v) in values.into_iter().enumerate() {
            f(if deleted.value(r) {
                Change::Remove(keys.value(r))
            } else {
                Change::Put(keys.value(r), v)
            })?;
        }
    }
    Ok(())
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Option<Vec<u8>> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A state file's record batches as columns of the store's schema.
fn read_columns<'a>(
    spec: &'a StoreSpec,
    path: &'a Path,
    with_deleted: bool,
) -> Result<impl Iterator<Item = Result<Vec<ArrayRef>>> + 'a> {
    conformed(spec, path, ipc_reader(path)?, with_deleted)
}

/// The batches of a state file's `reader` as columns of the store's
/// schema: as written, or, for a file written with earlier value fields
/// where the store allows their evolution, with its values adapted.
fn conformed<'a>(
    spec: &'a StoreSpec,
    path: &'a Path,
    reader: FileReader<std::io::BufReader<std::fs::File>>,
    with_deleted: bool,
) -> Result<impl Iterator<Item = Result<Vec<ArrayRef>>> + 'a> {
    let written = evolved_from(spec, path, &reader.schema(), with_deleted)?;
    let lead = 1 + usize::from(with_deleted);
    Ok(batches(reader, path).map(move |batch| {
        let columns = batch?.columns().to_vec();
        match (&written, &spec.evolution) {
            (Some(fields), Some(evolution)) => {
                let mut out = columns[..lead].to_vec();
                out.extend(evolution.adapt(fields, &columns[lead..], &spec.value_fields)?);
                Ok(out)
            }
            _ => Ok(columns),
        }
    }))
}

/// The value fields a state file of schema `found` was written with, when
/// they are not the store's and the store reads them by evolution (None:
/// the store's own); any other difference is an incompatible checkpoint.
fn evolved_from(
    spec: &StoreSpec,
    path: &Path,
    found: &Schema,
    with_deleted: bool,
) -> Result<Option<Vec<FieldRef>>> {
    let expected = schema(spec, with_deleted);
    let mismatch = match check_schema(path, found, &expected) {
        Ok(()) => return Ok(None),
        Err(e) => e,
    };
    let lead = 1 + usize::from(with_deleted);
    let leads_match = found.fields().len() >= lead
        && found.fields()[..lead]
            .iter()
            .zip(&expected.fields()[..lead])
            .all(|(a, b)| a.data_type() == b.data_type() && a.name() == b.name());
    if spec.evolution.is_none() || !leads_match {
        return Err(mismatch);
    }
    Ok(Some(written_value_fields(&found.fields()[lead..])))
}

/// Value fields as a state file names them (`v<i>_<name>`), named again as
/// the operator named them.
fn written_value_fields(columns: &[FieldRef]) -> Vec<FieldRef> {
    columns
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = f.name().strip_prefix(&format!("v{i}_")).unwrap_or(f.name());
            Arc::new(f.as_ref().clone().with_name(name))
        })
        .collect()
}

/// An Arrow IPC file's reader; a damaged file is an error naming it.
pub fn ipc_reader(path: &Path) -> Result<FileReader<std::io::BufReader<std::fs::File>>> {
    let mut file =
        std::fs::File::open(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    check_ipc_blocks(path, &mut file)?;
    crate::runtime::catch_quietly(|| FileReader::try_new(std::io::BufReader::new(file), None))
        .map_err(|p| damaged(path, p))?
        .map_err(|e| corrupt(path, e))
}

/// Check that every block an IPC file's footer lists lies within the file.
/// arrow's reader allocates a block's stated length before reading it: a
/// damaged length of terabytes would abort the process, which no panic
/// handler can catch. A footer that cannot be read is left to the reader,
/// which refuses it with an error.
fn check_ipc_blocks(path: &Path, file: &mut std::fs::File) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |e: std::io::Error| Error::io(path.display().to_string(), e);
    let len = file.metadata().map_err(io)?.len();
    if len < 10 {
        return Ok(());
    }
    // the file ends with the footer's length (i32) and the magic `ARROW1`
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let Ok(footer_len) = u64::try_from(footer_len) else {
        return Ok(());
    };
    if &tail[4..] != b"ARROW1" || footer_len + 10 > len {
        return Ok(());
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::End(-10 - footer_len as i64))
        .map_err(io)?;
    file.read_exact(&mut footer).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let Ok(footer) = arrow::ipc::root_as_footer(&footer) else {
        return Ok(());
    };
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .chain(footer.dictionaries().into_iter().flatten());
    for b in blocks {
        let end = u64::try_from(b.offset())
            .ok()
            .zip(u64::try_from(b.metaDataLength()).ok())
            .zip(u64::try_from(b.bodyLength()).ok())
            .and_then(|((o, m), body)| o.checked_add(m)?.checked_add(body));
        if end.is_none_or(|end| end > len) {
            return Err(corrupt(
                path,
                format!(
                    "its Arrow IPC footer lists a block of {} bytes at {} past the file's end ({len} bytes)",
                    b.metaDataLength() as i64 + b.bodyLength(),
                    b.offset()
                ),
            ));
        }
    }
    Ok(())
}

/// arrow's IPC reader panicked on `path`'s bytes.
fn damaged(path: &Path, panic: String) -> Error {
    corrupt(path, format!("its Arrow IPC data is damaged ({panic})"))
}

/// A state file's batches, read one at a time (an IPC file's batches have
/// its schema, checked once by [`conformed`]); the first error ends them.
fn batches(
    mut reader: FileReader<std::io::BufReader<std::fs::File>>,
    path: &Path,
) -> impl Iterator<Item = Result<RecordBatch>> + '_ {
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let next = match crate::runtime::catch_quietly(|| reader.next()) {
            Ok(next) => next.map(|batch| batch.map_err(|e| corrupt(path, e))),
            Err(p) => Some(Err(damaged(path, p))),
        };
        failed = matches!(next, Some(Err(_)));
        next
    })
}

/// The value fields the state schema file `path` (a RocksDB snapshot
/// folder's) was written with when they are not the query's and the store
/// reads them by evolution (None: the query's own); any other difference
/// is an incompatible checkpoint.
pub fn schema_file_fields(spec: &StoreSpec, path: &Path) -> Result<Option<Vec<FieldRef>>> {
    evolved_from(spec, path, &ipc_reader(path)?.schema(), false)
}

/// Write the state schema file of `spec` at `path`.
pub fn write_schema_file(spec: &StoreSpec, path: &Path) -> Result<()> {
    write_ipc_batches(path, spec.fsync, schema(spec, false), std::iter::empty())
}

fn check_schema(path: &Path, found: &Schema, expected: &Schema) -> Result<()> {
    let fields = found.fields().clone();
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
    replay(spec, version, &scalar_rows, |change| {
        match change {
            Change::Put(k, row) => {
                map.insert(k.to_vec(), row);
            }
            Change::Remove(k) => {
                map.remove(k);
            }
            Change::RemoveBelow(bound) => map = map.split_off(bound),
        };
        Ok(())
    })?;
    Ok(map)
}

/// Replay the state at `version` into `apply`: the newest snapshot at or
/// below it (as puts), then the later deltas.
pub fn replay<V>(
    spec: &StoreSpec,
    version: i64,
    decode: &impl Decode<V>,
    mut apply: impl FnMut(Change<'_, V>) -> Result<()>,
) -> Result<()> {
    let base = match newest_snapshot(spec, version)? {
        Some((v, path)) => {
            for_each_entry(spec, &path, decode, |k, value| apply(Change::Put(k, value)))?;
            v
        }
        None => 0,
    };
    for path in deltas(spec, base, version)? {
        for_each_change(spec, &path, decode, &mut apply)?;
    }
    Ok(())
}

/// The newest snapshot at or below `version` (None at version 0).
pub fn newest_snapshot(spec: &StoreSpec, version: i64) -> Result<Option<(i64, PathBuf)>> {
    if version == 0 {
        return Ok(None);
    }
    Ok(snapshots(&spec.dir)?
        .into_iter()
        .rfind(|(v, _)| *v <= version))
}

/// A store's snapshots by version: files, and a RocksDB store's folders.
pub fn snapshots(dir: &Path) -> Result<Vec<(i64, PathBuf)>> {
    let mut all = files(dir, ".snapshot")?;
    all.extend(files(dir, rocks_snapshot::EXT)?);
    all.sort();
    Ok(all)
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
    let Ok(snaps) = snapshots(dir) else {
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
    for (v, p) in snaps {
        if v < base {
            let _ = if rocks_snapshot::is_folder(&p) {
                std::fs::remove_dir_all(p)
            } else {
                std::fs::remove_file(p)
            };
        }
    }
    for (v, p) in files(dir, ".delta").unwrap_or_default() {
        if v <= base {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Entries per record batch of a delta file: the file is written a batch
/// at a time, so a version that changed millions of keys costs the commit
/// columns for this many, not for all of them.
const DELTA_ROWS: usize = 1 << 16;
/// Bytes of keys and values a record batch of a delta or snapshot file
/// holds at most, beside [`DELTA_ROWS`] (a longer entry goes alone): its
/// arrays are copies, twice over in the IPC writer, so large values (a
/// join's segments of rows) go a few at a time.
const DELTA_BYTES: usize = 8 << 20;

fn entry_len((k, v): &(&[u8], ValueRef<'_>)) -> usize {
    k.len()
        + match v {
            ValueRef::Bytes(b) => b.len(),
            ValueRef::Scalars(_) => 0,
        }
}

/// `entries` cut into record batches' parts: at most [`DELTA_ROWS`]
/// entries and [`DELTA_BYTES`] of keys and values each (a longer entry
/// alone).
fn parts<'a>(
    entries: impl Iterator<Item = (&'a [u8], ValueRef<'a>)>,
) -> impl Iterator<Item = Vec<(&'a [u8], ValueRef<'a>)>> {
    let mut entries = entries.peekable();
    std::iter::from_fn(move || {
        // sized up front: pushed one by one, it grew by doubling
        let mut part = Vec::with_capacity(entries.size_hint().0.min(DELTA_ROWS));
        let mut bytes = 0;
        while let Some(e) = entries.next_if(|e| {
            part.is_empty() || (part.len() < DELTA_ROWS && bytes + entry_len(e) <= DELTA_BYTES)
        }) {
            bytes += entry_len(&e);
            part.push(e);
        }
        (!part.is_empty()).then_some(part)
    })
}

/// Write `version`'s delta: the `removed` keys, then the keys `present`
/// with their values (a key in both was removed, then put); when the
/// version removed every key before a bound, the bound, and only the
/// removed keys at or after it.
pub fn write_delta<'a>(
    spec: &StoreSpec,
    codec: &Codec,
    version: i64,
    present: impl Iterator<Item = (&'a [u8], ValueRef<'a>)>,
    removed: impl Iterator<Item = &'a [u8]>,
    removed_below: Option<&[u8]>,
) -> Result<()> {
    std::fs::create_dir_all(&spec.dir).map_err(|e| Error::io(spec.dir.display().to_string(), e))?;
    // removed keys cut into parts as the puts are (no value: nothing to count)
    let removed = removed
        .filter(|k| removed_below.is_none_or(|bound| *k >= bound))
        .map(|k| (k, ValueRef::Bytes(&[])));
    let flags =
        |n: usize, deleted: bool| -> ArrayRef { Arc::new(BooleanArray::from(vec![deleted; n])) };
    let puts = parts(present).map(|chunk| {
        let mut cols = vec![
            Arc::new(binary(chunk.iter().map(|(k, _)| Some(*k)))) as ArrayRef,
            flags(chunk.len(), false),
        ];
        cols.extend(codec.columns(spec, Gathered::from(&chunk))?);
        Ok(cols)
    });
    let removes = parts(removed).map(|chunk| {
        let mut cols = vec![
            Arc::new(binary(chunk.iter().map(|(k, _)| Some(*k)))) as ArrayRef,
            flags(chunk.len(), true),
        ];
        cols.extend(
            spec.value_fields
                .iter()
                .map(|f| arrow::array::new_null_array(f.data_type(), chunk.len())),
        );
        Ok(cols)
    });
    write_ipc_with(
        &spec.dir.join(format!("{version}.delta")),
        spec.fsync,
        schema(spec, true),
        // removals first: a key removed and put again in one version is put
        removes.chain(puts),
        removed_below.map(|b| (REMOVED_BELOW, to_hex(b))),
    )
}

/// The largest bound a store removed every key below since its last
/// commit (see [`write_delta`]).
#[derive(Default)]
pub struct RemovedBelow(Option<Vec<u8>>);

impl RemovedBelow {
    /// Every key before `bound` was removed.
    pub fn record(&mut self, bound: &[u8]) {
        if self.0.as_deref().is_none_or(|b| bound > b) {
            self.0 = Some(bound.to_vec());
        }
    }

    /// The bound, if any.
    pub fn bound(&self) -> Option<&[u8]> {
        self.0.as_deref()
    }

    /// The version is committed (or dropped): start again.
    pub fn clear(&mut self) {
        self.0 = None;
    }
}

/// Write `version`'s snapshot of every entry: `parts` of keys with their
/// values, a record batch each.
pub fn write_snapshot(
    spec: &StoreSpec,
    codec: &Codec,
    version: i64,
    parts: Vec<(BinaryArray, Gathered)>,
) -> Result<()> {
    write_ipc_batches(
        &spec.dir.join(format!("{version}.snapshot")),
        spec.fsync,
        schema(spec, false),
        parts
            .into_iter()
            .map(|(keys, values)| snapshot_columns(spec, codec, keys, values)),
    )
}

/// `entries` as parts of at most [`DELTA_ROWS`] keys with their values, for
/// [`write_snapshot`]: the columns are copied a part at a time, with no list
/// of every entry beside them.
pub fn snapshot_parts<'a>(
    entries: impl Iterator<Item = (&'a [u8], ValueRef<'a>)>,
) -> Vec<(BinaryArray, Gathered)> {
    parts(entries)
        .map(|part| {
            (
                binary(part.iter().map(|(k, _)| Some(*k))),
                Gathered::from(&part),
            )
        })
        .collect()
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

/// Snapshots written off the batch's path, at most one at a time: a
/// snapshot only shortens recovery (the deltas already hold the version),
/// so a crash before it lands means a restart replays more deltas.
pub struct Snapshots {
    /// Hears (or hangs up) when the snapshot in flight is done.
    writing: Option<std::sync::mpsc::Receiver<()>>,
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
        let job = move || match write() {
            Ok(()) => {
                last.store(version, Ordering::Relaxed);
                cleanup(&dir, keep_from);
            }
            Err(e) => ::log::warn!(
                "state snapshot {version} in {} not written ({e}); recovery will replay deltas",
                dir.display()
            ),
        };
        // on the runtime's long-lived blocking threads, whose allocator
        // pages are warm (a fresh thread per snapshot starts from zeroed ones)
        let (done, writing) = std::sync::mpsc::channel();
        match crate::runtime::runtime() {
            Ok(rt) => {
                rt.spawn_blocking(move || {
                    job();
                    let _ = done.send(());
                });
            }
            Err(_) => job(), // no runtime (a forked process): write it now
        }
        self.writing = Some(writing);
    }

    /// Whether a snapshot is still being written. A store skips a due
    /// snapshot then rather than wait for it: the batch never stalls on a
    /// slow one, the next due version tries again.
    pub fn in_flight(&mut self) -> bool {
        match &self.writing {
            Some(w) => match w.try_recv() {
                Err(std::sync::mpsc::TryRecvError::Empty) => true,
                _ => {
                    self.writing = None;
                    false
                }
            },
            None => false,
        }
    }

    /// Wait for the snapshot in flight.
    pub fn wait(&mut self) {
        if let Some(w) = self.writing.take() {
            let _ = w.recv();
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field};

    /// A state file whose footer says a block is far longer than the file
    /// (a fuzz finding: arrow allocated the 17 TB it said, and the process
    /// aborted) is refused, naming the file.
    #[test]
    fn a_footer_block_past_the_end_of_the_file_is_refused(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let dir = std::env::temp_dir().join(format!("sparklet-ipc-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("1.delta");
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, true)]));
        let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
        write_ipc_batches(&path, true, schema, [Ok(vec![column])])?;
        assert_eq!(ipc_reader(&path)?.count(), 1);
        // the footer's block: offset (i64), metadata length (i32), padding, body length (i64)
        let mut bytes = std::fs::read(&path)?;
        let footer_len = i32::from_le_bytes(bytes[bytes.len() - 10..][..4].try_into()?);
        let start = bytes.len() - 10 - footer_len as usize;
        let block = {
            let footer = arrow::ipc::root_as_footer(&bytes[start..bytes.len() - 10])
                .map_err(|e| format!("the footer: {e:?}"))?;
            let b = footer
                .recordBatches()
                .ok_or("no record batches in the footer")?
                .get(0);
            let mut raw = b.offset().to_le_bytes().to_vec();
            raw.extend(b.metaDataLength().to_le_bytes());
            raw.extend([0u8; 4]);
            raw.extend(b.bodyLength().to_le_bytes());
            raw
        };
        let at = start
            + bytes[start..]
                .windows(block.len())
                .position(|w| w == block.as_slice())
                .ok_or("the block is not in the footer")?;
        bytes[at + 16..at + 24].copy_from_slice(&(1i64 << 44).to_le_bytes());
        std::fs::write(&path, &bytes)?;
        let err = ipc_reader(&path)
            .err()
            .ok_or("the damaged file was read")?
            .to_string();
        assert!(
            err.contains("CHECKPOINT_FILE_CORRUPT") && err.contains("1.delta"),
            "{err}"
        );
        assert!(err.contains("past the file's end"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
