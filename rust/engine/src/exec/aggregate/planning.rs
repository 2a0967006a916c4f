//! What the planned query tells a streaming aggregation: the aggregate
//! taken apart (`find_aggregate`, `replace`), the key that carries event
//! time, a sliding window's panes.

use super::*;

/// How a group key carries event time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventTimeKey {
    /// A `window` struct at this key position: its `end` is compared.
    Window(usize),
    /// A timestamp at this key position.
    Timestamp(usize),
}

/// A sliding window aggregated by panes (`window_pane`): the key position of
/// the pane and the window's shape, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaneSpec {
    /// Position of the pane among the group keys.
    pub key: usize,
    /// Window size.
    pub size: i64,
    /// Window slide.
    pub slide: i64,
    /// Window start offset.
    pub start: i64,
}

impl PaneSpec {
    /// The sliding window of the aggregation `aggregate` groups by at key
    /// `key` (named `name`), if that key is its own `window_pane(ts, size,
    /// slide, start)` (a pane computed below an earlier aggregation reaches
    /// this one as that aggregation's window).
    pub fn of(aggregate: &LogicalPlan, key: usize, name: &str) -> Option<Self> {
        let origin = column_origin::origin(aggregate, name)?;
        let Expr::ScalarFunction(f) = &origin.expr else {
            return None;
        };
        if f.func.name() != "window_pane" || origin.aggregations != 1 {
            return None;
        }
        let (size, slide, start) = pane_args(&f.args)?;
        Some(PaneSpec {
            key,
            size,
            slide,
            start,
        })
    }

    /// Starts of the windows holding the pane that starts at `pane_start`.
    pub(super) fn windows(&self, pane_start: i64) -> Vec<i64> {
        windows_of_pane(pane_start, self.size, self.slide, self.start)
    }
}

/// `(size, slide, start)` from literal `window_pane` arguments.
pub(super) fn pane_args(args: &[Expr]) -> Option<(i64, i64, i64)> {
    let lit = |e: &Expr| match e {
        Expr::Literal(v, _) => match v.cast_to(&DataType::Int64).ok()? {
            ScalarValue::Int64(x) => x,
            _ => None,
        },
        _ => None,
    };
    Some((lit(args.get(1)?)?, lit(args.get(2)?)?, lit(args.get(3)?)?))
}

/// The aggregate of a planned batch, taken apart.
#[derive(Debug, Clone)]
pub struct AggregateParts {
    /// The aggregate node (its output schema is what the operator emits).
    pub top: Arc<dyn ExecutionPlan>,
    /// The aggregate's raw input.
    pub input: Arc<dyn ExecutionPlan>,
    /// Grouping, over `input`'s schema.
    pub group_by: PhysicalGroupBy,
    /// The aggregate functions.
    pub aggr: Vec<Arc<AggregateFunctionExpr>>,
    /// Their FILTER clauses.
    pub filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
}

/// Find the (single) aggregate in `plan` and its raw input.
pub fn find_aggregate(plan: &Arc<dyn ExecutionPlan>) -> Option<AggregateParts> {
    if let Some(agg) = plan.downcast_ref::<AggregateExec>() {
        return Some(match agg.mode() {
            AggregateMode::Partial | AggregateMode::PartialReduce => return None,
            AggregateMode::Single | AggregateMode::SinglePartitioned => AggregateParts {
                top: Arc::clone(plan),
                input: Arc::clone(agg.input()),
                group_by: agg.group_expr().clone(),
                aggr: agg.aggr_expr().to_vec(),
                filters: agg.filter_expr().to_vec(),
            },
            AggregateMode::Final | AggregateMode::FinalPartitioned => {
                let partial = find_partial(agg.input())?;
                let p = partial.downcast_ref::<AggregateExec>()?;
                AggregateParts {
                    top: Arc::clone(plan),
                    input: Arc::clone(p.input()),
                    group_by: p.group_expr().clone(),
                    aggr: p.aggr_expr().to_vec(),
                    filters: p.filter_expr().to_vec(),
                }
            }
        });
    }
    plan.children().into_iter().find_map(find_aggregate)
}

pub(super) fn find_partial(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    if plan
        .downcast_ref::<AggregateExec>()
        .is_some_and(|a| *a.mode() == AggregateMode::Partial)
    {
        return Some(Arc::clone(plan));
    }
    plan.children().into_iter().find_map(find_partial)
}

/// `plan` with the node `target` replaced by `with`.
pub fn replace(
    plan: &Arc<dyn ExecutionPlan>,
    target: &Arc<dyn ExecutionPlan>,
    with: &Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if Arc::ptr_eq(plan, target) {
        return Ok(Arc::clone(with));
    }
    let children = plan.children();
    if children.is_empty() {
        return Ok(Arc::clone(plan));
    }
    let new_children = children
        .into_iter()
        .map(|c| replace(c, target, with))
        .collect::<Result<Vec<_>>>()?;
    Ok(
        datafusion::physical_plan::execution_plan::replace_children_if_necessary(
            Arc::clone(plan),
            new_children,
        )?,
    )
}
