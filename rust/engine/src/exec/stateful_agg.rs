//! Streaming aggregation (Spark's `StateStoreRestoreExec` + `StateStoreSaveExec`).
//!
//! Per micro-batch, DataFusion plans the query; this operator takes the plan's
//! aggregate apart: it runs the aggregate's input, drops rows behind the
//! watermark, lets DataFusion compute *partial* aggregate states for the
//! batch, and merges them per group key into the stored accumulator states
//! (ARCHITECTURE.md decision 2: any DataFusion aggregate streams). It then
//! emits rows for the output mode and hands them to the rest of the plan in
//! place of the aggregate.

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
use super::operator::{blocking_batch, time_prefix, OperatorSlot, StatefulOperator};
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

/// How a group key carries event time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventTimeKey {
    /// A `window` struct at this key position: its `end` is compared.
    Window(usize),
    /// A timestamp at this key position.
    Timestamp(usize),
}

/// A sliding window aggregated by panes (`window_pane`): the key position of
/// the pane and the window's shape, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaneSpec {
    /// Position of the pane among the group keys.
    pub key: usize,
    /// Window size.
    pub size: i64,
    /// Window slide.
    pub slide: i64,
    /// Window start offset.
    pub start: i64,
}

impl PaneSpec {
    /// The sliding window of the aggregation `aggregate` groups by at key
    /// `key` (named `name`), if that key is its own `window_pane(ts, size,
    /// slide, start)` (a pane computed below an earlier aggregation reaches
    /// this one as that aggregation's window).
    pub fn of(aggregate: &LogicalPlan, key: usize, name: &str) -> Option<Self> {
        let origin = column_origin::origin(aggregate, name)?;
        let Expr::ScalarFunction(f) = &origin.expr else {
            return None;
        };
        if f.func.name() != "window_pane" || origin.aggregations != 1 {
            return None;
        }
        let (size, slide, start) = pane_args(&f.args)?;
        Some(PaneSpec {
            key,
            size,
            slide,
            start,
        })
    }

    /// Starts of the windows holding the pane that starts at `pane_start`.
    fn windows(&self, pane_start: i64) -> Vec<i64> {
        windows_of_pane(pane_start, self.size, self.slide, self.start)
    }
}

/// `(size, slide, start)` from literal `window_pane` arguments.
fn pane_args(args: &[Expr]) -> Option<(i64, i64, i64)> {
    let lit = |e: &Expr| match e {
        Expr::Literal(v, _) => match v.cast_to(&DataType::Int64).ok()? {
            ScalarValue::Int64(x) => x,
            _ => None,
        },
        _ => None,
    };
    Some((lit(args.get(1)?)?, lit(args.get(2)?)?, lit(args.get(3)?)?))
}

/// The aggregate of a planned batch, taken apart.
pub struct AggregateParts {
    /// The aggregate node (its output schema is what the operator emits).
    pub top: Arc<dyn ExecutionPlan>,
    /// The aggregate's raw input.
    pub input: Arc<dyn ExecutionPlan>,
    /// Grouping, over `input`'s schema.
    pub group_by: PhysicalGroupBy,
    /// The aggregate functions.
    pub aggr: Vec<Arc<AggregateFunctionExpr>>,
    /// Their FILTER clauses.
    pub filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
}

/// Find the (single) aggregate in `plan` and its raw input.
pub fn find_aggregate(plan: &Arc<dyn ExecutionPlan>) -> Option<AggregateParts> {
    if let Some(agg) = plan.downcast_ref::<AggregateExec>() {
        return Some(match agg.mode() {
            AggregateMode::Partial | AggregateMode::PartialReduce => return None,
            AggregateMode::Single | AggregateMode::SinglePartitioned => AggregateParts {
                top: Arc::clone(plan),
                input: Arc::clone(agg.input()),
                group_by: agg.group_expr().clone(),
                aggr: agg.aggr_expr().to_vec(),
                filters: agg.filter_expr().to_vec(),
            },
            AggregateMode::Final | AggregateMode::FinalPartitioned => {
                let partial = find_partial(agg.input())?;
                let p = partial.downcast_ref::<AggregateExec>()?;
                AggregateParts {
                    top: Arc::clone(plan),
                    input: Arc::clone(p.input()),
                    group_by: p.group_expr().clone(),
                    aggr: p.aggr_expr().to_vec(),
                    filters: p.filter_expr().to_vec(),
                }
            }
        });
    }
    plan.children().into_iter().find_map(find_aggregate)
}

fn find_partial(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    if plan
        .downcast_ref::<AggregateExec>()
        .is_some_and(|a| *a.mode() == AggregateMode::Partial)
    {
        return Some(Arc::clone(plan));
    }
    plan.children().into_iter().find_map(find_partial)
}

/// `plan` with the node `target` replaced by `with`.
pub fn replace(
    plan: &Arc<dyn ExecutionPlan>,
    target: &Arc<dyn ExecutionPlan>,
    with: &Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if Arc::ptr_eq(plan, target) {
        return Ok(Arc::clone(with));
    }
    let children = plan.children();
    if children.is_empty() {
        return Ok(Arc::clone(plan));
    }
    let new_children = children
        .into_iter()
        .map(|c| replace(c, target, with))
        .collect::<Result<Vec<_>>>()?;
    Ok(
        datafusion::physical_plan::execution_plan::replace_children_if_necessary(
            Arc::clone(plan),
            new_children,
        )?,
    )
}

type Accumulators = Vec<Box<dyn datafusion::logical_expr::Accumulator>>;

/// Fresh accumulators for `aggr`, with a stored state row merged in.
fn accumulators_for(
    aggr: &[Arc<AggregateFunctionExpr>],
    widths: &[usize],
    state: Option<&StateRow>,
) -> Result<Accumulators> {
    let mut accs = aggr
        .iter()
        .map(|a| a.create_accumulator())
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if let Some(row) = state {
        let mut at = 0;
        for (acc, w) in accs.iter_mut().zip(widths) {
            let arrays = row[at..at + w]
                .iter()
                .map(|v| v.to_array())
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&arrays)?;
            at += w;
        }
    }
    Ok(accs)
}

