//! A hash join's build side chosen from the inputs' real sizes, as Spark's
//! adaptive execution does (`spark.sql.adaptive.enabled`, on by default).
//!
//! DataFusion picks the build side from estimates, and over files with a
//! filter the estimates are guesses: Nexmark q4's auctions and bids (one
//! input filtered two ways) came out the same size, and the hash table was
//! built on the 9.2M bids instead of the 0.6M auctions (650 MB of fresh
//! pages, 0.6-1.2 s instead of 0.4-0.5). So an inner join planned with
//! both sides hash-partitioned (sizes unknown) reads both inputs at once
//! instead, and the smaller becomes the build side: the input that ends
//! first, or the one with fewer rows when the other has read a million.
//! Its rows make one hash table every probe partition shares (Spark's
//! broadcast hash join), or are partitioned again when they are many. The
//! other input's batches read meanwhile are replayed ahead of its rest, so
//! nothing is read twice. Unlike Spark, sizes are compared in rows as they
//! are read, not in bytes of finished shuffle stages.

use std::sync::Arc;
use std::task::Poll;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{JoinType, Result as DFResult};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::{StreamExt, TryStreamExt};
use parking_lot::Mutex;
use tokio::sync::mpsc;

/// Build sides up to this many rows are one shared hash table; larger ones
/// are split by key over the cores, as DataFusion planned (one thread
/// building a table of tens of millions of rows leaves the others idle).
const SHARED_BUILD_MAX_ROWS: usize = 4_000_000;

/// Rows read from one input after which the input with fewer rows so far
/// is taken to be the smaller one. Two inputs over the same files (q4's
/// auctions and bids) end together, so waiting for the first to end would
/// hold nearly all of the larger one in memory; their rates tell them
/// apart early.
const RACE_ROWS: usize = 1 << 20;

/// Batches an input may read ahead of the join once the sides are chosen.
const READ_AHEAD: usize = 4;

/// The rule: runs after DataFusion's `JoinSelection` (which picks the
/// partitioned mode when sizes are unknown) and before distribution is
/// enforced (so what the join's consumers need is planned over this node).
#[derive(Debug, Clone, Copy)]
pub struct AdaptiveJoins {
    /// See [`RACE_ROWS`].
    pub race_rows: usize,
    /// See [`SHARED_BUILD_MAX_ROWS`].
    pub shared_build_max_rows: usize,
}

impl Default for AdaptiveJoins {
    fn default() -> Self {
        AdaptiveJoins {
            race_rows: RACE_ROWS,
            shared_build_max_rows: SHARED_BUILD_MAX_ROWS,
        }
    }
}

impl PhysicalOptimizerRule for AdaptiveJoins {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|p| {
            let Some(join) = p.downcast_ref::<HashJoinExec>() else {
                return Ok(Transformed::no(p));
            };
            let bounded = |c: &Arc<dyn ExecutionPlan>| !c.properties().boundedness.is_unbounded();
            let adaptive = *join.partition_mode() == PartitionMode::Partitioned
                && *join.join_type() == JoinType::Inner
                && bounded(join.left())
                && bounded(join.right());
            if !adaptive {
                return Ok(Transformed::no(p));
            }
            Ok(Transformed::yes(Arc::new(AdaptiveJoinExec::new(
                Arc::new(join.builder().reset_state().build()?),
                Arc::clone(join.left()),
                Arc::clone(join.right()),
                *self,
            )) as Arc<dyn ExecutionPlan>))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "AdaptiveJoins"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `rule` placed in DataFusion's physical rules right after
/// `JoinSelection`, the one place it works: after distribution is enforced
/// the join's consumers rely on its hash partitioning. Without that rule
/// (a DataFusion that renamed it) the rules are left as they are.
pub fn with_adaptive_joins(
    mut rules: Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>,
    rule: AdaptiveJoins,
) -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    if let Some(at) = rules.iter().position(|r| r.name() == "join_selection") {
        rules.insert(at + 1, Arc::new(rule));
    }
    rules
}

type Decided = Result<Arc<dyn ExecutionPlan>, Arc<DataFusionError>>;

/// An inner hash join whose build side is the smaller input, as read.
#[derive(Debug)]
pub struct AdaptiveJoinExec {
    /// DataFusion's join: its keys, filter, projection (children replaced).
    join: Arc<HashJoinExec>,
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
    limits: AdaptiveJoins,
    /// The join as run, once both inputs have been read up to the choice.
    decided: Arc<tokio::sync::OnceCell<Decided>>,
}

impl AdaptiveJoinExec {
    fn new(
        join: Arc<HashJoinExec>,
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        limits: AdaptiveJoins,
    ) -> Self {
        let n = partitions(&left).max(partitions(&right)).max(1);
        let properties = bounded(join.schema(), n);
        AdaptiveJoinExec {
            join,
            left,
            right,
            properties,
            limits,
            decided: Arc::default(),
        }
    }

