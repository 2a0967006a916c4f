//! Casts that Spark and DataFusion write differently, made Spark's in both
//! the DataFrame API and SQL: a timestamp cast to a string reads
//! `2024-01-01 00:00:01.5` (Spark) rather than `2024-01-01T00:00:01.500Z`;
//! cast to a number it is seconds since the epoch, and a number cast to a
//! timestamp is read as seconds (DataFusion: the raw units).
//! Under ANSI a number cast to a narrower integer fails as Spark's does
//! ([`super::cast_overflow`]).
//! An analyzer rule swaps such casts for [`timestamp_string`] after type
//! coercion, keeping each expression's name.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Int64Type, TimeUnit};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::logical_expr::expr::{Cast, TryCast};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{
    ColumnarValue, Expr, ExprSchemable, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, Volatility,
};
use datafusion::optimizer::AnalyzerRule;

/// Rewrites timestamp-to-string casts to Spark's format.
#[derive(Debug, Default)]
pub struct SparkCasts;

impl AnalyzerRule for SparkCasts {
    fn name(&self) -> &str {
        "spark_casts"
    }

    fn analyze(&self, plan: LogicalPlan, config: &ConfigOptions) -> DFResult<LogicalPlan> {
        let ansi = !config
            .extensions
            .get::<crate::spark_options::SparkOptions>()
            .is_some_and(|o| o.ansi_disabled);
        rewrite_typed(plan, |e, schema| rewrite(e, schema, ansi))
    }
}

/// `plan` with `rewrite` applied to every expression (bottom up), given the
/// schema its node's inputs have; each rewritten expression keeps its name.
pub(crate) fn rewrite_typed(
    plan: LogicalPlan,
    rewrite: impl Fn(Expr, &DFSchema) -> DFResult<Transformed<Expr>>,
) -> DFResult<LogicalPlan> {
    plan.transform_up_with_subqueries(|node| {
        // the expressions of a node read its inputs' columns
        let inputs = node.inputs();
        let mut schema = DFSchema::empty();
        for input in inputs {
            schema.merge(input.schema());
        }
        let names = NamePreserver::new(&node);
        node.map_expressions(|e| {
            let saved = names.save(&e);
            let out = e.transform_up(|e| rewrite(e, &schema))?;
            Ok(if out.transformed {
                Transformed::yes(saved.restore(out.data))
            } else {
                out
            })
        })
    })
    .data()
}

/// The aggregates whose result is a double whatever their input: a null
/// (untyped) input is read as a double, as Spark's implicit cast does.
const DOUBLE_AGGREGATES: &[&str] = &[
    "avg",
    "mean",
    "regr_avgx",
    "regr_avgy",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "regr_sxx",
    "regr_syy",
    "regr_sxy",
    "regr_count",
];

