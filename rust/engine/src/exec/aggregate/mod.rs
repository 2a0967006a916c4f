//! Streaming aggregation (Spark's `StateStoreRestoreExec` + `StateStoreSaveExec`).
//!
//! Per micro-batch, DataFusion plans the query; this operator takes the plan's
//! aggregate apart: it runs the aggregate's input, drops rows behind the
//! watermark, lets DataFusion compute *partial* aggregate states for the
//! batch, and merges them per group key into the stored accumulator states
//! (ARCHITECTURE.md decision 2: any DataFusion aggregate streams). It then
//! emits rows for the output mode and hands them to the rest of the plan in
//! place of the aggregate.

mod accumulators;
mod lateness;
mod merge;
mod node;
mod opening;
mod output;
mod planning;
mod sessions;
mod slices;

use lateness::window_array;
use merge::{
    accumulators_for, parse_keys, scalar_columns, Accumulators, Merge, Router, Updated, Work,
};
pub use node::{StatefulAggExec, StatefulAggNode};
pub use opening::AggOpening;
use output::unseen_avg_counts_null;
pub use planning::{find_aggregate, replace, AggregateParts, EventTimeKey, PaneSpec};

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, RecordBatch};
use arrow::compute::{cast, filter_record_batch};
use arrow::datatypes::{DataType, Int64Type, SchemaRef};
use arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchemaRef, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{EmitTo, Expr, LogicalPlan};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode, PhysicalGroupBy};
use datafusion::physical_plan::{collect, ExecutionPlan, PhysicalExpr};

use super::event_time::{event_time_column, event_times, micros, micros_array, window_starts};
use super::key_buffer::KeyBuffer;
use super::operator::{time_prefix, ByIdentity, OperatorSlot, StatefulOperator};
use super::watermark::watermarks_under;
use super::window_bounds::WindowBounds;
use crate::error::{Error, Result};
use crate::functions::window::{window_struct, windows_of_pane};
use crate::plan::column_origin;
use crate::plan::output_mode::OutputMode;
use crate::runtime::{block_on, parallel_map};
use crate::state::partitioned::{
    partition_for, OperatorMetrics, OperatorStateSpec, PartitionedState, StateLayout, PARALLEL_ROWS,
};
use crate::state::{decode_rows, time_of, Codec};
use crate::state::{KeyOrder, StateRow, StateStore, StateStoreProvider};
use parking_lot::Mutex;

/// The stateful aggregation operator of one running query.
pub struct StatefulAggregate {
    mode: OutputMode,
    state: PartitionedState,
    aggr: Vec<Arc<AggregateFunctionExpr>>,
    /// State fields per aggregate (how to split a stored row).
    widths: Vec<usize>,
    converter: RowConverter,
    num_keys: usize,
    event_time: Option<EventTimeKey>,
    /// Session windows: the key position of `session_window`, and a
    /// converter for the other keys (the stored key is their encoding
    /// followed by the session start, so a key's sessions are contiguous).
    session: Option<(usize, RowConverter)>,
    /// Sliding windows aggregated by panes.
    pane: Option<PaneSpec>,
    /// Sliding windows kept by panes in the state too (see `slices`).
    slices: Option<slices::Sliced>,
    /// Whether stored keys lead with the group's event time (8 bytes, see
    /// `time_prefix`): aggregations on event time, but for sessions. The
    /// store indexes keys by it, so the watermark's eviction finds what
    /// closed without a sorted map or a scan of every key.
    time_keyed: bool,
    /// The stores' encoding of a state row (of the aggregates' states).
    codec: Codec,
    out_schema: SchemaRef,
    /// Late rows of the last batch (for the late-data output).
    pub late_rows: Vec<RecordBatch>,
    /// The aggregate input's schema (of the late rows).
    pub input_schema: SchemaRef,
    /// This batch's watermarks (µs): for dropping late rows (the previous
    /// batch's, as Spark 3.4+) and for evicting state.
    late_wm: Option<i64>,
    evict_wm: Option<i64>,
    /// The watermark (µs) state was last evicted at, in update mode: a run
    /// with the same watermark (the epochs of a real-time batch) has
    /// nothing new to evict, since rows at or below it were dropped as late
    /// (what the run they came in left lingers until the watermark moves).
    evicted_at: Option<i64>,
    /// The last batch's metrics.
    pub metrics: OperatorMetrics,
}

