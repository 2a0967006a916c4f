//! Spark's output modes (`outputMode(...)`), which the plan checks and
//! the stateful operators emit by.

use crate::error::{Error, Result};

/// Spark's output modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Only new rows.
    #[default]
    Append,
    /// Rows changed in this batch.
    Update,
    /// The whole result every batch.
    Complete,
}

impl OutputMode {
    /// Parse `outputMode(...)` (case-insensitive).
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "append" => Ok(OutputMode::Append),
            "update" => Ok(OutputMode::Update),
            "complete" => Ok(OutputMode::Complete),
            _ => Err(Error::illegal_argument_in(
                "STREAMING_OUTPUT_MODE.INVALID",
                format!("Invalid streaming output mode: {s}. Accepted output modes are 'Append', 'Complete', 'Update'."),
            )),
        }
    }
}
