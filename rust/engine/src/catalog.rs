//! Finding the streaming sources inside a plan, through temp views.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};

use crate::error::{Error, Result};
use crate::sources::{SourceFactory, StreamTable};

fn collect(plan: &LogicalPlan, out: &mut Vec<Arc<dyn SourceFactory>>) {
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            if let Ok(provider) = source_as_provider(&scan.source) {
                if let Some(st) = provider.downcast_ref::<StreamTable>() {
                    if !out.iter().any(|f| Arc::ptr_eq(f, &st.factory)) {
                        out.push(Arc::clone(&st.factory));
                    }
                } else if let Some(view) = provider.get_logical_plan() {
                    collect(&view, out);
                }
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
}

/// The distinct streaming sources `plan` reads (also inside views), in plan order.
pub fn stream_tables(plan: &LogicalPlan) -> Vec<Arc<dyn SourceFactory>> {
    let mut out = Vec::new();
    collect(plan, &mut out);
    out
}

/// Whether `plan` reads a streaming source (`DataFrame.isStreaming`).
pub fn is_streaming(plan: &LogicalPlan) -> bool {
    !stream_tables(plan).is_empty()
}

/// Replace scans of views over streams with the views' plans, so every
/// stream placeholder is a direct `TableScan` the engine can bind.
pub fn inline_stream_views(plan: LogicalPlan) -> Result<LogicalPlan> {
    let out = plan
        .transform_down(|node| {
            if let LogicalPlan::TableScan(scan) = &node {
                if let Ok(provider) = source_as_provider(&scan.source) {
                    if let Some(view) = provider.get_logical_plan() {
                        if is_streaming(&view) {
                            let inner = inline_stream_views(view.into_owned()).map_err(|e| {
                                datafusion::error::DataFusionError::External(Box::new(e))
                            })?;
                            let aliased = LogicalPlanBuilder::from(inner)
                                .alias(scan.table_name.clone())?
                                .build()?;
                            return Ok(Transformed::yes(aliased));
                        }
                    }
                }
            }
            Ok(Transformed::no(node))
        })
        .map_err(Error::from_planning)?;
    Ok(out.data)
}
