//! `DataFrame.persist()`/`cache()` and `checkpoint()` in one process: a
//! table over a plan's result. A cached table computes the plan the first
//! time a query scans it and keeps the batches for every later scan (the
//! plans built on the DataFrame before or after `persist` all read it, as
//! Spark's cache manager answers them); a checkpoint computes it now, so
//! the plan under it is gone (truncated, as Spark's checkpoint truncates
//! the lineage).

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::TableType;
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use tokio::sync::OnceCell;

use crate::error::{Error, Result};

/// The result of a plan, computed at the first scan and kept.
#[derive(Debug)]
pub struct CachedTable {
    schema: SchemaRef,
    plan: DataFrame,
    batches: OnceCell<Vec<Vec<RecordBatch>>>,
}

#[async_trait]
impl TableProvider for CachedTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn CatalogSession,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let parts = self
            .batches
            .get_or_try_init(|| self.plan.clone().collect_partitioned())
            .await?;
        let exec =
            MemorySourceConfig::try_new_exec(parts, Arc::clone(&self.schema), projection.cloned())?;
        Ok(exec)
    }
}

/// `df.persist()`: `df` read through a [`CachedTable`] (computed at the
/// first action).
pub fn cache(df: DataFrame) -> Result<DataFrame> {
    let schema = Arc::new(df.schema().as_arrow().clone());
    let table = CachedTable {
        schema,
        plan: df.clone(),
        batches: OnceCell::new(),
    };
    scan_of(df, Arc::new(table))
}

/// `df.checkpoint()` / `localCheckpoint()`: `df` computed now, its plan
/// replaced by the result (its partitions kept).
pub async fn checkpoint(df: DataFrame) -> Result<DataFrame> {
    let schema = Arc::new(df.schema().as_arrow().clone());
    let parts = df
        .clone()
        .collect_partitioned()
        .await
        .map_err(Error::from_execution)?;
    let table =
        datafusion::datasource::MemTable::try_new(schema, parts).map_err(Error::from_planning)?;
    scan_of(df, Arc::new(table))
}

/// A DataFrame scanning `table`, in `df`'s session.
fn scan_of(df: DataFrame, table: Arc<dyn TableProvider>) -> Result<DataFrame> {
    use datafusion::logical_expr::{LogicalPlanBuilder, TableSource};
    let schema = df.schema().clone();
    let (state, _) = df.into_parts();
    let source: Arc<dyn TableSource> = datafusion::datasource::provider_as_source(table);
    // the columns keep their qualifiers (`df.alias("a")` then `a.x`)
    let names: Vec<Expr> = schema
        .iter()
        .map(|(qualifier, field)| {
            Expr::Column(Column::new(Some("__cached"), field.name()))
                .alias_qualified(qualifier.cloned(), field.name())
        })
        .collect();
    let plan = LogicalPlanBuilder::scan("__cached", source, None)
        .and_then(|b| b.project(names))
        .and_then(|b| b.build())
        .map_err(Error::from_planning)?;
    Ok(DataFrame::new(state, plan))
}
