//! Spark's explicit partitions of a batch DataFrame and the id of the one a
//! row is in. `repartition(n, cols)` (Spark's `HashPartitioning`: Murmur3 of
//! the keys, seed 42, pmod n), `repartition(n)` and `coalesce(n)` (even
//! runs of rows, input partitions merged), `repartitionByRange(n, cols)`
//! (`RangePartitioner`'s bounds, here over every row, as Spark's sample is
//! for small inputs) and `repartitionById(n, col)` fix the partitions a
//! later `spark_partition_id()` reports and a writer writes one file each:
//! DataFusion's own repartitioning is free to change them.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, RecordBatch, UInt32Array};
use arrow::compute::SortColumn;
use arrow::datatypes::{DataType, Field, Int64Type, SchemaRef};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DFSchema, DFSchemaRef, Result as DFResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, Extension, LogicalPlan, Projection, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, SortExpr, UserDefinedLogicalNodeCore, Volatility,
};
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PhysicalExpr, PlanProperties,
};
use futures::StreamExt;
use tokio::sync::OnceCell;

/// How rows are assigned to partitions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub enum Scheme {
    /// Spark's `HashPartitioning` of the keys.
    Hash(Vec<Expr>),
    /// The rows in `n` contiguous runs of about equal size (`repartition(n)`).
    Runs,
    /// The input partitions merged into at most `n`, in order (`coalesce`).
    Coalesce,
    /// Sorted by the keys and cut at `RangePartitioner`'s bounds.
    Range(Vec<SortExpr>),
    /// The partition a column names, pmod n (null in partition 0).
    ById(Expr),
}

/// The logical node: `input` in `n` partitions by `scheme`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct PartitionsNode {
    /// The rows to partition.
    pub input: LogicalPlan,
    /// How.
    pub scheme: Scheme,
    /// How many partitions (at most, for `Coalesce` and `Range`).
    pub n: usize,
}

impl UserDefinedLogicalNodeCore for PartitionsNode {
    fn name(&self) -> &str {
        "Repartition"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        match &self.scheme {
            Scheme::Hash(keys) => keys.clone(),
            Scheme::Range(sorts) => sorts.iter().map(|s| s.expr.clone()).collect(),
            Scheme::ById(e) => vec![e.clone()],
            Scheme::Runs | Scheme::Coalesce => vec![],
        }
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let how = match &self.scheme {
            Scheme::Hash(_) => "hash",
            Scheme::Runs => "round robin",
            Scheme::Coalesce => "coalesce",
            Scheme::Range(_) => "range",
            Scheme::ById(_) => "by id",
        };
        write!(f, "Repartition: {} partitions, {how}", self.n)
    }

    fn with_exprs_and_inputs(
        &self,
        exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        let scheme = match &self.scheme {
            Scheme::Hash(_) => Scheme::Hash(exprs),
            Scheme::Range(sorts) => Scheme::Range(
                sorts
                    .iter()
                    .zip(exprs)
                    .map(|(s, e)| s.with_expr(e))
                    .collect(),
            ),
            Scheme::ById(_) => Scheme::ById(exprs.into_iter().next().ok_or_else(|| {
                datafusion::error::DataFusionError::Internal(
                    "repartitionById without a column".into(),
                )
            })?),
            other => other.clone(),
        };
        Ok(PartitionsNode {
            input: inputs.swap_remove(0),
            scheme,
            n: self.n,
        })
    }
}

/// `input` in `n` partitions by `scheme`, as a plan.
pub fn partitioned(input: LogicalPlan, scheme: Scheme, n: usize) -> LogicalPlan {
    LogicalPlan::Extension(Extension {
        node: Arc::new(PartitionsNode {
            input,
            scheme,
            n: n.max(1),
        }),
    })
}

