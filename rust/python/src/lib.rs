//! `sparklet._native`: pyo3 bindings over `sparklet-engine`. Conversion
//! only; no engine logic lives here.

mod arrow_table;
mod dataframe;
mod errors;
mod expr;
mod session;
mod streaming;

use pyo3::prelude::*;

/// The engine allocates and frees many small buffers per row of state;
/// mimalloc handles that pattern far better than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // engine `log` records reach Python's `logging` under "sparklet"
    let _ = pyo3_log::try_init();
    m.add_class::<session::PySession>()?;
    m.add_class::<dataframe::PyDataFrame>()?;
    m.add_class::<expr::PyExpr>()?;
    m.add_class::<streaming::PyStreamingQuery>()?;
    m.add_class::<streaming::PyMemoryStream>()?;
    m.add_function(wrap_pyfunction!(expr::col, m)?)?;
    m.add_function(wrap_pyfunction!(expr::lit_array, m)?)?;
    m.add_function(wrap_pyfunction!(expr::null_of, m)?)?;
    m.add_function(wrap_pyfunction!(expr::lit_plain, m)?)?;
    m.add_function(wrap_pyfunction!(expr::call, m)?)?;
    m.add_function(wrap_pyfunction!(expr::case_when, m)?)?;
    m.add_function(wrap_pyfunction!(expr::sql_expr, m)?)?;
    m.add_function(wrap_pyfunction!(expr::explode, m)?)?;
    m.add_function(wrap_pyfunction!(expr::from_json, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::start_query, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::show_string, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::parse_interval_ms, m)?)?;
    m.add_function(wrap_pyfunction!(streaming::committed_files, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
