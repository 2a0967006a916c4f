//! SQL's sliding windows: `GROUP BY window(ts, '10 seconds', '5 seconds')`.
//!
//! One value per row cannot hold a row's several sliding windows, so an
//! aggregation grouping by such a call is rebuilt the DataFrame API's way
//! ([`crate::dataframe::aggregate`] over `explode(window_list(...))`: panes
//! on a stream, one row per window on a batch), then its columns are renamed
//! back to the names the query above it reads.

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::ScalarValue;
use datafusion::execution::{FunctionRegistry, SessionState};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};
use datafusion::prelude::DataFrame;

use crate::error::{Error, Result};

/// A duration literal's microseconds: an interval string (`'10 seconds'`),
/// an interval, or a number of microseconds (as Spark reads them).
fn duration_us(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)), _) => {
            crate::engine::trigger::parse_duration_ms(s)
                .ok()
                .map(|ms| ms * 1000)
        }
        Expr::Literal(ScalarValue::IntervalMonthDayNano(Some(v)), _) if v.months == 0 => {
            Some(v.days as i64 * 86_400_000_000 + v.nanoseconds / 1000)
        }
        Expr::Literal(ScalarValue::IntervalDayTime(Some(v)), _) => {
            Some(v.days as i64 * 86_400_000_000 + v.milliseconds as i64 * 1000)
        }
        Expr::Literal(ScalarValue::Int64(Some(n)), _) => Some(*n),
        Expr::Literal(ScalarValue::Int32(Some(n)), _) => Some(*n as i64),
        _ => None,
    }
}

/// `window(ts, size, slide[, start])` with a slide other than its size: the
/// arguments, durations in microseconds.
fn sliding(e: &Expr) -> Option<Vec<Expr>> {
    let Expr::ScalarFunction(f) = e else {
        return None;
    };
    if f.func.name() != "window" || !(3..=4).contains(&f.args.len()) {
        return None;
    }
    let durations: Vec<i64> = f.args[1..].iter().map(duration_us).collect::<Option<_>>()?;
    if durations[0] == durations[1] {
        return None;
    }
    // (ts, size, slide, start): the start defaults to 0, as F.window's
    let mut args = vec![f.args[0].clone()];
    let start = durations.get(2).copied().unwrap_or(0);
    args.extend(
        [durations[0], durations[1], start]
            .into_iter()
            .map(|d| Expr::Literal(ScalarValue::Int64(Some(d)), None)),
    );
    Some(args)
}

/// `plan` with each aggregation grouping by a sliding window rebuilt.
pub fn rewrite(state: &SessionState, plan: LogicalPlan) -> Result<LogicalPlan> {
    let Some(window_list) = state.udf("window_list").ok() else {
        return Ok(plan);
    };
    let out = plan
        .transform_up(|node| {
            let LogicalPlan::Aggregate(agg) = &node else {
                return Ok(Transformed::no(node));
            };
            if !agg.group_expr.iter().any(|g| sliding(g).is_some()) {
                return Ok(Transformed::no(node));
            }
            let group: Vec<Expr> = agg
                .group_expr
                .iter()
                .map(|g| match sliding(g) {
                    Some(args) => crate::dataframe::explode(window_list.call(args)).alias("window"),
                    None => g.clone(),
                })
                .collect();
            let input = DataFrame::new(state.clone(), agg.input.as_ref().clone());
            let rebuilt = crate::dataframe::aggregate(
                input,
                group,
                agg.aggr_expr.clone(),
                &crate::grouping::Grouping::Plain,
            )
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
            // the same columns under the names the plan above reads
            let (_, rebuilt) = rebuilt.into_parts();
            let renamed: Vec<Expr> = rebuilt
                .schema()
                .columns()
                .into_iter()
                .zip(agg.schema.iter())
                .map(|(c, (q, f))| Expr::Column(c).alias_qualified(q.cloned(), f.name()))
                .collect();
            let plan = LogicalPlanBuilder::from(rebuilt)
                .project(renamed)?
                .build()?;
            Ok(Transformed::yes(plan))
        })
        .map_err(Error::from_planning)?;
    Ok(out.data)
}
