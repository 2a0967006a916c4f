//! `foreachBatch(fn)`: hands every batch to user code (the bindings supply
//! the callback that enters Python); `foreach(writer)`: rows as they come,
//! with the end of each epoch signalled (the writer's `close`).

use super::{Sink, SinkBatch};
use crate::error::Result;

/// The user's function: `(batch_id, rows)`; its error fails the query.
pub type BatchCallback = Box<dyn FnMut(i64, SinkBatch) -> Result<()> + Send>;

/// Called when an epoch's rows are all delivered.
pub type EndCallback = Box<dyn FnMut(i64) -> Result<()> + Send>;

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

/// `foreach(writer)`: the rows of an epoch in one or more deliveries (one
/// per micro-batch; as they are computed in the real-time modes), then the
/// epoch's end.
pub struct ForeachSink {
    rows: BatchCallback,
    end: EndCallback,
}

impl ForeachSink {
    /// A sink calling `rows` per delivery and `end` per epoch.
    pub fn new(rows: BatchCallback, end: EndCallback) -> Self {
        ForeachSink { rows, end }
    }
}

impl Sink for ForeachSink {
    fn description(&self) -> String {
        "ForeachBatchSink".to_string()
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        (self.rows)(batch_id, data)?;
        (self.end)(batch_id)
    }
    fn supports_real_time(&self) -> bool {
        true
    }
    fn add_rows(&mut self, batch_id: i64, _first: bool, data: SinkBatch) -> Result<()> {
        (self.rows)(batch_id, data)
    }
    fn end_batch(&mut self, batch_id: i64) -> Result<()> {
        (self.end)(batch_id)
    }
}
