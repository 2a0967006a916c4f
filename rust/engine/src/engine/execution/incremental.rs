//! Planning each batch (Spark's `IncrementalExecution`): the query's plan
//! optimized once where it can be, each batch's data bound into it, the
//! physical plan run to its rows.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::datasource::{provider_as_source, source_as_provider, MemTable};
use datafusion::execution::context::SessionState;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::collect;

use crate::catalog::is_streaming;
use crate::error::{Error, Result};
use crate::exec::join::StreamJoinNode;
use crate::runtime::block_on;
use crate::sinks::SinkBatch;
use crate::sources::{SourceFactory, StreamTable};

/// What a batch's plan reads: each source's data, by source index.
pub(crate) type BatchInputs = Vec<Arc<dyn datafusion::catalog::TableProvider>>;

/// An engine error inside DataFusion's plan rewrites.
pub(crate) fn external(e: Error) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::External(Box::new(e))
}

/// `plan` optimized for every batch at once. The optimizer sees only the
/// stream placeholders, which stand for any batch's data (same schema, the
/// same filter pushdown), so its result holds for each batch; batches then
/// skip it (about half of a small batch's planning). Not when an expression
/// depends on when it is planned (`current_timestamp()` and the like are
/// folded by the optimizer, and Spark gives each batch its own time).
pub(crate) fn optimize_once(state: &SessionState, plan: &LogicalPlan) -> Option<LogicalPlan> {
    use datafusion::logical_expr::Volatility;
    let mut timed = false;
    let _ = plan.apply(|node| {
        for e in node.expressions() {
            let _ = e.apply(|x| {
                if let Expr::ScalarFunction(f) = x {
                    timed |= f.func.signature().volatility != Volatility::Immutable;
                }
                Ok(if timed {
                    TreeNodeRecursion::Stop
                } else {
                    TreeNodeRecursion::Continue
                })
            });
        }
        Ok(if timed {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    if timed {
        return None;
    }
    state.optimize(plan).ok()
}

/// Replace every stream placeholder in `plan` with the batch's data.
pub(crate) fn bind(
    plan: &LogicalPlan,
    factories: &[Arc<dyn SourceFactory>],
    inputs: &[Arc<dyn datafusion::catalog::TableProvider>],
) -> Result<LogicalPlan> {
    let bound = plan
        .clone()
        .transform_up(|node| {
            if let LogicalPlan::TableScan(scan) = &node {
                if let Ok(provider) = source_as_provider(&scan.source) {
                    if let Some(st) = provider.downcast_ref::<StreamTable>() {
                        if let Some(i) = factories.iter().position(|f| Arc::ptr_eq(f, &st.factory))
                        {
                            let mut scan = scan.clone();
                            scan.source = provider_as_source(Arc::clone(&inputs[i]));
                            return Ok(Transformed::yes(LogicalPlan::TableScan(scan)));
                        }
                    }
                }
            }
            Ok(Transformed::no(node))
        })
        .map_err(Error::from_planning)?;
    Ok(bound.data)
}

pub(crate) fn empty_inputs(
    factories: &[Arc<dyn SourceFactory>],
) -> Result<Vec<Arc<dyn datafusion::catalog::TableProvider>>> {
    factories
        .iter()
        .map(|f| {
            Ok(Arc::new(MemTable::try_new(f.schema(), vec![vec![]])?)
                as Arc<dyn datafusion::catalog::TableProvider>)
        })
        .collect()
}

/// Run a physical plan to its rows.
pub(crate) fn run_plan(
    physical: Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
) -> Result<SinkBatch> {
    let schema = physical.schema();
    let batches = block_on(collect(physical, task_ctx))?.map_err(Error::from_execution)?;
    Ok(SinkBatch { schema, batches })
}

/// Run a physical plan for a sink that keeps no rows: each batch of rows
/// is counted and dropped as it comes, so no micro-batch's output is held
/// whole (a 1.6M-row deduplication held ~70 MB of it). The rows (none) and
/// how many there were.
pub(crate) fn run_plan_discarding(
    physical: Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
) -> Result<(SinkBatch, usize)> {
    use futures::StreamExt;
    let schema = physical.schema();
    let rows = block_on(async move {
        let mut stream = datafusion::physical_plan::execute_stream(physical, task_ctx)?;
        let mut rows = 0;
        while let Some(batch) = stream.next().await {
            rows += batch?.num_rows();
        }
        Ok::<_, datafusion::error::DataFusionError>(rows)
    })?
    .map_err(Error::from_execution)?;
    Ok((
        SinkBatch {
            schema,
            batches: Vec::new(),
        },
        rows,
    ))
}

/// The plan with its stateful operators opened (their state placed by
/// `spec`) and planned over empty inputs: what explain() shows, and where
/// the aggregations find their planned aggregates.
/// Filters moved below joins and aggregations, and columns nobody reads
/// pruned, before the stateful operators are planned (Spark optimizes
/// before its stateful planning too): a `WHERE` above a stream-stream join
/// then bounds the join's state, as the same filters written before the
/// join do, and the join stores only the columns read after it (Nexmark q3
/// in SQL kept every auction and person, then every column of them).
pub(crate) fn optimize_before_operators(plan: LogicalPlan) -> Result<LogicalPlan> {
    use datafusion::optimizer::optimize_projections::OptimizeProjections;
    use datafusion::optimizer::push_down_filter::PushDownFilter;
    use datafusion::optimizer::{Optimizer, OptimizerContext, OptimizerRule};
    let run = |plan: LogicalPlan, rule: Arc<dyn OptimizerRule + Send + Sync>| {
        Optimizer::with_rules(vec![rule])
            .optimize(plan, &OptimizerContext::new(), |_, _| {})
            .map_err(Error::from_planning)
    };
    let plan = crate::plan::hold_filters::hold(plan).map_err(Error::from_planning)?;
    let plan = run(plan, Arc::new(PushDownFilter::new()))?;
    let plan = crate::plan::hold_filters::release(plan).map_err(Error::from_planning)?;
    // stream-stream joins become their node first: it keeps each side's
    // watermarked columns, which drop the side's late rows, where
    // DataFusion's join would prune them when nothing above reads them
    let plan = plan
        .transform_down(|node| match &node {
            LogicalPlan::Join(join) if is_streaming(&join.left) && is_streaming(&join.right) => {
                let joined = StreamJoinNode::from_join(join).map_err(external)?;
                Ok(Transformed::yes(LogicalPlan::Extension(
                    datafusion::logical_expr::Extension {
                        node: Arc::new(joined),
                    },
                )))
            }
            _ => Ok(Transformed::no(node)),
        })
        .map_err(Error::from_planning)?
        .data;
    run(plan, Arc::new(OptimizeProjections::new()))
}
