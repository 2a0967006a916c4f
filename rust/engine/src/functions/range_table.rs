//! SQL's `range(end)` / `range(start, end[, step])` table: column `id`
//! (bigint), as Spark's `SELECT id FROM range(5)` and `spark.range`.

use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;

#[derive(Debug)]
/// The `range` table function.
pub struct SparkRange;

fn integer(e: &Expr) -> Result<i64> {
    let value = match e {
        Expr::Literal(v, _) => v.clone(),
        // `range(-3)` and the like arrive as a negation of a literal
        Expr::Negative(inner) => match inner.as_ref() {
            Expr::Literal(v, _) => v.arithmetic_negate()?,
            _ => ScalarValue::Null,
        },
        _ => ScalarValue::Null,
    };
    match value.cast_to(&DataType::Int64)? {
        ScalarValue::Int64(Some(n)) => Ok(n),
        _ => Err(DataFusionError::Plan(format!(
            "[INVALID_SQL_ARGUMENTS] range takes integer literals, not {e}"
        ))),
    }
}

impl TableFunctionImpl for SparkRange {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let n: Vec<i64> = args.exprs().iter().map(integer).collect::<Result<_>>()?;
        let (start, end, step) = match n.as_slice() {
            [end] => (0, *end, 1),
            [start, end] => (*start, *end, 1),
            [start, end, step, ..] => (*start, *end, *step),
            [] => {
                return Err(DataFusionError::Plan(
                    "[WRONG_NUM_ARGS] range takes 1 to 4 arguments, got 0".into(),
                ))
            }
        };
        if step == 0 {
            return Err(DataFusionError::Plan(
                "[FAILED_FUNCTION_CALL] range: the step must not be 0".into(),
            ));
        }
        let ids: Int64Array = if step > 0 {
            (start..end).step_by(step as usize).collect()
        } else {
            (end + 1..=start)
                .rev()
                .step_by(step.unsigned_abs() as usize)
                .collect()
        };
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        // `numSlices`: partition i holds elements [i*len/n, (i+1)*len/n), as Spark's
        let slices = n.get(3).map_or(1, |s| (*s).max(1) as usize);
        let len = ids.len();
        let parts = (0..slices)
            .map(|i| {
                let (from, to) = (i * len / slices, (i + 1) * len / slices);
                let slice: ArrayRef = Arc::new(ids.slice(from, to - from));
                Ok(vec![RecordBatch::try_new(
                    Arc::clone(&schema),
                    vec![slice],
                )?])
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(MemTable::try_new(schema, parts)?))
    }
}
