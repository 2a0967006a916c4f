//! Spark's order for a batch action's rows: its partitions one after
//! another. DataFusion merges partitions into one (`CoalescePartitionsExec`,
//! under a `limit`, `show()` or a single-partition operator) in the order
//! their batches happen to arrive, so the same query could show its rows in
//! another order each run. A batch action runs its plan with each such
//! merge replaced by [`OrderedCoalesceExec`]: every partition still runs at
//! once, a few batches ahead, and they are read in partition order.

use std::sync::Arc;

use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result as DFResult;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PhysicalExpr, PlanProperties,
};
use futures::StreamExt;

/// Batches a partition may run ahead of the one being read.
const AHEAD: usize = 2;

/// Operators a merge's row order passes through to the action's output.
const PASS_THROUGH: &[&str] = &[
    "GlobalLimitExec",
    "LocalLimitExec",
    "ProjectionExec",
    "FilterExec",
    "CoalesceBatchesExec",
    "PartitionIdExec",
];

/// `plan` with the partition merge whose order reaches the output (under
/// limits, projections and filters from the root) reading partitions in
/// order. Merges under aggregates and joins, whose order nobody sees,
/// stay DataFusion's: they run every partition at full speed.
pub fn in_partition_order(plan: Arc<dyn ExecutionPlan>) -> DFResult<Arc<dyn ExecutionPlan>> {
    if let Some(c) = plan.downcast_ref::<CoalescePartitionsExec>() {
        return Ok(Arc::new(OrderedCoalesceExec::new(
            Arc::clone(c.input()),
            c.fetch(),
        )));
    }
    let children = plan.children();
    if !PASS_THROUGH.contains(&plan.name()) || children.len() != 1 {
        return Ok(plan);
    }
    let child = in_partition_order(Arc::clone(children[0]))?;
    datafusion::physical_plan::execution_plan::replace_children_if_necessary(plan, vec![child])
}

/// One partition of its input's rows, partition after partition.
#[derive(Debug)]
pub struct OrderedCoalesceExec {
    input: Arc<dyn ExecutionPlan>,
    fetch: Option<usize>,
    properties: Arc<PlanProperties>,
}

impl OrderedCoalesceExec {
    fn new(input: Arc<dyn ExecutionPlan>, fetch: Option<usize>) -> Self {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(input.schema()),
            Partitioning::UnknownPartitioning(1),
            input.properties().emission_type,
            input.properties().boundedness,
        ));
        OrderedCoalesceExec {
            input,
            fetch,
            properties,
        }
    }
}

impl DisplayAs for OrderedCoalesceExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "OrderedCoalesceExec")
    }
}

impl ExecutionPlan for OrderedCoalesceExec {
    fn name(&self) -> &str {
        "OrderedCoalesceExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
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
        Ok(Arc::new(OrderedCoalesceExec::new(
            children.swap_remove(0),
            self.fetch,
        )))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let n = self.input.properties().partitioning.partition_count();
        let mut receivers = Vec::with_capacity(n);
        let mut tasks = Vec::with_capacity(n);
        for p in 0..n {
            let mut stream = self.input.execute(p, Arc::clone(&context))?;
            let (tx, rx) = tokio::sync::mpsc::channel(AHEAD);
            tasks.push(SpawnedTask::spawn(async move {
                while let Some(b) = stream.next().await {
                    let failed = b.is_err();
                    if tx.send(b).await.is_err() || failed {
                        break;
                    }
                }
            }));
            receivers.push(rx);
        }
        // the tasks go with the stream: dropping it stops them
        let ordered = futures::stream::iter(receivers)
            .flat_map(tokio_stream_of)
            .chain(
                futures::stream::once(async move {
                    drop(tasks);
                    None
                })
                .filter_map(futures::future::ready),
            );
        let schema = self.input.schema();
        let stream: SendableRecordBatchStream =
            Box::pin(RecordBatchStreamAdapter::new(Arc::clone(&schema), ordered));
        Ok(match self.fetch {
            Some(limit) => Box::pin(RecordBatchStreamAdapter::new(
                schema,
                limited(stream, limit),
            )),
            None => stream,
        })
    }
}

type Item = DFResult<arrow::array::RecordBatch>;

fn tokio_stream_of(mut rx: tokio::sync::mpsc::Receiver<Item>) -> impl futures::Stream<Item = Item> {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// The first `limit` rows of `stream`.
fn limited(stream: SendableRecordBatchStream, limit: usize) -> impl futures::Stream<Item = Item> {
    futures::stream::unfold((stream, limit), |(mut stream, left)| async move {
        if left == 0 {
            return None;
        }
        match stream.next().await? {
            Ok(b) if b.num_rows() > left => Some((Ok(b.slice(0, left)), (stream, 0))),
            Ok(b) => {
                let rows = b.num_rows();
                Some((Ok(b), (stream, left - rows)))
            }
            Err(e) => Some((Err(e), (stream, 0))),
        }
    })
}
