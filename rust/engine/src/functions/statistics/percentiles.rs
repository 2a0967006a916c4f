//! Spark's exact `percentile` and `percentile_approx` (computed exactly:
//! the values are kept).

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::AccumulatorArgs;
use datafusion::logical_expr::Accumulator;

use super::as_f64;

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
pub(super) struct KeptValues {
    rank: Rank,
    values: Vec<f64>,
}

impl KeptValues {
    pub(super) fn percentile(args: &AccumulatorArgs) -> Result<Self> {
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

    pub(super) fn nearest(args: &AccumulatorArgs) -> Result<Self> {
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