    /// Read both inputs until one ends, then plan the join on it.
    async fn decide(&self, context: Arc<TaskContext>) -> DFResult<Arc<dyn ExecutionPlan>> {
        let mut sides = [
            Input::start(&self.left, &context),
            Input::start(&self.right, &context),
        ];
        let first = race(&mut sides, self.limits.race_rows).await?;
        let [left, right] = sides;
        let (build, probe) = match first {
            0 => (left, right),
            _ => (right, left),
        };
        let n = self.properties.partitioning.partition_count();
        let build_schema = Arc::clone(&build.schema);
        let probe_schema = Arc::clone(&probe.schema);
        let shared = build.rows <= self.limits.shared_build_max_rows;
        let batches: Vec<RecordBatch> = build.parts.into_iter().flat_map(|p| p.buffered).collect();
        let build_parts = if shared {
            vec![batches]
        } else {
            let mut parts = vec![Vec::new(); n];
            for (i, b) in batches.into_iter().enumerate() {
                parts[i % n].push(b);
            }
            parts
        };
        let mut build: Arc<dyn ExecutionPlan> =
            MemorySourceConfig::try_new_exec(&build_parts, build_schema, None)?;
        let mut probe: Arc<dyn ExecutionPlan> = Arc::new(Replay::new(probe.parts, probe_schema, n));
        let mode = if shared {
            PartitionMode::CollectLeft
        } else {
            // the join's own key expressions, each side's over its schema
            let keys = |build_side: bool| -> Vec<Arc<dyn PhysicalExpr>> {
                self.join
                    .on()
                    .iter()
                    .map(|(l, r)| Arc::clone(if build_side == (first == 0) { l } else { r }))
                    .collect()
            };
            build = Arc::new(RepartitionExec::try_new(
                build,
                Partitioning::Hash(keys(true), n),
            )?);
            probe = Arc::new(RepartitionExec::try_new(
                probe,
                Partitioning::Hash(keys(false), n),
            )?);
            PartitionMode::Partitioned
        };
        let children = match first {
            0 => vec![build, probe],
            _ => vec![probe, build],
        };
        let join = self
            .join
            .builder()
            .with_new_children(children)?
            .with_partition_mode(mode)
            .reset_state()
            .recompute_properties()
            .build()?;
        match first {
            0 => Ok(Arc::new(join)),
            // the right input is built: swapped, its columns put back in place
            _ => join.swap_inputs(mode),
        }
    }
}

/// A bounded plan's properties: `n` partitions, rows as they come.
fn bounded(schema: SchemaRef, n: usize) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(schema),
        Partitioning::UnknownPartitioning(n),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ))
}

fn partitions(plan: &Arc<dyn ExecutionPlan>) -> usize {
    plan.properties().partitioning.partition_count()
}

/// One input partition being read by a task of its own.
struct Part {
    buffered: Vec<RecordBatch>,
    batches: mpsc::Receiver<DFResult<RecordBatch>>,
    done: bool,
    /// Reading the partition; aborted when dropped (a failed or finished join).
    _task: SpawnedTask<()>,
}

/// An input's partitions, read side by side.
struct Input {
    schema: SchemaRef,
    parts: Vec<Part>,
    /// Rows in `parts`' buffers.
    rows: usize,
}

impl Input {
    fn start(plan: &Arc<dyn ExecutionPlan>, context: &Arc<TaskContext>) -> Self {
        let parts = (0..partitions(plan))
            .map(|p| {
                let (tx, batches) = mpsc::channel(READ_AHEAD);
                let (plan, context) = (Arc::clone(plan), Arc::clone(context));
                let task = SpawnedTask::spawn(async move {
                    let mut stream = match plan.execute(p, context) {
                        Ok(s) => s,
                        Err(e) => {
                            let _ = tx.send(Err(e)).await;
                            return;
                        }
                    };
                    while let Some(b) = stream.next().await {
                        let failed = b.is_err();
                        // the join stopped reading, or the input failed
                        if tx.send(b).await.is_err() || failed {
                            return;
                        }
                    }
                });
                Part {
                    buffered: Vec::new(),
                    batches,
                    done: false,
                    _task: task,
                }
            })
            .collect();
        Input {
            schema: plan.schema(),
            parts,
            rows: 0,
        }
    }

    fn ended(&self) -> bool {
        self.parts.iter().all(|p| p.done)
    }

    /// Take what the input's partitions have read (Pending once none has
    /// more); an input's error is returned.
    fn drain(&mut self, cx: &mut std::task::Context<'_>) -> DFResult<()> {
        let mut rows = 0;
        for part in self.parts.iter_mut().filter(|p| !p.done) {
            loop {
                match part.batches.poll_recv(cx) {
                    Poll::Ready(Some(Ok(b))) => {
                        rows += b.num_rows();
                        part.buffered.push(b);
                    }
                    Poll::Ready(Some(Err(e))) => return Err(e),
                    Poll::Ready(None) => {
                        part.done = true;
                        break;
                    }
                    Poll::Pending => break,
                }
            }
        }
        self.rows += rows;
        Ok(())
    }
}

