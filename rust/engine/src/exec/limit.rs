//! `limit(n)` on a stream in append mode (Spark's `StreamingGlobalLimitExec`):
//! at most `n` rows over the whole life of the query, the count so far kept
//! in state so that a restart continues it. In complete mode the limit
//! applies to each batch's result table and needs no state.

use super::operator::pass_through_node;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;

use super::operator::{
    map_state, BatchOperator, MapStateExec, OpenContext, OperatorControl, OperatorSlot,
    StatefulOperator,
};
use crate::error::Result;
use crate::state::partitioned::{
    OperatorMetrics, OperatorStateSpec, PartitionedState, StateLayout,
};
use crate::state::KeyOrder;

/// The logical streaming limit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct StreamLimitNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// Rows to let through over the query's life.
    pub limit: usize,
    /// The running query's operator.
    pub slot: OperatorSlot<StreamLimit>,
}

impl StreamLimitNode {
    /// A limit of `limit` rows over `input`.
    pub fn new(input: LogicalPlan, limit: usize) -> Self {
        StreamLimitNode {
            input,
            limit,
            slot: OperatorSlot::empty(),
        }
    }

    /// The node with its operator opened for a running query.
    pub fn open(&self, ctx: &OpenContext) -> Result<(Self, Arc<dyn OperatorControl>)> {
        // one count for the whole stream: a single partition, as Spark's global limit
        let spec = OperatorStateSpec {
            partitions: 1,
            ..ctx.spec.clone()
        };
        let layout = StateLayout {
            key: vec![],
            time: None,
            value: vec![Arc::new(Field::new("count", DataType::Int64, false))],
            rows: None,
        };
        let state = spec.open_table(
            ctx.provider.as_ref(),
            "globalLimit",
            layout,
            KeyOrder::Sorted,
        )?;
        let emitted = match state.get(COUNT_KEY)?.as_deref() {
            Some([ScalarValue::Int64(Some(n))]) => *n as usize,
            _ => 0,
        };
        let node = StreamLimitNode {
            slot: OperatorSlot::empty(),
            ..self.clone()
        };
        let control = node.slot.open(StreamLimit {
            limit: self.limit,
            emitted,
            state,
            metrics: OperatorMetrics::default(),
        });
        Ok((node, control))
    }
}

pass_through_node!(StreamLimitNode, |node, f| name: "StreamingGlobalLimit", explain: write!(f, "StreamingGlobalLimit: {}", node.limit));

const COUNT_KEY: &[u8] = b"count";

/// A running query's limit: rows let through so far.
pub struct StreamLimit {
    limit: usize,
    emitted: usize,
    state: PartitionedState,
    metrics: OperatorMetrics,
}

impl StatefulOperator for StreamLimit {
    fn begin_batch(&mut self, _late_us: Option<i64>, _evict_us: Option<i64>) {
        self.metrics = OperatorMetrics::default();
    }

    fn commit(&mut self) -> Result<()> {
        self.metrics.commit_ms = self.state.commit()?;
        Ok(())
    }

    fn progress(&self) -> serde_json::Value {
        self.state.progress("globalLimit", &self.metrics)
    }
}

impl BatchOperator for StreamLimit {
    type Params = ();
    const NAME: &'static str = "StreamingGlobalLimitExec";

    fn process(&mut self, b: &RecordBatch, _params: &()) -> Result<RecordBatch> {
        let take = b.num_rows().min(self.limit - self.emitted);
        if take > 0 {
            self.emitted += take;
            let p = self.state.partition_of(COUNT_KEY);
            self.state.store_mut(p).put(
                COUNT_KEY.to_vec(),
                vec![ScalarValue::Int64(Some(self.emitted as i64))],
            )?;
            self.metrics.rows_updated = 1;
        }
        Ok(b.slice(0, take))
    }
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &StreamLimitNode, input: Arc<dyn ExecutionPlan>) -> MapStateExec<StreamLimit> {
    map_state(input, (), node.slot.clone())
}
