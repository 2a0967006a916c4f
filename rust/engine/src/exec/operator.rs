//! Stateful operators as plan nodes (deduplication, stream joins, limits).
//!
//! Each is a logical `Extension` node holding an [`OperatorSlot`]: the state
//! of the running query's operator, shared with the physical node planned
//! from it every batch and with the micro-batch loop, which opens it at
//! start, tells it each batch's watermark and commits it after the sink.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::error::DataFusionError;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::Mutex;

use super::unary::{Shape, UnaryExec, UnaryMap};
use crate::error::{Error, Result};
use crate::state::partitioned::OperatorStateSpec;
use crate::state::StateStoreProvider;

/// A stateful operator as the micro-batch loop drives it.
pub trait StatefulOperator: Send {
    /// Before the batch runs, its watermarks (µs, `None` without one): rows
    /// at or below `late_us` are late (the previous batch's watermark, as in
    /// Spark 3.4+, so that rows a chained operator emits in this batch are
    /// not late downstream); state at or below `evict_us` can go.
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>);
    /// The batch about to run: its id and timestamp (ms), for operators
    /// whose state times out by processing time.
    fn batch_started(&mut self, _batch_id: i64, _timestamp_ms: i64) {}
    /// After the sink: evict what the watermark passed and commit the state.
    fn commit(&mut self) -> Result<()>;
    /// The `stateOperators` progress entry.
    fn progress(&self) -> serde_json::Value;
    /// The processing time (ms) at which state next times out: a batch
    /// without data then has work.
    fn next_timeout_ms(&self) -> Option<i64> {
        None
    }
    /// Whether a watermark that moved gives it work in a batch without data
    /// (Spark's `shouldRunAnotherBatch`; an aggregation in complete mode
    /// evicts and emits nothing by the watermark, so it has none).
    fn acts_on_watermark(&self) -> bool {
        true
    }
    /// The rows this batch dropped behind the watermark, with their schema,
    /// for a `lateRowsTable` (beyond Spark); None: the operator keeps none.
    fn take_late_rows(&mut self) -> Option<(Vec<RecordBatch>, SchemaRef)> {
        None
    }
}

/// What the loop holds for each operator.
pub trait OperatorControl: Send + Sync {
    /// See [`StatefulOperator::begin_batch`].
    fn begin_batch(&self, late_us: Option<i64>, evict_us: Option<i64>);
    /// See [`StatefulOperator::batch_started`].
    fn batch_started(&self, batch_id: i64, timestamp_ms: i64);
    /// See [`StatefulOperator::commit`].
    fn commit(&self) -> Result<()>;
    /// See [`StatefulOperator::progress`].
    fn progress(&self) -> serde_json::Value;
    /// See [`StatefulOperator::next_timeout_ms`].
    fn next_timeout_ms(&self) -> Option<i64>;
    /// See [`StatefulOperator::acts_on_watermark`].
    fn acts_on_watermark(&self) -> bool;
    /// See [`StatefulOperator::take_late_rows`].
    fn take_late_rows(&self) -> Option<(Vec<RecordBatch>, SchemaRef)>;
}

/// An operator's state shared by its logical node, the physical plans made
/// from it and the loop; empty until the query opens it. Compared by identity
/// (plan nodes need `Eq`/`Hash`).
pub struct OperatorSlot<T>(pub Arc<Mutex<Option<T>>>);

impl<T> OperatorSlot<T> {
    /// An empty slot.
    pub fn empty() -> Self {
        OperatorSlot(Arc::new(Mutex::new(None)))
    }

    /// Whether a query opened the operator.
    pub fn is_open(&self) -> bool {
        self.0.lock().is_some()
    }

    /// Run `f` on the open operator.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> Result<R>) -> Result<R> {
        match self.0.lock().as_mut() {
            Some(op) => f(op),
            None => Err(Error::Internal(
                "a stateful operator ran outside a started query".into(),
            )),
        }
    }
}

