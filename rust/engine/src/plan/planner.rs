//! The session's query planner: DataFusion's, plus sparklet's extension nodes.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::Session as CatalogSession;
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{LogicalPlan, UserDefinedLogicalNode};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_planner::{DefaultPhysicalPlanner, ExtensionPlanner, PhysicalPlanner};

use crate::exec::stateful_node::as_stateful;
use crate::exec::watermark::{watermark_exec, WatermarkNode};

/// Plans sparklet's logical extension nodes: the stateful ones through
/// their contract ([`as_stateful`]), the others here.
#[derive(Debug, Default)]
pub struct StreamingExtensionPlanner;

#[async_trait]
impl ExtensionPlanner for StreamingExtensionPlanner {
    async fn plan_extension(
        &self,
        _planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        _logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        session: &dyn CatalogSession,
        _planning_ctx: &datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext,
    ) -> DFResult<Option<Arc<dyn ExecutionPlan>>> {
        if let Some(stateful) = as_stateful(node) {
            return Ok(Some(stateful.plan_physical(physical_inputs, session)?));
        }
        if let Some(o) = node
            .as_any()
            .downcast_ref::<crate::exec::observe::ObserveNode>()
        {
            let input = Arc::clone(&physical_inputs[0]);
            return Ok(Some(Arc::new(crate::exec::observe::plan(o, input))));
        }
        if let Some(m) = node
            .as_any()
            .downcast_ref::<crate::exec::map_batches::MapBatchesNode>()
        {
            let input = Arc::clone(&physical_inputs[0]);
            return Ok(Some(Arc::new(crate::exec::map_batches::plan(m, input))));
        }
        use crate::plan::partitions;
        if let Some(p) = node.as_any().downcast_ref::<partitions::PartitionsNode>() {
            let input = Arc::clone(&physical_inputs[0]);
            return Ok(Some(Arc::new(partitions::plan(p, input, session)?)));
        }
        if let Some(p) = node.as_any().downcast_ref::<partitions::PartitionIdNode>() {
            let input = Arc::clone(&physical_inputs[0]);
            return Ok(Some(Arc::new(partitions::plan_ids(p, input))));
        }
        let Some(wm) = node.as_any().downcast_ref::<WatermarkNode>() else {
            return Ok(None);
        };
        let input = Arc::clone(&physical_inputs[0]);
        let column = input.schema().index_of(&wm.column)?;
        Ok(Some(Arc::new(watermark_exec(
            input,
            column,
            Arc::clone(&wm.stats.0),
        ))))
    }
}

/// DataFusion's planner with [`StreamingExtensionPlanner`].
#[derive(Debug, Default)]
pub struct SparkletQueryPlanner;

#[async_trait]
impl datafusion::execution::context::QueryPlanner for SparkletQueryPlanner {
    async fn create_physical_plan(
        &self,
        logical_plan: &LogicalPlan,
        session: &dyn CatalogSession,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        DefaultPhysicalPlanner::with_extension_planners(vec![Arc::new(StreamingExtensionPlanner)])
            .create_physical_plan(logical_plan, session)
            .await
    }
}
