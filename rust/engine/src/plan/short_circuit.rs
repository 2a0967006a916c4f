//! Spark's `AND` and `OR` evaluate their right side only for the rows the
//! left side leaves undecided: `b != 0 AND a / b > 1` never divides by a
//! zero `b` (Spark's generated code branches row by row). DataFusion
//! evaluates both sides over the whole batch, so under ANSI such a guard
//! did not guard: the division raised `DIVIDE_BY_ZERO` where Spark returns
//! rows. A physical rule wraps each `AND`/`OR` of a filter or projection
//! whose right side can raise an error in [`ShortCircuit`], which evaluates
//! the right side over the whole batch first (the usual case: no error,
//! no extra cost) and only when that fails, again over just the undecided
//! rows, so an error is raised only if one of those rows raises it.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use arrow::array::{Array, BooleanArray};
use arrow::compute::kernels::boolean::{and_kleene, or_kleene};
use arrow::datatypes::{DataType, Schema};
use arrow::record_batch::RecordBatch;
use datafusion::common::cast::as_boolean_array;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::{
    BinaryExpr, Column, InListExpr, IsNotNullExpr, IsNullExpr, Literal, NotExpr,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
use datafusion::physical_plan::ExecutionPlan;

/// `left AND right` or `left OR right`, the right side evaluated only where
/// it decides the result once evaluating it everywhere failed.
#[derive(Debug, Eq)]
pub struct ShortCircuit {
    /// [`Operator::And`] or [`Operator::Or`].
    op: Operator,
    left: Arc<dyn PhysicalExpr>,
    right: Arc<dyn PhysicalExpr>,
}

// by hand: the derives cannot compare or hash through the `Arc<dyn _>`s
impl PartialEq for ShortCircuit {
    fn eq(&self, other: &Self) -> bool {
        self.op == other.op && self.left.eq(&other.left) && self.right.eq(&other.right)
    }
}

impl Hash for ShortCircuit {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.op.hash(state);
        self.left.hash(state);
        self.right.hash(state);
    }
}

impl fmt::Display for ShortCircuit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} {} {}", self.left, self.op, self.right)
    }
}

impl ShortCircuit {
    /// The rows whose result the left side's `left` does not decide: for
    /// `AND` those not false, for `OR` those not true.
    fn undecided(&self, left: &BooleanArray) -> BooleanArray {
        let decides = self.op == Operator::Or;
        left.iter().map(|v| Some(v != Some(decides))).collect()
    }

