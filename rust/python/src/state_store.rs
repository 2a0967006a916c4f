//! A byte-string key/value state store opened by the session's provider,
//! for state kept outside a query plan (DStreams' `updateStateByKey`,
//! whose keys and values Python pickles).

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sparklet_engine::state::providers::open_byte_store;
use sparklet_engine::state::StateStore;
use sparklet_engine::Error;

use crate::session::PySession;

/// One store at one version; committing makes the next.
#[pyclass(name = "ByteStateStore", module = "sparklet._native", frozen)]
pub struct PyByteStateStore {
    store: Mutex<Box<dyn StateStore>>,
}

/// The store in `dir` at committed `version` (0: empty), opened by the
/// provider `session`'s `spark.sql.streaming.stateStore.providerClass` names.
#[pyfunction]
pub fn open_state_store(
    py: Python<'_>,
    session: PyRef<'_, PySession>,
    dir: &str,
    version: i64,
) -> PyResult<PyByteStateStore> {
    let (session, dir) = (std::sync::Arc::clone(&session.inner), dir.to_string());
    let store = crate::run::engine(py, move || {
        open_byte_store(&session.conf, dir.into(), version)
    })?;
    Ok(PyByteStateStore {
        store: Mutex::new(store),
    })
}

#[pymethods]
impl PyByteStateStore {
    /// The version the store was opened at, or last committed.
    fn version(&self) -> i64 {
        self.store.lock().version()
    }

    /// Every key with its value.
    fn entries<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>> {
        let entries = crate::run::engine(py, || {
            let store = self.store.lock();
            let mut out = Vec::new();
            for (key, row) in store.entries()? {
                match row.into_iter().next() {
                    Some(datafusion::common::ScalarValue::Binary(Some(value))) => {
                        out.push((key, value))
                    }
                    other => {
                        return Err(Error::Internal(format!(
                            "a byte state store holds a value that is not bytes: {other:?}"
                        )))
                    }
                }
            }
            Ok(out)
        })?;
        Ok(entries
            .into_iter()
            .map(|(k, v)| (PyBytes::new(py, &k), PyBytes::new(py, &v)))
            .collect())
    }

    /// Set `key` to `value`.
    fn put(&self, py: Python<'_>, key: &[u8], value: &[u8]) -> PyResult<()> {
        crate::run::engine(py, || self.store.lock().put_bytes(key, value))
    }

    /// Remove `key`.
    fn remove(&self, py: Python<'_>, key: &[u8]) -> PyResult<()> {
        crate::run::engine_infallible(py, || self.store.lock().remove(key))
    }

    /// Make the changes durable as the next version; returns it.
    fn commit(&self, py: Python<'_>) -> PyResult<i64> {
        crate::run::engine(py, || self.store.lock().commit())
    }
}
