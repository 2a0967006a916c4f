//! The state of one stateful operator: one store per shuffle partition
//! (`state/<operator>/<partition>`), keys routed to a partition by hash, and
//! the `stateOperators` progress entry Spark reports for it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use arrow::datatypes::{DataType, FieldRef};

use super::{KeyOrder, StateRow, StateStore, StateStoreProvider, StoreSpec};
use crate::error::{Error, Result};

/// Where an operator's state lives and how it is kept.
#[derive(Debug, Clone)]
pub struct OperatorStateSpec {
    /// The operator id (Spark numbers stateful operators from the top).
    pub id: usize,
    /// `state/<operator id>` in the checkpoint.
    pub dir: PathBuf,
    /// `spark.sql.shuffle.partitions`.
    pub partitions: usize,
    /// The version to open (batches committed).
    pub version: i64,
    /// `spark.sql.streaming.stateStore.minDeltasForSnapshot`.
    pub min_deltas_for_snapshot: i64,
    /// `spark.sql.streaming.minBatchesToRetain`.
    pub min_versions_to_retain: i64,
    /// How values of earlier value fields are read (see [`StoreSpec`]).
    pub evolution: Option<Arc<dyn super::ValueEvolution>>,
    /// The checkpoint's state encoding (as its offsets record it).
    pub encoding: super::StateEncoding,
    /// Whether its files are written (see [`StoreSpec::durable`]).
    pub durable: bool,
    /// Whether they are fsynced (see [`StoreSpec::fsync`]).
    pub fsync: bool,
}

impl OperatorStateSpec {
    /// Record which operator keeps its state here (Spark's
    /// `state/<id>/_metadata/metadata`, v1), or check that it is the one
    /// recorded: a query restarted with another stateful operator in this
    /// place would otherwise start from empty state or misread it.
    pub fn claim(&self, name: &str, stores: &[&str]) -> Result<()> {
        match OperatorInfo::read(&self.dir)? {
            Some(was) => {
                if was.name != name || !was.stores.iter().eq(stores.iter()) {
                    return Err(Error::Checkpoint {
                        condition: "CHECKPOINT_INCOMPATIBLE".into(),
                        message: format!(
                            "The state at {} belongs to a {} operator but the query now has {name} there: \
                             the stateful operator changed. Use a new checkpointLocation.",
                            self.dir.display(),
                            if was.name.is_empty() { "different" } else { &was.name }
                        ),
                    });
                }
                Ok(())
            }
            // batches ran, and none kept state here: the operator was added
            None if self.version > 0 && !holds_files(&self.dir) => Err(Error::Checkpoint {
                condition: "CHECKPOINT_INCOMPATIBLE".into(),
                message: format!(
                    "The query has a {name} operator (operator {}) with no state at {}, but {} batches of it \
                     were committed without one: a stateful operator was added to the query. \
                     Use a new checkpointLocation.",
                    self.id,
                    self.dir.display(),
                    self.version
                ),
            }),
            None => OperatorInfo {
                name: name.to_string(),
                partitions: self.partitions,
                stores: stores.iter().map(|s| s.to_string()).collect(),
            }
            .write(&self.dir, self.id, self.fsync),
        }
    }
}

/// What an operator's `_metadata/metadata` (Spark's v1) records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorInfo {
    /// Spark's operator name (`stateStoreSave`, `dedupe`, ...).
    pub name: String,
    /// Shuffle partitions its state is split into.
    pub partitions: usize,
    /// Its store names.
    pub stores: Vec<String>,
}

impl OperatorInfo {
    /// The record in `op_dir` (None: not written yet).
    pub fn read(op_dir: &std::path::Path) -> Result<Option<Self>> {
        let path = op_dir.join("_metadata").join("metadata");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path.display().to_string(), e)),
        };
        let meta: serde_json::Value = text
            .lines()
            .nth(1)
            .and_then(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| crate::checkpoint::log::corrupt(&path, "not operator metadata v1"))?;
        let stores = meta["stateStoreInfo"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        Ok(Some(OperatorInfo {
            name: meta["operatorInfo"]["operatorName"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            partitions: stores
                .first()
                .and_then(|s| s["numPartitions"].as_u64())
                .unwrap_or(1) as usize,
            stores: stores
                .iter()
                .filter_map(|s| s["storeName"].as_str().map(str::to_string))
                .collect(),
        }))
    }

    /// Write the record of operator `id` into `op_dir`.
    pub fn write(&self, op_dir: &std::path::Path, id: usize, fsync: bool) -> Result<()> {
        let stores: Vec<serde_json::Value> = self
            .stores
            .iter()
            .map(|s| {
                serde_json::json!({
                    "storeName": s,
                    "numColsPrefixKey": 0,
                    "numPartitions": self.partitions,
                })
            })
            .collect();
        let meta = serde_json::json!({
            "operatorInfo": {"operatorId": id, "operatorName": self.name},
            "stateStoreInfo": stores,
        });
        let path = op_dir.join("_metadata").join("metadata");
        crate::checkpoint::log::write_atomic(&path, format!("v1\n{meta}\n").as_bytes(), fsync)
    }
}

