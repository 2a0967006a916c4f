//! Triggers and Spark's interval strings (`"10 seconds"`, `"1 minute"`).

use crate::error::{Error, Result};

/// When micro-batches run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// Every `interval_ms` (0: as soon as the previous batch finished).
    ProcessingTime {
        /// Interval between batch starts, in ms.
        interval_ms: u64,
    },
    /// One batch with what is available, then stop.
    Once,
    /// Everything available at start, in as many batches as limits allow, then stop.
    AvailableNow,
    /// Spark 4.1's real-time mode: records are processed as they arrive
    /// within long-running batches of `interval_ms` (the checkpoint
    /// interval, not a latency); update output mode.
    RealTime {
        /// Length of each long-running batch, in ms.
        interval_ms: u64,
    },
    /// Continuous processing: map-like queries, records processed as they
    /// arrive, progress checkpointed every `interval_ms`.
    Continuous {
        /// Checkpoint interval, in ms.
        interval_ms: u64,
    },
}

impl Trigger {
    /// The trigger `DataStreamWriter.trigger(...)` named (`processingTime`,
    /// `once`, `availableNow`, `realTime`, `continuous`) with its interval.
    pub fn named(name: &str, interval_ms: u64) -> Result<Self> {
        Ok(match name {
            "processingTime" => Trigger::ProcessingTime { interval_ms },
            "once" => Trigger::Once,
            "availableNow" => Trigger::AvailableNow,
            "realTime" => Trigger::RealTime { interval_ms },
            "continuous" => Trigger::Continuous { interval_ms },
            other => {
                return Err(Error::illegal_argument(format!(
                    "Unknown trigger '{other}': processingTime, once, availableNow, realTime or continuous"
                )))
            }
        })
    }

    /// The long-running-batch length of the real-time and continuous modes.
    pub fn real_time_interval_ms(&self) -> Option<u64> {
        match self {
            Trigger::RealTime { interval_ms } | Trigger::Continuous { interval_ms } => {
                Some(*interval_ms)
            }
            _ => None,
        }
    }
}

impl Default for Trigger {
    fn default() -> Self {
        Trigger::ProcessingTime { interval_ms: 0 }
    }
}

/// Parse an interval like `"10 seconds"`, `"1 minute 30 seconds"`,
/// `"interval 500 milliseconds"` or `"2h"` into milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<i64> {
    let bad = || {
        Error::illegal_argument(format!(
            "Invalid interval '{text}': expected e.g. '10 seconds', '1 minute' or '500 milliseconds'"
        ))
    };
    let lower = text.trim().to_ascii_lowercase();
    let body = lower.strip_prefix("interval").unwrap_or(&lower).trim();
    // split "10seconds" / "10 s" into number and unit tokens
    let mut tokens: Vec<String> = Vec::new();
    for word in body.split_whitespace() {
        let digits: String = word
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
            .collect();
        if !digits.is_empty() && digits.len() < word.len() {
            tokens.push(digits.clone());
            tokens.push(word[digits.len()..].to_string());
        } else {
            tokens.push(word.to_string());
        }
    }
    if tokens.is_empty() || !tokens.len().is_multiple_of(2) {
        return Err(bad());
    }
    let mut total = 0f64;
    for pair in tokens.chunks(2) {
        let n: f64 = pair[0].trim_matches('\'').parse().map_err(|_| bad())?;
        let ms = match pair[1].trim_matches('\'') {
            "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1.0,
            "us" | "micro" | "micros" | "microsecond" | "microseconds" => 0.001,
            "s" | "sec" | "secs" | "second" | "seconds" => 1000.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hour" | "hours" => 3_600_000.0,
            "d" | "day" | "days" => 86_400_000.0,
            "w" | "week" | "weeks" => 604_800_000.0,
            _ => return Err(bad()),
        };
        total += n * ms;
    }
    if total < 0.0 {
        return Err(bad());
    }
    Ok(total.round() as i64)
}
