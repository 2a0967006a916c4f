//! Spark's `bround(x, d)`: round half to even at `d` decimal places, of the
//! decimal a number prints as (Spark rounds `BigDecimal(x.toString)`, so
//! `bround(2.675, 2)` is 2.68 though the double is a little under 2.675).
//! The result keeps the argument's type; a decimal gets scale `d`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type,
};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BRound {
    signature: Signature,
}

impl BRound {
    pub fn new() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

impl Default for BRound {
    fn default() -> Self {
        Self::new()
    }
}

/// The scale argument: a literal integer (0 when left out).
fn scale_of(arg: Option<&ScalarValue>) -> DFResult<i32> {
    match arg {
        None => Ok(0),
        Some(v) if v.is_null() => Ok(0),
        Some(v) => match v.cast_to(&DataType::Int32)? {
            ScalarValue::Int32(Some(d)) => Ok(d),
            _ => Err(DataFusionError::Plan(
                "bround's scale must be an integer literal".into(),
            )),
        },
    }
}

fn result_type(input: &DataType, scale: i32) -> DFResult<DataType> {
    Ok(match input {
        DataType::Decimal128(p, s) if scale < *s as i32 => {
            let s = *s as i32;
            let scale = scale.max(0);
            let p = (*p as i32 - s + scale + 1).clamp(1, 38);
            DataType::Decimal128(p as u8, scale as i8)
        }
        DataType::Decimal128(..)
        | DataType::Float32
        | DataType::Float64
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64 => input.clone(),
        DataType::Null => DataType::Float64,
        other => {
            return Err(DataFusionError::Plan(format!(
                "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] bround takes a number, not {other}"
            )))
        }
    })
}

impl ScalarUDFImpl for BRound {
    fn name(&self) -> &str {
        "bround"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Err(DataFusionError::Internal(
            "bround's type is known from its fields".into(),
        ))
    }
    fn return_field_from_args(
        &self,
        args: ReturnFieldArgs,
    ) -> DFResult<arrow::datatypes::FieldRef> {
        if !(1..=2).contains(&args.arg_fields.len()) {
            return Err(DataFusionError::Plan(
                "bround takes a number and an optional scale".into(),
            ));
        }
        let scale = scale_of(args.scalar_arguments.get(1).copied().flatten())?;
        let t = result_type(args.arg_fields[0].data_type(), scale)?;
        Ok(Arc::new(arrow::datatypes::Field::new("bround", t, true)))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let scale = match args.args.get(1) {
            Some(ColumnarValue::Scalar(v)) => scale_of(Some(v))?,
            None => 0,
            Some(_) => {
                return Err(DataFusionError::Plan(
                    "bround's scale must be an integer literal".into(),
                ))
            }
        };
        let input = args.args[0].to_array(args.number_rows)?;
        let out = bround(&input, scale, args.return_field.data_type())?;
        Ok(ColumnarValue::Array(out))
    }
}

fn map<T: ArrowPrimitiveType>(a: &ArrayRef, f: impl Fn(T::Native) -> T::Native) -> ArrayRef {
    let a: &PrimitiveArray<T> = a.as_primitive();
    Arc::new(a.unary::<_, T>(f).with_data_type(a.data_type().clone()))
}

fn bround(a: &ArrayRef, scale: i32, returns: &DataType) -> DFResult<ArrayRef> {
    Ok(match a.data_type() {
        DataType::Null => arrow::array::new_null_array(returns, a.len()),
        DataType::Float64 => map::<Float64Type>(a, |v| round_float(v, scale)),
        DataType::Float32 => map::<Float32Type>(a, |v| round_float(v as f64, scale) as f32),
        DataType::Int8 => map::<Int8Type>(a, |v| round_int(v as i128, scale) as i8),
        DataType::Int16 => map::<Int16Type>(a, |v| round_int(v as i128, scale) as i16),
        DataType::Int32 => map::<Int32Type>(a, |v| round_int(v as i128, scale) as i32),
        DataType::Int64 => map::<Int64Type>(a, |v| round_int(v as i128, scale) as i64),
        DataType::Decimal128(_, s) => {
            let (s, to) = (*s as i32, scale.max(0));
            let d: &PrimitiveArray<Decimal128Type> = a.as_primitive();
            let out: PrimitiveArray<Decimal128Type> = d.unary(|v| {
                if to >= s {
                    v
                } else {
                    half_even_div(v, 10i128.pow((s - to) as u32))
                }
            });
            Arc::new(out.with_data_type(returns.clone()))
        }
        other => {
            return Err(DataFusionError::Plan(format!(
                "bround takes a number, not {other}"
            )))
        }
    })
}

/// `v / div` rounded half to even.
fn half_even_div(v: i128, div: i128) -> i128 {
    let (q, r) = (v / div, v % div);
    let twice = 2 * r.abs();
    let up = twice > div || (twice == div && q % 2 != 0);
    if up {
        q + v.signum()
    } else {
        q
    }
}

fn round_int(v: i128, scale: i32) -> i128 {
    if scale >= 0 {
        return v;
    }
    match 10i128.checked_pow((-scale) as u32) {
        Some(div) => half_even_div(v, div) * div,
        None => 0,
    }
}

/// Round the shortest decimal that prints as `v`.
fn round_float(v: f64, scale: i32) -> f64 {
    if !v.is_finite() {
        return v;
    }
    // `d.ddddde±x`: digits, and the power of ten of the first digit
    let text = format!("{:e}", v.abs());
    let (mantissa, exp) = text.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("an exponent is a number");
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    // how many leading digits stay
    let keep = exp + 1 + scale;
    if keep >= digits.len() as i32 {
        return v;
    }
    let kept: u64 = if keep <= 0 {
        0
    } else {
        digits[..keep as usize]
            .iter()
            .fold(0, |n, d| n * 10 + u64::from(d - b'0'))
    };
    let (next, rest_nonzero) = if keep < 0 {
        (0, true)
    } else {
        let rest = &digits[keep as usize + 1..];
        (
            digits[keep as usize] - b'0',
            rest.iter().any(|d| *d != b'0'),
        )
    };
    let up = next > 5 || (next == 5 && (rest_nonzero || kept % 2 == 1));
    let kept = kept + u64::from(up && keep >= 0);
    let rounded: f64 = format!("{kept}e{}", -scale)
        .parse()
        .expect("digits and an exponent parse");
    rounded.copysign(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_to_even_on_the_printed_decimal() {
        // Spark 4.3: bround(2.675D, 2), bround(0.125D, 2), bround(-2.5D), bround(25, -1)
        assert_eq!(round_float(2.675, 2), 2.68);
        assert_eq!(round_float(0.125, 2), 0.12);
        assert_eq!(round_float(-2.5, 0), -2.0);
        assert_eq!(round_float(3.5, 0), 4.0);
        assert_eq!(round_float(1234.5, -2), 1200.0);
        assert_eq!(round_float(0.004, 1), 0.0);
        assert_eq!(round_int(25, -1), 20);
        assert_eq!(round_int(35, -1), 40);
        assert_eq!(half_even_div(123456, 100), 1235);
        assert_eq!(half_even_div(-250, 100), -2);
    }
}
