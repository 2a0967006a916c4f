//! Delta table operations for `sparklet.delta.tables.DeltaTable` (and the
//! SQL statements on Delta tables): merge, update, delete, history,
//! vacuum, optimize, detail, restore. JSON answers become Python values in
//! the Python layer.

use pyo3::prelude::*;
use sparklet_engine::delta::ops::{self, Clause, ClauseKind};
use sparklet_engine::runtime;

use crate::dataframe::PyDataFrame;
use crate::expr::PyExpr;
use crate::session::PySession;

type PyAssignments<'py> = Vec<(String, PyRef<'py, PyExpr>)>;

fn assignments(set: PyAssignments<'_>) -> Vec<(String, datafusion::logical_expr::Expr)> {
    set.into_iter().map(|(c, e)| (c, e.expr.clone())).collect()
}

/// `merge(source, on).when...().execute()`: (affected, updated, deleted, inserted).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn delta_merge(
    py: Python<'_>,
    source: PyRef<'_, PyDataFrame>,
    path: &str,
    target_alias: &str,
    source_alias: &str,
    on: PyRef<'_, PyExpr>,
    clauses: Vec<(String, Option<PyRef<'_, PyExpr>>, PyAssignments<'_>)>,
    merge_schema: bool,
) -> PyResult<(u64, u64, u64, u64)> {
    let clauses = clauses
        .into_iter()
        .map(|(kind, condition, set)| {
            Ok(Clause {
                kind: ClauseKind::parse(&kind)?,
                condition: condition.map(|c| c.expr.clone()),
                set: assignments(set),
            })
        })
        .collect::<Result<Vec<_>, sparklet_engine::Error>>()
        .map_err(crate::errors::to_py)?;
    let session = std::sync::Arc::clone(&source.session);
    let frame = session.at_current_conf(source.df.clone());
    let on = on.expr.clone();
    crate::run::engine(py, || {
        let state = session.state();
        let c = runtime::block_on(ops::merge(
            &state,
            path,
            frame,
            target_alias,
            source_alias,
            on,
            clauses,
            merge_schema,
        ))??;
        Ok((c.affected, c.updated, c.deleted, c.inserted))
    })
}

/// `deltaTable.update(condition, set)`: rows updated.
#[pyfunction]
pub fn delta_update(
    py: Python<'_>,
    session: PyRef<'_, PySession>,
    path: &str,
    condition: Option<PyRef<'_, PyExpr>>,
    set: PyAssignments<'_>,
) -> PyResult<u64> {
    let (condition, set) = (condition.map(|c| c.expr.clone()), assignments(set));
    let state = session.inner.state();
    crate::run::engine(py, || {
        runtime::block_on(ops::update(&state, path, condition, set))?
    })
}

/// `deltaTable.delete(condition)`: rows deleted.
#[pyfunction]
pub fn delta_delete(
    py: Python<'_>,
    session: PyRef<'_, PySession>,
    path: &str,
    condition: Option<PyRef<'_, PyExpr>>,
) -> PyResult<u64> {
    let condition = condition.map(|c| c.expr.clone());
    let state = session.inner.state();
    crate::run::engine(py, || {
        runtime::block_on(ops::delete(&state, path, condition))?
    })
}

/// `deltaTable.history(limit)`: each commit as JSON, newest first.
#[pyfunction]
#[pyo3(signature = (path, limit = None))]
pub fn delta_history(py: Python<'_>, path: &str, limit: Option<usize>) -> PyResult<Vec<String>> {
    crate::run::engine(py, || {
        let rows = runtime::block_on(ops::history(path, limit))??;
        Ok(rows.iter().map(|r| r.to_string()).collect())
    })
}

/// `deltaTable.vacuum(retentionHours)`: the files deleted.
#[pyfunction]
#[pyo3(signature = (path, retention_hours = None, enforce_retention = true, dry_run = false))]
pub fn delta_vacuum(
    py: Python<'_>,
    path: &str,
    retention_hours: Option<f64>,
    enforce_retention: bool,
    dry_run: bool,
) -> PyResult<Vec<String>> {
    crate::run::engine(py, || {
        runtime::block_on(ops::vacuum(
            path,
            retention_hours,
            enforce_retention,
            dry_run,
        ))?
    })
}

/// `optimize().where(...).executeCompaction()` / `executeZOrderBy(cols)`:
/// the metrics as JSON.
#[pyfunction]
pub fn delta_optimize(
    py: Python<'_>,
    path: &str,
    filters: Vec<(String, String, String)>,
    zorder: Vec<String>,
) -> PyResult<String> {
    crate::run::engine(py, || {
        runtime::block_on(ops::optimize(path, &filters, zorder))?.map(|m| m.to_string())
    })
}

/// `deltaTable.detail()` as JSON.
#[pyfunction]
pub fn delta_detail(py: Python<'_>, path: &str) -> PyResult<String> {
    crate::run::engine(py, || {
        runtime::block_on(ops::detail(path))?.map(|m| m.to_string())
    })
}

/// `DeltaTable.isDeltaTable(spark, path)`.
#[pyfunction]
pub fn delta_is_table(py: Python<'_>, path: &str) -> PyResult<bool> {
    crate::run::engine(py, || runtime::block_on(ops::is_delta_table(path)))
}

/// `restoreToVersion(v)` / `restoreToTimestamp(ts)`: the metrics as JSON.
#[pyfunction]
#[pyo3(signature = (path, version = None, timestamp = None))]
pub fn delta_restore(
    py: Python<'_>,
    path: &str,
    version: Option<u64>,
    timestamp: Option<String>,
) -> PyResult<String> {
    crate::run::engine(py, || {
        runtime::block_on(ops::restore(path, version, timestamp.as_deref()))?.map(|m| m.to_string())
    })
}
