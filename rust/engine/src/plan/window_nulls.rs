//! Rows whose time is null have no window: Spark filters them out below any
//! operator that computes `window(time, ...)` (its `TimeWindowing` rule adds
//! `isnotnull(time)` "for backwards compatibility"), so a windowed count
//! has no group with a null window, and a stream keeps no state for one
//! that the watermark could never close. An analyzer rule adds the filter.

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, Filter, LogicalPlan};
use datafusion::optimizer::AnalyzerRule;
use std::sync::Arc;

/// The window functions whose first argument is the row's time.
const WINDOWS: [&str; 4] = ["window", "window_pane", "window_list", "window_cumulate"];

/// Filters out null times below window computations.
#[derive(Debug, Default)]
pub struct WindowNulls;

impl AnalyzerRule for WindowNulls {
    fn name(&self) -> &str {
        "window_nulls"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(|node| {
            let inputs = node.inputs();
            let [input] = inputs.as_slice() else {
                return Ok(Transformed::no(node));
            };
            let Some(predicate) =
                conjunction(window_times(&node).into_iter().map(Expr::is_not_null))
            else {
                return Ok(Transformed::no(node));
            };
            if matches!(input, LogicalPlan::Filter(f) if f.predicate == predicate) {
                return Ok(Transformed::no(node)); // analyzed before
            }
            let filtered =
                LogicalPlan::Filter(Filter::try_new(predicate, Arc::new((*input).clone()))?);
            Ok(Transformed::yes(
                node.with_new_exprs(node.expressions(), vec![filtered])?,
            ))
        })
        .data()
    }
}

/// The distinct time arguments of the window calls in `node`'s expressions.
fn window_times(node: &LogicalPlan) -> Vec<Expr> {
    let mut times: Vec<Expr> = Vec::new();
    for e in node.expressions() {
        let _ = e.apply(|x| {
            if let Expr::ScalarFunction(f) = x {
                if WINDOWS.contains(&f.func.name()) {
                    if let Some(t) = f.args.first() {
                        if !times.contains(t) {
                            times.push(t.clone());
                        }
                    }
                    return Ok(TreeNodeRecursion::Jump);
                }
            }
            Ok(TreeNodeRecursion::Continue)
        });
    }
    times
}
