//! A number cast to an integer type too narrow for it (`CAST(300 AS
//! TINYINT)`, a double past a bigint, NaN), as Spark casts it, where
//! Arrow's cast failed with `Can't cast value 300 to type Int8`:
//!
//! - under ANSI, Spark's `CAST_OVERFLOW` naming the value and both types
//!   (Arrow's cast that gives null on overflow, and an error where a value
//!   became null);
//! - without, Java's casts: an integer wraps (300 is 44), a float goes to
//!   an int or long saturating (NaN is 0) and on to a smaller type by
//!   wrapping, a decimal is truncated to a long and wraps.
//!
//! [`super::spark_casts`] swaps such casts for [`checked`]. The column
//! keeps Spark's name `CAST(a AS TINYINT)` ([`super::spark_names`]).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{
    DataType, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use datafusion::common::Result as DFResult;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use super::spark_names::{java_double, java_float, type_name};

/// The name [`super::spark_names`] prints as `CAST(x AS TYPE)`.
pub const CHECKED_CAST: &str = "spark_checked_cast";

/// `expr` (of type `from`) cast to `to`, failing as Spark does where a
/// value overflows `to`; None where no value can (a cast to a wider type,
/// or not from a number to an integer).
pub fn checked(expr: Expr, from: &DataType, to: &DataType, ansi: bool) -> Option<Expr> {
    let may_overflow = to.is_integer()
        && match from {
            f if f.is_integer() => f != to && !fits(f, to),
            DataType::Float32 | DataType::Float64 | DataType::Decimal128(..) => true,
            _ => false,
        };
    may_overflow.then(|| {
        ScalarUDF::new_from_impl(CheckedCast {
            to: to.clone(),
            ansi,
            signature: Signature::any(1, Volatility::Immutable),
        })
        .call(vec![expr])
    })
}

/// The target type of a [`checked`] cast (None: `udf` is not one).
pub fn target_of(udf: &ScalarUDF) -> Option<&DataType> {
    udf.inner().downcast_ref::<CheckedCast>().map(|c| &c.to)
}

/// Whether every value of integer type `from` is one of `to`.
fn fits(from: &DataType, to: &DataType) -> bool {
    let rank = |t: &DataType| match t {
        DataType::Int8 => Some(1),
        DataType::Int16 => Some(2),
        DataType::Int32 => Some(3),
        DataType::Int64 => Some(4),
        _ => None,
    };
    matches!((rank(from), rank(to)), (Some(f), Some(t)) if f <= t)
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct CheckedCast {
    to: DataType,
    /// Fail on overflow (else wrap as Java does).
    ansi: bool,
    signature: Signature,
}

impl ScalarUDFImpl for CheckedCast {
    fn name(&self) -> &str {
        CHECKED_CAST
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.to.clone())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let from = args.args[0].to_array(args.number_rows)?;
        if !self.ansi {
            return Ok(ColumnarValue::Array(java_cast(&from, &self.to)?));
        }
        let safe = CastOptions {
            safe: true,
            ..Default::default()
        };
        let out = cast_with_options(&from, &self.to, &safe)?;
        if out.logical_null_count() != from.logical_null_count() {
            if let Some(i) = (0..from.len()).find(|&i| from.is_valid(i) && out.is_null(i)) {
                return Err(DataFusionError::External(Box::new(overflow(
                    &from, i, &self.to,
                ))));
            }
        }
        Ok(ColumnarValue::Array(out))
    }
}

/// `from` cast to integer type `to` as Java casts: through a long (an int
/// for a float going to a byte, short or int), then wrapped to `to`.
fn java_cast(from: &ArrayRef, to: &DataType) -> DFResult<ArrayRef> {
    let long_of_float = |f: f64| -> i64 {
        if *to == DataType::Int64 {
            f as i64
        } else {
            i64::from(f as i32)
        }
    };
    let longs: Int64Array = match from.data_type() {
        DataType::Float32 => from
            .as_primitive::<Float32Type>()
            .unary(|f| long_of_float(f64::from(f))),
        DataType::Float64 => from.as_primitive::<Float64Type>().unary(long_of_float),
        DataType::Decimal128(_, scale) => {
            let unit = 10i128.pow(u32::from((*scale).max(0) as u8));
            from.as_primitive::<Decimal128Type>()
                .unary(|v| (v / unit) as i64)
        }
        _ => cast_with_options(from, &DataType::Int64, &CastOptions::default())?
            .as_primitive::<Int64Type>()
            .clone(),
    };
    Ok(match to {
        DataType::Int8 => Arc::new(longs.unary::<_, Int8Type>(|v| v as i8)) as ArrayRef,
        DataType::Int16 => Arc::new(longs.unary::<_, Int16Type>(|v| v as i16)),
        DataType::Int32 => Arc::new(longs.unary::<_, Int32Type>(|v| v as i32)),
        _ => Arc::new(longs),
    })
}

