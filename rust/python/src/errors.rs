//! Engine errors to Python exceptions. The exception classes are defined
//! once, in pure Python (`sparklet.errors`, mirroring `pyspark.errors`);
//! this maps each engine error to its class with Spark's condition.

use std::fmt;

use pyo3::prelude::*;
use sparklet_engine::Error;

pyo3::import_exception!(sparklet.errors, AnalysisException);
pyo3::import_exception!(sparklet.errors, ParseException);
pyo3::import_exception!(sparklet.errors, IllegalArgumentException);
pyo3::import_exception!(sparklet.errors, StreamingQueryException);
pyo3::import_exception!(sparklet.errors, SparkRuntimeException);
pyo3::import_exception!(sparklet.errors, PythonException);
pyo3::import_exception!(sparklet.errors, ArithmeticException);
pyo3::import_exception!(sparklet.errors, ArrayIndexOutOfBoundsException);
pyo3::import_exception!(sparklet.errors, DateTimeException);
pyo3::import_exception!(sparklet.errors, NumberFormatException);

/// Run `f` attached to the interpreter from an engine thread (a callback
/// into user code). Once the interpreter is shutting down nothing is run
/// and the query gets an error: attaching then would end the thread under
/// the engine's feet, or abort the process.
pub fn attach_from_engine<R>(f: impl FnOnce(Python<'_>) -> Result<R, Error>) -> Result<R, Error> {
    Python::try_attach(f).unwrap_or_else(|| {
        Err(Error::Internal(
            "the Python interpreter is shutting down: user code cannot be called".into(),
        ))
    })
}

/// A Python exception raised by user code, carried through the engine.
pub struct UserError {
    /// The original exception (becomes `__cause__`).
    pub err: PyErr,
    /// Its formatted traceback, for messages.
    pub text: String,
    /// Spark's condition for a failure of this kind of callback, if it has one.
    pub condition: Option<&'static UserCondition>,
}

/// Spark's error condition for an exception in one kind of user callback.
pub struct UserCondition {
    /// The condition, e.g. `FOREACH_BATCH_USER_FUNCTION_ERROR`.
    pub name: &'static str,
    /// Its message before the reason.
    pub message: &'static str,
    /// Its SQLSTATE.
    pub sql_state: &'static str,
}

/// An exception in a `foreachBatch` function.
pub const FOREACH_BATCH_ERROR: UserCondition = UserCondition {
    name: "FOREACH_BATCH_USER_FUNCTION_ERROR",
    message: "An error occurred in the user provided function in foreach batch sink. Reason:",
    sql_state: "39000",
};

/// An exception in Python code a query's operators call (UDFs,
/// `mapInPandas`, state functions): Spark's Python worker error.
pub const PYTHON_WORKER_ERROR: UserCondition = UserCondition {
    name: "PYTHON_EXCEPTION",
    message: "An exception was thrown from the Python worker:",
    sql_state: "38000",
};

/// An exception while a Python data source's reader is made and planned
/// (`reader`, `pushFilters`, `partitions`): Spark's analysis error.
pub const DATA_SOURCE_PLAN_ERROR: UserCondition = UserCondition {
    name: "PYTHON_DATA_SOURCE_ERROR",
    message: "Failed to initialize Python data source reader:",
    sql_state: "38000",
};

/// `err`, raised by Python code an operator called (Spark's `PYTHON_EXCEPTION`).
pub fn worker_error(py: Python<'_>, err: PyErr) -> Error {
    user_code_error(py, err, &PYTHON_WORKER_ERROR)
}

/// `err`, raised by a user callback of the `condition` kind, as the engine carries it.
pub fn user_code_error(py: Python<'_>, err: PyErr, condition: &'static UserCondition) -> Error {
    let mut user = UserError::new(py, err);
    user.condition = Some(condition);
    Error::UserCode(Box::new(user), Some(condition.name))
}

impl UserError {
    /// Capture `err` with its traceback text.
    pub fn new(py: Python<'_>, err: PyErr) -> Self {
        let text = format_exception(py, &err);
        UserError {
            err,
            text,
            condition: None,
        }
    }
}

impl fmt::Debug for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UserError({})", self.text)
    }
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.condition {
            Some(c) => write!(
                f,
                "[{}] {} {} SQLSTATE: {}",
                c.name, c.message, self.text, c.sql_state
            ),
            None => f.write_str(&self.text),
        }
    }
}

impl std::error::Error for UserError {}

fn format_exception(py: Python<'_>, err: &PyErr) -> String {
    let formatted = py.import("traceback").and_then(|tb| {
        let lines = tb.call_method1(
            "format_exception",
            (err.get_type(py), err.value(py), err.traceback(py)),
        )?;
        let joined: String = ""
            .into_pyobject(py)?
            .call_method1("join", (lines,))?
            .extract()?;
        Ok::<_, PyErr>(joined)
    });
    formatted.unwrap_or_else(|_| err.to_string())
}

