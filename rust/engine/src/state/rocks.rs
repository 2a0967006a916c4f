//! The RocksDB state store (Spark's `RocksDBStateStoreProvider`): each
//! partition's state lives in a local RocksDB instance, so state larger than
//! memory stays on disk, and memory is bounded by RocksDB's caches.
//!
//! Durability is changelog checkpointing: a batch's changes are written as
//! that version's delta file, the Arrow IPC files the in-memory provider
//! writes ([`super::files`]), and every `minDeltasForSnapshot` versions a
//! snapshot, RocksDB's own files shared across versions
//! ([`super::rocks_snapshot`]). The RocksDB instance is a local working copy
//! under the temp folder; opening a version reuses it when it holds that
//! version of this checkpoint, catches it up from the deltas when it is
//! behind, and otherwise (lost, foreign or ahead) restores it from the
//! newest snapshot (linked back in; a snapshot file of the in-memory
//! provider is loaded) and the deltas after it.
//!
//! A batch's changes are kept in an overlay until the commit writes them
//! together with the version marker, so RocksDB only ever holds committed
//! versions: a small batch as one
//! `WriteBatch`, a large one as an SST file ingested whole (sorted writes
//! into a file cost a fraction of inserts into the memtable's skip list).
//! RocksDB's WAL is off: the delta files are the log (none in a temporary
//! checkpoint, which nothing can resume from).
//!
//! Data keys are the operator's keys after a tag byte, so the marker has a
//! key of its own in the same column family and lands atomically with the
//! data, in a write batch and in an ingested file alike.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rocksdb::{
    BlockBasedOptions, Cache, DBCompressionType, Direction, IngestExternalFileOptions,
    IteratorMode, Options, ReadOptions, SstFileWriter, WriteBatch, WriteBufferManager,
    WriteOptions, DB,
};

use super::codec::Codec;
use super::entries::ValueRef;
use super::files::{
    deltas, encoded_rows, for_each_change, for_each_entry, newest_snapshot, write_delta, Change,
    RemovedBelow, Snapshots,
};
use super::key_filter::KeyFilter;
use super::rocks_snapshot;
use super::{Keys, StateRow, StateStore, StateStoreProvider, StoreMetrics, StoreSpec};
use crate::checkpoint::log::corrupt;
use crate::error::{Error, Result};

/// The marker's key: version, key count and the version's delta fingerprint.
const MARKER: &[u8] = &[0];
/// The tag before every data key (after the marker's).
pub(super) const DATA: u8 = 1;
/// Rows per write batch when loading, and per record batch of a snapshot.
const CHUNK_ROWS: usize = 65_536;
/// L0 files (about one per commit) that start a compaction (RocksDB's default is 4).
const L0_FILES_TO_COMPACT: i32 = 16;
/// Commits of at least this many changes are ingested as an SST file.
const INGEST_ROWS: usize = 4096;

/// `key` as stored: after the data tag.
fn tagged(key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(key.len() + 1);
    tag_into(&mut k, key);
    k
}

/// `key` as stored, in `buf` (reused: no allocation per key).
fn tag_into<'b>(buf: &'b mut Vec<u8>, key: &[u8]) -> &'b [u8] {
    buf.clear();
    buf.push(DATA);
    buf.extend_from_slice(key);
    buf
}

fn no_wal() -> WriteOptions {
    let mut wo = WriteOptions::default();
    wo.disable_wal(true); // the delta files are the log
    wo
}
/// `spark.sql.streaming.stateStore.rocksdb.*` settings, with Spark's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct RocksDbSettings {
    /// `boundedMemoryUsage`: one block cache for every instance in the
    /// process, memtables charged to it.
    pub bounded_memory: bool,
    /// `maxMemoryUsageMB`: that cache's size.
    pub max_memory_mb: usize,
    /// `writeBufferCacheRatio`: the share of it memtables may take.
    pub write_buffer_cache_ratio: f64,
    /// `blockCacheSizeMB`: each instance's block cache when not bounded.
    pub block_cache_mb: usize,
    /// `writeBufferSizeMB` (None: RocksDB's default, 64 MB).
    pub write_buffer_mb: Option<usize>,
    /// `maxWriteBufferNumber` (None: RocksDB's default, 2).
    pub max_write_buffers: Option<i32>,
    /// `compression`: lz4 (Spark's default), snappy, zstd, zlib or none.
    pub compression: String,
    /// Where working copies live (None: the process's private folder,
    /// [`super::scratch`]).
    pub local_dir: Option<PathBuf>,
}

impl Default for RocksDbSettings {
    fn default() -> Self {
        RocksDbSettings {
            bounded_memory: false,
            max_memory_mb: 500,
            write_buffer_cache_ratio: 0.5,
            block_cache_mb: 8,
            write_buffer_mb: None,
            max_write_buffers: None,
            compression: "lz4".into(),
            local_dir: None,
        }
    }
}

impl RocksDbSettings {
    /// The settings under `spark.sql.streaming.stateStore.rocksdb.` in `conf`;
    /// a value that is not a number is an error naming its key.
    pub fn from_conf(conf: &crate::conf::Conf) -> Result<Self> {
        const PREFIX: &str = "spark.sql.streaming.stateStore.rocksdb.";
        let number = |name: &str| -> Result<Option<f64>> {
            let Some(v) = conf.get(&format!("{PREFIX}{name}")) else {
                return Ok(None);
            };
            v.trim().parse::<f64>().map(Some).map_err(|_| {
                Error::illegal_argument(format!("{PREFIX}{name} must be a number, not '{v}'"))
            })
        };
        // Spark's -1: RocksDB's own default
        let positive = |v: Option<f64>| v.filter(|v| *v > 0.0);
        let d = RocksDbSettings::default();
        Ok(RocksDbSettings {
            bounded_memory: conf.get_bool(&format!("{PREFIX}boundedMemoryUsage"), false),
            max_memory_mb: positive(number("maxMemoryUsageMB")?)
                .map_or(d.max_memory_mb, |v| v as usize),
            write_buffer_cache_ratio: number("writeBufferCacheRatio")?
                .unwrap_or(d.write_buffer_cache_ratio),
            block_cache_mb: positive(number("blockCacheSizeMB")?)
                .map_or(d.block_cache_mb, |v| v as usize),
            write_buffer_mb: positive(number("writeBufferSizeMB")?).map(|v| v as usize),
            max_write_buffers: positive(number("maxWriteBufferNumber")?).map(|v| v as i32),
            compression: conf
                .get(&format!("{PREFIX}compression"))
                .unwrap_or(d.compression),
            local_dir: d.local_dir,
        })
    }
}

