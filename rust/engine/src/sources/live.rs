//! A source's rows as a table whose data changes between runs of one
//! physical plan. The real-time modes plan a query once per long-running
//! batch and run that plan again for every arrival (an epoch): planning
//! costs more than a small epoch's work, so each epoch only swaps the rows
//! the scans read ([`LiveInput::set`]) and resets the plan's run state.

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::TableType;
use datafusion::error::Result as DFResult;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use parking_lot::Mutex;

/// The rows the scans of one source read in the current epoch.
type Rows = Arc<Mutex<Vec<RecordBatch>>>;

/// A source's table in a plan made once and run per epoch.
#[derive(Debug)]
pub struct LiveInput {
    schema: SchemaRef,
    rows: Rows,
}

impl LiveInput {
    /// An empty table of `schema`.
    pub fn new(schema: SchemaRef) -> Self {
        LiveInput {
            schema,
            rows: Arc::default(),
        }
    }

    /// The rows the next run of the plan reads.
    pub fn set(&self, rows: Vec<RecordBatch>) {
        *self.rows.lock() = rows;
    }
}

#[async_trait]
impl TableProvider for LiveInput {
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
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => Arc::clone(&self.schema),
        };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(LiveInputExec {
            rows: Arc::clone(&self.rows),
            projection: projection.cloned(),
            schema,
            properties,
        }))
    }
}

/// Reads the rows set for the current epoch.
#[derive(Debug)]
struct LiveInputExec {
    rows: Rows,
    projection: Option<Vec<usize>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl DisplayAs for LiveInputExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "LiveInputExec")
    }
}

impl ExecutionPlan for LiveInputExec {
    fn name(&self) -> &str {
        "LiveInputExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
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
        _partition: usize,
        _context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let rows = self.rows.lock().clone();
        let rows = match &self.projection {
            Some(p) => rows
                .iter()
                .map(|b| b.project(p))
                .collect::<Result<Vec<_>, _>>()?,
            None => rows,
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            futures::stream::iter(rows.into_iter().map(Ok)),
        )))
    }
}
