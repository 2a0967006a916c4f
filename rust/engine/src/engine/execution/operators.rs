//! The query's stateful operators: found in its plan, numbered top down as
//! Spark numbers them, their state opened (Spark's stateful planning in
//! `IncrementalExecution`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::displayable;

use super::incremental::{bind, empty_inputs, external, optimize_before_operators};
use super::watermarks::Watermarks;
use crate::catalog::{is_streaming, stream_tables};
use crate::error::{Error, Result};
use crate::exec::aggregate::{
    find_aggregate, EventTimeKey, PaneSpec, StatefulAggExec, StatefulAggNode, StatefulAggregate,
};
use crate::exec::join::StreamJoinNode;
use crate::exec::limit::StreamLimitNode;
use crate::exec::observe::ObserveNode;
use crate::exec::operator::{OpenContext, OperatorControl, OperatorSlot};
use crate::exec::stateful_node::as_stateful;
use crate::exec::watermark::watermarks_under;
use crate::plan::output_mode::OutputMode;
use crate::runtime::block_on;
use crate::sources::SourceFactory;
use crate::state::memory::MemoryProvider;
use crate::state::partitioned::OperatorStateSpec;
use crate::state::StateEncoding;

/// The plan with its stateful nodes, the opened operators and the
/// aggregations still to open (they need the physical plan) with their ids.
pub(crate) type OpenedOperators = (
    LogicalPlan,
    Vec<(usize, Arc<dyn OperatorControl>)>,
    Vec<(usize, OperatorSlot<StatefulAggregate>)>,
    WatermarkLags,
);

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

/// Open the state of every stateful node, numbering stateful operators top
/// down as Spark does; streaming aggregations get their node here and are
/// opened by [`open_aggregates`].
/// A limit in append mode becomes the stateful streaming limit.
pub(crate) fn open_operators(
    plan: LogicalPlan,
    mode: OutputMode,
    provider: &dyn crate::state::StateStoreProvider,
    spec: &dyn Fn(usize) -> OperatorStateSpec,
) -> Result<OpenedOperators> {
    use datafusion::logical_expr::{Extension, FetchType, SkipType};
    let mut next_id = 0;
    let mut aggregates = Vec::new();
    let mut operators = Vec::new();
    let mut lags = WatermarkLags::new();
    // the Aggregate visited right after its new wrapper is not wrapped again
    let mut wrapped = false;
    let extension = |node: Arc<dyn datafusion::logical_expr::UserDefinedLogicalNode>| {
        Transformed::yes(LogicalPlan::Extension(Extension { node }))
    };
    let plan = plan
        .transform_down(|node| {
            if !is_streaming(&node) {
                return Ok(Transformed::new(node, false, TreeNodeRecursion::Jump));
            }
            let ctx = |input: &LogicalPlan, id: usize| OpenContext {
                provider,
                spec: spec(id),
                watermarks: watermarks_under(input),
            };
            match &node {
                LogicalPlan::Aggregate(_) if wrapped => wrapped = false,
                LogicalPlan::Aggregate(agg) => {
                    lags.insert(next_id, join_lag_us(&agg.input));
                    let node = StatefulAggNode::new(node.clone());
                    aggregates.push((next_id, node.slot.clone()));
                    next_id += 1;
                    wrapped = true;
                    return Ok(extension(Arc::new(node)));
                }
                LogicalPlan::Limit(limit) if mode == OutputMode::Append => {
                    let (Ok(SkipType::Literal(0)), Ok(FetchType::Literal(Some(n)))) =
                        (limit.get_skip_type(), limit.get_fetch_type())
                    else {
                        return Err(external(Error::analysis(
                            "UNSUPPORTED_STREAMING_OPERATION",
                            "Only limit(n) with a literal n is supported on streaming DataFrames/Datasets",
                        )));
                    };
                    let node = StreamLimitNode::new(limit.input.as_ref().clone(), n);
                    let (opened, control) =
                        node.open(&ctx(&node.input, next_id)).map_err(external)?;
                    operators.push((next_id, control));
                    next_id += 1;
                    return Ok(extension(Arc::new(opened)));
                }
                LogicalPlan::Extension(ext) => {
                    let node = ext.node.as_any();
                    if let Some(o) = node.downcast_ref::<ObserveNode>() {
                        // this run's own gathering (a DataFrame may be started twice)
                        let fresh = ObserveNode::new(o.input.clone(), o.name.clone(), o.exprs.clone());
                        return Ok(extension(Arc::new(fresh)));
                    }
                    if let Some(stateful) = as_stateful(ext.node.as_ref()) {
                        let ctx = OpenContext {
                            provider,
                            spec: spec(next_id),
                            watermarks: stateful
                                .watermarked_inputs()
                                .into_iter()
                                .flat_map(watermarks_under)
                                .collect(),
                        };
                        let (opened, control) =
                            stateful.open_stateful(&ctx, mode).map_err(external)?;
                        let lag = ext.node.inputs().into_iter().map(join_lag_us).max();
                        lags.insert(next_id, lag.unwrap_or(0));
                        operators.push((next_id, control));
                        next_id += 1;
                        return Ok(extension(opened));
                    }
                }
                _ => {}
            }
            Ok(Transformed::no(node))
        })
        .map_err(Error::from_planning)?;
    Ok((plan.data, operators, aggregates, lags))
}

