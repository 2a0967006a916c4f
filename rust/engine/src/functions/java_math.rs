//! Math functions whose last digit Spark's JVM gives differently from the
//! platform's libm: `exp`, `cosh` and `log2` (Java's `Math.log(x) /
//! Math.log(2)`) computed with `libm`, the Rust port of the fdlibm Java's
//! `StrictMath` is built on, so `exp(1)` is Java's `2.7182818284590455`.
//! Also `factorial`, which Spark answers null outside 0..=20 (where
//! DataFusion's fails on overflow).

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Float64Array, Int64Array};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::ScalarUDF;

use super::udfs::kernel_udf;

fn map(args: &[ArrayRef], f: impl Fn(f64) -> Option<f64>) -> DFResult<ArrayRef> {
    let x = cast(&args[0], &DataType::Float64)?;
    let out: Float64Array = x
        .as_primitive::<Float64Type>()
        .iter()
        .map(|v| v.and_then(&f))
        .collect();
    Ok(Arc::new(out))
}

pub(super) fn all() -> Vec<ScalarUDF> {
    vec![
        kernel_udf("exp", DataType::Float64, |a| map(a, |x| Some(libm::exp(x)))),
        kernel_udf("cosh", DataType::Float64, |a| {
            map(a, |x| Some(libm::cosh(x)))
        }),
        kernel_udf("factorial", DataType::Int64, factorial),
        // Spark's log2: null outside its domain
        kernel_udf("log2", DataType::Float64, |a| {
            map(a, |x| {
                (x > 0.0).then(|| libm::log(x) / std::f64::consts::LN_2)
            })
        }),
    ]
}

/// `factorial(n)`: n! for n in 0..=20 (the ones a bigint holds), else null.
fn factorial(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let n = cast(&args[0], &DataType::Int64)?;
    let out: Int64Array = n
        .as_primitive::<Int64Type>()
        .iter()
        .map(|v| {
            v.filter(|n| (0..=20).contains(n))
                .map(|n| (1..=n).product())
        })
        .collect();
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    #[test]
    fn java_digits() {
        assert_eq!(libm::exp(1.0).to_string(), "2.7182818284590455");
        assert_eq!(libm::cosh(1.0).to_string(), "1.543080634815244");
    }
}
