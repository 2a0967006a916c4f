//! Spark aggregates DataFusion does not have: `skewness` and `kurtosis`
//! (central moments, updated and merged as Spark's `CentralMomentAgg`),
//! `product`, `count_if`, `max_by` / `min_by`, Spark's exact `percentile`,
//! and `percentile_approx` (computed exactly: the values are kept). Each keeps a small state of
//! scalars, so it streams and checkpoints like DataFusion's own.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Field, FieldRef, Float64Type, Int64Type};
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
            Kind::Skewness | Kind::Kurtosis | Kind::Product | Kind::Percentile => DataType::Float64,
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

/// Count, mean and the 2nd to 4th central moment sums.
#[derive(Debug, Default)]
struct Moments {
    kurtosis: bool,
    n: f64,
    avg: f64,
    m2: f64,
    m3: f64,
    m4: f64,
}

impl Moments {
    /// Merges a partial of `n` values (Pébay's pairwise formulas; one value
    /// is the partial `(1, x, 0, 0, 0)`).
    fn merge(&mut self, n: f64, avg: f64, m2: f64, m3: f64, m4: f64) {
        if n == 0.0 {
            return;
        }
        let (na, nb) = (self.n, n);
        let total = na + nb;
        let delta = avg - self.avg;
        let dn = delta / total;
        let new_m2 = self.m2 + m2 + delta * dn * na * nb;
        let new_m3 = self.m3
            + m3
            + dn * dn * delta * na * nb * (na - nb)
            + 3.0 * dn * (na * m2 - nb * self.m2);
        let new_m4 = self.m4
            + m4
            + dn * dn * dn * delta * na * nb * (na * na - na * nb + nb * nb)
            + 6.0 * dn * dn * (na * na * m2 + nb * nb * self.m2)
            + 4.0 * dn * (na * m3 - nb * self.m3);
        self.avg += dn * nb;
        self.n = total;
        (self.m2, self.m3, self.m4) = (new_m2, new_m3, new_m4);
    }
}

