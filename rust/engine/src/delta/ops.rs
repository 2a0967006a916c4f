//! Operations on a Delta table behind delta-spark's `DeltaTable` API and
//! SQL: `MERGE`, `UPDATE`, `DELETE`, history, vacuum, optimize, detail,
//! restore. Each is `deltalake-core`'s, run with the session's DataFusion
//! state; conditions and values are the session's expressions, resolved
//! here against the table (and the merge's source) as a DataFrame would
//! resolve them.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::catalog::Session as CatalogSession;
use datafusion::execution::SessionState;
use datafusion::logical_expr::{Expr, JoinType};
use datafusion::prelude::DataFrame;
use deltalake_core::kernel::Action;
use deltalake_core::DeltaTable;

use super::{delta_error, open};
use crate::error::{Error, Result};

/// What a `whenMatched...`/`whenNotMatched...` clause does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClauseKind {
    /// `whenMatchedUpdate`.
    MatchedUpdate,
    /// `whenMatchedDelete`.
    MatchedDelete,
    /// `whenNotMatchedInsert`.
    NotMatchedInsert,
    /// `whenNotMatchedBySourceUpdate`.
    NotMatchedBySourceUpdate,
    /// `whenNotMatchedBySourceDelete`.
    NotMatchedBySourceDelete,
}

impl ClauseKind {
    /// The clause named as the Python builder sends it.
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "matched_update" => ClauseKind::MatchedUpdate,
            "matched_delete" => ClauseKind::MatchedDelete,
            "not_matched_insert" => ClauseKind::NotMatchedInsert,
            "not_matched_by_source_update" => ClauseKind::NotMatchedBySourceUpdate,
            "not_matched_by_source_delete" => ClauseKind::NotMatchedBySourceDelete,
            other => return Err(Error::Internal(format!("no merge clause `{other}`"))),
        })
    }
}

/// One clause of a merge: its kind, its condition, its assignments
/// (target column, value).
#[derive(Debug, Clone)]
pub struct Clause {
    /// What the clause does.
    pub kind: ClauseKind,
    /// Only rows where this holds.
    pub condition: Option<Expr>,
    /// `set`/`values`: target column and its new value.
    pub set: Vec<(String, Expr)>,
}

/// A merge's row counts, as delta-spark's `execute()` reports them.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergeCounts {
    /// Rows updated, deleted or inserted.
    pub affected: u64,
    /// Target rows updated.
    pub updated: u64,
    /// Target rows deleted.
    pub deleted: u64,
    /// Rows inserted.
    pub inserted: u64,
}

/// The table at `path` as a DataFrame of `state`'s session, and the table.
async fn table_frame(state: &SessionState, path: &str) -> Result<(DeltaTable, DataFrame)> {
    let table = open(path, &HashMap::new()).await?;
    table
        .update_datafusion_session(state)
        .map_err(|e| delta_error(path, e))?;
    let provider = table
        .table_provider()
        .await
        .map_err(|e| Error::analysis("DELTA_ERROR", format!("Delta table `{path}`: {e}")))?;
    let frame = DataFrame::new(
        state.clone(),
        datafusion::logical_expr::LogicalPlanBuilder::scan(
            "target",
            datafusion::datasource::provider_as_source(provider),
            None,
        )
        .and_then(|b| b.build())
        .map_err(Error::from_planning)?,
    );
    Ok((table, frame))
}

/// `e` with its columns unqualified: update and delete name the table's
/// columns alone.
fn unqualified(e: Expr) -> Result<Expr> {
    Ok(datafusion::logical_expr::expr_rewriter::unnormalize_col(e))
}

fn session_of(state: &SessionState) -> Arc<dyn CatalogSession> {
    Arc::new(state.clone())
}