/// What opening a streaming aggregation needs from the query.
pub(crate) struct AggSettings<'a> {
    pub(crate) mode: OutputMode,
    pub(crate) watermarks: &'a Watermarks,
    /// Watermarked columns as the plan's nodes see them (renames followed).
    pub(crate) watermarked: Vec<(String, i64)>,
    pub(crate) provider: &'a dyn crate::state::StateStoreProvider,
}

/// Open every streaming aggregation of the planned query (`physical`): its
/// event-time key, session or sliding window, and state. Chained aggregations
/// run in append mode.
pub(crate) fn open_aggregates(
    physical: &Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    aggregates: &[(usize, OperatorSlot<StatefulAggregate>)],
    settings: &AggSettings,
    spec: &dyn Fn(usize) -> OperatorStateSpec,
    operators: &mut Vec<(usize, Arc<dyn OperatorControl>)>,
) -> Result<()> {
    let mut execs = Vec::new();
    let _ = physical.apply(|node| {
        if let Some(exec) = node.downcast_ref::<StatefulAggExec>() {
            execs.push((
                Arc::clone(&exec.input),
                Arc::clone(&exec.logical),
                exec.slot.clone(),
            ));
        }
        Ok(TreeNodeRecursion::Continue)
    });
    for (input, logical, slot) in execs {
        let Some((id, _)) = aggregates.iter().find(|(_, s)| *s == slot) else {
            continue;
        };
        let parts = find_aggregate(&input).ok_or_else(|| {
            Error::Internal("the planned streaming aggregation has no aggregate node".into())
        })?;
        let schema = parts.top.schema();
        let num_keys = parts.group_by.expr().len();
        let mut columns = settings.watermarks.columns();
        columns.extend(settings.watermarked.iter().map(|(c, _)| c.clone()));
        columns.extend(watermarks_under(&logical).into_iter().map(|(c, _)| c));
        let defined = settings.watermarks.defined();
        // what computed each key: a window is one under any alias
        let made_by = |i: usize, functions: &[&str]| {
            crate::plan::column_origin::origin(&logical, schema.field(i).name())
                .is_some_and(|o| o.function().is_some_and(|f| functions.contains(&f)))
        };
        let event_time = (0..num_keys).find_map(|i| {
            let f = schema.field(i);
            match f.data_type() {
                // F.window's column, or SQL's `GROUP BY window(ts, ...)`
                DataType::Struct(fields)
                    if (f.name() == "window"
                        || f.name().starts_with("window(")
                        || made_by(i, &["window", "window_pane"]))
                        && fields.find("end").is_some() =>
                {
                    Some(EventTimeKey::Window(i))
                }
                // a window table function's end: its window is done when
                // the watermark passes it, as a row is at its event time
                DataType::Timestamp(_, _)
                    if columns.contains(f.name()) || f.name() == "window_end" =>
                {
                    Some(EventTimeKey::Timestamp(i))
                }
                _ => None,
            }
        });
        let event_time = event_time.filter(|_| defined);
        let session = (0..num_keys).find(|i| {
            let f = schema.field(*i);
            (f.name() == "session_window"
                || f.name().starts_with("session_window(")
                || made_by(*i, &["session_window"]))
                && matches!(f.data_type(), DataType::Struct(_))
        });
        // a session's end decides lateness and eviction, as a window's does
        let event_time = match (event_time, session) {
            (None, Some(si)) if defined => Some(EventTimeKey::Window(si)),
            (et, _) => et,
        };
        if session.is_some() && settings.mode == OutputMode::Update {
            return Err(Error::analysis(
                "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                "Invalid streaming output mode: update. This output mode is not supported for session window \
                 streaming aggregations on streaming DataFrames/DataSets.",
            ));
        }
        if settings.mode == OutputMode::Append && event_time.is_none() {
            return Err(Error::analysis(
                "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                "Invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets. \
                 (Add withWatermark() on the event-time column and group by it, or a window over it; or use update or complete mode.)",
            ));
        }
        let pane = (0..num_keys).find_map(|i| PaneSpec::of(&logical, i, schema.field(i).name()));
        let agg = StatefulAggregate::open(
            &parts,
            settings.mode,
            event_time,
            session,
            pane,
            settings.provider,
            &spec(*id),
        )?;
        operators.push((*id, slot.open(agg)));
    }
    Ok(())
}

pub(crate) fn plan_with_operators(
    state: &SessionState,
    plan: LogicalPlan,
    factories: &[Arc<dyn SourceFactory>],
    mode: OutputMode,
    provider: &dyn crate::state::StateStoreProvider,
    spec: &dyn Fn(usize) -> OperatorStateSpec,
) -> Result<(
    OpenedOperators,
    Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    String,
)> {
    let plan = optimize_before_operators(plan)?;
    let opened = open_operators(plan, mode, provider, spec)?;
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
    };
    let planned = plan_with_operators(&state, plan, &factories, mode, &MemoryProvider, &spec);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(planned?.2)
}
