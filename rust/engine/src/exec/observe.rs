//! `df.observe(name, *exprs)` on a stream (Spark's `CollectMetrics`): the
//! rows pass through unchanged, and after each micro-batch the aggregate
//! expressions are computed over the rows that passed, reported in the
//! batch's progress as `observedMetrics[name]`.

use super::operator::pass_through_node;
use std::sync::Arc;

use arrow::array::RecordBatch;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;

use super::operator::{map_state, BatchOperator, MapStateExec, OperatorSlot, StatefulOperator};
use crate::error::Result;

/// The rows a batch passed through an observation, gathered for its
/// metrics: run as a [`BatchOperator`] (batches map to themselves), so the
/// physical node is a [`MapStateExec`]. It keeps nothing across batches.
#[derive(Debug, Default)]
pub struct Observer {
    rows: Vec<RecordBatch>,
}

impl Observer {
    /// This batch's rows; empties the gathering for the next one.
    pub fn take(&mut self) -> Vec<RecordBatch> {
        std::mem::take(&mut self.rows)
    }
}

impl StatefulOperator for Observer {
    fn begin_batch(&mut self, _late_us: Option<i64>, _evict_us: Option<i64>) {}
    fn commit(&mut self) -> Result<()> {
        Ok(())
    }
    fn progress(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

impl BatchOperator for Observer {
    type Params = ();
    const NAME: &'static str = "CollectMetricsExec";

    fn process(&mut self, b: &RecordBatch, _params: &()) -> Result<RecordBatch> {
        self.rows.push(b.clone());
        Ok(b.clone())
    }
}

/// The logical observation.
#[derive(Debug, Clone)]
pub struct ObserveNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// The metrics' name in `observedMetrics`.
    pub name: String,
    /// Aggregate expressions (named) over the rows.
    pub exprs: Vec<Expr>,
    /// Where the running query's batches gather (shared by plan copies).
    pub slot: OperatorSlot<Observer>,
}

impl PartialEq for ObserveNode {
    fn eq(&self, other: &Self) -> bool {
        self.slot == other.slot && self.input == other.input
    }
}
impl Eq for ObserveNode {}
impl std::hash::Hash for ObserveNode {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.slot.hash(state);
    }
}
impl PartialOrd for ObserveNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

pass_through_node!(ObserveNode, |node, f| name: "CollectMetrics", explain: write!(f, "CollectMetrics: {}", node.name));

impl ObserveNode {
    /// An observation of `input`'s rows.
    pub fn new(input: LogicalPlan, name: String, exprs: Vec<Expr>) -> Self {
        let slot = OperatorSlot::empty();
        *slot.0.lock() = Some(Observer::default());
        ObserveNode {
            input,
            name,
            exprs,
            slot,
        }
    }
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &ObserveNode, input: Arc<dyn ExecutionPlan>) -> MapStateExec<Observer> {
    map_state(input, (), node.slot.clone())
}