/// A check of a recorded layout (see [`StateTable::restart_check`]).
pub type LayoutCheck<'a> = dyn Fn(&StateLayout) -> Result<()> + 'a;

/// A state table an operator declares (Spark's store name, its layout,
/// how its keys are ordered); [`OperatorStateSpec::open_tables`] claims,
/// records and opens the declared tables in one place.
pub struct StateTable<'a> {
    /// The store's name (`default`, or a join's `left` / `right`).
    pub name: &'static str,
    /// Its keys and values.
    pub layout: StateLayout,
    /// How its keys are ordered.
    pub order: KeyOrder,
    /// A check of the layout the checkpoint recorded, on restart (state
    /// whose values may change, as a processor's).
    pub restart_check: Option<&'a LayoutCheck<'a>>,
}

impl OperatorStateSpec {
    /// Claim the operator's state for `operator` (Spark's name) with
    /// `tables`, record each table's layout in the checkpoint, and open each
    /// at the spec's version, in the order given.
    pub fn open_tables(
        &self,
        provider: &dyn StateStoreProvider,
        operator: &str,
        tables: &[StateTable],
    ) -> Result<Vec<PartitionedState>> {
        let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
        self.claim(operator, &names)?;
        for t in tables {
            if let Some(check) = t.restart_check {
                if let Some(recorded) = StateLayout::recorded(&self.dir, t.name)? {
                    check(&recorded)?;
                }
            }
            // values that may change across restarts were checked by the
            // operator, and earlier ones are read by evolution
            t.layout
                .record_checked(self, t.name, self.evolution.is_some())?;
        }
        tables
            .iter()
            .map(|t| {
                // a single store sits in the partition's folder itself
                let name = (tables.len() > 1).then_some(t.name);
                PartitionedState::open_named(provider, self, name, &t.layout.value, t.order)
            })
            .collect()
    }

    /// [`Self::open_tables`] of an operator with one table, `default`.
    pub fn open_table(
        &self,
        provider: &dyn StateStoreProvider,
        operator: &str,
        layout: StateLayout,
        order: KeyOrder,
    ) -> Result<PartitionedState> {
        let table = StateTable {
            name: "default",
            layout,
            order,
            restart_check: None,
        };
        let mut opened = self.open_tables(provider, operator, &[table])?;
        Ok(opened.remove(0))
    }
}

/// How a store's keys and values decode, recorded for the state reader
/// (`spark.read.format("statestore")`): Arrow row format of `key` fields,
/// with an 8-byte event time before or after them, and for a join side the
/// side's rows packed in each value.
#[derive(Debug, Clone)]
pub struct StateLayout {
    /// The fields encoded in the key's row format.
    pub key: Vec<FieldRef>,
    /// An 8-byte time around them: (name, leads the key). An empty name:
    /// the key's own event time, leading it as an index (not a key column).
    pub time: Option<(String, bool)>,
    /// The value columns.
    pub value: Vec<FieldRef>,
    /// A join side's row schema (values pack its rows).
    pub rows: Option<Vec<FieldRef>>,
}

/// Prefixes of the layout file's field names.
const KEY: &str = "key.";
const VALUE: &str = "value.";
const ROW: &str = "row.";

