//! Streaming bindings: starting queries, the query handle, MemoryStream.
//! User callbacks (foreachBatch, console output) are the only places the
//! engine thread takes the GIL.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3_arrow::PyRecordBatchReader;
use sparklet_engine::engine::execution::OutputMode;
use sparklet_engine::engine::query::StreamingQuery;
use sparklet_engine::engine::trigger::Trigger;
use sparklet_engine::sinks::console::ConsoleWriter;
use sparklet_engine::sinks::SinkBatch;
use sparklet_engine::sources::memory::MemoryStream;
use sparklet_engine::{Error, QueryOptions, SinkSpec};

use crate::dataframe::PyDataFrame;
use crate::errors::{query_failed, IntoPyResult, UserError};

/// The buffer behind `sparklet.testing.MemoryStream`.
#[pyclass(name = "MemoryStream", module = "sparklet._native", frozen)]
pub struct PyMemoryStream {
    pub inner: Arc<MemoryStream>,
}

#[pymethods]
impl PyMemoryStream {
    /// Append rows (any Arrow stream); returns the new offset.
    fn add_data(&self, py: Python<'_>, data: PyRecordBatchReader) -> PyResult<i64> {
        let reader = data.into_reader()?;
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| crate::errors::to_py(e.into()))?;
        let stream = Arc::clone(&self.inner);
        crate::run::engine(py, || stream.add_data(batches))
    }
}

/// A running query.
#[pyclass(name = "StreamingQuery", module = "sparklet._native", frozen)]
pub struct PyStreamingQuery {
    pub inner: StreamingQuery,
}

impl PyStreamingQuery {
    fn failed(&self, py: Python<'_>, e: &Error) -> PyErr {
        query_failed(py, self.inner.id(), self.inner.run_id(), e)
    }

    /// Wait in 100 ms slices so Ctrl-C (SIGINT) interrupts the wait.
    fn wait<F>(&self, py: Python<'_>, timeout_ms: Option<u64>, f: F) -> PyResult<bool>
    where
        F: Fn(&StreamingQuery, Duration) -> Result<bool, Arc<Error>> + Sync,
    {
        let q = self.inner.clone();
        crate::run::wait_interruptibly(
            py,
            timeout_ms,
            |slice| f(&q, slice),
            |py, e| self.failed(py, &e),
        )
    }
}

#[pymethods]
impl PyStreamingQuery {
    fn id(&self) -> String {
        self.inner.id().to_string()
    }

    fn run_id(&self) -> String {
        self.inner.run_id().to_string()
    }

    fn name(&self) -> Option<String> {
        self.inner.name().map(str::to_string)
    }

    fn is_active(&self) -> bool {
        self.inner.is_active()
    }

    fn status_json(&self) -> String {
        serde_json::to_string(&self.inner.status()).unwrap_or_default()
    }

    fn last_progress_json(&self) -> Option<String> {
        self.inner.last_progress().map(|p| p.to_json())
    }

    fn recent_progress_json(&self) -> Vec<String> {
        self.inner
            .recent_progress()
            .iter()
            .map(|p| p.to_json())
            .collect()
    }

    fn exception(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.inner
            .exception()
            .map(|e| self.failed(py, &e).into_value(py).into_any())
    }

    fn explain(&self) -> String {
        self.inner.explain()
    }

    /// Time (ns) spent writing offsets + commit for recent batches (for benchmarks).
    fn checkpoint_nanos(&self) -> Vec<u64> {
        self.inner.checkpoint_nanos()
    }

    /// In an `AvailableNow` run: (done, total, unit) of the data it was
    /// capped at (for progress bars).
    fn backlog(&self) -> Option<(u64, u64, &'static str)> {
        self.inner.backlog().map(|b| (b.done, b.total, b.unit))
    }

    /// The manual-clock time the query waits for to trigger next.
    fn waiting_until_ms(&self) -> Option<i64> {
        self.inner.waiting_until_ms()
    }

    /// Wall times (ns) of recent no-data triggers (for benchmarks).
    fn idle_trigger_nanos(&self) -> Vec<u64> {
        self.inner.idle_trigger_nanos()
    }