/// The scheme with its expressions made physical.
#[derive(Debug)]
enum Assign {
    Hash(Vec<Arc<dyn PhysicalExpr>>),
    Runs,
    Coalesce,
    Range(Vec<(Arc<dyn PhysicalExpr>, arrow::compute::SortOptions)>),
    ById(Arc<dyn PhysicalExpr>),
}

/// The physical node: computes its input once, then hands out each
/// partition's rows.
#[derive(Debug)]
pub struct PartitionsExec {
    input: Arc<dyn ExecutionPlan>,
    assign: Arc<Assign>,
    n: usize,
    properties: Arc<PlanProperties>,
    parts: Arc<OnceCell<Vec<Vec<RecordBatch>>>>,
}

/// Plan `node` over its physical `input`.
pub fn plan(
    node: &PartitionsNode,
    input: Arc<dyn ExecutionPlan>,
    session: &dyn datafusion::catalog::Session,
) -> DFResult<PartitionsExec> {
    let schema = node.input.schema();
    let physical = |e: &Expr| session.create_physical_expr(e.clone(), schema);
    let assign = match &node.scheme {
        Scheme::Hash(keys) => Assign::Hash(keys.iter().map(physical).collect::<DFResult<_>>()?),
        Scheme::Runs => Assign::Runs,
        Scheme::Coalesce => Assign::Coalesce,
        Scheme::Range(sorts) => Assign::Range(
            sorts
                .iter()
                .map(|s| {
                    let options = arrow::compute::SortOptions {
                        descending: !s.asc,
                        nulls_first: s.nulls_first,
                    };
                    Ok((physical(&s.expr)?, options))
                })
                .collect::<DFResult<_>>()?,
        ),
        Scheme::ById(e) => Assign::ById(physical(e)?),
    };
    let n = match node.scheme {
        Scheme::Coalesce => node
            .n
            .min(input.properties().partitioning.partition_count())
            .max(1),
        _ => node.n,
    };
    let properties = Arc::new(PlanProperties::new(
        EquivalenceProperties::new(input.schema()),
        Partitioning::UnknownPartitioning(n),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    Ok(PartitionsExec {
        input,
        assign: Arc::new(assign),
        n,
        properties,
        parts: Arc::default(),
    })
}

impl DisplayAs for PartitionsExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let how = match self.assign.as_ref() {
            Assign::Hash(_) => "hashpartitioning",
            Assign::Runs => "roundrobinpartitioning",
            Assign::Coalesce => "coalesce",
            Assign::Range(_) => "rangepartitioning",
            Assign::ById(_) => "directshufflepartitionid",
        };
        write!(f, "Exchange {how}, {} partitions", self.n)
    }
}