/// The bounded-memory cache and write buffer manager every instance shares
/// (Spark shares them per executor; here, per process and size).
struct SharedMemory {
    mb: usize,
    cache: Cache,
    buffers: WriteBufferManager,
    /// The instances open on the cache.
    users: Arc<AtomicUsize>,
}

/// An instance's block cache: its own, or its share of the bounded one
/// (which also holds every instance's memtables and filter blocks).
enum BlockCache {
    Own(Cache),
    Shared(Cache, Arc<AtomicUsize>),
}

impl BlockCache {
    /// The bytes this instance counts as its own: its cache, or an even
    /// share of the bounded cache (so the sum over instances is its usage).
    fn usage(&self) -> u64 {
        match self {
            BlockCache::Own(c) => c.get_usage() as u64,
            BlockCache::Shared(c, users) => {
                c.get_usage() as u64 / users.load(Ordering::Relaxed).max(1) as u64
            }
        }
    }
}

impl Drop for BlockCache {
    fn drop(&mut self) {
        if let BlockCache::Shared(_, users) = self {
            users.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

fn shared_memory(s: &RocksDbSettings) -> Result<(BlockCache, WriteBufferManager)> {
    static SHARED: OnceLock<Mutex<Option<SharedMemory>>> = OnceLock::new();
    let mut shared = SHARED.get_or_init(|| Mutex::new(None)).lock();
    if let Some(m) = shared.as_ref().filter(|m| m.mb == s.max_memory_mb) {
        m.users.fetch_add(1, Ordering::Relaxed);
        let cache = BlockCache::Shared(m.cache.clone(), Arc::clone(&m.users));
        return Ok((cache, m.buffers.clone()));
    }
    let bytes = s.max_memory_mb << 20;
    let cache = Cache::new_lru_cache(bytes);
    let buffers = WriteBufferManager::new_write_buffer_manager_with_cache(
        (bytes as f64 * s.write_buffer_cache_ratio) as usize,
        false,
        cache.clone(),
    );
    let users = Arc::new(AtomicUsize::new(1));
    *shared = Some(SharedMemory {
        mb: s.max_memory_mb,
        cache: cache.clone(),
        buffers: buffers.clone(),
        users: Arc::clone(&users),
    });
    Ok((BlockCache::Shared(cache, users), buffers))
}

/// The RocksDB provider.
#[derive(Debug, Default)]
pub struct RocksDbProvider {
    /// Its settings.
    pub settings: RocksDbSettings,
}

impl RocksDbProvider {
    /// A provider with `settings`.
    pub fn new(settings: RocksDbSettings) -> Self {
        RocksDbProvider { settings }
    }

    fn options(&self) -> Result<(Options, BlockCache)> {
        let s = &self.settings;
        let mut opts = Options::default();
        opts.create_if_missing(true);
        // a bloom filter over the memtable: most reads are of keys not there
        opts.set_memtable_prefix_bloom_ratio(0.1);
        opts.set_memtable_whole_key_filtering(true);
        opts.set_compression_type(match s.compression.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => DBCompressionType::None,
            "snappy" => DBCompressionType::Snappy,
            "zstd" => DBCompressionType::Zstd,
            "zlib" => DBCompressionType::Zlib,
            _ => DBCompressionType::Lz4,
        });
        let mut table = BlockBasedOptions::default();
        let block_cache = if s.bounded_memory {
            let (cache, buffers) = shared_memory(s)?;
            let (BlockCache::Shared(c, _) | BlockCache::Own(c)) = &cache;
            table.set_block_cache(c);
            table.set_cache_index_and_filter_blocks(true);
            table.set_cache_index_and_filter_blocks_with_high_priority(true);
            // every read checks each L0 file's filter: no cache lookup for them
            table.set_pin_l0_filter_and_index_blocks_in_cache(true);
            opts.set_write_buffer_manager(&buffers);
            cache
        } else {
            let cache = Cache::new_lru_cache(s.block_cache_mb << 20);
            table.set_block_cache(&cache);
            BlockCache::Own(cache)
        };
        table.set_bloom_filter(10.0, false);
        opts.set_block_based_table_factory(&table);
        // a commit's keys are ingested as one L0 file overlapping the rest:
        // each L0-to-L1 compaction rewrites the whole state, so merge many
        // files at once (reads of absent keys stop at the key filter, so more
        // L0 files cost only reads of present keys a filter probe each)
        opts.set_level_zero_file_num_compaction_trigger(L0_FILES_TO_COMPACT);
        opts.set_level_zero_slowdown_writes_trigger(L0_FILES_TO_COMPACT * 3);
        opts.set_level_zero_stop_writes_trigger(L0_FILES_TO_COMPACT * 4);
        if let Some(mb) = s.write_buffer_mb {
            opts.set_write_buffer_size(mb << 20);
        }
        if let Some(n) = s.max_write_buffers {
            opts.set_max_write_buffer_number(n);
        }
        Ok((opts, block_cache))
    }

    /// The working copy of the store in `dir`.
    fn local_path(&self, spec: &StoreSpec) -> Result<PathBuf> {
        let dir = &spec.dir;
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        // the value fields too: values of other fields (a processor's state
        // schema evolved) never come from a working copy a crash left
        let id = format!("{}|{:?}", absolute.display(), spec.value_fields);
        let name = twox_hash::XxHash64::oneshot(0, id.as_bytes());
        let base = match &self.settings.local_dir {
            Some(d) => d.as_path(),
            None => super::scratch::process_dir()?,
        };
        Ok(base.join(format!("{name:016x}")))
    }
}

/// What the version marker records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Marker {
    version: i64,
    keys: u64,
    /// Size and modification time (ns) of the version's delta file: a
    /// working copy of another checkpoint at the same path does not match.
    delta: (u64, i128),
}

impl Marker {
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(40);
        b.extend_from_slice(&self.version.to_le_bytes());
        b.extend_from_slice(&self.keys.to_le_bytes());
        b.extend_from_slice(&self.delta.0.to_le_bytes());
        b.extend_from_slice(&self.delta.1.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Option<Marker> {
        Some(Marker {
            version: i64::from_le_bytes(b.get(0..8)?.try_into().ok()?),
            keys: u64::from_le_bytes(b.get(8..16)?.try_into().ok()?),
            delta: (
                u64::from_le_bytes(b.get(16..24)?.try_into().ok()?),
                i128::from_le_bytes(b.get(24..40)?.try_into().ok()?),
            ),
        })
    }
}

/// The fingerprint of `version`'s delta (or snapshot) file (zeros for version 0).
fn fingerprint(dir: &Path, version: i64) -> (u64, i128) {
    // a rescaled store has only a snapshot at the version it starts from
    std::fs::metadata(dir.join(format!("{version}.delta")))
        .or_else(|_| std::fs::metadata(dir.join(format!("{version}.snapshot"))))
        .ok()
        .map(|m| {
            let ns = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            (m.len(), ns)
        })
        .unwrap_or((0, 0))
}

/// Whether `e` says another instance holds the working copy.
fn is_lock(e: &rocksdb::Error) -> bool {
    let text = e.as_ref();
    text.contains("/LOCK") || text.contains("lock hold")
}

fn rocks_error(spec: &StoreSpec, local: &Path, e: rocksdb::Error) -> Error {
    let condition = if is_lock(&e) {
        "STATE_STORE_LOCKED"
    } else {
        "STATE_STORE_ROCKSDB_ERROR"
    };
    Error::Checkpoint {
        condition: condition.into(),
        message: format!(
            "The RocksDB state store of {} (working copy {}) failed: {e}",
            spec.dir.display(),
            local.display()
        ),
    }
}

impl StateStoreProvider for RocksDbProvider {
    fn spark_class(&self) -> &'static str {
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    }

