//! Batch tables whose rows come from user code the bindings call (Python
//! data sources): the code plans each scan (offered the query's filters,
//! as Spark offers a `DataSourceReader`'s `pushFilters` its filters), then
//! hands over record batches one at a time. The engine re-applies every
//! filter, so a source may take all, some or none of them.

use std::fmt::Debug;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::datasource::TableType;
use datafusion::error::DataFusionError;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, Operator, TableProviderFilterPushDown};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};

use crate::error::{Error, Result};

/// A filter in the form Spark offers a source: a comparison of a column
/// (its path: top-level columns only here) with a literal.
#[derive(Debug, Clone, PartialEq)]
pub enum PushedFilter {
    /// `column <op> value`; `op` is Spark's filter name (`EqualTo`,
    /// `EqualNullSafe`, `GreaterThan`, `GreaterThanOrEqual`, `LessThan`,
    /// `LessThanOrEqual`).
    Compare(&'static str, Vec<String>, ScalarValue),
    /// `column IN (values)`.
    In(Vec<String>, Vec<ScalarValue>),
    /// `column IS NULL`.
    IsNull(Vec<String>),
    /// `column IS NOT NULL`.
    IsNotNull(Vec<String>),
    /// The negation of a filter.
    Not(Box<PushedFilter>),
    /// A string test: `StringStartsWith`, `StringEndsWith`, `StringContains`.
    Text(&'static str, Vec<String>, String),
}

impl PushedFilter {
    /// `expr` as a filter a source can take, if it has that form.
    pub fn of(expr: &Expr) -> Option<PushedFilter> {
        match expr {
            Expr::BinaryExpr(b) => {
                let (column, value, flipped) = match (&*b.left, &*b.right) {
                    (Expr::Column(c), Expr::Literal(v, _)) => (c, v, false),
                    (Expr::Literal(v, _), Expr::Column(c)) => (c, v, true),
                    _ => return None,
                };
                let path = vec![column.name.clone()];
                let name = match (b.op, flipped) {
                    (Operator::Eq, _) => "EqualTo",
                    (Operator::IsNotDistinctFrom, _) => "EqualNullSafe",
                    (Operator::NotEq, _) => {
                        return Some(PushedFilter::Not(Box::new(PushedFilter::Compare(
                            "EqualTo",
                            path,
                            value.clone(),
                        ))))
                    }
                    (Operator::Gt, false) | (Operator::Lt, true) => "GreaterThan",
                    (Operator::GtEq, false) | (Operator::LtEq, true) => "GreaterThanOrEqual",
                    (Operator::Lt, false) | (Operator::Gt, true) => "LessThan",
                    (Operator::LtEq, false) | (Operator::GtEq, true) => "LessThanOrEqual",
                    _ => return None,
                };
                Some(PushedFilter::Compare(name, path, value.clone()))
            }
            Expr::IsNull(e) => column_path(e).map(PushedFilter::IsNull),
            Expr::IsNotNull(e) => column_path(e).map(PushedFilter::IsNotNull),
            Expr::Not(e) => PushedFilter::of(e).map(|f| PushedFilter::Not(Box::new(f))),
            Expr::InList(list) => {
                let path = column_path(&list.expr)?;
                let values = list
                    .list
                    .iter()
                    .map(|e| match e {
                        Expr::Literal(v, _) => Some(v.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                let filter = PushedFilter::In(path, values);
                Some(if list.negated {
                    PushedFilter::Not(Box::new(filter))
                } else {
                    filter
                })
            }
            Expr::ScalarFunction(f) => {
                let name = match f.func.name() {
                    "starts_with" => "StringStartsWith",
                    "ends_with" => "StringEndsWith",
                    "contains" => "StringContains",
                    _ => return None,
                };
                match f.args.as_slice() {
                    [column, Expr::Literal(ScalarValue::Utf8(Some(s)), _)] => {
                        Some(PushedFilter::Text(name, column_path(column)?, s.clone()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn column_path(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Column(c) => Some(vec![c.name.clone()]),
        _ => None,
    }
}

/// User code that plans a scan.
pub trait ScanPlanner: Send + Sync + Debug {
    /// Plan a scan given the query's filters (those of a form a source can
    /// take); what to read.
    fn plan(&self, filters: Vec<PushedFilter>) -> Result<Arc<dyn PlannedScan>>;
}

/// A planned scan: its rows, as often as the plan is run.
pub trait PlannedScan: Send + Sync + Debug {
    /// The rows from the start, one record batch at a time (called on a
    /// thread of its own: it may block).
    fn batches(&self) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>>;
}

/// A table whose scans `planner` plans.
#[derive(Debug)]
pub struct CallbackTable {
    schema: SchemaRef,
    planner: Arc<dyn ScanPlanner>,
}

impl CallbackTable {
    /// A table of `schema` planned by `planner`.
    pub fn new(schema: SchemaRef, planner: Arc<dyn ScanPlanner>) -> Self {
        CallbackTable { schema, planner }
    }
}

#[async_trait]
impl TableProvider for CallbackTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::error::Result<Vec<TableProviderFilterPushDown>> {
        // offered to the source; applied again whatever it does
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        _state: &dyn CatalogSession,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let pushed = filters.iter().filter_map(PushedFilter::of).collect();
        let planned = self
            .planner
            .plan(pushed)
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let partition: Arc<dyn PartitionStream> = Arc::new(CallbackPartition {
            schema: Arc::clone(&self.schema),
            planned,
        });
        Ok(Arc::new(StreamingTableExec::try_new(
            Arc::clone(&self.schema),
            vec![partition],
            projection,
            Vec::new(),
            false,
            limit,
        )?))
    }
}

#[derive(Debug)]
struct CallbackPartition {
    schema: SchemaRef,
    planned: Arc<dyn PlannedScan>,
}

impl PartitionStream for CallbackPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        // the user's code runs (and may block) on a blocking thread; the
        // channel's bound keeps it a few batches ahead at most
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(2);
        let planned = Arc::clone(&self.planned);
        let feed = move || {
            let batches = match planned.batches() {
                Ok(b) => b,
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            };
            for batch in batches {
                let failed = batch.is_err();
                // the reader is gone (a limit was reached): stop reading
                if tx.blocking_send(batch).is_err() || failed {
                    return;
                }
            }
        };
        let stream = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| {
                let item = item.map_err(|e: Error| DataFusionError::External(Box::new(e)));
                (item, rx)
            })
        });
        match crate::runtime::runtime() {
            Ok(rt) => {
                drop(rt.spawn_blocking(feed));
                Box::pin(RecordBatchStreamAdapter::new(
                    Arc::clone(&self.schema),
                    stream,
                ))
            }
            Err(e) => Box::pin(RecordBatchStreamAdapter::new(
                Arc::clone(&self.schema),
                futures::stream::once(async move { Err(DataFusionError::External(Box::new(e))) }),
            )),
        }
    }
}