    fn combine(&self, left: &BooleanArray, right: &BooleanArray) -> DFResult<ColumnarValue> {
        let out = if self.op == Operator::And {
            and_kleene(left, right)?
        } else {
            or_kleene(left, right)?
        };
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

impl PhysicalExpr for ShortCircuit {
    fn data_type(&self, _input_schema: &Schema) -> DFResult<DataType> {
        Ok(DataType::Boolean)
    }

    fn nullable(&self, input_schema: &Schema) -> DFResult<bool> {
        Ok(self.left.nullable(input_schema)? || self.right.nullable(input_schema)?)
    }

    fn evaluate(&self, batch: &RecordBatch) -> DFResult<ColumnarValue> {
        let n = batch.num_rows();
        let left = self.left.evaluate(batch)?.into_array(n)?;
        let left = as_boolean_array(&left)?;
        // every row decided by the left side (all false for AND, all true
        // for OR): the right side is not evaluated at all
        let open = left.null_count()
            + if self.op == Operator::And {
                left.true_count()
            } else {
                left.false_count()
            };
        if open == 0 {
            return Ok(ColumnarValue::Array(Arc::new(left.clone())));
        }
        let right = match self.right.evaluate(batch) {
            Ok(right) => right,
            Err(e) => {
                let undecided = self.undecided(left);
                if undecided.true_count() == n {
                    return Err(e); // every row needs the right side: its error stands
                }
                // the undecided rows only (the others get nulls, which the
                // decided rows' results do not read)
                self.right.evaluate_selection(batch, &undecided)?
            }
        };
        let right = right.into_array(n)?;
        self.combine(left, as_boolean_array(&right)?)
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.left, &self.right]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> DFResult<Arc<dyn PhysicalExpr>> {
        let [left, right]: [Arc<dyn PhysicalExpr>; 2] = children.try_into().map_err(|_| {
            datafusion::error::DataFusionError::Internal("AND/OR takes two children".into())
        })?;
        Ok(Arc::new(ShortCircuit {
            op: self.op,
            left,
            right,
        }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.left.fmt_sql(f)?;
        write!(f, " {} ", self.op)?;
        self.right.fmt_sql(f)
    }
}

/// Whether evaluating `e` can raise an error: anything but columns,
/// literals, comparisons, boolean logic and null tests (a function, a cast,
/// arithmetic under ANSI can).
fn may_fail(e: &Arc<dyn PhysicalExpr>) -> bool {
    let safe_node = |e: &Arc<dyn PhysicalExpr>| {
        if let Some(b) = e.downcast_ref::<BinaryExpr>() {
            use Operator::*;
            return matches!(
                b.op(),
                Eq | NotEq | Lt | LtEq | Gt | GtEq | IsDistinctFrom | IsNotDistinctFrom | And | Or
            );
        }
        e.downcast_ref::<Column>().is_some()
            || e.downcast_ref::<Literal>().is_some()
            || e.downcast_ref::<NotExpr>().is_some()
            || e.downcast_ref::<IsNullExpr>().is_some()
            || e.downcast_ref::<IsNotNullExpr>().is_some()
            || e.downcast_ref::<InListExpr>().is_some()
            || e.downcast_ref::<ShortCircuit>().is_some()
    };
    e.exists(|x| Ok(!safe_node(x))).unwrap_or(true)
}

/// `e` with each `AND`/`OR` whose right side may fail as a [`ShortCircuit`].
fn short_circuited(e: &Arc<dyn PhysicalExpr>) -> DFResult<Transformed<Arc<dyn PhysicalExpr>>> {
    Arc::clone(e).transform_up(|x| {
        let Some(b) = x.downcast_ref::<BinaryExpr>() else {
            return Ok(Transformed::no(x));
        };
        if !matches!(b.op(), Operator::And | Operator::Or) || !may_fail(b.right()) {
            return Ok(Transformed::no(x));
        }
        Ok(Transformed::yes(Arc::new(ShortCircuit {
            op: *b.op(),
            left: Arc::clone(b.left()),
            right: Arc::clone(b.right()),
        }) as Arc<dyn PhysicalExpr>))
    })
}

/// Rewrites filters' and projections' `AND`/`OR` (see the module's text).
#[derive(Debug, Default)]
pub struct ShortCircuits;

/// `rules` with [`ShortCircuits`] right before DataFusion's first
/// `ProjectionPushdown`: after filters reached the scans (their pruning
/// reads DataFusion's own `AND`), before projections move into them (a scan
/// computes a pushed projection, which no later rule could reach). Without
/// that rule (a DataFusion that renamed it), last.
pub fn with_short_circuits(
    mut rules: Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>,
) -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let at = rules
        .iter()
        .position(|r| r.name() == "ProjectionPushdown")
        .unwrap_or(rules.len());
    rules.insert(at, Arc::new(ShortCircuits));
    rules
}

impl PhysicalOptimizerRule for ShortCircuits {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|p| {
            if let Some(f) = p.downcast_ref::<FilterExec>() {
                let predicate = short_circuited(f.predicate())?;
                if !predicate.transformed {
                    return Ok(Transformed::no(p));
                }
                let rebuilt = FilterExecBuilder::from(f)
                    .with_predicate(predicate.data)
                    .build()?;
                return Ok(Transformed::yes(Arc::new(rebuilt) as Arc<dyn ExecutionPlan>));
            }
            if let Some(proj) = p.downcast_ref::<ProjectionExec>() {
                let mut changed = false;
                let exprs = proj
                    .expr()
                    .iter()
                    .map(|pe| {
                        let e = short_circuited(&pe.expr)?;
                        changed |= e.transformed;
                        Ok(ProjectionExpr::new(e.data, pe.alias.clone()))
                    })
                    .collect::<DFResult<Vec<_>>>()?;
                if !changed {
                    return Ok(Transformed::no(p));
                }
                let rebuilt = ProjectionExec::try_new(exprs, Arc::clone(proj.input()))?;
                return Ok(Transformed::yes(Arc::new(rebuilt) as Arc<dyn ExecutionPlan>));
            }
            Ok(Transformed::no(p))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "ShortCircuits"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::Field;
    use datafusion::common::ScalarValue;

    fn batch() -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Int64, true),
        ]);
        let a = Int64Array::from(vec![Some(1), Some(4), Some(1), None]);
        let b = Int64Array::from(vec![Some(0), Some(2), Some(1), Some(0)]);
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(a), Arc::new(b)]).unwrap()
    }

    fn bin(
        l: Arc<dyn PhysicalExpr>,
        op: Operator,
        r: Arc<dyn PhysicalExpr>,
    ) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(l, op, r))
    }

    fn col(name: &str, i: usize) -> Arc<dyn PhysicalExpr> {
        Arc::new(Column::new(name, i))
    }

    fn int(v: i64) -> Arc<dyn PhysicalExpr> {
        Arc::new(Literal::new(ScalarValue::Int64(Some(v))))
    }

    /// `a / b > 1`: DataFusion's integer division fails on a zero `b`.
    fn quotient_above_one() -> Arc<dyn PhysicalExpr> {
        bin(
            bin(col("a", 0), Operator::Divide, col("b", 1)),
            Operator::Gt,
            int(1),
        )
    }

    fn evaluated(e: &Arc<dyn PhysicalExpr>) -> DFResult<Vec<Option<bool>>> {
        let out = e.evaluate(&batch())?.into_array(4)?;
        Ok(as_boolean_array(&out)?.iter().collect())
    }

    #[test]
    fn a_guard_on_the_left_keeps_the_right_side_from_failing() {
        let guarded = bin(
            bin(col("b", 1), Operator::NotEq, int(0)),
            Operator::And,
            quotient_above_one(),
        );
        assert!(
            evaluated(&guarded).is_err(),
            "both sides over every row: 1 / 0"
        );
        let rewritten = short_circuited(&guarded).unwrap();
        assert!(rewritten.transformed);
        assert_eq!(
            evaluated(&rewritten.data).unwrap(),
            vec![Some(false), Some(true), Some(false), Some(false)]
        );
        let either = bin(
            bin(col("b", 1), Operator::Eq, int(0)),
            Operator::Or,
            quotient_above_one(),
        );
        let either = short_circuited(&either).unwrap().data;
        assert_eq!(
            evaluated(&either).unwrap(),
            vec![Some(true), Some(true), Some(false), Some(true)]
        );
    }

    #[test]
    fn an_error_on_a_row_the_left_side_leaves_undecided_stands() {
        // `a > 0` is true for a = 1, b = 0: the division runs there
        let unguarded = bin(
            bin(col("a", 0), Operator::Gt, int(0)),
            Operator::And,
            quotient_above_one(),
        );
        let rewritten = short_circuited(&unguarded).unwrap().data;
        assert!(evaluated(&rewritten).is_err());
    }

    #[test]
    fn comparisons_that_cannot_fail_are_left_as_they_are() {
        let plain = bin(
            bin(col("a", 0), Operator::Gt, int(0)),
            Operator::And,
            bin(col("b", 1), Operator::Lt, int(5)),
        );
        assert!(!short_circuited(&plain).unwrap().transformed);
    }
}