impl StatefulAggregate {
    /// Build the operator from the first plan of the query and open its
    /// stores at `version` (the number of batches committed).
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        parts: &AggregateParts,
        mode: OutputMode,
        event_time: Option<EventTimeKey>,
        session: Option<usize>,
        pane: Option<PaneSpec>,
        provider: &dyn StateStoreProvider,
        spec: &OperatorStateSpec,
    ) -> Result<Self> {
        let out_schema = parts.top.schema();
        let num_keys = parts.group_by.expr().len();
        let key_fields: Vec<SortField> = (0..num_keys)
            .map(|i| SortField::new(out_schema.field(i).data_type().clone()))
            .collect();
        let converter = RowConverter::new(key_fields)?;
        let mut widths = Vec::new();
        let mut value_fields = Vec::new();
        for a in &parts.aggr {
            let fields = a.state_fields()?;
            widths.push(fields.len());
            value_fields.extend(fields);
        }
        let session = match session {
            Some(si) => {
                // stored rows end with the session's start and end
                for name in ["session_start", "session_end"] {
                    value_fields.push(Arc::new(arrow::datatypes::Field::new(
                        name,
                        DataType::Int64,
                        true,
                    )));
                }
                let others: Vec<SortField> = (0..num_keys)
                    .filter(|i| *i != si)
                    .map(|i| SortField::new(out_schema.field(i).data_type().clone()))
                    .collect();
                Some((si, RowConverter::new(others)?))
            }
            None => None,
        };
        let time_keyed = event_time.is_some() && session.is_none();
        let codec = Codec::new(&value_fields)?;
        // a sliding window whose windows the watermark closes (append and
        // update mode) keeps its panes; complete mode emits every window
        // every batch, so it keeps the windows, and so does a checkpoint
        // that an earlier sparklet wrote with windows
        let sliced = match (pane, event_time) {
            (Some(p), Some(EventTimeKey::Window(i)))
                if i == p.key
                    && time_keyed
                    && mode != OutputMode::Complete
                    && !keeps_windows(&spec.dir)? =>
            {
                codec.conv.as_ref().map(|_| p)
            }
            _ => None,
        };
        let key_field = |i: usize| Arc::new(out_schema.field(i).clone());
        let layout = StateLayout {
            // a session's key: the other keys, then its start; a pane's:
            // its start, then the other keys
            key: (0..num_keys)
                .filter(|i| session.as_ref().is_none_or(|(si, _)| si != i))
                .filter(|i| sliced.is_none_or(|p| p.key != *i))
                .map(key_field)
                .collect(),
            time: match (&session, time_keyed, sliced) {
                (Some(_), _, _) => Some(("session_start".to_string(), false)),
                (None, true, Some(_)) => Some((slices::PANE_START.to_string(), true)),
                (None, true, None) => Some((String::new(), true)),
                (None, false, _) => None,
            },
            value: value_fields.clone(),
            rows: None,
        };
        // without event time nothing scans the keys (no eviction, no
        // sessions): a hashed store; complete mode sorts what it emits.
        // With it, hashed too, with an index by time for the eviction
        let order = if session.is_some() {
            KeyOrder::Sorted
        } else if time_keyed {
            KeyOrder::TimePrefixed
        } else {
            KeyOrder::Unordered
        };
        let slices = match sliced {
            Some(p) => Some(slices::Sliced::new(p, &out_schema, num_keys)?),
            None => None,
        };
        let state = spec.open_table(provider, "stateStoreSave", layout, order)?;
        Ok(StatefulAggregate {
            codec,
            slices,
            mode,
            state,
            aggr: parts.aggr.clone(),
            widths,
            converter,
            num_keys,
            event_time,
            session,
            pane,
            time_keyed,
            out_schema,
            late_rows: Vec::new(),
            input_schema: parts.input.schema(),
            late_wm: None,
            evict_wm: None,
            evicted_at: None,
            metrics: OperatorMetrics::default(),
        })
    }

    /// Shuffle partitions (state store instances).
    pub fn num_partitions(&self) -> usize {
        self.state.len()
    }

    fn partition_of(&self, key: &[u8]) -> usize {
        self.state.partition_of(key)
    }

    /// Merge a stored state row into fresh accumulators.
    fn accumulators_for(&self, state: Option<&StateRow>) -> Result<Accumulators> {
        accumulators_for(&self.aggr, &self.widths, self.num_keys > 0, state)
    }

    fn evaluate(&self, state: &StateRow) -> Result<Vec<ScalarValue>> {
        let mut accs = self.accumulators_for(Some(state))?;
        Ok(accs
            .iter_mut()
            .map(|a| a.evaluate())
            .collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// Run one batch: returns the rows to emit (schema of the aggregate).
    pub fn process(
        &mut self,
        parts: &AggregateParts,
        input: Vec<RecordBatch>,
        task_ctx: Arc<TaskContext>,
    ) -> Result<Vec<RecordBatch>> {
        let (late_us, watermark_us) = (self.late_wm, self.evict_wm);
        self.metrics = OperatorMetrics::default();
        self.late_rows.clear();
        let input_schema = parts.input.schema();
        let mut kept = Vec::with_capacity(input.len());
        for b in input {
            match (self.event_time, late_us) {
                (Some(kind), Some(wm)) if b.num_rows() > 0 => {
                    kept.push(self.drop_late(b, parts, kind, wm)?);
                }
                _ => kept.push(b),
            }
        }
        let t = Instant::now();
        // spread the batch over the cores for the partial aggregation
        let lanes = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(kept.len())
            .max(1);
        // a window key grouped by its bounds (see `window_bounds`)
        let mut bounds = match self.event_time {
            Some(EventTimeKey::Window(i)) if self.session.is_none() => {
                WindowBounds::new(&parts.group_by, i, &input_schema)
            }
            _ => None,
        };
        let splits = match &mut bounds {
            Some(w) => {
                let splits = kept
                    .iter()
                    .map(|b| w.split(&parts.group_by, b))
                    .collect::<Result<Vec<_>>>()?;
                w.settle_width(&splits)?;
                splits.into_iter().map(Some).collect()
            }
            None => vec![None; kept.len()],
        };
        let (schema, group_by) = match &bounds {
            Some(w) => (
                w.widened_schema(&input_schema),
                w.group_by(&parts.group_by, input_schema.fields().len()),
            ),
            None => (Arc::clone(&input_schema), parts.group_by.clone()),
        };
        let mut partitions: Vec<Vec<RecordBatch>> = vec![Vec::new(); lanes];
        for (i, (b, split)) in kept.into_iter().zip(splits).enumerate() {
            let b = match (&bounds, split) {
                (Some(w), Some(split)) => w.widen(&b, split, &schema)?,
                _ => b,
            };
            partitions[i % lanes].push(b);
        }
        let source = MemorySourceConfig::try_new_exec(&partitions, Arc::clone(&schema), None)?;
        let partial: Arc<dyn ExecutionPlan> = Arc::new(AggregateExec::try_new(
            AggregateMode::Partial,
            group_by,
            parts.aggr.clone(),
            parts.filters.clone(),
            source,
            schema,
        )?);
        let mut partial_out =
            block_on(collect(partial, task_ctx))?.map_err(Error::from_execution)?;
        if let Some(w) = &bounds {
            partial_out = partial_out
                .iter()
                .map(|b| w.narrow(b))
                .collect::<Result<_>>()?;
        }
        if self.num_keys == 0 {
            partial_out = partial_out
                .iter()
                .map(|b| unseen_avg_counts_null(b, &parts.aggr))
                .collect::<Result<_>>()?;
        }
        if self.session.is_some() {
            if self.num_keys == 1 {
                // Spark fails the query at its first batch, not at start
                return Err(Error::Internal(
                    "Global aggregation with session window in streaming query is not supported."
                        .into(),
                ));
            }
            let out = self.process_sessions(&partial_out, watermark_us);
            self.metrics.all_updates_ms = t.elapsed().as_millis() as i64;
            return out;
        }
        if self.slices.is_some() {
            return self.process_slices(&partial_out, lanes, t);
        }
        // each partial row's stored key (for panes: one per window holding
        // it), routed to its partition; partitions merge in parallel
        let router = Router {
            converter: &self.converter,
            pane: self.pane,
            num_keys: self.num_keys,
            time_key: match self.event_time {
                Some(EventTimeKey::Window(i) | EventTimeKey::Timestamp(i)) if self.time_keyed => {
                    Some(i)
                }
                _ => None,
            },
            partitions: self.state.len(),
            late_us,
            slices: None,
        };
        let work = router.route_all(&partial_out, lanes)?;
        let merge = Merge {
            partial: &partial_out,
            aggr: &self.aggr,
            widths: &self.widths,
            num_keys: self.num_keys,
            evaluate: self.mode == OutputMode::Update,
            keep_existed: false,
            codec: &self.codec,
            converter: &self.converter,
            key_skip: self.key_skip(),
        };
        // append mode: each partition takes its closed windows in its own
        // thread, after its merge (rows that came were not late, so no
        // group merged now closes: the order is Spark's)
        let vectorized = self.mode == OutputMode::Append;
        let take_bound = match (self.event_time, watermark_us) {
            (Some(_), Some(wm)) if vectorized && self.time_keyed => {
                Some(time_prefix(wm.saturating_add(1)))
            }
            _ => None,
        };
        type Done = (Updated, Option<Updated>, Duration);
        let job = |store: &mut dyn StateStore, items: Work| -> Result<Done> {
            let updated = merge.partition(store, items)?;
            let t = Instant::now();
            let taken = match &take_bound {
                Some(bound) => merge.take_below(store, bound)?,
                None => None,
            };
            Ok((updated, taken, t.elapsed()))
        };
        let total: usize = work.iter().map(Work::len).sum();
        let busy = total >= 256 || take_bound.is_some();
        let pairs: Vec<_> = self.state.stores_mut().iter_mut().zip(work).collect();
        let results: Vec<Done> = if busy && pairs.len() > 1 {
            parallel_map(pairs, |(store, items)| job(store.as_mut(), items))?
        } else {
            pairs
                .into_iter()
                .map(|(store, items)| job(store.as_mut(), items))
                .collect::<Result<_>>()?
        };
        let mut updated = Vec::with_capacity(results.len());
        let mut taken = Vec::with_capacity(results.len());
        // removal time as Spark counts it: summed over the partitions
        let (mut removing, mut longest) = (Duration::ZERO, Duration::ZERO);
        for (u, gone, d) in results {
            updated.push(u);
            taken.push(gone);
            removing += d;
            longest = longest.max(d);
        }
        self.metrics.rows_updated = updated.iter().map(|u| u.groups as u64).sum();
        self.metrics.all_updates_ms = t.elapsed().saturating_sub(longest).as_millis() as i64;

        let t = Instant::now();
        let mut emit: Vec<(Vec<u8>, Vec<ScalarValue>)> = Vec::new();
        if self.mode == OutputMode::Complete {
            for p in 0..self.state.len() {
                for (k, v) in self.state.store(p).entries()? {
                    emit.push((k, self.evaluate(&v)?));
                }
            }
        }
        // evict what the watermark has passed (append mode emits it now)
        let mut evicted: Vec<Updated> = Vec::new();
        let already = self.mode == OutputMode::Update && self.evicted_at == watermark_us;
        if let (Some(kind), Some(wm), false) = (self.event_time, watermark_us, already) {
            if self.mode == OutputMode::Update {
                self.evicted_at = watermark_us;
            }
            for (p, taken) in taken.into_iter().enumerate() {
                if let Some(gone) = taken {
                    self.metrics.rows_removed += gone.groups as u64;
                    evicted.push(gone);
                    continue;
                }
                let expired = self.expired(p, kind, wm)?;
                if vectorized {
                    // all of the partition's closed groups evaluated at once
                    let keys: Vec<&[u8]> = expired.iter().map(Vec::as_slice).collect();
                    let values = merge.evaluate_stored(self.state.store(p), &keys)?;
                    if self.time_keyed {
                        // they are the keys before the bound: one removal
                        let bound = time_prefix(wm.saturating_add(1));
                        self.state.store_mut(p).remove_below(&bound)?;
                    } else {
                        for k in &expired {
                            self.state.store_mut(p).remove(k);
                        }
                    }
                    self.metrics.rows_removed += expired.len() as u64;
                    evicted.push(Updated {
                        groups: expired.len(),
                        keys: expired.iter().collect(),
                        key_columns: None,
                        values,
                        existed: Vec::new(),
                        merged: None,
                    });
                    continue;
                }
                for k in expired {
                    if self.mode == OutputMode::Append {
                        if let Some(v) = self.state.store(p).get(&k)? {
                            let vals = self.evaluate(&v)?;
                            emit.push((k.clone(), vals));
                        }
                    }
                    self.state.store_mut(p).remove(&k);
                    self.metrics.rows_removed += 1;
                }
            }
        }
        self.metrics.all_removals_ms = (t.elapsed() + removing).as_millis() as i64;
        if self.mode == OutputMode::Update {
            return self.rows(&updated);
        }
        evicted.push(Updated::from_rows(emit, self.aggr.len())?);
        self.rows(&evicted)
    }

    /// Bytes of event-time prefix a stored key leads with.
    fn key_skip(&self) -> usize {
        if self.time_keyed {
            8
        } else {
            0
        }
    }

    /// Commit every partition's store (version = batches committed).
    pub fn commit(&mut self) -> Result<()> {
        self.metrics.commit_ms = self.state.commit()?;
        Ok(())
    }

    /// The `stateOperators` progress entry.
    pub fn progress(&self) -> serde_json::Value {
        let mut m = self.metrics.clone();
        m.rows_total = self.slices.as_ref().and_then(slices::Sliced::windows);
        self.state.progress("stateStoreSave", &m)
    }
}

/// Whether the aggregation's checkpoint at `dir` keeps its state by
/// window (written before sliding windows were kept by panes): it resumes so.
fn keeps_windows(dir: &std::path::Path) -> Result<bool> {
    Ok(StateLayout::recorded(dir, "default")?
        .and_then(|layout| layout.time)
        .is_some_and(|(name, _)| name.is_empty()))
}

impl StatefulOperator for StatefulAggregate {
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>) {
        // complete mode keeps every group and takes every row (Spark's
        // StateStoreSaveExec neither drops late rows nor evicts there); its
        // session windows still drop late rows, as Spark's session operator
        let complete = self.mode == OutputMode::Complete;
        let sessions = self.session.is_some();
        self.late_wm = late_us.filter(|_| !complete || sessions);
        self.evict_wm = evict_us.filter(|_| !complete);
    }
    fn commit(&mut self) -> Result<()> {
        StatefulAggregate::commit(self)
    }
    fn progress(&self) -> serde_json::Value {
        StatefulAggregate::progress(self)
    }
    fn acts_on_watermark(&self) -> bool {
        self.mode != OutputMode::Complete
    }
    fn take_late_rows(&mut self) -> Option<(Vec<RecordBatch>, SchemaRef)> {
        Some((
            std::mem::take(&mut self.late_rows),
            Arc::clone(&self.input_schema),
        ))
    }
}