impl ExecutionPlan for PartitionsExec {
    fn name(&self) -> &str {
        "Exchange"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        let exprs: Vec<&Arc<dyn PhysicalExpr>> = match self.assign.as_ref() {
            Assign::Hash(keys) => keys.iter().collect(),
            Assign::Range(sorts) => sorts.iter().map(|(e, _)| e).collect(),
            Assign::ById(e) => vec![e],
            Assign::Runs | Assign::Coalesce => vec![],
        };
        for e in exprs {
            if f(e)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(PartitionsExec {
            input: children.swap_remove(0),
            assign: Arc::clone(&self.assign),
            n: self.n,
            properties: Arc::clone(&self.properties),
            parts: Arc::default(),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let (input, assign, parts, n) = (
            Arc::clone(&self.input),
            Arc::clone(&self.assign),
            Arc::clone(&self.parts),
            self.n,
        );
        let schema = self.input.schema();
        let rows = async move {
            let all = parts
                .get_or_try_init(|| split(input, context, assign, n))
                .await?;
            Ok::<_, datafusion::error::DataFusionError>(
                all.get(partition).cloned().unwrap_or_default(),
            )
        };
        let stream = futures::stream::once(rows).flat_map(|r| {
            futures::stream::iter(match r {
                Ok(batches) => batches.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            })
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// Run `input` and split its rows into `n` partitions.
async fn split(
    input: Arc<dyn ExecutionPlan>,
    context: Arc<TaskContext>,
    assign: Arc<Assign>,
    n: usize,
) -> DFResult<Vec<Vec<RecordBatch>>> {
    let schema = input.schema();
    let inputs = datafusion::physical_plan::collect_partitioned(input, context).await?;
    if let Assign::Coalesce = assign.as_ref() {
        // Spark's coalescer without locality: output i takes the inputs
        // [i*m/n, (i+1)*m/n)
        let m = inputs.len();
        return Ok((0..n)
            .map(|i| inputs[i * m / n..(i + 1) * m / n].concat())
            .collect());
    }
    let all = arrow::compute::concat_batches(&schema, inputs.iter().flatten())?;
    let rows = all.num_rows();
    let target: Vec<usize> = match assign.as_ref() {
        Assign::Hash(keys) => {
            let arrays = evaluate(keys, &all)?;
            let hashes = crate::functions::murmur3::kernel(&arrays)?;
            let hashes = hashes.as_primitive::<arrow::datatypes::Int32Type>();
            hashes
                .values()
                .iter()
                .map(|h| h.rem_euclid(n as i32) as usize)
                .collect()
        }
        Assign::Runs | Assign::Coalesce => (0..rows).map(|i| i * n / rows.max(1)).collect(),
        Assign::ById(e) => {
            let ids = e.evaluate(&all)?.into_array(rows)?;
            let ids = arrow::compute::cast(&ids, &DataType::Int64)?;
            let ids = ids.as_primitive::<Int64Type>();
            (0..rows)
                .map(|i| {
                    if ids.is_null(i) {
                        0
                    } else {
                        ids.value(i).rem_euclid(n as i64) as usize
                    }
                })
                .collect()
        }
        Assign::Range(sorts) => range_targets(sorts, &all, n)?,
    };
    let n = target.iter().max().map_or(n, |m| n.max(m + 1));
    (0..n)
        .map(|p| {
            let idx: UInt32Array = (0..rows)
                .filter(|i| target[*i] == p)
                .map(|i| i as u32)
                .collect();
            let part = arrow::compute::take_record_batch(&all, &idx)?;
            Ok(if part.num_rows() == 0 {
                vec![]
            } else {
                vec![part]
            })
        })
        .collect()
}

fn evaluate(exprs: &[Arc<dyn PhysicalExpr>], batch: &RecordBatch) -> DFResult<Vec<ArrayRef>> {
    exprs
        .iter()
        .map(|e| e.evaluate(batch)?.into_array(batch.num_rows()))
        .collect()
}

/// `RangePartitioner` over every row: sorted by the keys, a bound is set
/// where the running count reaches each `rows / n` step and the key
/// changes, so equal keys share a partition.
fn range_targets(
    sorts: &[(Arc<dyn PhysicalExpr>, arrow::compute::SortOptions)],
    all: &RecordBatch,
    n: usize,
) -> DFResult<Vec<usize>> {
    let rows = all.num_rows();
    let keys: Vec<SortColumn> = sorts
        .iter()
        .map(|(e, options)| {
            Ok(SortColumn {
                values: e.evaluate(all)?.into_array(rows)?,
                options: Some(*options),
            })
        })
        .collect::<DFResult<_>>()?;
    let order = arrow::compute::lexsort_to_indices(&keys, None)?;
    let columns: Vec<ArrayRef> = keys.iter().map(|k| Arc::clone(&k.values)).collect();
    let converter = arrow::row::RowConverter::new(
        keys.iter()
            .map(|k| {
                arrow::row::SortField::new_with_options(
                    k.values.data_type().clone(),
                    k.options.unwrap_or_default(),
                )
            })
            .collect(),
    )?;
    let encoded = converter.convert_columns(&columns)?;
    let step = rows as f64 / n as f64;
    let mut target = vec![0; rows];
    let mut p = 0;
    for (rank, i) in order.values().iter().enumerate() {
        let i = *i as usize;
        target[i] = p;
        let next = order.values().get(rank + 1).map(|j| *j as usize);
        let key_changes = next.is_some_and(|j| encoded.row(i) != encoded.row(j));
        if p + 1 < n && key_changes && (rank + 1) as f64 >= step * (p + 1) as f64 {
            p += 1;
        }
    }
    Ok(target)
}

// ---- spark_partition_id() ------------------------------------------------

/// The function's name, as Spark prints it.
const NAME: &str = "SPARK_PARTITION_ID";

/// The hidden column the id is computed into.
const ID_COLUMN: &str = "__spark_partition_id";

/// `spark_partition_id()`: a placeholder the optimizer ([`PartitionIdRule`])
/// replaces by a column of the partition index, which only the physical
/// plan knows.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SparkPartitionId {
    signature: Signature,
    aliases: Vec<String>,
}

/// The function, named as Spark names it.
pub fn spark_partition_id_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(SparkPartitionId {
        signature: Signature::nullary(Volatility::Volatile),
        aliases: vec!["spark_partition_id".into()],
    })
}

impl ScalarUDFImpl for SparkPartitionId {
    fn name(&self) -> &str {
        NAME
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int32)
    }
    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        Err(datafusion::error::DataFusionError::Plan(
            "spark_partition_id() is computed in select, withColumn and where only".into(),
        ))
    }
}

fn is_partition_id(e: &Expr) -> bool {
    matches!(e, Expr::ScalarFunction(f) if f.func.name() == NAME)
}

/// Whether `plan`'s own expressions call `spark_partition_id()` (read in
/// place: the rule runs on every plan a stream's batches optimize).
fn uses_partition_id(plan: &LogicalPlan) -> bool {
    let mut found = false;
    let _ = plan.apply_expressions(|e| {
        found = e.exists(|e| Ok(is_partition_id(e)))?;
        Ok(if found {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    found
}

/// Replaces `spark_partition_id()` in a projection or filter by a column
/// that [`PartitionIdExec`] fills below it.
#[derive(Debug, Default)]
pub struct PartitionIdRule;

impl OptimizerRule for PartitionIdRule {
    fn name(&self) -> &str {
        "spark_partition_id"
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> DFResult<Transformed<LogicalPlan>> {
        plan.transform_up(|plan| {
            if !uses_partition_id(&plan) {
                return Ok(Transformed::no(plan));
            }
            let LogicalPlan::Projection(p) = plan else {
                return match plan {
                    LogicalPlan::Filter(f) => filter_with_ids(f),
                    LogicalPlan::Aggregate(a) => {
                        let input = with_ids(Arc::unwrap_or_clone(a.input))?;
                        let replace = |es: Vec<Expr>| -> DFResult<Vec<Expr>> {
                            es.into_iter().map(replace_ids).collect()
                        };
                        Ok(Transformed::yes(LogicalPlan::Aggregate(
                            datafusion::logical_expr::Aggregate::try_new(
                                Arc::new(input),
                                replace(a.group_expr)?,
                                replace(a.aggr_expr)?,
                            )?,
                        )))
                    }
                    other => Ok(Transformed::no(other)),
                };
            };
            let input = with_ids(Arc::unwrap_or_clone(p.input))?;
            let exprs = p
                .expr
                .into_iter()
                .map(replace_ids)
                .collect::<DFResult<Vec<_>>>()?;
            Ok(Transformed::yes(LogicalPlan::Projection(
                Projection::try_new(exprs, Arc::new(input))?,
            )))
        })
    }
}

/// A filter on the id: over the id column, then the column dropped.
fn filter_with_ids(f: datafusion::logical_expr::Filter) -> DFResult<Transformed<LogicalPlan>> {
    let columns: Vec<Expr> = f
        .input
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    let input = with_ids(Arc::unwrap_or_clone(f.input))?;
    let filter =
        datafusion::logical_expr::Filter::try_new(replace_ids(f.predicate)?, Arc::new(input))?;
    Ok(Transformed::yes(LogicalPlan::Projection(
        Projection::try_new(columns, Arc::new(LogicalPlan::Filter(filter)))?,
    )))
}

fn replace_ids(e: Expr) -> DFResult<Expr> {
    let name = e.schema_name().to_string();
    let replaced = e
        .transform_up(|e| {
            Ok(if is_partition_id(&e) {
                Transformed::yes(Expr::Column(datafusion::common::Column::new_unqualified(
                    ID_COLUMN,
                )))
            } else {
                Transformed::no(e)
            })
        })?
        .data;
    // the output keeps the name the call gave it
    Ok(match replaced {
        Expr::Alias(a) => Expr::Alias(a),
        other if other.schema_name().to_string() != name => other.alias(name),
        other => other,
    })
}

fn with_ids(input: LogicalPlan) -> DFResult<LogicalPlan> {
    let mut fields: Vec<(Option<datafusion::common::TableReference>, Arc<Field>)> = input
        .schema()
        .iter()
        .map(|(q, f)| (q.cloned(), Arc::clone(f)))
        .collect();
    fields.push((
        None,
        Arc::new(Field::new(ID_COLUMN, DataType::Int32, false)),
    ));
    let schema = DFSchema::new_with_metadata(fields, input.schema().metadata().clone())?;
    Ok(LogicalPlan::Extension(Extension {
        node: Arc::new(PartitionIdNode {
            input,
            schema: Arc::new(schema),
        }),
    }))
}

/// Its input's rows with the index of the partition each is in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartitionIdNode {
    input: LogicalPlan,
    schema: DFSchemaRef,
}

impl PartialOrd for PartitionIdNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.input.partial_cmp(&other.input)
    }
}

impl UserDefinedLogicalNodeCore for PartitionIdNode {
    fn name(&self) -> &str {
        "PartitionId"
    }
    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }
    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }
    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }
    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PartitionId")
    }
    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        Ok(PartitionIdNode {
            input: inputs.swap_remove(0),
            schema: Arc::clone(&self.schema),
        })
    }
}