impl Accumulator for Moments {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let v = as_f64(&values[0])?;
        for x in v.as_primitive::<Float64Type>().iter().flatten() {
            self.merge(1.0, x, 0.0, 0.0, 0.0);
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let col = |i: usize| states[i].as_primitive::<Float64Type>().clone();
        let (n, avg, m2, m3, m4) = (col(0), col(1), col(2), col(3), col(4));
        for i in 0..n.len() {
            if !n.is_null(i) {
                self.merge(
                    n.value(i),
                    avg.value(i),
                    m2.value(i),
                    m3.value(i),
                    m4.value(i),
                );
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok([self.n, self.avg, self.m2, self.m3, self.m4]
            .map(|v| ScalarValue::Float64(Some(v)))
            .to_vec())
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        // Spark: null without values or without spread
        if self.n == 0.0 || self.m2 == 0.0 {
            return Ok(ScalarValue::Float64(None));
        }
        let v = if self.kurtosis {
            self.n * self.m4 / (self.m2 * self.m2) - 3.0
        } else {
            self.n.sqrt() * self.m3 / (self.m2 * self.m2 * self.m2).sqrt()
        };
        Ok(ScalarValue::Float64(Some(v)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The product of the non-null values, as a double.
#[derive(Debug)]
struct Product(Option<f64>);

impl Product {
    fn take(&mut self, values: &ArrayRef) -> Result<()> {
        let v = as_f64(values)?;
        for x in v.as_primitive::<Float64Type>().iter().flatten() {
            self.0 = Some(self.0.unwrap_or(1.0) * x);
        }
        Ok(())
    }
}

impl Accumulator for Product {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.take(&states[0])
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Float64(self.0)])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(self.0))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The number of rows where the condition is true.
#[derive(Debug)]
struct CountIf(i64);

impl Accumulator for CountIf {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let b = arrow::compute::cast(&values[0], &DataType::Boolean)?;
        self.0 += b.as_boolean().true_count() as i64;
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.0 += states[0]
            .as_primitive::<Int64Type>()
            .iter()
            .flatten()
            .sum::<i64>();
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Int64(Some(self.0))])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Int64(Some(self.0)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The value at the largest (smallest) ordering value; rows with a null
/// ordering are skipped, as Spark does.
#[derive(Debug)]
struct By {
    max: bool,
    value: ScalarValue,
    ordering: ScalarValue,
}

impl By {
    fn take(&mut self, values: &ArrayRef, ordering: &ArrayRef) -> Result<()> {
        for i in 0..ordering.len() {
            if ordering.is_null(i) {
                continue;
            }
            let o = ScalarValue::try_from_array(ordering, i)?;
            let better = self.ordering.is_null()
                || match o.partial_cmp(&self.ordering) {
                    Some(std::cmp::Ordering::Greater) => self.max,
                    Some(std::cmp::Ordering::Less) => !self.max,
                    _ => false,
                };
            if better {
                self.ordering = o;
                self.value = ScalarValue::try_from_array(values, i)?;
            }
        }
        Ok(())
    }
}

/// `max_by(x, y, k)` / `min_by(x, y, k)`: the values of the k largest
/// (smallest) orderings, best first.
#[derive(Debug)]
struct TopBy {
    max: bool,
    k: usize,
    value_type: DataType,
    ordering_type: DataType,
    /// (ordering, value), best first
    kept: Vec<(ScalarValue, ScalarValue)>,
}

impl TopBy {
    fn take(&mut self, values: &ArrayRef, orderings: &ArrayRef) -> Result<()> {
        for i in 0..orderings.len() {
            if orderings.is_null(i) {
                continue;
            }
            let o = ScalarValue::try_from_array(orderings, i)?;
            let v = ScalarValue::try_from_array(values, i)?;
            self.kept.push((o, v));
        }
        let max = self.max;
        self.kept.sort_by(|a, b| {
            let order = a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal);
            if max {
                order.reverse()
            } else {
                order
            }
        });
        self.kept.truncate(self.k);
        Ok(())
    }

    fn list(values: Vec<ScalarValue>, t: &DataType) -> ScalarValue {
        ScalarValue::List(ScalarValue::new_list_nullable(&values, t))
    }
}

impl Accumulator for TopBy {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0], &values[1])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (values, orderings) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for i in 0..values.len() {
            if !values.is_null(i) {
                self.take(&values.value(i), &orderings.value(i))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let (orderings, values): (Vec<_>, Vec<_>) = self.kept.iter().cloned().unzip();
        Ok(vec![
            Self::list(values, &self.value_type),
            Self::list(orderings, &self.ordering_type),
        ])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        let values = self.kept.iter().map(|(_, v)| v.clone()).collect();
        Ok(Self::list(values, &self.value_type))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.kept.len() * 2 * std::mem::size_of::<ScalarValue>()
    }
}

impl Accumulator for By {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0], &values[1])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.take(&states[0], &states[1])
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.value.clone(), self.ordering.clone()])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(self.value.clone())
    }
    fn size(&self) -> usize {
        self.value.size() + self.ordering.size()
    }
}

/// The percentages of `percentile(col, p)` / `percentile_approx(col, p)`:
/// a literal between 0 and 1, or an array of them (`true`: the result is
/// an array too).
fn percentages(args: &AccumulatorArgs) -> Result<(Vec<f64>, bool)> {
    use datafusion::physical_expr::expressions::Literal;
    let bad = || {
        datafusion::error::DataFusionError::Plan(
            "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the percentage must be a literal between 0.0 and 1.0, or an array of them".into(),
        )
    };
    let value = args
        .exprs
        .get(1)
        .and_then(|e| e.downcast_ref::<Literal>())
        .map(|l| l.value().clone())
        .ok_or_else(bad)?;
    let in_range = |v: ScalarValue| match v.cast_to(&DataType::Float64) {
        Ok(ScalarValue::Float64(Some(p))) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(bad()),
    };
    match value {
        ScalarValue::List(list) => {
            let items = list.value(0);
            let ps = (0..items.len())
                .map(|i| ScalarValue::try_from_array(&items, i).and_then(&in_range))
                .collect::<Result<Vec<_>>>()?;
            Ok((ps, true))
        }
        other => Ok((vec![in_range(other)?], false)),
    }
}