    fn open(&self, spec: &StoreSpec, version: i64) -> Result<Box<dyn StateStore>> {
        Ok(Box::new(self.open_store(spec, version)?))
    }
}

impl RocksDbProvider {
    fn open_store(&self, spec: &StoreSpec, version: i64) -> Result<RocksStore> {
        let codec = Codec::new(&spec.value_fields)?;
        if !codec.bytes_only() {
            return Err(Error::Internal(format!(
                "the state of {} has a type the RocksDB provider cannot encode as bytes ({:?})",
                spec.dir.display(),
                spec.value_fields
            )));
        }
        let (opts, cache) = self.options()?;
        let open = |local: &Path| {
            std::fs::create_dir_all(local)
                .map_err(|e| Error::io(local.display().to_string(), e))?;
            // the default column family named, so it has a handle (batched
            // reads), with the options (open_cf would give it default ones)
            let cfs = || {
                [rocksdb::ColumnFamilyDescriptor::new(
                    rocksdb::DEFAULT_COLUMN_FAMILY_NAME,
                    opts.clone(),
                )]
            };
            match DB::open_cf_descriptors(&opts, local, cfs()) {
                Ok(db) => Ok(db),
                Err(e) if is_lock(&e) => Err(rocks_error(spec, local, e)),
                Err(e) => {
                    // a damaged or foreign working copy: rebuilt from the checkpoint
                    ::log::warn!("RocksDB working copy {} replaced: {e}", local.display());
                    DB::destroy(&opts, local).map_err(|e| rocks_error(spec, local, e))?;
                    DB::open_cf_descriptors(&opts, local, cfs())
                        .map_err(|e| rocks_error(spec, local, e))
                }
            }
        };
        // the shared working copy, or, while another instance holds it (a
        // reader of an older version), a private one rebuilt from the checkpoint
        let mut local = self.local_path(spec)?;
        let db = match open(&local) {
            Ok(db) => db,
            Err(Error::Checkpoint { condition, .. }) if condition == "STATE_STORE_LOCKED" => {
                local = beside(&local, &uuid::Uuid::new_v4().simple().to_string());
                open(&local)?
            }
            Err(e) => return Err(e),
        };
        let marker = read_marker(&db).map_err(|e| rocks_error(spec, &local, e))?;
        let reusable = marker.filter(|m| {
            m.version <= version
                && m.delta == fingerprint(&spec.dir, m.version)
                && (m.version == version || has_deltas(&spec.dir, m.version, version))
        });
        let (db, restored) = match reusable {
            Some(_) => (db, None),
            None => {
                // lost, another checkpoint's, or ahead: rebuilt from the
                // checkpoint, a RocksDB snapshot by linking its files back in
                drop(db);
                DB::destroy(&opts, &local).map_err(|e| rocks_error(spec, &local, e))?;
                // (a folder of earlier value fields is read by the rebuild)
                let snapshot = match newest_snapshot(spec, version)? {
                    Some((v, path))
                        if rocks_snapshot::is_folder(&path)
                            && rocks_snapshot::restorable(spec, &path)? =>
                    {
                        Some((v, path))
                    }
                    _ => None,
                };
                if let Some((_, path)) = &snapshot {
                    let _ = std::fs::remove_dir_all(&local);
                    rocks_snapshot::restore(spec, path, &local)?;
                }
                let db = open(&local)?;
                let restored = match snapshot {
                    Some((base, path)) => {
                        let m = read_marker(&db).map_err(|e| rocks_error(spec, &local, e))?;
                        match m.filter(|m| m.version == base) {
                            Some(m) => Some(m),
                            None => {
                                return Err(corrupt(
                                    &path,
                                    format!("it does not hold version {base}"),
                                ))
                            }
                        }
                    }
                    None => None,
                };
                (db, restored)
            }
        };
        let mut store = RocksStore {
            spec: spec.clone(),
            version: 0,
            local: local.clone(),
            opts,
            in_memtable: std::cell::Cell::new(false),
            db,
            _working_copy: RemoveOnDrop(local.clone()),
            codec: Arc::new(codec),
            overlay: BTreeMap::new(),
            keys: 0,
            snapshots: Snapshots::default(),
            cache,
            cache_hits: 0,
            cache_misses: 0,
            gets: std::cell::Cell::new(0),
            last_read: std::cell::RefCell::new(LastRead::default()),
            removed_below: RemovedBelow::default(),
            tag_buf: std::cell::RefCell::new(Vec::new()),
            last_commit: CommitMetrics::default(),
            written: None,
            writes_files: spec.writes_files(),
        };
        match reusable.or(restored) {
            Some(m) => {
                store.version = m.version;
                store.keys = m.keys;
                store.catch_up(version)?;
                if m.version == version && reusable.is_some() {
                    store.cache_hits += 1;
                } else {
                    store.cache_misses += 1;
                }
            }
            None => {
                store.rebuild(version)?;
                store.cache_misses += u64::from(version > 0);
            }
        }
        if store.written.is_none() {
            // a reused working copy: its keys scanned (a rebuild built it)
            store.written = Some(store.key_filter()?);
        }
        Ok(store)
    }
}

/// A path next to the working copy `local`: its name and `suffix` (a
/// private copy's, and each copy's ingest file and snapshot folder).
/// Told each looked-up key's position and value (None: absent).
type Answer<'a> = dyn FnMut(usize, Option<&[u8]>) -> Result<()> + 'a;

/// Positions of `keys` in key order, each distinct key once (at its first
/// position).
fn sorted_distinct(keys: &[&[u8]]) -> Vec<usize> {
    if keys.windows(2).all(|w| w[0] < w[1]) {
        return (0..keys.len()).collect(); // already in order (an aggregation's groups are)
    }
    // sorted by each key's first 16 bytes as one number, which orders as the
    // bytes do: whole keys are compared only on a tie (most keys are shorter)
    let mut order: Vec<(u128, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (leading(k), i))
        .collect();
    order.sort_unstable_by(|(pa, a), (pb, b)| {
        pa.cmp(pb)
            .then_with(|| {
                keys[*a][PREFIX.min(keys[*a].len())..].cmp(&keys[*b][PREFIX.min(keys[*b].len())..])
            })
            .then_with(|| keys[*a].len().cmp(&keys[*b].len()))
            .then(a.cmp(b))
    });
    order.dedup_by(|b, a| a.0 == b.0 && keys[a.1] == keys[b.1]);
    order.into_iter().map(|(_, i)| i).collect()
}

/// Bytes of a key read as one number by [`leading`].
const PREFIX: usize = 16;

/// A key's first [`PREFIX`] bytes, big-endian, zero-padded: a shorter key
/// ties with its zero-extended self, broken by comparing the rest and length.
fn leading(key: &[u8]) -> u128 {
    let mut b = [0u8; PREFIX];
    let n = key.len().min(PREFIX);
    b[..n].copy_from_slice(&key[..n]);
    u128::from_be_bytes(b)
}

fn beside(local: &Path, suffix: &str) -> PathBuf {
    let mut name = local.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether every delta after `from` up to `to` is in `dir`.
fn has_deltas(dir: &Path, from: i64, to: i64) -> bool {
    (from + 1..=to).all(|v| dir.join(format!("{v}.delta")).exists())
}

struct RocksStore {
    spec: StoreSpec,
    version: i64,
    local: PathBuf,
    /// The options it was opened with (SST files for it are written with them).
    opts: Options,
    /// Whether writes may be in the memtable only (not yet flushed).
    in_memtable: std::cell::Cell<bool>,
    /// Declared before `_working_copy`, so it closes before its folder goes.
    db: DB,
    /// Deleted when the store is dropped, as Spark deletes its local
    /// folders: a copy is reused only after a crash, when no drop ran.
    _working_copy: RemoveOnDrop,
    codec: Arc<Codec>,
    /// This batch's changes (None: removed), written at the commit.
    overlay: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    /// Keys in the committed version plus the overlay.
    keys: u64,
    snapshots: Snapshots,
    /// This instance's block cache, or its share of the bounded one.
    cache: BlockCache,
    cache_hits: u64,
    cache_misses: u64,
    /// RocksDB reads this batch (reads take `&self`).
    gets: std::cell::Cell<u64>,
    /// The last key read from RocksDB and whether it was there: an update
    /// reads a key and then writes it, and the write need not read it again.
    last_read: std::cell::RefCell<LastRead>,
    /// A reused buffer for tagging keys read one at a time.
    tag_buf: std::cell::RefCell<Vec<u8>>,
    /// What the last commit did, for Spark's `rocksdb*` custom metrics.
    last_commit: CommitMetrics,
    /// The range of keys removed this version, recorded once in the delta.
    removed_below: RemovedBelow,
    /// Every key RocksDB may hold (None until the store is open): a key
    /// it rules out is answered without a read.
    written: Option<KeyFilter>,
    /// [`StoreSpec::writes_files`], read once at open.
    writes_files: bool,
}

#[derive(Debug, Default)]
struct LastRead {
    /// False once RocksDB changed (a commit) since the read.
    valid: bool,
    key: Vec<u8>,
    present: bool,
}

/// An SST file being written for ingestion, its keys in ascending order.
struct SstFile<'a> {
    writer: SstFileWriter<'a>,
    path: PathBuf,
    entries: u64,
    store: &'a RocksStore,
    key: Vec<u8>,
}

impl SstFile<'_> {
    fn put(&mut self, stored_key: &[u8], value: &[u8]) -> Result<()> {
        self.writer
            .put(stored_key, value)
            .map_err(|e| self.store.err(e))?;
        self.entries += 1;
        Ok(())
    }

