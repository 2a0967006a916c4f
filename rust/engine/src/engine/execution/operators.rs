//! The query's stateful operators: found in its plan, numbered top down as
//! Spark numbers them, their state opened (Spark's stateful planning in
//! `IncrementalExecution`).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::displayable;

use super::incremental::{bind, empty_inputs, external, optimize_before_operators};
use super::watermarks::Watermarks;
use crate::catalog::{is_streaming, stream_tables};
use crate::error::{Error, Result};
use crate::exec::aggregate::StatefulAggNode;
use crate::exec::join::StreamJoinNode;
use crate::exec::limit::StreamLimitNode;
use crate::exec::observe::ObserveNode;
use crate::exec::operator::{OpenContext, OperatorControl};
use crate::exec::stateful_node::as_stateful;
use crate::exec::watermark::{watermarks_under, WatermarkNode};
use crate::plan::output_mode::OutputMode;
use crate::runtime::block_on;
use crate::sources::SourceFactory;
use crate::state::memory::MemoryProvider;
use crate::state::partitioned::OperatorStateSpec;
use crate::state::{StateEncoding, StateStoreProvider};

/// The plan with its stateful nodes, the opened operators with their ids,
/// and their lags behind the watermark.
pub(crate) type OpenedOperators = (
    LogicalPlan,
    Vec<(usize, Arc<dyn OperatorControl>)>,
    WatermarkLags,
);

/// How the query's stateful operators open.
pub(crate) struct OpenSettings<'a> {
    pub(crate) mode: OutputMode,
    pub(crate) provider: &'a Arc<dyn StateStoreProvider>,
    /// Where each operator's state is (by operator id).
    pub(crate) spec: &'a dyn Fn(usize) -> OperatorStateSpec,
    /// Whether the output mode is checked (not for `explain()`).
    pub(crate) checks_mode: bool,
}

/// Each stateful operator's lag (µs) behind the query's watermark, where
/// it reads the output of stream-stream joins.
pub(crate) type WatermarkLags = HashMap<usize, i64>;

/// How far (µs) behind the query's watermark rows reaching `plan`'s output
/// can be: Spark propagates the watermark through each stream-stream join
/// as its output watermark, which trails by the join's time range.
pub(crate) fn join_lag_us(plan: &LogicalPlan) -> i64 {
    let below = plan
        .inputs()
        .into_iter()
        .map(join_lag_us)
        .max()
        .unwrap_or(0);
    match plan {
        LogicalPlan::Extension(ext) => match ext.node.as_any().downcast_ref::<StreamJoinNode>() {
            Some(join) => {
                let mut watermarks = watermarks_under(&join.left);
                watermarks.extend(watermarks_under(&join.right));
                below + join.output_lag_us(&watermarks)
            }
            None => below,
        },
        _ => below,
    }
}

/// Open the state of every stateful node through its contract
/// ([`StatefulNode`](crate::exec::stateful_node::StatefulNode)), numbering
/// stateful operators top down as Spark does. A streaming aggregation and
/// a limit in append mode become their stateful nodes here.
pub(crate) fn open_operators(
    plan: LogicalPlan,
    settings: &OpenSettings,
) -> Result<OpenedOperators> {
    use datafusion::logical_expr::{Extension, FetchType, SkipType};
    let query_watermarks = query_watermarks(&plan);
    let mut next_id = 0;
    let mut operators = Vec::new();
    let mut lags = WatermarkLags::new();
    // the Aggregate visited right after its new wrapper is not wrapped again
    let mut wrapped = false;
    let plan = plan
        .transform_down(|node| {
            if !is_streaming(&node) {
                return Ok(Transformed::new(node, false, TreeNodeRecursion::Jump));
            }
            let stateful: Arc<dyn datafusion::logical_expr::UserDefinedLogicalNode> = match &node {
                LogicalPlan::Aggregate(_) if wrapped => {
                    wrapped = false;
                    return Ok(Transformed::no(node));
                }
                LogicalPlan::Aggregate(_) => {
                    wrapped = true;
                    Arc::new(StatefulAggNode::new(node.clone()))
                }
                LogicalPlan::Limit(limit) if settings.mode == OutputMode::Append => {
                    let (Ok(SkipType::Literal(0)), Ok(FetchType::Literal(Some(n)))) =
                        (limit.get_skip_type(), limit.get_fetch_type())
                    else {
                        return Err(external(Error::analysis(
                            "UNSUPPORTED_STREAMING_OPERATION",
                            "Only limit(n) with a literal n is supported on streaming DataFrames/Datasets",
                        )));
                    };
                    Arc::new(StreamLimitNode::new(limit.input.as_ref().clone(), n))
                }
                LogicalPlan::Extension(ext) => {
                    if let Some(o) = ext.node.as_any().downcast_ref::<ObserveNode>() {
                        // this run's own gathering (a DataFrame may be started twice)
                        let fresh = ObserveNode::new(o.input.clone(), o.name.clone(), o.exprs.clone());
                        return Ok(Transformed::yes(LogicalPlan::Extension(Extension {
                            node: Arc::new(fresh),
                        })));
                    }
                    if as_stateful(ext.node.as_ref()).is_none() {
                        return Ok(Transformed::no(node));
                    }
                    Arc::clone(&ext.node)
                }
                _ => return Ok(Transformed::no(node)),
            };
            let Some(contract) = as_stateful(stateful.as_ref()) else {
                return Ok(Transformed::no(node));
            };
            let ctx = OpenContext {
                provider: Arc::clone(settings.provider),
                spec: (settings.spec)(next_id),
                watermarks: contract
                    .watermarked_inputs()
                    .into_iter()
                    .flat_map(watermarks_under)
                    .collect(),
                query_watermarks: query_watermarks.clone(),
                checks_mode: settings.checks_mode,
            };
            let (opened, control) = contract
                .open_stateful(&ctx, settings.mode)
                .map_err(external)?;
            let lag = stateful.inputs().into_iter().map(join_lag_us).max();
            lags.insert(next_id, lag.unwrap_or(0));
            operators.push((next_id, control));
            next_id += 1;
            Ok(Transformed::yes(LogicalPlan::Extension(Extension { node: opened })))
        })
        .map_err(Error::from_planning)?;
    Ok((plan.data, operators, lags))
}

