//! Streaming sinks: where each micro-batch's result goes.
//!
//! `add_batch(batch_id, ..)` must be idempotent by batch id: after a crash the
//! last uncommitted batch is delivered again with the same id (checkpoint
//! issue), and a sink that already has it must not apply it twice.

pub mod batch_files;
pub mod console;
pub mod file;
pub mod file_writer;
pub mod foreach_batch;
pub mod kafka;
pub mod memory;
pub mod parquet_columns;

use std::collections::HashMap;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{Error, Result};
use console::ConsoleWriter;
use foreach_batch::{BatchCallback, EndCallback};

/// One micro-batch's output rows.
pub struct SinkBatch {
    /// Schema of the rows (also when there are none).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

impl SinkBatch {
    /// Number of rows in the batch.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// A streaming sink owned by one running query.
pub trait Sink: Send {
    /// Spark-style description for progress (`MemorySink`, `ForeachBatchSink`...).
    fn description(&self) -> String;
    /// The query's id (kept in its checkpoint, the same in every run),
    /// given once before the first batch.
    fn bind_query(&mut self, _query_id: &str) {}
    /// Deliver batch `batch_id`.
    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()>;
    /// Whether rows may reach the sink as they are computed, several
    /// deliveries per batch id (the real-time and continuous modes).
    fn supports_real_time(&self) -> bool {
        false
    }
    /// Whether real-time mode's allowlist (Spark 4.3's) has the sink: the
    /// memory and noop sinks run there only with the check turned off.
    fn in_real_time_allowlist(&self) -> bool {
        self.supports_real_time()
    }
    /// Spark's class name for the sink, as its errors name it.
    fn class_name(&self) -> String {
        let description = self.description();
        let name = description.split('@').next().unwrap_or_default();
        match name.contains('.') {
            true => name.to_string(),
            false => format!("org.apache.spark.sql.execution.streaming.sources.{name}"),
        }
    }
    /// Real-time modes: more rows of the long-running batch `batch_id`.
    /// `first`: the batch's first delivery in this run, which replaces what
    /// an earlier, failed run delivered under the same id.
    fn add_rows(&mut self, batch_id: i64, first: bool, data: SinkBatch) -> Result<()> {
        let _ = first;
        self.add_batch(batch_id, data)
    }
    /// Real-time modes: batch `batch_id` ends (its rows are all delivered).
    fn end_batch(&mut self, _batch_id: i64) -> Result<()> {
        Ok(())
    }
    /// Whether the sink keeps none of the rows it is given (`noop`): the
    /// batch's rows are then counted as they are computed, not collected.
    fn discards_rows(&self) -> bool {
        false
    }
    /// Whether the sink may take batches whose offsets are logged after
    /// them (Spark's allowlist for asynchronous progress tracking: sinks
    /// that a replay cannot corrupt).
    fn supports_async_progress(&self) -> bool {
        false
    }
}

/// `format("noop")`: runs the query, discards the rows (benchmarks).
#[derive(Debug, Default)]
pub struct NoopSink;

impl Sink for NoopSink {
    fn description(&self) -> String {
        "org.apache.spark.sql.execution.datasources.noop.NoopTable$@sparklet".to_string()
    }

    fn add_batch(&mut self, _batch_id: i64, _data: SinkBatch) -> Result<()> {
        Ok(())
    }
    fn discards_rows(&self) -> bool {
        true
    }
    fn supports_real_time(&self) -> bool {
        true
    }
    fn in_real_time_allowlist(&self) -> bool {
        false
    }
    fn supports_async_progress(&self) -> bool {
        true
    }
}

/// Where a streaming query writes.
pub enum SinkSpec {
    /// `console`.
    Console {
        /// Rows shown per batch.
        num_rows: usize,
        /// Truncate cells to 20 characters.
        truncate: bool,
        /// Where the text goes.
        out: ConsoleWriter,
    },
    /// `memory` (table named after the query).
    Memory,
    /// `noop`.
    Noop,
    /// `foreachBatch(fn)`.
    ForeachBatch(BatchCallback),
    /// `foreach(writer)`: rows per delivery, then the epoch's end.
    Foreach(BatchCallback, EndCallback),
    /// A file sink (`parquet`, `csv`, `json`, `text`).
    File {
        /// The format name.
        format: String,
        /// The output folder.
        path: Option<String>,
        /// `partitionBy` columns.
        partition_by: Vec<String>,
        /// Writer options (`header`, `sep`, ...).
        options: HashMap<String, String>,
    },
    /// `kafka`, with its options (keys lower-cased).
    Kafka(HashMap<String, String>),
    /// `delta`: a Delta table at `path`.
    Delta {
        /// The table's folder.
        path: Option<String>,
        /// `partitionBy` columns.
        partition_by: Vec<String>,
        /// Writer options (keys lower-cased).
        options: HashMap<String, String>,
    },
}

impl SinkSpec {
    /// The sink `writeStream.format(format)` names, from the writer's
    /// options (keys lower-cased); `console` writes its text to `console`.
    /// `foreachBatch` and `foreach` sinks are built from their callbacks.
    pub fn named(
        format: &str,
        options: &HashMap<String, String>,
        partition_by: Vec<String>,
        console: Option<ConsoleWriter>,
    ) -> Result<Self> {
        let format = format.to_ascii_lowercase();
        Ok(match format.as_str() {
            "console" => {
                let num_rows = match options.get("numrows") {
                    Some(v) => v.trim().parse::<usize>().map_err(|_| {
                        Error::illegal_argument(format!(
                            "Invalid value '{v}' for option 'numRows': expected a positive integer"
                        ))
                    })?,
                    None => 20,
                };
                let truncate = options
                    .get("truncate")
                    .is_none_or(|v| !v.eq_ignore_ascii_case("false"));
                let out = console
                    .ok_or_else(|| Error::Internal("the console sink needs an output".into()))?;
                SinkSpec::Console {
                    num_rows,
                    truncate,
                    out,
                }
            }
            "memory" => SinkSpec::Memory,
            "kafka" => SinkSpec::Kafka(options.clone()),
            "noop" => SinkSpec::Noop,
            "delta" => SinkSpec::Delta {
                path: options.get("path").cloned(),
                partition_by,
                options: options.clone(),
            },
            "parquet" | "orc" | "csv" | "json" | "text" => SinkSpec::File {
                path: options.get("path").cloned(),
                format,
                partition_by,
                options: options.clone(),
            },
            other => return Err(unknown_format(other)),
        })
    }
}

/// Spark's error for a format no source or sink has.
pub fn unknown_format(format: &str) -> Error {
    Error::analysis(
        "DATA_SOURCE_NOT_FOUND",
        format!("Failed to find the data source: {format}. Make sure the provider name is correct and the package is properly registered and compatible with your Spark version."),
    )
}
