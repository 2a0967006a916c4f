//! Streaming sinks: where each micro-batch's result goes.
//!
//! `add_batch(batch_id, ..)` must be idempotent by batch id: after a crash the
//! last uncommitted batch is delivered again with the same id (checkpoint
//! issue), and a sink that already has it must not apply it twice.

pub mod console;
pub mod file;
pub mod foreach_batch;
pub mod kafka;
pub mod memory;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::Result;

/// One micro-batch's output rows.
pub struct SinkBatch {
    /// Schema of the rows (also when there are none).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

impl SinkBatch {
    /// Number of rows in the batch.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// A streaming sink owned by one running query.
pub trait Sink: Send {
    /// Spark-style description for progress (`MemorySink`, `ForeachBatchSink`...).
    fn description(&self) -> String;
    /// Deliver batch `batch_id`.
    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()>;
}

/// `format("noop")`: runs the query, discards the rows (benchmarks).
#[derive(Debug, Default)]
pub struct NoopSink;

impl Sink for NoopSink {
    fn description(&self) -> String {
        "org.apache.spark.sql.execution.datasources.noop.NoopTable$@sparklet".to_string()
    }

    fn add_batch(&mut self, _batch_id: i64, _data: SinkBatch) -> Result<()> {
        Ok(())
    }
}