    /// Set an operator's key to `value`, or with None delete it.
    fn change(&mut self, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        let mut buf = std::mem::take(&mut self.key);
        let key = tag_into(&mut buf, key);
        let done = match value {
            Some(v) => self.put(key, v),
            None => self
                .writer
                .delete(key)
                .map(|()| self.entries += 1)
                .map_err(|e| self.store.err(e)),
        };
        self.key = buf;
        done
    }
}

/// The last commit's counts and times, reported as Spark's RocksDB
/// provider names them.
#[derive(Debug, Default, Clone, Copy)]
struct CommitMetrics {
    gets: u64,
    puts: u64,
    deletes: u64,
    /// Writing and syncing the changelog (delta) file, ms.
    file_sync_ms: u64,
    /// Applying the batch to RocksDB, ms.
    write_batch_ms: u64,
}

impl RocksStore {
    fn err(&self, e: rocksdb::Error) -> Error {
        rocks_error(&self.spec, &self.local, e)
    }

    /// A filter of the keys the store holds (a scan of them, values unread).
    fn key_filter(&self) -> Result<KeyFilter> {
        let mut filter = KeyFilter::with_capacity(self.keys as usize * 2);
        let mut ro = ReadOptions::default();
        ro.fill_cache(false);
        let mut items = self.db.raw_iterator_opt(ro);
        items.seek([DATA]);
        while let Some(k) = items.key() {
            if k.first() != Some(&DATA) {
                break;
            }
            filter.insert(&k[1..]);
            items.next();
        }
        items.status().map_err(|e| self.err(e))?;
        for (k, v) in &self.overlay {
            if v.is_some() {
                filter.insert(k);
            }
        }
        Ok(filter)
    }

