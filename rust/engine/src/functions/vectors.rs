//! Spark's functions over float vectors (arrays of float):
//! `vector_inner_product`, `vector_cosine_similarity`, `vector_l2_distance`,
//! `vector_norm`, `vector_normalize`, and the element-wise aggregates
//! `vector_sum` / `vector_avg`. Results are floats, as Spark's.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float32Array, Float32Builder, ListBuilder};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ScalarUDF, Signature, Volatility,
};

use super::udfs::kernel_udf;

fn float_vector() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Float32, true)))
}

pub(super) fn scalars() -> Vec<ScalarUDF> {
    vec![
        kernel_udf("vector_inner_product", DataType::Float32, |a| {
            pairwise("vector_inner_product", a, dot)
        }),
        kernel_udf("vector_cosine_similarity", DataType::Float32, |a| {
            pairwise("vector_cosine_similarity", a, |x, y| {
                let norms = norm(x, 2.0) * norm(y, 2.0);
                if norms == 0.0 {
                    None
                } else {
                    Some(dot(x, y)? / norms)
                }
            })
        }),
        kernel_udf("vector_l2_distance", DataType::Float32, |a| {
            pairwise("vector_l2_distance", a, |x, y| {
                Some(
                    x.iter()
                        .zip(y)
                        .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
                        .sum::<f64>()
                        .sqrt(),
                )
            })
        }),
        kernel_udf("vector_norm", DataType::Float32, |a| {
            let vectors = vectors(&a[0])?;
            let degrees = degrees(a, vectors.len())?;
            let out: Float32Array = vectors
                .iter()
                .zip(&degrees)
                .map(|(v, d)| Some(norm(v.as_ref()?, (*d)?) as f32))
                .collect();
            Ok(Arc::new(out) as ArrayRef)
        }),
        kernel_udf("vector_normalize", float_vector(), |a| {
            let vectors = vectors(&a[0])?;
            let degrees = degrees(a, vectors.len())?;
            let mut out = ListBuilder::new(Float32Builder::new());
            for (v, d) in vectors.iter().zip(&degrees) {
                let (Some(v), Some(d)) = (v, d) else {
                    out.append_null();
                    continue;
                };
                let n = norm(v, *d);
                for x in v {
                    out.values().append_value(if n == 0.0 {
                        *x
                    } else {
                        (f64::from(*x) / n) as f32
                    });
                }
                out.append(true);
            }
            Ok(Arc::new(out.finish()) as ArrayRef)
        }),
    ]
}

/// Each row's vector (null where the array or an element is).
fn vectors(array: &ArrayRef) -> DFResult<Vec<Option<Vec<f32>>>> {
    let list = cast(array, &float_vector())?;
    let list = list.as_list::<i32>();
    Ok((0..list.len())
        .map(|i| {
            if list.is_null(i) {
                return None;
            }
            let v = list.value(i);
            let v = v.as_primitive::<Float32Type>();
            (v.null_count() == 0).then(|| v.values().to_vec())
        })
        .collect())
}

/// The norm degree of each row (2.0, Euclidean, when not given).
fn degrees(args: &[ArrayRef], rows: usize) -> DFResult<Vec<Option<f64>>> {
    match args.get(1) {
        None => Ok(vec![Some(2.0); rows]),
        Some(d) if !matches!(d.data_type(), DataType::Float32 | DataType::Null) => {
            Err(DataFusionError::Plan(format!(
                "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] The second parameter requires the \"FLOAT\" type, however the degree has the type {}",
                d.data_type()
            )))
        }
        Some(d) => Ok(cast(d, &DataType::Float64)?
            .as_primitive::<Float64Type>()
            .iter()
            .collect()),
    }
}

fn dimension_error(function: &str, a: usize, b: usize) -> DataFusionError {
    DataFusionError::Execution(format!(
        "[VECTOR_DIMENSION_MISMATCH] {function}: the vectors have dimensions {a} and {b}; they must be the same"
    ))
}

