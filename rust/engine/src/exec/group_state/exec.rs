//! The physical node that runs per-key state over each batch: a
//! [`UnaryExec`] that takes the whole input (a key is called once per batch).

use super::*;
use crate::exec::unary::{Shape, UnaryExec, UnaryMap};

/// The running query's operator as the physical node maps the input.
#[derive(Debug)]
pub struct GroupStateMap {
    slot: OperatorSlot<GroupStateOp>,
    schema: SchemaRef,
}

/// The physical group-state node.
pub type GroupStateExec = UnaryExec<GroupStateMap>;

/// Plan `node` over its physical `input`.
pub fn plan(node: &GroupStateNode, input: Arc<dyn ExecutionPlan>) -> GroupStateExec {
    UnaryExec::new(
        input,
        GroupStateMap {
            slot: node.slot.clone(),
            schema: Arc::new(node.output.as_arrow().clone()),
        },
    )
}

impl UnaryMap for GroupStateMap {
    fn name(&self) -> &str {
        "FlatMapGroupsInPandasWithStateExec"
    }
    fn shape(&self) -> Shape {
        Shape::WholeInputAs(Arc::clone(&self.schema))
    }
    fn map(&self, batches: Vec<RecordBatch>, input_schema: &SchemaRef) -> Result<RecordBatch> {
        self.slot.with(|op| op.process(&batches, input_schema))
    }
}