/// One partition's share of a batch's partial aggregation: the (partial
/// batch, row) of each partial row routed to it, and its stored key.
#[derive(Default, Clone)]
struct Work {
    rows: Vec<(u32, u32)>,
    keys: KeyBuffer,
}

impl Work {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn push(&mut self, batch: usize, row: usize, key: &[&[u8]]) {
        self.rows.push((batch as u32, row as u32));
        self.keys.push(key);
    }

    fn append(&mut self, other: Work) {
        self.rows.extend(other.rows);
        self.keys.append(other.keys);
    }
}

/// What merging a partition updated: its keys and, when they were asked
/// for (update mode emits them), their aggregate values as columns, one per
/// aggregate, in the keys' order.
#[derive(Default)]
struct Updated {
    keys: KeyBuffer,
    /// The keys decoded into the grouping columns, when the partition's
    /// task did it (in parallel with the others' instead of after them).
    key_columns: Option<Vec<ArrayRef>>,
    values: Vec<ArrayRef>,
    /// How many groups were updated (the keys may be left out).
    groups: usize,
}

impl Updated {
    /// From rows of (key, aggregate values), with `n` aggregates.
    fn from_rows(rows: Vec<(Vec<u8>, Vec<ScalarValue>)>, n: usize) -> Result<Self> {
        let (keys, values): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
        Ok(Updated {
            values: scalar_columns(&values, n)?,
            groups: keys.len(),
            keys: keys.into_iter().collect(),
            key_columns: None,
        })
    }
}

/// Rows of `n` values as `n` columns (none when the rows have no values).
fn scalar_columns(rows: &[Vec<ScalarValue>], n: usize) -> Result<Vec<ArrayRef>> {
    if rows.first().is_none_or(Vec::is_empty) {
        return Ok(Vec::new());
    }
    Ok((0..n)
        .map(|i| ScalarValue::iter_to_array(rows.iter().map(|v| v[i].clone())))
        .collect::<std::result::Result<Vec<_>, _>>()?)
}

/// Routes partial rows to the state partitions: each row's stored key (for
/// panes: one per window holding it that the watermark has not passed) and
/// the partition owning it.
struct Router<'a> {
    converter: &'a RowConverter,
    pane: Option<PaneSpec>,
    num_keys: usize,
    /// The key whose event time leads the stored key (time-keyed stores).
    time_key: Option<usize>,
    partitions: usize,
    late_us: Option<i64>,
}

impl Router<'_> {
    /// Each partition's work from all partial batches: split over `lanes`
    /// threads when there are many rows (encoding keys was a tenth of a
    /// sliding-window query, on one core), in the batches' order.
    fn route_all(&self, batches: &[RecordBatch], lanes: usize) -> Result<Vec<Work>> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        if lanes < 2 || batches.len() < 2 || rows < PARALLEL_ROWS {
            return self.route(batches, 0);
        }
        let chunk = batches.len().div_ceil(lanes);
        let chunks: Vec<(usize, &[RecordBatch])> = batches.chunks(chunk).enumerate().collect();
        let parts = parallel_map(chunks, |(c, bs)| self.route(bs, c * chunk))?;
        let mut work: Vec<Work> = vec![Work::default(); self.partitions];
        for part in parts {
            for (w, items) in work.iter_mut().zip(part) {
                w.append(items);
            }
        }
        Ok(work)
    }

    /// Each partition's work from `batches`, the first being partial batch `first`.
    fn route(&self, batches: &[RecordBatch], first: usize) -> Result<Vec<Work>> {
        let mut work: Vec<Work> = vec![Work::default(); self.partitions];
        for (bi, b) in batches.iter().enumerate() {
            let (source_rows, keys) = match self.pane {
                Some(pane) => self.pane_keys(b, pane)?,
                None => (None, b.columns()[..self.num_keys].to_vec()),
            };
            // a global aggregation (no keys): every row is the one group, its key empty
            let rows = (!keys.is_empty())
                .then(|| self.converter.convert_columns(&keys))
                .transpose()?;
            let times = match self.time_key {
                Some(i) => event_times(&keys[i])?,
                None => Vec::new(),
            };
            let mut key = Vec::new();
            let n = rows.as_ref().map_or(b.num_rows(), |rows| rows.num_rows());
            for r in 0..n {
                key.clear();
                if let Some(t) = times.get(r) {
                    // no event time: never closed (as without the index)
                    key.extend_from_slice(&time_prefix(t.unwrap_or(i64::MAX)));
                }
                if let Some(rows) = &rows {
                    key.extend_from_slice(rows.row(r).as_ref());
                }
                let src = source_rows.as_ref().map_or(r, |s| s[r] as usize);
                work[partition_for(&key, self.partitions)].push(first + bi, src, &[&key]);
            }
        }
        Ok(work)
    }

    /// Key columns of a partial batch with each pane row expanded into the
    /// windows holding it that the watermark has not passed, and for each
    /// expanded row the partial row it came from.
    fn pane_keys(
        &self,
        b: &RecordBatch,
        pane: PaneSpec,
    ) -> Result<(Option<Vec<u32>>, Vec<ArrayRef>)> {
        let starts = window_starts(b.column(pane.key))?;
        let (mut rows, mut window_starts_v) = (Vec::new(), Vec::new());
        // rows of a pane come together: its windows once per run of rows
        let mut last: Option<(i64, Vec<i64>)> = None;
        for (r, ps) in starts.iter().enumerate() {
            let Some(ps) = ps else { continue };
            if last.as_ref().is_none_or(|(p, _)| p != ps) {
                last = Some((*ps, pane.windows(*ps)));
            }
            for &w in last.iter().flat_map(|(_, ws)| ws) {
                if self.late_us.is_none_or(|wm| w + pane.size > wm) {
                    rows.push(r as u32);
                    window_starts_v.push(w);
                }
            }
        }
        let indices = arrow::array::UInt32Array::from(rows.clone());
        let mut keys = Vec::with_capacity(self.num_keys);
        for (i, c) in b.columns()[..self.num_keys].iter().enumerate() {
            keys.push(if i == pane.key {
                Arc::new(window_array(&window_starts_v, pane.size)?) as ArrayRef
            } else {
                arrow::compute::take(c.as_ref(), &indices, None)?
            });
        }
        Ok((Some(rows), keys))
    }
}

