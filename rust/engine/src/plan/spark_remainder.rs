//! Spark's remainders: `a % b`, `mod(a, b)` and `pmod(a, b)`. A zero
//! divisor is Spark's `REMAINDER_BY_ZERO` error under ANSI
//! (`spark.sql.ansi.enabled`, on by default in Spark 4) and null without;
//! a null dividend gives null before the divisor is looked at, as Spark's
//! `DivModLike` evaluates it. (DataFusion's `%` raised Arrow's
//! divide-by-zero, reported as `DIVIDE_BY_ZERO`; `datafusion-spark`'s
//! `mod` and `pmod` follow DataFusion's own ANSI flag, which sparklet
//! leaves off, so they returned null.)
//!
//! The arithmetic is `datafusion-spark`'s, once zero divisors are ruled
//! out or nulled. `a % b` is [`remainder`], named `(a % b)` as Spark
//! names it ([`super::spark_names`]); in SQL text [`super::spark_division`]
//! turns `%` of numbers into it.

use std::sync::Arc;

use arrow::array::{Array, BooleanArray, Datum, Scalar};
use arrow::compute::kernels::cmp::eq;
use arrow::datatypes::DataType;
use datafusion::common::{Result as DFResult, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::type_coercion::binary::BinaryTypeCoercer;
use datafusion::logical_expr::{
    ColumnarValue, Expr, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion_spark::function::math::modulus::{spark_mod, spark_pmod};

/// The name of `%`, which [`super::spark_names`] prints as `(a % b)`.
pub const SPARK_REMAINDER: &str = "spark_remainder";

/// `left % right` as Spark takes the remainder.
pub fn remainder(left: Expr, right: Expr) -> Expr {
    ScalarUDF::new_from_impl(SparkRemainder::new(SPARK_REMAINDER)).call(vec![left, right])
}

/// Spark's `mod` and `pmod` functions.
pub fn functions() -> Vec<ScalarUDF> {
    ["mod", "pmod"]
        .into_iter()
        .map(|name| ScalarUDF::new_from_impl(SparkRemainder::new(name)))
        .collect()
}

/// Whether `t` takes a remainder here (the others keep DataFusion's `%`).
pub fn takes_remainder(t: &DataType) -> bool {
    t.is_numeric() || t.is_null()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SparkRemainder {
    /// `spark_remainder` (`%`), `mod` or `pmod` (the positive remainder).
    name: &'static str,
    signature: Signature,
}

impl SparkRemainder {
    fn new(name: &'static str) -> Self {
        SparkRemainder {
            name,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// Both operands' common type, as `%` coerces them (a float with an
/// integer or decimal: double, as Spark 4's ANSI coercion widens it).
fn common(arg_types: &[DataType]) -> DFResult<DataType> {
    let [l, r] = arg_types else {
        return Err(DataFusionError::Plan(
            "a remainder takes two arguments".into(),
        ));
    };
    let exact = |t: &DataType| t.is_integer() || matches!(t, DataType::Decimal128(..));
    if (*l == DataType::Float32 && exact(r)) || (*r == DataType::Float32 && exact(l)) {
        return Ok(DataType::Float64);
    }
    let (l, r) = BinaryTypeCoercer::new(l, &Operator::Modulo, r).get_input_types()?;
    Ok(if l.is_null() { r } else { l })
}

impl ScalarUDFImpl for SparkRemainder {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        common(arg_types)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        let t = common(arg_types)?;
        Ok(vec![t.clone(), t])
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let ansi = !args
            .config_options
            .extensions
            .get::<crate::spark_options::SparkOptions>()
            .is_some_and(|o| o.ansi_disabled);
        let zeros = zero_divisor(&args.args, args.number_rows)?;
        if ansi && zeros {
            return Err(DataFusionError::External(Box::new(
                crate::error::Error::remainder_by_zero(),
            )));
        }
        match (self.name, &args.args[..]) {
            // the common case (`id % 10`): Arrow's kernel, a scalar kept one
            ("mod" | SPARK_REMAINDER, [x, y]) if !zeros => remainder_of(x, y),
            // zero divisors (none under ANSI) give null
            ("pmod", _) => spark_pmod(&args.args, false),
            _ => spark_mod(&args.args, false),
        }
    }
}

/// `x % y` by Arrow's kernel (no divisor is zero).
fn remainder_of(x: &ColumnarValue, y: &ColumnarValue) -> DFResult<ColumnarValue> {
    let datum = |v: &ColumnarValue| -> DFResult<Box<dyn Datum>> {
        Ok(match v {
            ColumnarValue::Scalar(s) => Box::new(s.to_scalar()?),
            ColumnarValue::Array(a) => Box::new(Arc::clone(a)),
        })
    };
    let out = arrow::compute::kernels::numeric::rem(datum(x)?.as_ref(), datum(y)?.as_ref())?;
    Ok(match (x, y) {
        (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)) => {
            ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?)
        }
        _ => ColumnarValue::Array(out),
    })
}

/// Whether some row has a dividend and a zero divisor.
fn zero_divisor(args: &[ColumnarValue], rows: usize) -> DFResult<bool> {
    let [x, y] = args else {
        return Ok(false);
    };
    let zero = Scalar::new(ScalarValue::new_zero(&y.data_type())?.to_array()?);
    let divisor: Box<dyn Datum> = match y {
        ColumnarValue::Scalar(s) => Box::new(Scalar::new(s.to_array()?)),
        ColumnarValue::Array(a) => Box::new(Arc::clone(a)),
    };
    let is_zero: BooleanArray = eq(divisor.as_ref(), &zero)?;
    let dividend = x.to_array(rows)?;
    let hit = |i: usize| is_zero.is_valid(i) && is_zero.value(i);
    Ok(if is_zero.len() == 1 {
        hit(0) && dividend.logical_null_count() < dividend.len()
    } else {
        (0..is_zero.len()).any(|i| hit(i) && dividend.is_valid(i))
    })
}
