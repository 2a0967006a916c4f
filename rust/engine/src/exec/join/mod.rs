//! Stream-stream joins (Spark's `StreamingSymmetricHashJoinExec`).
//!
//! Both sides keep their rows in state, keyed by the equi-join key. Per
//! batch: each new left row is joined with the right rows in state, then
//! stored; each new right row is joined with the left rows in state (this
//! batch's included), then stored; so every matching pair is output once.
//! Rows behind the watermark are dropped. State is evicted when no future
//! row can match it: for a watermarked key column (a window or event time)
//! once the watermark passes it, and for a time-range condition such as
//! `r.ts BETWEEN l.ts AND l.ts + INTERVAL 1 HOUR` once the watermark passes
//! the row's time plus the range. Outer joins emit a row that never matched,
//! padded with nulls, when it is evicted; left semi joins emit a left row on
//! its first match.

mod condition;
mod exec;
mod generations;
mod key_groups;
mod node;
mod side_join;
mod side_state;

use condition::{durations_for_intervals, equi_pair, outer_name, split_conjunction, TimeBounds};
pub use exec::{plan, StreamJoinExec};
use generations::{key_hash, ByteList, Found, Generations};
pub(crate) use generations::{regroup, rows_in_state, ByteEntries};
use key_groups::{key_rows, times_of, Appends, KeyGroups};
pub use node::{Expiry, StreamJoinNode};
use side_join::{decode_rows, flags_read, split_by_partition, SideJob};
use side_state::SideState;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use parking_lot::Mutex;

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, RecordBatch, UInt32Array,
};
use arrow::buffer::NullBuffer;
use arrow::compute::{cast, concat_batches, filter_record_batch, take, take_record_batch};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef, TimeUnit};
use arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, DFSchemaRef, Result as DFResult, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    build_join_schema, BinaryExpr, Expr, ExprSchemable, JoinType, LogicalPlan, Operator,
    UserDefinedLogicalNodeCore,
};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    execute_stream, DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PhysicalExpr,
    PlanProperties,
};

use super::event_time::event_times;
use super::operator::{OpenContext, OperatorControl, OperatorSlot, StatefulOperator};
use crate::error::{Error, Result};
use crate::exec::watermark::watermarks_under;
use crate::state::partitioned::{
    partition_for, progress, OperatorMetrics, PartitionedState, StateLayout, StateTable,
};
use crate::state::{KeyOrder, StateStore};

/// A running query's stream-stream join.
pub struct StreamJoin {
    /// Why the join cannot run, which Spark says when it first runs (a side
    /// with two event-time columns).
    refusal: Option<String>,
    join_type: JoinType,
    left: SideState,
    right: SideState,
    /// The state version this batch writes (unique row ids in state keys).
    version: i64,
    /// Rows at or below it are late.
    watermark: Option<i64>,
    /// State at or below it is evicted.
    evict_wm: Option<i64>,
    metrics: OperatorMetrics,
    /// Time spent joining this batch's rows so far (its chunks').
    updating: std::time::Duration,
}

/// The physical expressions and schemas of a planned join.
#[derive(Debug)]
pub struct JoinExprs {
    left_schema: SchemaRef,
    right_schema: SchemaRef,
    left_keys: Vec<Arc<dyn PhysicalExpr>>,
    right_keys: Vec<Arc<dyn PhysicalExpr>>,
    /// Over the left columns followed by the right columns.
    filter: Option<Arc<dyn PhysicalExpr>>,
    /// Left columns followed by right columns, all nullable (outer rows).
    pair_schema: SchemaRef,
    /// Encodes either side's keys (the right ones cast to the left's types).
    key_conv: RowConverter,
    out_schema: SchemaRef,
    /// A left semi join (its right side joins first).
    semi: bool,
}

impl JoinExprs {
    fn side_schema(&self, left: bool) -> &SchemaRef {
        if left {
            &self.left_schema
        } else {
            &self.right_schema
        }
    }
}

impl StreamJoin {
    fn side(&mut self, left: bool) -> &mut SideState {
        if left {
            &mut self.left
        } else {
            &mut self.right
        }
    }