    /// Write the overlay and the marker of `version` together.
    fn write_overlay(&mut self, version: i64) -> Result<()> {
        if let Some(filter) = &mut self.written {
            for (k, v) in &self.overlay {
                if v.is_some() {
                    filter.insert(k);
                }
            }
        }
        let marker = Marker {
            version,
            keys: self.keys,
            delta: fingerprint(&self.spec.dir, version),
        }
        .encode();
        if self.overlay.len() >= INGEST_ROWS {
            let mut file = self.sst_file()?;
            file.put(MARKER, &marker)?;
            for (k, v) in &self.overlay {
                file.change(k, v.as_deref())?;
            }
            self.ingest_file(file)?;
        } else {
            let mut batch = WriteBatch::default();
            batch.put(MARKER, marker);
            for (k, v) in &self.overlay {
                match v {
                    Some(v) => batch.put(tagged(k), v),
                    None => batch.delete(tagged(k)),
                }
            }
            self.write(batch)?;
        }
        self.last_read.get_mut().valid = false;
        self.overlay.clear();
        self.version = version;
        Ok(())
    }

    /// A new SST file for this working copy.
    fn sst_file(&self) -> Result<SstFile<'_>> {
        let path = beside(&self.local, "ingest.sst");
        let writer = SstFileWriter::create(&self.opts);
        writer.open(&path).map_err(|e| self.err(e))?;
        Ok(SstFile {
            writer,
            path,
            entries: 0,
            store: self,
            key: Vec::new(),
        })
    }

    /// Write `batch` to the memtable.
    fn write(&self, batch: WriteBatch) -> Result<()> {
        self.db
            .write_opt(batch, &no_wal())
            .map_err(|e| self.err(e))?;
        self.in_memtable.set(true);
        Ok(())
    }

    /// Ingest `file` (if it has entries) into RocksDB.
    fn ingest_file(&self, file: SstFile) -> Result<()> {
        let SstFile {
            mut writer,
            path,
            entries,
            ..
        } = file;
        if entries > 0 {
            // an ingested file is durable at once: writes still only in the
            // memtable (no WAL) go to disk first, so that a crash never
            // keeps a newer marker and loses older writes
            if self.in_memtable.get() {
                self.db.flush().map_err(|e| self.err(e))?;
                self.in_memtable.set(false);
            }
            writer.finish().map_err(|e| self.err(e))?;
            let mut io = IngestExternalFileOptions::default();
            io.set_move_files(true);
            let ingested = self.db.ingest_external_file_opts(&io, vec![&path]);
            let _ = std::fs::remove_file(&path);
            ingested.map_err(|e| self.err(e))?;
        } else {
            drop(writer);
            let _ = std::fs::remove_file(&path);
        }
        Ok(())
    }

    /// Remove every key before `bound`: the keys a scan finds are present,
    /// so none is read again.
    fn remove_range(&mut self, bound: &[u8]) -> Result<usize> {
        let mut gone = Vec::new();
        for e in self.scan(&[]) {
            let (k, _) = e?;
            if *k >= *bound {
                break;
            }
            gone.push(k.into_owned());
        }
        self.keys = self.keys.saturating_sub(gone.len() as u64);
        let n = gone.len();
        self.overlay.extend(gone.into_iter().map(|k| (k, None)));
        Ok(n)
    }

    /// Replay the checkpoint's deltas after the working copy's version.
    fn catch_up(&mut self, version: i64) -> Result<()> {
        let (spec, codec) = (self.spec.clone(), Arc::clone(&self.codec));
        let from = self.version;
        for (v, path) in (from + 1..).zip(deltas(&spec, from, version)?) {
            for_each_change(&spec, &path, &encoded_rows(&codec), |change| {
                match change {
                    Change::Put(k, value) => self.set(k, value)?,
                    Change::Remove(k) => self.remove(k),
                    Change::RemoveBelow(bound) => {
                        self.remove_range(bound)?;
                    }
                }
                Ok(())
            })?;
            self.write_overlay(v)?;
        }
        Ok(())
    }

    /// Load `version` from the checkpoint into an empty working copy: its
    /// newest snapshot, then the deltas after it.
    /// Rebuild the working copy from the checkpoint; the key filter is
    /// built along (from the snapshot's keys, then the deltas' commits).
    fn rebuild(&mut self, version: i64) -> Result<()> {
        match newest_snapshot(&self.spec, version)? {
            Some((base, path)) => {
                let (keys, filter) = self.ingest(&path)?;
                self.keys = keys;
                self.written = Some(filter);
                self.write_overlay(base)?;
            }
            None => {
                self.written = Some(KeyFilter::with_capacity(0));
                self.write_overlay(0)?;
            }
        }
        self.catch_up(version)
    }

    /// Load a snapshot file into the empty working copy, a record batch at
    /// a time: its keys in ascending order are written as an SST file and
    /// ingested whole (no memtable); any out of order (a snapshot this
    /// provider did not write) go through write batches. Returns the keys'
    /// count and a filter of them.
    fn ingest(&self, snapshot: &Path) -> Result<(u64, KeyFilter)> {
        let mut file = self.sst_file()?;
        let mut batch = WriteBatch::default();
        let (mut keys, mut last) = (0u64, Vec::new());
        let mut filter = KeyFilter::with_capacity(0);
        for_each_entry(&self.spec, snapshot, &encoded_rows(&self.codec), |k, v| {
            keys += 1;
            filter.insert(k);
            if file.entries == 0 || k > &last[..] {
                file.change(k, Some(&v))?;
                last.clear();
                last.extend_from_slice(k);
            } else {
                batch.put(tagged(k), &v);
                if batch.len() >= CHUNK_ROWS {
                    self.write(std::mem::take(&mut batch))?;
                }
            }
            Ok(())
        })?;
        if !batch.is_empty() {
            self.write(batch)?;
        }
        self.ingest_file(file)?;
        Ok((keys, filter))
    }

    /// Call `f(i, value)` for each of `keys[i]`, `i` in `order` (ascending
    /// distinct keys): the overlay answers keys changed this batch, one
    /// batched, sorted RocksDB lookup the rest.
    fn lookup_sorted(&self, keys: &[&[u8]], order: &[usize], f: &mut Answer<'_>) -> Result<()> {
        let mut unanswered = Vec::new();
        let mut buf = Vec::new();
        for &i in order {
            match self.overlay.get(keys[i]) {
                Some(v) => f(i, v.as_deref())?,
                None if self
                    .written
                    .as_ref()
                    .is_some_and(|w| !w.may_contain(keys[i])) =>
                {
                    f(i, None)?
                }
                None => {
                    unanswered.push(i);
                    buf.push(DATA);
                    buf.extend_from_slice(keys[i]);
                }
            }
        }
        let mut at = 0;
        let asked: Vec<&[u8]> = unanswered
            .iter()
            .map(|i| {
                let k = &buf[at..at + keys[*i].len() + 1];
                at += k.len();
                k
            })
            .collect();
        let cf = self
            .db
            .cf_handle(rocksdb::DEFAULT_COLUMN_FAMILY_NAME)
            .ok_or_else(|| Error::Internal("RocksDB has no default column family".into()))?;
        let found = self.db.batched_multi_get_cf(cf, asked, true);
        self.gets.set(self.gets.get() + unanswered.len() as u64);
        for (i, value) in unanswered.iter().zip(found) {
            f(*i, value.map_err(|e| self.err(e))?.as_deref())?;
        }
        Ok(())
    }

    /// Add a run of changes in key order to the overlay.
    fn extend_overlay(&mut self, run: Vec<(Vec<u8>, Option<Vec<u8>>)>) {
        if self.overlay.len() > 4 * run.len() {
            // a few keys (a record batch) into a large overlay: merging
            // would rebuild the whole tree for each
            self.overlay.extend(run);
        } else {
            // a sorted run is built into a tree in one pass, then merged
            let mut run: BTreeMap<_, _> = run.into_iter().collect();
            self.overlay.append(&mut run);
        }
    }

    fn encode(&self, row: StateRow) -> Result<Vec<u8>> {
        match self.codec.encode(row)? {
            super::entries::Value::Bytes(b) => Ok(b.into_vec()),
            super::entries::Value::Scalars(_) => {
                Err(Error::Internal("a state row not encoded as bytes".into()))
            }
        }
    }

    fn value(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>> {
        if let Some(v) = self.overlay.get(key) {
            return Ok(v.as_deref().map(Cow::Borrowed));
        }
        Ok(self.read(key)?.map(|v| Cow::Owned(v.to_vec())))
    }

    fn exists(&self, key: &[u8]) -> Result<bool> {
        if let Some(v) = self.overlay.get(key) {
            return Ok(v.is_some());
        }
        {
            let last = self.last_read.borrow();
            if last.valid && last.key == key {
                return Ok(last.present);
            }
        }
        Ok(self.read(key)?.is_some())
    }

    /// Read `key` from RocksDB, remembering whether it was there.
    fn read(&self, key: &[u8]) -> Result<Option<rocksdb::DBPinnableSlice<'_>>> {
        if self.written.as_ref().is_some_and(|w| !w.may_contain(key)) {
            return Ok(None);
        }
        self.gets.set(self.gets.get() + 1);
        let value = {
            let mut buf = self.tag_buf.borrow_mut();
            self.db.get_pinned(tag_into(&mut buf, key))
        }
        .map_err(|e| self.err(e))?;
        let mut last = self.last_read.borrow_mut();
        last.key.clear();
        last.key.extend_from_slice(key);
        last.present = value.is_some();
        last.valid = true;
        Ok(value)
    }

    fn set(&mut self, key: &[u8], value: Vec<u8>) -> Result<()> {
        if !self.exists(key)? {
            self.keys += 1;
        }
        self.overlay.insert(key.to_vec(), Some(value));
        Ok(())
    }

    /// Entries from `from` on, the overlay merged over RocksDB, in key order.
    fn scan(&self, from: &[u8]) -> Merged<'_> {
        let mut ro = ReadOptions::default();
        ro.fill_cache(false); // a scan should not evict the working set
        Merged {
            db: self
                .db
                .iterator_opt(IteratorMode::From(&tagged(from), Direction::Forward), ro)
                .peekable(),
            overlay: self.overlay.range(from.to_vec()..).peekable(),
            spec: &self.spec,
            local: &self.local,
        }
    }

    fn snapshot_in_background(&mut self, version: i64) -> Result<()> {
        if self.snapshots.in_flight() {
            return Ok(());
        }
        // a RocksDB checkpoint (hard links) of this version, read off the batch's path
        let at = beside(&self.local, &format!("snapshot-{version}"));
        let _ = std::fs::remove_dir_all(&at);
        // writes only in the memtable (no WAL) need a flush to be in the
        // checkpoint; without any, none (a flush waits out write stalls)
        let flush_at = if self.in_memtable.get() { 0 } else { u64::MAX };
        rocksdb::checkpoint::Checkpoint::new(&self.db)
            .and_then(|c| c.create_checkpoint_with_log_size(&at, flush_at))
            .map_err(|e| self.err(e))?;
        let spec = self.spec.clone();
        self.snapshots.start(&self.spec, version, move || {
            let placed = rocks_snapshot::publish(&spec, version, &at);
            let _ = std::fs::remove_dir_all(&at);
            placed
        });
        Ok(())
    }

    fn property(&self, name: &str) -> u64 {
        self.db.property_int_value(name).ok().flatten().unwrap_or(0)
    }
}

