//! A marker that keeps filters above a streaming aggregation whose group
//! bounds exist only after it: a sliding window is aggregated by panes and a
//! session's bounds come from merging, so `window.end > t` pushed below the
//! aggregation would test a pane's or a single row's bounds (Spark keeps such
//! a filter above its window aggregation too).

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::{Expr, Extension, LogicalPlan};
use std::sync::Arc;

use crate::exec::operator::pass_through_node;

/// Filters above stop here (every column holds them, DataFusion's default).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct HoldFilters {
    /// The aggregation.
    pub input: LogicalPlan,
}

pass_through_node!(HoldFilters, |node, f| name: "HoldFilters", explain: write!(f, "HoldFilters: {}", node.input.display()));

/// Whether `e` computes group bounds the aggregation itself makes.
fn bounds_after_aggregation(e: &Expr) -> bool {
    e.exists(|x| {
        Ok(matches!(x, Expr::ScalarFunction(f)
            if matches!(f.func.name(), "window_pane" | "session_window")))
    })
    .unwrap_or(false)
}

/// `plan` with each such aggregation under a [`HoldFilters`].
pub fn hold(plan: LogicalPlan) -> datafusion::error::Result<LogicalPlan> {
    plan.transform_up(|node| match &node {
        LogicalPlan::Aggregate(a)
            if a.group_expr.iter().enumerate().any(|(i, e)| {
                bounds_after_aggregation(e)
                    || super::column_origin::origin(&node, node.schema().field(i).name())
                        .is_some_and(|o| o.aggregations == 1 && bounds_after_aggregation(&o.expr))
            }) =>
        {
            Ok(Transformed::yes(LogicalPlan::Extension(Extension {
                node: Arc::new(HoldFilters { input: node }),
            })))
        }
        _ => Ok(Transformed::no(node)),
    })
    .map(|t| t.data)
}

/// `plan` without its [`HoldFilters`] markers.
pub fn release(plan: LogicalPlan) -> datafusion::error::Result<LogicalPlan> {
    plan.transform_up(|node| match &node {
        LogicalPlan::Extension(ext) => match ext.node.as_any().downcast_ref::<HoldFilters>() {
            Some(held) => Ok(Transformed::yes(held.input.clone())),
            None => Ok(Transformed::no(node)),
        },
        _ => Ok(Transformed::no(node)),
    })
    .map(|t| t.data)
}
