//! `mapInPandas` / `mapInArrow`: a user function from the record batches
//! of each input partition to record batches of a declared schema, any
//! number of rows. Stateless, so a stream runs it on each micro-batch as a
//! batch DataFrame runs it once. The function's host (Python) implements
//! [`BatchMapper`]; the engine calls it off its async workers.

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::{DFSchemaRef, Result as DFResult};
use datafusion::logical_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::ExecutionPlan;

use super::unary::{Shape, UnaryExec, UnaryMap};
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

/// The user's function as the physical node maps each partition's input.
#[derive(Debug)]
pub struct BatchesMap {
    mapper: Mapper,
    kind: &'static str,
    schema: SchemaRef,
}

/// The physical `mapInPandas` / `mapInArrow`.
pub type MapBatchesExec = UnaryExec<BatchesMap>;

/// Plan `node` over its physical `input` (its partitions kept).
pub fn plan(node: &MapBatchesNode, input: Arc<dyn ExecutionPlan>) -> MapBatchesExec {
    UnaryExec::new(
        input,
        BatchesMap {
            mapper: node.mapper.clone(),
            kind: node.kind,
            schema: Arc::new(node.output.as_arrow().clone()),
        },
    )
}

impl UnaryMap for BatchesMap {
    fn name(&self) -> &str {
        "MapBatchesExec"
    }
    fn display(&self) -> String {
        format!("{}Exec", self.kind)
    }
    fn shape(&self) -> Shape {
        Shape::EachPartitionAs(Arc::clone(&self.schema))
    }
    fn map(&self, batches: Vec<RecordBatch>, _input_schema: &SchemaRef) -> Result<RecordBatch> {
        let out = self.mapper.0.map(batches, Arc::clone(&self.schema))?;
        Ok(arrow::compute::concat_batches(&self.schema, &out)?)
    }
}