/// Deletes a folder when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The version marker of a working copy (None: a new or foreign one).
fn read_marker(db: &DB) -> std::result::Result<Option<Marker>, rocksdb::Error> {
    Ok(db.get_pinned(MARKER)?.and_then(|b| Marker::decode(&b)))
}

/// RocksDB's entries with the overlay's changes merged over them.
struct Merged<'a> {
    db: std::iter::Peekable<rocksdb::DBIteratorWithThreadMode<'a, DB>>,
    overlay: std::iter::Peekable<std::collections::btree_map::Range<'a, Vec<u8>, Option<Vec<u8>>>>,
    spec: &'a StoreSpec,
    local: &'a Path,
}

type Entry<'a> = (Cow<'a, [u8]>, Cow<'a, [u8]>);

impl<'a> Iterator for Merged<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if matches!(self.db.peek(), Some(Err(_))) {
                let e = self.db.next()?.err()?;
                return Some(Err(rocks_error(self.spec, self.local, e)));
            }
            let order = {
                let from_db = self
                    .db
                    .peek()
                    .and_then(|r| r.as_ref().ok())
                    .map(|(k, _)| &k[1..]);
                let from_overlay = self.overlay.peek().map(|(k, _)| k.as_slice());
                match (from_db, from_overlay) {
                    (None, None) => return None,
                    (Some(_), None) => std::cmp::Ordering::Greater,
                    (None, Some(_)) => std::cmp::Ordering::Less,
                    (Some(d), Some(o)) => o.cmp(d),
                }
            };
            if order == std::cmp::Ordering::Equal {
                self.db.next(); // the overlay's change replaces it
            }
            let take_overlay = order != std::cmp::Ordering::Greater;
            if take_overlay {
                let (k, v) = self.overlay.next()?;
                match v {
                    Some(v) => return Some(Ok((Cow::Borrowed(k), Cow::Borrowed(v)))),
                    None => continue, // removed this batch
                }
            }
            let (k, v) = self.db.next()?.ok()?;
            return Some(Ok((Cow::Owned(k[1..].to_vec()), Cow::Owned(v.into_vec()))));
        }
    }
}

