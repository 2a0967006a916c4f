//! Streaming deduplication (Spark's `StreamingDeduplicateExec` and
//! `StreamingDeduplicateWithinWatermarkExec`).
//!
//! `dropDuplicates(cols)` keeps the first row of each key ever seen. When the
//! watermarked event-time column is among the keys, a key is forgotten once
//! the watermark passes its event time (later duplicates would be late and
//! dropped anyway); the stored key leads with that time, so eviction is an
//! ordered scan that stops at the first live key. Without it state grows
//! forever, as in Spark. `dropDuplicatesWithinWatermark(cols)` keeps a key
//! until the watermark passes its first event time plus the watermark delay.

use super::operator::pass_through_node;
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field};
use arrow::row::{RowConverter, SortField};
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;

use super::event_time::micros;
use super::operator::{
    map_state, time_prefix, BatchOperator, MapStateExec, OpenContext, OperatorControl,
    OperatorSlot, StatefulOperator,
};
use crate::error::{Error, Result};
use crate::exec::watermark::watermarks_under;
use crate::state::partitioned::{OperatorMetrics, PartitionedState, StateLayout};
use crate::state::{KeyOrder, StateStore};

/// The logical `dropDuplicates` / `dropDuplicatesWithinWatermark` of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct DedupNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// Key columns (all columns for `dropDuplicates()`).
    pub keys: Vec<String>,
    /// `dropDuplicatesWithinWatermark`.
    pub within_watermark: bool,
    /// The running query's operator.
    pub slot: OperatorSlot<Dedup>,
}

impl DedupNode {
    /// The input columns the deduplication reads itself: its keys and the
    /// watermarked columns (its event time); the others pass through, so
    /// those nobody reads after it are not decoded (None: a key not found).
    fn reads(&self) -> Option<Vec<usize>> {
        let schema = self.input.schema();
        let mut cols = self
            .keys
            .iter()
            .map(|k| schema.index_of_column_by_name(None, k))
            .collect::<Option<Vec<usize>>>()?;
        for (name, _) in watermarks_under(&self.input) {
            cols.extend(schema.index_of_column_by_name(None, &name));
        }
        Some(cols)
    }

    /// A node over `input` deduplicating on `keys` (columns of its schema).
    pub fn new(input: LogicalPlan, keys: Vec<String>, within_watermark: bool) -> Self {
        DedupNode {
            input,
            keys,
            within_watermark,
            slot: OperatorSlot::empty(),
        }
    }

    fn operator_name(&self) -> &'static str {
        if self.within_watermark {
            "dedupeWithinWatermark"
        } else {
            "dedupe"
        }
    }

    /// The node with its operator opened for a running query.
    pub fn open(&self, ctx: &OpenContext) -> Result<(Self, Arc<dyn OperatorControl>)> {
        // the event time: for plain dedup a watermarked key column; within
        // the watermark, the input's watermarked column (required)
        let time = ctx
            .watermarks
            .iter()
            .find(|(c, _)| self.within_watermark || self.keys.contains(c))
            .cloned();
        if self.within_watermark && time.is_none() {
            return Err(Error::analysis(
                "UNSUPPORTED_STREAMING_OPERATION",
                "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/Datasets without watermark: \
                 call withWatermark() before it.",
            ));
        }
        let schema = self.input.schema().as_arrow();
        let key_fields: Vec<SortField> = self
            .keys
            .iter()
            .filter(|k| self.within_watermark || Some(*k) != time.as_ref().map(|t| &t.0))
            .map(|k| {
                let f = schema.field_with_name(k)?;
                Ok(SortField::new(f.data_type().clone()))
            })
            .collect::<Result<Vec<_>>>()?;
        // the event time (within the watermark: the expiry) as 8 bytes, or none
        let value_fields = vec![Arc::new(Field::new("eventTime", DataType::Binary, true))];
        let time_in_key = !self.within_watermark && time.is_some();
        let layout = StateLayout {
            key: self
                .keys
                .iter()
                .filter(|k| !time_in_key || Some(*k) != time.as_ref().map(|t| &t.0))
                .map(|k| Ok(Arc::new(schema.field_with_name(k)?.clone())))
                .collect::<Result<Vec<_>>>()?,
            time: time
                .as_ref()
                .filter(|_| time_in_key)
                .map(|t| (t.0.clone(), true)),
            value: value_fields,
            rows: None,
        };
        // keys leading with event time are evicted by time; the others are
        // only looked up (within the watermark, eviction reads the values)
        let order = if time_in_key {
            KeyOrder::TimePrefixed
        } else {
            KeyOrder::Unordered
        };
        // with the event time not among the keys, Spark still drops the
        // input's late rows (at batch 0 the watermark is the epoch), though
        // no key is ever evicted
        let late_only = (!self.within_watermark && time.is_none())
            .then(|| ctx.watermarks.first().map(|(c, _)| c.clone()))
            .flatten();
        let dedup = Dedup {
            name: self.operator_name(),
            state: ctx.spec.open_table(
                ctx.provider.as_ref(),
                self.operator_name(),
                layout,
                order,
            )?,
            converter: RowConverter::new(key_fields)?,
            time_in_key,
            delay_us: time.as_ref().map(|t| t.1 * 1000),
            time_column: time.map(|t| t.0).or(late_only),
            watermark: None,
            evict_wm: None,
            metrics: OperatorMetrics::default(),
        };
        let node = DedupNode {
            slot: OperatorSlot::empty(),
            ..self.clone()
        };
        let control = node.slot.open(dedup);
        Ok((node, control))
    }
}

