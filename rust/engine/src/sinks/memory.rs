//! `format("memory")`: the query's output as a table named `queryName`,
//! queryable with `spark.table(name)` and `spark.sql`.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use super::{Sink, SinkBatch};
use crate::error::Result;

/// Keeps every batch's rows by batch id (append/update mode) or only the
/// latest result (complete mode), and re-registers the table after each
/// batch. A replayed batch id replaces its rows instead of adding them.
pub struct MemorySink {
    name: String,
    ctx: SessionContext,
    complete: bool,
    schema: SchemaRef,
    batches: BTreeMap<i64, Vec<RecordBatch>>,
}

impl MemorySink {
    /// A memory sink registering table `name` in `ctx`.
    pub fn new(name: &str, ctx: SessionContext, complete: bool, schema: SchemaRef) -> Result<Self> {
        let sink = MemorySink {
            name: name.to_string(),
            ctx,
            complete,
            schema,
            batches: BTreeMap::new(),
        };
        sink.publish()?;
        Ok(sink)
    }

    fn publish(&self) -> Result<()> {
        let rows: Vec<RecordBatch> = self.batches.values().flatten().cloned().collect();
        let table = MemTable::try_new(Arc::clone(&self.schema), vec![rows])?;
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
        if self.complete {
            self.batches.clear();
        }
        self.schema = data.schema;
        let rows = data
            .batches
            .into_iter()
            .filter(|b| b.num_rows() > 0)
            .collect();
        self.batches.insert(batch_id, rows);
        self.publish()
    }
    fn supports_real_time(&self) -> bool {
        !self.complete
    }
    fn in_real_time_allowlist(&self) -> bool {
        false
    }
    fn add_rows(&mut self, batch_id: i64, first: bool, data: SinkBatch) -> Result<()> {
        if first {
            return self.add_batch(batch_id, data);
        }
        self.schema = data.schema;
        let rows = self.batches.entry(batch_id).or_default();
        rows.extend(data.batches.into_iter().filter(|b| b.num_rows() > 0));
        self.publish()
    }
    fn supports_async_progress(&self) -> bool {
        true
    }
}