impl StateStore for RocksStore {
    fn version(&self) -> i64 {
        self.version
    }

    fn get(&self, key: &[u8]) -> Result<Option<StateRow>> {
        self.value(key)?
            .map(|v| self.codec.decode(ValueRef::Bytes(&v)))
            .transpose()
    }

    fn contains(&self, key: &[u8]) -> Result<bool> {
        self.exists(key)
    }

    fn put(&mut self, key: Vec<u8>, value: StateRow) -> Result<()> {
        let value = self.encode(value)?;
        self.set(&key, value)
    }

    fn get_bytes(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>> {
        self.value(key)
    }

    fn put_bytes(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.set(key, value.to_vec())
    }

    fn put_bytes_if_absent(&mut self, key: &[u8], value: &[u8]) -> Result<bool> {
        if self.exists(key)? {
            return Ok(false);
        }
        self.keys += 1;
        self.overlay.insert(key.to_vec(), Some(value.to_vec()));
        Ok(true)
    }

    fn put_bytes_if_absent_all(&mut self, keys: &[&[u8]], values: &[&[u8]]) -> Result<Vec<bool>> {
        // a key's repeats by position, so its first is looked up and set
        let order = sorted_distinct(keys);
        let mut set = vec![false; keys.len()];
        self.lookup_sorted(keys, &order, &mut |i, v| {
            set[i] = v.is_none();
            Ok(())
        })?;
        let fresh: Vec<_> = order
            .into_iter()
            .filter(|i| set[*i])
            .map(|i| (keys[i].to_vec(), Some(values[i].to_vec())))
            .collect();
        self.keys += fresh.len() as u64;
        self.extend_overlay(fresh);
        Ok(set)
    }

    fn get_bytes_each(
        &self,
        keys: &[&[u8]],
        found: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let order = sorted_distinct(keys);
        self.lookup_sorted(keys, &order, &mut |i, v| match v {
            Some(v) => found(i, v),
            None => Ok(()),
        })
    }

    fn put_bytes_all(&mut self, keys: &[&[u8]], values: &[&[u8]], existed: &[bool]) -> Result<()> {
        self.keys += existed.iter().filter(|e| !**e).count() as u64;
        let order = sorted_distinct(keys);
        let run = order
            .into_iter()
            .map(|i| (keys[i].to_vec(), Some(values[i].to_vec())))
            .collect();
        self.extend_overlay(run);
        Ok(())
    }

    fn remove(&mut self, key: &[u8]) {
        // a failed read counts the key as present: the delta then records a
        // removal that replays as a no-op, never a lost one
        if self.exists(key).unwrap_or(true) {
            self.keys = self.keys.saturating_sub(1);
            self.overlay.insert(key.to_vec(), None);
        }
    }

    fn remove_below(&mut self, bound: &[u8]) -> Result<usize> {
        self.removed_below.record(bound);
        self.remove_range(bound)
    }

    fn keys(&self) -> Keys<'_> {
        Box::new(self.scan(&[]).map(|e| e.map(|(k, _)| k)))
    }

    fn each_below(&self, bound: &[u8], found: &mut super::EachEntry<'_>) -> Result<()> {
        // one ordered scan yields the values too: no lookup per key
        for e in self.scan(&[]) {
            let (k, v) = e?;
            if *k >= *bound {
                break;
            }
            found(&k, &v)?;
        }
        Ok(())
    }

