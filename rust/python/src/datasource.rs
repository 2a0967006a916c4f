//! Python data sources (`sparklet.sql.datasource`): the engine's callback
//! table and streaming source, each call entering the user's code through
//! the adapters of `sparklet.sql._datasource_run` (which run the readers
//! and hand back Arrow). Offsets cross as JSON texts.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3_arrow::{PyArray, PyRecordBatch, PyRecordBatchReader, PySchema};
use sparklet_engine::sources::callback::{PlannedScan, PushedFilter, ScanPlanner};
use sparklet_engine::sources::{BatchInput, Offset, Source, SourceContext, SourceFactory};
use sparklet_engine::{Error, Result};

use crate::dataframe::PyDataFrame;
use crate::errors::{attach_from_engine, user_code_error, worker_error};
use crate::session::PySession;

/// `spark.read.format(name).load()` of a Python source: a DataFrame whose
/// scans `planner` (a `BatchRead`) plans.
#[pyfunction]
pub fn read_python_source(
    py: Python<'_>,
    session: &PySession,
    schema: PySchema,
    planner: Py<PyAny>,
) -> PyResult<PyDataFrame> {
    let planner: Arc<dyn ScanPlanner> = Arc::new(PyPlanner { planner });
    let s = Arc::clone(&session.inner);
    let schema = schema.into_inner();
    let df = crate::run::engine(py, || s.callback_df(schema, planner))?;
    Ok(session.df(df))
}

/// `spark.readStream.format(name).load()` of a Python source: each query
/// calls `start()` for its own `StreamRead`.
#[pyfunction]
pub fn read_stream_python_source(
    py: Python<'_>,
    session: &PySession,
    schema: PySchema,
    start: Py<PyAny>,
) -> PyResult<PyDataFrame> {
    let factory: Arc<dyn SourceFactory> = Arc::new(PyStreamFactory {
        schema: schema.into_inner(),
        start,
    });
    let s = Arc::clone(&session.inner);
    let df = crate::run::engine(py, || s.stream_of(factory))?;
    Ok(session.df(df))
}

#[derive(Debug)]
struct PyPlanner {
    planner: Py<PyAny>,
}

impl ScanPlanner for PyPlanner {
    fn plan(&self, filters: Vec<PushedFilter>) -> Result<Arc<dyn PlannedScan>> {
        attach_from_engine(|py| {
            let run = || -> PyResult<Py<PyAny>> {
                let specs = filters
                    .iter()
                    .map(|f| filter_spec(py, f))
                    .collect::<PyResult<Vec<_>>>()?;
                self.planner
                    .call_method1(py, "plan", (PyList::new(py, specs)?,))
            };
            let planned = run()
                .map_err(|e| user_code_error(py, e, &crate::errors::DATA_SOURCE_PLAN_ERROR))?;
            Ok(Arc::new(PyPlanned { planned }) as Arc<dyn PlannedScan>)
        })
    }
}

/// A filter as `sparklet.sql._datasource_run._filter` reads it:
/// `(kind, column path, value...)`.
fn filter_spec<'py>(py: Python<'py>, f: &PushedFilter) -> PyResult<Bound<'py, PyTuple>> {
    match f {
        PushedFilter::Compare(kind, path, value) => PyTuple::new(
            py,
            [
                kind.into_pyobject(py)?.into_any(),
                path_of(py, path)?,
                scalar(py, value)?,
            ],
        ),
        PushedFilter::In(path, values) => {
            let values = values
                .iter()
                .map(|v| scalar(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(
                py,
                [
                    "In".into_pyobject(py)?.into_any(),
                    path_of(py, path)?,
                    PyList::new(py, values)?.into_any(),
                ],
            )
        }
        PushedFilter::IsNull(path) => PyTuple::new(
            py,
            ["IsNull".into_pyobject(py)?.into_any(), path_of(py, path)?],
        ),
        PushedFilter::IsNotNull(path) => PyTuple::new(
            py,
            [
                "IsNotNull".into_pyobject(py)?.into_any(),
                path_of(py, path)?,
            ],
        ),
        PushedFilter::Not(inner) => PyTuple::new(
            py,
            [
                "Not".into_pyobject(py)?.into_any(),
                filter_spec(py, inner)?.into_any(),
            ],
        ),
        PushedFilter::Text(kind, path, text) => PyTuple::new(
            py,
            [
                kind.into_pyobject(py)?.into_any(),
                path_of(py, path)?,
                text.into_pyobject(py)?.into_any(),
            ],
        ),
    }
}

fn path_of<'py>(py: Python<'py>, path: &[String]) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyTuple::new(py, path)?.into_any())
}

/// A literal as the Python value pyarrow gives for it.
fn scalar<'py>(py: Python<'py>, value: &ScalarValue) -> PyResult<Bound<'py, PyAny>> {
    let array = value
        .to_array()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let array = PyArray::from_array_ref(array);
    let arrow = array.to_pyarrow(py)?.unbind();
    arrow.bind(py).get_item(0)?.call_method0("as_py")
}