/// The physical [`PartitionIdNode`]: its input's partitions kept.
#[derive(Debug)]
pub struct PartitionIdExec {
    input: Arc<dyn ExecutionPlan>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical `input`.
pub fn plan_ids(node: &PartitionIdNode, input: Arc<dyn ExecutionPlan>) -> PartitionIdExec {
    let schema: SchemaRef = Arc::new(node.schema.as_arrow().clone());
    let properties = id_properties(&schema, &input);
    PartitionIdExec {
        input,
        schema,
        properties,
    }
}

/// The input's partitions and order, with the id column beside.
fn id_properties(schema: &SchemaRef, input: &Arc<dyn ExecutionPlan>) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new_with_orderings(
            Arc::clone(schema),
            input.output_ordering().cloned(),
        ),
        input.properties().partitioning.clone(),
        input.properties().emission_type,
        input.properties().boundedness,
    ))
}

impl DisplayAs for PartitionIdExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PartitionIdExec")
    }
}

impl ExecutionPlan for PartitionIdExec {
    fn name(&self) -> &str {
        "PartitionIdExec"
    }
    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }
    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }
    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
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
        let properties = id_properties(&self.schema, &input);
        Ok(Arc::new(PartitionIdExec {
            input,
            schema: Arc::clone(&self.schema),
            properties,
        }))
    }
    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let schema = Arc::clone(&self.schema);
        let out = Arc::clone(&schema);
        let stream = self.input.execute(partition, context)?.map(move |b| {
            let b = b?;
            let ids: ArrayRef = Arc::new(Int32Array::from_value(partition as i32, b.num_rows()));
            let mut columns = b.columns().to_vec();
            columns.push(ids);
            Ok(RecordBatch::try_new(Arc::clone(&out), columns)?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}