/// `deltaTable.alias(t).merge(source.alias(s), on).when...().execute()`.
#[allow(clippy::too_many_arguments)]
pub async fn merge(
    state: &SessionState,
    path: &str,
    source: DataFrame,
    target_alias: &str,
    source_alias: &str,
    on: Expr,
    clauses: Vec<Clause>,
    merge_schema: bool,
) -> Result<MergeCounts> {
    let (table, target) = table_frame(state, path).await?;
    // both sides' columns, qualified by their aliases: what the expressions resolve against
    let both = target
        .alias(target_alias)
        .and_then(|t| {
            t.join_on(
                source.clone().alias(source_alias)?,
                JoinType::Inner,
                std::iter::empty::<Expr>(),
            )
        })
        .map_err(Error::from_planning)?;
    let resolve = |e: Expr| crate::dataframe::resolve(&both, e);
    let mut builder = table
        .merge(source, resolve(on)?)
        .with_target_alias(target_alias)
        .with_source_alias(source_alias)
        .with_merge_schema(merge_schema)
        .with_session_state(session_of(state));
    for clause in clauses {
        let condition = clause.condition.map(resolve).transpose()?;
        let set = clause
            .set
            .into_iter()
            .map(|(c, e)| Ok((c, resolve(e)?)))
            .collect::<Result<Vec<_>>>()?;
        let done = match clause.kind {
            ClauseKind::MatchedUpdate => builder.when_matched_update(|mut u| {
                if let Some(c) = condition {
                    u = u.predicate(c);
                }
                set.into_iter().fold(u, |u, (c, e)| u.update(c, e))
            }),
            ClauseKind::NotMatchedBySourceUpdate => {
                builder.when_not_matched_by_source_update(|mut u| {
                    if let Some(c) = condition {
                        u = u.predicate(c);
                    }
                    set.into_iter().fold(u, |u, (c, e)| u.update(c, e))
                })
            }
            ClauseKind::NotMatchedInsert => builder.when_not_matched_insert(|mut i| {
                if let Some(c) = condition {
                    i = i.predicate(c);
                }
                set.into_iter().fold(i, |i, (c, e)| i.set(c, e))
            }),
            ClauseKind::MatchedDelete => builder.when_matched_delete(|d| match condition {
                Some(c) => d.predicate(c),
                None => d,
            }),
            ClauseKind::NotMatchedBySourceDelete => {
                builder.when_not_matched_by_source_delete(|d| match condition {
                    Some(c) => d.predicate(c),
                    None => d,
                })
            }
        };
        builder = done.map_err(|e| delta_error(path, e))?;
    }
    let (_, m) = builder.await.map_err(|e| delta_error(path, e))?;
    let (updated, deleted, inserted) = (
        m.num_target_rows_updated as u64,
        m.num_target_rows_deleted as u64,
        m.num_target_rows_inserted as u64,
    );
    Ok(MergeCounts {
        affected: updated + deleted + inserted,
        updated,
        deleted,
        inserted,
    })
}

/// `deltaTable.update(condition, set)`: the number of rows updated.
pub async fn update(
    state: &SessionState,
    path: &str,
    condition: Option<Expr>,
    set: Vec<(String, Expr)>,
) -> Result<u64> {
    let (table, frame) = table_frame(state, path).await?;
    let resolve = |e: Expr| unqualified(crate::dataframe::resolve(&frame, e)?);
    // delta-rs plans updates and deletes in its own session (its planner's nodes)
    let mut builder = table.update();
    if let Some(c) = condition {
        builder = builder.with_predicate(resolve(c)?);
    }
    for (column, value) in set {
        builder = builder.with_update(column, resolve(value)?);
    }
    let (_, m) = builder.await.map_err(|e| delta_error(path, e))?;
    Ok(m.num_updated_rows as u64)
}

/// `deltaTable.delete(condition)`: the number of rows deleted.
pub async fn delete(state: &SessionState, path: &str, condition: Option<Expr>) -> Result<u64> {
    let (table, frame) = table_frame(state, path).await?;
    let mut builder = table.delete();
    if let Some(c) = condition {
        builder = builder.with_predicate(unqualified(crate::dataframe::resolve(&frame, c)?)?);
    }
    let (_, m) = builder.await.map_err(|e| delta_error(path, e))?;
    Ok(m.num_deleted_rows.unwrap_or(0) as u64)
}

/// A map's values as text (history's `map<string,string>` columns).
fn as_text<'a>(
    entries: impl Iterator<Item = (&'a String, &'a serde_json::Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    entries
        .map(|(k, v)| {
            let s = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), serde_json::Value::String(s))
        })
        .collect()
}

/// `deltaTable.history(limit)`: each commit's information (delta-spark's
/// columns, as JSON objects), newest first.
pub async fn history(path: &str, limit: Option<usize>) -> Result<Vec<serde_json::Value>> {
    let table = open(path, &HashMap::new()).await?;
    let latest = table.version().unwrap_or(0);
    let log = table.log_store();
    let mut out = Vec::new();
    for version in (0..=latest).rev() {
        if limit.is_some_and(|l| out.len() >= l) {
            break;
        }
        // versions before the log's retention are gone: the history ends there
        let Some(bytes) = log
            .read_commit_entry(version)
            .await
            .map_err(|e| delta_error(path, e))?
        else {
            break;
        };
        let actions = deltalake_core::logstore::get_actions(version, &bytes)
            .map_err(|e| delta_error(path, e))?;
        let info = actions.into_iter().find_map(|a| match a {
            Action::CommitInfo(c) => Some(c),
            _ => None,
        });
        let info = info.unwrap_or_default();
        let metrics = info
            .info
            .get("operationMetrics")
            .and_then(|m| m.as_object())
            .map(|m| as_text(m.iter()));
        out.push(serde_json::json!({
            "version": version,
            "timestamp": info.in_commit_timestamp.or(info.timestamp),
            "userId": info.user_id,
            "userName": info.user_name,
            "operation": info.operation,
            "operationParameters": info.operation_parameters.as_ref().map(|m| as_text(m.iter())),
            "readVersion": info.read_version,
            "isolationLevel": info.isolation_level.map(|l| format!("{l:?}")),
            "isBlindAppend": info.is_blind_append,
            "operationMetrics": metrics,
            "userMetadata": info.user_metadata,
            "engineInfo": info.engine_info,
        }));
    }
    Ok(out)
}

