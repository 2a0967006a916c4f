//! Appends to an existing Delta table with one Parquet writer per core.
//! delta-rs's `write` plans each commit through DataFusion and encodes an
//! unpartitioned table's rows on one thread, which left the streaming Delta
//! sink at half the Parquet file sink's speed. A plain append (no
//! constraints, generated or identity columns, column mapping or row
//! tracking; the rows already of the table's types) needs none of that
//! plan: its rows go to delta-rs's own file writers (stats and file names
//! as delta-rs writes them), split among the cores, and one commit adds the
//! files, through delta-rs's transaction (conflict checks, retries,
//! checkpoints) as any other write.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use deltalake_core::datafile::writer::{DeltaWriter, WriterConfig};
use deltalake_core::kernel::transaction::{CommitBuilder, CommitProperties};
use deltalake_core::kernel::{Action, Add};
use deltalake_core::operations::write::WriterStatsConfig;
use deltalake_core::protocol::DeltaOperation;
use deltalake_core::table::config::TablePropertiesExt as _;
use deltalake_core::DeltaTable;

use super::delta_error;
use crate::error::{Error, Result};

/// A batch smaller than this is written by one writer (one file): fewer
/// rows are not worth a second file. Also the rows handed to Parquet at a
/// time (delta-rs's default, 1,024, spends more on each call than on the
/// rows).
pub(super) const ROWS_PER_WRITER: usize = 64 * 1024;

/// Schema metadata that makes a write more than adding files: values to
/// check or compute, or physical column names.
const WRITE_TIME_METADATA: &[&str] = &[
    "delta.invariants",
    "delta.generationExpression",
    "delta.identity",
    "delta.columnMapping",
];

/// `batches` as the table's own columns (its schema, order and field
/// metadata), when the table takes a plain append of them; None when the
/// write needs delta-rs's full write path.
pub(super) fn plain_rows(table: &DeltaTable, batches: &[RecordBatch]) -> Option<Vec<RecordBatch>> {
    let snapshot = table.snapshot().ok()?.snapshot();
    let metadata = snapshot.metadata();
    let configuration = metadata.configuration();
    let enabled = |key: &str| {
        configuration
            .get(key)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    };
    if configuration
        .keys()
        .any(|k| k.starts_with("delta.constraints."))
        || enabled("delta.enableRowTracking")
        || enabled("delta.enableInCommitTimestamps")
        || WRITE_TIME_METADATA
            .iter()
            .any(|key| metadata.schema_string().contains(key))
    {
        return None;
    }
    let target = snapshot.arrow_schema();
    batches
        .iter()
        .map(|batch| {
            let columns = target
                .fields()
                .iter()
                .map(|f| {
                    let (i, _) = batch.schema().column_with_name(f.name())?;
                    let column = batch.column(i);
                    (column.data_type() == f.data_type()).then(|| Arc::clone(column))
                })
                .collect::<Option<Vec<_>>>()?;
            // also refuses nulls in a column the table declares not null
            RecordBatch::try_new(Arc::clone(&target), columns).ok()
        })
        .collect()
}

/// Append `rows` (from [`plain_rows`]) to `table` in one commit recording
/// `operation` (delta-spark's metrics for it in the commit's info); the
/// table is left at the new version.
pub(super) async fn append(
    table: &mut DeltaTable,
    path: &str,
    rows: Vec<RecordBatch>,
    commit: CommitProperties,
    operation: DeltaOperation,
) -> Result<()> {
    let snapshot = table.snapshot().map_err(|e| delta_error(path, e))?;
    let eager = snapshot.snapshot();
    let stats = WriterStatsConfig::from_config(eager.table_configuration());
    let config = WriterConfig::new(
        eager.arrow_schema(),
        eager.metadata().partition_columns().to_vec(),
        None,
        Some(eager.table_properties().target_file_size()),
        Some(ROWS_PER_WRITER),
        stats.num_indexed_cols,
        stats.stats_columns,
    );
    let total: usize = rows.iter().map(|b| b.num_rows()).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let writers = (total / ROWS_PER_WRITER).clamp(1, cores);
    let store = table.log_store().object_store(None);
    let tasks: Vec<_> = split(rows, total.div_ceil(writers).max(1))
        .into_iter()
        .map(|share| {
            let mut writer = DeltaWriter::new(Arc::clone(&store), config.clone());
            tokio::spawn(async move {
                for batch in &share {
                    writer.write(batch).await?;
                }
                writer.close().await
            })
        })
        .collect();
    let mut adds: Vec<Add> = Vec::new();
    for task in tasks {
        let written = task
            .await
            .map_err(|e| Error::Internal(format!("a Delta file writer failed: {e}")))?;
        adds.extend(written.map_err(|e| delta_error(path, e))?);
    }
    let bytes: i64 = adds.iter().map(|a| a.size).sum();
    let metrics: HashMap<&str, String> = match operation {
        DeltaOperation::StreamingUpdate { .. } => HashMap::from([
            ("numAddedFiles", adds.len().to_string()),
            ("numRemovedFiles", "0".to_string()),
            ("numOutputRows", total.to_string()),
            ("numOutputBytes", bytes.to_string()),
        ]),
        _ => HashMap::from([
            ("numFiles", adds.len().to_string()),
            ("numOutputRows", total.to_string()),
            ("numOutputBytes", bytes.to_string()),
        ]),
    };
    let metrics = serde_json::to_value(metrics).map_err(|e| Error::Internal(e.to_string()))?;
    let done =
        CommitBuilder::from(commit.with_metadata([("operationMetrics".to_string(), metrics)]))
            .with_actions(adds.into_iter().map(Action::Add).collect())
            .build(Some(snapshot), table.log_store(), operation)
            .await
            .map_err(|e| delta_error(path, e))?;
    // the table as this commit left it, for the next write to start from
    table.state = Some(done.snapshot);
    Ok(())
}

/// `rows` cut into runs of about `per` rows (batches sliced, not copied).
fn split(rows: Vec<RecordBatch>, per: usize) -> Vec<Vec<RecordBatch>> {
    let mut shares = vec![Vec::new()];
    let mut filled = 0;
    for batch in rows {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if filled == per {
                shares.push(Vec::new());
                filled = 0;
            }
            let take = (per - filled).min(batch.num_rows() - offset);
            if let Some(share) = shares.last_mut() {
                share.push(batch.slice(offset, take));
            }
            filled += take;
            offset += take;
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field, Schema};

    fn batch(n: i64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..n))]).unwrap()
    }

    #[test]
    fn split_cuts_rows_into_even_runs_across_batches() {
        let shares = split(vec![batch(5), batch(4), batch(1)], 4);
        let sizes: Vec<Vec<usize>> = shares
            .iter()
            .map(|s| s.iter().map(|b| b.num_rows()).collect())
            .collect();
        assert_eq!(sizes, vec![vec![4], vec![1, 3], vec![1, 1]]);
    }
}
