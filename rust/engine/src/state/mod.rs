//! State stores: versioned key/value state of one stateful operator
//! partition, committed once per micro-batch (Spark's `StateStore`).
//!
//! Keys are byte strings in Arrow's row format (order-preserving, so a key
//! that leads with event time is scanned in event-time order); values are
//! the operator's state row (`ScalarValue`s of its state schema). Version N
//! is the state after batch N; a restart opens the last committed version.

mod arena;
mod codec;
mod key_filter;
pub(crate) use arena::time_of;
pub(crate) use codec::{decode_rows, Codec};
mod entries;
mod files;
pub mod memory;
pub mod partitioned;
pub mod processor_evolution;
mod processor_reader;
pub mod providers;
pub mod reader;
pub mod rescale;
pub mod rocks;
mod rocks_snapshot;
mod scratch;

use std::borrow::Cow;
use std::path::PathBuf;

use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::datatypes::FieldRef;
use datafusion::common::ScalarValue;

use crate::error::Result;

/// Time indexes of keys (dedup's keys by event time, a join's by expiry)
/// group them by buckets of 2^20 µs, about a second: one index entry per
/// bucket, not per key, and eviction takes whole buckets but the last.
pub(crate) const TIME_BUCKET_BITS: u32 = 20;

/// A state row.
pub type StateRow = Vec<ScalarValue>;

/// A callback given a store's entries, key and value bytes (see
/// [`StateStore::each_below`]).
pub type EachEntry<'a> = dyn FnMut(&[u8], &[u8]) -> Result<()> + 'a;

/// A store's keys: borrowed from memory, or read from disk (which can fail).
pub type Keys<'a> = Box<dyn Iterator<Item = Result<Cow<'a, [u8]>>> + 'a>;

/// Sizes reported in `stateOperators` progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreMetrics {
    /// Keys in the store.
    pub num_keys: u64,
    /// Approximate bytes held in memory.
    pub memory_bytes: u64,
    /// The last version written as a snapshot by this instance (-1: none).
    pub last_snapshot_version: i64,
    /// Versions served from memory since the store was opened (Spark's
    /// `loadedMapCacheHitCount`).
    pub cache_hits: u64,
    /// Versions loaded from the checkpoint files (`loadedMapCacheMissCount`).
    pub cache_misses: u64,
    /// The provider's own `customMetrics` (summed over partitions).
    pub custom: Vec<(&'static str, u64)>,
}

