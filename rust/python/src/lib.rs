//! `sparklet._native`: pyo3 bindings over `sparklet-engine`. Conversion
//! only; no engine logic lives here.

mod arrow_table;
mod dataframe;
mod datasource;
mod delta;
mod errors;
mod expr;
mod group_state;
mod run;
mod session;
mod state_store;
mod streaming;
mod udf;

use pyo3::prelude::*;

/// The engine allocates and frees many small buffers per row of state;
/// mimalloc handles that pattern far better than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its index in v3's `mi_option_e`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// mimalloc's `allow_thp` option (its index in v3's `mi_option_e`).
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// Keep freed memory for 10 s before handing it back to the OS (mimalloc's
/// default is 1 s): micro-batches free and reallocate the same amounts every
/// few hundred ms, and memory handed back comes back as fresh pages the
/// kernel must zero (half of a join benchmark's page faults).
///
/// And no transparent huge pages (mimalloc v3 asks for them): a fault on a
/// huge page zeroes 2 MiB, and where the kernel compacts memory to find one
/// (THP `defrag=madvise`) the fault stalls. Nexmark q4 (10M events, a batch
/// join) ran 0.63-1.25 s with them, half of it in the kernel zeroing pages,
/// and 0.65 s every time without (peak RSS 960 -> 740 MiB); q5 1.7 s with
/// 510 MiB in huge pages, 1.0-1.1 s without.
///
/// Defaults only: a user's `MIMALLOC_PURGE_DELAY` or `MIMALLOC_ALLOW_THP`
/// wins.
#[allow(unsafe_code)] // an FFI call: mimalloc has no safe wrapper for options
extern "C" fn allocator_defaults() {
    // SAFETY: sets plain integer options, allocating nothing
    unsafe {
        libmimalloc_sys::mi_option_set_default(MI_OPTION_PURGE_DELAY, 10_000);
        libmimalloc_sys::mi_option_set_default(MI_OPTION_ALLOW_THP, 0);
    }
}

/// [`allocator_defaults`] as the extension loads, before its first
/// allocation: mimalloc reserves its first arena (and asks for huge pages
/// on it) at the first allocation, with the options as they are then. Set
/// in the module's init function they came after pyo3's first allocations,
/// and that arena kept huge pages (default runs showed few only because
/// purges broke them up; with `MIMALLOC_PURGE_DELAY` set, q5 had 510 MiB).
#[allow(unsafe_code)] // a loader section: runs before any Rust code of the extension
#[used]
#[cfg_attr(target_os = "linux", link_section = ".init_array")]
#[cfg_attr(target_os = "macos", link_section = "__DATA,__mod_init_func")]
static ALLOCATOR_DEFAULTS_AT_LOAD: extern "C" fn() = allocator_defaults;

/// Forgets the Python log levels the Rust side cached (after a change).
static LOG_LEVELS: std::sync::OnceLock<pyo3_log::ResetHandle> = std::sync::OnceLock::new();

/// Set once the interpreter starts to exit (`sparklet.sql.session`'s
/// atexit hook): from then on engine threads log nothing to Python.
static EXITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The interpreter is exiting: engine log records no longer go to Python
/// (attaching an engine thread to an interpreter being torn down aborts the
/// process).
#[pyfunction]
fn interpreter_exiting() {
    EXITING.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// pyo3-log's logger, until the interpreter exits.
struct UntilExit(pyo3_log::Logger);

/// The Python logger name (under `sparklet.`) of a record's target: the
/// engine crate's modules as `engine.*` (`sparklet.engine.query`), not
/// `sparklet.sparklet_engine.*`; other crates' as they are.
fn python_target(target: &str) -> std::borrow::Cow<'_, str> {
    match target.strip_prefix("sparklet_engine") {
        Some(rest) if rest.is_empty() || rest.starts_with("::") => format!("engine{rest}").into(),
        _ => target.into(),
    }
}

impl log::Log for UntilExit {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        let target = python_target(metadata.target());
        let renamed = log::Metadata::builder()
            .level(metadata.level())
            .target(&target)
            .build();
        !EXITING.load(std::sync::atomic::Ordering::Relaxed) && self.0.enabled(&renamed)
    }

    fn log(&self, record: &log::Record<'_>) {
        if !EXITING.load(std::sync::atomic::Ordering::Relaxed) {
            let target = python_target(record.target());
            self.0.log(
                &log::Record::builder()
                    .args(*record.args())
                    .level(record.level())
                    .target(&target)
                    .module_path(record.module_path())
                    .file(record.file())
                    .line(record.line())
                    .build(),
            );
        }
    }

    fn flush(&self) {
        self.0.flush();
    }
}

