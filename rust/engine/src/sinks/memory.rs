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
    /// A memory sink registering table `name` in `ctx`.
    pub fn new(name: &str, ctx: SessionContext, complete: bool, schema: SchemaRef) -> Result<Self> {
        let table = Arc::new(SinkTable {
            current: RwLock::new(Arc::new(MemTable::try_new(
                Arc::clone(&schema),
                vec![vec![]],
            )?)),
        });
        ctx.deregister_table(name)?;
        ctx.register_table(name, Arc::clone(&table) as Arc<dyn TableProvider>)?;
        Ok(MemorySink {
            table,
            complete,
            schema,
            batches: BTreeMap::new(),
        })
    }

    fn publish(&self) -> Result<()> {
        let rows: Vec<RecordBatch> = self.batches.values().flatten().cloned().collect();
        let table = MemTable::try_new(Arc::clone(&self.schema), vec![rows])?;
        *self.table.current.write() = Arc::new(table);
        Ok(())
    }
}

/// The table registered once under the query's name: a reader polling it
/// while a batch lands sees the rows before or after, never no table (a
/// deregister-then-register swap left a window where the name was unknown).
#[derive(Debug)]
struct SinkTable {
    current: RwLock<Arc<MemTable>>,
}

impl SinkTable {
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