/// How a percentile is read from the sorted values.
#[derive(Debug)]
enum Rank {
    /// Spark's `percentile`: interpolated between the two values around
    /// position `p * (n - 1)`.
    Interpolated(f64),
    /// Spark's `percentile_approx` within its accuracy: the
    /// `ceil(p * n)`-th smallest value, of the input's type.
    Nearest {
        at: Vec<f64>,
        as_array: bool,
        returns: DataType,
    },
}

/// A percentile over a group's values, kept whole (so exact; the state is
/// the list of values).
#[derive(Debug)]
struct KeptValues {
    rank: Rank,
    values: Vec<f64>,
}

impl KeptValues {
    fn percentile(args: &AccumulatorArgs) -> Result<Self> {
        match percentages(args)? {
            (ps, false) => Ok(KeptValues {
                rank: Rank::Interpolated(ps[0]),
                values: Vec::new(),
            }),
            _ => Err(datafusion::error::DataFusionError::NotImplemented(
                "percentile of an array of percentages".into(),
            )),
        }
    }

    fn nearest(args: &AccumulatorArgs) -> Result<Self> {
        let (at, as_array) = percentages(args)?;
        Ok(KeptValues {
            rank: Rank::Nearest {
                at,
                as_array,
                returns: args.return_field.data_type().clone(),
            },
            values: Vec::new(),
        })
    }

    fn extend(&mut self, values: &ArrayRef) -> Result<()> {
        let v = as_f64(values)?;
        self.values
            .extend(v.as_primitive::<Float64Type>().iter().flatten());
        Ok(())
    }
}

impl Accumulator for KeptValues {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.extend(&values[0])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists = states[0].as_list::<i32>();
        for i in 0..lists.len() {
            if !lists.is_null(i) {
                self.extend(&lists.value(i))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values: Vec<ScalarValue> = self
            .values
            .iter()
            .map(|v| ScalarValue::Float64(Some(*v)))
            .collect();
        Ok(vec![ScalarValue::List(ScalarValue::new_list_nullable(
            &values,
            &DataType::Float64,
        ))])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.values.sort_by(f64::total_cmp);
        let n = self.values.len();
        if n == 0 {
            return match &self.rank {
                Rank::Nearest { returns, .. } => ScalarValue::try_from(returns),
                Rank::Interpolated(_) => Ok(ScalarValue::Float64(None)),
            };
        }
        match &self.rank {
            Rank::Interpolated(at) => {
                let position = at * (n - 1) as f64;
                let (lower, higher) = (position.floor(), position.ceil());
                let (lo, hi) = (self.values[lower as usize], self.values[higher as usize]);
                let v = if lower == higher {
                    lo
                } else {
                    (higher - position) * lo + (position - lower) * hi
                };
                Ok(ScalarValue::Float64(Some(v)))
            }
            Rank::Nearest {
                at,
                as_array,
                returns,
            } => {
                let element = match returns {
                    DataType::List(f) => f.data_type().clone(),
                    other => other.clone(),
                };
                let picked = at
                    .iter()
                    .map(|p| {
                        let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
                        ScalarValue::Float64(Some(self.values[rank - 1])).cast_to(&element)
                    })
                    .collect::<Result<Vec<_>>>()?;
                if *as_array {
                    return Ok(ScalarValue::List(ScalarValue::new_list(
                        &picked, &element, false,
                    )));
                }
                Ok(picked.into_iter().next().unwrap_or(ScalarValue::Null))
            }
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.capacity() * 8
    }
}