#[derive(Debug)]
struct PyPlanned {
    planned: Py<PyAny>,
}

impl PlannedScan for PyPlanned {
    fn batches(&self) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>> {
        let iter = attach_from_engine(|py| {
            self.planned
                .bind(py)
                .call_method0("batches")
                .and_then(|b| b.try_iter())
                .map(|it| it.into_any().unbind())
                .map_err(|e| worker_error(py, e))
        })?;
        Ok(Box::new(PyBatches { iter: Some(iter) }))
    }
}

/// A Python iterator of `pyarrow.RecordBatch`es; attached to the
/// interpreter only while it computes the next one.
struct PyBatches {
    iter: Option<Py<PyAny>>,
}

impl Iterator for PyBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let iter = self.iter.as_ref()?;
        let next = attach_from_engine(|py| match iter.bind(py).call_method0("__next__") {
            Ok(b) => b
                .extract::<PyRecordBatch>()
                .map(|b| Some(b.into_inner()))
                .map_err(|e| worker_error(py, e)),
            Err(e) if e.is_instance_of::<PyStopIteration>(py) => Ok(None),
            Err(e) => Err(worker_error(py, e)),
        });
        match next {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                self.iter = None;
                None
            }
            Err(e) => {
                self.iter = None;
                Some(Err(e))
            }
        }
    }
}

#[derive(Debug)]
struct PyStreamFactory {
    schema: SchemaRef,
    start: Py<PyAny>,
}

impl SourceFactory for PyStreamFactory {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn create(&self, _ctx: &SourceContext) -> Result<Box<dyn Source>> {
        attach_from_engine(|py| {
            let run = || -> PyResult<(Py<PyAny>, String)> {
                let adapter = self.start.call0(py)?;
                let description = adapter.call_method0(py, "description")?.extract(py)?;
                Ok((adapter, description))
            };
            let (adapter, description) = run().map_err(|e| worker_error(py, e))?;
            Ok(Box::new(PyStream {
                adapter,
                schema: Arc::clone(&self.schema),
                description,
                current: None,
            }) as Box<dyn Source>)
        })
    }

    fn class_name(&self) -> &'static str {
        "PythonMicroBatchStream"
    }
}

/// A running query's Python stream: its `StreamRead` adapter.
struct PyStream {
    adapter: Py<PyAny>,
    schema: SchemaRef,
    description: String,
    /// Where the next batch starts (the last batch's end), as JSON; None
    /// before the first: the reader's initial offset.
    current: Option<String>,
}

impl PyStream {
    /// Call the adapter's `method(*args)` (an error is the user's code's);
    /// what it returns, when it returns text.
    fn call(&self, method: &str, args: Vec<Option<String>>) -> Result<Option<String>> {
        attach_from_engine(|py| {
            let run = || -> PyResult<Option<String>> {
                let args = PyTuple::new(py, args)?;
                self.adapter.bind(py).call_method1(method, args)?.extract()
            };
            run().map_err(|e| worker_error(py, e))
        })
    }

    /// [`Self::call`] of a method that returns an offset.
    fn offset(&self, method: &str, args: Vec<Option<String>>) -> Result<Offset> {
        let text = self.call(method, args)?.unwrap_or_default();
        serde_json::from_str(&text).map_err(|e| {
            Error::Internal(format!(
                "a Python source's {method} gave no JSON offset ({e}): {text}"
            ))
        })
    }
}

impl Source for PyStream {
    fn description(&self) -> String {
        self.description.clone()
    }

    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let end = self.offset("latest", vec![self.current.clone()])?;
        // a new query with nothing after the initial offset has no data
        if self.current.is_none() && self.offset("initial", vec![])? == end {
            return Ok(None);
        }
        Ok(Some(end))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let end_text = end.to_string();
        let start_text = start.map(|s| s.to_string());
        let batches = attach_from_engine(|py| {
            let run = || -> PyResult<Vec<RecordBatch>> {
                let table = self
                    .adapter
                    .bind(py)
                    .call_method1("batch", (start_text, end_text.clone()))?;
                let reader = table.extract::<PyRecordBatchReader>()?.into_reader()?;
                reader
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
            };
            run().map_err(|e| worker_error(py, e))
        })?;
        self.current = Some(end_text);
        let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let provider = MemTable::try_new(Arc::clone(&self.schema), vec![batches])?;
        Ok(BatchInput {
            provider: Arc::new(provider),
            num_rows,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        self.call("commit", vec![Some(end.to_string())]).map(drop)
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.current = committed.map(|c| c.to_string());
        Ok(())
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        self.call("prepare_available_now", vec![self.current.clone()])
            .map(drop)
    }

    fn ignore_read_limits(&mut self) {
        if let Err(e) = self.call("ignore_limits", vec![]) {
            log::warn!("{}: {e}", self.description);
        }
    }
}

impl Drop for PyStream {
    /// The query is over: the reader's `stop()`.
    fn drop(&mut self) {
        if let Err(e) = self.call("stop", vec![]) {
            log::warn!("{}: stop() failed: {e}", self.description);
        }
    }
}
