//! Delta Lake tables through `deltalake-core` (delta-rs, on the same arrow
//! and DataFusion): open a table (at a version or a time, as
//! `versionAsOf`/`timestampAsOf`), read it as a DataFusion table, and write
//! record batches in one commit with Spark's save modes, `partitionBy`,
//! `replaceWhere`, `mergeSchema`/`overwriteSchema`, and delta-spark's
//! idempotent writes (`txnAppId`/`txnVersion`: a commit carries the
//! application's transaction, and a version already committed is skipped).

mod append;
pub mod ops;
pub mod sink;
pub mod source;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use deltalake_core::kernel::transaction::{CommitProperties, TransactionError};
use deltalake_core::kernel::Transaction;
use deltalake_core::operations::write::SchemaMode;
use deltalake_core::protocol::{DeltaOperation, OutputMode, SaveMode};
use deltalake_core::{DeltaTable, DeltaTableBuilder, DeltaTableError};

use crate::error::{Error, Result};

/// Spark's error for a Delta operation on `path`.
fn delta_error(path: &str, e: DeltaTableError) -> Error {
    match e {
        DeltaTableError::NotATable(_) => Error::analysis(
            "DELTA_MISSING_DELTA_TABLE",
            format!("`{path}` is not a Delta table."),
        ),
        DeltaTableError::InvalidVersion(v) => Error::analysis(
            "DELTA_VERSION_NOT_FOUND",
            format!("Cannot time travel Delta table to version {v} at `{path}`."),
        ),
        DeltaTableError::SchemaMismatch { msg } => Error::analysis(
            "DELTA_METADATA_MISMATCH",
            format!(
                "A schema mismatch detected when writing to the Delta table at `{path}`: {msg}. \
                 To enable schema migration, set '.option(\"mergeSchema\", \"true\")'."
            ),
        ),
        DeltaTableError::Transaction { source } => conflict_error(path, source),
        // delta-rs checks a table's CHECK and NOT NULL constraints as one
        // expression: the rows are known, not which constraint they broke
        other if other.to_string().contains("failed validation check") => Error::analysis(
            "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES",
            format!(
                "A CHECK or NOT NULL constraint of the Delta table at `{path}` is violated; nothing was written. {}",
                other.to_string().trim_start_matches("Generic DeltaTable error: External error: ")
            ),
        ),
        other => Error::analysis("DELTA_ERROR", format!("Delta table `{path}`: {other}")),
    }
}

/// delta-spark's error for a commit another writer's commit conflicts with
/// (after delta-rs's retries): nothing of this operation was committed.
fn conflict_error(path: &str, e: TransactionError) -> Error {
    use deltalake_core::kernel::transaction::CommitConflictError as C;
    let (class, what) = match &e {
        TransactionError::CommitConflict(C::ConcurrentAppend) => (
            "DELTA_CONCURRENT_APPEND",
            "ConcurrentAppendException: Files were added to the table by a concurrent update.",
        ),
        TransactionError::CommitConflict(C::ConcurrentDeleteRead) => (
            "DELTA_CONCURRENT_DELETE_READ",
            "ConcurrentDeleteReadException: This transaction attempted to read one or more files that were deleted by a concurrent update.",
        ),
        TransactionError::CommitConflict(C::ConcurrentDeleteDelete) => (
            "DELTA_CONCURRENT_DELETE_DELETE",
            "ConcurrentDeleteDeleteException: This transaction attempted to delete one or more files that were deleted by a concurrent update.",
        ),
        TransactionError::CommitConflict(C::MetadataChanged) => (
            "DELTA_METADATA_CHANGED",
            "MetadataChangedException: The metadata of the Delta table has been changed by a concurrent update.",
        ),
        TransactionError::CommitConflict(C::ConcurrentTransaction) => (
            "DELTA_CONCURRENT_TRANSACTION",
            "ConcurrentTransactionException: This error occurs when multiple streaming queries are using the same checkpoint to write into this table.",
        ),
        TransactionError::CommitConflict(C::ProtocolChanged(_)) => (
            "DELTA_PROTOCOL_CHANGED",
            "ProtocolChangedException: The protocol version of the Delta table has been changed by a concurrent update.",
        ),
        TransactionError::VersionAlreadyExists(_) | TransactionError::MaxCommitAttempts(_) => (
            "DELTA_CONCURRENT_WRITE",
            "ConcurrentWriteException: A concurrent transaction has written new data since the current transaction read the table.",
        ),
        _ => {
            return Error::analysis("DELTA_ERROR", format!("Delta table `{path}`: Transaction failed: {e}"))
        }
    };
    Error::analysis(
        class,
        format!("{what} Please try the operation again. (table `{path}`: {e})"),
    )
}

