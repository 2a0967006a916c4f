//! The default state store: a map in memory (sorted, or hashed when the
//! operator needs no key order), made durable by a delta file per committed
//! version and a snapshot every `minDeltasForSnapshot` versions (Spark's
//! HDFS-backed provider; the files are in [`super::files`]). Snapshots and
//! cleanup of old files run on a side thread.
//!
//! In a temporary checkpoint (a query started without
//! `checkpointLocation`) the store writes no files: no query can resume
//! from one (its folder has a random name and goes with the query), and a
//! running query never reads its state back, so the files would only cost
//! each batch its write (a tenth of Nexmark q5's time). Spark writes them.

use std::borrow::Cow;
use std::sync::Arc;

use super::codec::Codec;
use super::entries::{Entries, Value, ValueRef};
use super::files::{
    encoded_rows, replay, scalar_rows, snapshot_parts, write_delta, write_snapshot, Change,
    RemovedBelow, Snapshots,
};
use super::{Keys, StateRow, StateStore, StateStoreProvider, StoreMetrics, StoreSpec};
use crate::error::{Error, Result};

/// The in-memory provider.
#[derive(Debug, Default)]
pub struct MemoryProvider;

impl StateStoreProvider for MemoryProvider {
    fn spark_class(&self) -> &'static str {
        "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
    }

    fn open(&self, spec: &StoreSpec, version: i64) -> Result<Box<dyn StateStore>> {
        let codec = Codec::new(&spec.value_fields)?;
        let map = load_entries(spec, &codec, version)?;
        Ok(Box::new(MemoryStore {
            spec: spec.clone(),
            version,
            map,
            codec: Arc::new(codec),
            snapshots: Snapshots::default(),
            removed_below: RemovedBelow::default(),
            writes_files: spec.writes_files(),
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
    snapshots: Snapshots,
    /// The range of keys removed this version, recorded once in the delta.
    removed_below: RemovedBelow,
    /// [`StoreSpec::writes_files`], read once at open.
    writes_files: bool,
    cache_hits: u64,
    cache_misses: u64,
}

/// The committed `version` as the store's map (nothing in it counts as
/// changed): values encoded column by column when the codec holds bytes.
fn load_entries(spec: &StoreSpec, codec: &Codec, version: i64) -> Result<Entries> {
    let mut map = Entries::new(spec.key_order, codec.bytes_only());
    let mut apply = |change: Change<'_, Value>| -> Result<()> {
        match change {
            Change::Put(k, v) => {
                map.insert(k, v, false);
            }
            Change::Remove(k) => map.remove(k),
            Change::RemoveBelow(bound) => {
                map.remove_below(bound);
            }
        }
        Ok(())
    };
    if codec.bytes_only() {
        replay(spec, version, &encoded_rows(codec), |c| {
            apply(c.map_value(|b| Ok(Value::Bytes(b.into())))?)
        })?;
    } else {
        replay(spec, version, &scalar_rows, |c| {
            apply(c.map_value(|row| codec.encode(row))?)
        })?;
    }
    map.committed();
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
            Some(ValueRef::Bytes(b)) if self.codec.bytes_only() => Ok(Some(Cow::Borrowed(b))),
            Some(_) => Err(Error::Internal("a binary state value expected".into())),
            None => Ok(None),
        }
    }

    fn put_bytes(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.put_raw(key, value, false).map(|_| ())
    }

    fn put_entry(&mut self, entry: Vec<u8>, key_len: usize) -> Result<Option<Vec<u8>>> {
        self.held_as_bytes()?;
        Ok(self.map.insert_entry(entry, key_len))
    }

    fn put_bytes_all(&mut self, keys: &[&[u8]], values: &[&[u8]], existed: &[bool]) -> Result<()> {
        self.held_as_bytes()?;
        for ((k, v), had) in keys.iter().zip(values).zip(existed) {
            if *had {
                self.map.insert_bytes(k, v, false);
            } else {
                self.map.insert_absent(k, v);
            }
        }
        Ok(())
    }

    fn put_bytes_if_absent(&mut self, key: &[u8], value: &[u8]) -> Result<bool> {
        self.put_raw(key, value, true)
    }

    fn remove(&mut self, key: &[u8]) {
        self.map.remove(key);
    }

    fn remove_below(&mut self, bound: &[u8]) -> Result<usize> {
        self.removed_below.record(bound);
        Ok(self.map.remove_below(bound))
    }

    fn keys_below(&self, bound: &[u8]) -> Result<Vec<Vec<u8>>> {
        Ok(self.map.keys_below(bound))
    }

    fn each_below(&self, bound: &[u8], found: &mut super::EachEntry<'_>) -> Result<()> {
        self.held_as_bytes()?;
        for (k, v) in self.map.entries_below(bound) {
            if let ValueRef::Bytes(v) = v {
                found(k, v)?;
            }
        }
        Ok(())
    }

    fn keys(&self) -> Keys<'_> {
        Box::new(self.map.iter().map(|(k, _)| Ok(Cow::Borrowed(k))))
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
        if self.writes_files {
            let (present, removed) = self.map.changes();
            write_delta(
                &self.spec,
                &self.codec,
                version,
                present,
                removed,
                self.removed_below.bound(),
            )?;
        }
        self.map.committed();
        self.removed_below.clear();
        if self.writes_files && version % self.spec.min_deltas_for_snapshot.max(1) == 0 {
            self.snapshot_in_background(version);
        }
        self.version = version;
        self.cache_hits += 1; // the next batch finds this version in memory
        Ok(version)
    }

    fn metrics(&self) -> StoreMetrics {
        StoreMetrics {
            num_keys: self.map.len() as u64,
            memory_bytes: self.map.memory_bytes(),
            last_snapshot_version: self.snapshots.last_version(),
            cache_hits: self.cache_hits,
            cache_misses: self.cache_misses,
            custom: vec![],
        }
    }
}

impl MemoryStore {
    /// Put a binary value, for stores whose state is one binary column.
    fn put_raw(&mut self, key: &[u8], value: &[u8], only_if_absent: bool) -> Result<bool> {
        self.held_as_bytes()?;
        Ok(self.map.insert_bytes(key, value, only_if_absent))
    }

    fn held_as_bytes(&self) -> Result<()> {
        if self.codec.bytes_only() {
            Ok(())
        } else {
            Err(Error::Internal("a binary state value expected".into()))
        }
    }

    /// Write `version` as a snapshot, then drop versions no longer needed, on
    /// a side thread: a snapshot is an optimisation of recovery (the delta
    /// files already hold the version), so it stays off the batch's path. A
    /// crash before it lands only means a restart replays more deltas. The
    /// entries are copied into columns first, a part at a time.
    fn snapshot_in_background(&mut self, version: i64) {
        if self.snapshots.in_flight() {
            return;
        }
        let parts = snapshot_parts(self.map.iter());
        let (spec, codec) = (self.spec.clone(), Arc::clone(&self.codec));
        self.snapshots.start(&self.spec, version, move || {
            write_snapshot(&spec, &codec, version, parts)
        });
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
