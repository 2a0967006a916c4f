//! The process-wide tokio runtime that runs DataFusion plans.
//!
//! One multi-thread runtime serves every session and query: queries run their
//! loop on their own OS thread and `block_on` this runtime for plan execution.

use std::sync::OnceLock;

use tokio::runtime::Runtime;

use crate::error::{Error, Result};

static RUNTIME: OnceLock<(u32, Runtime)> = OnceLock::new();

/// The shared runtime. Errors (instead of hanging) when used in a process
/// forked after the runtime started, since tokio's threads do not survive
/// `fork`.
pub fn runtime() -> Result<&'static Runtime> {
    let (pid, rt) = RUNTIME.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .thread_name("sparklet-worker")
            .enable_all()
            .build()
            .expect("failed to start the tokio runtime");
        (std::process::id(), rt)
    });
    if *pid != std::process::id() {
        return Err(Error::Internal(
            "sparklet cannot be used in a process forked after it started; \
             create the SparkSession in the child process instead"
                .into(),
        ));
    }
    Ok(rt)
}

/// Run a future to completion on the shared runtime, from a non-runtime thread.
pub fn block_on<F: std::future::Future>(fut: F) -> Result<F::Output> {
    Ok(runtime()?.block_on(fut))
}
