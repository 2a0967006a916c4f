//! Spark's sketch functions (`hll_*`, `theta_*`, `kll_sketch_*`, `tuple_*`)
//! on Apache DataSketches' Rust port, and its bitmap aggregates. A sketch is a binary value in
//! DataSketches' serialized form, as Spark's are: aggregates build and
//! merge them (their partial state is the sketch itself, so they stream and
//! checkpoint like any aggregate), scalar functions read and combine them.

mod bitmap;
mod hll;
mod kll;
mod theta;
mod tuple;

use std::fmt::Debug;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder};
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ColumnarValue, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};

/// The sketch aggregates, under Spark's names.
pub fn aggregates() -> Vec<AggregateUDF> {
    [
        hll::aggregates(),
        theta::aggregates(),
        kll::aggregates(),
        tuple::aggregates(),
        bitmap::aggregates(),
    ]
    .concat()
}

/// The scalar functions over sketches, under Spark's names.
pub fn scalars() -> Vec<ScalarUDF> {
    [
        hll::scalars(),
        theta::scalars(),
        kll::scalars(),
        tuple::scalars(),
    ]
    .concat()
}

/// Spark's defaults for a sketch function's trailing optional arguments, as
/// its column names show them (`hll_sketch_agg(value, 12)`): the number of
/// arguments a call needs, then each default's SQL text.
pub fn default_args(name: &str) -> Option<(usize, &'static [&'static str])> {
    Some(match name {
        "hll_sketch_agg" | "theta_sketch_agg" | "theta_union_agg" => (1, &["12"]),
        "hll_union_agg" => (1, &["false"]),
        "hll_union" => (2, &["false"]),
        "theta_union" => (2, &["12"]),
        "tuple_sketch_agg_double" | "tuple_sketch_agg_integer" => (2, &["12", "sum"]),
        "tuple_union_agg_double" | "tuple_union_agg_integer" => (1, &["12", "sum"]),
        "tuple_intersection_agg_double" | "tuple_intersection_agg_integer" => (1, &["sum"]),
        "tuple_sketch_summary_double" | "tuple_sketch_summary_integer" => (1, &["sum"]),
        "tuple_union_double"
        | "tuple_union_integer"
        | "tuple_union_theta_double"
        | "tuple_union_theta_integer" => (2, &["12", "sum"]),
        "tuple_intersection_double"
        | "tuple_intersection_integer"
        | "tuple_intersection_theta_double"
        | "tuple_intersection_theta_integer" => (2, &["sum"]),
        _ => return None,
    })
}

/// The error of a sketch function, with Spark's condition.
fn error(condition: &str, message: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("[{condition}] {message}"))
}

/// The error for bytes that are not a sketch of the kind a function reads.
fn not_a_sketch(function: &str, kind: &str, e: impl std::fmt::Display) -> DataFusionError {
    error(
        "SKETCH_INVALID_INPUT",
        format!("{function}: the input is not a valid {kind} sketch ({e})"),
    )
}

/// A sketch being built by an aggregate.
trait Sketch: Debug + Send + Sync {
    /// Fold in a batch of the aggregate's input columns.
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()>;
    /// Fold in another partial state (a serialized sketch).
    fn merge(&mut self, state: &[u8]) -> Result<()>;
    /// The partial state, None while nothing was folded in where "nothing"
    /// is not itself a sketch (an intersection's identity).
    fn state(&self) -> Option<Vec<u8>>;
    /// The aggregate's result.
    fn result(&self) -> Option<Vec<u8>> {
        self.state()
    }
    fn size(&self) -> usize;
}

/// The constant arguments of a call (Spark takes them as literals), each
/// None when not given.
struct Params(Vec<Option<ScalarValue>>);

impl Params {
    fn of_aggregate(args: &AccumulatorArgs) -> Self {
        use datafusion::physical_expr::expressions::Literal;
        Params(
            args.exprs
                .iter()
                .map(|e| e.downcast_ref::<Literal>().map(|l| l.value().clone()))
                .collect(),
        )
    }