pass_through_node!(DedupNode, |node, f| name: if node.within_watermark { "DeduplicateWithinWatermark" } else { "Deduplicate" }, explain: write!(f, "{}: [{}]", if node.within_watermark { "DeduplicateWithinWatermark" } else { "Deduplicate" }, node.keys.join(", ")), needs: node.reads());

/// A running query's deduplication state.
pub struct Dedup {
    name: &'static str,
    state: PartitionedState,
    /// Encodes the key columns other than a leading event time.
    converter: RowConverter,
    /// Stored keys lead with the event time (evicted by ordered scan).
    time_in_key: bool,
    /// The watermark delay (µs): keys live until event time + delay within the watermark.
    delay_us: Option<i64>,
    time_column: Option<String>,
    /// Rows at or below it are late.
    watermark: Option<i64>,
    /// State at or below it is evicted.
    evict_wm: Option<i64>,
    metrics: OperatorMetrics,
}

impl Dedup {
    /// The rows of `b` not seen before (and not late), remembering them.
    fn process(
        &mut self,
        b: &RecordBatch,
        keys: &[usize],
        time: Option<usize>,
    ) -> Result<RecordBatch> {
        let t0 = Instant::now();
        let times = time.map(|i| micros(b.column(i))).transpose()?;
        let cols: Vec<ArrayRef> = keys
            .iter()
            .filter(|i| !(self.time_in_key && Some(**i) == time))
            .map(|i| Arc::clone(b.column(*i)))
            .collect();
        // no key columns besides the event time: every key is its time alone
        let rows = (!cols.is_empty())
            .then(|| self.converter.convert_columns(&cols))
            .transpose()?;
        let within = !self.time_in_key && self.delay_us.is_some();
        // each row's key and value, and the rows of each partition (in row
        // order, so the first of a batch's duplicates is the one kept)
        // sized up front: these grow by a row per input row
        let n = b.num_rows();
        let key_len =
            rows.as_ref().map_or(0, |r| r.size() / n.max(1)) + if self.time_in_key { 8 } else { 0 };
        let per_partition = n / self.state.len().max(1) + n / 16 + 16;
        let mut c = Candidates {
            keys: Vec::with_capacity(n * key_len),
            ends: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
            rows: Vec::with_capacity(n),
            by_partition: vec![Vec::with_capacity(per_partition); self.state.len()],
        };
        for r in 0..b.num_rows() {
            let t = times.as_ref().and_then(|ts| ts[r]);
            if let (Some(wm), Some(t)) = (self.watermark, t) {
                if t <= wm {
                    self.metrics.rows_dropped_by_watermark += 1;
                    continue;
                }
            }
            let start = c.keys.len();
            if self.time_in_key {
                c.keys
                    .extend_from_slice(&time_prefix(t.unwrap_or(i64::MIN)));
            }
            if let Some(rows) = &rows {
                c.keys.extend_from_slice(rows.row(r).as_ref());
            }
            c.ends.push(c.keys.len());
            // within the watermark the value is when the key expires; else
            // it is empty (Spark's is a null: a time in the key is there
            // already, and 8 bytes a key of millions)
            let value = if within {
                t.zip(self.delay_us).map(|(t, d)| t + d)
            } else {
                None
            };
            c.values.push(value.map(i64::to_be_bytes));
            c.rows.push(r as u32);
            let p = self.state.partition_of(&c.keys[start..]);
            c.by_partition[p].push((c.rows.len() - 1) as u32);
        }
        let rows = c.rows.len();
        let c = Arc::new(c);
        let fresh = self.state.each(rows, move |p, store| c.insert(p, store))?;
        let mut keep = vec![false; b.num_rows()];
        for r in fresh.iter().flatten() {
            keep[*r as usize] = true;
            self.metrics.rows_updated += 1;
        }
        self.metrics.all_updates_ms += t0.elapsed().as_millis() as i64;
        if keep.iter().all(|k| *k) {
            return Ok(b.clone());
        }
        Ok(filter_record_batch(b, &BooleanArray::from(keep))?)
    }

