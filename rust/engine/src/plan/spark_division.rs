//! Spark's `/` on numbers: the quotient as a double (`1 / 2` is 0.5, where
//! DataFusion divides integers), and a zero divisor Spark's
//! `DIVIDE_BY_ZERO` error under ANSI (`spark.sql.ansi.enabled`, on by
//! default in Spark 4), null without. A null dividend gives null before the
//! divisor is looked at, as Spark's `Divide` evaluates it.
//!
//! The DataFrame API's `/` is [`divide`]; in SQL text (`spark.sql`,
//! `selectExpr`, `filter("...")`) [`rewrite`] turns a division of integers
//! or floating-point numbers into it before the plan is typed. Both are
//! named `(a / b)`, as Spark names them ([`super::spark_names`]). Decimals
//! in SQL text keep DataFusion's decimal division.
//!
//! [`rewrite`] also turns `%` of numbers into Spark's remainder
//! ([`super::spark_remainder`]), and widens `+`, `-`, `*` and `%` of a float with an integer
//! or decimal to double, as Spark 4's ANSI type coercion does (DataFusion
//! keeps the float); the widened sides keep their names.

use std::sync::Arc;

use super::spark_remainder::{remainder, takes_remainder};
use arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array};
use arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{
    BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, ScalarFunctionArgs,
    ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

/// The name of Spark's division, which [`super::spark_names`] prints as `(a / b)`.
pub const SPARK_DIVIDE: &str = "spark_divide";

/// `left / right` as Spark divides numbers.
pub fn divide(left: Expr, right: Expr) -> Expr {
    ScalarUDF::new_from_impl(SparkDivide {
        signature: Signature::user_defined(Volatility::Immutable),
    })
    .call(vec![left, right])
}

/// Whether `t` divides as a double in Spark's SQL text (decimals keep
/// decimal division, intervals their own).
fn divides_as_double(t: &DataType) -> bool {
    t.is_integer() || t.is_floating() || t.is_null()
}

/// `e` with Spark's division where it divides integers or floating-point
/// numbers of `schema`'s columns.
pub fn rewrite(e: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    let (e, widened) = match float_with_exact(&e, schema)? {
        Some(widened) => (widened, true),
        None => (e, false),
    };
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = &e else {
        return Ok(Transformed::new_transformed(e, widened));
    };
    // only a division's or remainder's operands are typed (others may not
    // be typeable yet: `upper(n) = 'x'` before its argument is coerced)
    if !matches!(op, Operator::Divide | Operator::Modulo) {
        return Ok(Transformed::new_transformed(e, widened));
    }
    let (l, r) = (left.get_type(schema)?, right.get_type(schema)?);
    let (x, y) = (left.as_ref().clone(), right.as_ref().clone());
    match op {
        Operator::Divide if divides_as_double(&l) && divides_as_double(&r) => {
            Ok(Transformed::yes(divide(x, y)))
        }
        Operator::Modulo if takes_remainder(&l) && takes_remainder(&r) => {
            Ok(Transformed::yes(remainder(x, y)))
        }
        _ => Ok(Transformed::new_transformed(e, widened)),
    }
}

/// `a op b` of a float and an integer or decimal, both sides as doubles.
fn float_with_exact(e: &Expr, schema: &DFSchema) -> DFResult<Option<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e else {
        return Ok(None);
    };
    if !matches!(
        op,
        Operator::Plus | Operator::Minus | Operator::Multiply | Operator::Modulo
    ) {
        return Ok(None);
    }
    let exact = |t: &DataType| t.is_integer() || matches!(t, DataType::Decimal128(..));
    let (l, r) = (left.get_type(schema)?, right.get_type(schema)?);
    let mixed = (l == DataType::Float32 && exact(&r)) || (r == DataType::Float32 && exact(&l));
    if !mixed {
        return Ok(None);
    }
    let Some(double) = crate::functions::spark_sql::cast_function("double") else {
        return Ok(None);
    };
    let widen = |x: &Expr| Box::new(double.call(vec![x.clone()]));
    Ok(Some(Expr::BinaryExpr(BinaryExpr::new(
        widen(left),
        *op,
        widen(right),
    ))))
}