/// Every watermarked column of `plan`, as any node names it (renames
/// followed); None when it defines no watermark.
fn query_watermarks(plan: &LogicalPlan) -> Option<Vec<String>> {
    let mut columns = Vec::new();
    let _ = plan.apply(|node| {
        if let LogicalPlan::Extension(ext) = node {
            if let Some(wm) = ext.node.as_any().downcast_ref::<WatermarkNode>() {
                columns.push(wm.column.clone());
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    if columns.is_empty() {
        return None;
    }
    columns.extend(watermarks_under(plan).into_iter().map(|(c, _)| c));
    Some(columns)
}

/// The plan with its stateful operators opened (their state placed by
/// `settings`) and planned over empty inputs: the physical planning opens
/// what needs the planned plan (the aggregations' state), and gives what
/// `explain()` shows.
pub(crate) fn plan_with_operators(
    state: &SessionState,
    plan: LogicalPlan,
    factories: &[Arc<dyn SourceFactory>],
    settings: &OpenSettings,
) -> Result<(
    OpenedOperators,
    Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    String,
)> {
    let plan = optimize_before_operators(plan)?;
    let opened = open_operators(plan, settings)?;
    let probe = bind(&opened.0, factories, &empty_inputs(factories)?)?;
    let optimized = state.optimize(&probe).map_err(Error::from_planning)?;
    let physical = block_on(state.create_physical_plan(&probe))?.map_err(Error::from_planning)?;
    let explain = format!(
        "== Optimized Logical Plan ==\n{}\n\n== Physical Plan ==\n{}",
        optimized.display_indent(),
        displayable(physical.as_ref()).indent(false)
    );
    Ok((opened, physical, explain))
}

/// `df.explain()` on a stream: the plan a query over `plan` would run,
/// stateful operators included, without starting one (their state opens
/// in memory over a scratch folder, removed after).
pub fn explain(state: SessionState, plan: LogicalPlan, mode: OutputMode) -> Result<String> {
    let factories = stream_tables(&plan);
    let (plan, _) = Watermarks::attach(plan, false)?;
    let scratch = std::env::temp_dir().join(format!("sparklet-explain-{}", uuid::Uuid::new_v4()));
    let spec = |id: usize| OperatorStateSpec {
        id,
        dir: scratch.join(id.to_string()),
        partitions: 1,
        version: 0,
        min_deltas_for_snapshot: 10,
        min_versions_to_retain: 1,
        evolution: None,
        encoding: StateEncoding::default(),
        // a scratch folder, removed after
        durable: false,
        fsync: false,
    };
    let provider: Arc<dyn StateStoreProvider> = Arc::new(MemoryProvider);
    let settings = OpenSettings {
        mode,
        provider: &provider,
        spec: &spec,
        checks_mode: false,
    };
    let planned = plan_with_operators(&state, plan, &factories, &settings);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(planned?.2)
}