    fn of_scalars(args: &[ColumnarValue]) -> Self {
        Params(
            args.iter()
                .map(|a| match a {
                    ColumnarValue::Scalar(s) => Some(s.clone()),
                    ColumnarValue::Array(_) => None,
                })
                .collect(),
        )
    }

    /// Argument `i` as an integer in `range`, `default` when not given.
    fn int(&self, function: &str, i: usize, default: i64, range: (i64, i64)) -> Result<i64> {
        let v = match self.0.get(i) {
            None => return Ok(default),
            Some(Some(v)) => v.cast_to(&DataType::Int64).ok(),
            Some(None) => None,
        };
        match v {
            Some(ScalarValue::Int64(Some(v))) if (range.0..=range.1).contains(&v) => Ok(v),
            _ => Err(error(
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                format!(
                    "{function}: argument {} must be an integer literal between {} and {}",
                    i + 1,
                    range.0,
                    range.1
                ),
            )),
        }
    }

    /// Argument `i` as a boolean literal, `false` when not given.
    fn flag(&self, function: &str, i: usize) -> Result<bool> {
        match self.0.get(i) {
            None => Ok(false),
            Some(Some(ScalarValue::Boolean(Some(b)))) => Ok(*b),
            _ => Err(error(
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                format!("{function}: argument {} must be a boolean literal", i + 1),
            )),
        }
    }

    /// Argument `i` as a string literal, `default` when not given.
    fn text(&self, function: &str, i: usize, default: &str) -> Result<String> {
        match self.0.get(i) {
            None => Ok(default.to_string()),
            Some(Some(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)))) => {
                Ok(s.clone())
            }
            _ => Err(error(
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                format!("{function}: argument {} must be a string literal", i + 1),
            )),
        }
    }
}

type NewSketch = fn(&'static str, &Params, &[DataType]) -> Result<Box<dyn Sketch>>;

/// An aggregate that builds a sketch (binary) from its input.
#[derive(Debug)]
struct SketchAggregate {
    name: &'static str,
    signature: Signature,
    new: NewSketch,
}

fn aggregate(name: &'static str, new: NewSketch) -> AggregateUDF {
    AggregateUDF::new_from_impl(SketchAggregate {
        name,
        signature: Signature::variadic_any(Volatility::Immutable),
        new,
    })
}

impl AggregateUDFImpl for SketchAggregate {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }
    fn state_fields(&self, _: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new("sketch", DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let types: Vec<DataType> = args
            .expr_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        let sketch = (self.new)(self.name, &Params::of_aggregate(&args), &types)?;
        Ok(Box::new(SketchAccumulator(sketch)))
    }
}

#[derive(Debug)]
struct SketchAccumulator(Box<dyn Sketch>);

impl Accumulator for SketchAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.0.update(values)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        each_sketch(&states[0], |bytes| self.0.merge(bytes))
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(self.0.state())])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(self.0.result()))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.0.size()
    }
}

/// Each non-null binary value of `array`.
fn each_sketch(array: &ArrayRef, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let binary = as_binary(array)?;
    for bytes in binary.iter().flatten() {
        f(bytes)?;
    }
    Ok(())
}

fn as_binary(array: &ArrayRef) -> Result<BinaryArray> {
    let cast = arrow::compute::cast(array, &DataType::Binary)?;
    Ok(cast.as_binary::<i32>().clone())
}

/// The functions are one of a kind per name.
macro_rules! same_by_name {
    ($t:ty) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.name == other.name
            }
        }
        impl Eq for $t {}
        impl std::hash::Hash for $t {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.name.hash(state)
            }
        }
    };
}
same_by_name!(SketchAggregate);
same_by_name!(SketchFunction);

