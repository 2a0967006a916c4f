//! The streaming aggregation in the plan: its logical node (opened by the
//! engine) and the physical node that runs it per batch.

use super::*;

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
    pub(super) schema: DFSchemaRef,
    /// The running query's operator (opened once the query has planned it).
    pub slot: OperatorSlot<StatefulAggregate>,
    /// What opening it needs, from the engine's opening until planning.
    pub(super) opening: ByIdentity<Mutex<Option<AggOpening>>>,
}

impl StatefulAggNode {
    /// The marker over `aggregate`, with a new operator slot.
    pub fn new(aggregate: LogicalPlan) -> Self {
        StatefulAggNode {
            schema: Arc::clone(aggregate.schema()),
            input: aggregate,
            slot: OperatorSlot::empty(),
            opening: ByIdentity(Arc::new(Mutex::new(None))),
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
            opening: self.opening.clone(),
        })
    }
}

/// The physical streaming aggregation of one batch.
#[derive(Debug)]
pub struct StatefulAggExec {
    /// DataFusion's planned aggregate, and what the optimizer put above it
    /// (a projection of common subexpressions, ...).
    pub input: Arc<dyn ExecutionPlan>,
    /// The aggregate in `input`, taken apart.
    pub(super) parts: AggregateParts,
    /// The running query's operator.
    pub slot: OperatorSlot<StatefulAggregate>,
    pub(super) properties: Arc<datafusion::physical_plan::PlanProperties>,
}

impl StatefulAggExec {
    /// Plan `node` over its planned aggregate.
    pub fn new(
        node: &StatefulAggNode,
        input: Arc<dyn ExecutionPlan>,
    ) -> datafusion::common::Result<Self> {
        Self::over(input, node.slot.clone())
    }

    fn over(
        input: Arc<dyn ExecutionPlan>,
        slot: OperatorSlot<StatefulAggregate>,
    ) -> datafusion::common::Result<Self> {
        use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
        let parts = find_aggregate(&input).ok_or_else(|| {
            datafusion::error::DataFusionError::Internal(
                "a streaming aggregation without its aggregate".into(),
            )
        })?;
        let properties = Arc::new(datafusion::physical_plan::PlanProperties::new(
            datafusion::physical_expr::EquivalenceProperties::new(input.schema()),
            datafusion::physical_plan::Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Ok(StatefulAggExec {
            input,
            parts,
            slot,
            properties,
        })
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
        Ok(Arc::new(StatefulAggExec::over(
            children.swap_remove(0),
            self.slot.clone(),
        )?))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> datafusion::common::Result<datafusion::execution::SendableRecordBatchStream> {
        use datafusion::error::DataFusionError;
        use futures::TryStreamExt;
        let external = |e: Error| DataFusionError::External(Box::new(e));
        let (parts, slot, input) = (
            self.parts.clone(),
            self.slot.clone(),
            Arc::clone(&self.input),
        );
        let run = async move {
            // the aggregate's input, then the state's work off the async
            // workers, then what sits above the aggregate over its rows
            let rows = collect(Arc::clone(&parts.input), Arc::clone(&context)).await?;
            let top = Arc::clone(&parts.top);
            let ctx = Arc::clone(&context);
            let emitted = tokio::task::spawn_blocking(move || {
                slot.with(|agg| agg.process(&parts, rows, ctx))
            })
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
            .map_err(external)?;
            let emitted: Arc<dyn ExecutionPlan> =
                MemorySourceConfig::try_new_exec(&[emitted], top.schema(), None)?;
            let plan = replace(&input, &top, &emitted).map_err(external)?;
            datafusion::physical_plan::execute_stream(plan, context)
        };
        Ok(Box::pin(
            datafusion::physical_plan::stream::RecordBatchStreamAdapter::new(
                self.input.schema(),
                futures::stream::once(run).try_flatten(),
            ),
        ))
    }
}
