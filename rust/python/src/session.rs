//! `SparkSession` bindings: catalog, conf, readers and the query manager.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3_arrow::{PyRecordBatchReader, PySchema};
use sparklet_engine::Session;

use crate::dataframe::PyDataFrame;
use crate::errors::{query_failed, IntoPyResult};
use crate::streaming::{PyMemoryStream, PyStreamingQuery};

/// A session handle.
#[pyclass(name = "Session", module = "sparklet._native", frozen)]
pub struct PySession {
    pub inner: Arc<Session>,
}

impl PySession {
    pub fn df(&self, df: datafusion::dataframe::DataFrame) -> PyDataFrame {
        PyDataFrame {
            session: Arc::clone(&self.inner),
            df,
        }
    }
}

#[pymethods]
impl PySession {
    #[new]
    fn new(conf: Vec<(String, String)>) -> PyResult<Self> {
        Ok(PySession {
            inner: Session::new(conf).py()?,
        })
    }

    fn conf_get(&self, key: &str) -> Option<String> {
        self.inner.conf.get(key)
    }

    fn conf_set(&self, py: Python<'_>, key: &str, value: &str) -> PyResult<()> {
        crate::run::engine(py, || self.inner.set_conf(key, value))
    }

    fn conf_unset(&self, key: &str) {
        self.inner.unset_conf(key)
    }

    fn conf_all(&self) -> Vec<(String, String)> {
        self.inner.conf.all()
    }

    fn sql(&self, py: Python<'_>, query: &str) -> PyResult<PyDataFrame> {
        let s = Arc::clone(&self.inner);
        let df = crate::run::engine(py, || s.sql(query))?;
        Ok(self.df(df))
    }

    fn table(&self, py: Python<'_>, name: &str) -> PyResult<PyDataFrame> {
        let s = Arc::clone(&self.inner);
        let df = crate::run::engine(py, || s.table(name))?;
        Ok(self.df(df))
    }

    fn drop_temp_view(&self, name: &str) -> PyResult<bool> {
        self.inner.drop_temp_view(name).py()
    }

    /// The tables and views of `database` (the default one when None), sorted.
    #[pyo3(signature = (database=None))]
    fn table_names(&self, database: Option<&str>) -> PyResult<Vec<String>> {
        let db = database.unwrap_or(sparklet_engine::session::DEFAULT_DATABASE);
        self.inner.database_tables(db).py()
    }

    fn create_database(&self, name: &str) -> PyResult<()> {
        self.inner.create_database(name).py()
    }

    fn set_current_database(&self, name: &str) -> PyResult<()> {
        self.inner.set_current_database(name).py()
    }

    fn current_database(&self) -> String {
        self.inner.current_database()
    }

    fn drop_database(&self, name: &str) -> PyResult<bool> {
        self.inner.drop_database(name).py()
    }

    /// Build a DataFrame from any Arrow stream (a pyarrow Table).
    fn create_dataframe(&self, py: Python<'_>, data: PyRecordBatchReader) -> PyResult<PyDataFrame> {
        let reader = data.into_reader()?;
        let schema = reader.schema();
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| crate::errors::to_py(e.into()))?;
        let s = Arc::clone(&self.inner);
        let df = crate::run::engine(py, || s.create_dataframe(schema, batches))?;
        Ok(self.df(df))
    }

    #[pyo3(signature = (format, paths, schema, options))]
    fn read(
        &self,
        py: Python<'_>,
        format: &str,
        paths: Vec<String>,
        schema: Option<PySchema>,
        options: HashMap<String, String>,
    ) -> PyResult<PyDataFrame> {
        let s = Arc::clone(&self.inner);
        let schema = schema.map(|s| s.into_inner());
        let df = crate::run::engine(py, || s.read(format, &paths, schema, &options))?;
        Ok(self.df(df))
    }

    #[pyo3(signature = (format, path, schema, options))]
    fn read_stream(
        &self,
        py: Python<'_>,
        format: &str,
        path: Option<String>,
        schema: Option<PySchema>,
        options: HashMap<String, String>,
    ) -> PyResult<PyDataFrame> {
        let s = Arc::clone(&self.inner);
        let schema = schema.map(|s| s.into_inner());
        let df = crate::run::engine(py, || {
            s.read_stream(format, path.as_deref(), schema, &options)
        })?;
        Ok(self.df(df))
    }

    fn memory_stream(&self, schema: PySchema) -> PyResult<(PyMemoryStream, PyDataFrame)> {
        let (stream, df) = self.inner.memory_stream(schema.into_inner()).py()?;
        Ok((PyMemoryStream { inner: stream }, self.df(df)))
    }

    /// A subscription to the session's query listener events.
    fn subscribe_events(&self) -> PyEventReceiver {
        PyEventReceiver {
            rx: parking_lot::Mutex::new(self.inner.streams.bus.subscribe()),
        }
    }

    fn active_queries(&self) -> Vec<PyStreamingQuery> {
        self.inner
            .streams
            .active()
            .into_iter()
            .map(|q| PyStreamingQuery { inner: q })
            .collect()
    }

    fn get_query(&self, id: &str) -> Option<PyStreamingQuery> {
        self.inner
            .streams
            .get(id)
            .map(|q| PyStreamingQuery { inner: q })
    }

    /// Wait for any query to end, waking for Ctrl-C every 100 ms.
    #[pyo3(signature = (timeout_ms=None))]
    fn await_any_termination(&self, py: Python<'_>, timeout_ms: Option<u64>) -> PyResult<bool> {
        let streams = Arc::clone(&self.inner.streams);
        crate::run::wait_interruptibly(
            py,
            timeout_ms,
            |slice| streams.await_any_termination(Some(slice)),
            |py, e| query_failed(py, "?", "?", &e),
        )
    }

    fn reset_terminated(&self) {
        self.inner.streams.reset_terminated()
    }

    /// Remove the temporary checkpoints of the session's queries that
    /// failed (at interpreter exit; Spark removes them when its JVM exits).
    fn remove_failed_temporary_checkpoints(&self) {
        self.inner.streams.remove_failed_temporary_checkpoints()
    }

    fn ui_web_url(&self) -> Option<String> {
        self.inner.ui_web_url()
    }

    /// Stop every query, waiting up to `timeout_ms` for each (None: as
    /// long as it takes); the ids of the queries still busy then.
    #[pyo3(signature = (timeout_ms=None))]
    fn stop(&self, py: Python<'_>, timeout_ms: Option<u64>) -> PyResult<Vec<String>> {
        let s = Arc::clone(&self.inner);
        crate::run::engine_infallible(py, || {
            s.stop_within(timeout_ms.map(std::time::Duration::from_millis))
        })
    }
}

/// Listener events of a session's queries, as JSON texts, in order.
#[pyclass(name = "EventReceiver", module = "sparklet._native", frozen)]
pub struct PyEventReceiver {
    rx: parking_lot::Mutex<std::sync::mpsc::Receiver<String>>,
}

#[pymethods]
impl PyEventReceiver {
    /// The next event, waiting up to `timeout_ms` (None: none came). The
    /// GIL is released while waiting.
    fn next(&self, py: Python<'_>, timeout_ms: u64) -> PyResult<Option<String>> {
        crate::run::engine_infallible(py, || {
            self.rx
                .lock()
                .recv_timeout(std::time::Duration::from_millis(timeout_ms))
                .ok()
        })
    }
}