type Eval = fn(&'static str, &Params, &[ArrayRef]) -> Result<ArrayRef>;

/// A scalar function over sketches, evaluated row by row.
#[derive(Debug)]
struct SketchFunction {
    name: &'static str,
    signature: Signature,
    returns: DataType,
    eval: Eval,
}

fn function(name: &'static str, returns: DataType, eval: Eval) -> ScalarUDF {
    ScalarUDF::new_from_impl(SketchFunction {
        name,
        signature: Signature::variadic_any(Volatility::Immutable),
        returns,
        eval,
    })
}

impl ScalarUDFImpl for SketchFunction {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(self.returns.clone())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let all_scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let params = Params::of_scalars(&args.args);
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out = (self.eval)(self.name, &params, &arrays)?;
        if all_scalar {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?));
        }
        Ok(ColumnarValue::Array(out))
    }
}

/// Binary results row by row from the sketches of `left` and `right`
/// (null where either is).
fn combine_rows(
    left: &ArrayRef,
    right: &ArrayRef,
    mut f: impl FnMut(&[u8], &[u8]) -> Result<Vec<u8>>,
) -> Result<ArrayRef> {
    let (l, r) = (as_binary(left)?, as_binary(right)?);
    let mut out = BinaryBuilder::new();
    for (a, b) in l.iter().zip(r.iter()) {
        match (a, b) {
            (Some(a), Some(b)) => out.append_value(f(a, b)?),
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Values row by row from the sketches of `array` (null where it is).
fn map_rows<T>(
    array: &ArrayRef,
    mut f: impl FnMut(usize, &[u8]) -> Result<Option<T>>,
) -> Result<Vec<Option<T>>> {
    let binary = as_binary(array)?;
    (0..binary.len())
        .map(|i| {
            if binary.is_null(i) {
                Ok(None)
            } else {
                f(i, binary.value(i))
            }
        })
        .collect()
}

/// The error for an input column of a type a sketch cannot take.
fn unsupported_input(function: &str, t: &DataType, accepted: &str) -> DataFusionError {
    error(
        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        format!("{function} cannot sketch values of type {t}; it takes {accepted}"),
    )
}

/// Each non-null item of an input column as the value DataSketches hashes
/// for it, as Spark's aggregates feed them: integers as a 64-bit long,
/// floating point as a canonical double, strings (non-empty) and binary as
/// their bytes.
enum Item<'a> {
    Long(i64),
    Double(f64),
    Bytes(&'a [u8]),
}

fn each_item(
    function: &str,
    array: &ArrayRef,
    floats: bool,
    mut f: impl FnMut(usize, Item<'_>),
) -> Result<()> {
    fn rows<T>(values: impl Iterator<Item = Option<T>>) -> impl Iterator<Item = (usize, T)> {
        values.enumerate().filter_map(|(i, v)| v.map(|v| (i, v)))
    }
    use arrow::datatypes::{Float64Type, Int64Type};
    let accepted = if floats {
        "integers, floating point, strings or binary"
    } else {
        "integers, strings or binary"
    };
    match array.data_type() {
        t if t.is_integer() => {
            let longs = arrow::compute::cast(array, &DataType::Int64)?;
            rows(longs.as_primitive::<Int64Type>().iter()).for_each(|(i, v)| f(i, Item::Long(v)));
        }
        t if floats && t.is_floating() => {
            let doubles = arrow::compute::cast(array, &DataType::Float64)?;
            rows(doubles.as_primitive::<Float64Type>().iter())
                .for_each(|(i, v)| f(i, Item::Double(v)));
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let text = arrow::compute::cast(array, &DataType::Utf8)?;
            rows(text.as_string::<i32>().iter())
                .filter(|(_, s)| !s.is_empty())
                .for_each(|(i, s)| f(i, Item::Bytes(s.as_bytes())));
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            rows(as_binary(array)?.iter())
                .filter(|(_, b)| !b.is_empty())
                .for_each(|(i, b)| f(i, Item::Bytes(b)));
        }
        DataType::Null => {}
        t => return Err(unsupported_input(function, t, accepted)),
    }
    Ok(())
}
