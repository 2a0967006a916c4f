//! Users' functions as DataFusion UDFs (`F.udf`, `F.pandas_udf`,
//! `spark.udf.register`, aggregate pandas UDFs): the engine calls one once
//! per record batch (an aggregate once per group) through [`BatchFunction`],
//! which the bindings implement over the user's Python code.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ColumnarValue, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};

use crate::error::{Error, Result};

/// A user's function over record batches, implemented where the user's
/// code lives (the bindings call Python, the GIL taken only there):
/// `call(args)` gives one value per row of `args`.
pub trait BatchFunction: Send + Sync {
    /// The function's values for the rows of `args` (its arguments as
    /// columns `_0`, `_1`, ...).
    fn call(&self, args: RecordBatch) -> Result<ArrayRef>;
}

/// A named user function returning `returns` values; UDFs wrapping the
/// same function object are the same.
#[derive(Clone)]
struct UserFunction {
    name: String,
    func: Arc<dyn BatchFunction>,
    returns: DataType,
}

impl std::fmt::Debug for UserFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserFunction({} -> {})", self.name, self.returns)
    }
}

impl UserFunction {
    fn new(name: &str, func: Arc<dyn BatchFunction>, returns: DataType) -> Self {
        UserFunction {
            name: name.to_string(),
            func,
            returns,
        }
    }

    /// Its `n` values for `arrays`, as `returns`.
    fn call(&self, arrays: Vec<ArrayRef>, n: usize) -> DFResult<ArrayRef> {
        let out = call_function(&self.name, self.func.as_ref(), arrays, n)?;
        if out.data_type() == &self.returns {
            return Ok(out);
        }
        Ok(arrow::compute::cast(&out, &self.returns)?)
    }

    fn identity(&self) -> usize {
        Arc::as_ptr(&self.func) as *const () as usize
    }
}

impl PartialEq for UserFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.identity() == other.identity()
    }
}
impl Eq for UserFunction {}
impl Hash for UserFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.identity().hash(state);
    }
}

/// A user's scalar function over record batches.
#[derive(Debug, PartialEq, Eq, Hash)]
struct UserScalarUdf {
    func: UserFunction,
    signature: Signature,
}

fn user_error(e: Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl ScalarUDFImpl for UserScalarUdf {
    fn name(&self) -> &str {
        &self.func.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.func.returns.clone())
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let n = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        Ok(ColumnarValue::Array(self.func.call(arrays, n)?))
    }
}

/// `func` as a scalar UDF named `name` returning `returns`. Volatile, so
/// never folded at planning time (which may run off the calling thread
/// while it holds the GIL).
pub fn scalar_udf(name: &str, func: Arc<dyn BatchFunction>, returns: DataType) -> ScalarUDF {
    ScalarUDF::new_from_impl(UserScalarUdf {
        func: UserFunction::new(name, func, returns),
        signature: Signature::user_defined(Volatility::Volatile),
    })
}

/// `func` as an aggregate UDF (`pandas_udf` of `Series -> scalar`): a
/// group's values are gathered, then `func` gives its one value.
pub fn aggregate_udf(name: &str, func: Arc<dyn BatchFunction>, returns: DataType) -> AggregateUDF {
    AggregateUDF::new_from_impl(UserAggregateUdf {
        func: UserFunction::new(name, func, returns),
        signature: Signature::user_defined(Volatility::Immutable),
    })
}

/// A user's aggregate over a group's values.
#[derive(Debug, PartialEq, Eq, Hash)]
struct UserAggregateUdf {
    func: UserFunction,
    signature: Signature,
}

impl AggregateUDFImpl for UserAggregateUdf {
    fn name(&self) -> &str {
        &self.func.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.func.returns.clone())
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DFResult<Box<dyn Accumulator>> {
        let types = args
            .exprs
            .iter()
            .map(|e| e.data_type(args.schema))
            .collect::<DFResult<Vec<_>>>()?;
        Ok(Box::new(GatherValues {
            func: self.func.clone(),
            chunks: vec![Vec::new(); types.len()],
            types,
        }))
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DFResult<Vec<FieldRef>> {
        // a group's values so far, one list per argument
        Ok(args
            .input_fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                Arc::new(Field::new(
                    format!("{}_values_{i}", args.name),
                    DataType::new_list(f.data_type().clone(), true),
                    true,
                ))
            })
            .collect())
    }
}

/// A group's values of each argument, until the aggregate is evaluated.
#[derive(Debug)]
struct GatherValues {
    func: UserFunction,
    types: Vec<DataType>,
    chunks: Vec<Vec<ArrayRef>>,
}

impl GatherValues {
    fn column(&self, i: usize) -> DFResult<ArrayRef> {
        if self.chunks[i].is_empty() {
            return Ok(arrow::array::new_empty_array(&self.types[i]));
        }
        let parts: Vec<&dyn arrow::array::Array> =
            self.chunks[i].iter().map(|a| a.as_ref()).collect();
        Ok(arrow::compute::concat(&parts)?)
    }
}

impl Accumulator for GatherValues {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        for (chunks, v) in self.chunks.iter_mut().zip(values) {
            chunks.push(Arc::clone(v));
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DFResult<()> {
        use arrow::array::{Array, AsArray};
        for (chunks, s) in self.chunks.iter_mut().zip(states) {
            let lists = s.as_list::<i32>();
            for i in 0..lists.len() {
                if lists.is_valid(i) {
                    chunks.push(lists.value(i));
                }
            }
        }
        Ok(())
    }
    fn state(&mut self) -> DFResult<Vec<ScalarValue>> {
        (0..self.types.len())
            .map(|i| {
                let values = self.column(i)?;
                Ok(ScalarValue::List(Arc::new(
                    arrow::array::ListArray::try_new(
                        Arc::new(Field::new_list_field(self.types[i].clone(), true)),
                        arrow::buffer::OffsetBuffer::from_lengths([values.len()]),
                        values,
                        None,
                    )?,
                )))
            })
            .collect()
    }
    fn evaluate(&mut self) -> DFResult<ScalarValue> {
        let columns = (0..self.types.len())
            .map(|i| self.column(i))
            .collect::<DFResult<Vec<_>>>()?;
        let out = self.func.call(columns, 1)?;
        ScalarValue::try_from_array(&out, 0)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self
                .chunks
                .iter()
                .flatten()
                .map(|a| a.get_array_memory_size())
                .sum::<usize>()
    }
}

/// `func` over `arrays` as a record batch of `n` rows; its array must have
/// `n` values.
fn call_function(
    name: &str,
    func: &dyn BatchFunction,
    arrays: Vec<ArrayRef>,
    n: usize,
) -> DFResult<ArrayRef> {
    let rows = if arrays.is_empty() {
        n
    } else {
        arrays[0].len()
    };
    let fields: Vec<Field> = arrays
        .iter()
        .enumerate()
        .map(|(i, a)| Field::new(format!("_{i}"), a.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?;
    let out = func.call(batch).map_err(user_error)?;
    if out.len() != n {
        return Err(user_error(Error::illegal_argument(format!(
            "the UDF {name} returned {} values where {n} were expected",
            out.len()
        ))));
    }
    Ok(out)
}
