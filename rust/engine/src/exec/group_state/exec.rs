//! The physical node that runs per-key state over each batch.

use super::*;

/// The physical operator: the whole batch's input, then one call.
#[derive(Debug)]
pub struct GroupStateExec {
    pub(super) input: Arc<dyn ExecutionPlan>,
    pub(super) slot: OperatorSlot<GroupStateOp>,
    pub(super) properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &GroupStateNode, input: Arc<dyn ExecutionPlan>) -> GroupStateExec {
    use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
    let schema: SchemaRef = Arc::new(node.output.as_arrow().clone());
    let properties = Arc::new(PlanProperties::new(
        datafusion::physical_expr::EquivalenceProperties::new(schema),
        datafusion::physical_plan::Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    GroupStateExec {
        input,
        slot: node.slot.clone(),
        properties,
    }
}

impl datafusion::physical_plan::DisplayAs for GroupStateExec {
    fn fmt_as(
        &self,
        _t: datafusion::physical_plan::DisplayFormatType,
        f: &mut fmt::Formatter,
    ) -> fmt::Result {
        write!(f, "FlatMapGroupsInPandasWithStateExec")
    }
}

impl ExecutionPlan for GroupStateExec {
    fn name(&self) -> &str {
        "FlatMapGroupsInPandasWithStateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(GroupStateExec {
            input: children.swap_remove(0),
            slot: self.slot.clone(),
            properties: Arc::clone(&self.properties),
        }))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<datafusion::execution::SendableRecordBatchStream> {
        let (slot, input) = (self.slot.clone(), Arc::clone(&self.input));
        // the whole input first (a key is called once per batch)
        Ok(blocking_batch(
            Arc::clone(self.properties.eq_properties.schema()),
            move || {
                let input_schema = input.schema();
                let batches = block_on(collect(input, context))?.map_err(Error::from_execution)?;
                slot.with(|op| op.process(&batches, &input_schema))
            },
        ))
    }
}