/// A time option (`timestampAsOf`, `startingTimestamp`, a restore's) as
/// Spark reads timestamps; delta-spark's error if it is none.
pub(crate) fn parse_time(ts: &str) -> Result<chrono::DateTime<chrono::Utc>> {
    crate::formats::datetime::parse_timestamp_micros(ts, None)
        .and_then(chrono::DateTime::from_timestamp_micros)
        .ok_or_else(|| {
            Error::illegal_argument(format!(
                "[DELTA_INVALID_TIMESTAMP_FORMAT] The provided timestamp ({ts}) cannot be converted to a valid timestamp."
            ))
        })
}

/// The table's URL. delta-rs makes a missing local folder while it parses
/// one, which a read must not: there, a missing folder is not a table.
fn url_of(path: &str, create: bool) -> Result<url::Url> {
    let abs = crate::sources::file::absolute(path)?;
    if !create && !abs.exists() {
        return Err(delta_error(
            path,
            DeltaTableError::NotATable(path.to_string()),
        ));
    }
    deltalake_core::ensure_table_uri(abs.to_string_lossy()).map_err(|e| delta_error(path, e))
}

/// The Delta table at `path`, at `versionAsOf`/`timestampAsOf` if given
/// (options with lower-case keys); an error if there is none.
pub async fn open(path: &str, options: &HashMap<String, String>) -> Result<DeltaTable> {
    let mut table = DeltaTableBuilder::from_url(url_of(path, false)?)
        .and_then(|b| b.build())
        .map_err(|e| delta_error(path, e))?;
    let loaded = match (options.get("versionasof"), options.get("timestampasof")) {
        (Some(v), _) => {
            let v: u64 = v.trim().parse().map_err(|_| {
                Error::illegal_argument(format!("versionAsOf must be a version number, got '{v}'"))
            })?;
            table.load_version(v).await
        }
        (None, Some(ts)) => table.load_with_datetime(parse_time(ts)?).await,
        (None, None) => table.load().await,
    };
    loaded.map_err(|e| delta_error(path, e))?;
    Ok(table)
}

/// `spark.read.format("delta").load(path)`: the table as a provider for
/// `state`'s session (its files' store registered there).
pub async fn provider(
    state: &dyn datafusion::catalog::Session,
    path: &str,
    options: &HashMap<String, String>,
) -> Result<Arc<dyn TableProvider>> {
    let table = open(path, options).await?;
    table
        .update_datafusion_session(state)
        .map_err(|e| delta_error(path, e))?;
    table
        .table_provider()
        .await
        .map_err(|e| Error::analysis("DELTA_ERROR", format!("Delta table `{path}`: {e}")))
}