/// The stored states of some of a partition's groups, as columns.
struct Stored {
    columns: Vec<ArrayRef>,
    /// The group of each stored row.
    groups: Vec<usize>,
    /// Whether each group had a stored state.
    existed: Vec<bool>,
}

/// The aggregates and how their partial states lie in the partial batches.
struct Merge<'a> {
    partial: &'a [RecordBatch],
    aggr: &'a [Arc<AggregateFunctionExpr>],
    widths: &'a [usize],
    num_keys: usize,
    /// Whether to evaluate each updated key's aggregates.
    evaluate: bool,
    /// The stores' encoding of state rows: with it, states move between
    /// store and accumulators as bytes, column by column.
    codec: &'a Codec,
    /// The encoding of the grouping keys, after `key_skip` bytes of a
    /// stored key (its event-time prefix).
    converter: &'a RowConverter,
    key_skip: usize,
}

impl Merge<'_> {
    /// Stored keys as the grouping columns.
    fn key_columns(&self, keys: &KeyBuffer) -> Result<Vec<ArrayRef>> {
        parse_keys(self.converter, keys.iter(), self.key_skip)
    }

    /// Merge the partition's partial rows into its store.
    fn partition(&self, store: &mut dyn StateStore, items: Work) -> Result<Updated> {
        if items.is_empty() {
            return Ok(Updated::default());
        }
        if self.aggr.iter().all(|a| a.groups_accumulator_supported()) {
            self.by_groups(store, items)
        } else {
            self.by_key(store, items)
        }
    }

    /// The stored states of `keys` (one batched lookup, decoded in one
    /// pass when the store holds bytes).
    fn stored(&self, store: &dyn StateStore, keys: &[&[u8]]) -> Result<Stored> {
        let mut groups = Vec::new();
        let mut existed = vec![false; keys.len()];
        if let Some(conv) = &self.codec.conv {
            let mut bytes = arrow::array::BinaryBuilder::new();
            store.get_bytes_each(keys, &mut |g, v| {
                bytes.append_value(v);
                groups.push(g);
                existed[g] = true;
                Ok(())
            })?;
            let columns = if groups.is_empty() {
                Vec::new()
            } else {
                decode_rows(conv, &bytes.finish())?
            };
            return Ok(Stored {
                columns,
                groups,
                existed,
            });
        }
        // the stored rows as columns (values moved, not cloned)
        let mut columns: Vec<Vec<ScalarValue>> = vec![Vec::new(); self.widths.iter().sum()];
        for (g, key) in keys.iter().enumerate() {
            if let Some(row) = store.get(key)? {
                for (column, v) in columns.iter_mut().zip(row) {
                    column.push(v);
                }
                groups.push(g);
                existed[g] = true;
            }
        }
        let columns = if groups.is_empty() {
            Vec::new()
        } else {
            columns
                .into_iter()
                .map(ScalarValue::iter_to_array)
                .collect::<std::result::Result<Vec<_>, _>>()?
        };
        Ok(Stored {
            columns,
            groups,
            existed,
        })
    }

    /// All keys at once, with DataFusion's groups accumulators (one per
    /// aggregate, not one per key): stored states and partial rows are
    /// merged column by column.
    fn by_groups(&self, store: &mut dyn StateStore, items: Work) -> Result<Updated> {
        // foldhash: SipHash over a batch's keys was a twentieth of q5's time
        let mut group_of: hashbrown::HashMap<&[u8], usize, foldhash::fast::FixedState> =
            hashbrown::HashMap::with_capacity_and_hasher(items.len(), Default::default());
        let mut keys: Vec<&[u8]> = Vec::new();
        let mut by_batch: Vec<(Vec<u32>, Vec<usize>)> =
            vec![Default::default(); self.partial.len()];
        for (key, &(bi, r)) in items.keys.iter().zip(&items.rows) {
            let g = *group_of.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
            by_batch[bi as usize].0.push(r);
            by_batch[bi as usize].1.push(g);
        }
        drop(group_of);
        // groups in the order they came (a store that reads faster in key
        // order sorts its lookups itself)
        let n = keys.len();
        let stored = self.stored(store, &keys)?;
        // stored states and every partial row go into one merge per
        // aggregate: a groups accumulator takes the groups below its
        // `total_num_groups` as seen when a merge has no nulls, so a merge
        // of some groups first would make the others' null sums 0
        let mut sources: Vec<(usize, usize)> =
            Vec::with_capacity(stored.groups.len() + items.len());
        let mut group_indices: Vec<usize> = Vec::with_capacity(sources.capacity());
        sources.extend((0..stored.groups.len()).map(|i| (0, i)));
        group_indices.extend_from_slice(&stored.groups);
        for (bi, (rows, groups)) in by_batch.iter().enumerate() {
            sources.extend(rows.iter().map(|&r| (bi + 1, r as usize)));
            group_indices.extend_from_slice(groups);
        }
        let mut states: Vec<ArrayRef> = Vec::new();
        let mut at = 0;
        for (a, w) in self.aggr.iter().zip(self.widths) {
            let mut acc = a.create_groups_accumulator()?;
            let values = (0..*w)
                .map(|c| {
                    let empty;
                    let stored_col: &dyn Array = match stored.columns.get(at + c) {
                        Some(col) => col.as_ref(),
                        None => {
                            empty = arrow::array::new_empty_array(
                                self.partial[0].column(self.num_keys + at + c).data_type(),
                            );
                            empty.as_ref()
                        }
                    };
                    let mut from: Vec<&dyn Array> = vec![stored_col];
                    from.extend(
                        self.partial
                            .iter()
                            .map(|b| b.column(self.num_keys + at + c).as_ref()),
                    );
                    arrow::compute::interleave(&from, &sources)
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&values, &group_indices, n)?;
            states.extend(acc.state(EmitTo::All)?);
            at += w;
        }
        let mut values = Vec::new();
        if self.evaluate {
            let all: Vec<usize> = (0..n).collect();
            let mut at = 0;
            for (a, w) in self.aggr.iter().zip(self.widths) {
                let mut acc = a.create_groups_accumulator()?;
                acc.merge_batch(&states[at..at + w], &all, n)?;
                values.push(acc.evaluate(EmitTo::All)?);
                at += w;
            }
        }
        match &self.codec.conv {
            Some(conv) => {
                let rows = conv.convert_columns(&states)?;
                let rows: Vec<_> = rows.iter().collect();
                let encoded: Vec<&[u8]> = rows.iter().map(|r| r.as_ref()).collect();
                store.put_bytes_all(&keys, &encoded, &stored.existed)?;
            }
            None => {
                for (g, key) in keys.iter().enumerate() {
                    let row = states
                        .iter()
                        .map(|c| ScalarValue::try_from_array(c, g))
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    store.put(key.to_vec(), row)?;
                }
            }
        }
        // only update mode emits them
        let keys: KeyBuffer = match self.evaluate {
            true => keys.iter().collect(),
            false => KeyBuffer::default(),
        };
        let key_columns = match self.evaluate {
            true => Some(self.key_columns(&keys)?),
            false => None,
        };
        Ok(Updated {
            keys,
            key_columns,
            values,
            groups: n,
        })
    }

    /// The aggregate values of stored groups `keys` (closed windows being
    /// evicted), evaluated together with groups accumulators: a column per
    /// aggregate, in the keys' order.
    fn evaluate_stored(&self, store: &dyn StateStore, keys: &[&[u8]]) -> Result<Vec<ArrayRef>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let stored = self.stored(store, keys)?;
        self.evaluate(&stored, keys.len())
    }

    /// The groups a time-keyed store holds before `bound` (closed windows),
    /// with their aggregate values, then removed: one pass over the store's
    /// time index, no lookup per key (None: states not held as row bytes).
    fn take_below(&self, store: &mut dyn StateStore, bound: &[u8]) -> Result<Option<Updated>> {
        let Some(conv) = &self.codec.conv else {
            return Ok(None);
        };
        let mut keys = KeyBuffer::default();
        let mut bytes = arrow::array::BinaryBuilder::new();
        store.each_below(bound, &mut |k, v| {
            keys.push(&[k]);
            bytes.append_value(v);
            Ok(())
        })?;
        store.remove_below(bound)?;
        if keys.is_empty() {
            return Ok(Some(Updated::default()));
        }
        let stored = Stored {
            columns: decode_rows(conv, &bytes.finish())?,
            groups: (0..keys.len()).collect(),
            existed: Vec::new(),
        };
        let values = self.evaluate(&stored, keys.len())?;
        Ok(Some(Updated {
            groups: keys.len(),
            key_columns: Some(self.key_columns(&keys)?),
            keys,
            values,
        }))
    }

    /// The aggregate values of `n` groups from their stored states: a
    /// column per aggregate.
    fn evaluate(&self, stored: &Stored, n: usize) -> Result<Vec<ArrayRef>> {
        let mut values = Vec::with_capacity(self.aggr.len());
        let mut at = 0;
        for (a, w) in self.aggr.iter().zip(self.widths) {
            let mut acc = a.create_groups_accumulator()?;
            if !stored.groups.is_empty() {
                acc.merge_batch(&stored.columns[at..at + w], &stored.groups, n)?;
            }
            values.push(acc.evaluate(EmitTo::All)?);
            at += w;
        }
        Ok(values)
    }

    /// Key by key, with an accumulator per key (aggregates without groups
    /// accumulators).
    fn by_key(&self, store: &mut dyn StateStore, items: Work) -> Result<Updated> {
        let mut updated = Vec::with_capacity(items.len());
        for (key, &(bi, r)) in items.keys.iter().zip(&items.rows) {
            let (b, r) = (&self.partial[bi as usize], r as usize);
            let stored = store.get(key)?;
            let mut accs = accumulators_for(self.aggr, self.widths, stored.as_ref())?;
            let mut at = self.num_keys;
            for (acc, w) in accs.iter_mut().zip(self.widths) {
                let slice: Vec<ArrayRef> = b.columns()[at..at + w]
                    .iter()
                    .map(|c| c.slice(r, 1))
                    .collect();
                acc.merge_batch(&slice)?;
                at += w;
            }
            let mut state = Vec::new();
            for acc in accs.iter_mut() {
                state.extend(acc.state()?);
            }
            let values = if self.evaluate {
                accumulators_for(self.aggr, self.widths, Some(&state))?
                    .iter_mut()
                    .map(|a| a.evaluate())
                    .collect::<std::result::Result<Vec<_>, _>>()?
            } else {
                Vec::new()
            };
            store.put(key.to_vec(), state)?;
            updated.push((key.to_vec(), values));
        }
        // a key's later rows replace what its earlier ones reported
        updated.reverse();
        updated.sort_by(|a, b| a.0.cmp(&b.0));
        updated.dedup_by(|later, earlier| later.0 == earlier.0);
        Updated::from_rows(updated, self.aggr.len())
    }
}