    #[pyo3(signature = (timeout_ms=None))]
    fn await_termination(&self, py: Python<'_>, timeout_ms: Option<u64>) -> PyResult<bool> {
        self.wait(py, timeout_ms, |q, slice| q.await_termination(Some(slice)))
    }

    #[pyo3(signature = (timeout_ms=None))]
    fn process_all_available(&self, py: Python<'_>, timeout_ms: Option<u64>) -> PyResult<bool> {
        let target = self.inner.idle_target();
        self.wait(py, timeout_ms, |q, slice| {
            q.process_all_available(target, slice)
        })
    }

    /// Stop the query, waiting up to `timeout_ms` for its thread (None: as
    /// long as it takes); whether it ended in time.
    #[pyo3(signature = (timeout_ms=None))]
    fn stop(&self, py: Python<'_>, timeout_ms: Option<u64>) -> PyResult<bool> {
        let q = self.inner.clone();
        crate::run::engine_infallible(py, || {
            q.stop_within(timeout_ms.map(std::time::Duration::from_millis))
        })
    }
}

/// Data files a streaming file sink at `path` has committed (`None`: no manifest).
#[pyfunction]
pub fn committed_files(py: Python<'_>, path: &str) -> PyResult<Option<Vec<String>>> {
    let root = sparklet_engine::sources::file::absolute(path).py()?;
    let files = crate::run::engine(py, || sparklet_engine::sinks::file::committed_files(&root))?;
    Ok(files.map(|f| f.into_iter().map(|p| p.display().to_string()).collect()))
}

/// Milliseconds in a Spark interval string (`"10 seconds"`).
#[pyfunction]
pub fn parse_interval_ms(text: &str) -> PyResult<i64> {
    sparklet_engine::engine::trigger::parse_duration_ms(text).py()
}

/// Milliseconds of a trigger's interval, parsed and refused as Spark's triggers do.
#[pyfunction]
pub fn trigger_interval_ms(text: &str) -> PyResult<i64> {
    sparklet_engine::engine::interval::trigger_interval_ms(text).py()
}

/// Render rows as `DataFrame.show` / the console sink print them.
#[pyfunction]
#[pyo3(signature = (data, num_rows, truncate, vertical=false, time_zone=None))]
pub fn show_string(
    data: PyRecordBatchReader,
    num_rows: usize,
    truncate: usize,
    vertical: bool,
    time_zone: Option<String>,
) -> PyResult<String> {
    let batch = sink_batch(data)?;
    sparklet_engine::sinks::console::render_show(
        &batch,
        num_rows,
        truncate,
        vertical,
        time_zone.as_deref(),
    )
    .py()
}

/// The cells `show_string` would print, row by row (for a notebook's table).
#[pyfunction]
#[pyo3(signature = (data, num_rows, truncate, time_zone=None))]
pub fn show_cells(
    data: PyRecordBatchReader,
    num_rows: usize,
    truncate: usize,
    time_zone: Option<String>,
) -> PyResult<Vec<Vec<String>>> {
    let batch = sink_batch(data)?;
    sparklet_engine::sinks::console::show_cells(&batch, num_rows, truncate, time_zone.as_deref())
        .py()
}

/// A pyarrow stream's batches, read whole.
fn sink_batch(data: PyRecordBatchReader) -> PyResult<SinkBatch> {
    let reader = data.into_reader()?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| crate::errors::to_py(e.into()))?;
    Ok(SinkBatch { schema, batches })
}

pub(crate) fn callback_error(py: Python<'_>, e: PyErr) -> Error {
    Error::UserCode(Box::new(UserError::new(py, e)), None)
}

/// An exception in a `foreachBatch` function, with Spark's condition.
fn foreach_batch_error(py: Python<'_>, e: PyErr) -> Error {
    crate::errors::user_code_error(py, e, &crate::errors::FOREACH_BATCH_ERROR)
}

