//! Spark settings the plans' functions read at run time, carried in
//! DataFusion's config (as the session time zone is) so a DataFrame run
//! after `spark.conf.set` sees them.

use datafusion::common::config::ConfigExtension;

datafusion::common::extensions_options! {
    /// Spark settings for functions.
    pub struct SparkOptions {
        /// `spark.sql.mapKeyDedupPolicy` is `LAST_WIN` (a repeated map key
        /// keeps its last value) rather than `EXCEPTION`
        pub map_key_last_win: bool, default = false
    }
}

impl ConfigExtension for SparkOptions {
    const PREFIX: &'static str = "sparklet";
}

/// The Spark setting of the map key policy.
pub const MAP_KEY_DEDUP_POLICY: &str = "spark.sql.mapKeyDedupPolicy";