/// Stored keys (their first `skip` bytes, an event-time prefix, left out)
/// as the grouping columns they encode.
fn parse_keys<'k>(
    converter: &RowConverter,
    keys: impl Iterator<Item = &'k [u8]>,
    skip: usize,
) -> Result<Vec<ArrayRef>> {
    let parser = converter.parser();
    Ok(converter.convert_rows(keys.map(|k| parser.parse(&k[skip..])))?)
}

/// A session of one key while merging: stored or new, and which stored keys it absorbed.
struct SessionPiece {
    start: i64,
    end: i64,
    state: StateRow,
    changed: bool,
    keys: Vec<Vec<u8>>,
}

/// The `Int64` at `i` of a stored row (session bounds).
fn int_at(row: &[ScalarValue], i: usize) -> i64 {
    match row.get(i) {
        Some(ScalarValue::Int64(Some(x))) => *x,
        _ => 0,
    }
}

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

/// Windows of `size` starting at `starts`.
fn window_array(starts: &[i64], size: i64) -> Result<arrow::array::StructArray> {
    let ends: Vec<i64> = starts.iter().map(|s| s + size).collect();
    Ok(window_struct(starts.to_vec().into(), ends.into(), None)?)
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
        spec.claim("stateStoreSave", &["default"])?;
        let time_keyed = event_time.is_some() && session.is_none();
        let key_field = |i: usize| Arc::new(out_schema.field(i).clone());
        StateLayout {
            // a session's key: the other keys, then its start
            key: (0..num_keys)
                .filter(|i| session.as_ref().is_none_or(|(si, _)| si != i))
                .map(key_field)
                .collect(),
            time: match (&session, time_keyed) {
                (Some(_), _) => Some(("session_start".to_string(), false)),
                (None, true) => Some((String::new(), true)),
                (None, false) => None,
            },
            value: value_fields.clone(),
            rows: None,
        }
        .record(spec, "default")?;
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
        let state = PartitionedState::open(provider, spec, &value_fields, order)?;
        Ok(StatefulAggregate {
            codec: Codec::new(&value_fields)?,
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
        accumulators_for(&self.aggr, &self.widths, state)
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
        task_ctx: Arc<TaskContext>,
    ) -> Result<Vec<RecordBatch>> {
        let (late_us, watermark_us) = (self.late_wm, self.evict_wm);
        self.metrics = OperatorMetrics::default();
        self.late_rows.clear();
        let input = block_on(collect(Arc::clone(&parts.input), Arc::clone(&task_ctx)))?
            .map_err(Error::from_execution)?;
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
        };
        let work = router.route_all(&partial_out, lanes)?;
        let merge = Merge {
            partial: &partial_out,
            aggr: &self.aggr,
            widths: &self.widths,
            num_keys: self.num_keys,
            evaluate: self.mode == OutputMode::Update,
            codec: &self.codec,
            converter: &self.converter,
            key_skip: self.key_skip(),
        };
        // append mode: each partition takes its closed windows in its own
        // thread, after its merge (rows that came were not late, so no
        // group merged now closes: the order is Spark's)
        let vectorized = self.mode == OutputMode::Append
            && self.aggr.iter().all(|a| a.groups_accumulator_supported());
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

    /// `b` without its rows behind the watermark (Spark: event time <= watermark
    /// is late), which are counted and kept for the late-data output. With
    /// panes, a row is late for each window holding its pane that the
    /// watermark has passed; it is dropped when all of them are.
    fn drop_late(
        &mut self,
        b: RecordBatch,
        parts: &AggregateParts,
        kind: EventTimeKey,
        wm: i64,
    ) -> Result<RecordBatch> {
        let idx = match kind {
            EventTimeKey::Window(i) | EventTimeKey::Timestamp(i) => i,
        };
        let (expr, _) = &parts.group_by.expr()[idx];
        let key_col = expr.evaluate(&b)?.into_array(b.num_rows())?;
        let pane = self.pane.filter(|p| p.key == idx);
        if self.none_late(&key_col, pane, wm)? {
            return Ok(b);
        }
        let (keep, late_count, late): (BooleanArray, usize, Option<RecordBatch>) = match pane {
            None => {
                let times = event_times(&key_col)?;
                let keep: BooleanArray = times
                    .iter()
                    .map(|t| Some(t.is_none_or(|t| t > wm)))
                    .collect();
                let n = keep.len() - keep.true_count();
                let late = if n > 0 {
                    Some(filter_record_batch(&b, &arrow::compute::not(&keep)?)?)
                } else {
                    None
                };
                (keep, n, late)
            }
            Some(pane) => {
                let starts = window_starts(&key_col)?;
                let mut keep = Vec::with_capacity(starts.len());
                // (row, window start) of each late pairing
                let (mut rows, mut late_starts) = (Vec::new(), Vec::new());
                // a batch holds few panes: their windows once each, not per row
                let mut by_pane: std::collections::HashMap<i64, (Vec<i64>, usize)> =
                    std::collections::HashMap::new();
                for (r, ps) in starts.iter().enumerate() {
                    let Some(ps) = ps else {
                        keep.push(true);
                        continue;
                    };
                    let (windows, n) = by_pane.entry(*ps).or_insert_with(|| {
                        let windows = pane.windows(*ps);
                        let n = windows.iter().filter(|w| *w + pane.size <= wm).count();
                        (windows, n)
                    });
                    let n = *n;
                    for w in &windows[..n] {
                        rows.push(r as u32);
                        late_starts.push(*w);
                    }
                    keep.push(n < windows.len());
                }
                let late = if rows.is_empty() {
                    None
                } else {
                    let taken = arrow::compute::take_record_batch(
                        &b,
                        &arrow::array::UInt32Array::from(rows),
                    )?;
                    Some(self.with_windows(taken, &late_starts, pane, expr.as_ref())?)
                };
                (keep.into(), late_starts.len(), late)
            }
        };
        if late_count == 0 {
            return Ok(b);
        }
        self.metrics.rows_dropped_by_watermark += late_count as u64;
        self.late_rows.extend(late);
        Ok(filter_record_batch(&b, &keep)?)
    }

    /// Whether no row of an event-time key column is late (the common case,
    /// told from its earliest time or pane without a pass per row).
    fn none_late(&self, key_col: &ArrayRef, pane: Option<PaneSpec>, wm: i64) -> Result<bool> {
        let column = match (pane, key_col.as_struct_opt()) {
            // a null window's start is no time: read every row then
            (Some(_), Some(st)) if st.logical_null_count() > 0 => return Ok(false),
            (Some(_), Some(st)) => st.column(0),
            _ => event_time_column(key_col)?,
        };
        let times = micros_array(column)?;
        let Some(earliest) = arrow::compute::min(times.as_primitive::<Int64Type>()) else {
            return Ok(true);
        };
        Ok(match pane {
            // a later pane's windows end no earlier
            Some(pane) => pane.windows(earliest).iter().all(|w| w + pane.size > wm),
            None => earliest > wm,
        })
    }

    /// `b` with its pane column (when it is one) replaced by the windows starting at `starts`.
    fn with_windows(
        &self,
        b: RecordBatch,
        starts: &[i64],
        pane: PaneSpec,
        expr: &dyn PhysicalExpr,
    ) -> Result<RecordBatch> {
        let Some(col) = expr.downcast_ref::<datafusion::physical_expr::expressions::Column>()
        else {
            return Ok(b);
        };
        let mut cols = b.columns().to_vec();
        cols[col.index()] = Arc::new(window_array(starts, pane.size)?);
        Ok(RecordBatch::try_new(b.schema(), cols)?)
    }

    /// Keys of partition `p` whose event time is at or below the watermark.
    /// Keys are ordered by their first column: when that is the event time,
    /// the scan stops at the first key still open.
    fn expired(&self, p: usize, kind: EventTimeKey, wm: i64) -> Result<Vec<Vec<u8>>> {
        if self.time_keyed {
            // keys lead with their event time: those before wm + 1
            return self
                .state
                .store(p)
                .keys_below(&time_prefix(wm.saturating_add(1)));
        }
        let leading = matches!(kind, EventTimeKey::Window(0) | EventTimeKey::Timestamp(0));
        let idx = match kind {
            EventTimeKey::Window(i) | EventTimeKey::Timestamp(i) => i,
        };
        let mut keys = self.state.store(p).keys();
        let mut out = Vec::new();
        // keys decoded in growing chunks: a scan that stops early (window
        // first) decodes little more than what expired
        let mut chunk_len = 64;
        loop {
            let chunk = keys
                .by_ref()
                .take(chunk_len)
                .collect::<Result<Vec<Cow<[u8]>>>>()?;
            chunk_len = (chunk_len * 2).min(4096);
            if chunk.is_empty() {
                break;
            }
            let parser = self.converter.parser();
            let rows: Vec<_> = chunk.iter().map(|k| parser.parse(k)).collect();
            let cols = self.converter.convert_rows(rows)?;
            let times = event_times(&cols[idx])?;
            for (k, t) in chunk.iter().zip(times) {
                if t.is_some_and(|t| t <= wm) {
                    out.push(k.to_vec());
                } else if leading {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// Merge two state rows of the same aggregates.
    fn merge_states(&self, a: &[ScalarValue], b: &[ScalarValue]) -> Result<StateRow> {
        let mut accs = self.accumulators_for(Some(&a.to_vec()))?;
        let mut at = 0;
        for (acc, w) in accs.iter_mut().zip(&self.widths) {
            let arrays = b[at..at + w]
                .iter()
                .map(|v| v.to_array())
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&arrays)?;
            at += w;
        }
        let mut state = Vec::new();
        for acc in accs.iter_mut() {
            state.extend(acc.state()?);
        }
        Ok(state)
    }

    /// Session windows (Spark's `MergingSessionsExec` + session state store):
    /// each partial row is a row's own session `[ts, ts + gap)` for a key; it
    /// is merged with the key's stored sessions wherever they overlap.
    fn process_sessions(
        &mut self,
        partial: &[RecordBatch],
        watermark_us: Option<i64>,
    ) -> Result<Vec<RecordBatch>> {
        let Some((si, prefix_conv)) = &self.session else {
            return Ok(vec![]);
        };
        let si = *si;
        let width: usize = self.widths.iter().sum();
        type Piece = (i64, i64, StateRow);
        let mut by_prefix: std::collections::BTreeMap<Vec<u8>, Vec<Piece>> =
            std::collections::BTreeMap::new();
        for b in partial {
            let others: Vec<ArrayRef> = (0..self.num_keys)
                .filter(|i| *i != si)
                .map(|i| Arc::clone(b.column(i)))
                .collect();
            // no other keys: every row shares the empty prefix (a converter
            // over no columns makes no rows)
            let prefixes = if others.is_empty() {
                None
            } else {
                Some(prefix_conv.convert_columns(&others)?)
            };
            let sess = b
                .column(si)
                .as_struct_opt()
                .ok_or_else(|| Error::Internal("session_window key is not a struct".into()))?;
            let starts = micros(sess.column(0))?;
            let ends = micros(sess.column(1))?;
            for r in 0..b.num_rows() {
                if sess.is_null(r) {
                    continue; // a row without a valid gap has no session
                }
                let (Some(start), Some(end)) = (starts[r], ends[r]) else {
                    continue;
                };
                let state = (self.num_keys..self.num_keys + width)
                    .map(|c| ScalarValue::try_from_array(b.column(c), r))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let prefix = prefixes
                    .as_ref()
                    .map_or_else(Vec::new, |p| p.row(r).as_ref().to_vec());
                by_prefix
                    .entry(prefix)
                    .or_default()
                    .push((start, end, state));
            }
        }
        let session_key = |prefix: &[u8], start: i64| {
            let mut k = prefix.to_vec();
            k.extend_from_slice(&time_prefix(start));
            k
        };
        let mut updated: Vec<Vec<u8>> = Vec::new();
        for (prefix, new) in by_prefix {
            let p = self.partition_of(&prefix);
            let stored = self.state.store(p).scan_prefix(&prefix)?;
            let mut all: Vec<SessionPiece> = stored
                .into_iter()
                .map(|(k, v)| SessionPiece {
                    start: int_at(&v, width),
                    end: int_at(&v, width + 1),
                    state: v[..width].to_vec(),
                    changed: false,
                    keys: vec![k],
                })
                .collect();
            all.extend(new.into_iter().map(|(start, end, state)| SessionPiece {
                start,
                end,
                state,
                changed: true,
                keys: vec![],
            }));
            all.sort_by_key(|x| x.start);
            let mut merged: Vec<SessionPiece> = Vec::new();
            for piece in all {
                match merged.last_mut() {
                    // sessions that touch are one (Spark: a start at the end merges)
                    Some(cur) if piece.start <= cur.end => {
                        cur.end = cur.end.max(piece.end);
                        cur.state = self.merge_states(&cur.state, &piece.state)?;
                        cur.changed = true;
                        cur.keys.extend(piece.keys);
                    }
                    _ => merged.push(piece),
                }
            }
            for piece in merged.into_iter().filter(|m| m.changed) {
                for k in &piece.keys {
                    self.state.store_mut(p).remove(k);
                }
                let key = session_key(&prefix, piece.start);
                let mut value = piece.state;
                value.push(ScalarValue::Int64(Some(piece.start)));
                value.push(ScalarValue::Int64(Some(piece.end)));
                self.state.store_mut(p).put(key.clone(), value)?;
                updated.push(key);
            }
        }
        self.metrics.rows_updated = updated.len() as u64;
        // what to emit, then evict sessions the watermark has passed
        let mut emit: Vec<(Vec<u8>, StateRow)> = Vec::new();
        match self.mode {
            OutputMode::Complete => {
                for p in 0..self.state.len() {
                    emit.extend(self.state.store(p).entries()?);
                }
            }
            OutputMode::Update => {
                for k in &updated {
                    let p = self.partition_of(&k[..k.len() - 8]);
                    if let Some(v) = self.state.store(p).get(k)? {
                        emit.push((k.clone(), v));
                    }
                }
            }
            OutputMode::Append => {}
        }
        if let Some(wm) = watermark_us {
            for p in 0..self.state.len() {
                let expired: Vec<(Vec<u8>, StateRow)> = self
                    .state
                    .store(p)
                    .entries()?
                    .into_iter()
                    .filter(|(_, v)| int_at(v, width + 1) <= wm)
                    .collect();
                for (k, v) in expired {
                    if self.mode == OutputMode::Append {
                        emit.push((k.clone(), v));
                    }
                    self.state.store_mut(p).remove(&k);
                    self.metrics.rows_removed += 1;
                }
            }
        }
        emit.sort_by(|a, b| a.0.cmp(&b.0));
        self.session_rows(emit, width)
    }

    fn session_rows(
        &self,
        emit: Vec<(Vec<u8>, StateRow)>,
        width: usize,
    ) -> Result<Vec<RecordBatch>> {
        let Some((si, prefix_conv)) = &self.session else {
            return Ok(vec![]);
        };
        if emit.is_empty() {
            return Ok(vec![]);
        }
        let parser = prefix_conv.parser();
        let rows: Vec<_> = emit
            .iter()
            .map(|(k, _)| parser.parse(&k[..k.len() - 8]))
            .collect();
        let others = prefix_conv.convert_rows(rows)?;
        let bound = |i: usize| -> arrow::array::TimestampMicrosecondArray {
            emit.iter()
                .map(|(_, v)| match &v[width + i] {
                    ScalarValue::Int64(x) => *x,
                    _ => None,
                })
                .collect::<arrow::array::TimestampMicrosecondArray>()
                .with_timezone("UTC")
        };
        let session = arrow::array::StructArray::try_new(
            match self.out_schema.field(*si).data_type() {
                DataType::Struct(f) => f.clone(),
                _ => {
                    return Err(Error::Internal(
                        "session_window column is not a struct".into(),
                    ))
                }
            },
            vec![Arc::new(bound(0)), Arc::new(bound(1))],
            None,
        )?;
        let mut cols: Vec<ArrayRef> = Vec::new();
        let mut other = others.into_iter();
        for i in 0..self.num_keys {
            cols.push(if i == *si {
                Arc::new(session.clone())
            } else {
                other
                    .next()
                    .ok_or_else(|| Error::Internal("session key columns".into()))?
            });
        }
        let values = emit
            .iter()
            .map(|(_, v)| self.evaluate(&v[..width].to_vec()))
            .collect::<Result<Vec<_>>>()?;
        self.output_batch(cols, scalar_columns(&values, self.aggr.len())?)
    }

    /// The aggregate's output rows: key columns plus one column per aggregate,
    /// cast to the aggregate's schema.
    fn output_batch(&self, keys: Vec<ArrayRef>, values: Vec<ArrayRef>) -> Result<Vec<RecordBatch>> {
        let cols = keys
            .into_iter()
            .chain(values)
            .enumerate()
            .map(|(i, c)| {
                let want = self.out_schema.field(i).data_type();
                Ok(if c.data_type() == want {
                    c
                } else {
                    cast(&c, want)?
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![RecordBatch::try_new(
            Arc::clone(&self.out_schema),
            cols,
        )?])
    }

    /// The rows of `parts` (keys with their aggregate values), in key order.
    fn rows(&self, parts: &[Updated]) -> Result<Vec<RecordBatch>> {
        // a part with keys has a column per aggregate
        let parts: Vec<&Updated> = parts.iter().filter(|u| !u.keys.is_empty()).collect();
        let skip = self.key_skip();
        let key = |(p, i): &(usize, usize)| &parts[*p].keys.get(*i)[skip..];
        let order: Vec<(usize, usize)> = if self.time_keyed {
            // in event-time order, a time's keys as they came: sorting
            // whole keys was a fifth of a sliding-window query's time
            let mut timed: Vec<(u64, u32, u32)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, u)| {
                    u.keys
                        .iter()
                        .enumerate()
                        .map(move |(i, k)| (time_of(k), p as u32, i as u32))
                })
                .collect();
            timed.sort_by_key(|t| t.0);
            timed
                .into_iter()
                .map(|(_, p, i)| (p as usize, i as usize))
                .collect()
        } else {
            let mut order: Vec<(usize, usize)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, u)| (0..u.keys.len()).map(move |i| (p, i)))
                .collect();
            order.sort_unstable_by(|a, b| key(a).cmp(key(b)));
            order
        };
        if order.is_empty() {
            return Ok(vec![]);
        }
        let decoded: Option<Vec<&[ArrayRef]>> =
            parts.iter().map(|u| u.key_columns.as_deref()).collect();
        let keys = match decoded {
            // decoded by the partitions' tasks: gathered in order
            Some(decoded) => (0..decoded.first().map_or(0, |d| d.len()))
                .map(|c| {
                    let sources: Vec<&dyn Array> = decoded.iter().map(|d| d[c].as_ref()).collect();
                    Ok(arrow::compute::interleave(&sources, &order)?)
                })
                .collect::<Result<Vec<_>>>()?,
            None => parse_keys(
                &self.converter,
                order.iter().map(|&(p, i)| parts[p].keys.get(i)),
                skip,
            )?,
        };
        let values = (0..self.aggr.len())
            .map(|a| {
                let sources = parts
                    .iter()
                    .map(|u| u.values.get(a).map(|c| c.as_ref() as &dyn Array))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| Error::Internal("updated keys without values".into()))?;
                Ok(arrow::compute::interleave(&sources, &order)?)
            })
            .collect::<Result<Vec<_>>>()?;
        self.output_batch(keys, values)
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
        self.state.progress("stateStoreSave", &self.metrics)
    }
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
}

/// A global aggregation's partial rows come from DataFusion's accumulators
/// without groups, whose `avg` over no values states count 0 with a null sum;
/// the groups accumulators they merge into take a non-null count as a value
/// seen (0 / 0: NaN where Spark gives null). There an avg's count is null
/// where its sum is, as the groups accumulators state it.
fn unseen_avg_counts_null(
    batch: &RecordBatch,
    aggr: &[Arc<AggregateFunctionExpr>],
) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    let mut at = 0;
    for a in aggr {
        let fields = a.state_fields()?;
        let width = fields.len();
        let is = |i: usize, part: &str| fields[i].name().ends_with(&format!("[{part}]"));
        if a.fun().name() == "avg" && width == 2 && is(0, "count") && is(1, "sum") {
            let (count, sum) = (&columns[at], &columns[at + 1]);
            if sum.null_count() > count.null_count() {
                let nulls = arrow::buffer::NullBuffer::union(
                    count.logical_nulls().as_ref(),
                    sum.logical_nulls().as_ref(),
                );
                columns[at] = Arc::new(arrow::array::make_array(
                    count.to_data().into_builder().nulls(nulls).build()?,
                ));
            }
        }
        at += width;
    }
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// The logical marker of a streaming aggregation: its input is the
/// `Aggregate`, which DataFusion plans; [`StatefulAggExec`] runs it against
/// the state (Spark's `StateStoreRestore`/`StateStoreSave` around it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StatefulAggNode {
    /// The `Aggregate`.
    pub input: LogicalPlan,
    /// The aggregate's output, fixed: the node turns panes into windows, so
    /// an expression over its output must not be computed below it (this
    /// schema is what stops DataFusion pushing `window.start` down to the
    /// panes).
    schema: DFSchemaRef,
    /// The running query's operator (opened once the query has planned it).
    pub slot: OperatorSlot<StatefulAggregate>,
}

impl StatefulAggNode {
    /// The marker over `aggregate`, with a new operator slot.
    pub fn new(aggregate: LogicalPlan) -> Self {
        StatefulAggNode {
            schema: Arc::clone(aggregate.schema()),
            input: aggregate,
            slot: OperatorSlot::empty(),
        }
    }
}

impl PartialOrd for StatefulAggNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.input.partial_cmp(&other.input)
    }
}

