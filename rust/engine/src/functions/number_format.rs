//! Spark's number formats (`to_number`, `try_to_number`, `to_char` /
//! `to_varchar` of numbers): `0`/`9` digits, `.`/`D` the decimal point,
//! `,`/`G` grouping, `$`, and a sign as `S` (at either end), `MI` (at the
//! end) or `PR` (angle brackets). `to_char` of a date or timestamp formats
//! it with a datetime pattern, as `date_format`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, StringArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

/// A parsed number format.
#[derive(Debug, Clone, PartialEq)]
struct Format {
    /// digit positions before the decimal point; `true` for `0`
    whole: Vec<bool>,
    /// digit positions after it
    fraction: usize,
    /// positions (counted in whole digits from the right) of grouping separators
    groups: Vec<usize>,
    dollar: bool,
    sign: Sign,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Sign {
    None,
    Leading,
    Trailing,
    Brackets,
}

fn invalid(format: &str, why: &str) -> DataFusionError {
    DataFusionError::Plan(format!(
        "[INVALID_FORMAT] The format '{format}' is not a number format: {why}"
    ))
}

fn parse_format(format: &str) -> DFResult<Format> {
    let upper = format.to_ascii_uppercase();
    let mut f = Format {
        whole: Vec::new(),
        fraction: 0,
        groups: Vec::new(),
        dollar: false,
        sign: Sign::None,
    };
    let mut rest = upper.as_str();
    if let Some(r) = rest.strip_prefix('S') {
        f.sign = Sign::Leading;
        rest = r;
    }
    if let Some(r) = rest.strip_suffix("PR") {
        f.sign = Sign::Brackets;
        rest = r;
    } else if let Some(r) = rest.strip_suffix("MI") {
        f.sign = Sign::Trailing;
        rest = r;
    } else if let Some(r) = rest.strip_suffix('S') {
        f.sign = Sign::Trailing;
        rest = r;
    }
    let mut seen_point = false;
    for c in rest.chars() {
        match c {
            '0' | '9' if seen_point => f.fraction += 1,
            '0' | '9' => f.whole.push(c == '0'),
            '.' | 'D' if !seen_point => seen_point = true,
            ',' | 'G' if !seen_point && !f.whole.is_empty() => f.groups.push(f.whole.len()),
            '$' if !f.dollar => f.dollar = true,
            _ => return Err(invalid(format, &format!("'{c}' is not allowed there"))),
        }
    }
    if f.whole.is_empty() && f.fraction == 0 {
        return Err(invalid(format, "it has no digits"));
    }
    // grouping positions as counted from the decimal point
    let n = f.whole.len();
    f.groups = f.groups.iter().map(|g| n - g).collect();
    Ok(f)
}

impl Format {
    fn decimal_type(&self) -> DataType {
        let precision = (self.whole.len() + self.fraction).clamp(1, 38) as u8;
        DataType::Decimal128(precision, self.fraction as i8)
    }

    /// The number `text` writes in this format, as an unscaled decimal.
    fn parse(&self, text: &str) -> Option<i128> {
        let mut s = text.trim();
        let mut negative = false;
        match self.sign {
            Sign::Brackets => {
                if let Some(inner) = s.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
                    negative = true;
                    s = inner;
                }
            }
            Sign::Leading => {
                if let Some(r) = s.strip_prefix('-') {
                    negative = true;
                    s = r;
                } else if let Some(r) = s.strip_prefix('+') {
                    s = r;
                }
            }
            Sign::Trailing => {
                if let Some(r) = s.strip_suffix('-') {
                    negative = true;
                    s = r;
                } else if let Some(r) = s.strip_suffix('+') {
                    s = r;
                }
            }
            Sign::None => {}
        }
        if self.dollar {
            s = s.strip_prefix('$')?;
        }
        let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
        let digits: String = whole.chars().filter(|c| *c != ',').collect();
        if !digits.chars().all(|c| c.is_ascii_digit())
            || !fraction.chars().all(|c| c.is_ascii_digit())
            || digits.len() > self.whole.len()
            || fraction.len() > self.fraction
            || (digits.is_empty() && fraction.is_empty())
        {
            return None;
        }
        let mut value: i128 = 0;
        for c in digits.chars().chain(fraction.chars()) {
            value = value * 10 + i128::from(c as u8 - b'0');
        }
        value *= 10i128.pow((self.fraction - fraction.len()) as u32);
        Some(if negative { -value } else { value })
    }