/// A plan built from SQL text with Spark's divisions (see [`rewrite`]), its
/// nodes' schemas typed again (a quotient of integers is a double); each
/// expression keeps its name.
pub fn in_plan(plan: LogicalPlan) -> DFResult<LogicalPlan> {
    let divided = super::spark_casts::rewrite_typed(plan, rewrite)?;
    let typed = divided
        .transform_up_with_subqueries(|node| Ok(Transformed::yes(node.recompute_schema()?)))?;
    Ok(typed.data)
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SparkDivide {
    signature: Signature,
}

impl ScalarUDFImpl for SparkDivide {
    fn name(&self) -> &str {
        SPARK_DIVIDE
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Float64)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        Ok(vec![DataType::Float64; arg_types.len()])
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let ansi = !args
            .config_options
            .extensions
            .get::<crate::spark_options::SparkOptions>()
            .is_some_and(|o| o.ansi_disabled);
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (x, y) = (
            arrays[0].as_primitive::<Float64Type>(),
            arrays[1].as_primitive::<Float64Type>(),
        );
        let zero_divisor =
            (0..x.len()).any(|i| x.is_valid(i) && y.is_valid(i) && y.value(i) == 0.0);
        if !zero_divisor {
            let quotient = arrow::compute::kernels::numeric::div(x, y)?;
            return Ok(ColumnarValue::Array(quotient));
        }
        let mut out = Vec::with_capacity(x.len());
        for i in 0..x.len() {
            out.push(match (x.is_valid(i), y.is_valid(i)) {
                (true, true) if y.value(i) == 0.0 => {
                    if ansi {
                        return Err(DataFusionError::External(Box::new(
                            crate::error::Error::divide_by_zero(),
                        )));
                    }
                    None
                }
                (true, true) => Some(x.value(i) / y.value(i)),
                _ => None,
            });
        }
        Ok(ColumnarValue::Array(
            Arc::new(Float64Array::from(out)) as ArrayRef
        ))
    }
}

/// Spark's `div` (`a DIV b` in SQL text, which [`super::sql_operators`]
/// turns into a call): the quotient of integers truncated toward zero, as
/// a bigint, named `(a div b)`; a zero divisor as `/` has it.
pub fn functions() -> Vec<ScalarUDF> {
    vec![ScalarUDF::new_from_impl(SparkIntegralDivide {
        signature: Signature::user_defined(Volatility::Immutable),
    })]
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SparkIntegralDivide {
    signature: Signature,
}

impl ScalarUDFImpl for SparkIntegralDivide {
    fn name(&self) -> &str {
        "div"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int64)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        match arg_types {
            [l, r] if [l, r].iter().all(|t| t.is_integer() || t.is_null()) => {
                Ok(vec![DataType::Int64; 2])
            }
            _ => Err(DataFusionError::Plan(format!(
                "div takes two integers, not {}",
                arg_types
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
        }
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let ansi = !args
            .config_options
            .extensions
            .get::<crate::spark_options::SparkOptions>()
            .is_some_and(|o| o.ansi_disabled);
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (x, y) = (
            arrays[0].as_primitive::<Int64Type>(),
            arrays[1].as_primitive::<Int64Type>(),
        );
        let mut out = Vec::with_capacity(x.len());
        for i in 0..x.len() {
            out.push(match (x.is_valid(i), y.is_valid(i)) {
                (true, true) if y.value(i) == 0 => {
                    if ansi {
                        return Err(DataFusionError::External(Box::new(
                            crate::error::Error::divide_by_zero(),
                        )));
                    }
                    None
                }
                // Long.MinValue div -1 wraps, as Java's division does
                (true, true) => Some(x.value(i).wrapping_div(y.value(i))),
                _ => None,
            });
        }
        Ok(ColumnarValue::Array(
            Arc::new(Int64Array::from(out)) as ArrayRef
        ))
    }
}
