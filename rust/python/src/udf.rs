//! Python functions behind the engine's function traits (`F.udf`,
//! `F.pandas_udf`, `spark.udf.register`: `BatchFunction`, made UDFs by
//! `functions::user_udfs`; `mapInPandas`: `BatchMapper`): the GIL taken
//! only for the call. The arguments go to Python as one pyarrow table; the
//! Python side (`sparklet.sql.udf`) applies the user's function row by row
//! or to pandas Series and hands back a pyarrow array of the declared type.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use datafusion::logical_expr::Expr;
use pyo3::prelude::*;
use pyo3_arrow::{PyArray, PyDataType, PyTable};
use sparklet_engine::exec::map_batches::BatchMapper;
use sparklet_engine::functions::user_udfs::{aggregate_udf, scalar_udf, BatchFunction};

use crate::arrow_table::to_pyarrow;
use crate::errors::worker_error;
use crate::errors::IntoPyResult;
use crate::expr::PyExpr;
use crate::session::PySession;

/// The user's Python function: `runner(table, num_rows)` returns a pyarrow
/// array of `num_rows` values.
struct PyBatchFunction {
    runner: Py<PyAny>,
}

impl BatchFunction for PyBatchFunction {
    fn call(&self, args: RecordBatch) -> Result<ArrayRef, sparklet_engine::Error> {
        let rows = args.num_rows();
        crate::errors::attach_from_engine(|py| {
            let call = || -> PyResult<PyArray> {
                let table = to_pyarrow(py, vec![args.clone()], args.schema())?;
                self.runner.call1(py, (table, rows))?.extract::<PyArray>(py)
            };
            let (array, _) = call().map_err(|e| worker_error(py, e))?.into_inner();
            Ok(array)
        })
    }
}

fn function(runner: Py<PyAny>) -> Arc<dyn BatchFunction> {
    Arc::new(PyBatchFunction { runner })
}

/// A call of a Python aggregate UDF on `args`.
#[pyfunction]
pub fn udaf_call(
    name: &str,
    runner: Py<PyAny>,
    returns: PyDataType,
    args: Vec<PyRef<'_, PyExpr>>,
) -> PyExpr {
    let udaf = aggregate_udf(name, function(runner), returns.into_inner());
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
    let udf = scalar_udf(name, function(runner), returns.into_inner());
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
    let udf = scalar_udf(name, function(runner), returns.into_inner());
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
