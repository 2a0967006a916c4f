//! The micro-batch loop (Spark's `MicroBatchExecution`), one OS thread per
//! query. Per batch, in Spark's order: ask sources for their latest offsets,
//! read the new data, bind it into the plan, plan and run it with DataFusion,
//! hand the result to the sink, commit the sources, report progress.

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::datasource::{provider_as_source, source_as_provider, MemTable};
use datafusion::execution::context::SessionState;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::{collect, displayable};

use super::async_progress::{AsyncProgressLog, AsyncProgressOptions};
use super::progress::{
    format_timestamp_ms, rate, QueryProgress, QueryStatus, SinkProgress, SourceProgress,
};
use super::query::{QueryShared, StreamingQuery};
use super::trigger::Trigger;
use super::{global_wake, manager::QueryManager};
use crate::catalog::{is_streaming, stream_tables};
use crate::checkpoint::recovery::{self, Resume};
use crate::checkpoint::{Checkpoint, CheckpointLock, OffsetSeq, OffsetSeqMetadata};
use crate::conf::{keys, Conf};
use crate::error::{Error, Result};
use crate::exec::dedup::DedupNode;
use crate::exec::group_state::GroupStateNode;
use crate::exec::join::StreamJoinNode;
use crate::exec::limit::StreamLimitNode;
use crate::exec::observe::ObserveNode;
use crate::exec::operator::OperatorSlot;
use crate::exec::operator::{OpenContext, OperatorControl};
use crate::exec::stateful_agg::{
    find_aggregate, EventTimeKey, PaneSpec, StatefulAggExec, StatefulAggNode, StatefulAggregate,
};
use crate::failpoint;
use crate::plan::watermark::{watermarks_under, EventTimeStats, StatsHandle, WatermarkNode};
use crate::runtime::{block_on, on_blocking_thread, Blocking};
use crate::sinks::{Sink, SinkBatch};
use crate::sources::{BatchInput, Offset, Source, SourceContext, SourceFactory, StreamTable};
use crate::state::memory::MemoryProvider;
use crate::state::partitioned::OperatorStateSpec;
use crate::state::rocks::{RocksDbProvider, RocksDbSettings};
use crate::state::StateEncoding;

mod real_time;
use arrow::datatypes::DataType;

/// Spark's output modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Only new rows.
    #[default]
    Append,
    /// Rows changed in this batch.
    Update,
    /// The whole result every batch.
    Complete,
}

impl OutputMode {
    /// Parse `outputMode(...)` (case-insensitive).
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "append" => Ok(OutputMode::Append),
            "update" => Ok(OutputMode::Update),
            "complete" => Ok(OutputMode::Complete),
            _ => Err(Error::illegal_argument_in(
                "STREAMING_OUTPUT_MODE.INVALID",
                format!("Invalid streaming output mode: {s}. Accepted output modes are 'Append', 'Complete', 'Update'."),
            )),
        }
    }
}

/// Where the query keeps its checkpoint.
#[derive(Debug, Clone)]
pub struct CheckpointSpec {
    /// The checkpoint folder.
    pub dir: std::path::PathBuf,
    /// A temporary folder, removed when the query stops without error.
    pub temporary: bool,
}

/// Everything `writeStream.start()` decided.
pub struct StartOptions {
    /// `queryName`.
    pub name: Option<String>,
    /// The trigger.
    pub trigger: Trigger,
    /// The output mode.
    pub output_mode: OutputMode,
    /// The checkpoint.
    pub checkpoint: CheckpointSpec,
    /// Where rows dropped behind the watermark go (`lateRowsTable`).
    pub late_rows: Option<Box<dyn Sink>>,
    /// The clock triggers and processing time follow.
    pub clock: crate::engine::clock::Clock,
    /// Asynchronous progress tracking.
    pub async_progress: AsyncProgressOptions,
}

fn incompatible(message: String) -> Error {
    Error::Checkpoint {
        condition: "CHECKPOINT_INCOMPATIBLE".into(),
        message,
    }
}