impl datafusion::logical_expr::UserDefinedLogicalNodeCore for StatefulAggNode {
    fn name(&self) -> &str {
        "StateStoreSave"
    }
    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }
    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }
    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }
    fn fmt_for_explain(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "StateStoreSave")
    }
    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> datafusion::common::Result<Self> {
        Ok(StatefulAggNode {
            input: inputs.swap_remove(0),
            schema: Arc::clone(&self.schema),
            slot: self.slot.clone(),
        })
    }
}

/// The physical streaming aggregation of one batch.
#[derive(Debug)]
pub struct StatefulAggExec {
    /// DataFusion's planned aggregate (taken apart each batch).
    pub input: Arc<dyn ExecutionPlan>,
    /// The aggregate's logical plan (for its window shape).
    pub logical: Arc<LogicalPlan>,
    /// The running query's operator.
    pub slot: OperatorSlot<StatefulAggregate>,
    properties: Arc<datafusion::physical_plan::PlanProperties>,
}

impl StatefulAggExec {
    /// Plan `node` over its planned aggregate.
    pub fn new(node: &StatefulAggNode, input: Arc<dyn ExecutionPlan>) -> Self {
        use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
        let properties = Arc::new(datafusion::physical_plan::PlanProperties::new(
            datafusion::physical_expr::EquivalenceProperties::new(input.schema()),
            datafusion::physical_plan::Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        StatefulAggExec {
            input,
            logical: Arc::new(node.input.clone()),
            slot: node.slot.clone(),
            properties,
        }
    }
}

impl datafusion::physical_plan::DisplayAs for StatefulAggExec {
    fn fmt_as(
        &self,
        _t: datafusion::physical_plan::DisplayFormatType,
        f: &mut std::fmt::Formatter,
    ) -> std::fmt::Result {
        write!(f, "StateStoreSaveExec")
    }
}

impl ExecutionPlan for StatefulAggExec {
    fn name(&self) -> &str {
        "StateStoreSaveExec"
    }

    fn properties(&self) -> &Arc<datafusion::physical_plan::PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> datafusion::common::Result<TreeNodeRecursion>,
    ) -> datafusion::common::Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(StatefulAggExec {
            input: children.swap_remove(0),
            logical: Arc::clone(&self.logical),
            slot: self.slot.clone(),
            properties: Arc::clone(&self.properties),
        }))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> datafusion::common::Result<datafusion::execution::SendableRecordBatchStream> {
        use datafusion::error::DataFusionError;
        let parts = find_aggregate(&self.input).ok_or_else(|| {
            DataFusionError::Internal("a streaming aggregation without its aggregate".into())
        })?;
        let schema = self.input.schema();
        let (slot, input) = (self.slot.clone(), Arc::clone(&self.input));
        let out_schema = Arc::clone(&schema);
        Ok(blocking_batch(schema, move || {
            let emitted = slot.with(|agg| agg.process(&parts, Arc::clone(&context)))?;
            // what the optimizer put above the aggregate (a projection of
            // common subexpressions, ...) runs over the emitted rows
            let rows: Arc<dyn ExecutionPlan> =
                MemorySourceConfig::try_new_exec(&[emitted], parts.top.schema(), None)?;
            let plan = replace(&input, &parts.top, &rows)?;
            let batches = block_on(collect(plan, context))?.map_err(Error::from_execution)?;
            Ok(arrow::compute::concat_batches(&out_schema, &batches)?)
        }))
    }
}