/// Make the engine's logging see Python's current logger levels (called by
/// `setLogLevel`; levels are cached on the Rust side for speed).
#[pyfunction]
fn reset_log_levels() {
    if let Some(handle) = LOG_LEVELS.get() {
        handle.reset();
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // where the loader section is not used (other systems): as early as here
    allocator_defaults();
    // engine `log` records reach Python's `logging` under "sparklet"
    // (`sparklet.engine.state.files`, `sparklet.engine.query`, ...), so configuring or
    // `setLogLevel` on "sparklet" covers them
    if let Ok(logger) = pyo3_log::Logger::new(m.py(), pyo3_log::Caching::LoggersAndLevels) {
        let logger = logger.set_prefix("sparklet");
        let handle = logger.reset_handle();
        if log::set_boxed_logger(Box::new(UntilExit(logger))).is_ok() {
            log::set_max_level(log::LevelFilter::Debug); // pyo3-log's default
            let _ = LOG_LEVELS.set(handle);
        }
    }
    m.add_class::<session::PySession>()?;
    m.add_class::<session::PyEventReceiver>()?;
    m.add_class::<dataframe::PyDataFrame>()?;
    m.add_class::<expr::PyExpr>()?;
    m.add_class::<streaming::PyStreamingQuery>()?;
    m.add_class::<streaming::PyManualClock>()?;
    m.add_class::<streaming::PyMemoryStream>()?;
    m.add_class::<state_store::PyByteStateStore>()?;
    m.add_function(wrap_pyfunction!(state_store::open_state_store, m)?)?;
    m.add_function(wrap_pyfunction!(expr::col, m)?)?;
    for f in [
        wrap_pyfunction!(delta::delta_merge, m)?,
        wrap_pyfunction!(delta::delta_update, m)?,
        wrap_pyfunction!(delta::delta_delete, m)?,
        wrap_pyfunction!(delta::delta_history, m)?,
        wrap_pyfunction!(delta::delta_vacuum, m)?,
        wrap_pyfunction!(delta::delta_optimize, m)?,
        wrap_pyfunction!(delta::delta_detail, m)?,
        wrap_pyfunction!(delta::delta_is_table, m)?,
        wrap_pyfunction!(delta::delta_restore, m)?,
        wrap_pyfunction!(datasource::read_python_source, m)?,
        wrap_pyfunction!(datasource::read_stream_python_source, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_function(wrap_pyfunction!(expr::lit_array, m)?)?;
    m.add_function(wrap_pyfunction!(expr::null_of, m)?)?;
    m.add_function(wrap_pyfunction!(expr::lit_plain, m)?)?;
    m.add_function(wrap_pyfunction!(expr::call, m)?)?;
    m.add_function(wrap_pyfunction!(expr::lambda_variable, m)?)?;
    m.add_function(wrap_pyfunction!(expr::higher_order, m)?)?;
    m.add_function(wrap_pyfunction!(expr::stack, m)?)?;
    m.add_function(wrap_pyfunction!(expr::multi_alias, m)?)?;
    m.add_function(wrap_pyfunction!(expr::case_when, m)?)?;
    m.add_function(wrap_pyfunction!(expr::function_implementation, m)?)?;
    m.add_function(wrap_pyfunction!(expr::sql_expr, m)?)?;
    m.add_function(wrap_pyfunction!(expr::explode, m)?)?;
    m.add_function(wrap_pyfunction!(expr::from_json, m)?)?;
    m.add_function(wrap_pyfunction!(interpreter_exiting, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::start_query, m)?)?;
    m.add_function(wrap_pyfunction!(udf::udf_call, m)?)?;
    m.add_function(wrap_pyfunction!(udf::udaf_call, m)?)?;
    m.add_function(wrap_pyfunction!(udf::register_udf, m)?)?;
    m.add_function(wrap_pyfunction!(reset_log_levels, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::show_string, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::show_cells, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::parse_interval_ms, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::trigger_interval_ms, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::committed_files, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