/// Convert an engine error into the matching Python exception.
pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::Analysis { condition, message } if condition == "PARSE_SYNTAX_ERROR" => {
            ParseException::new_err((format!("[{condition}] {message}"), condition))
        }
        Error::Analysis { condition, message } => {
            AnalysisException::new_err((format!("[{condition}] {message}"), condition))
        }
        Error::IllegalArgument { condition, message } => {
            IllegalArgumentException::new_err((message, condition))
        }
        Error::UserCode(inner, _) => match inner.downcast::<UserError>() {
            Ok(user) => match user.condition {
                // as PySpark raises it, the user's exception its cause
                Some(c) if c.name == PYTHON_WORKER_ERROR.name => Python::attach(|py| {
                    let exc =
                        PythonException::new_err((format!("{}\n{}", c.message, user.text), c.name));
                    exc.set_cause(py, Some(user.err));
                    exc
                }),
                Some(c) if c.name == DATA_SOURCE_PLAN_ERROR.name => Python::attach(|py| {
                    let message = format!("[{}] {} {}", c.name, c.message, user.text);
                    let exc = AnalysisException::new_err((message, c.name));
                    exc.set_cause(py, Some(user.err));
                    exc
                }),
                _ => user.err,
            },
            Err(other) => SparkRuntimeException::new_err((other.to_string(),)),
        },
        Error::Checkpoint { condition, message } => {
            StreamingQueryException::new_err((format!("[{condition}] {message}"), condition))
        }
        Error::Input { condition, message } => runtime_error(condition, message),
        // every kind named: a new one must be given its exception here
        e @ Error::Io { .. } => SparkRuntimeException::new_err((e.to_string(),)),
        Error::Execution(e) => SparkRuntimeException::new_err((e.to_string(),)),
        Error::Internal(message) => SparkRuntimeException::new_err((
            format!("[INTERNAL_ERROR] internal error: {message}"),
            "INTERNAL_ERROR",
        )),
    }
}

/// A runtime error with Spark's condition, as the exception class PySpark
/// raises for it (Spark's `SparkArithmeticException` is PySpark's
/// `ArithmeticException`, and so on).
fn runtime_error(condition: String, message: String) -> PyErr {
    let text = format!("[{condition}] {message}");
    let date_or_time = message.contains("to \"DATE\"") || message.contains("to \"TIMESTAMP");
    match condition.split('.').next().unwrap_or_default() {
        "DIVIDE_BY_ZERO"
        | "REMAINDER_BY_ZERO"
        | "ARITHMETIC_OVERFLOW"
        | "CAST_OVERFLOW"
        | "NUMERIC_VALUE_OUT_OF_RANGE"
        | "INTERVAL_ARITHMETIC_OVERFLOW" => ArithmeticException::new_err((text, condition)),
        "INVALID_ARRAY_INDEX" | "INVALID_ARRAY_INDEX_IN_ELEMENT_AT" => {
            ArrayIndexOutOfBoundsException::new_err((text, condition))
        }
        "DATETIME_FIELD_OUT_OF_BOUNDS" | "CANNOT_PARSE_TIMESTAMP" => {
            DateTimeException::new_err((text, condition))
        }
        "CAST_INVALID_INPUT" if date_or_time => DateTimeException::new_err((text, condition)),
        "CAST_INVALID_INPUT" if !message.contains("to \"BOOLEAN\"") => {
            NumberFormatException::new_err((text, condition))
        }
        _ => SparkRuntimeException::new_err((text, condition)),
    }
}

/// The Python error for a query that failed with `err`: a
/// `StreamingQueryException` (Spark's `STREAM_FAILED`) whose `__cause__` is
/// the user's own exception when user code failed.
pub fn query_failed(py: Python<'_>, id: &str, run_id: &str, err: &Error) -> PyErr {
    let detail = match err {
        Error::UserCode(inner, _) => inner.to_string(),
        other => other.to_string(),
    };
    let message = format!(
        "[STREAM_FAILED] Query [id = {id}, runId = {run_id}] terminated with exception: {detail}"
    );
    let params: std::collections::HashMap<&str, String> = [
        ("id", id.to_string()),
        ("runId", run_id.to_string()),
        ("message", detail),
    ]
    .into();
    let exc = StreamingQueryException::new_err((message, "STREAM_FAILED", params));
    if let Error::UserCode(inner, _) = err {
        if let Some(user) = inner.downcast_ref::<UserError>() {
            exc.set_cause(py, Some(user.err.clone_ref(py)));
        }
    }
    exc
}

/// `Result` extension: engine errors into Python exceptions.
pub trait IntoPyResult<T> {
    /// Convert the error side.
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
