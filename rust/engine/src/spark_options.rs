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
        /// `spark.sql.caseSensitive`: column names resolve only as written
        /// (by default Spark matches them without regard to case)
        pub case_sensitive: bool, default = false
        /// `spark.sql.ansi.enabled` is false: a zero divisor gives null
        /// rather than Spark's `DIVIDE_BY_ZERO` error
        pub ansi_disabled: bool, default = false
    }
}

impl ConfigExtension for SparkOptions {
    const PREFIX: &'static str = "sparklet";
}

/// The Spark setting of case-sensitive column resolution.
pub const CASE_SENSITIVE: &str = "spark.sql.caseSensitive";

/// Whether `config` resolves column names case-sensitively.
pub fn case_sensitive(config: &datafusion::prelude::SessionConfig) -> bool {
    config
        .options()
        .extensions
        .get::<SparkOptions>()
        .is_some_and(|o| o.case_sensitive)
}

/// The Spark setting of ANSI SQL behaviour (on by default, as in Spark 4).
pub const ANSI_ENABLED: &str = "spark.sql.ansi.enabled";

/// The Spark setting of the map key policy.
pub const MAP_KEY_DEDUP_POLICY: &str = "spark.sql.mapKeyDedupPolicy";