/// One operator partition's state at one version.
pub trait StateStore: Send {
    /// The version this store was opened at (committing makes `version + 1`).
    fn version(&self) -> i64;
    /// The value of `key`.
    fn get(&self, key: &[u8]) -> Result<Option<StateRow>>;
    /// Whether `key` has a value.
    fn contains(&self, key: &[u8]) -> Result<bool> {
        Ok(self.get(key)?.is_some())
    }
    /// Set `key` to `value`.
    fn put(&mut self, key: Vec<u8>, value: StateRow) -> Result<()>;
    /// The value of `key` as the store holds it, without building scalars:
    /// the bytes of a state that is one binary column (an operator's own
    /// encoding), else the Arrow row format of the value columns (an
    /// operator with its own `RowConverter` over them decodes many at once).
    fn get_bytes(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>> {
        Ok(self.get(key)?.and_then(|row| match row.into_iter().next() {
            Some(ScalarValue::Binary(Some(b))) => Some(Cow::Owned(b)),
            _ => None,
        }))
    }
    /// Set `key` to a value as the store holds it (see [`Self::get_bytes`]).
    fn put_bytes(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.put(
            key.to_vec(),
            vec![ScalarValue::Binary(Some(value.to_vec()))],
        )
    }
    /// Set the key `entry[..key_len]` to the rest of `entry` (as
    /// [`Self::put_bytes`]), keeping the buffer where the store can hold it
    /// as it is (a value of megabytes is then not copied); where it cannot,
    /// the buffer comes back.
    fn put_entry(&mut self, entry: Vec<u8>, key_len: usize) -> Result<Option<Vec<u8>>> {
        self.put_bytes(&entry[..key_len], &entry[key_len..])?;
        Ok(Some(entry))
    }
    /// Set `key` in a store whose state is one binary column unless it has
    /// a value (one lookup where `contains` then `put_bytes` take two);
    /// returns whether it was set.
    fn put_bytes_if_absent(&mut self, key: &[u8], value: &[u8]) -> Result<bool> {
        if self.contains(key)? {
            return Ok(false);
        }
        self.put_bytes(key, value)?;
        Ok(true)
    }
    /// [`put_bytes_if_absent`](Self::put_bytes_if_absent) for each of
    /// `keys` in turn (with `values`): a key set by an earlier one of them
    /// has a value. Returns which were set. A store that looks up many keys
    /// faster at once than one by one overrides it.
    fn put_bytes_if_absent_all(&mut self, keys: &[&[u8]], values: &[&[u8]]) -> Result<Vec<bool>> {
        keys.iter()
            .zip(values)
            .map(|(k, v)| self.put_bytes_if_absent(k, v))
            .collect()
    }
    /// Call `found(i, value)` for each of `keys` that has a value (values as
    /// [`Self::get_bytes`] gives them). A store that looks up many keys
    /// faster at once than one by one overrides it.
    fn get_bytes_each(
        &self,
        keys: &[&[u8]],
        found: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        for (i, k) in keys.iter().enumerate() {
            if let Some(v) = self.get_bytes(k)? {
                found(i, &v)?;
            }
        }
        Ok(())
    }
    /// Set distinct `keys` to `values` (as [`Self::put_bytes`]), where
    /// `existed[i]` says whether `keys[i]` had a value when read this batch
    /// (an update after [`Self::get_bytes_each`]: nothing is read again).
    fn put_bytes_all(&mut self, keys: &[&[u8]], values: &[&[u8]], existed: &[bool]) -> Result<()> {
        let _ = existed;
        for (k, v) in keys.iter().zip(values) {
            self.put_bytes(k, v)?;
        }
        Ok(())
    }
    /// Remove `key`.
    fn remove(&mut self, key: &[u8]);
    /// Remove every key ordered before `bound`; returns how many went.
    fn remove_below(&mut self, bound: &[u8]) -> Result<usize> {
        let mut gone = Vec::new();
        for k in self.keys() {
            let k = k?;
            if *k >= *bound {
                break;
            }
            gone.push(k.into_owned());
        }
        for k in &gone {
            self.remove(k);
        }
        Ok(gone.len())
    }
    /// Keys ordered before `bound`, in no particular order: what
    /// [`Self::remove_below`] would remove. A sorted store stops at the
    /// bound and a time-prefixed one reads its time index (given an 8-byte
    /// bound); this default scans every key.
    fn keys_below(&self, bound: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        for k in self.keys() {
            let k = k?;
            if *k < *bound {
                out.push(k.into_owned());
            }
        }
        Ok(out)
    }
    /// Call `found(key, value)` for each key ordered before `bound`, values
    /// as [`Self::get_bytes`] gives them, in no particular order: one pass
    /// where [`Self::keys_below`] then lookups take two.
    fn each_below(&self, bound: &[u8], found: &mut EachEntry<'_>) -> Result<()> {
        for k in self.keys_below(bound)? {
            if let Some(v) = self.get_bytes(&k)? {
                found(&k, &v)?;
            }
        }
        Ok(())
    }
    /// All keys (no values decoded), in order unless the store is unordered.
    fn keys(&self) -> Keys<'_>;
    /// All entries, in key order unless the store is unordered.
    fn entries(&self) -> Result<Vec<(Vec<u8>, StateRow)>>;
    /// Entries whose key starts with `prefix`, in key order (a full scan
    /// in an unordered store).
    fn scan_prefix(&self, prefix: &[u8]) -> Result<Vec<(Vec<u8>, StateRow)>>;
    /// Make the changes durable as version `version() + 1`; returns it.
    fn commit(&mut self) -> Result<i64>;
    /// Current sizes.
    fn metrics(&self) -> StoreMetrics;
}

/// Where and how a partition's store lives.
#[derive(Debug, Clone)]
pub struct StoreSpec {
    /// `state/<operator>/<partition>` in the checkpoint.
    pub dir: PathBuf,
    /// The value columns (the operator's state schema).
    pub value_fields: Vec<FieldRef>,
    /// `spark.sql.streaming.stateStore.minDeltasForSnapshot`.
    pub min_deltas_for_snapshot: i64,
    /// `spark.sql.streaming.minBatchesToRetain`.
    pub min_versions_to_retain: i64,
    /// The key order the operator relies on.
    pub key_order: KeyOrder,
    /// How values written with other value fields are read (None: a file
    /// with other value fields is an incompatible checkpoint).
    pub evolution: Option<Arc<dyn ValueEvolution>>,
    /// Whether the store writes delta and snapshot files (its state then
    /// survives the process): not in a temporary checkpoint (a query
    /// without `checkpointLocation`), which no query can resume from and a
    /// running one never reads back.
    pub durable: bool,
    /// Whether each file is fsynced as well (its state then survives the
    /// machine going down): `spark.sparklet.checkpoint.fsync`.
    pub fsync: bool,
}

/// `spark.sql.streaming.stateStore.encodingFormat`, which decides how a
/// processor's value schemas may change across restarts: by position
/// (unsaferow: renames only) or by name (avro: fields added, removed,
/// reordered, widened).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StateEncoding {
    /// Spark's default.
    #[default]
    UnsafeRow,
    /// `avro`.
    Avro,
}

