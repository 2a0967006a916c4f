//! Session configuration: Spark's keys, Spark's defaults.

use std::collections::BTreeMap;

use parking_lot::RwLock;

/// Spark config keys the engine reads, with their defaults.
pub mod keys {
    /// Partitions of stateful operators (each a state store); changing it
    /// for a checkpointed query repartitions its state at start.
    pub const SHUFFLE_PARTITIONS: &str = "spark.sql.shuffle.partitions";
    /// Session time zone used to render timestamps.
    pub const SESSION_TIME_ZONE: &str = "spark.sql.session.timeZone";
    /// Bounds `recentProgress`: as in Spark, a query keeps one fewer than this (99).
    pub const NUM_RECENT_PROGRESS: &str = "spark.sql.streaming.numRecentProgressUpdates";
    /// How often an idle query reports a no-data progress event (ms); the first trigger without data reports at once, as in Spark.
    pub const NO_DATA_PROGRESS_INTERVAL: &str = "spark.sql.streaming.noDataProgressEventInterval";
    /// How long the loop sleeps when there is no new data (ms).
    pub const POLLING_DELAY: &str = "spark.sql.streaming.pollingDelay";
    /// Default parent folder of checkpoints (unset: a query without a
    /// `checkpointLocation` gets a temporary one).
    pub const CHECKPOINT_LOCATION: &str = "spark.sql.streaming.checkpointLocation";
    /// Log batches kept in a checkpoint.
    pub const MIN_BATCHES_TO_RETAIN: &str = "spark.sql.streaming.minBatchesToRetain";
    /// Whether starting a query on an active query's checkpoint stops the old run.
    pub const STOP_ACTIVE_RUN_ON_RESTART: &str = "spark.sql.streaming.stopActiveRunOnRestart";
    /// Batches between compactions of the file sink's manifest.
    pub const FILE_SINK_COMPACT_INTERVAL: &str = "spark.sql.streaming.fileSink.log.compactInterval";
    /// `min` or `max`: how several watermarks combine.
    pub const MULTIPLE_WATERMARK_POLICY: &str = "spark.sql.streaming.multipleWatermarkPolicy";
    /// Versions between state store snapshots.
    pub const MIN_DELTAS_FOR_SNAPSHOT: &str = "spark.sql.streaming.stateStore.minDeltasForSnapshot";
    /// Whether a batch runs without data when the watermark moved.
    pub const NO_DATA_MICRO_BATCHES: &str = "spark.sql.streaming.noDataMicroBatches.enabled";
    /// The state store implementation: Spark's class names, or `hdfs`/`memory`
    /// and `rocksdb` (unset: in memory).
    pub const STATE_STORE_PROVIDER: &str = "spark.sql.streaming.stateStore.providerClass";
    /// How a processor's state values are encoded (recorded in the offsets).
    pub const STATE_STORE_ENCODING: &str = "spark.sql.streaming.stateStore.encodingFormat";
    /// Whether streaming file sources may infer their schema.
    pub const SCHEMA_INFERENCE: &str = "spark.sql.streaming.schemaInference";
    /// Serve the web UI (unset: off; Spark's is on).
    pub const UI_ENABLED: &str = "spark.ui.enabled";
    /// The web UI's first port to try (unset: 4040).
    pub const UI_PORT: &str = "spark.ui.port";
    /// How many ports after `spark.ui.port` to try when taken (unset: 16).
    pub const PORT_MAX_RETRIES: &str = "spark.port.maxRetries";
    /// The address the web UI binds (unset: 127.0.0.1).
    pub const DRIVER_BIND_ADDRESS: &str = "spark.driver.bindAddress";
    /// The shortest `trigger(realTime=...)` interval allowed (ms).
    pub const REAL_TIME_MIN_BATCH_DURATION: &str =
        "spark.sql.streaming.realTimeMode.minBatchDuration";
    /// `true`: checkpoint files are fsynced, so a checkpoint survives the machine going down, not only the process (sparklet's; unset: not, as Spark never fsyncs).
    pub const CHECKPOINT_FSYNC: &str = "spark.sparklet.checkpoint.fsync";
    /// Whether real-time mode refuses operators and sinks outside Spark's allowlist.
    pub const REAL_TIME_ALLOWLIST_CHECK: &str = "spark.sql.streaming.realTimeMode.allowlistCheck";
}

/// Spark's defaults for the keys above (sparklet differs only where noted).
const DEFAULTS: &[(&str, &str)] = &[
    // Spark's 200 suits a cluster; one machine wants about one partition per
    // core (each partition is a state store instance). Documented.
    (keys::SHUFFLE_PARTITIONS, "4"),
    // Spark uses the JVM's zone; sparklet defaults to UTC so results do not
    // depend on the machine (documented in docs/differences.md).
    (keys::SESSION_TIME_ZONE, "UTC"),
    (keys::NUM_RECENT_PROGRESS, "100"),
    (keys::NO_DATA_PROGRESS_INTERVAL, "10000"),
    (keys::POLLING_DELAY, "10"),
    (keys::SCHEMA_INFERENCE, "false"),
    (keys::MIN_BATCHES_TO_RETAIN, "100"),
    (keys::STOP_ACTIVE_RUN_ON_RESTART, "true"),
    (keys::FILE_SINK_COMPACT_INTERVAL, "10"),
    (keys::MULTIPLE_WATERMARK_POLICY, "min"),
    (keys::MIN_DELTAS_FOR_SNAPSHOT, "10"),
    (keys::STATE_STORE_ENCODING, "unsaferow"),
    (keys::NO_DATA_MICRO_BATCHES, "true"),
    (keys::REAL_TIME_MIN_BATCH_DURATION, "5000"),
    (keys::REAL_TIME_ALLOWLIST_CHECK, "true"),
];

/// A session's runtime configuration (`spark.conf`).
#[derive(Debug, Default)]
pub struct Conf {
    values: RwLock<BTreeMap<String, String>>,
}

impl Conf {
    /// A configuration holding `initial` on top of Spark's defaults.
    pub fn new(initial: impl IntoIterator<Item = (String, String)>) -> Self {
        let mut values: BTreeMap<String, String> = DEFAULTS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        values.extend(initial);
        Conf {
            values: RwLock::new(values),
        }
    }

    /// The value of `key`, if set or defaulted.
    pub fn get(&self, key: &str) -> Option<String> {
        self.values.read().get(key).cloned()
    }

    /// Set `key` to `value`.
    pub fn set(&self, key: &str, value: &str) {
        self.values
            .write()
            .insert(key.to_string(), value.to_string());
    }

    /// Remove `key` (it falls back to its default, if any).
    pub fn unset(&self, key: &str) {
        let mut values = self.values.write();
        values.remove(key);
        if let Some((k, v)) = DEFAULTS.iter().find(|(k, _)| *k == key) {
            values.insert(k.to_string(), v.to_string());
        }
    }

    /// All settings, sorted by key.
    pub fn all(&self) -> Vec<(String, String)> {
        self.values
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// `key` parsed as an integer, or `default` when unset or unparsable.
    pub fn get_i64(&self, key: &str, default: i64) -> i64 {
        self.get(key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }

    /// `key` parsed as a boolean.
    pub fn get_bool(&self, key: &str, default: bool) -> bool {
        self.get(key)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
            .unwrap_or(default)
    }
}