    /// Drop late rows of a side batch.
    fn drop_late(&mut self, b: RecordBatch, left: bool) -> Result<RecordBatch> {
        let (Some(wm), Some(col)) = (self.watermark, self.side(left).late_column) else {
            return Ok(b);
        };
        let keep: BooleanArray = times_of(&b, col)?
            .iter()
            .map(|t| Some(t.is_none_or(|t| t > wm)))
            .collect();
        let dropped = keep.len() - keep.true_count();
        if dropped == 0 {
            return Ok(b);
        }
        self.metrics.rows_dropped_by_watermark += dropped as u64;
        Ok(filter_record_batch(&b, &keep)?)
    }

    /// Join a batch of one side with the other side's state, store its rows,
    /// and return the output rows (pair schema, or left rows for semi): each
    /// partition's rows with that partition's stores, side by side.
    fn join_side(
        &mut self,
        b: &RecordBatch,
        left: bool,
        exprs: &Arc<JoinExprs>,
    ) -> Result<Vec<RecordBatch>> {
        let key_exprs = if left {
            &exprs.left_keys
        } else {
            &exprs.right_keys
        };
        let (keys, valid) = key_rows(b, key_exprs, &exprs.key_conv)?;
        let parts = split_by_partition(b, &keys, &valid, self.left.state.len())?;
        drop(keys);
        let expired_through = if left { None } else { self.evict_wm };
        let (this, other) = if left {
            (&mut self.left, &mut self.right)
        } else {
            (&mut self.right, &mut self.left)
        };
        let job = Arc::new(SideJob {
            parts,
            exprs: Arc::clone(exprs),
            left,
            join_type: self.join_type,
            this_conv: Arc::clone(&this.conv),
            other_conv: Arc::clone(&other.conv),
            this_gens: Arc::clone(&this.gens),
            other_gens: Arc::clone(&other.gens),
            expiry: this.expiry,
            expired_through,
        });
        let done = this
            .state
            .each_with(&mut other.state, b.num_rows(), move |p, _, theirs| {
                job.run(p, theirs)
            })?;
        let mut out = Vec::new();
        for part in done {
            out.extend(part.out);
            this.rows += part.added;
            self.metrics.rows_updated += part.added;
        }
        Ok(out)
    }

    /// Evict both sides' expired rows; outer joins emit the unmatched ones.
    fn evict(&mut self, exprs: &JoinExprs) -> Result<Vec<RecordBatch>> {
        let Some(wm) = self.evict_wm else {
            return Ok(vec![]);
        };
        let t = Instant::now();
        let mut out = Vec::new();
        for left in [true, false] {
            let emit = match self.join_type {
                JoinType::Left => left,
                JoinType::Right => !left,
                JoinType::Full => true,
                _ => false,
            };
            let side = if left {
                &mut self.left
            } else {
                &mut self.right
            };
            // each partition's generations, side by side
            let gens = Arc::clone(&side.gens);
            let parts = side.state.each(side.rows as usize, move |p, store| {
                let mut unmatched = ByteList::default();
                let removed = gens[p].lock().evict(store, wm, emit, &mut unmatched)?;
                Ok((removed, unmatched))
            })?;
            let (mut unmatched, mut removed) = (ByteList::default(), 0);
            for (n, rows) in parts {
                removed += n;
                unmatched.extend(&rows);
            }
            side.rows -= removed;
            self.metrics.rows_removed += removed;
            if unmatched.is_empty() {
                continue;
            }
            let own = decode_rows(&side.conv, unmatched.iter(), exprs.side_schema(left))?;
            let n = own.num_rows();
            let nulls = exprs
                .side_schema(!left)
                .fields()
                .iter()
                .map(|f| new_null_array(f.data_type(), n));
            let cols: Vec<ArrayRef> = if left {
                own.columns().iter().cloned().chain(nulls).collect()
            } else {
                nulls.chain(own.columns().iter().cloned()).collect()
            };
            out.push(RecordBatch::try_new(Arc::clone(&exprs.pair_schema), cols)?);
        }
        self.metrics.all_removals_ms += t.elapsed().as_millis() as i64;
        Ok(out)
    }
    /// One side's rows of a batch joined with the other side's state, and
    /// stored. One side goes first (the left, or the right in a semi join):
    /// the other side's rows of this batch then meet its rows in state, so
    /// every new pair is output once.
    fn join_input(
        &mut self,
        batches: Vec<RecordBatch>,
        left: bool,
        exprs: &Arc<JoinExprs>,
    ) -> Result<Vec<RecordBatch>> {
        if let Some(message) = &self.refusal {
            return Err(Error::analysis(
                "MULTIPLE_EVENT_TIME_COLUMNS",
                message.clone(),
            ));
        }
        let t = Instant::now();
        let b = concat_batches(exprs.side_schema(left), &batches)?;
        let b = self.drop_late(b, left)?;
        let out = self.join_side(&b, left, exprs)?;
        self.updating += t.elapsed();
        Ok(out)
    }