/// Whether the folder `dir` exists and holds anything.
fn holds_files(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

impl StateLayout {
    /// Write it to `state/<op>/_metadata/layout-<store>.arrow` (an IPC file
    /// with no rows: the fields are the record). State recorded there with
    /// keys of another shape (no time in them, or a time elsewhere) is an
    /// incompatible checkpoint: its keys would be misread; with
    /// `values_evolve`, values may change across restarts (the operator
    /// checked them, and reads earlier ones by evolution).
    fn record_checked(
        &self,
        spec: &OperatorStateSpec,
        store: &str,
        values_evolve: bool,
    ) -> Result<()> {
        let op_dir = spec.dir.as_path();
        use arrow::datatypes::{Field, Schema};
        if let Some(was) = Self::recorded(op_dir, store)? {
            if was.time != self.time {
                let shape = |t: &Option<(String, bool)>| match t {
                    None => "no time".to_string(),
                    Some((n, _)) if n.is_empty() => "an event-time index".to_string(),
                    Some((n, leads)) => {
                        format!("the time `{n}` {}", if *leads { "first" } else { "last" })
                    }
                };
                return Err(Error::Checkpoint {
                    condition: "CHECKPOINT_INCOMPATIBLE".into(),
                    message: format!(
                        "The state at {} has keys with {} but the query now keys it with {}: \
                         it was written by an earlier version of sparklet or for another query. \
                         Use a new checkpointLocation.",
                        op_dir.display(),
                        shape(&was.time),
                        shape(&self.time)
                    ),
                });
            }
            // keys and values decode with the types they were written with
            // (names may differ, as in Spark's state schema check)
            let types = |fs: &[FieldRef]| -> Vec<DataType> {
                fs.iter().map(|f| f.data_type().clone()).collect()
            };
            let described = |fs: &[FieldRef]| -> String {
                fs.iter()
                    .map(|f| format!("{}: {}", f.name(), f.data_type()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut compared = vec![("keys", &was.key, &self.key)];
            if !values_evolve {
                compared.push(("values", &was.value, &self.value));
            }
            for (what, before, now) in compared {
                if types(before) != types(now) {
                    return Err(Error::Checkpoint {
                        condition: "CHECKPOINT_INCOMPATIBLE".into(),
                        message: format!(
                            "The state at {} ({store} store of the {} operator) has {what} of [{}] but the query now \
                             has {what} of [{}]: the query's grouping or stateful operator changed. \
                             Use a new checkpointLocation.",
                            op_dir.display(),
                            OperatorInfo::read(op_dir)?.map_or_else(|| "stateful".to_string(), |o| o.name),
                            described(before),
                            described(now)
                        ),
                    });
                }
            }
            // a join side's stored rows decode with the columns they were
            // written with (a query reading other columns after the join
            // stores other ones: they are pruned below it)
            let columns = |rows: &Option<Vec<FieldRef>>| -> Option<Vec<String>> {
                rows.as_ref().map(|fs| {
                    fs.iter()
                        .map(|f| format!("{}: {}", f.name(), f.data_type()))
                        .collect()
                })
            };
            let (before, now) = (columns(&was.rows), columns(&self.rows));
            if let (Some(before), Some(now)) = (&before, &now) {
                if before != now {
                    return Err(Error::Checkpoint {
                        condition: "CHECKPOINT_INCOMPATIBLE".into(),
                        message: format!(
                            "The join state at {} ({store} side) holds rows of [{}] but the query \
                             now stores [{}]: it was written for another query (each side stores \
                             the columns read after the join, its keys and condition and its \
                             watermarked columns) or by an earlier version of sparklet. \
                             Use a new checkpointLocation.",
                            op_dir.display(),
                            before.join(", "),
                            now.join(", ")
                        ),
                    });
                }
            }
        }
        let named = |prefix: &str, fs: &[FieldRef]| -> Vec<Field> {
            fs.iter()
                .map(|f| {
                    f.as_ref()
                        .clone()
                        .with_name(format!("{prefix}{}", f.name()))
                })
                .collect()
        };
        let mut fields = named(KEY, &self.key);
        fields.extend(named(VALUE, &self.value));
        fields.extend(named(ROW, self.rows.as_deref().unwrap_or_default()));
        let mut meta = std::collections::HashMap::new();
        if let Some((name, leads)) = &self.time {
            meta.insert("time".to_string(), name.clone());
            meta.insert("timeLeads".to_string(), leads.to_string());
        }
        meta.insert("joinSide".to_string(), self.rows.is_some().to_string());
        let schema = Arc::new(Schema::new_with_metadata(fields, meta));
        let mut buf = Vec::new();
        arrow::ipc::writer::FileWriter::try_new(&mut buf, &schema)?.finish()?;
        crate::checkpoint::log::write_atomic(&Self::path(op_dir, store), &buf, spec.fsync)
    }

    /// The spec of partition `p`'s store `store` under the operator folder
    /// `op_dir`, for reading its files.
    pub fn store_spec(&self, op_dir: &std::path::Path, p: usize, store: &str) -> StoreSpec {
        let part = op_dir.join(p.to_string());
        StoreSpec {
            dir: if store == "default" {
                part
            } else {
                part.join(store)
            },
            value_fields: self.value.clone(),
            min_deltas_for_snapshot: 1,
            min_versions_to_retain: 1,
            key_order: KeyOrder::Sorted,
            evolution: None,
            // readers write nothing
            durable: true,
            fsync: true,
        }
    }

    /// Where the layout of `op_dir`'s store `store` is recorded.
    fn path(op_dir: &std::path::Path, store: &str) -> std::path::PathBuf {
        op_dir
            .join("_metadata")
            .join(format!("layout-{store}.arrow"))
    }

    /// The recorded layout, if the store has one yet.
    pub fn recorded(op_dir: &std::path::Path, store: &str) -> Result<Option<Self>> {
        if !Self::path(op_dir, store).exists() {
            return Ok(None);
        }
        Self::read(op_dir, store).map(Some)
    }

    /// Read what [`Self::record`] wrote.
    pub fn read(op_dir: &std::path::Path, store: &str) -> Result<Self> {
        let path = Self::path(op_dir, store);
        let schema = super::files::ipc_reader(&path)?.schema();
        let strip = |prefix: &str| -> Vec<FieldRef> {
            schema
                .fields()
                .iter()
                .filter_map(|f| {
                    let name = f.name().strip_prefix(prefix)?;
                    Some(Arc::new(f.as_ref().clone().with_name(name)))
                })
                .collect()
        };
        let meta = schema.metadata();
        Ok(StateLayout {
            key: strip(KEY),
            time: meta.get("time").map(|t| {
                (
                    t.clone(),
                    meta.get("timeLeads").is_some_and(|l| l == "true"),
                )
            }),
            value: strip(VALUE),
            rows: (meta.get("joinSide").is_some_and(|j| j == "true")).then(|| strip(ROW)),
        })
    }
}

/// The partition of `key` (or a key's routing prefix) among `partitions`.
pub fn partition_for(key: &[u8], partitions: usize) -> usize {
    (twox_hash::XxHash32::oneshot(0, key) as usize) % partitions.max(1)
}

/// What one batch did to an operator's state (for `stateOperators` progress).
#[derive(Debug, Default, Clone)]
pub struct OperatorMetrics {
    /// Keys written this batch.
    pub rows_updated: u64,
    /// Keys evicted this batch.
    pub rows_removed: u64,
    /// Input rows behind the watermark.
    pub rows_dropped_by_watermark: u64,
    /// Time updating state, ms.
    pub all_updates_ms: i64,
    /// Time evicting, ms.
    pub all_removals_ms: i64,
    /// Time committing the stores, ms.
    pub commit_ms: i64,
    /// The rows Spark's state would hold, where the stores hold them
    /// otherwise (a sliding window's panes: its windows); else the keys.
    pub rows_total: Option<u64>,
}

/// Batches with at least this many rows update their partitions side by
/// side; smaller ones in turn (handing work to threads costs more).
pub const PARALLEL_ROWS: usize = 4096;

/// Run `job` on each of `items` (a partition's stores) side by side, on
/// the runtime's blocking threads: they outlive the batch, and so do their
/// allocator heaps (threads spawned per batch started from fresh pages
/// every time, and zeroing them showed in profiles). The items come back in
/// order, and the results in order too; the first error wins, and a panic
/// is an error, not a lost item.
fn in_parallel<T: Send + 'static, R: Send + 'static>(
    items: Vec<T>,
    job: impl Fn(usize, &mut T) -> Result<R> + Send + Sync + 'static,
) -> (Vec<T>, Result<Vec<R>>) {
    let rt = match crate::runtime::runtime() {
        Ok(rt) => rt,
        Err(e) => return (items, Err(e)),
    };
    let job = Arc::new(job);
    let (tx, rx) = std::sync::mpsc::channel();
    let n = items.len();
    for (i, mut item) in items.into_iter().enumerate() {
        let (tx, job) = (tx.clone(), Arc::clone(&job));
        rt.spawn_blocking(move || {
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(i, &mut item)))
                    .unwrap_or_else(|_| Err(Error::Internal("a state store task panicked".into())));
            let _ = tx.send((i, item, result));
        });
    }
    drop(tx);
    let mut back: Vec<(usize, T, Result<R>)> = rx.iter().collect();
    back.sort_by_key(|(i, _, _)| *i);
    let lost = back.len() != n;
    let mut items = Vec::with_capacity(n);
    let mut results = Vec::with_capacity(n);
    let mut first_error = None;
    for (_, item, result) in back {
        items.push(item);
        match result {
            Ok(r) => results.push(r),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if lost {
        first_error = Some(Error::Internal("a state store task did not finish".into()));
    }
    (
        items,
        match first_error {
            Some(e) => Err(e),
            None => Ok(results),
        },
    )
}

/// One store per partition.
pub struct PartitionedState {
    stores: Vec<Box<dyn StateStore>>,
}

impl PartitionedState {
    /// Open every partition's store with `value_fields` as the state schema.
    pub fn open(
        provider: &dyn StateStoreProvider,
        spec: &OperatorStateSpec,
        value_fields: &[FieldRef],
        key_order: KeyOrder,
    ) -> Result<Self> {
        Self::open_named(provider, spec, None, value_fields, key_order)
    }

    /// Open the stores named `name` (`state/<op>/<partition>/<name>`, for
    /// operators with several stores, as a join's sides).
    pub fn open_named(
        provider: &dyn StateStoreProvider,
        spec: &OperatorStateSpec,
        name: Option<&str>,
        value_fields: &[FieldRef],
        key_order: KeyOrder,
    ) -> Result<Self> {
        let stores = (0..spec.partitions.max(1))
            .map(|p| {
                let dir = spec.dir.join(p.to_string());
                provider.open(
                    &StoreSpec {
                        dir: name.map_or_else(|| dir.clone(), |n| dir.join(n)),
                        value_fields: value_fields.to_vec(),
                        min_deltas_for_snapshot: spec.min_deltas_for_snapshot,
                        min_versions_to_retain: spec.min_versions_to_retain,
                        key_order,
                        evolution: spec.evolution.clone(),
                        durable: spec.durable,
                        fsync: spec.fsync,
                    },
                    spec.version,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PartitionedState { stores })
    }

    /// Number of partitions (state store instances).
    pub fn len(&self) -> usize {
        self.stores.len()
    }

    /// Whether there are no partitions (never: at least one is opened).
    pub fn is_empty(&self) -> bool {
        self.stores.is_empty()
    }

    /// The partition owning `key` (or a key's routing prefix): xxHash32, a
    /// specified function, so a restarted query finds its keys where it left
    /// them whatever the build.
    pub fn partition_of(&self, key: &[u8]) -> usize {
        partition_for(key, self.stores.len())
    }

    /// Partition `p`'s store.
    pub fn store(&self, p: usize) -> &dyn StateStore {
        self.stores[p].as_ref()
    }

    /// Partition `p`'s store, to change.
    pub fn store_mut(&mut self, p: usize) -> &mut dyn StateStore {
        self.stores[p].as_mut()
    }

    /// All stores, to change in parallel.
    pub fn stores_mut(&mut self) -> &mut [Box<dyn StateStore>] {
        &mut self.stores
    }

    /// The value of `key` in its partition.
    pub fn get(&self, key: &[u8]) -> Result<Option<StateRow>> {
        self.stores[self.partition_of(key)].get(key)
    }

    /// Commit every partition (version = batches committed); returns the time taken, ms.
    /// Each commit waits on fsync, so partitions commit side by side.
    pub fn commit(&mut self) -> Result<i64> {
        let t = Instant::now();
        self.each_in_parallel(|_, store| store.commit())?;
        Ok(t.elapsed().as_millis() as i64)
    }

    /// Run `job` on every partition's store for a batch of `rows` rows: side
    /// by side (see [`Self::each_in_parallel`]) when it has at least
    /// [`PARALLEL_ROWS`], else in turn on this thread, which costs less for
    /// small batches.
    pub fn each<R: Send + 'static>(
        &mut self,
        rows: usize,
        job: impl Fn(usize, &mut dyn StateStore) -> Result<R> + Send + Sync + 'static,
    ) -> Result<Vec<R>> {
        if rows >= PARALLEL_ROWS && self.stores.len() > 1 {
            return self.each_in_parallel(job);
        }
        self.stores
            .iter_mut()
            .enumerate()
            .map(|(i, s)| job(i, s.as_mut()))
            .collect()
    }

    /// Run `job` on every partition's store side by side (Spark runs a task
    /// per partition; see [`in_parallel`]).
    pub fn each_in_parallel<R: Send + 'static>(
        &mut self,
        job: impl Fn(usize, &mut dyn StateStore) -> Result<R> + Send + Sync + 'static,
    ) -> Result<Vec<R>> {
        let (stores, results) = in_parallel(std::mem::take(&mut self.stores), move |i, s| {
            job(i, s.as_mut())
        });
        self.stores = stores;
        results
    }

    /// Run `job` on every partition's store and the same partition's store
    /// of `other` (a join's two sides, which partition keys alike): side by
    /// side for a batch of at least [`PARALLEL_ROWS`] rows, else in turn.
    pub fn each_with<R: Send + 'static>(
        &mut self,
        other: &mut PartitionedState,
        rows: usize,
        job: impl Fn(usize, &mut dyn StateStore, &mut dyn StateStore) -> Result<R>
            + Send
            + Sync
            + 'static,
    ) -> Result<Vec<R>> {
        if self.stores.len() != other.stores.len() {
            return Err(Error::Internal(
                "paired states have different partitions".into(),
            ));
        }
        if rows < PARALLEL_ROWS || self.stores.len() < 2 {
            return self
                .stores
                .iter_mut()
                .zip(other.stores.iter_mut())
                .enumerate()
                .map(|(i, (a, b))| job(i, a.as_mut(), b.as_mut()))
                .collect();
        }
        let pairs: Vec<_> = std::mem::take(&mut self.stores)
            .into_iter()
            .zip(std::mem::take(&mut other.stores))
            .collect();
        let (pairs, results) = in_parallel(pairs, move |i, (a, b)| job(i, a.as_mut(), b.as_mut()));
        (self.stores, other.stores) = pairs.into_iter().unzip();
        results
    }

    /// Keys and approximate bytes across partitions.
    pub fn totals(&self) -> (u64, u64) {
        self.stores.iter().fold((0, 0), |(k, b), s| {
            let m = s.metrics();
            (k + m.num_keys, b + m.memory_bytes)
        })
    }

    /// Spark's `stateOperators` entry for an operator named `name`.
    pub fn progress(&self, name: &str, m: &OperatorMetrics) -> serde_json::Value {
        progress(name, &[("default", self)], m)
    }
}

/// The `stateOperators` entry of an operator with the named stores `states`.
pub fn progress(
    name: &str,
    states: &[(&str, &PartitionedState)],
    m: &OperatorMetrics,
) -> serde_json::Value {
    let (mut total, mut bytes) = (0, 0);
    // the provider's metrics: sums over partitions, snapshots per partition and store
    let mut custom = serde_json::Map::new();
    let (mut hits, mut misses) = (0, 0);
    let partitions = states.first().map_or(0, |(_, s)| s.len());
    for (store_name, state) in states {
        let (k, b) = state.totals();
        total += k;
        bytes += b;
        for (p, s) in state.stores.iter().enumerate() {
            let sm = s.metrics();
            hits += sm.cache_hits;
            misses += sm.cache_misses;
            for (name, v) in &sm.custom {
                let sum = custom.get(*name).and_then(|x| x.as_u64()).unwrap_or(0) + v;
                custom.insert((*name).to_string(), sum.into());
            }
            custom.insert(
                format!("SnapshotLastUploaded.partition_{p}_{store_name}"),
                sm.last_snapshot_version.into(),
            );
        }
    }
    custom.insert("forceSnapshotCount".into(), 0.into());
    custom.insert("loadedMapCacheHitCount".into(), hits.into());
    custom.insert("loadedMapCacheMissCount".into(), misses.into());
    custom.insert("numSnapshotsAutoRepaired".into(), 0.into());
    custom.insert("stateOnCurrentVersionSizeBytes".into(), bytes.into());
    serde_json::json!({
        "operatorName": name,
        "numRowsTotal": m.rows_total.unwrap_or(total),
        "numRowsUpdated": m.rows_updated,
        "allUpdatesTimeMs": m.all_updates_ms,
        "numRowsRemoved": m.rows_removed,
        "allRemovalsTimeMs": m.all_removals_ms,
        "commitTimeMs": m.commit_ms,
        "memoryUsedBytes": bytes,
        "numRowsDroppedByWatermark": m.rows_dropped_by_watermark,
        "numShufflePartitions": partitions,
        "numStateStoreInstances": partitions * states.len(),
        "customMetrics": custom,
    })
}