    /// `value` (unscaled, at this format's scale) written in this format.
    fn write(&self, value: i128) -> Option<String> {
        let digits = value.unsigned_abs().to_string();
        let (whole, fraction) = if self.fraction > 0 {
            let padded = format!("{:0>width$}", digits, width = self.fraction + 1);
            let cut = padded.len() - self.fraction;
            (padded[..cut].to_string(), padded[cut..].to_string())
        } else {
            (digits, String::new())
        };
        let whole = whole.trim_start_matches('0');
        if whole.len() > self.whole.len() {
            // too wide for the format: Spark writes '#'s
            return Some(
                "#".repeat(self.whole.len() + self.fraction + usize::from(self.fraction > 0)),
            );
        }
        let mut out = String::new();
        let width = self.whole.len();
        let first_zero = self.whole.iter().position(|z| *z).unwrap_or(width);
        for (i, _) in self.whole.iter().enumerate() {
            let from_right = width - i;
            let digit_index = whole.len() as isize - from_right as isize;
            if digit_index >= 0 {
                out.push(whole.as_bytes()[digit_index as usize] as char);
            } else if i >= first_zero {
                out.push('0');
            }
            if self.groups.contains(&(from_right - 1)) && from_right > 1 && !out.is_empty() {
                out.push(',');
            }
        }
        if out.is_empty() && self.fraction == 0 {
            out.push('0');
        }
        if self.fraction > 0 {
            out.push('.');
            out.push_str(&fraction);
        }
        if self.dollar {
            out.insert(0, '$');
        }
        let negative = value < 0;
        Some(match (self.sign, negative) {
            (Sign::Brackets, true) => format!("<{out}>"),
            (Sign::Leading, true) => format!("-{out}"),
            (Sign::Leading, false) => format!("+{out}"),
            (Sign::Trailing, true) => format!("{out}-"),
            (Sign::Trailing, false) => format!("{out}+"),
            (_, true) => format!("-{out}"),
            _ => out,
        })
    }
}

fn literal_format(name: &str, value: Option<&ScalarValue>) -> DFResult<Format> {
    match value {
        Some(ScalarValue::Utf8(Some(f)) | ScalarValue::Utf8View(Some(f))) => parse_format(f),
        _ => Err(DataFusionError::Plan(format!(
            "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] {name}'s format must be a string literal"
        ))),
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct NumberFormatFn {
    name: &'static str,
    /// `to_number` (else `to_char`)
    parses: bool,
    lenient: bool,
    signature: Signature,
}

pub(super) fn all() -> Vec<ScalarUDF> {
    let f = |name, parses, lenient| {
        ScalarUDF::new_from_impl(NumberFormatFn {
            name,
            parses,
            lenient,
            signature: Signature::any(2, Volatility::Immutable),
        })
    };
    vec![
        f("to_number", true, false),
        f("try_to_number", true, true),
        f("to_char", false, false),
        f("to_varchar", false, false),
    ]
}

impl ScalarUDFImpl for NumberFormatFn {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Utf8)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        let t = if self.parses {
            literal_format(self.name, args.scalar_arguments.get(1).copied().flatten())?
                .decimal_type()
        } else {
            DataType::Utf8
        };
        Ok(Arc::new(Field::new(self.name, t, true)))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let format_value = match &args.args[1] {
            ColumnarValue::Scalar(v) => Some(v.clone()),
            ColumnarValue::Array(_) => None,
        };
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let input_type = arrays[0].data_type().clone();
        if !self.parses
            && (input_type.is_temporal()
                || matches!(
                    input_type,
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ))
        {
            // a date or timestamp with a datetime pattern, as date_format
            let date_format = super::udfs::date_format_udf();
            return date_format.invoke_with_args(args);
        }
        let format = literal_format(self.name, format_value.as_ref())?;
        if self.parses {
            let text = cast(&arrays[0], &DataType::Utf8)?;
            let text = text.as_string::<i32>();
            let mut out = Vec::with_capacity(text.len());
            for s in text.iter() {
                out.push(match s {
                    None => None,
                    Some(s) => match format.parse(s) {
                        Some(v) => Some(v),
                        None if self.lenient => None,
                        None => {
                            return Err(DataFusionError::Execution(format!(
                                "[INVALID_FORMAT.MISMATCH_INPUT] '{s}' does not match the number format"
                            )))
                        }
                    },
                });
            }
            let DataType::Decimal128(p, s) = format.decimal_type() else {
                return Err(DataFusionError::Internal(
                    "a number format is a decimal".into(),
                ));
            };
            let out = Decimal128Array::from(out).with_precision_and_scale(p, s)?;
            return Ok(ColumnarValue::Array(Arc::new(out)));
        }
        let scale = format.fraction as i8;
        let numbers = cast(&arrays[0], &DataType::Decimal128(38, scale))?;
        let numbers = numbers.as_primitive::<arrow::datatypes::Decimal128Type>();
        let out: StringArray = numbers
            .iter()
            .map(|v| v.and_then(|v| format.write(v)))
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_parse_and_write_as_spark() {
        let f = parse_format("$99.99").unwrap();
        assert_eq!(f.parse("$78.12"), Some(7812));
        assert_eq!(f.write(7812).as_deref(), Some("$78.12"));
        let g = parse_format("99,999.9S").unwrap();
        assert_eq!(g.write(-124548).as_deref(), Some("12,454.8-"));
        assert_eq!(g.parse("12,454.8-"), Some(-124548));
        assert_eq!(parse_format("999").unwrap().parse("4540"), None);
        assert_eq!(
            parse_format("000").unwrap().write(45).as_deref(),
            Some("045")
        );
    }
}