    fn keys_below(&self, bound: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        self.each_below(bound, &mut |k, _| {
            out.push(k.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    fn entries(&self) -> Result<Vec<(Vec<u8>, StateRow)>> {
        self.scan(&[])
            .map(|e| {
                let (k, v) = e?;
                Ok((k.into_owned(), self.codec.decode(ValueRef::Bytes(&v))?))
            })
            .collect()
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Vec<(Vec<u8>, StateRow)>> {
        let mut out = Vec::new();
        for e in self.scan(prefix) {
            let (k, v) = e?;
            if !k.starts_with(prefix) {
                break;
            }
            out.push((k.to_vec(), self.codec.decode(ValueRef::Bytes(&v))?));
        }
        Ok(out)
    }

    fn commit(&mut self) -> Result<i64> {
        let version = self.version + 1;
        let overlay = &self.overlay;
        let present = overlay
            .iter()
            .filter_map(|(k, v)| Some((&k[..], ValueRef::Bytes(v.as_deref()?))));
        let removed = overlay
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| &k[..]);
        let deletes = removed.clone().count() as u64;
        let puts = overlay.len() as u64 - deletes;
        // the delta first: once it is durable the version is, whatever
        // happens to the working copy
        let t = std::time::Instant::now();
        if self.writes_files {
            write_delta(
                &self.spec,
                &self.codec,
                version,
                present,
                removed,
                self.removed_below.bound(),
            )?;
        }
        let file_sync_ms = t.elapsed().as_millis() as u64;
        self.removed_below.clear();
        let t = std::time::Instant::now();
        self.write_overlay(version)?;
        self.last_commit = CommitMetrics {
            gets: self.gets.replace(0),
            puts,
            deletes,
            file_sync_ms,
            write_batch_ms: t.elapsed().as_millis() as u64,
        };
        if self.writes_files && version % self.spec.min_deltas_for_snapshot.max(1) == 0 {
            self.snapshot_in_background(version)?;
        }
        self.cache_hits += 1;
        Ok(version)
    }

    fn metrics(&self) -> StoreMetrics {
        let overlay: usize = self
            .overlay
            .iter()
            .map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len))
            .sum();
        // a bounded cache holds the memtables and filter blocks too
        let outside_cache = match self.cache {
            BlockCache::Own(_) => {
                self.property("rocksdb.cur-size-all-mem-tables")
                    + self.property("rocksdb.estimate-table-readers-mem")
            }
            BlockCache::Shared(..) => 0,
        };
        StoreMetrics {
            num_keys: self.keys,
            memory_bytes: outside_cache
                + self.cache.usage()
                + overlay as u64
                + self.written.as_ref().map_or(0, KeyFilter::memory_bytes),
            last_snapshot_version: self.snapshots.last_version(),
            cache_hits: self.cache_hits,
            cache_misses: self.cache_misses,
            custom: vec![
                ("rocksdbGetCount", self.last_commit.gets),
                (
                    "rocksdbPutCount",
                    self.last_commit.puts + self.last_commit.deletes,
                ),
                (
                    "rocksdbCommitFileSyncLatencyMs",
                    self.last_commit.file_sync_ms,
                ),
                (
                    "rocksdbCommitWriteBatchLatency",
                    self.last_commit.write_batch_ms,
                ),
                (
                    "rocksdbSstFileSize",
                    self.property("rocksdb.total-sst-files-size"),
                ),
                (
                    "rocksdbPinnedBlocksMemoryUsage",
                    self.property("rocksdb.block-cache-pinned-usage"),
                ),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{DataType, Field};

    /// The numeric-prefix sort orders keys exactly as their bytes do, long
    /// and short, zero bytes and repeats included.
    #[test]
    fn sorted_distinct_orders_as_bytes() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let owned: Vec<Vec<u8>> = (0..3000)
            .map(|_| {
                let len = (next() % 24) as usize;
                // few distinct byte values: many shared prefixes and repeats
                (0..len).map(|_| (next() % 3) as u8).collect()
            })
            .collect();
        let keys: Vec<&[u8]> = owned.iter().map(|k| k.as_slice()).collect();
        let mut expected: Vec<usize> = (0..keys.len()).collect();
        expected.sort_by(|a, b| keys[*a].cmp(keys[*b]).then(a.cmp(b)));
        expected.dedup_by(|b, a| keys[*a] == keys[*b]);
        assert_eq!(sorted_distinct(&keys), expected);
    }

    /// Most of a deduplication's reads are of absent keys, answered by bloom
    /// filters: the options reach the data's column family and the files
    /// ingested into it.
    #[test]
    fn ingested_data_files_have_bloom_filters() -> Result<()> {
        let dir =
            std::env::temp_dir().join(format!("sparklet-rocks-filters-{}", std::process::id()));
        let spec = StoreSpec {
            dir: dir.join("state"),
            value_fields: vec![Arc::new(Field::new("v", DataType::Binary, true))],
            min_deltas_for_snapshot: 10,
            min_versions_to_retain: 2,
            key_order: super::super::KeyOrder::Unordered,
            evolution: None,
            durable: true,
            fsync: true,
        };
        let provider = RocksDbProvider::new(RocksDbSettings {
            local_dir: Some(dir.join("local")),
            ..RocksDbSettings::default()
        });
        let mut store = provider.open_store(&spec, 0)?;
        for i in 0..INGEST_ROWS as u32 {
            store.put_bytes(&i.to_be_bytes(), b"")?;
        }
        store.commit()?;
        let props = store
            .db
            .property_value("rocksdb.aggregated-table-properties")
            .map_err(|e| store.err(e))?
            .unwrap_or_default();
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
        let count = |name: &str| {
            let at = props.find(name).map(|i| i + name.len());
            at.and_then(|i| props[i..].split(';').next()?.parse::<u64>().ok())
        };
        // every key (and the version markers) is in a filter
        assert!(
            count("# entries=").is_some_and(|n| n > INGEST_ROWS as u64),
            "{props}"
        );
        assert_eq!(
            count("# entries for filter="),
            count("# entries="),
            "{props}"
        );
        Ok(())
    }
}
