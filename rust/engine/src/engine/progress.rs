//! `StreamingQueryProgress` and `StreamingQueryStatus` with Spark's JSON
//! field names (see shared/reference for real PySpark 4.3 output).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::sources::Offset;

/// Progress of one source in one trigger.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceProgress {
    /// The source's description.
    pub description: String,
    /// Offset before the batch (null before the first one).
    pub start_offset: Option<Offset>,
    /// Offset after the batch.
    pub end_offset: Option<Offset>,
    /// Newest offset the source reported (null when the source does not say).
    pub latest_offset: Option<Offset>,
    /// Rows read from this source.
    pub num_input_rows: i64,
    /// Rows per second arriving (since the previous trigger started).
    pub input_rows_per_second: f64,
    /// Rows per second processed (over this trigger's duration).
    pub processed_rows_per_second: f64,
    /// The source's own figures (Kafka: offsets behind the latest), left
    /// out when empty, as Spark does.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, String>,
}

/// Progress of the sink in one trigger.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SinkProgress {
    /// The sink's description.
    pub description: String,
    /// Rows written (-1 when unknown, as in Spark).
    pub num_output_rows: i64,
}

/// One trigger's progress (Spark's `StreamingQueryProgress`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryProgress {
    /// Query id (stable across restarts).
    pub id: String,
    /// Run id (new on every start).
    pub run_id: String,
    /// Query name, or null.
    pub name: Option<String>,
    /// Trigger start, ISO-8601 UTC with milliseconds.
    pub timestamp: String,
    /// The batch id.
    pub batch_id: i64,
    /// Wall time of the trigger, ms.
    pub batch_duration: i64,
    /// Rows read from all sources.
    pub num_input_rows: i64,
    /// Rows per second arriving.
    pub input_rows_per_second: f64,
    /// Rows per second processed.
    pub processed_rows_per_second: f64,
    /// Phase durations (`latestOffset`, `getBatch`, `queryPlanning`,
    /// `addBatch`, `walCommit`, `commitOffsets`, `triggerExecution`).
    pub duration_ms: BTreeMap<String, i64>,
    /// Event-time statistics and the watermark (omitted when empty).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub event_time: BTreeMap<String, String>,
    /// Stateful operators' metrics.
    pub state_operators: Vec<serde_json::Value>,
    /// Per-source progress.
    pub sources: Vec<SourceProgress>,
    /// Sink progress.
    pub sink: SinkProgress,
    /// `observe()` metrics by name (omitted when empty).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub observed_metrics: BTreeMap<String, serde_json::Value>,
}

impl QueryProgress {
    /// The progress as Spark's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What a query is doing now (Spark's `StreamingQueryStatus`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct QueryStatus {
    /// Human-readable activity.
    pub message: String,
    /// Whether the last check found new data.
    pub is_data_available: bool,
    /// Whether a trigger is executing.
    pub is_trigger_active: bool,
}

impl QueryStatus {
    /// A status with `message`.
    pub fn new(message: &str, data: bool, active: bool) -> Self {
        QueryStatus {
            message: message.to_string(),
            is_data_available: data,
            is_trigger_active: active,
        }
    }
}

/// Format ms since the epoch as Spark's progress timestamp.
pub fn format_timestamp_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// Rows per second, rounded like Spark's reports (0 when no time passed).
pub fn rate(rows: i64, ms: i64) -> f64 {
    if ms <= 0 {
        return 0.0;
    }
    let r = rows as f64 * 1000.0 / ms as f64;
    (r * 10.0).round() / 10.0
}