impl<T: StatefulOperator + 'static> OperatorSlot<T> {
    /// Put the opened operator in the slot; the loop's handle to it.
    pub fn open(&self, op: T) -> Arc<dyn OperatorControl> {
        *self.0.lock() = Some(op);
        Arc::new(OperatorSlot(Arc::clone(&self.0)))
    }
}

impl<T: StatefulOperator> OperatorControl for OperatorSlot<T> {
    fn begin_batch(&self, late_us: Option<i64>, evict_us: Option<i64>) {
        if let Some(op) = self.0.lock().as_mut() {
            op.begin_batch(late_us, evict_us);
        }
    }
    fn batch_started(&self, batch_id: i64, timestamp_ms: i64) {
        if let Some(op) = self.0.lock().as_mut() {
            op.batch_started(batch_id, timestamp_ms);
        }
    }
    fn commit(&self) -> Result<()> {
        self.with(|op| op.commit())
    }
    fn next_timeout_ms(&self) -> Option<i64> {
        self.0.lock().as_ref().and_then(|op| op.next_timeout_ms())
    }
    fn acts_on_watermark(&self) -> bool {
        self.0
            .lock()
            .as_ref()
            .is_some_and(|op| op.acts_on_watermark())
    }
    fn progress(&self) -> serde_json::Value {
        self.0
            .lock()
            .as_ref()
            .map_or(serde_json::Value::Null, |op| op.progress())
    }
    fn take_late_rows(&self) -> Option<(Vec<RecordBatch>, SchemaRef)> {
        self.0.lock().as_mut().and_then(|op| op.take_late_rows())
    }
}

impl<T> Clone for OperatorSlot<T> {
    fn clone(&self) -> Self {
        OperatorSlot(Arc::clone(&self.0))
    }
}
impl<T> fmt::Debug for OperatorSlot<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OperatorSlot({:p})", Arc::as_ptr(&self.0))
    }
}
impl<T> PartialEq for OperatorSlot<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl<T> Eq for OperatorSlot<T> {}
impl<T> Hash for OperatorSlot<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.0) as usize).hash(state)
    }
}
impl<T> PartialOrd for OperatorSlot<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (Arc::as_ptr(&self.0) as usize).partial_cmp(&(Arc::as_ptr(&other.0) as usize))
    }
}

/// What a node needs to open its operator's state at query start.
pub struct OpenContext {
    /// The configured state store provider.
    pub provider: Arc<dyn StateStoreProvider>,
    /// Where and how this operator's state is kept.
    pub spec: OperatorStateSpec,
    /// Watermarked columns of the node's inputs: (name, delay ms).
    pub watermarks: Vec<(String, i64)>,
    /// Every watermarked column of the query, as any node names it; None
    /// when the query defines no watermark.
    pub query_watermarks: Option<Vec<String>>,
    /// Whether the output mode is checked against the operator (a query's
    /// start; not `explain()`, which shows the plan of any mode).
    pub checks_mode: bool,
}

/// `(key, value)` time prefix: 8 bytes that sort as the signed µs value does.
pub fn time_prefix(us: i64) -> [u8; 8] {
    ((us as u64) ^ (1u64 << 63)).to_be_bytes()
}

/// A stateful operator that maps each input batch to an output batch.
pub trait BatchOperator: StatefulOperator + 'static {
    /// Where its columns are in the planned input.
    type Params: Clone + fmt::Debug + Send + Sync + 'static;
    /// The physical node's name (Spark's).
    const NAME: &'static str;
    /// The output for input batch `b`, updating state.
    fn process(&mut self, b: &RecordBatch, params: &Self::Params) -> Result<RecordBatch>;
}

/// A [`BatchOperator`] of the running query with where its columns are:
/// what a [`UnaryExec`] maps each partition's input through.
pub struct StateMap<T: BatchOperator> {
    params: T::Params,
    slot: OperatorSlot<T>,
}

