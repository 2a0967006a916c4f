//! `mapInPandas` / `mapInArrow`: a user function from the record batches
//! of each input partition to record batches of a declared schema, any
//! number of rows. Stateless, so a stream runs it on each micro-batch as a
//! batch DataFrame runs it once. The function's host (Python) implements
//! [`BatchMapper`]; the engine calls it off its async workers.

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchemaRef, Result as DFResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PhysicalExpr, PlanProperties,
};

use super::operator::whole_partition;
use crate::error::Result;

/// The user's function over one partition's batches.
pub trait BatchMapper: Send + Sync {
    /// The output batches (of `schema`) for a partition's input `batches`.
    fn map(&self, batches: Vec<RecordBatch>, schema: SchemaRef) -> Result<Vec<RecordBatch>>;
}

/// The function in a plan node, compared by identity.
pub type Mapper = super::operator::ByIdentity<dyn BatchMapper>;

/// The logical `mapInPandas(func, schema)` (or `mapInArrow`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MapBatchesNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// The user's function.
    pub mapper: Mapper,
    /// The declared output schema.
    pub output: DFSchemaRef,
    /// `MapInPandas` or `MapInArrow` (Spark's plan names).
    pub kind: &'static str,
}

impl PartialOrd for MapBatchesNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        // nodes are told apart by identity; no order among them
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

impl UserDefinedLogicalNodeCore for MapBatchesNode {
    fn name(&self) -> &str {
        self.kind
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.output
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let cols: Vec<&str> = self
            .output
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        write!(f, "{}: [{}]", self.kind, cols.join(", "))
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        Ok(MapBatchesNode {
            input: inputs.swap_remove(0),
            ..self.clone()
        })
    }
}

/// The physical operator: each partition's input, then one call.
#[derive(Debug)]
pub struct MapBatchesExec {
    input: Arc<dyn ExecutionPlan>,
    mapper: Mapper,
    kind: &'static str,
    properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical `input` (its partitions kept).
pub fn plan(node: &MapBatchesNode, input: Arc<dyn ExecutionPlan>) -> MapBatchesExec {
    let schema: SchemaRef = Arc::new(node.output.as_arrow().clone());
    let partitions = input.properties().partitioning.partition_count();
    let properties = Arc::new(PlanProperties::new(
        datafusion::physical_expr::EquivalenceProperties::new(schema),
        datafusion::physical_plan::Partitioning::UnknownPartitioning(partitions),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    MapBatchesExec {
        input,
        mapper: node.mapper.clone(),
        kind: node.kind,
        properties,
    }
}

impl DisplayAs for MapBatchesExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}Exec", self.kind)
    }
}

impl ExecutionPlan for MapBatchesExec {
    fn name(&self) -> &str {
        "MapBatchesExec"
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

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let input = children.swap_remove(0);
        let partitions = input.properties().partitioning.partition_count();
        let properties = Arc::new(PlanProperties::new(
            self.properties.eq_properties.clone(),
            datafusion::physical_plan::Partitioning::UnknownPartitioning(partitions),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(MapBatchesExec {
            input,
            mapper: self.mapper.clone(),
            kind: self.kind,
            properties,
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<datafusion::execution::SendableRecordBatchStream> {
        let stream = self.input.execute(partition, context)?;
        let mapper = self.mapper.clone();
        let schema = Arc::clone(self.properties.eq_properties.schema());
        let out_schema = Arc::clone(&schema);
        Ok(whole_partition(stream, schema, move |batches| {
            let out = mapper.0.map(batches, Arc::clone(&out_schema))?;
            Ok(arrow::compute::concat_batches(&out_schema, &out)?)
        }))
    }
}
