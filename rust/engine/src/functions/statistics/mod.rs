//! Spark aggregates DataFusion does not have, or has with other digits:
//! `skewness` and `kurtosis`, `product`, `count_if`, `max_by` / `min_by`,
//! Spark's exact `percentile`, `percentile_approx`, `corr` and `mode`.
//! Each keeps a state of scalars or lists, so it streams and checkpoints
//! like DataFusion's own.

mod by;
mod correlation;
mod counting;
mod mode;
mod moments;
mod percentiles;

use std::collections::HashMap;
use std::sync::Arc;

use by::{By, TopBy};
use correlation::Pearson;
use counting::{CountIf, Product};
use moments::Moments;
use percentiles::KeptValues;

use arrow::array::ArrayRef;
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Skewness,
    Kurtosis,
    Product,
    CountIf,
    MaxBy,
    MinBy,
    Percentile,
    PercentileApprox,
    Corr,
    Mode,
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Statistic {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

/// The aggregates, under Spark's names.
pub fn all() -> Vec<AggregateUDF> {
    let make = |name, kind, arity| {
        AggregateUDF::new_from_impl(Statistic {
            name,
            kind,
            signature: Signature::any(arity, Volatility::Immutable),
        })
    };
    vec![
        make("skewness", Kind::Skewness, 1),
        make("kurtosis", Kind::Kurtosis, 1),
        make("product", Kind::Product, 1),
        make("count_if", Kind::CountIf, 1),
        AggregateUDF::new_from_impl(Statistic {
            name: "max_by",
            kind: Kind::MaxBy,
            signature: Signature::variadic_any(Volatility::Immutable),
        }),
        AggregateUDF::new_from_impl(Statistic {
            name: "min_by",
            kind: Kind::MinBy,
            signature: Signature::variadic_any(Volatility::Immutable),
        }),
        make("percentile", Kind::Percentile, 2),
        make("corr", Kind::Corr, 2),
        AggregateUDF::new_from_impl(Statistic {
            name: "mode",
            kind: Kind::Mode,
            signature: Signature::variadic_any(Volatility::Immutable),
        }),
        AggregateUDF::new_from_impl(Statistic {
            name: "percentile_approx",
            kind: Kind::PercentileApprox,
            signature: Signature::variadic_any(Volatility::Immutable),
        }),
        AggregateUDF::new_from_impl(Statistic {
            name: "approx_percentile",
            kind: Kind::PercentileApprox,
            signature: Signature::variadic_any(Volatility::Immutable),
        }),
    ]
}

fn field(name: &str, t: DataType) -> FieldRef {
    Arc::new(Field::new(name, t, true))
}

impl AggregateUDFImpl for Statistic {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Skewness | Kind::Kurtosis | Kind::Product | Kind::Percentile | Kind::Corr => {
                DataType::Float64
            }
            Kind::Mode => arg_types[0].clone(),
            Kind::CountIf => DataType::Int64,
            // with k, the k values of the largest (smallest) orderings
            Kind::MaxBy | Kind::MinBy if arg_types.len() == 3 => {
                DataType::new_list(arg_types[0].clone(), true)
            }
            Kind::MaxBy | Kind::MinBy => arg_types[0].clone(),
            Kind::PercentileApprox => match arg_types.get(1) {
                Some(DataType::List(_)) => DataType::new_list(arg_types[0].clone(), false),
                _ => arg_types[0].clone(),
            },
        })
    }
    fn is_nullable(&self) -> bool {
        self.kind != Kind::CountIf
    }
    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        if self.kind == Kind::CountIf {
            return Ok(ScalarValue::Int64(Some(0)));
        }
        ScalarValue::try_from(data_type)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let f64s = |names: &[&str]| names.iter().map(|n| field(n, DataType::Float64)).collect();
        Ok(match self.kind {
            Kind::Skewness | Kind::Kurtosis => f64s(&["n", "avg", "m2", "m3", "m4"]),
            Kind::Product => f64s(&["product"]),
            Kind::Corr => f64s(&["n", "xAvg", "yAvg", "ck", "xMk", "yMk"]),
            Kind::Mode => vec![
                field(
                    "values",
                    DataType::new_list(args.input_fields[0].data_type().clone(), true),
                ),
                field("counts", DataType::new_list(DataType::Int64, true)),
            ],
            Kind::CountIf => vec![field("count", DataType::Int64)],
            Kind::Percentile | Kind::PercentileApprox => {
                vec![field("values", DataType::new_list(DataType::Float64, true))]
            }
            Kind::MaxBy | Kind::MinBy if args.input_fields.len() == 3 => vec![
                field(
                    "values",
                    DataType::new_list(args.input_fields[0].data_type().clone(), true),
                ),
                field(
                    "orderings",
                    DataType::new_list(args.input_fields[1].data_type().clone(), true),
                ),
            ],
            Kind::MaxBy | Kind::MinBy => vec![
                field("value", args.input_fields[0].data_type().clone()),
                field("ordering", args.input_fields[1].data_type().clone()),
            ],
        })
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(match self.kind {
            Kind::Skewness | Kind::Kurtosis => Box::new(Moments {
                kurtosis: self.kind == Kind::Kurtosis,
                ..Default::default()
            }),
            Kind::Product => Box::new(Product(None)),
            Kind::Corr => Box::new(Pearson::default()),
            Kind::Mode => Box::new(mode::Mode {
                value_type: args.exprs[0].data_type(args.schema)?,
                counts: HashMap::new(),
            }),
            Kind::CountIf => Box::new(CountIf(0)),
            Kind::Percentile => Box::new(KeptValues::percentile(&args)?),
            Kind::PercentileApprox => Box::new(KeptValues::nearest(&args)?),
            Kind::MaxBy | Kind::MinBy if args.exprs.len() == 3 => {
                use datafusion::physical_expr::expressions::Literal;
                let k = args.exprs[2]
                    .downcast_ref::<Literal>()
                    .and_then(|l| match l.value().cast_to(&DataType::Int64) {
                        Ok(ScalarValue::Int64(Some(k))) if k > 0 => Some(k as usize),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        datafusion::error::DataFusionError::Plan(format!(
                            "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] {}: k must be a positive integer literal",
                            self.name
                        ))
                    })?;
                Box::new(TopBy {
                    max: self.kind == Kind::MaxBy,
                    k,
                    value_type: args.exprs[0].data_type(args.schema)?,
                    ordering_type: args.exprs[1].data_type(args.schema)?,
                    kept: Vec::new(),
                })
            }
            Kind::MaxBy | Kind::MinBy => {
                let value_type = args.exprs[0].data_type(args.schema)?;
                let ord_type = args.exprs[1].data_type(args.schema)?;
                Box::new(By {
                    max: self.kind == Kind::MaxBy,
                    value: ScalarValue::try_from(&value_type)?,
                    ordering: ScalarValue::try_from(&ord_type)?,
                })
            }
        })
    }
}

fn as_f64(a: &ArrayRef) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(a, &DataType::Float64)?)
}
