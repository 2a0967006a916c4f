//! `format("memory")`: the query's output as a table named `queryName`,
//! queryable with `spark.table(name)` and `spark.sql`.

use std::sync::Arc;

use arrow::array::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use super::{Sink, SinkBatch};
use crate::error::Result;

/// Appends every batch (append/update mode) or replaces the table (complete
/// mode) and re-registers it in the session's catalog.
pub struct MemorySink {
    name: String,
    ctx: SessionContext,
    complete: bool,
    rows: Vec<RecordBatch>,
    last_batch: Option<i64>,
}

impl MemorySink {
    /// A memory sink registering table `name` in `ctx`.
    pub fn new(
        name: &str,
        ctx: SessionContext,
        complete: bool,
        schema: arrow::datatypes::SchemaRef,
    ) -> Result<Self> {
        let sink = MemorySink {
            name: name.to_string(),
            ctx,
            complete,
            rows: Vec::new(),
            last_batch: None,
        };
        sink.publish(schema)?;
        Ok(sink)
    }

    fn publish(&self, schema: arrow::datatypes::SchemaRef) -> Result<()> {
        let table = MemTable::try_new(schema, vec![self.rows.clone()])?;
        self.ctx.deregister_table(self.name.as_str())?;
        self.ctx
            .register_table(self.name.as_str(), Arc::new(table))?;
        Ok(())
    }
}

impl Sink for MemorySink {
    fn description(&self) -> String {
        "MemorySink".to_string()
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        if self.last_batch.is_some_and(|b| batch_id <= b) {
            return Ok(()); // replayed batch: already applied
        }
        if self.complete {
            self.rows.clear();
        }
        self.rows
            .extend(data.batches.into_iter().filter(|b| b.num_rows() > 0));
        self.last_batch = Some(batch_id);
        self.publish(data.schema)
    }
}
