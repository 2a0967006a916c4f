//! `foreachBatch(fn)`: hands every batch to user code (the bindings supply
//! the callback that enters Python).

use super::{Sink, SinkBatch};
use crate::error::Result;

/// The user's function: `(batch_id, rows)`; its error fails the query.
pub type BatchCallback = Box<dyn FnMut(i64, SinkBatch) -> Result<()> + Send>;

/// Calls the user's function once per micro-batch.
pub struct ForeachBatchSink {
    callback: BatchCallback,
}

impl ForeachBatchSink {
    /// A sink calling `callback`.
    pub fn new(callback: BatchCallback) -> Self {
        ForeachBatchSink { callback }
    }
}

impl Sink for ForeachBatchSink {
    fn description(&self) -> String {
        "ForeachBatchSink".to_string()
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        (self.callback)(batch_id, data)
    }
}
