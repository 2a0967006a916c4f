//! `df.observe(name, *exprs)` on a stream (Spark's `CollectMetrics`): the
//! rows pass through unchanged, and after each micro-batch the aggregate
//! expressions are computed over the rows that passed, reported in the
//! batch's progress as `observedMetrics[name]`.

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use datafusion::common::{DFSchemaRef, Result as DFResult};
use datafusion::logical_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::ExecutionPlan;
use futures::StreamExt;
use parking_lot::Mutex;

/// The rows a batch passed through an observation, gathered for its metrics.
#[derive(Debug, Default)]
pub struct Observed(Mutex<Vec<RecordBatch>>);

impl Observed {
    /// This batch's rows so far; empties the gathering for the next one.
    pub fn take(&self) -> Vec<RecordBatch> {
        std::mem::take(&mut *self.0.lock())
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
    pub rows: Arc<Observed>,
}

impl PartialEq for ObserveNode {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.rows, &other.rows) && self.input == other.input
    }
}
impl Eq for ObserveNode {}
impl std::hash::Hash for ObserveNode {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        (Arc::as_ptr(&self.rows) as usize).hash(state);
    }
}
impl PartialOrd for ObserveNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

impl UserDefinedLogicalNodeCore for ObserveNode {
    fn name(&self) -> &str {
        "CollectMetrics"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "CollectMetrics: {}", self.name)
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        Ok(ObserveNode {
            input: inputs.swap_remove(0),
            ..self.clone()
        })
    }
}

/// The physical pass-through that gathers the rows.
#[derive(Debug)]
pub struct ObserveExec {
    input: Arc<dyn ExecutionPlan>,
    rows: Arc<Observed>,
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &ObserveNode, input: Arc<dyn ExecutionPlan>) -> ObserveExec {
    ObserveExec {
        input,
        rows: Arc::clone(&node.rows),
    }
}

impl datafusion::physical_plan::DisplayAs for ObserveExec {
    fn fmt_as(
        &self,
        _t: datafusion::physical_plan::DisplayFormatType,
        f: &mut fmt::Formatter,
    ) -> fmt::Result {
        write!(f, "CollectMetricsExec")
    }
}

impl ExecutionPlan for ObserveExec {
    fn name(&self) -> &str {
        "CollectMetricsExec"
    }

    fn properties(&self) -> &Arc<datafusion::physical_plan::PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(
            &Arc<dyn datafusion::physical_plan::PhysicalExpr>,
        ) -> DFResult<datafusion::common::tree_node::TreeNodeRecursion>,
    ) -> DFResult<datafusion::common::tree_node::TreeNodeRecursion> {
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(ObserveExec {
            input: children.swap_remove(0),
            rows: Arc::clone(&self.rows),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<datafusion::execution::TaskContext>,
    ) -> DFResult<datafusion::execution::SendableRecordBatchStream> {
        let stream = self.input.execute(partition, context)?;
        let schema = stream.schema();
        let rows = Arc::clone(&self.rows);
        let passed = stream.map(move |b| {
            let b = b?;
            rows.0.lock().push(b.clone());
            Ok(b)
        });
        Ok(Box::pin(
            datafusion::physical_plan::stream::RecordBatchStreamAdapter::new(schema, passed),
        ))
    }
}
