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
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::TableType;
use datafusion::error::Result as DFResult;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PhysicalExpr, PlanProperties,
};
use futures::StreamExt;
use tokio::sync::OnceCell;

use crate::error::{Error, Result};

/// The result of a plan, computed at the first scan that runs and kept.
#[derive(Debug)]
pub struct CachedTable {
    schema: SchemaRef,
    plan: DataFrame,
    kept: Arc<Kept>,
}

/// The plan's physical form (made at the first planning, so `explain()`
/// computes nothing) and its result (made at the first execution).
#[derive(Debug, Default)]
struct Kept {
    physical: OnceCell<Arc<dyn ExecutionPlan>>,
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
        if let Some(parts) = self.kept.batches.get() {
            let exec = MemorySourceConfig::try_new_exec(
                parts,
                Arc::clone(&self.schema),
                projection.cloned(),
            )?;
            return Ok(Arc::new(InMemoryTableScanExec::new(
                exec,
                Arc::clone(&self.kept),
                None,
            )));
        }
        let physical = self
            .kept
            .physical
            .get_or_try_init(|| {
                let plan = self.plan.clone();
                async move { plan.create_physical_plan().await }
            })
            .await?;
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => Arc::clone(&self.schema),
        };
        let n = physical.properties().partitioning.partition_count();
        let exec =
            Arc::new(datafusion::physical_plan::empty::EmptyExec::new(schema).with_partitions(n));
        Ok(Arc::new(InMemoryTableScanExec::new(
            exec,
            Arc::clone(&self.kept),
            Some((projection.cloned(), Arc::new(self.plan.task_ctx()))),
        )))
    }
}

/// Spark's `InMemoryTableScan`: a cached table's partitions, computed by
/// the first execution of any scan of it and read from memory afterwards.
#[derive(Debug)]
pub struct InMemoryTableScanExec {
    /// The kept batches' scan (once computed), else a stand-in of the
    /// same schema and partitions.
    scan: Arc<dyn ExecutionPlan>,
    kept: Arc<Kept>,
    /// Until computed: the projection and the context to compute it in.
    pending: Option<(Option<Vec<usize>>, Arc<TaskContext>)>,
}

impl InMemoryTableScanExec {
    fn new(
        scan: Arc<dyn ExecutionPlan>,
        kept: Arc<Kept>,
        pending: Option<(Option<Vec<usize>>, Arc<TaskContext>)>,
    ) -> Self {
        InMemoryTableScanExec {
            scan,
            kept,
            pending,
        }
    }
}

impl DisplayAs for InMemoryTableScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let schema = self.scan.schema();
        let cols: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        write!(f, "InMemoryTableScan [{}]", cols.join(", "))
    }
}

impl ExecutionPlan for InMemoryTableScanExec {
    fn name(&self) -> &str {
        "InMemoryTableScan"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.scan.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let Some((projection, ctx)) = &self.pending else {
            return self.scan.execute(partition, context);
        };
        let (kept, projection, ctx) = (Arc::clone(&self.kept), projection.clone(), Arc::clone(ctx));
        let schema = self.scan.schema();
        let batches = async move {
            let Some(physical) = kept.physical.get() else {
                return Err(datafusion::error::DataFusionError::Internal(
                    "a cached table executed before it was planned".into(),
                ));
            };
            let parts = kept
                .batches
                .get_or_try_init(|| {
                    datafusion::physical_plan::collect_partitioned(Arc::clone(physical), ctx)
                })
                .await?;
            let part = parts.get(partition).cloned().unwrap_or_default();
            part.into_iter()
                .map(|b| match &projection {
                    Some(p) => Ok(b.project(p)?),
                    None => Ok(b),
                })
                .collect::<DFResult<Vec<_>>>()
        };
        let stream = futures::stream::once(batches)
            .map(|r| {
                futures::stream::iter(
                    r.map_or_else(|e| vec![Err(e)], |v| v.into_iter().map(Ok).collect()),
                )
            })
            .flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// `df.persist()`: `df` read through a [`CachedTable`] (computed at the
/// first action).
pub fn cache(df: DataFrame) -> Result<DataFrame> {
    let schema = Arc::new(df.schema().as_arrow().clone());
    let table = CachedTable {
        schema,
        plan: df.clone(),
        kept: Arc::default(),
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
