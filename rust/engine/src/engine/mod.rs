//! The streaming engine: the micro-batch loop (`execution`), the query
//! handle users hold (`query`), triggers, progress and the query manager.

pub mod async_progress;
pub mod clock;
pub mod execution;
pub mod http_server;
pub mod interval;
pub mod listener;
pub mod manager;
pub mod progress;
pub mod query;
pub mod trigger;
pub mod web_ui;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// A wake-up signal: idle query loops wait on it, and sources that receive
/// data in-process (MemoryStream) notify it, so a query reacts at once
/// instead of at its next poll.
#[derive(Debug, Default)]
pub struct Wake {
    seq: Mutex<u64>,
    cv: Condvar,
}

impl Wake {
    /// Wake every waiter.
    pub fn notify(&self) {
        *self.seq.lock() += 1;
        self.cv.notify_all();
    }

    /// The current sequence number (pass it to `wait`).
    pub fn seq(&self) -> u64 {
        *self.seq.lock()
    }

    /// Sleep until notified after `seen`, or `timeout` passes.
    pub fn wait(&self, seen: u64, timeout: Duration) {
        let mut seq = self.seq.lock();
        if *seq == seen {
            self.cv.wait_for(&mut seq, timeout);
        }
    }
}

static GLOBAL_WAKE: OnceLock<Arc<Wake>> = OnceLock::new();

/// The process-wide wake signal shared by in-process sources and query loops.
pub fn global_wake() -> Arc<Wake> {
    Arc::clone(GLOBAL_WAKE.get_or_init(|| Arc::new(Wake::default())))
}