/// The sink callback calling `func(table, batch_id)`.
fn rows_callback(func: Py<PyAny>) -> sparklet_engine::sinks::foreach_batch::BatchCallback {
    Box::new(move |batch_id: i64, data: SinkBatch| {
        crate::errors::attach_from_engine(|py| {
            let run = || -> PyResult<()> {
                let table = crate::arrow_table::to_pyarrow(py, data.batches, data.schema)?;
                func.call1(py, (table, batch_id))?;
                Ok(())
            };
            run().map_err(|e| foreach_batch_error(py, e))
        })
    })
}

/// `df.writeStream....start()`.
#[pyfunction]
#[pyo3(signature = (df, format, options, query_name, trigger, trigger_ms, output_mode, partition_by, foreach_batch=None, console_out=None, clock=None))]
#[allow(clippy::too_many_arguments)]
pub fn start_query(
    py: Python<'_>,
    df: PyRef<'_, PyDataFrame>,
    format: &str,
    options: HashMap<String, String>,
    query_name: Option<String>,
    trigger: &str,
    trigger_ms: u64,
    output_mode: &str,
    partition_by: Vec<String>,
    foreach_batch: Option<Py<PyAny>>,
    console_out: Option<Py<PyAny>>,
    clock: Option<PyRef<'_, PyManualClock>>,
) -> PyResult<PyStreamingQuery> {
    let options: HashMap<String, String> = options
        .into_iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    let trigger = Trigger::named(trigger, trigger_ms).py()?;
    let output_mode = OutputMode::parse(output_mode).py()?;
    let sink = match foreach_batch {
        Some(func) => {
            // a `foreach` writer (sparklet.sql.streaming.foreach) also hears
            // when each epoch ends: its `close`
            let end_epoch = func.getattr(py, "end_epoch").ok();
            let rows = rows_callback(func);
            match end_epoch {
                Some(end) => SinkSpec::Foreach(
                    rows,
                    Box::new(move |batch_id: i64| {
                        crate::errors::attach_from_engine(|py| {
                            end.call1(py, (batch_id,))
                                .map(|_| ())
                                .map_err(|e| callback_error(py, e))
                        })
                    }),
                ),
                None => SinkSpec::ForeachBatch(rows),
            }
        }
        None => {
            let console = console_out.map(|out| -> ConsoleWriter {
                Box::new(move |text: &str| {
                    crate::errors::attach_from_engine(|py| {
                        out.call1(py, (text,))
                            .map(|_| ())
                            .map_err(|e| callback_error(py, e))
                    })
                })
            });
            SinkSpec::named(format, &options, partition_by, console).py()?
        }
    };
    let session = Arc::clone(&df.session);
    let frame = df.df.clone();
    let checkpoint = options.get("checkpointlocation").cloned();
    let late = options.get("laterowstable").cloned();
    let async_progress =
        sparklet_engine::engine::async_progress::AsyncProgressOptions::from_writer_options(
            &options,
        )
        .py()?;
    let clock = match clock {
        Some(c) => sparklet_engine::engine::clock::Clock::Manual(Arc::clone(&c.inner)),
        None => sparklet_engine::engine::clock::Clock::System,
    };
    let q = crate::run::engine(py, || {
        let opts = QueryOptions {
            name: query_name,
            trigger,
            output_mode,
            checkpoint_location: checkpoint,
            late_rows_table: late,
            clock,
            async_progress,
        };
        session.start_query(frame, sink, opts)
    })?;
    Ok(PyStreamingQuery { inner: q })
}

/// A manual trigger clock (`sparklet.testing.ManualClock`).
#[pyclass(name = "ManualClock", module = "sparklet._native", frozen)]
pub struct PyManualClock {
    inner: Arc<sparklet_engine::engine::clock::ManualClock>,
}

#[pymethods]
impl PyManualClock {
    #[new]
    fn new(start_ms: i64) -> Self {
        PyManualClock {
            inner: Arc::new(sparklet_engine::engine::clock::ManualClock::new(start_ms)),
        }
    }

    fn advance(&self, ms: i64) {
        self.inner.advance(ms);
    }

    fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }
}