/// delta-spark's schema enforcement: every column written must be one of
/// the table's, of its type (an integer may widen); fewer columns are
/// written as nulls.
fn check_schema(table: &DeltaTable, path: &str, data: &SchemaRef) -> Result<()> {
    let state = table.snapshot().map_err(|e| delta_error(path, e))?;
    let current = source::spark_schema(&state.snapshot().arrow_schema());
    let fits = |f: &arrow::datatypes::Field| {
        current.fields().iter().any(|t| {
            t.name().eq_ignore_ascii_case(f.name())
                && (t.data_type() == f.data_type()
                    || widens(f.data_type(), t.data_type())
                    || f.data_type() == &arrow::datatypes::DataType::Null)
        })
    };
    let data = source::spark_schema(data);
    if data.fields().iter().all(|f| fits(f)) {
        return Ok(());
    }
    let show = |s: &arrow::datatypes::Schema| {
        s.fields()
            .iter()
            .map(|f| {
                let t = crate::plan::spark_names::type_name(f.data_type()).to_ascii_lowercase();
                format!(" |-- {}: {t} (nullable = {})", f.name(), f.is_nullable())
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    Err(Error::analysis(
        "DELTA_METADATA_MISMATCH",
        format!(
            "A schema mismatch detected when writing to the Delta table (Table ID: {}) at `{path}`.\nTo enable schema migration using DataFrameWriter or DataStreamWriter, please set:\n'.option(\"mergeSchema\", \"true\")'.\n\nTable schema:\nroot\n{}\n\nData schema:\nroot\n{}",
            state.metadata().id(),
            show(&current),
            show(&data)
        ),
    ))
}

/// Whether values of `from` are written to a column of `to` without loss.
fn widens(from: &arrow::datatypes::DataType, to: &arrow::datatypes::DataType) -> bool {
    use arrow::datatypes::DataType::*;
    let rank = |t: &arrow::datatypes::DataType| match t {
        Int8 => Some(1),
        Int16 => Some(2),
        Int32 => Some(3),
        Int64 => Some(4),
        _ => None,
    };
    matches!((rank(from), rank(to)), (Some(a), Some(b)) if a <= b)
}

/// Delta's table properties a writer's options set on a new table
/// (`delta.enableChangeDataFeed`...), their names restored from the
/// options' lower-cased keys.
fn table_properties(options: &HashMap<String, String>) -> Vec<(String, String)> {
    const NAMES: &[&str] = &[
        "delta.appendOnly",
        "delta.autoOptimize.autoCompact",
        "delta.autoOptimize.optimizeWrite",
        "delta.checkpointInterval",
        "delta.checkpoint.writeStatsAsJson",
        "delta.checkpoint.writeStatsAsStruct",
        "delta.columnMapping.mode",
        "delta.dataSkippingNumIndexedCols",
        "delta.dataSkippingStatsColumns",
        "delta.deletedFileRetentionDuration",
        "delta.enableChangeDataFeed",
        "delta.enableDeletionVectors",
        "delta.isolationLevel",
        "delta.logRetentionDuration",
        "delta.minReaderVersion",
        "delta.minWriterVersion",
        "delta.setTransactionRetentionDuration",
        "delta.targetFileSize",
        "delta.tuneFileSizesForRewrites",
    ];
    options
        .iter()
        .filter_map(|(k, v)| {
            let name = NAMES.iter().find(|n| n.eq_ignore_ascii_case(k))?;
            Some((name.to_string(), v.clone()))
        })
        .collect()
}

/// `df.write.format("delta").mode(mode).save(path)`: `batches` (rows of
/// `schema`) in one commit; with no rows the commit still records the
/// schema (a new table) and the transaction.
pub async fn write(
    path: &str,
    mode: &str,
    partition_by: Vec<String>,
    options: &HashMap<String, String>,
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<()> {
    let table = open_for_write(path).await?;
    let spec = WriteSpec {
        path,
        mode,
        partition_by,
        options,
        schema,
        check_txn: true,
        streaming: false,
    };
    write_to(table, spec, batches).await.map(|_| ())
}

/// The table at `path` to write to (not loaded when it does not exist yet).
pub async fn open_for_write(path: &str) -> Result<DeltaTable> {
    DeltaTable::try_from_url(url_of(path, true)?)
        .await
        .map_err(|e| delta_error(path, e))
}

/// How a write goes: where, with which save mode, partitions and options.
pub struct WriteSpec<'a> {
    /// The table's folder (for errors).
    pub path: &'a str,
    /// Spark's save mode.
    pub mode: &'a str,
    /// `partitionBy` columns.
    pub partition_by: Vec<String>,
    /// Writer options (lower-case keys).
    pub options: &'a HashMap<String, String>,
    /// The rows' schema.
    pub schema: &'a SchemaRef,
    /// Look up `txnAppId`'s last committed version (a replay is skipped);
    /// a writer that knows its versions are new skips the lookup.
    pub check_txn: bool,
    /// The streaming sink's write (`txnAppId`/`txnVersion` are the query's
    /// id and the batch's): recorded as delta-spark's `STREAMING UPDATE`.
    pub streaming: bool,
}

/// Write `batches` into `table` (as loaded) in one commit; the table after
/// it (None when the save mode skipped the write).
pub async fn write_to(
    table: DeltaTable,
    spec: WriteSpec<'_>,
    mut batches: Vec<RecordBatch>,
) -> Result<Option<DeltaTable>> {
    let WriteSpec {
        path,
        mode,
        partition_by,
        options,
        schema,
        check_txn,
        streaming,
    } = spec;
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(Arc::clone(schema)));
    }
    let exists = table.version().is_some();
    let save_mode = match mode.to_ascii_lowercase().as_str() {
        "append" => SaveMode::Append,
        "overwrite" => SaveMode::Overwrite,
        "ignore" => SaveMode::Ignore,
        "error" | "errorifexists" | "default" => SaveMode::ErrorIfExists,
        other => {
            return Err(Error::illegal_argument(format!(
                "Unknown save mode: {other}. Accepted save modes are 'overwrite', 'append', 'ignore', 'error', 'errorifexists', 'default'."
            )))
        }
    };
    if exists && save_mode == SaveMode::ErrorIfExists {
        return Err(Error::analysis(
            "DELTA_PATH_EXISTS",
            format!(
                "Cannot write to already existent path {path} without setting OVERWRITE = 'true'."
            ),
        ));
    }
    if exists && save_mode == SaveMode::Ignore {
        return Ok(None);
    }
    let flag = |k: &str| {
        options
            .get(k)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    };
    let mut commit = CommitProperties::default();
    let mut txn = None;
    if let (Some(app), Some(version)) = (options.get("txnappid"), options.get("txnversion")) {
        let version: i64 = version.trim().parse().map_err(|_| {
            Error::illegal_argument(format!("txnVersion must be a number, got '{version}'"))
        })?;
        if exists && check_txn {
            let done = table
                .snapshot()
                .map_err(|e| delta_error(path, e))?
                .transaction_version(table.log_store().as_ref(), app)
                .await
                .map_err(|e| delta_error(path, e))?;
            // delta-spark's idempotent write: a version already committed is skipped
            if done.is_some_and(|d| d >= version) {
                return Ok(None);
            }
        }
        txn = Some((app.clone(), version));
        commit = commit.with_application_transaction(Transaction::new(app, version));
    }
    let evolves =
        flag("mergeschema") || (flag("overwriteschema") && save_mode == SaveMode::Overwrite);
    if exists && !evolves {
        check_schema(&table, path, schema)?;
    }
    let same_partitions = |table: &DeltaTable| {
        partition_by.is_empty()
            || table
                .snapshot()
                .is_ok_and(|s| s.metadata().partition_columns() == partition_by.as_slice())
    };
    let plain = exists
        && save_mode == SaveMode::Append
        && !flag("mergeschema")
        && !flag("overwriteschema")
        && !options.contains_key("replacewhere")
        && same_partitions(&table);
    if let Some(rows) = plain
        .then(|| append::plain_rows(&table, &batches))
        .flatten()
    {
        let operation = match txn {
            Some((query_id, epoch_id)) if streaming => DeltaOperation::StreamingUpdate {
                output_mode: OutputMode::Append,
                query_id,
                epoch_id,
            },
            _ => DeltaOperation::Write {
                mode: SaveMode::Append,
                partition_by: None,
                predicate: None,
            },
        };
        let mut table = table;
        append::append(&mut table, path, rows, commit, operation).await?;
        return Ok(Some(table));
    }
    let mut builder = table
        .write(batches)
        .with_save_mode(save_mode)
        .with_write_batch_size(append::ROWS_PER_WRITER)
        .with_commit_properties(commit);
    if !partition_by.is_empty() {
        builder = builder.with_partition_columns(partition_by);
    }
    if flag("mergeschema") {
        builder = builder.with_schema_mode(SchemaMode::Merge);
    } else if flag("overwriteschema") {
        builder = builder.with_schema_mode(SchemaMode::Overwrite);
    }
    let properties = table_properties(options);
    if !properties.is_empty() {
        builder = builder.with_configuration(properties.into_iter().map(|(k, v)| (k, Some(v))));
    }
    if let Some(predicate) = options.get("replacewhere") {
        builder = builder.with_replace_where(predicate.clone());
    }
    let written = builder.await.map_err(|e| delta_error(path, e))?;
    Ok(Some(written))
}
