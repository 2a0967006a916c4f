//! `format("memory")`: the query's output as a table named `queryName`,
//! queryable with `spark.table(name)` and `spark.sql`.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use parking_lot::RwLock;

use super::{Sink, SinkBatch};
use crate::error::Result;

/// Keeps every batch's rows by batch id (append/update mode) or only the
/// latest result (complete mode), and swaps the table's contents after each
/// batch. A replayed batch id replaces its rows instead of adding them.
pub struct MemorySink {
    table: Arc<SinkTable>,
    complete: bool,
    schema: SchemaRef,
    batches: BTreeMap<i64, Vec<RecordBatch>>,
}

impl MemorySink {
    /// A memory sink filling `table` (registered under the query's name
    /// once the query started).
    pub fn new(table: Arc<SinkTable>, complete: bool, schema: SchemaRef) -> Self {
        MemorySink {
            table,
            complete,
            schema,
            batches: BTreeMap::new(),
        }
    }

    fn publish(&self) -> Result<()> {
        let rows: Vec<RecordBatch> = self.batches.values().flatten().cloned().collect();
        let table = MemTable::try_new(Arc::clone(&self.schema), vec![rows])?;
        *self.table.current.write() = Arc::new(table);
        Ok(())
    }
}

/// A memory sink's table, registered once under the query's name: a
/// reader polling it while a batch lands sees the rows before or after,
/// never no table (a deregister-then-register swap per batch left a window
/// where the name was unknown).
#[derive(Debug)]
pub struct SinkTable {
    current: RwLock<Arc<MemTable>>,
}

impl SinkTable {
    /// An empty table of `schema`.
    pub fn new(schema: SchemaRef) -> Result<Arc<Self>> {
        Ok(Arc::new(SinkTable {
            current: RwLock::new(Arc::new(MemTable::try_new(schema, vec![vec![]])?)),
        }))
    }

    /// Register it as `name` in `ctx` (replacing what had that name).
    pub fn register(self: &Arc<Self>, name: &str, ctx: &SessionContext) -> Result<()> {
        ctx.deregister_table(name)?;
        ctx.register_table(name, Arc::clone(self) as Arc<dyn TableProvider>)?;
        Ok(())
    }

    fn current(&self) -> Arc<MemTable> {
        Arc::clone(&self.current.read())
    }
}

#[async_trait]
impl TableProvider for SinkTable {
    fn schema(&self) -> SchemaRef {
        self.current().schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        state: &dyn CatalogSession,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let table = self.current();
        table.scan(state, projection, filters, limit).await
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
