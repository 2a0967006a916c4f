//! `withWatermark(col, delay)`: a logical node that passes rows through and,
//! while a streaming query runs, records event-time statistics (min, max,
//! avg) of the rows that pass, from which the engine derives the watermark
//! (Spark's `EventTimeWatermark` / `EventTimeWatermarkExec`).

use super::operator::pass_through_node;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Int64Type, SchemaRef, TimeUnit};
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::Mutex;

use super::unary::{Shape, UnaryExec, UnaryMap};
use crate::error::{Error, Result};

/// Event-time statistics of the rows seen in one micro-batch (µs).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct EventTimeStats {
    /// Earliest event time.
    pub min: i64,
    /// Latest event time.
    pub max: i64,
    /// Sum of event times (for the average).
    pub sum: i128,
    /// Rows counted.
    pub count: u64,
}

impl EventTimeStats {
    fn add(&mut self, other: EventTimeStats) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.count += other.count;
    }

    /// Average event time, µs.
    pub fn avg(&self) -> Option<i64> {
        (self.count > 0).then(|| (self.sum / self.count as i128) as i64)
    }
}

/// The accumulator a running query reads after each batch.
#[derive(Debug, Default)]
pub struct StatsHandle(Mutex<EventTimeStats>);

impl StatsHandle {
    /// Take (and reset) the statistics gathered so far.
    pub fn take(&self) -> EventTimeStats {
        std::mem::take(&mut *self.0.lock())
    }

    fn record(&self, batch: &RecordBatch, column: usize) -> DFResult<()> {
        let col = batch.column(column);
        let micros = match col.data_type() {
            DataType::Timestamp(TimeUnit::Microsecond, _) => cast(col, &DataType::Int64)?,
            DataType::Timestamp(_, tz) => cast(
                &cast(col, &DataType::Timestamp(TimeUnit::Microsecond, tz.clone()))?,
                &DataType::Int64,
            )?,
            _ => return Ok(()),
        };
        let arr = micros.as_primitive::<Int64Type>();
        if arr.len() == arr.null_count() {
            return Ok(());
        }
        let (mut lo, mut hi, mut total, mut n) = (i64::MAX, i64::MIN, 0i128, 0u64);
        for (i, v) in arr.values().iter().enumerate() {
            if arr.is_valid(i) {
                lo = lo.min(*v);
                hi = hi.max(*v);
                total += *v as i128;
                n += 1;
            }
        }
        let stats = EventTimeStats {
            min: lo,
            max: hi,
            sum: total,
            count: n,
        };
        self.0.lock().add(stats);
        Ok(())
    }
}

/// Shared handle compared by identity (plan nodes need Eq/Hash/Ord).
#[derive(Debug, Clone, Default)]
pub struct SharedStats(pub Arc<StatsHandle>);

impl PartialEq for SharedStats {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for SharedStats {}
impl Hash for SharedStats {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.0) as usize).hash(state)
    }
}
impl PartialOrd for SharedStats {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (Arc::as_ptr(&self.0) as usize).partial_cmp(&(Arc::as_ptr(&other.0) as usize))
    }
}

/// The logical `withWatermark` node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct WatermarkNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// The event-time column.
    pub column: String,
    /// How late data may arrive, ms.
    pub delay_ms: i64,
    /// Where a running query collects event-time statistics.
    pub stats: SharedStats,
}

impl WatermarkNode {
    /// The same node with fresh statistics (one per running query).
    pub fn with_fresh_stats(&self) -> Self {
        WatermarkNode {
            stats: SharedStats::default(),
            ..self.clone()
        }
    }
}

pass_through_node!(WatermarkNode, |node, f| name: "EventTimeWatermark", explain: write!(f, "EventTimeWatermark: {}, delay={}ms", node.column, node.delay_ms), needs: node.event_time_index().map(|i| vec![i]),
    // as Spark's optimizer: a filter not on the event time runs below the
    // watermark, so the rows it drops do not move the watermark
    filters_stop_at: std::collections::HashSet::from([node.column.clone()]));

impl WatermarkNode {
    /// The event-time column's position in the input (as the physical
    /// planner finds it: the first of that name).
    fn event_time_index(&self) -> Option<usize> {
        self.input
            .schema()
            .fields()
            .iter()
            .position(|f| f.name() == &self.column)
    }
}

/// What the physical pass-through does: record each batch's event times.
#[derive(Debug)]
pub struct RecordEventTimes {
    column: usize,
    stats: Arc<StatsHandle>,
}

/// Physical pass-through that records event-time statistics.
pub type WatermarkExec = UnaryExec<RecordEventTimes>;

/// Pass `input` through, recording column `column`'s event times into `stats`.
pub fn watermark_exec(
    input: Arc<dyn ExecutionPlan>,
    column: usize,
    stats: Arc<StatsHandle>,
) -> WatermarkExec {
    UnaryExec::new(input, RecordEventTimes { column, stats })
}

impl UnaryMap for RecordEventTimes {
    fn name(&self) -> &str {
        "EventTimeWatermarkExec"
    }
    fn display(&self) -> String {
        format!("EventTimeWatermarkExec: column={}", self.column)
    }
    fn shape(&self) -> Shape {
        Shape::EachBatch
    }
    fn map(&self, mut batches: Vec<RecordBatch>, _input_schema: &SchemaRef) -> Result<RecordBatch> {
        // one batch at a time (Shape::EachBatch)
        let b = batches
            .pop()
            .ok_or_else(|| Error::Internal("no batch to watermark".into()))?;
        self.stats.record(&b, self.column)?;
        Ok(b)
    }
}

/// The output columns of `plan` that carry a watermark (name, delay ms),
/// followed through projections, renames and aliases (Spark tracks the
/// watermark on the attribute).
pub fn watermarks_under(plan: &LogicalPlan) -> Vec<(String, i64)> {
    let from_inputs = || -> Vec<(String, i64)> {
        plan.inputs()
            .into_iter()
            .flat_map(watermarks_under)
            .collect()
    };
    match plan {
        LogicalPlan::Extension(ext) => {
            let mut out = from_inputs();
            if let Some(wm) = ext.node.as_any().downcast_ref::<WatermarkNode>() {
                out.push((wm.column.clone(), wm.delay_ms));
            }
            let any = ext.node.as_any();
            if let Some(Some(processor)) = any
                .downcast_ref::<super::group_state::GroupStateNode>()
                .map(|n| n.processor.as_ref())
            {
                // a processor's output keeps the watermark only on its
                // `eventTimeColumnName` (Spark re-assigns it there)
                let delay = out.iter().map(|(_, d)| *d).max().unwrap_or(0);
                return processor
                    .event_time_column
                    .iter()
                    .map(|c| (c.clone(), delay))
                    .collect();
            }
            out
        }
        LogicalPlan::Projection(p) => {
            let below = watermarks_under(&p.input);
            p.expr
                .iter()
                .filter_map(|e| {
                    let (inner, name) = match e {
                        Expr::Alias(a) => (a.expr.as_ref(), a.name.clone()),
                        Expr::Column(c) => (e, c.name.clone()),
                        _ => return None,
                    };
                    let Expr::Column(c) = inner else { return None };
                    below
                        .iter()
                        .find(|(n, _)| *n == c.name)
                        .map(|(_, d)| (name, *d))
                })
                .collect()
        }
        // other nodes keep the columns of their inputs that they output
        _ => from_inputs()
            .into_iter()
            .filter(|(n, _)| plan.schema().has_column_with_unqualified_name(n))
            .collect(),
    }
}