/// The physical node of a [`BatchOperator`].
pub type MapStateExec<T> = UnaryExec<StateMap<T>>;

/// Map `input` through the operator in `slot`.
pub fn map_state<T: BatchOperator>(
    input: Arc<dyn ExecutionPlan>,
    params: T::Params,
    slot: OperatorSlot<T>,
) -> MapStateExec<T> {
    UnaryExec::new(input, StateMap { params, slot })
}

impl<T: BatchOperator> fmt::Debug for StateMap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", T::NAME, self.params)
    }
}

impl<T: BatchOperator> UnaryMap for StateMap<T> {
    fn name(&self) -> &str {
        T::NAME
    }
    fn display(&self) -> String {
        format!("{self:?}")
    }
    fn shape(&self) -> Shape {
        // a batch at a time: the state sees the rows in the same order as a
        // whole partition's, with scratch memory for one batch
        Shape::EachBatchBlocking
    }
    fn map(&self, batches: Vec<RecordBatch>, input_schema: &SchemaRef) -> Result<RecordBatch> {
        let b = match <[RecordBatch; 1]>::try_from(batches) {
            Ok([b]) => b,
            Err(many) => arrow::compute::concat_batches(input_schema, &many)?,
        };
        self.slot.with(|op| op.process(&b, &self.params))
    }
}

/// A user's function in a plan node: nodes compare and hash it by
/// identity (the same function object, not equal behaviour).
pub struct ByIdentity<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for ByIdentity<T> {
    fn clone(&self) -> Self {
        ByIdentity(Arc::clone(&self.0))
    }
}
impl<T: ?Sized> std::fmt::Debug for ByIdentity<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserFunction({:p})", Arc::as_ptr(&self.0))
    }
}
impl<T: ?Sized> PartialEq for ByIdentity<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl<T: ?Sized> Eq for ByIdentity<T> {}
impl<T: ?Sized> std::hash::Hash for ByIdentity<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.0) as *const u8 as usize).hash(state)
    }
}

/// A stream of the one record batch `job` makes, run on the runtime's
/// blocking threads: operators that take a whole batch's input block on it
/// (and on user code), which must stay off the async workers.
pub fn blocking_batch(
    schema: SchemaRef,
    job: impl FnOnce() -> Result<RecordBatch> + Send + 'static,
) -> SendableRecordBatchStream {
    let fut = async move {
        tokio::task::spawn_blocking(job)
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
            .map_err(|e| DataFusionError::External(Box::new(e)))
    };
    Box::pin(RecordBatchStreamAdapter::new(
        schema,
        futures::stream::once(fut),
    ))
}

/// A stream of the one record batch (of `schema`) that `job` makes of all
/// of `input`'s batches, collected and run on the blocking pool.
pub fn whole_partition(
    input: SendableRecordBatchStream,
    schema: SchemaRef,
    job: impl FnOnce(Vec<RecordBatch>) -> Result<RecordBatch> + Send + 'static,
) -> SendableRecordBatchStream {
    blocking_batch(schema, move || {
        let batches: Vec<RecordBatch> =
            crate::runtime::block_on(futures::TryStreamExt::try_collect(input))?
                .map_err(Error::from_execution)?;
        job(batches)
    })
}