/// `f` of each row's two vectors, as a float (null where either is).
fn pairwise(
    function: &str,
    args: &[ArrayRef],
    f: impl Fn(&[f32], &[f32]) -> Option<f64>,
) -> DFResult<ArrayRef> {
    let [left, right] = args else {
        return Err(DataFusionError::Plan(format!(
            "[WRONG_NUM_ARGS] {function} takes two vectors"
        )));
    };
    let (left, right) = (vectors(left)?, vectors(right)?);
    let mut out = Float32Builder::new();
    for (x, y) in left.iter().zip(&right) {
        match (x, y) {
            (Some(x), Some(y)) if x.len() != y.len() => {
                return Err(dimension_error(function, x.len(), y.len()))
            }
            (Some(x), Some(y)) => out.append_option(f(x, y).map(|v| v as f32)),
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn dot(x: &[f32], y: &[f32]) -> Option<f64> {
    Some(
        x.iter()
            .zip(y)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum(),
    )
}

/// The Lp norm: `p` = infinity is the largest magnitude.
fn norm(v: &[f32], p: f64) -> f64 {
    let abs = v.iter().map(|x| f64::from(*x).abs());
    if p.is_infinite() {
        abs.fold(0.0, f64::max)
    } else if p == 1.0 {
        abs.sum()
    } else {
        abs.map(|x| x.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

/// `vector_sum` / `vector_avg`: the element-wise sum or mean of a group's
/// vectors (null for a group without one).
#[derive(Debug, PartialEq, Eq, Hash)]
struct VectorAggregate {
    name: &'static str,
    mean: bool,
    signature: Signature,
}

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    [("vector_sum", false), ("vector_avg", true)]
        .into_iter()
        .map(|(name, mean)| {
            AggregateUDF::new_from_impl(VectorAggregate {
                name,
                mean,
                signature: Signature::any(1, Volatility::Immutable),
            })
        })
        .collect()
}

impl AggregateUDFImpl for VectorAggregate {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> DFResult<DataType> {
        Ok(float_vector())
    }
    fn state_fields(&self, _: StateFieldsArgs) -> DFResult<Vec<FieldRef>> {
        let sums = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
        Ok(vec![
            Arc::new(Field::new("sums", sums, true)),
            Arc::new(Field::new("count", DataType::Int64, true)),
        ])
    }
    fn accumulator(&self, _: AccumulatorArgs) -> DFResult<Box<dyn Accumulator>> {
        Ok(Box::new(VectorSums {
            name: self.name,
            mean: self.mean,
            sums: None,
            count: 0,
        }))
    }
}

#[derive(Debug)]
struct VectorSums {
    name: &'static str,
    mean: bool,
    sums: Option<Vec<f64>>,
    count: i64,
}

impl VectorSums {
    fn add(&mut self, v: impl ExactSizeIterator<Item = f64>, count: i64) -> DFResult<()> {
        let sums = self.sums.get_or_insert_with(|| vec![0.0; v.len()]);
        if sums.len() != v.len() {
            return Err(dimension_error(self.name, sums.len(), v.len()));
        }
        for (s, x) in sums.iter_mut().zip(v) {
            *s += x;
        }
        self.count += count;
        Ok(())
    }
}

impl Accumulator for VectorSums {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        for v in vectors(&values[0])?.into_iter().flatten() {
            self.add(v.into_iter().map(f64::from), 1)?;
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DFResult<()> {
        let sums = states[0].as_list::<i32>();
        let counts = cast(&states[1], &DataType::Int64)?;
        let counts = counts.as_primitive::<arrow::datatypes::Int64Type>();
        for i in 0..sums.len() {
            if sums.is_null(i) {
                continue;
            }
            let v = sums.value(i);
            let v = v.as_primitive::<Float64Type>();
            self.add(v.values().iter().copied(), counts.value(i))?;
        }
        Ok(())
    }
    fn state(&mut self) -> DFResult<Vec<ScalarValue>> {
        let sums = self.sums.as_ref().map(|s| {
            ScalarValue::List(ScalarValue::new_list_nullable(
                &s.iter()
                    .map(|x| ScalarValue::Float64(Some(*x)))
                    .collect::<Vec<_>>(),
                &DataType::Float64,
            ))
        });
        Ok(vec![
            sums.unwrap_or(ScalarValue::try_from(&DataType::List(Arc::new(
                Field::new("item", DataType::Float64, true),
            )))?),
            ScalarValue::Int64(Some(self.count)),
        ])
    }
    fn evaluate(&mut self) -> DFResult<ScalarValue> {
        let Some(sums) = &self.sums else {
            return ScalarValue::try_from(&float_vector());
        };
        let n = if self.mean { self.count as f64 } else { 1.0 };
        let values: Vec<ScalarValue> = sums
            .iter()
            .map(|s| ScalarValue::Float32(Some((s / n) as f32)))
            .collect();
        Ok(ScalarValue::List(ScalarValue::new_list_nullable(
            &values,
            &DataType::Float32,
        )))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.sums.as_ref().map_or(0, |s| s.len() * 8)
    }
}