/// `deltaTable.vacuum(retentionHours)`: the files deleted (or, dry, that
/// would be). Under the table's retention (7 days by default) only when
/// the check is off, as delta-spark's
/// `spark.databricks.delta.retentionDurationCheck.enabled`.
pub async fn vacuum(
    path: &str,
    retention_hours: Option<f64>,
    enforce_retention: bool,
    dry_run: bool,
) -> Result<Vec<String>> {
    let table = open(path, &HashMap::new()).await?;
    let mut builder = table
        .vacuum()
        .with_dry_run(dry_run)
        .with_enforce_retention_duration(enforce_retention);
    if let Some(h) = retention_hours {
        if h < 0.0 {
            return Err(Error::illegal_argument(format!(
                "requirement failed: Retention for Vacuum can't be less than 0 (got {h} hours)."
            )));
        }
        let minutes = (h * 60.0).round() as i64;
        builder = builder.with_retention_period(chrono::Duration::minutes(minutes));
    }
    let (_, metrics) = builder.await.map_err(|e| match e {
        e if e.to_string().contains("Invalid retention period") => Error::illegal_argument(format!(
            "requirement failed: Are you sure you would like to vacuum files with such a low retention period? If you have writers that are currently writing to this table, there is a risk that you may corrupt the state of your Delta table. If you are certain that there are no operations being performed on this table, such as insert/upsert/delete/optimize, then you may turn off this check by setting: spark.databricks.delta.retentionDurationCheck.enabled = false (table `{path}`: {e})"
        )),
        other => delta_error(path, other),
    })?;
    Ok(metrics.files_deleted)
}

/// `deltaTable.optimize().where(...).executeCompaction()` /
/// `.executeZOrderBy(cols)`: the operation's metrics (JSON).
pub async fn optimize(
    path: &str,
    filters: &[(String, String, String)],
    zorder: Vec<String>,
) -> Result<serde_json::Value> {
    use deltalake_core::operations::optimize::OptimizeType;
    let table = open(path, &HashMap::new()).await?;
    let literals = filters
        .iter()
        .map(|(column, op, value)| {
            let op = if op == "<>" { "!=" } else { op.as_str() };
            deltalake_core::filter_literal(column, op, deltalake_core::FilterValue::Scalar(value))
                .map_err(|e| delta_error(path, e))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut builder = table.optimize().with_filters(&literals);
    if !zorder.is_empty() {
        builder = builder.with_type(OptimizeType::ZOrder(zorder));
    }
    let (_, metrics) = builder.await.map_err(|e| delta_error(path, e))?;
    serde_json::to_value(&metrics).map_err(|e| Error::Internal(e.to_string()))
}

/// `deltaTable.detail()`: delta-spark's columns (JSON).
pub async fn detail(path: &str) -> Result<serde_json::Value> {
    let table = open(path, &HashMap::new()).await?;
    let state = table.snapshot().map_err(|e| delta_error(path, e))?;
    let metadata = state.metadata();
    let protocol = state.protocol();
    let (mut files, mut bytes) = (0u64, 0i64);
    for f in state.log_data() {
        files += 1;
        bytes += f.size();
    }
    let root = crate::sources::file::absolute(path)?;
    let features: Vec<String> = protocol
        .writer_features()
        .map(|f| f.iter().map(|x| x.to_string()).collect())
        .unwrap_or_default();
    Ok(serde_json::json!({
        "format": "delta",
        "id": metadata.id(),
        "name": metadata.name(),
        "description": metadata.description(),
        "location": format!("file:{}", root.display()),
        "createdAt": metadata.created_time(),
        "lastModified": state.version_timestamp(state.version()),
        "partitionColumns": metadata.partition_columns(),
        "clusteringColumns": Vec::<String>::new(),
        "numFiles": files,
        "sizeInBytes": bytes,
        "properties": metadata.configuration(),
        "minReaderVersion": protocol.min_reader_version(),
        "minWriterVersion": protocol.min_writer_version(),
        "tableFeatures": features,
    }))
}

/// `DeltaTable.isDeltaTable(spark, path)`.
pub async fn is_delta_table(path: &str) -> bool {
    open(path, &HashMap::new()).await.is_ok()
}

/// `deltaTable.restoreToVersion(v)` / `restoreToTimestamp(ts)`: metrics (JSON).
pub async fn restore(
    path: &str,
    version: Option<u64>,
    timestamp: Option<&str>,
) -> Result<serde_json::Value> {
    let table = open(path, &HashMap::new()).await?;
    let mut builder = table.restore();
    if let Some(v) = version {
        builder = builder.with_version_to_restore(v as _);
    }
    if let Some(ts) = timestamp {
        builder = builder.with_datetime_to_restore(super::parse_time(ts)?);
    }
    let (_, m) = builder.await.map_err(|e| delta_error(path, e))?;
    serde_json::to_value(&m).map_err(|e| Error::Internal(e.to_string()))
}