/// A stream of what `job` makes of each of `input`'s batches, in order, run
/// on the blocking pool (the job blocks on state or user code): one batch
/// of input and at most two of output are held at a time, where collecting
/// the partition first held all of it, its concatenation and its output (a
/// micro-batch of 1.6M rows cost the deduplication ~500 MB for that alone).
pub fn each_batch_blocking(
    mut input: SendableRecordBatchStream,
    schema: SchemaRef,
    mut job: impl FnMut(RecordBatch) -> Result<RecordBatch> + Send + 'static,
) -> SendableRecordBatchStream {
    use futures::StreamExt;
    let start = async move {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let worker = tokio::task::spawn_blocking(move || loop {
            let out = match crate::runtime::block_on(input.next()) {
                Ok(None) => return,
                Ok(Some(b)) => b.map_err(Error::from_execution).and_then(&mut job),
                Err(e) => Err(e),
            };
            let failed = out.is_err();
            // the consumer gone (the query stopped) or an error sent: done
            if tx.blocking_send(out).is_err() || failed {
                return;
            }
        });
        futures::stream::unfold((rx, Some(worker)), |(mut rx, worker)| async move {
            if let Some(out) = rx.recv().await {
                let out = out.map_err(|e| DataFusionError::External(Box::new(e)));
                return Some((out, (rx, worker)));
            }
            // the worker is done: a panic in it is the stream's error
            let panicked = worker?.await.err()?;
            Some((
                Err(DataFusionError::External(Box::new(panicked))),
                (rx, None),
            ))
        })
    };
    Box::pin(RecordBatchStreamAdapter::new(
        schema,
        futures::stream::once(start).flatten(),
    ))
}

/// `UserDefinedLogicalNodeCore` for a node over one `input` whose output
/// has the input's schema (and no expressions of its own): its name and
/// explain line are expressions over the node `$s` (and the formatter `$f`).
/// With `needs`, the input columns the node reads itself (indexes, or None
/// for all): the optimizer then prunes the input to those and what the
/// parent reads (a scan decodes no column nobody reads).
macro_rules! pass_through_node {
    ($ty:ident, |$s:ident, $f:ident| name: $name:expr, explain: $explain:expr) => {
        $crate::exec::operator::pass_through_node!($ty, |$s, $f| name: $name, explain: $explain, needs: None);
    };
    ($ty:ident, |$s:ident, $f:ident| name: $name:expr, explain: $explain:expr, needs: $needs:expr) => {
        $crate::exec::operator::pass_through_node!($ty, |$s, $f| name: $name, explain: $explain, needs: $needs,
            filters_stop_at: $s.input.schema().fields().iter().map(|f| f.name().clone()).collect());
    };
    // `filters_stop_at`: the columns a filter above must not be pushed below
    // the node on (DataFusion's default: all of them)
    ($ty:ident, |$s:ident, $f:ident| name: $name:expr, explain: $explain:expr, needs: $needs:expr, filters_stop_at: $stop:expr) => {
        impl datafusion::logical_expr::UserDefinedLogicalNodeCore for $ty {
            #[allow(unused_variables)]
            fn prevent_predicate_push_down_columns(&self) -> std::collections::HashSet<String> {
                let $s = self;
                $stop
            }

            #[allow(unused_variables)]
            fn necessary_children_exprs(&self, output_columns: &[usize]) -> Option<Vec<Vec<usize>>> {
                let $s = self;
                let own: Option<Vec<usize>> = $needs;
                let mut all = own?;
                all.extend_from_slice(output_columns);
                all.sort_unstable();
                all.dedup();
                Some(vec![all])
            }

            #[allow(unused_variables)]
            fn name(&self) -> &str {
                let $s = self;
                $name
            }

            fn inputs(&self) -> Vec<&datafusion::logical_expr::LogicalPlan> {
                vec![&self.input]
            }

            fn schema(&self) -> &datafusion::common::DFSchemaRef {
                self.input.schema()
            }

            fn expressions(&self) -> Vec<datafusion::logical_expr::Expr> {
                vec![]
            }

            fn fmt_for_explain(&self, $f: &mut std::fmt::Formatter) -> std::fmt::Result {
                let $s = self;
                $explain
            }

            // a node holding only its input has nothing to copy
            #[allow(clippy::needless_update)]
            fn with_exprs_and_inputs(
                &self,
                _exprs: Vec<datafusion::logical_expr::Expr>,
                mut inputs: Vec<datafusion::logical_expr::LogicalPlan>,
            ) -> datafusion::common::Result<Self> {
                Ok($ty {
                    input: inputs.swap_remove(0),
                    ..self.clone()
                })
            }
        }
    };
}
pub(crate) use pass_through_node;
