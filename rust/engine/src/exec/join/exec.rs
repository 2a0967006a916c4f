//! The physical stream-stream join: the opened operator run over both
//! sides' batches, its output in chunks.

use super::*;

/// The physical stream-stream join of one batch: runs both inputs, joins
/// them with the state, and outputs one partition.
#[derive(Debug)]
pub struct StreamJoinExec {
    pub(super) left: Arc<dyn ExecutionPlan>,
    pub(super) right: Arc<dyn ExecutionPlan>,
    pub(super) exprs: Arc<JoinExprs>,
    pub(super) slot: OperatorSlot<StreamJoin>,
    pub(super) properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical inputs.
pub fn plan(
    node: &StreamJoinNode,
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    session: &dyn datafusion::catalog::Session,
) -> DFResult<StreamJoinExec> {
    let (ls, rs) = (node.left.schema(), node.right.schema());
    let left_keys = node
        .on
        .iter()
        .map(|(l, _)| session.create_physical_expr(l.clone(), ls))
        .collect::<DFResult<Vec<_>>>()?;
    // right keys cast to the left keys' types, so equal values encode alike
    let right_keys = node
        .on
        .iter()
        .map(|(l, r)| {
            let want = l.get_type(ls)?;
            let r = if r.get_type(rs)? == want {
                r.clone()
            } else {
                Expr::Cast(datafusion::logical_expr::Cast::new(
                    Box::new(r.clone()),
                    want,
                ))
            };
            session.create_physical_expr(r, rs)
        })
        .collect::<DFResult<Vec<_>>>()?;
    let both = ls.join(rs)?;
    let filter = node
        .filter
        .as_ref()
        .map(|f| {
            session
                .create_physical_expr(durations_for_intervals(f, &both), &both)
                .or_else(|_| session.create_physical_expr(f.clone(), &both))
        })
        .transpose()?;
    let nullable = |s: &DFSchema| -> Vec<FieldRef> {
        s.fields()
            .iter()
            .map(|f| Arc::new(f.as_ref().clone().with_nullable(true)))
            .collect()
    };
    let mut pair: Vec<FieldRef> = nullable(ls);
    pair.extend(nullable(rs));
    let out_schema: SchemaRef = Arc::new(node.schema.as_arrow().clone());
    let key_conv = RowConverter::new(
        left_keys
            .iter()
            .map(|k| Ok(SortField::new(k.data_type(ls.as_arrow())?)))
            .collect::<DFResult<Vec<_>>>()?,
    )?;
    let exprs = JoinExprs {
        left_schema: Arc::clone(ls.inner()),
        right_schema: Arc::clone(rs.inner()),
        left_keys,
        right_keys,
        filter,
        pair_schema: Arc::new(Schema::new(pair)),
        out_schema: Arc::clone(&out_schema),
        key_conv,
        semi: node.join_type == JoinType::LeftSemi,
    };
    let properties = Arc::new(PlanProperties::new(
        EquivalenceProperties::new(out_schema),
        Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    Ok(StreamJoinExec {
        left,
        right,
        exprs: Arc::new(exprs),
        slot: node.slot.clone(),
        properties,
    })
}

impl DisplayAs for StreamJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "StreamingSymmetricHashJoinExec")
    }
}

impl ExecutionPlan for StreamJoinExec {
    fn name(&self) -> &str {
        "StreamingSymmetricHashJoinExec"
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
        let right = children
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        let left = children
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        Ok(Arc::new(StreamJoinExec {
            left,
            right,
            exprs: Arc::clone(&self.exprs),
            slot: self.slot.clone(),
            properties: Arc::clone(&self.properties),
        }))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let (left, right) = (Arc::clone(&self.left), Arc::clone(&self.right));
        let (exprs, slot) = (Arc::clone(&self.exprs), self.slot.clone());
        let schema = Arc::clone(&self.exprs.out_schema);
        let fut = async move {
            // both inputs are read from the start, and their rows join as
            // they come, while the scans go on: one side first (the other's
            // rows read meanwhile wait), so that the second side's rows meet
            // the first's in state and each new pair is output once
            let left = Chunks::read(left, Arc::clone(&context));
            let right = Chunks::read(right, context);
            // Spark's semi join meets the right rows first: a left row then
            // matches only right rows that stay in state
            let ((first, first_is_left), (second, second_is_left)) = match exprs.semi {
                true => ((right, false), (left, true)),
                false => ((left, true), (right, false)),
            };
            let mut out = first.join(&slot, &exprs, first_is_left).await?;
            out.extend(second.join(&slot, &exprs, second_is_left).await?);
            slot.with(|j| j.finish(out, &exprs)).map_err(external)
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            futures::stream::once(fut),
        )))
    }
}

/// Rows a side joins at a time (or all it has, at its end): enough for a
/// join to work on partitions side by side, few enough to start before the
/// scan ends.
pub(super) const CHUNK_ROWS: usize = 16_384;

/// A join input being read by a task of its own, its batches queued.
pub(super) struct Chunks {
    pub(super) batches: tokio::sync::mpsc::UnboundedReceiver<RecordBatch>,
    pub(super) task: SpawnedTask<DFResult<()>>,
}

impl Chunks {
    pub(super) fn read(plan: Arc<dyn ExecutionPlan>, context: Arc<TaskContext>) -> Self {
        let (tx, batches) = tokio::sync::mpsc::unbounded_channel();
        let task = SpawnedTask::spawn(async move {
            let mut stream = execute_stream(plan, context)?;
            while let Some(b) = stream.next().await {
                if tx.send(b?).is_err() {
                    break; // the join stopped
                }
            }
            Ok(())
        });
        Chunks { batches, task }
    }

    /// Join the side's rows, [`CHUNK_ROWS`] at a time, as they arrive.
    async fn join(
        mut self,
        slot: &OperatorSlot<StreamJoin>,
        exprs: &Arc<JoinExprs>,
        left: bool,
    ) -> DFResult<Vec<RecordBatch>> {
        let (mut out, mut pending, mut rows) = (Vec::new(), Vec::new(), 0);
        let mut join = |chunk: Vec<RecordBatch>| -> DFResult<()> {
            out.extend(
                slot.with(|j| j.join_input(chunk, left, exprs))
                    .map_err(external)?,
            );
            Ok(())
        };
        while let Some(b) = self.batches.recv().await {
            rows += b.num_rows();
            pending.push(b);
            if rows >= CHUNK_ROWS {
                join(std::mem::take(&mut pending))?;
                rows = 0;
            }
        }
        // the input ended or failed: a failure ends the batch here
        self.task
            .join()
            .await
            .map_err(|e| DataFusionError::Internal(format!("a join input's task failed: {e}")))??;
        if rows > 0 {
            join(pending)?;
        }
        Ok(out)
    }
}

pub(super) fn external(e: Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
