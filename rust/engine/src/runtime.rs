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

/// A result being computed on the runtime's blocking threads: work that
/// waits on the disk (fsyncs) beside the caller's own. The threads live as
/// long as the process, and so do their warm allocator pages.
pub struct Blocking<R>(std::sync::mpsc::Receiver<Result<R>>);

/// Start `job` on the runtime's blocking threads.
pub fn on_blocking_thread<R: Send + 'static>(
    job: impl FnOnce() -> Result<R> + Send + 'static,
) -> Result<Blocking<R>> {
    let (tx, rx) = std::sync::mpsc::channel();
    runtime()?.spawn_blocking(move || {
        // a panic is the job's error, with its message
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
            .unwrap_or_else(|p| Err(Error::Internal(panic_message(p.as_ref()))));
        let _ = tx.send(result);
    });
    Ok(Blocking(rx))
}

/// What a caught panic of the engine says.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    format!("the query thread panicked: {}", panic_text(p))
}

/// A panic's own message.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

std::thread_local! {
    /// Set while [`catch_quietly`] runs on this thread.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

static QUIET_HOOK: std::sync::Once = std::sync::Once::new();

/// Run `f` of another crate that is known to panic on some damaged input
/// (arrow's IPC reader, on a buffer past the end of a file's body): its
/// panic is caught, without the panic hook's report, and returned as its
/// message, for the caller to turn into an error naming that input.
pub fn catch_quietly<R>(f: impl FnOnce() -> R) -> std::result::Result<R, String> {
    QUIET_HOOK.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                report(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|p| panic_text(p.as_ref()))
}

impl<R> Blocking<R> {
    /// The job's result (a panic's message as an error); a job that ended
    /// without a result (its runtime shut down): an error naming `what`,
    /// not a hang.
    pub fn wait(self, what: &str) -> Result<R> {
        self.0
            .recv()
            .unwrap_or_else(|_| Err(Error::Internal(format!("{what} failed to finish"))))
    }
}

static STATE_POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();

/// Threads for a batch's work split over state partitions (routing keys,
/// merging, taking closed windows): one per core, kept for the process so
/// that their allocator heaps stay warm (threads spawned per batch faulted
/// in fresh pages, a tenth of a sliding-window query's time).
fn state_pool() -> Result<&'static rayon::ThreadPool> {
    runtime()?; // the fork check
    if let Some(pool) = STATE_POOL.get() {
        return Ok(pool);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("sparklet-state-{i}"))
        .build()
        .map_err(|e| Error::Internal(format!("could not start the state threads: {e}")))?;
    Ok(STATE_POOL.get_or_init(|| pool))
}

/// `job` on each of `items` side by side, results in the items' order; the
/// first error wins, and a panic is an error. For work that computes: the
/// pool has a thread per core. Work that waits on the disk (a commit's
/// fsync) goes to the runtime's blocking threads instead
/// (`PartitionedState::each_in_parallel`), where waits overlap.
pub fn parallel_map<T: Send, R: Send>(
    items: Vec<T>,
    job: impl Fn(T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    use rayon::prelude::*;
    state_pool()?
        .install(|| {
            items
                .into_par_iter()
                .map(|item| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(item)))
                        .unwrap_or_else(|_| Err(Error::Internal("a parallel task panicked".into())))
                })
                .collect::<Vec<_>>()
        })
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_results_keep_their_order_and_a_panic_is_an_error() -> Result<()> {
        let squares = parallel_map((0..100u64).collect(), |i| Ok(i * i))?;
        assert_eq!(squares, (0..100u64).map(|i| i * i).collect::<Vec<_>>());
        let failed = parallel_map(vec![1, 2, 3], |i| {
            if i == 2 {
                panic!("a bug in a partition's work");
            }
            Ok(i)
        });
        assert!(matches!(failed, Err(Error::Internal(m)) if m.contains("panicked")));
        let refused = parallel_map(vec![1, 2], |i| {
            if i == 2 {
                Err(Error::Internal("the second failed".into()))
            } else {
                Ok(i)
            }
        });
        assert!(matches!(refused, Err(Error::Internal(m)) if m == "the second failed"));
        Ok(())
    }

    #[test]
    fn a_quietly_caught_panic_is_its_message() {
        assert_eq!(catch_quietly(|| 5), Ok(5));
        let caught = catch_quietly(|| -> i32 { panic!("slice offset past the end") });
        assert_eq!(caught, Err("slice offset past the end".to_string()));
        // outside it, panics are caught by whoever catches them, as before
        assert!(std::panic::catch_unwind(|| panic!("loud")).is_err());
    }

    #[test]
    fn a_blocking_job_hands_back_its_result_and_a_panic_is_an_error() -> Result<()> {
        assert_eq!(on_blocking_thread(|| Ok(7))?.wait("a sum")?, 7);
        let refused = on_blocking_thread(|| -> Result<()> { Err(Error::Internal("full".into())) })?;
        assert!(matches!(refused.wait("a write"), Err(Error::Internal(m)) if m == "full"));
        let failed = on_blocking_thread(|| -> Result<()> { panic!("a bug in the job") })?;
        // the panic's own message, not a hang or a bare "failed"
        assert!(
            matches!(failed.wait("a commit"), Err(Error::Internal(m)) if m.contains("a bug in the job"))
        );
        Ok(())
    }
}
