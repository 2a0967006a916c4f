//! A batch read of several Parquet files that keeps their order: one
//! DataFusion listing scan per file, their partitions one after another.
//! DataFusion's own multi-file scan groups files by path, but Spark reads a
//! scan's files the largest first, so `show()` after a read gives its rows
//! in that order, the same each run (file names carry random ids).

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::union::UnionExec;
use datafusion::physical_plan::ExecutionPlan;

/// The files' scans, in order.
#[derive(Debug)]
pub struct OrderedFiles {
    schema: SchemaRef,
    files: Vec<Arc<dyn TableProvider>>,
}

impl OrderedFiles {
    /// A table of `files` (each a provider of `schema`), read in order.
    pub fn new(schema: SchemaRef, files: Vec<Arc<dyn TableProvider>>) -> Self {
        OrderedFiles { schema, files }
    }
}

#[async_trait]
impl TableProvider for OrderedFiles {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DFResult<Vec<TableProviderFilterPushDown>> {
        // each file's scan may skip row groups; the filter still runs above
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let mut scans = Vec::with_capacity(self.files.len());
        for f in &self.files {
            scans.push(f.scan(state, projection, filters, limit).await?);
        }
        UnionExec::try_new(scans)
    }
}