impl StateEncoding {
    /// The conf's value (any case; anything else is Spark's default).
    pub fn parse(value: &str) -> Self {
        if value.eq_ignore_ascii_case("avro") {
            StateEncoding::Avro
        } else {
            StateEncoding::UnsafeRow
        }
    }

    /// The conf's value for it.
    pub fn name(self) -> &'static str {
        match self {
            StateEncoding::UnsafeRow => "unsaferow",
            StateEncoding::Avro => "avro",
        }
    }
}

/// Reads state values written with earlier value fields as the current
/// ones (Spark's state schema evolution, which an operator allows).
pub trait ValueEvolution: Send + Sync + std::fmt::Debug {
    /// `columns`, written as `written`, as columns of `to`.
    fn adapt(
        &self,
        written: &[FieldRef],
        columns: &[ArrayRef],
        to: &[FieldRef],
    ) -> Result<Vec<ArrayRef>>;
}

impl StoreSpec {
    /// The spec reading values of earlier fields by `evolution`.
    pub fn with_evolution(self, evolution: Option<Arc<dyn ValueEvolution>>) -> Self {
        StoreSpec { evolution, ..self }
    }

    /// Whether the store writes delta and snapshot files ([`Self::durable`]).
    pub fn writes_files(&self) -> bool {
        self.durable
    }
}

/// The key order an operator relies on, which lets a store pick its
/// structure (the memory store hashes keys unless they must be sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyOrder {
    /// Byte order for `keys`, `entries`, `scan_prefix` and `remove_below`.
    #[default]
    Sorted,
    /// Keys lead with an 8-byte event time (`time_prefix`): `remove_below`
    /// with an 8-byte bound is cheap, other scans are in no order.
    TimePrefixed,
    /// Point lookups only: scans are in no order.
    Unordered,
}

/// Opens stores (`spark.sql.streaming.stateStore.providerClass`).
pub trait StateStoreProvider: Send + Sync {
    /// Open `spec`'s store at committed `version` (0: empty).
    fn open(&self, spec: &StoreSpec, version: i64) -> Result<Box<dyn StateStore>>;

    /// Spark's class of the provider this one stands for.
    fn spark_class(&self) -> &'static str;
}