    /// The batch's output: the joined rows of both sides and the rows
    /// evicted unmatched (outer joins), in the output schema.
    fn finish(&mut self, mut out: Vec<RecordBatch>, exprs: &JoinExprs) -> Result<RecordBatch> {
        self.metrics.all_updates_ms = self.updating.as_millis() as i64;
        out.extend(self.evict(exprs)?);
        // pairs to the output schema (semi output is the left rows already)
        let out: Vec<RecordBatch> = out
            .into_iter()
            .map(|b| RecordBatch::try_new(Arc::clone(&exprs.out_schema), b.columns().to_vec()))
            .collect::<std::result::Result<_, _>>()?;
        Ok(concat_batches(&exprs.out_schema, &out)?)
    }
}

impl StatefulOperator for StreamJoin {
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>) {
        self.watermark = late_us;
        self.evict_wm = evict_us;
        self.metrics = OperatorMetrics::default();
        self.updating = std::time::Duration::ZERO;
    }

    fn commit(&mut self) -> Result<()> {
        let t = Instant::now();
        // a partition's two sides in one task, the partitions side by side:
        // each side's new generations written, then the stores committed
        let (lg, rg) = (Arc::clone(&self.left.gens), Arc::clone(&self.right.gens));
        self.left
            .state
            .each_with(&mut self.right.state, usize::MAX, move |p, left, right| {
                let (mut l, mut r) = (lg[p].lock(), rg[p].lock());
                l.write(left)?;
                r.write(right)?;
                left.commit()?;
                right.commit()?;
                l.committed(left)?;
                r.committed(right)
            })?;
        self.metrics.commit_ms = t.elapsed().as_millis() as i64;
        self.version += 1;
        Ok(())
    }

    fn progress(&self) -> serde_json::Value {
        let mut p = progress(
            "symmetricHashJoin",
            &[("left", &self.left.state), ("right", &self.right.state)],
            &self.metrics,
        );
        // the stores hold a value per generation; Spark counts the rows
        p["numRowsTotal"] = (self.left.rows + self.right.rows).into();
        // and the generations' indexes are memory the state takes too
        if let Some(m) = p["memoryUsedBytes"].as_u64() {
            p["memoryUsedBytes"] = (m + self.left.index_bytes() + self.right.index_bytes()).into();
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::IntervalMonthDayNano;
    use datafusion::prelude::{col, lit};

    fn interval(days: i32, nanos: i64) -> Expr {
        lit(ScalarValue::IntervalMonthDayNano(Some(
            IntervalMonthDayNano::new(0, days, nanos),
        )))
    }

    #[test]
    fn fixed_intervals_on_timestamps_become_durations_and_others_stay() {
        let schema = DFSchema::try_from(Schema::new(vec![
            Field::new(
                "ts",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Field::new("n", DataType::Int64, true),
        ]))
        .unwrap();
        let ten_s = col("ts").lt_eq(col("ts") + interval(0, 10_000_000_000));
        assert_eq!(
            durations_for_intervals(&ten_s, &schema),
            col("ts").lt_eq(col("ts") + lit(ScalarValue::DurationMicrosecond(Some(10_000_000))))
        );
        // a day follows the time zone's calendar; sub-µs is not exact: kept
        for kept in [col("ts") + interval(1, 0), col("ts") + interval(0, 1_500)] {
            assert_eq!(durations_for_intervals(&kept, &schema), kept);
        }
    }
}
