//! Python functions as DataFusion scalar UDFs (`F.udf`, `F.pandas_udf`,
//! `spark.udf.register`): the engine calls one once per record batch, the
//! GIL taken only for that call. The arguments go to Python as one pyarrow
//! table; the Python side (`sparklet.sql.udf`) applies the user's function
//! row by row or to pandas Series and hands back a pyarrow array of the
//! declared type.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ColumnarValue, Expr, ScalarFunctionArgs,
    ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use pyo3::prelude::*;
use pyo3_arrow::{PyArray, PyDataType, PyTable};
use sparklet_engine::exec::map_batches::BatchMapper;

use crate::arrow_table::to_pyarrow;
use crate::errors::worker_error;
use crate::errors::IntoPyResult;
use crate::expr::PyExpr;
use crate::session::PySession;

/// A named Python callable returning `returns` values; UDFs wrapping the
/// same object are the same.
#[derive(Debug, Clone)]
struct PyCallable {
    name: String,
    runner: Arc<Py<PyAny>>,
    returns: DataType,
}

impl PyCallable {
    fn new(name: &str, runner: Py<PyAny>, returns: DataType) -> Self {
        PyCallable {
            name: name.to_string(),
            runner: Arc::new(runner),
            returns,
        }
    }

    /// Its `n` values for `arrays`, as `returns`.
    fn call(&self, arrays: Vec<ArrayRef>, n: usize) -> DFResult<ArrayRef> {
        let out = call_runner(&self.name, &self.runner, arrays, n)?;
        if out.data_type() == &self.returns {
            return Ok(out);
        }
        Ok(arrow::compute::cast(&out, &self.returns)?)
    }
}

impl PartialEq for PyCallable {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.runner.as_ptr() == other.runner.as_ptr()
    }
}
impl Eq for PyCallable {}
impl Hash for PyCallable {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        (self.runner.as_ptr() as usize).hash(state);
    }
}

/// A Python function over record batches: `runner(table, num_rows)`
/// returns a pyarrow array of `returns` with `num_rows` values.
#[derive(Debug, PartialEq, Eq, Hash)]
struct PythonUdf {
    func: PyCallable,
    signature: Signature,
}

fn user_error(e: sparklet_engine::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl ScalarUDFImpl for PythonUdf {
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

/// Volatile, so never folded at planning time (which may run off the
/// calling thread while it holds the GIL).
fn python_udf(name: &str, runner: Py<PyAny>, returns: DataType) -> ScalarUDF {
    let volatility = Volatility::Volatile;
    ScalarUDF::new_from_impl(PythonUdf {
        func: PyCallable::new(name, runner, returns),
        signature: Signature::user_defined(volatility),
    })
}

/// A Python aggregate over pandas Series (`pandas_udf` of `Series ->
/// scalar`): a group's values are gathered, then `runner(table, 1)` returns
/// a one-value pyarrow array of `returns`.
#[derive(Debug, PartialEq, Eq, Hash)]
struct PythonUdaf {
    func: PyCallable,
    signature: Signature,
}

impl AggregateUDFImpl for PythonUdaf {
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
    func: PyCallable,
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

/// `runner(table of the arguments, rows)`, with the GIL; its array must
/// have `expect` values.
fn call_runner(
    name: &str,
    runner: &Py<PyAny>,
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
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new_with_options(
        Arc::clone(&schema),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?;
    let out: ArrayRef = crate::errors::attach_from_engine(|py| {
        let call = || -> PyResult<PyArray> {
            let table = to_pyarrow(py, vec![batch], schema)?;
            runner.call1(py, (table, rows))?.extract::<PyArray>(py)
        };
        let (array, _) = call().map_err(|e| worker_error(py, e))?.into_inner();
        Ok::<_, sparklet_engine::Error>(array)
    })
    .map_err(user_error)?;
    if out.len() != n {
        return Err(user_error(sparklet_engine::Error::illegal_argument(
            format!(
                "the UDF {name} returned {} values where {n} were expected",
                out.len()
            ),
        )));
    }
    Ok(out)
}

/// A call of a Python aggregate UDF on `args`.
#[pyfunction]
pub fn udaf_call(
    name: &str,
    runner: Py<PyAny>,
    returns: PyDataType,
    args: Vec<PyRef<'_, PyExpr>>,
) -> PyExpr {
    let udaf = AggregateUDF::new_from_impl(PythonUdaf {
        func: PyCallable::new(name, runner, returns.into_inner()),
        signature: Signature::user_defined(Volatility::Immutable),
    });
    let args: Vec<Expr> = args.iter().map(|e| e.expr.clone()).collect();
    PyExpr::new(udaf.call(args))
}

/// A call of a Python UDF on `args` (not registered by name).
#[pyfunction]
pub fn udf_call(
    name: &str,
    runner: Py<PyAny>,
    returns: PyDataType,
    args: Vec<PyRef<'_, PyExpr>>,
) -> PyExpr {
    let udf = python_udf(name, runner, returns.into_inner());
    let args: Vec<Expr> = args.iter().map(|e| e.expr.clone()).collect();
    PyExpr::new(udf.call(args))
}

/// `spark.udf.register(name, f)`: the UDF callable by name in SQL.
#[pyfunction]
pub fn register_udf(
    session: PyRef<'_, PySession>,
    name: &str,
    runner: Py<PyAny>,
    returns: PyDataType,
) -> PyResult<()> {
    let udf = python_udf(name, runner, returns.into_inner());
    session.inner.ctx().register_udf(udf);
    Ok::<_, sparklet_engine::Error>(()).py()
}

/// The user's `mapInPandas`/`mapInArrow` function: `runner(table)` returns
/// a pyarrow table of the declared schema.
pub struct PyBatchMapper {
    pub runner: Py<PyAny>,
}

impl BatchMapper for PyBatchMapper {
    fn map(
        &self,
        batches: Vec<RecordBatch>,
        schema: arrow::datatypes::SchemaRef,
    ) -> Result<Vec<RecordBatch>, sparklet_engine::Error> {
        let input_schema = match batches.first() {
            Some(b) => b.schema(),
            None => return Ok(Vec::new()),
        };
        crate::errors::attach_from_engine(|py| {
            let call = || -> PyResult<PyTable> {
                let table = to_pyarrow(py, batches, input_schema)?;
                self.runner.call1(py, (table,))?.extract::<PyTable>(py)
            };
            let (out, out_schema) = call().map_err(|e| worker_error(py, e))?.into_inner();
            if out_schema.fields() != schema.fields() {
                return Err(sparklet_engine::Error::illegal_argument(format!(
                    "the function returned columns {:?} where the declared schema has {:?}",
                    out_schema
                        .fields()
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>(),
                    schema
                        .fields()
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                )));
            }
            out.into_iter()
                // the declared schema, without the table's metadata (pandas')
                .map(|b| {
                    Ok(RecordBatch::try_new(
                        Arc::clone(&schema),
                        b.columns().to_vec(),
                    )?)
                })
                .collect()
        })
    }
}
