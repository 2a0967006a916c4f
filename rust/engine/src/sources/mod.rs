//! Streaming sources: the `Source` trait the micro-batch loop drives, and the
//! `StreamTable` placeholder that marks a source inside a DataFusion plan.
//!
//! A streaming DataFrame's plan holds a `TableScan` over a [`StreamTable`].
//! Each query instantiates fresh [`Source`]s from the tables' factories, and
//! for every micro-batch binds each scan to that batch's data (a
//! [`BatchInput`]) before planning it with DataFusion.

pub mod callback;
pub mod file;
pub mod file_log;
pub mod kafka;
pub mod live;
pub mod memory;
pub mod nexmark;
pub mod rate;
pub mod refresh;
pub mod socket;

use std::fmt::Debug;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use crate::error::Result;

/// A source offset, serialized as Spark does in progress JSON and (later)
/// in `offsets/<batchId>` files.
pub type Offset = serde_json::Value;

/// The data of one micro-batch from one source.
pub struct BatchInput {
    /// What the batch's scan reads.
    pub provider: Arc<dyn TableProvider>,
    /// Rows in the batch (for `numInputRows`).
    pub num_rows: u64,
}

/// A streaming source instance owned by one running query.
pub trait Source: Send {
    /// Spark-style description, e.g. `MemoryStream[id#0,value#1]`.
    fn description(&self) -> String;
    /// The schema of the rows this source produces.
    fn schema(&self) -> SchemaRef;
    /// The newest offset with data available, or `None` if there is none yet.
    fn latest_offset(&mut self) -> Result<Option<Offset>>;
    /// The data in `(start, end]`.
    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput>;
    /// Everything up to `end` is processed and will not be asked for again.
    fn commit(&mut self, _end: &Offset) -> Result<()> {
        Ok(())
    }
    /// The query restarts from a checkpoint: everything up to `committed` was
    /// processed in an earlier run (`None`: nothing was).
    fn restore(&mut self, _committed: Option<&Offset>) -> Result<()> {
        Ok(())
    }
    /// `Trigger.AvailableNow` starts: cap the data at what exists now.
    fn prepare_for_available_now(&mut self) -> Result<()> {
        Ok(())
    }
    /// `Trigger.Once`: its one batch takes everything available, whatever
    /// the source's read limits (Spark ignores them, with a warning).
    fn ignore_read_limits(&mut self) {}
    /// In an `AvailableNow` run: how much of the capped data was taken.
    fn backlog(&self) -> Option<Backlog> {
        None
    }
    /// How long until data the source does not have yet is due, for a
    /// source whose data arrives by the clock (rate, Nexmark in real time):
    /// a query without new data waits that long instead of its polling
    /// delay (10 ms, which would be most of an event's latency).
    fn next_due(&self) -> Option<std::time::Duration> {
        None
    }
    /// Figures for the source's progress after a batch ending at `end`
    /// (Spark's `SourceProgress.metrics`).
    fn metrics(&self, _end: Option<&Offset>) -> std::collections::BTreeMap<String, String> {
        std::collections::BTreeMap::new()
    }
}

/// How far an `AvailableNow` run is through the data it was capped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    /// Taken by batches so far.
    pub done: u64,
    /// All the run will take.
    pub total: u64,
    /// What is counted: `files`, `offsets`.
    pub unit: &'static str,
}

impl Backlog {
    /// The sum of the sources' backlogs (their unit when they share one).
    pub fn sum(parts: impl IntoIterator<Item = Backlog>) -> Option<Backlog> {
        parts.into_iter().reduce(|a, b| Backlog {
            done: a.done + b.done,
            total: a.total + b.total,
            unit: if a.unit == b.unit { a.unit } else { "offsets" },
        })
    }
}

/// Where a query's source instance lives and what it may use.
#[derive(Debug, Clone, Default)]
pub struct SourceContext {
    /// Index of the source within its query (Spark's `sources/<n>`).
    pub index: usize,
    /// The source's own folder in the checkpoint (`sources/<n>`), where it
    /// keeps what it needs to resume (files taken, start time).
    pub metadata_dir: Option<std::path::PathBuf>,
    /// Whether writes there are fsynced (`spark.sparklet.checkpoint.fsync`).
    pub fsync: bool,
    /// `spark.sql.streaming.minBatchesToRetain`: how much of its log to keep.
    pub min_batches_to_retain: i64,
    /// The query runs in a real-time mode: offsets as fine as the source
    /// can make them (records are read as they arrive).
    pub real_time: bool,
}

/// Creates a source instance for each query started over a DataFrame.
pub trait SourceFactory: Send + Sync + Debug {
    /// Schema of the rows (known when the DataFrame is built).
    fn schema(&self) -> SchemaRef;
    /// A fresh source for a starting query.
    fn create(&self, ctx: &SourceContext) -> Result<Box<dyn Source>>;
    /// Whether the real-time and continuous modes can read it (records
    /// as they arrive).
    fn supports_real_time(&self) -> bool {
        false
    }
    /// Whether new data wakes a waiting query (`engine::global_wake`), so
    /// the real-time loop need not poll the source.
    fn wakes_on_arrival(&self) -> bool {
        false
    }
    /// Spark's class name for the stream, in errors.
    fn class_name(&self) -> &'static str {
        "source"
    }
}

/// The plan placeholder for a streaming source.
#[derive(Debug)]
pub struct StreamTable {
    /// Builds this source for each query.
    pub factory: Arc<dyn SourceFactory>,
}

impl StreamTable {
    /// A placeholder for `factory`'s source.
    pub fn new(factory: Arc<dyn SourceFactory>) -> Self {
        StreamTable { factory }
    }
}

#[async_trait]
impl TableProvider for StreamTable {
    fn schema(&self) -> SchemaRef {
        self.factory.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn CatalogSession,
        _projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        Err(DataFusionError::External(Box::new(
            crate::error::Error::analysis(
                "QUERY_MUST_USE_WRITESTREAM",
                "Queries with streaming sources must be executed with writeStream.start();",
            ),
        )))
    }
}

/// The time from now until `due_ms` (ms since the epoch by the system
/// clock), at least 50 µs: a wait that ends before the millisecond it
/// waits for would spin.
pub fn until_ms(due_ms: i64) -> std::time::Duration {
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    let us = due_ms.saturating_mul(1000).saturating_sub(now_us).max(50);
    std::time::Duration::from_micros(us as u64)
}

/// Parse a Spark-style boolean option.
pub fn parse_bool_option(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(crate::error::Error::illegal_argument(format!(
            "Invalid value '{value}' for option '{name}': expected true or false"
        ))),
    }
}

/// Parse a Spark-style non-negative integer option.
pub fn parse_u64_option(name: &str, value: &str) -> Result<u64> {
    value.trim().parse::<u64>().map_err(|_| {
        crate::error::Error::illegal_argument(format!(
            "Invalid value '{value}' for option '{name}': expected a non-negative integer"
        ))
    })
}