fn rewrite(e: Expr, schema: &DFSchema, ansi: bool) -> DFResult<Transformed<Expr>> {
    if let Expr::AggregateFunction(f) = &e {
        if DOUBLE_AGGREGATES.contains(&f.func.name())
            && f.params
                .args
                .iter()
                .any(|a| a.get_type(schema).is_ok_and(|t| t.is_null()))
        {
            let mut f = f.clone();
            f.params.args = f
                .params
                .args
                .into_iter()
                .map(|a| match a.get_type(schema) {
                    Ok(DataType::Null) => a.cast_to(&DataType::Float64, schema),
                    _ => Ok(a),
                })
                .collect::<DFResult<_>>()?;
            return Ok(Transformed::yes(Expr::AggregateFunction(f)));
        }
    }
    let (expr, data_type, strict) = match &e {
        Expr::Cast(Cast { expr, field }) => (expr, field.data_type(), true),
        Expr::TryCast(TryCast { expr, field }) => (expr, field.data_type(), false),
        _ => return Ok(Transformed::no(e)),
    };
    let source = expr.get_type(schema);
    if *data_type == DataType::Date32
        && matches!(
            source,
            Ok(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        )
    {
        let text = expr.as_ref().clone().cast_to(&DataType::Utf8, schema)?;
        return Ok(Transformed::yes(string_to_date(strict).call(vec![text])));
    }
    if !strict {
        return Ok(Transformed::no(e));
    }
    // a number cast to a narrower integer: Spark's CAST_OVERFLOW under
    // ANSI, Java's wrapping without
    if let Ok(from) = &source {
        let checked = super::cast_overflow::checked(expr.as_ref().clone(), from, data_type, ansi);
        if let Some(checked) = checked {
            return Ok(Transformed::yes(checked));
        }
    }
    if let (DataType::Timestamp(_, tz), Ok(from)) = (data_type, &source) {
        if let Some(t) = number_to_timestamp(expr, from, tz, schema)? {
            return Ok(Transformed::yes(t.cast_to(data_type, schema)?));
        }
    }
    let Ok(DataType::Timestamp(_, tz)) = source else {
        return Ok(Transformed::no(e));
    };
    if data_type.is_integer() {
        // Spark: whole seconds since the epoch, rounded down (floorDiv: a
        // time before 1970 is the second before it; DataFusion: the raw
        // units, and a cast to seconds rounds toward zero)
        use datafusion::logical_expr::lit;
        let micros = expr
            .as_ref()
            .clone()
            .cast_to(&DataType::Timestamp(TimeUnit::Microsecond, tz), schema)?
            .cast_to(&DataType::Int64, schema)?;
        let below = (micros.clone() % lit(1_000_000i64) + lit(1_000_000i64)) % lit(1_000_000i64);
        let seconds = (micros - below) / lit(1_000_000i64);
        return Ok(Transformed::yes(seconds.cast_to(data_type, schema)?));
    }
    if matches!(data_type, DataType::Float64 | DataType::Float32) {
        // Spark: seconds with their fraction
        let micros = expr
            .as_ref()
            .clone()
            .cast_to(&DataType::Timestamp(TimeUnit::Microsecond, tz), schema)?
            .cast_to(&DataType::Int64, schema)?
            .cast_to(&DataType::Float64, schema)?;
        let seconds = micros / datafusion::logical_expr::lit(1_000_000.0f64);
        return Ok(Transformed::yes(seconds.cast_to(data_type, schema)?));
    }
    let to_text = matches!(
        data_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    if !to_text {
        return Ok(Transformed::no(e));
    }
    let text = timestamp_string().call(vec![expr.as_ref().clone()]);
    Ok(Transformed::yes(if *data_type == DataType::Utf8 {
        text
    } else {
        text.cast_to(data_type, schema)?
    }))
}

/// A number cast to a timestamp, as Spark reads it: seconds since the epoch
/// (DataFusion: the timestamp's raw units), a fraction kept to the
/// microsecond; None for a cast from something else.
fn number_to_timestamp(
    expr: &Expr,
    from: &DataType,
    tz: &Option<Arc<str>>,
    schema: &DFSchema,
) -> DFResult<Option<Expr>> {
    let micros_type = DataType::Timestamp(TimeUnit::Microsecond, tz.clone());
    Ok(Some(if from.is_integer() {
        expr.clone()
            .cast_to(&DataType::Int64, schema)?
            .cast_to(&DataType::Timestamp(TimeUnit::Second, tz.clone()), schema)?
            .cast_to(&micros_type, schema)?
    } else if matches!(
        from,
        DataType::Float32 | DataType::Float64 | DataType::Decimal128(_, _)
    ) {
        // Spark truncates to the microsecond
        let micros = expr.clone().cast_to(&DataType::Float64, schema)?
            * datafusion::logical_expr::lit(1_000_000.0f64);
        datafusion::functions::math::expr_fn::trunc(vec![micros])
            .cast_to(&DataType::Int64, schema)?
            .cast_to(&micros_type, schema)?
    } else {
        return Ok(None);
    }))
}

/// `timestamp_string(ts)`: Spark's text of a timestamp (UTC), fractional
/// seconds only when there are some, without trailing zeros.
pub fn timestamp_string() -> ScalarUDF {
    ScalarUDF::new_from_impl(TimestampString {
        signature: Signature::any(1, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct TimestampString {
    signature: Signature,
}

impl ScalarUDFImpl for TimestampString {
    fn name(&self) -> &str {
        "timestamp_string"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let micros = cast(
            &cast(
                &arrays[0],
                &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            )?,
            &DataType::Int64,
        )?;
        let micros = micros.as_primitive::<Int64Type>();
        let mut out = StringBuilder::with_capacity(micros.len(), micros.len() * 26);
        for (i, m) in micros.values().iter().enumerate() {
            if micros.is_null(i) {
                out.append_null();
                continue;
            }
            out.append_option(spark_text(*m));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

/// `string_to_date(text)`: a string cast to a date as Spark casts it (see
/// `formats::datetime::parse_date_days`); malformed text is Spark's
/// `CAST_INVALID_INPUT` error, or null under `try_cast`.
fn string_to_date(strict: bool) -> ScalarUDF {
    ScalarUDF::new_from_impl(StringToDate {
        strict,
        signature: Signature::exact(vec![DataType::Utf8], Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct StringToDate {
    strict: bool,
    signature: Signature,
}

impl ScalarUDFImpl for StringToDate {
    fn name(&self) -> &str {
        if self.strict {
            "spark_cast_date"
        } else {
            "spark_try_cast_date"
        }
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Date32)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let texts = arrays[0].as_string::<i32>();
        let mut out = arrow::array::Date32Builder::with_capacity(texts.len());
        for text in texts.iter() {
            let Some(text) = text else {
                out.append_null();
                continue;
            };
            match crate::formats::datetime::parse_date_days(text, None) {
                Some(days) => out.append_value(days),
                None if !self.strict => out.append_null(),
                None => {
                    return Err(datafusion::error::DataFusionError::External(Box::new(
                        crate::error::Error::Input {
                            condition: "CAST_INVALID_INPUT".into(),
                            message: format!(
                                "The value '{text}' of the type \"STRING\" cannot be cast to \"DATE\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead."
                            ),
                        },
                    )))
                }
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }
}

fn spark_text(micros: i64) -> Option<String> {
    let t = chrono::DateTime::from_timestamp_micros(micros)?;
    let mut text = t.format("%Y-%m-%d %H:%M:%S").to_string();
    let frac = micros.rem_euclid(1_000_000);
    if frac > 0 {
        let digits = format!("{frac:06}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn fractions_only_when_present() {
        assert_eq!(
            super::spark_text(1_000_000).as_deref(),
            Some("1970-01-01 00:00:01")
        );
        assert_eq!(
            super::spark_text(1_500_000).as_deref(),
            Some("1970-01-01 00:00:01.5")
        );
        assert_eq!(
            super::spark_text(-1).as_deref(),
            Some("1969-12-31 23:59:59.999999")
        );
    }
}
