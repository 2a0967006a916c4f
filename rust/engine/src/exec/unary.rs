//! The one physical node over one input that maps its batches: stateful
//! operators run per batch (dedup, limit, group state, observation), user
//! functions (`mapInPandas`) and the watermark's statistics differ only in
//! what they do with the rows ([`UnaryMap`]) and how much input one call
//! takes ([`Shape`]).

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result as DFResult;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PhysicalExpr, PlanProperties,
};
use futures::StreamExt;

use super::operator::{each_batch_blocking, whole_partition};
use crate::error::Result;

/// How much input one call of [`UnaryMap::map`] takes, and what comes out.
#[derive(Debug, Clone)]
pub enum Shape {
    /// Each batch as it arrives; the input's schema, partitions and order.
    EachBatch,
    /// Each batch as it arrives, on the blocking pool (the map blocks on
    /// state stores); the input's schema, partitions and order.
    EachBatchBlocking,
    /// Each partition's whole input; rows of this schema.
    EachPartitionAs(SchemaRef),
    /// Every partition's input in one call (a key is seen once per batch);
    /// rows of this schema, one partition.
    WholeInputAs(SchemaRef),
}

/// What a [`UnaryExec`] does with its input's rows.
pub trait UnaryMap: fmt::Debug + Send + Sync + 'static {
    /// The physical node's name (Spark's).
    fn name(&self) -> &str;
    /// Its line in `explain()`.
    fn display(&self) -> String {
        self.name().to_string()
    }
    /// How it takes its input.
    fn shape(&self) -> Shape;
    /// The output rows for `batches` of the input (of `input_schema`).
    fn map(&self, batches: Vec<RecordBatch>, input_schema: &SchemaRef) -> Result<RecordBatch>;
}

/// The physical node of a [`UnaryMap`].
#[derive(Debug)]
pub struct UnaryExec<M: UnaryMap> {
    input: Arc<dyn ExecutionPlan>,
    map: Arc<M>,
    properties: Arc<PlanProperties>,
}

impl<M: UnaryMap> UnaryExec<M> {
    /// Map `input`'s rows through `map`.
    pub fn new(input: Arc<dyn ExecutionPlan>, map: M) -> Self {
        Self::over(input, Arc::new(map))
    }

    fn over(input: Arc<dyn ExecutionPlan>, map: Arc<M>) -> Self {
        let declared = |schema: &SchemaRef, partitions: usize| {
            Arc::new(PlanProperties::new(
                datafusion::physical_expr::EquivalenceProperties::new(Arc::clone(schema)),
                Partitioning::UnknownPartitioning(partitions),
                EmissionType::Final,
                Boundedness::Bounded,
            ))
        };
        let properties = match map.shape() {
            Shape::EachBatch | Shape::EachBatchBlocking => Arc::clone(input.properties()),
            Shape::EachPartitionAs(schema) => {
                declared(&schema, input.properties().partitioning.partition_count())
            }
            Shape::WholeInputAs(schema) => declared(&schema, 1),
        };
        UnaryExec {
            input,
            map,
            properties,
        }
    }

    /// What the node does with the rows.
    pub fn map(&self) -> &M {
        &self.map
    }
}

impl<M: UnaryMap> DisplayAs for UnaryExec<M> {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.map.display())
    }
}

impl<M: UnaryMap> ExecutionPlan for UnaryExec<M> {
    fn name(&self) -> &str {
        self.map.name()
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![matches!(
            self.map.shape(),
            Shape::EachBatch | Shape::EachBatchBlocking
        )]
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(UnaryExec::over(
            children.swap_remove(0),
            Arc::clone(&self.map),
        )))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let map = Arc::clone(&self.map);
        let input_schema = self.input.schema();
        let schema = Arc::clone(self.properties.eq_properties.schema());
        let stream = match map.shape() {
            Shape::EachBatch => {
                let stream = self.input.execute(partition, context)?;
                let mapped = stream.map(move |b| {
                    map.map(vec![b?], &input_schema)
                        .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))
                });
                return Ok(Box::pin(RecordBatchStreamAdapter::new(schema, mapped)));
            }
            Shape::EachBatchBlocking => {
                let stream = self.input.execute(partition, context)?;
                return Ok(each_batch_blocking(stream, schema, move |b| {
                    map.map(vec![b], &input_schema)
                }));
            }
            Shape::EachPartitionAs(_) => self.input.execute(partition, context)?,
            Shape::WholeInputAs(_) => {
                datafusion::physical_plan::execute_stream(Arc::clone(&self.input), context)?
            }
        };
        Ok(whole_partition(stream, schema, move |batches| {
            map.map(batches, &input_schema)
        }))
    }
}