/// Spark's error for row `i` of `from`, which overflows `to`.
fn overflow(from: &ArrayRef, i: usize, to: &DataType) -> crate::error::Error {
    crate::error::Error::Input {
        condition: "CAST_OVERFLOW".into(),
        message: format!(
            "The value {} of the type \"{}\" cannot be cast to \"{}\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead.",
            sql_value(from, i),
            type_name(from.data_type()),
            type_name(to)
        ),
    }
}

/// A value as Spark writes it in an error: `300S`, `3000000000L`,
/// `1.0E20D`, `12.5BD` (a float, NaN and the infinities bare).
fn sql_value(a: &ArrayRef, i: usize) -> String {
    match a.data_type() {
        DataType::Int8 => format!("{}Y", a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => format!("{}S", a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 => format!("{}L", a.as_primitive::<Int64Type>().value(i)),
        DataType::Float32 => java_float(a.as_primitive::<Float32Type>().value(i)),
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().value(i);
            let text = java_double(v);
            if v.is_finite() {
                format!("{text}D")
            } else {
                text
            }
        }
        DataType::Decimal128(..) => {
            let d: &arrow::array::Decimal128Array = a.as_primitive();
            format!("{}BD", d.value_as_string(i))
        }
        _ => arrow::util::display::array_value_to_string(a, i).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Decimal128Array, Float64Array, Int16Array};

    #[test]
    fn values_are_written_as_spark_writes_them() {
        let cases: Vec<(ArrayRef, &str)> = vec![
            (Arc::new(Int16Array::from(vec![300])), "300S"),
            (
                Arc::new(Int64Array::from(vec![3_000_000_000])),
                "3000000000L",
            ),
            (Arc::new(Float64Array::from(vec![1e20])), "1.0E20D"),
            (Arc::new(Float64Array::from(vec![f64::NAN])), "NaN"),
            (
                Arc::new(
                    Decimal128Array::from(vec![123_456_789_015])
                        .with_precision_and_scale(12, 1)
                        .unwrap(),
                ),
                "12345678901.5BD",
            ),
        ];
        for (a, want) in cases {
            assert_eq!(sql_value(&a, 0), want);
        }
    }

    #[test]
    fn without_ansi_numbers_are_cast_as_java_casts_them() {
        let cast = |a: ArrayRef, to: DataType| -> Vec<i64> {
            let out = java_cast(&a, &to).unwrap();
            let out = arrow::compute::cast(&out, &DataType::Int64).unwrap();
            out.as_primitive::<Int64Type>().values().to_vec()
        };
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![300, 40_000, 3_000_000_000]));
        assert_eq!(cast(Arc::clone(&ints), DataType::Int8), vec![44, 64, 0]);
        assert_eq!(
            cast(ints, DataType::Int32),
            vec![300, 40_000, -1_294_967_296]
        );
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![1e20, f64::NAN, -1e20, 200.7]));
        let (max, min) = (i64::from(i32::MAX), i64::from(i32::MIN));
        assert_eq!(
            cast(Arc::clone(&floats), DataType::Int32),
            vec![max, 0, min, 200]
        );
        assert_eq!(
            cast(Arc::clone(&floats), DataType::Int8),
            vec![-1, 0, 0, -56]
        );
        assert_eq!(
            cast(floats, DataType::Int64),
            vec![i64::MAX, 0, i64::MIN, 200]
        );
        let decimals: ArrayRef = Arc::new(
            Decimal128Array::from(vec![123_456_789_015])
                .with_precision_and_scale(12, 1)
                .unwrap(),
        );
        assert_eq!(cast(decimals, DataType::Int32), vec![-539_222_987]);
    }

    #[test]
    fn only_casts_that_can_overflow_are_checked() {
        let e = || datafusion::prelude::col("x");
        assert!(checked(e(), &DataType::Int32, &DataType::Int64, true).is_none());
        assert!(checked(e(), &DataType::Int8, &DataType::Int8, true).is_none());
        assert!(checked(e(), &DataType::Int64, &DataType::Float64, true).is_none());
        assert!(checked(e(), &DataType::Utf8, &DataType::Int32, true).is_none());
        assert!(checked(e(), &DataType::Int64, &DataType::Int32, true).is_some());
        assert!(checked(e(), &DataType::Float64, &DataType::Int64, true).is_some());
    }
}
