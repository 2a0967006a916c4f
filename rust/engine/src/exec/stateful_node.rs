//! The logical nodes whose operators keep state, behind one contract: the
//! engine opens each the same way ([`StatefulNode::open_stateful`]) and
//! finds them through [`as_stateful`], the one place that lists them.

use std::sync::Arc;

use datafusion::catalog::Session as CatalogSession;
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{LogicalPlan, UserDefinedLogicalNode};
use datafusion::physical_plan::ExecutionPlan;

use super::aggregate::StatefulAggNode;
use super::dedup::DedupNode;
use super::group_state::GroupStateNode;
use super::join::StreamJoinNode;
use super::limit::StreamLimitNode;
use super::operator::{OpenContext, OperatorControl};
use crate::error::Result;
use crate::plan::output_mode::OutputMode;

/// A node opened for a running query, and the loop's handle on its operator.
pub type Opened = (Arc<dyn UserDefinedLogicalNode>, Arc<dyn OperatorControl>);

/// A logical node whose operator keeps state.
pub trait StatefulNode {
    /// The inputs whose watermarked columns the operator reads.
    fn watermarked_inputs(&self) -> Vec<&LogicalPlan>;
    /// Open the operator (its state placed by `ctx`) for a query in `mode`.
    fn open_stateful(&self, ctx: &OpenContext, mode: OutputMode) -> Result<Opened>;
    /// The physical node over the planned `inputs` (the session's query
    /// planner asks, as DataFusion's extension planner).
    fn plan_physical(
        &self,
        inputs: &[Arc<dyn ExecutionPlan>],
        session: &dyn CatalogSession,
    ) -> DFResult<Arc<dyn ExecutionPlan>>;
}

/// `node` as a stateful node, if it is one.
pub fn as_stateful(node: &dyn UserDefinedLogicalNode) -> Option<&dyn StatefulNode> {
    let any = node.as_any();
    if let Some(n) = any.downcast_ref::<StatefulAggNode>() {
        return Some(n);
    }
    if let Some(n) = any.downcast_ref::<DedupNode>() {
        return Some(n);
    }
    if let Some(n) = any.downcast_ref::<StreamJoinNode>() {
        return Some(n);
    }
    if let Some(n) = any.downcast_ref::<GroupStateNode>() {
        return Some(n);
    }
    if let Some(n) = any.downcast_ref::<StreamLimitNode>() {
        return Some(n);
    }
    None
}

/// An opened node as the engine holds it.
fn opened<N: UserDefinedLogicalNode + 'static>(
    opened: Result<(N, Arc<dyn OperatorControl>)>,
) -> Result<Opened> {
    let (node, control) = opened?;
    Ok((Arc::new(node), control))
}

/// The contract of a node over one input whose `open` takes no output
/// mode, planned by `$plan(node, input)`.
macro_rules! over_one_input {
    ($node:ty, $plan:expr) => {
        impl StatefulNode for $node {
            fn watermarked_inputs(&self) -> Vec<&LogicalPlan> {
                vec![&self.input]
            }
            fn open_stateful(&self, ctx: &OpenContext, _mode: OutputMode) -> Result<Opened> {
                opened(self.open(ctx))
            }
            fn plan_physical(
                &self,
                inputs: &[Arc<dyn ExecutionPlan>],
                _session: &dyn CatalogSession,
            ) -> DFResult<Arc<dyn ExecutionPlan>> {
                let plan: fn(&$node, Arc<dyn ExecutionPlan>) -> DFResult<Arc<dyn ExecutionPlan>> =
                    $plan;
                plan(self, Arc::clone(&inputs[0]))
            }
        }
    };
}

over_one_input!(DedupNode, |node, input| Ok(Arc::new(super::dedup::plan(
    node, input
)?)));
over_one_input!(GroupStateNode, |node, input| Ok(Arc::new(
    super::group_state::plan(node, input)
)));
over_one_input!(StreamLimitNode, |node, input| Ok(Arc::new(
    super::limit::plan(node, input)
)));

impl StatefulNode for StreamJoinNode {
    fn watermarked_inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.left, &self.right]
    }
    fn open_stateful(&self, ctx: &OpenContext, mode: OutputMode) -> Result<Opened> {
        self.check_output_mode(mode)?;
        opened(self.open(ctx))
    }
    fn plan_physical(
        &self,
        inputs: &[Arc<dyn ExecutionPlan>],
        session: &dyn CatalogSession,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let (left, right) = (Arc::clone(&inputs[0]), Arc::clone(&inputs[1]));
        Ok(Arc::new(super::join::plan(self, left, right, session)?))
    }
}
