//! The clock a query's triggers and processing time follow: the system's,
//! or a manual one that tests advance (Spark's `StreamManualClock`), so that
//! processing-time triggers and timeouts are tested without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the epoch that move only when advanced.
#[derive(Debug, Default)]
pub struct ManualClock {
    ms: AtomicI64,
}

impl ManualClock {
    /// A clock at `start_ms`.
    pub fn new(start_ms: i64) -> Self {
        ManualClock {
            ms: AtomicI64::new(start_ms),
        }
    }

    /// The clock's time.
    pub fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }

    /// Move the clock forward, waking queries waiting for a trigger.
    pub fn advance(&self, ms: i64) {
        self.ms.fetch_add(ms.max(0), Ordering::SeqCst);
        super::global_wake().notify();
    }
}

/// Which clock a query follows.
#[derive(Debug, Clone, Default)]
pub enum Clock {
    /// Wall-clock time.
    #[default]
    System,
    /// A [`ManualClock`].
    Manual(Arc<ManualClock>),
}

impl Clock {
    /// Milliseconds since the epoch.
    pub fn now_ms(&self) -> i64 {
        match self {
            Clock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
            Clock::Manual(c) => c.now_ms(),
        }
    }
}
