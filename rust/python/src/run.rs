//! Engine work from Python, in one place: the GIL released while it runs,
//! a panic caught (a bug must reach Python as sparklet's exception, not as
//! pyo3's `PanicException`, a `BaseException` that `except Exception`
//! misses), the engine's error converted; and waits that Ctrl-C ends.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use sparklet_engine::Error;

use crate::errors::IntoPyResult;

/// Run `f` with the GIL released; its error (or panic) as a Python exception.
pub fn engine<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    py.detach(|| caught(f)).py()
}

/// Run `f` with the GIL released, for work that cannot fail but must not
/// panic into Python either.
pub fn engine_infallible<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    engine(py, || Ok(f()))
}

/// `f`'s result, a panic in it as an internal error.
fn caught<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Error::Internal(format!(
            "sparklet panicked (a bug; the session stays usable): {}",
            sparklet_engine::runtime::panic_text(p.as_ref())
        )))
    })
}

/// Wait until `done(slice)` says so or `timeout_ms` passes (None: no end),
/// in slices of at most 100 ms with the GIL released, checking for Ctrl-C
/// (SIGINT) between them. Returns whether it finished; `failed` turns its
/// error into the exception to raise.
pub fn wait_interruptibly<E: Send>(
    py: Python<'_>,
    timeout_ms: Option<u64>,
    done: impl Fn(Duration) -> Result<bool, E> + Sync,
    failed: impl Fn(Python<'_>, E) -> PyErr,
) -> PyResult<bool> {
    let deadline = timeout_ms.map(|t| Instant::now() + Duration::from_millis(t));
    loop {
        let slice = match deadline {
            Some(d) => d
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100)),
            None => Duration::from_millis(100),
        };
        let step = py.detach(|| catch_unwind(AssertUnwindSafe(|| done(slice))));
        match step {
            Ok(Ok(true)) => return Ok(true),
            Ok(Ok(false)) => {}
            Ok(Err(e)) => return Err(failed(py, e)),
            Err(p) => {
                return Err(crate::errors::to_py(Error::Internal(format!(
                    "sparklet panicked while waiting (a bug): {}",
                    sparklet_engine::runtime::panic_text(p.as_ref())
                ))))
            }
        }
        py.check_signals()?;
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(false);
        }
    }
}
