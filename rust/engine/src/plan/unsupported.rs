//! What Structured Streaming refuses to run (Spark's
//! `UnsupportedOperationChecker`), checked at start.

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::{Expr, LogicalPlan};

use super::output_mode::OutputMode;
use crate::catalog::is_streaming;
use crate::error::{Error, Result};
use crate::exec::stateful_node::as_stateful;

/// Reject plans Structured Streaming does not support (Spark's
/// `UnsupportedOperationChecker`), at start time.
pub(crate) fn check_supported(plan: &LogicalPlan, mode: OutputMode) -> Result<bool> {
    let mut aggregates = 0;
    let mut sorts = 0;
    let mut unsupported: Option<String> = None;
    let mut window_refusal: Option<Error> = None;
    // output names of the columns a projection aliases (a window function's)
    let mut aliases = std::collections::HashMap::new();
    plan.apply(|node| {
        if !is_streaming(node) {
            return Ok(TreeNodeRecursion::Jump); // the static side of a join is a batch plan
        }
        match node {
            LogicalPlan::Aggregate(a) => {
                aggregates += 1;
                let distinct = a.aggr_expr.iter().any(|e| {
                    e.exists(|x| Ok(matches!(x, Expr::AggregateFunction(f) if f.params.distinct)))
                        .unwrap_or(false)
                });
                if distinct {
                    unsupported = Some(
                        "Distinct aggregations are not supported on streaming DataFrames/Datasets. \
                         Consider using approx_count_distinct() instead."
                            .into(),
                    );
                }
            }
            LogicalPlan::Distinct(_) => {
                unsupported =
                    Some("distinct() on streaming DataFrames: use dropDuplicates()".into())
            }
            LogicalPlan::Sort(_) => sorts += 1,
            LogicalPlan::Projection(p) => {
                for e in &p.expr {
                    if let Expr::Alias(a) = e {
                        // through the cast a ranking function's int is
                        let mut inner = a.expr.as_ref();
                        loop {
                            inner = match inner {
                                Expr::Cast(c) => c.expr.as_ref(),
                                Expr::ScalarFunction(f) if f.args.len() == 1 => &f.args[0],
                                _ => break,
                            };
                        }
                        if let Expr::Column(c) = inner {
                            aliases.insert(c.name.clone(), a.name.clone());
                        }
                    }
                }
            }
            LogicalPlan::Window(w) => {
                if let Some(Expr::WindowFunction(f)) = w.window_expr.first() {
                    window_refusal = Some(window_refusal_of(f, &aliases));
                }
            }
            LogicalPlan::Join(j) => {
                if let Some(msg) =
                    static_join_refusal(j.join_type, is_streaming(&j.left), is_streaming(&j.right))
                {
                    unsupported = Some(msg.into());
                }
            }
            LogicalPlan::Limit(_) if mode == OutputMode::Update => unsupported = Some(
                "Limits are not supported on streaming DataFrames/Datasets in Update output mode"
                    .into(),
            ),
            _ => {}
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .map_err(Error::from_planning)?;
    if let Some(e) = window_refusal {
        return Err(e);
    }
    if let Some(msg) = unsupported {
        // Spark 4's UnsupportedOperationChecker raises these as _LEGACY_ERROR_TEMP_3102
        return Err(Error::analysis("_LEGACY_ERROR_TEMP_3102", msg));
    }
    if aggregates > 1 && mode != OutputMode::Append {
        // Spark's global-watermark check refuses chained aggregations
        // outside append mode (sparklet runs them in append mode only,
        // with the check off too)
        return Err(Error::analysis(
            "_LEGACY_ERROR_TEMP_3102",
            "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are \"late rows\" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config `spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.",
        ));
    }
    if sorts > 0 && !(aggregates == 1 && mode == OutputMode::Complete) {
        return Err(Error::analysis(
            "_LEGACY_ERROR_TEMP_3102",
            "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
        ));
    }
    if aggregates == 0 && mode == OutputMode::Complete {
        return Err(Error::analysis(
            "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
            "Invalid streaming output mode: complete. This output mode is not supported for no streaming aggregations on streaming DataFrames/DataSets.",
        ));
    }
    Ok(aggregates == 1)
}

/// Spark's refusal of a window function on a stream, naming the column.
fn window_refusal_of(
    f: &datafusion::logical_expr::expr::WindowFunction,
    aliases: &std::collections::HashMap<String, String>,
) -> Error {
    let whole = Expr::WindowFunction(Box::new(f.clone()));
    let name = super::spark_names::spark_name(&whole);
    let function = name.split(" OVER (").next().unwrap_or(&name).to_uppercase();
    let column = aliases
        .get(&whole.schema_name().to_string())
        .cloned()
        .unwrap_or(name);
    Error::analysis(
        "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
        format!(
            "Window function is not supported in {function} (as column `{column}`) on streaming DataFrames/Datasets.\nStructured Streaming only supports time-window aggregation using the WINDOW function. (window specification: ({}))",
            super::spark_names::window_spec(f).to_uppercase()
        ),
    )
}

/// Spark's refusal of a join between a stream and a static side, in its
/// words (stream-stream joins are checked when their operator opens).
pub(crate) fn static_join_refusal(
    join_type: datafusion::logical_expr::JoinType,
    left_streams: bool,
    right_streams: bool,
) -> Option<&'static str> {
    use datafusion::logical_expr::JoinType::*;
    Some(match (join_type, left_streams, right_streams) {
        (_, true, true) | (_, false, false) => return None,
        (Full, true, _) => "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported",
        (Full, _, true) => "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported",
        (Right | RightSemi | RightAnti, true, _) => "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported",
        (Left, _, true) => "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported",
        (LeftSemi, _, true) => "LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported",
        (LeftAnti, _, true) => "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported",
        _ => return None,
    })
}

/// Whether `plan` holds partitioned state other than an aggregation's
/// (a deduplication or a stream-stream join).
pub(crate) fn has_stateful_nodes(plan: &LogicalPlan) -> bool {
    plan.exists(|node| {
        Ok(match node {
            LogicalPlan::Extension(ext) => as_stateful(ext.node.as_ref()).is_some(),
            LogicalPlan::Join(j) => is_streaming(&j.left) && is_streaming(&j.right),
            _ => false,
        })
    })
    .unwrap_or(false)
}