/// Read both inputs side by side until one ends or one has read
/// `race_rows` ([`RACE_ROWS`]); the build side is the one that ended, or else the one
/// with fewer rows (the left on a tie), which is then read to its end
/// while the other waits. Its index (0 left, 1 right).
async fn race(sides: &mut [Input; 2], race_rows: usize) -> DFResult<usize> {
    let chosen = futures::future::poll_fn(|cx| {
        for side in sides.iter_mut() {
            if let Err(e) = side.drain(cx) {
                return Poll::Ready(Err(e));
            }
        }
        let [l, r] = [&sides[0], &sides[1]];
        if l.ended() {
            return Poll::Ready(Ok(0));
        }
        if r.ended() {
            return Poll::Ready(Ok(1));
        }
        let (lr, rr) = (l.rows, r.rows);
        if lr.max(rr) >= race_rows {
            return Poll::Ready(Ok(usize::from(rr < lr)));
        }
        Poll::Pending
    })
    .await?;
    let build = &mut sides[chosen];
    futures::future::poll_fn(|cx| match build.drain(cx) {
        Err(e) => Poll::Ready(Err(e)),
        Ok(()) if build.ended() => Poll::Ready(Ok(())),
        Ok(()) => Poll::Pending,
    })
    .await?;
    Ok(chosen)
}

/// The probe input: each partition's batches read during the race, then
/// the rest as it comes (partitions past the input's own are empty).
#[derive(Debug)]
struct Replay {
    parts: Mutex<Vec<Option<ReplayPart>>>,
    properties: Arc<PlanProperties>,
}

struct ReplayPart(Part);

impl std::fmt::Debug for ReplayPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReplayPart({} batches read)", self.0.buffered.len())
    }
}

impl Replay {
    fn new(parts: Vec<Part>, schema: SchemaRef, n: usize) -> Self {
        let mut parts: Vec<Option<ReplayPart>> =
            parts.into_iter().map(|p| Some(ReplayPart(p))).collect();
        parts.resize_with(n.max(parts.len()), || None);
        let properties = bounded(schema, parts.len());
        Replay {
            parts: Mutex::new(parts),
            properties,
        }
    }
}

impl DisplayAs for Replay {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "ReplayExec")
    }
}

impl ExecutionPlan for Replay {
    fn name(&self) -> &str {
        "ReplayExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let schema = self.schema();
        let part = match self.parts.lock().get_mut(partition) {
            Some(slot) => slot.take(),
            None => None,
        };
        let Some(ReplayPart(part)) = part else {
            return Ok(Box::pin(RecordBatchStreamAdapter::new(
                schema,
                futures::stream::empty(),
            )));
        };
        let Part {
            buffered,
            batches,
            _task,
            ..
        } = part;
        // the task goes with the stream: dropping it stops the read
        let rest = futures::stream::unfold((batches, _task), |(mut batches, task)| async move {
            let b = batches.recv().await?;
            Some((b, (batches, task)))
        });
        let stream = futures::stream::iter(buffered.into_iter().map(Ok)).chain(rest);
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

impl DisplayAs for AdaptiveJoinExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "AdaptiveJoinExec: build side = the smaller input, ")?;
        self.join.fmt_as(t, f)
    }
}

impl ExecutionPlan for AdaptiveJoinExec {
    fn name(&self) -> &str {
        "AdaptiveJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.left, &self.right]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        if children.len() != 2 {
            return Err(DataFusionError::Internal("a join has two inputs".into()));
        }
        let right = children.swap_remove(1);
        let left = children.swap_remove(0);
        Ok(Arc::new(AdaptiveJoinExec::new(
            Arc::clone(&self.join),
            left,
            right,
            self.limits,
        )))
    }

    /// A plan run again (a recursive query's step) reads its inputs again
    /// and chooses again: the decided join's probe input is spent.
    fn reset_state(self: Arc<Self>) -> DFResult<Arc<dyn ExecutionPlan>> {
        let (left, right) = (Arc::clone(&self.left), Arc::clone(&self.right));
        Ok(Arc::new(AdaptiveJoinExec::new(
            Arc::clone(&self.join),
            left,
            right,
            self.limits,
        )))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let this = AdaptiveJoinExec {
            join: Arc::clone(&self.join),
            left: Arc::clone(&self.left),
            right: Arc::clone(&self.right),
            properties: Arc::clone(&self.properties),
            limits: self.limits,
            decided: Arc::clone(&self.decided),
        };
        let stream = futures::stream::once(async move {
            let decided = this
                .decided
                .get_or_init(|| async { this.decide(Arc::clone(&context)).await.map_err(Arc::new) })
                .await
                .clone()
                .map_err(DataFusionError::Shared)?;
            decided.execute(partition, context)
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            stream,
        )))
    }
}