    fn evict(&mut self, wm: i64) -> Result<()> {
        let t = Instant::now();
        for p in 0..self.state.len() {
            let store = self.state.store_mut(p);
            if self.time_in_key {
                // keys lead with their event time: everything before wm + 1 goes
                let bound = time_prefix(wm.saturating_add(1));
                self.metrics.rows_removed += store.remove_below(&bound)? as u64;
                continue;
            }
            // within the watermark: keys whose stored expiry has passed,
            // read as bytes (no scalar per entry)
            let mut expired: Vec<Vec<u8>> = Vec::new();
            if self.delay_us.is_some() {
                for k in store.keys() {
                    let k = k?;
                    let passed = store
                        .get_bytes(&k)?
                        .and_then(|v| expires_at(&v))
                        .is_some_and(|e| e <= wm);
                    if passed {
                        expired.push(k.into_owned());
                    }
                }
            }
            for k in expired {
                store.remove(&k);
                self.metrics.rows_removed += 1;
            }
        }
        self.metrics.all_removals_ms += t.elapsed().as_millis() as i64;
        Ok(())
    }
}

/// A batch's rows that are not late: keys, values and partitions.
#[derive(Default)]
struct Candidates {
    /// Keys packed end to end; key i ends at `ends[i]`.
    keys: Vec<u8>,
    ends: Vec<usize>,
    /// The stored value: within the watermark the expiry, else none.
    values: Vec<Option<[u8; 8]>>,
    /// The batch row of each candidate.
    rows: Vec<u32>,
    /// Candidates of each partition, in row order.
    by_partition: Vec<Vec<u32>>,
}

impl Candidates {
    /// Store partition `p`'s keys not seen before; returns their rows.
    fn insert(&self, p: usize, store: &mut dyn StateStore) -> Result<Vec<u32>> {
        let mine = &self.by_partition[p];
        let (mut keys, mut values) = (
            Vec::with_capacity(mine.len()),
            Vec::with_capacity(mine.len()),
        );
        for i in mine.iter().map(|i| *i as usize) {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            keys.push(&self.keys[start..self.ends[i]]);
            values.push(self.values[i].as_ref().map_or(&[][..], |v| &v[..]));
        }
        let set = store.put_bytes_if_absent_all(&keys, &values)?;
        Ok(mine
            .iter()
            .zip(set)
            .filter(|(_, set)| *set)
            .map(|(i, _)| self.rows[*i as usize])
            .collect())
    }
}

/// The expiry (µs) a `dropDuplicatesWithinWatermark` value holds.
fn expires_at(v: &[u8]) -> Option<i64> {
    Some(i64::from_be_bytes(v.try_into().ok()?))
}

impl StatefulOperator for Dedup {
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>) {
        let timed = self.time_column.is_some();
        self.watermark = late_us.filter(|_| timed);
        self.evict_wm = evict_us.filter(|_| timed);
        self.metrics = OperatorMetrics::default();
    }

    fn commit(&mut self) -> Result<()> {
        if let Some(wm) = self.evict_wm {
            self.evict(wm)?;
        }
        self.metrics.commit_ms = self.state.commit()?;
        Ok(())
    }

    fn progress(&self) -> serde_json::Value {
        self.state.progress(self.name, &self.metrics)
    }
}

/// Where a batch's key and event-time columns are.
#[derive(Debug, Clone)]
pub struct DedupColumns {
    keys: Vec<usize>,
    time: Option<usize>,
}

impl BatchOperator for Dedup {
    type Params = DedupColumns;
    const NAME: &'static str = "StreamingDeduplicateExec";

    fn process(&mut self, b: &RecordBatch, p: &DedupColumns) -> Result<RecordBatch> {
        self.process(b, &p.keys, p.time)
    }
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &DedupNode, input: Arc<dyn ExecutionPlan>) -> DFResult<MapStateExec<Dedup>> {
    let schema = input.schema();
    let keys = node
        .keys
        .iter()
        .map(|k| schema.index_of(k))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let time_column = node
        .slot
        .0
        .lock()
        .as_ref()
        .and_then(|d| d.time_column.clone());
    let time = time_column.map(|c| schema.index_of(&c)).transpose()?;
    Ok(map_state(
        input,
        DedupColumns { keys, time },
        node.slot.clone(),
    ))
}