/// Late rows with the batch that dropped them, as `batchId` (first column).
fn late_rows(
    rows: &[arrow::array::RecordBatch],
    schema: arrow::datatypes::SchemaRef,
    batch_id: i64,
) -> Result<SinkBatch> {
    let mut fields = vec![Arc::new(arrow::datatypes::Field::new(
        "batchId",
        DataType::Int64,
        false,
    ))];
    fields.extend(schema.fields().iter().cloned());
    let out_schema = Arc::new(arrow::datatypes::Schema::new(fields));
    let batches = rows
        .iter()
        .map(|b| {
            let mut cols: Vec<arrow::array::ArrayRef> =
                vec![Arc::new(arrow::array::Int64Array::from(vec![
                    batch_id;
                    b.num_rows()
                ]))];
            cols.extend(b.columns().iter().cloned());
            arrow::array::RecordBatch::try_new(Arc::clone(&out_schema), cols).map_err(Error::from)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SinkBatch {
        schema: out_schema,
        batches,
    })
}

/// The provider `spark.sql.streaming.stateStore.providerClass` names.
fn state_store_provider(conf: &Conf) -> Result<Box<dyn crate::state::StateStoreProvider>> {
    let name = conf.get(keys::STATE_STORE_PROVIDER).unwrap_or_default();
    let short = name
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match short.as_str() {
        "" | "memory" | "hdfs" | "hdfsbackedstatestoreprovider" => Ok(Box::new(MemoryProvider)),
        "rocksdb" | "rocksdbstatestoreprovider" => Ok(Box::new(RocksDbProvider::new(
            RocksDbSettings::from_conf(conf)?,
        ))),
        _ => Err(Error::illegal_argument(format!(
            "Unknown state store provider '{name}' for spark.sql.streaming.stateStore.providerClass: \
             sparklet has 'memory' (Spark's HDFSBackedStateStoreProvider, the default) and 'rocksdb' \
             (org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider)"
        ))),
    }
}

/// Temporary checkpoints of queries that failed, kept while the process
/// lives (Spark deletes them at JVM exit).
static FAILED_TEMPORARY: parking_lot::Mutex<Vec<std::path::PathBuf>> =
    parking_lot::Mutex::new(Vec::new());

/// Remove the temporary checkpoints failed queries left (at process exit).
pub fn remove_failed_temporary_checkpoints() {
    for dir in FAILED_TEMPORARY.lock().drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// What a batch's plan reads: each source's data, by source index.
type BatchInputs = Vec<Arc<dyn datafusion::catalog::TableProvider>>;

/// An engine error inside DataFusion's plan rewrites.
fn external(e: Error) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::External(Box::new(e))
}

/// A batch's `offsets/N` being written: done (ns taken) or on its way.
enum OffsetsWrite {
    Done(u64),
    Pending(Blocking<u64>),
}

impl OffsetsWrite {
    /// Wait until the file is written; ns its writing took.
    fn wait(self) -> Result<u64> {
        match self {
            OffsetsWrite::Done(nanos) => Ok(nanos),
            OffsetsWrite::Pending(w) => w.wait("writing the offsets log"),
        }
    }
}

/// Where the loop starts: first batch id, committed offsets, a batch to replay.
/// Where a run starts: the batch id, the sources' committed offsets, the
/// batch to replay (if any), and the watermark of the batch before the first
/// one run (late rows are filtered against it, as Spark's
/// `prevOffsetSeqMetadata`: the offsets log's metadata of that batch).
struct Start {
    batch_id: i64,
    committed: Vec<Option<Offset>>,
    replay: Option<OffsetSeq>,
    late_watermark_ms: i64,
}

/// Read the checkpoint and decide where to resume (Spark's
/// `populateStartOffsets`), checking it belongs to a query of this shape.
fn resume_point(cp: &Checkpoint, num_sources: usize) -> Result<Start> {
    let (offsets, before, commits) = cp.latest()?;
    let root = cp.root().display().to_string();
    let check = |seq: OffsetSeq, batch: i64| -> Result<OffsetSeq> {
        if seq.offsets.len() != num_sources {
            return Err(incompatible(format!(
                "There are [{}] sources in the checkpoint offsets (batch {batch} in {root}) and now there are [{num_sources}] sources requested by the query. Cannot continue: use a new checkpointLocation for a query with other sources.",
                seq.offsets.len()
            )));
        }
        Ok(seq)
    };
    Ok(match recovery::decide(offsets, before, commits, &root)? {
        Resume::Fresh => Start {
            batch_id: 0,
            committed: vec![None; num_sources],
            replay: None,
            late_watermark_ms: 0,
        },
        Resume::After { last } => {
            let seq = check(cp.read_offsets(last)?, last)?;
            Start {
                batch_id: last + 1,
                late_watermark_ms: seq.metadata.batch_watermark_ms,
                committed: seq.offsets,
                replay: None,
            }
        }
        Resume::Replay { batch, previous } => {
            let (committed, late_watermark_ms) = match previous {
                Some(p) => {
                    let seq = check(cp.read_offsets(p)?, p)?;
                    (seq.offsets, seq.metadata.batch_watermark_ms)
                }
                None => (vec![None; num_sources], 0),
            };
            Start {
                batch_id: batch,
                committed,
                replay: Some(check(cp.read_offsets(batch)?, batch)?),
                late_watermark_ms,
            }
        }
    })
}

/// Make this run the checkpoint's one owner: its query id and its lock. A
/// run of the same query active in this session is stopped first (or
/// refused, as `spark.sql.streaming.stopActiveRunOnRestart` says); a run
/// elsewhere, in another session or process, is refused.
fn own_checkpoint(
    cp: &Checkpoint,
    name: Option<&str>,
    conf: &Conf,
    manager: &QueryManager,
) -> Result<(String, CheckpointLock)> {
    let stop_active = conf.get_bool(keys::STOP_ACTIVE_RUN_ON_RESTART, true);
    if let Some(lock) = cp.try_lock()? {
        let id = cp.query_id(&uuid::Uuid::new_v4().to_string())?;
        manager.prepare_start(name, &id, stop_active)?;
        return Ok((id, lock));
    }
    // held: by a run this session may stop, or by someone else
    let busy = || {
        Error::illegal_argument(format!(
            "[CONCURRENT_QUERY] Another run is using the checkpoint {} (in this process or another): \
             only one run at a time may use a checkpoint location. Stop the other run, or start this query with its own checkpointLocation.",
            cp.root().display()
        ))
    };
    let id = cp.stored_query_id()?.ok_or_else(busy)?;
    manager.prepare_start(name, &id, stop_active)?;
    let lock = cp.try_lock()?.ok_or_else(busy)?;
    Ok((id, lock))
}

/// `plan` optimized for every batch at once. The optimizer sees only the
/// stream placeholders, which stand for any batch's data (same schema, the
/// same filter pushdown), so its result holds for each batch; batches then
/// skip it (about half of a small batch's planning). Not when an expression
/// depends on when it is planned (`current_timestamp()` and the like are
/// folded by the optimizer, and Spark gives each batch its own time).
fn optimize_once(state: &SessionState, plan: &LogicalPlan) -> Option<LogicalPlan> {
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
fn bind(
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

fn empty_inputs(
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

/// Reject plans Structured Streaming does not support (Spark's
/// `UnsupportedOperationChecker`), at start time.
fn check_supported(plan: &LogicalPlan, mode: OutputMode) -> Result<bool> {
    let mut aggregates = 0;
    let mut sorts = 0;
    let mut unsupported: Option<String> = None;
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
            LogicalPlan::Window(_) => {
                unsupported = Some(
                    "Non-time-based windows are not supported on streaming DataFrames/Datasets"
                        .into(),
                )
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

/// Spark's refusal of a join between a stream and a static side, in its
/// words (stream-stream joins are checked when their operator opens).
fn static_join_refusal(
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

/// Whether a source's newest offset is past where the query is.
fn any_new(latest: &[Option<Offset>], at: &[Option<Offset>]) -> bool {
    latest.iter().zip(at).any(|(l, c)| l.is_some() && l != c)
}

/// Run a physical plan to its rows.
fn run_plan(
    physical: Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
) -> Result<SinkBatch> {
    let schema = physical.schema();
    let batches = block_on(collect(physical, task_ctx))?.map_err(Error::from_execution)?;
    Ok(SinkBatch { schema, batches })
}

/// Spark's restrictions on asynchronous progress tracking (its
/// `AsyncProgressTrackingMicroBatchExecution`): replays must be harmless.
fn check_async_progress(opts: &StartOptions, sink: &dyn Sink, stateful: bool) -> Result<()> {
    if !opts.async_progress.enabled {
        return Ok(());
    }
    match opts.trigger {
        Trigger::Once => {
            return Err(Error::illegal_argument(
                "Async progress tracking cannot be used with Once trigger",
            ))
        }
        Trigger::AvailableNow => {
            return Err(Error::illegal_argument(
                "Async progress tracking cannot be used with AvailableNow trigger",
            ))
        }
        Trigger::RealTime { .. } if opts.async_progress.interval_ms != 0 => {
            return Err(Error::analysis(
                "STREAMING_REAL_TIME_MODE.ASYNC_PROGRESS_TRACKING_CHECKPOINTING_INTERVAL_NON_ZERO",
                "Streaming real-time mode has the following limitation: The checkpointing interval for async progress tracking must be set to 0, which means each progress update is checkpointed. Set option asyncProgressTrackingCheckpointIntervalMs to 0 in DataStreamWriter options and retry your query.",
            ))
        }
        _ => {}
    }
    if !sink.supports_async_progress() {
        return Err(Error::illegal_argument(format!(
            "Sink {} does not support async progress tracking",
            sink.description()
        )));
    }
    if stateful {
        return Err(Error::illegal_argument(
            "Stateful streaming queries does not support async progress tracking at this moment.",
        ));
    }
    Ok(())
}

/// Whether `plan` holds partitioned state other than an aggregation's
/// (a deduplication or a stream-stream join).
fn has_stateful_nodes(plan: &LogicalPlan) -> bool {
    plan.exists(|node| {
        Ok(match node {
            LogicalPlan::Extension(ext) => {
                let node = ext.node.as_any();
                node.is::<DedupNode>() || node.is::<GroupStateNode>()
            }
            LogicalPlan::Join(j) => is_streaming(&j.left) && is_streaming(&j.right),
            _ => false,
        })
    })
    .unwrap_or(false)
}

/// The plan with its stateful nodes, the opened operators and the
/// aggregations still to open (they need the physical plan) with their ids.
type OpenedOperators = (
    LogicalPlan,
    Vec<(usize, Arc<dyn OperatorControl>)>,
    Vec<(usize, OperatorSlot<StatefulAggregate>)>,
    WatermarkLags,
);

/// Each stateful operator's lag (µs) behind the query's watermark, where
/// it reads the output of stream-stream joins.
type WatermarkLags = HashMap<usize, i64>;

/// How far (µs) behind the query's watermark rows reaching `plan`'s output
/// can be: Spark propagates the watermark through each stream-stream join
/// as its output watermark, which trails by the join's time range.
fn join_lag_us(plan: &LogicalPlan) -> i64 {
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
fn open_operators(
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
                    let opened: Option<(Arc<dyn datafusion::logical_expr::UserDefinedLogicalNode>, _)> =
                        if let Some(dedup) = node.downcast_ref::<DedupNode>() {
                            let (n, c) = dedup.open(&ctx(&dedup.input, next_id)).map_err(external)?;
                            Some((Arc::new(n), c))
                        } else if let Some(join) = node.downcast_ref::<StreamJoinNode>() {
                            join.check_output_mode(mode).map_err(external)?;
                            let mut watermarks = watermarks_under(&join.left);
                            watermarks.extend(watermarks_under(&join.right));
                            let ctx = OpenContext {
                                provider,
                                spec: spec(next_id),
                                watermarks,
                            };
                            let (n, c) = join.open(&ctx).map_err(external)?;
                            Some((Arc::new(n), c))
                        } else if let Some(groups) = node.downcast_ref::<GroupStateNode>() {
                            let (n, c) = groups.open(&ctx(&groups.input, next_id)).map_err(external)?;
                            Some((Arc::new(n), c))
                        } else {
                            None
                        };
                    if let Some((opened, control)) = opened {
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
struct AggSettings<'a> {
    mode: OutputMode,
    watermarks: &'a Watermarks,
    /// Watermarked columns as the plan's nodes see them (renames followed).
    watermarked: Vec<(String, i64)>,
    provider: &'a dyn crate::state::StateStoreProvider,
}

/// Open every streaming aggregation of the planned query (`physical`): its
/// event-time key, session or sliding window, and state. Chained aggregations
/// run in append mode.
fn open_aggregates(
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

/// The watermark nodes of a running query: fresh statistics per run.
struct Watermarks {
    /// (statistics, delay ms, column) per `withWatermark`.
    nodes: Vec<(Arc<StatsHandle>, i64, String)>,
    /// Each node's own watermark, ms.
    per_node: Vec<i64>,
    max_policy: bool,
}

impl Watermarks {
    /// Give every watermark node of `plan` its own statistics for this run.
    fn attach(plan: LogicalPlan, max_policy: bool) -> Result<(LogicalPlan, Self)> {
        let mut nodes = Vec::new();
        let plan = plan
            .transform_up(|node| {
                if let LogicalPlan::Extension(ext) = &node {
                    if let Some(wm) = ext.node.as_any().downcast_ref::<WatermarkNode>() {
                        let fresh = wm.with_fresh_stats();
                        nodes.push((
                            Arc::clone(&fresh.stats.0),
                            fresh.delay_ms,
                            fresh.column.clone(),
                        ));
                        return Ok(Transformed::yes(LogicalPlan::Extension(
                            datafusion::logical_expr::Extension {
                                node: Arc::new(fresh),
                            },
                        )));
                    }
                }
                Ok(Transformed::no(node))
            })
            .map_err(Error::from_planning)?
            .data;
        let per_node = vec![0; nodes.len()];
        Ok((
            plan,
            Watermarks {
                nodes,
                per_node,
                max_policy,
            },
        ))
    }

    fn defined(&self) -> bool {
        !self.nodes.is_empty()
    }

    fn columns(&self) -> Vec<String> {
        self.nodes.iter().map(|(_, _, c)| c.clone()).collect()
    }

    /// Fold this batch's statistics in; returns (combined stats, watermark for the next batch).
    fn advance(&mut self, current: i64) -> (EventTimeStats, i64) {
        let mut all = EventTimeStats::default();
        for (i, (stats, delay, _)) in self.nodes.iter().enumerate() {
            let s = stats.take();
            if s.count > 0 {
                self.per_node[i] =
                    self.per_node[i].max(s.max.div_euclid(1000).saturating_sub(*delay));
                if all.count == 0 {
                    all = s;
                } else {
                    all.min = all.min.min(s.min);
                    all.max = all.max.max(s.max);
                    all.sum += s.sum;
                    all.count += s.count;
                }
            }
        }
        let combined = if self.max_policy {
            self.per_node.iter().copied().max()
        } else {
            self.per_node.iter().copied().min()
        }
        .unwrap_or(0);
        (all, combined.max(current))
    }
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
fn optimize_before_operators(plan: LogicalPlan) -> Result<LogicalPlan> {
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

fn plan_with_operators(
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
    };
    let planned = plan_with_operators(&state, plan, &factories, mode, &MemoryProvider, &spec);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(planned?.2)
}

/// The state encoding of the query's checkpoint: the one its offsets
/// record (Spark's default for a checkpoint that records none), else, for
/// a new checkpoint, the session's.
fn state_encoding(cp: &Checkpoint, fresh: bool, conf: &Conf) -> Result<StateEncoding> {
    let value = if fresh {
        conf.get(keys::STATE_STORE_ENCODING)
    } else {
        Checkpoint::recorded_conf(cp.root(), keys::STATE_STORE_ENCODING)?
    };
    Ok(value.map_or_else(StateEncoding::default, |v| StateEncoding::parse(&v)))
}

/// Start a query over `plan` writing to `sink`. Checks the plan (analysis
/// errors surface here, before any thread starts), then runs the loop on a
/// new thread.
pub fn start(
    state: SessionState,
    plan: LogicalPlan,
    sink: Box<dyn Sink>,
    opts: StartOptions,
    conf: &Conf,
    manager: &Arc<QueryManager>,
) -> Result<StreamingQuery> {
    let temporary = opts
        .checkpoint
        .temporary
        .then(|| opts.checkpoint.dir.clone());
    if let Some(dir) = &temporary {
        crate::checkpoint::log::register_volatile(dir);
    }
    let started = start_query(streaming_state(state), plan, sink, opts, conf, manager);
    if let (Err(_), Some(dir)) = (&started, temporary) {
        // a query refused at start leaves no temporary checkpoint behind
        crate::checkpoint::log::forget_volatile(&dir);
        let _ = std::fs::remove_dir_all(dir);
    }
    started
}

/// The session's state for a streaming query: without DataFusion's rule
/// that answers an aggregate from its input's statistics (over an empty
/// micro-batch it replaces the aggregation the query's state is kept by).
fn streaming_state(state: SessionState) -> SessionState {
    let rules = state
        .physical_optimizers()
        .iter()
        .filter(|r| r.name() != "aggregate_statistics")
        .cloned()
        .collect();
    datafusion::execution::session_state::SessionStateBuilder::new_from_existing(state)
        .with_physical_optimizer_rules(rules)
        .build()
}

fn start_query(
    state: SessionState,
    plan: LogicalPlan,
    sink: Box<dyn Sink>,
    opts: StartOptions,
    conf: &Conf,
    manager: &Arc<QueryManager>,
) -> Result<StreamingQuery> {
    let factories: Vec<Arc<dyn SourceFactory>> = stream_tables(&plan);
    if factories.is_empty() {
        return Err(Error::analysis(
            "WRITE_STREAM_NOT_ALLOWED",
            "'writeStream' can be called only on streaming Dataset/DataFrame.",
        ));
    }
    let aggregating = check_supported(&plan, opts.output_mode)?;
    let stateful = aggregating || has_stateful_nodes(&plan);
    check_async_progress(&opts, sink.as_ref(), stateful)?;
    real_time::check_supported(&plan, &opts, sink.as_ref(), &factories, conf)?;
    let max_policy = conf
        .get(keys::MULTIPLE_WATERMARK_POLICY)
        .is_some_and(|p| p.eq_ignore_ascii_case("max"));
    let (plan, watermarks) = Watermarks::attach(plan, max_policy)?;
    // plan once over empty inputs: type errors are analysis errors at start()
    let probe = bind(&plan, &factories, &empty_inputs(&factories)?)?;
    block_on(state.create_physical_plan(&probe))?.map_err(Error::from_planning)?;
    let cp = Checkpoint::open(&opts.checkpoint.dir)?;
    let (id, lock) = own_checkpoint(&cp, opts.name.as_deref(), conf, manager)?;
    let Start {
        batch_id,
        committed,
        replay,
        late_watermark_ms,
    } = resume_point(&cp, factories.len())?;
    let retain = conf.get_i64(keys::MIN_BATCHES_TO_RETAIN, 100).max(1);
    let mut sources = factories
        .iter()
        .enumerate()
        .map(|(index, f)| {
            f.create(&SourceContext {
                index,
                metadata_dir: Some(cp.source_dir(index)),
                min_batches_to_retain: retain,
                real_time: opts.trigger.real_time_interval_ms().is_some(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    for (src, c) in sources.iter_mut().zip(&committed) {
        src.restore(c.as_ref())?;
    }
    let watermark_ms = match (&replay, batch_id) {
        (Some(seq), _) => seq.metadata.batch_watermark_ms,
        (None, 0) => 0,
        (None, b) => cp.read_commit(b - 1)?,
    };
    let partitions = conf.get_i64(keys::SHUFFLE_PARTITIONS, 2).max(1);
    if stateful {
        // beyond Spark: state written with another partition count is
        // repartitioned (also finishes a rescale a crash interrupted)
        for (op, from) in
            crate::state::rescale::rescale(&cp.root().join("state"), batch_id, partitions as usize)?
        {
            log::info!(
                "state of operator {op} in {} repartitioned from {from} to {partitions} partitions",
                cp.root().display()
            );
        }
    }
    let provider = state_store_provider(conf)?;
    let encoding = state_encoding(&cp, replay.is_none() && batch_id == 0, conf)?;
    let op_spec = |id: usize| OperatorStateSpec {
        id,
        dir: cp.root().join("state").join(id.to_string()),
        partitions: partitions as usize,
        version: batch_id,
        min_deltas_for_snapshot: conf.get_i64(keys::MIN_DELTAS_FOR_SNAPSHOT, 10),
        min_versions_to_retain: retain,
        evolution: None,
        encoding,
    };
    let ((plan, mut operators, aggregates, watermark_lags), physical, explain) =
        plan_with_operators(
            &state,
            plan,
            &factories,
            opts.output_mode,
            provider.as_ref(),
            &op_spec,
        )?;
    let late_agg = if aggregating || !aggregates.is_empty() {
        let settings = AggSettings {
            mode: opts.output_mode,
            watermarks: &watermarks,
            watermarked: watermarks_under(&plan),
            provider: provider.as_ref(),
        };
        open_aggregates(&physical, &aggregates, &settings, &op_spec, &mut operators)?;
        aggregates.last().map(|(_, slot)| slot.clone())
    } else {
        None
    };
    operators.sort_by_key(|(id, _)| *id);
    let shared = Arc::new(QueryShared::new(
        id,
        opts.name.clone(),
        explain,
        // Spark keeps one fewer than the setting (it trims before it adds)
        (conf.get_i64(keys::NUM_RECENT_PROGRESS, 100) - 1).max(1) as usize,
        Arc::clone(&manager.bus),
    ));
    manager.register(Arc::clone(&shared));
    shared.bus.started(
        &shared.id,
        &shared.run_id,
        shared.name.as_deref(),
        &crate::engine::progress::format_timestamp_ms(opts.clock.now_ms()),
    );
    let mut conf_snapshot = BTreeMap::new();
    for key in [keys::SHUFFLE_PARTITIONS, keys::SESSION_TIME_ZONE] {
        if let Some(v) = conf.get(key) {
            conf_snapshot.insert(key.to_string(), v);
        }
    }
    conf_snapshot.insert(
        keys::STATE_STORE_ENCODING.to_string(),
        encoding.name().to_string(),
    );
    let observations = observations_in(&plan);
    let optimized = optimize_once(&state, &plan);
    let mut exec = Execution {
        shared: Arc::clone(&shared),
        state,
        observations,
        plan,
        optimized,
        factories,
        sources,
        sink,
        trigger: opts.trigger,
        committed,
        batch_id,
        replay,
        late_agg,
        operators,
        watermark_lags,
        late_sink: opts.late_rows,
        watermarks,
        watermark_ms,
        restored_late_watermark_ms: Some(late_watermark_ms),
        next_watermark_ms: watermark_ms,
        no_data_batches: conf.get_bool(keys::NO_DATA_MICRO_BATCHES, true),
        progress_log: match opts.async_progress.enabled {
            true => Some(AsyncProgressLog::new(
                cp.clone(),
                if opts.trigger.real_time_interval_ms().is_some() {
                    0 // a real-time batch is already one checkpoint interval
                } else {
                    opts.async_progress.interval_ms
                },
            )?),
            false => None,
        },
        checkpoint: cp,
        _lock: lock,
        temporary: opts.checkpoint.temporary,
        retain,
        conf_snapshot,
        last_trigger_start: None,
        // none yet: as in Spark, the first trigger without data reports at once
        last_progress_ms: i64::MIN,
        clock: opts.clock.clone(),
        polling_delay: Duration::from_millis(conf.get_i64(keys::POLLING_DELAY, 10).max(1) as u64),
        no_data_interval_ms: conf.get_i64(keys::NO_DATA_PROGRESS_INTERVAL, 10_000),
    };
    let thread_manager = Arc::clone(manager);
    let thread_shared = Arc::clone(&shared);
    let handle = std::thread::Builder::new()
        .name(format!(
            "stream execution thread for {}",
            opts.name.as_deref().unwrap_or(&shared.id)
        ))
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| exec.run())).unwrap_or_else(|p| {
                Err(Error::Internal(crate::runtime::panic_message(p.as_ref())))
            });
            let (temporary, root) = (exec.temporary, exec.checkpoint.root().to_path_buf());
            // state stores close (RocksDB flushes) before anyone learns the
            // query ended: a process that exits then leaves nothing open
            drop(exec);
            if temporary {
                crate::checkpoint::log::forget_volatile(&root);
                // a temporary checkpoint goes with the query; a failed one's
                // stays for a look until the process exits, as in Spark
                match outcome {
                    Ok(()) => {
                        let _ = std::fs::remove_dir_all(root);
                    }
                    Err(_) => FAILED_TEMPORARY.lock().push(root),
                }
            }
            let error = outcome
                .as_ref()
                .err()
                .map(|e| (e.to_string(), e.condition().map(str::to_string)));
            thread_manager.deactivate(&thread_shared);
            thread_shared.update(|st| {
                st.active = false;
                st.status = QueryStatus::new("Stopped", false, false);
                if let Err(e) = outcome {
                    st.exception = Some(Arc::new(e));
                }
            });
            thread_manager.terminated(&thread_shared);
            thread_shared
                .bus
                .terminated(&thread_shared.id, &thread_shared.run_id, error);
        })
        .map_err(|e| Error::Internal(format!("cannot start the query thread: {e}")))?;
    *shared.thread_id.lock() = Some(handle.thread().id());
    *shared.thread.lock() = Some(handle);
    Ok(StreamingQuery { shared })
}

struct Execution {
    shared: Arc<QueryShared>,
    state: SessionState,
    plan: LogicalPlan,
    /// `plan` optimized once at start (see [`optimize_once`]): each batch
    /// binds its data into it and goes straight to physical planning.
    optimized: Option<LogicalPlan>,
    /// The plan's `observe` nodes (metrics computed after each batch).
    observations: Vec<ObserveNode>,
    factories: Vec<Arc<dyn SourceFactory>>,
    sources: Vec<Box<dyn Source>>,
    sink: Box<dyn Sink>,
    trigger: Trigger,
    committed: Vec<Option<Offset>>,
    batch_id: i64,
    /// A batch planned by an earlier run but not committed: run it first.
    replay: Option<OffsetSeq>,
    /// The streaming aggregation, if the query has one.
    /// The streaming aggregation reading the input (its late rows go to the late-rows sink).
    late_agg: Option<OperatorSlot<StatefulAggregate>>,
    /// The watermark of the batch before this run's first, from the
    /// checkpoint; taken by the first batch, which filters late rows against it.
    restored_late_watermark_ms: Option<i64>,
    /// The other stateful operators, with their operator ids.
    operators: Vec<(usize, Arc<dyn OperatorControl>)>,
    /// Each operator's lag behind the watermark (after stream-stream joins).
    watermark_lags: WatermarkLags,
    /// Receives the rows the aggregation dropped as late, per batch.
    late_sink: Option<Box<dyn Sink>>,
    watermarks: Watermarks,
    /// Watermark of the last batch run, ms.
    watermark_ms: i64,
    /// Watermark the next batch will run with, ms.
    next_watermark_ms: i64,
    /// `spark.sql.streaming.noDataMicroBatches.enabled`.
    no_data_batches: bool,
    checkpoint: Checkpoint,
    /// This run's ownership of the checkpoint, released as the run ends.
    _lock: CheckpointLock,
    /// Writes the offsets and commit logs in the background
    /// (asynchronous progress tracking); `None`: on the batch's path.
    progress_log: Option<AsyncProgressLog>,
    temporary: bool,
    /// `spark.sql.streaming.minBatchesToRetain`.
    retain: i64,
    /// Settings recorded in every `offsets/N`.
    conf_snapshot: BTreeMap<String, String>,
    last_trigger_start: Option<i64>,
    last_progress_ms: i64,
    /// What triggers and processing time follow.
    clock: crate::engine::clock::Clock,
    polling_delay: Duration,
    no_data_interval_ms: i64,
}

/// The `observe` nodes of `plan`.
fn observations_in(plan: &LogicalPlan) -> Vec<ObserveNode> {
    let mut found = Vec::new();
    let _ = plan.apply(|node| {
        if let LogicalPlan::Extension(ext) = node {
            if let Some(o) = ext.node.as_any().downcast_ref::<ObserveNode>() {
                found.push(o.clone());
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

impl Execution {
    /// Each observation's metrics over the rows this batch passed through
    /// it: one row of its aggregates, as JSON.
    fn observed_metrics(&self) -> Result<BTreeMap<String, serde_json::Value>> {
        let mut out = BTreeMap::new();
        for o in &self.observations {
            let schema: arrow::datatypes::SchemaRef = Arc::new(o.input.schema().as_arrow().clone());
            let rows = o.slot.with(|obs| Ok(obs.take()))?;
            let table = MemTable::try_new(Arc::clone(&schema), vec![rows])?;
            let df = datafusion::dataframe::DataFrame::new(
                self.state.clone(),
                datafusion::logical_expr::LogicalPlanBuilder::scan(
                    "observed",
                    datafusion::datasource::provider_as_source(Arc::new(table)),
                    None,
                )?
                .build()?,
            )
            .aggregate(vec![], o.exprs.clone())
            .map_err(Error::from_planning)?;
            let rows = block_on(df.collect())?.map_err(Error::from_execution)?;
            let mut writer = arrow::json::ArrayWriter::new(Vec::new());
            for b in &rows {
                writer.write(b)?;
            }
            writer.finish()?;
            let text = writer.into_inner();
            let row = serde_json::from_slice::<Vec<serde_json::Value>>(&text)
                .ok()
                .and_then(|mut r| (!r.is_empty()).then(|| r.swap_remove(0)))
                .unwrap_or_else(|| serde_json::json!({}));
            out.insert(o.name.clone(), row);
        }
        Ok(out)
    }

    /// Spark's `shouldRunAnotherBatch`: a stateful query whose watermark
    /// advanced since its last batch has state to evict or emit.
    fn needs_no_data_batch(&self) -> bool {
        let watermark_moved = self.watermarks.defined()
            && self.next_watermark_ms > self.watermark_ms
            && self.operators.iter().any(|(_, op)| op.acts_on_watermark());
        // state timing out by processing time (Spark runs a batch on every
        // trigger for it; here only once a timeout is due)
        let timeout_due = matches!(self.trigger, Trigger::ProcessingTime { .. })
            && self.operators.iter().any(|(_, op)| {
                // past, not at: a state times out once the batch time exceeds it
                op.next_timeout_ms()
                    .is_some_and(|t| t < self.clock.now_ms())
            });
        self.no_data_batches
            && self.trigger != Trigger::Once
            && !self.operators.is_empty()
            && (watermark_moved || timeout_due)
    }

    /// Publish how far an `AvailableNow` run is (for progress bars).
    fn publish_backlog(&self) {
        let backlog = crate::sources::Backlog::sum(self.sources.iter().filter_map(|s| s.backlog()));
        self.shared.update(|st| st.backlog = backlog);
    }

    fn stopping(&self) -> bool {
        self.shared.stop.load(Ordering::SeqCst)
    }

    fn run(&mut self) -> Result<()> {
        self.run_loop()?;
        // a graceful stop: what the background writer holds reaches disk
        match &mut self.progress_log {
            Some(log) => log.finish(),
            None => Ok(()),
        }
    }

    fn run_loop(&mut self) -> Result<()> {
        if let Some(interval_ms) = self.trigger.real_time_interval_ms() {
            return self.run_real_time(interval_ms);
        }
        if self.trigger == Trigger::AvailableNow {
            for s in &mut self.sources {
                s.prepare_for_available_now()?;
            }
            self.publish_backlog();
        }
        if self.trigger == Trigger::Once {
            for s in &mut self.sources {
                s.ignore_read_limits();
            }
        }
        if let Some(seq) = self.replay.take() {
            // same offsets, same batch id, same batch timestamp as the first attempt
            let start_ms = seq.metadata.batch_timestamp_ms;
            self.run_batch(seq.offsets, start_ms, 0, Instant::now(), false)?;
            if self.trigger == Trigger::Once {
                return Ok(());
            }
        }
        let wake = global_wake();
        while !self.stopping() {
            let seen = wake.seq();
            let trigger_start = Instant::now();
            let start_ms = self.clock.now_ms();
            self.shared.update(|st| {
                st.status = QueryStatus::new("Getting offsets from sources", false, true)
            });
            let t = Instant::now();
            let latest = self.latest_offsets()?;
            let latest_ms = t.elapsed().as_millis() as i64;
            let has_data = any_new(&latest, &self.committed);
            if !has_data && self.needs_no_data_batch() {
                // the watermark moved: run a batch without data so windows close
                let latest = self.committed.clone();
                self.run_batch(latest, start_ms, latest_ms, trigger_start, true)?;
                continue;
            }
            if !has_data {
                self.idle(start_ms, latest_ms, trigger_start)?;
                if matches!(self.trigger, Trigger::Once | Trigger::AvailableNow) {
                    return Ok(());
                }
                self.wait_next(trigger_start, start_ms, seen);
                continue;
            }
            self.run_batch(latest, start_ms, latest_ms, trigger_start, true)?;
            if self.trigger == Trigger::Once {
                return Ok(());
            }
            if self.trigger == Trigger::AvailableNow {
                self.publish_backlog();
            }
            // after a batch with data, the default trigger goes straight on
            if matches!(self.trigger, Trigger::ProcessingTime { interval_ms } if interval_ms > 0) {
                self.wait_next(trigger_start, start_ms, wake.seq());
            }
        }
        Ok(())
    }

    /// Each source's newest offset.
    fn latest_offsets(&mut self) -> Result<Vec<Option<Offset>>> {
        self.sources.iter_mut().map(|s| s.latest_offset()).collect()
    }

    /// No new data: tell waiters, and report an idle progress now and then.
    fn idle(&mut self, start_ms: i64, latest_ms: i64, trigger_start: Instant) -> Result<()> {
        let message = match self.trigger {
            Trigger::ProcessingTime { interval_ms: 0 } => "Waiting for data to arrive",
            _ => "Waiting for next trigger",
        };
        if start_ms.saturating_sub(self.last_progress_ms) >= self.no_data_interval_ms {
            let mut duration = BTreeMap::new();
            duration.insert("latestOffset".to_string(), latest_ms);
            duration.insert(
                "triggerExecution".to_string(),
                trigger_start.elapsed().as_millis() as i64,
            );
            let sources = self
                .sources
                .iter()
                .zip(&self.committed)
                .map(|(s, c)| SourceProgress {
                    description: s.description(),
                    start_offset: c.clone(),
                    end_offset: c.clone(),
                    latest_offset: c.clone(),
                    num_input_rows: 0,
                    input_rows_per_second: 0.0,
                    processed_rows_per_second: 0.0,
                    metrics: s.metrics(c.as_ref()),
                })
                .collect();
            let p = self.progress(start_ms, 0, duration, sources, 0);
            self.shared.push_idle_progress(p);
            self.last_progress_ms = start_ms;
        }
        let nanos = trigger_start.elapsed().as_nanos() as u64;
        self.shared.update(|st| {
            st.status = QueryStatus::new(message, false, false);
            st.idle_checks += 1;
            st.idle_nanos.push_back(nanos);
            if st.idle_nanos.len() > 1024 {
                st.idle_nanos.pop_front();
            }
        });
        Ok(())
    }

    /// Sleep until the next trigger (or until woken by new data / stop).
    fn wait_next(&self, trigger_start: Instant, start_ms: i64, seen: u64) {
        let wake = global_wake();
        if let (
            crate::engine::clock::Clock::Manual(clock),
            Trigger::ProcessingTime { interval_ms },
        ) = (&self.clock, self.trigger)
        {
            // the next trigger is due when the manual clock reaches it; tests
            // see the query waiting there (Spark's isStreamWaitingAt)
            let next = start_ms + interval_ms.max(1) as i64;
            self.shared.update(|st| st.waiting_until_ms = Some(next));
            while !self.stopping() {
                let seq = wake.seq();
                if clock.now_ms() >= next {
                    break;
                }
                wake.wait(seq, Duration::from_millis(100));
            }
            self.shared.update(|st| st.waiting_until_ms = None);
            return;
        }
        match self.trigger {
            Trigger::ProcessingTime { interval_ms } if interval_ms > 0 => {
                let next = trigger_start + Duration::from_millis(interval_ms);
                while !self.stopping() {
                    let now = Instant::now();
                    if now >= next {
                        break;
                    }
                    wake.wait(wake.seq(), (next - now).min(Duration::from_millis(100)));
                }
            }
            _ => wake.wait(seen, self.polling_delay),
        }
    }

    fn progress(
        &self,
        start_ms: i64,
        num_input_rows: i64,
        duration_ms: BTreeMap<String, i64>,
        sources: Vec<SourceProgress>,
        num_output_rows: i64,
    ) -> QueryProgress {
        let trigger_ms = duration_ms.get("triggerExecution").copied().unwrap_or(0);
        let since_last = self.last_trigger_start.map(|t| start_ms - t).unwrap_or(0);
        QueryProgress {
            id: self.shared.id.clone(),
            run_id: self.shared.run_id.clone(),
            name: self.shared.name.clone(),
            timestamp: format_timestamp_ms(start_ms),
            batch_id: self.batch_id,
            batch_duration: trigger_ms,
            num_input_rows,
            input_rows_per_second: rate(num_input_rows, since_last),
            processed_rows_per_second: rate(num_input_rows, trigger_ms),
            duration_ms,
            event_time: BTreeMap::new(),
            state_operators: Vec::new(),
            sources,
            sink: SinkProgress {
                description: self.sink.description(),
                num_output_rows,
            },
            observed_metrics: BTreeMap::new(),
        }
    }

    /// Each source's data in `(from, to]` (an empty table where nothing is
    /// new) and its row count.
    fn read_inputs(
        &mut self,
        from: &[Option<Offset>],
        to: &[Option<Offset>],
    ) -> Result<(BatchInputs, Vec<i64>)> {
        let mut inputs = Vec::with_capacity(self.sources.len());
        let mut rows = Vec::with_capacity(self.sources.len());
        for (i, src) in self.sources.iter_mut().enumerate() {
            let input = match &to[i] {
                Some(end) if Some(end) != from[i].as_ref() => {
                    src.get_batch(from[i].as_ref(), end)?
                }
                _ => BatchInput {
                    provider: Arc::new(MemTable::try_new(
                        self.factories[i].schema(),
                        vec![vec![]],
                    )?),
                    num_rows: 0,
                },
            };
            rows.push(input.num_rows as i64);
            inputs.push(input.provider);
        }
        Ok((inputs, rows))
    }

    /// The physical plan of a batch of timestamp `start_ms` over `inputs`.
    fn plan_physical(
        &mut self,
        inputs: &[Arc<dyn datafusion::catalog::TableProvider>],
        start_ms: i64,
    ) -> Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
        // current_timestamp() is the batch's timestamp, as in Spark (kept in
        // the offset log: a batch run again sees the same time)
        self.state.execution_props_mut().query_execution_start_time =
            chrono::DateTime::from_timestamp_millis(start_ms);
        match &self.optimized {
            Some(optimized) => {
                let bound = bind(optimized, &self.factories, inputs)?;
                let planner = self.state.query_planner();
                block_on(planner.create_physical_plan(&bound, &self.state))?
            }
            None => {
                let bound = bind(&self.plan, &self.factories, inputs)?;
                block_on(self.state.create_physical_plan(&bound))?
            }
        }
        .map_err(Error::from_planning)
    }

    fn run_batch(
        &mut self,
        latest: Vec<Option<Offset>>,
        start_ms: i64,
        latest_ms: i64,
        trigger_start: Instant,
        write_wal: bool,
    ) -> Result<()> {
        self.shared
            .update(|st| st.status = QueryStatus::new("Processing new data", true, true));
        let mut duration = BTreeMap::new();
        duration.insert("latestOffset".to_string(), latest_ms);

        // write-ahead: offsets/N, durable before the batch's result reaches
        // the sink or the state; written (fsynced) while the batch is read
        // and run, which nothing outside the process sees
        let wal = if write_wal {
            self.log_offsets(&latest, start_ms)?
        } else {
            if let Some(log) = &mut self.progress_log {
                log.replaying(self.batch_id);
            }
            OffsetsWrite::Done(0)
        };
        let ran = self.read_and_run(&latest, start_ms, &mut duration);
        let wal_nanos = wal.wait()?;
        duration.insert("walCommit".to_string(), (wal_nanos / 1_000_000) as i64);
        failpoint::hit("after-offsets", self.batch_id);
        let (data, rows, t) = ran?;

        let num_output = data.num_rows() as i64;
        let batch_id = self.batch_id;
        self.commit_state_beside(|sink| sink.add_batch(batch_id, data))?;
        duration.insert("addBatch".to_string(), t.elapsed().as_millis() as i64);
        self.finish_batch(
            latest,
            rows,
            (start_ms, trigger_start),
            duration,
            num_output,
            wal_nanos,
        )
    }

    /// Read the batch's input up to `latest` and run its plan: the result,
    /// the rows read per source, and when the run started (`addBatch`
    /// counts from there).
    fn read_and_run(
        &mut self,
        latest: &[Option<Offset>],
        start_ms: i64,
        duration: &mut BTreeMap<String, i64>,
    ) -> Result<(SinkBatch, Vec<i64>, Instant)> {
        let t = Instant::now();
        let committed = self.committed.clone();
        let (inputs, rows) = self.read_inputs(&committed, latest)?;
        duration.insert("getBatch".to_string(), t.elapsed().as_millis() as i64);

        let t = Instant::now();
        failpoint::panic_at("panic-in-planning", self.batch_id);
        let physical = self.plan_physical(&inputs, start_ms)?;
        duration.insert("queryPlanning".to_string(), t.elapsed().as_millis() as i64);

        let t = Instant::now();
        self.begin_operators(start_ms);
        let data = run_plan(physical, Arc::new(TaskContext::from(&self.state)))?;
        Ok((data, rows, t))
    }

    /// Start writing `offsets/N` for the current batch ending at `end`: on
    /// a blocking thread, or by the background writer under asynchronous
    /// progress tracking.
    fn log_offsets(&mut self, end: &[Option<Offset>], start_ms: i64) -> Result<OffsetsWrite> {
        let t = Instant::now();
        let seq = OffsetSeq {
            metadata: OffsetSeqMetadata {
                batch_watermark_ms: self.next_watermark_ms,
                batch_timestamp_ms: start_ms,
                conf: self.conf_snapshot.clone(),
            },
            offsets: end.to_vec(),
        };
        if let Some(log) = &mut self.progress_log {
            log.offsets(self.batch_id, seq)?;
            return Ok(OffsetsWrite::Done(t.elapsed().as_nanos() as u64));
        }
        let (checkpoint, batch) = (self.checkpoint.clone(), self.batch_id);
        Ok(OffsetsWrite::Pending(on_blocking_thread(move || {
            let t = Instant::now();
            checkpoint.write_offsets(batch, &seq)?;
            Ok(t.elapsed().as_nanos() as u64)
        })?))
    }

    /// The batch starts: it runs with the watermark computed after the
    /// previous one, which the stateful operators learn.
    fn begin_operators(&mut self, start_ms: i64) {
        // rows at or below the previous batch's watermark are late; after a
        // restart that batch ran in an earlier run (a restart changes nothing)
        let late_ms = self
            .restored_late_watermark_ms
            .take()
            .unwrap_or(self.watermark_ms);
        self.watermark_ms = self.next_watermark_ms;
        let defined = self.watermarks.defined();
        for (id, op) in &self.operators {
            // behind a stream-stream join, the join's output watermark
            let lag = self.watermark_lags.get(id).copied().unwrap_or(0);
            let late_us = defined.then_some(late_ms * 1000 - lag);
            let evict_us = defined.then_some(self.watermark_ms * 1000 - lag);
            op.begin_batch(late_us, evict_us);
            op.batch_started(self.batch_id, start_ms);
        }
    }

    /// Commit the stateful operators' state while `deliver` hands the
    /// batch's output to the sink (and the aggregation's late rows to
    /// theirs).
    fn commit_state_beside(
        &mut self,
        deliver: impl FnOnce(&mut dyn Sink) -> Result<()>,
    ) -> Result<()> {
        if let (Some(late), Some(agg)) = (&mut self.late_sink, &self.late_agg) {
            let (rows, input_schema) = agg.with(|a| {
                Ok((
                    std::mem::take(&mut a.late_rows),
                    Arc::clone(&a.input_schema),
                ))
            })?;
            late.add_batch(
                self.batch_id,
                late_rows(&rows, input_schema, self.batch_id)?,
            )?;
        }
        // the state commits (delta files, fsynced) while the sink runs: the
        // output is already computed, and the batch counts as done only
        // once both have finished and commits/N is written. The commit runs
        // on the runtime's long-lived blocking threads (a thread per batch
        // would start from fresh, kernel-zeroed pages every time).
        let commits = if self.operators.is_empty() {
            None
        } else {
            let ops: Vec<_> = self
                .operators
                .iter()
                .map(|(_, op)| Arc::clone(op))
                .collect();
            let batch = self.batch_id;
            Some(on_blocking_thread(move || {
                failpoint::panic_at("panic-in-execution", batch);
                ops.iter().try_for_each(|op| op.commit())
            })?)
        };
        let sunk = deliver(self.sink.as_mut());
        let committed = commits.map_or(Ok(()), |c| c.wait("a state commit"));
        sunk?;
        committed
    }

    /// The batch's output is delivered and its state committed: write
    /// `commits/N`, let the sources go, report progress, move on.
    fn finish_batch(
        &mut self,
        latest: Vec<Option<Offset>>,
        rows: Vec<i64>,
        (start_ms, trigger_start): (i64, Instant),
        mut duration: BTreeMap<String, i64>,
        num_output: i64,
        wal_nanos: u64,
    ) -> Result<()> {
        let observed = self.observed_metrics()?;
        let (stats, next_wm) = self.watermarks.advance(self.watermark_ms);
        self.next_watermark_ms = next_wm;
        failpoint::hit("after-sink", self.batch_id);

        // commits/N: the batch is done and never delivered again
        let t = Instant::now();
        match &mut self.progress_log {
            Some(log) => log.commit(self.batch_id, self.next_watermark_ms)?,
            None => self
                .checkpoint
                .write_commit(self.batch_id, self.next_watermark_ms)?,
        }
        let commit_nanos = t.elapsed().as_nanos() as u64;
        failpoint::hit("after-commit", self.batch_id);
        for (i, src) in self.sources.iter_mut().enumerate() {
            if let Some(end) = &latest[i] {
                src.commit(end)?;
            }
        }
        if self.batch_id % 10 == 0 {
            // retention is housekeeping: keep it off the batch's critical path
            let (cp, batch, retain) = (self.checkpoint.clone(), self.batch_id, self.retain);
            std::thread::spawn(move || {
                if let Err(e) = cp.purge(batch, retain) {
                    log::warn!("checkpoint retention at batch {batch} failed: {e}");
                }
            });
        }
        duration.insert("commitOffsets".to_string(), t.elapsed().as_millis() as i64);
        self.shared.update(|st| {
            st.checkpoint_nanos.push_back(wal_nanos + commit_nanos);
            if st.checkpoint_nanos.len() > 1024 {
                st.checkpoint_nanos.pop_front();
            }
        });
        let trigger_ms = trigger_start.elapsed().as_millis() as i64;
        duration.insert("triggerExecution".to_string(), trigger_ms);

        let since_last = self.last_trigger_start.map(|t| start_ms - t).unwrap_or(0);
        let sources = self
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| SourceProgress {
                description: s.description(),
                start_offset: self.committed[i].clone(),
                end_offset: latest[i].clone(),
                latest_offset: latest[i].clone(),
                num_input_rows: rows[i],
                input_rows_per_second: rate(rows[i], since_last),
                processed_rows_per_second: rate(rows[i], trigger_ms),
                metrics: s.metrics(latest[i].as_ref()),
            })
            .collect();
        let total_rows = rows.iter().sum();
        let mut p = self.progress(start_ms, total_rows, duration, sources, num_output);
        if self.watermarks.defined() {
            let fmt = |us: i64| format_timestamp_ms(us.div_euclid(1000));
            if stats.count > 0 {
                p.event_time.insert("min".into(), fmt(stats.min));
                p.event_time.insert("max".into(), fmt(stats.max));
                p.event_time
                    .insert("avg".into(), fmt(stats.avg().unwrap_or(0)));
            }
            p.event_time
                .insert("watermark".into(), format_timestamp_ms(self.watermark_ms));
        }
        p.observed_metrics = observed;
        // stateOperators in operator id order, as Spark lists them
        p.state_operators
            .extend(self.operators.iter().map(|(_, op)| op.progress()));
        self.shared.push_progress(p);
        self.last_progress_ms = start_ms;
        self.last_trigger_start = Some(start_ms);
        self.committed = latest;
        self.batch_id += 1;
        Ok(())
    }
}
