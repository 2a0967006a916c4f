//! `StreamingQuery`: the handle users hold on a running query. It only reads
//! shared state the engine thread publishes and asks the thread to stop.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::progress::{QueryProgress, QueryStatus};
use crate::error::{Error, Result};

/// What the engine thread publishes.
#[derive(Debug)]
pub(crate) struct QueryState {
    pub active: bool,
    pub exception: Option<Arc<Error>>,
    pub status: QueryStatus,
    pub recent: VecDeque<QueryProgress>,
    /// Times the loop found no new data (processAllAvailable waits on it).
    pub idle_checks: u64,
    /// Wall time of recent no-data triggers, ns (benchmarks read it).
    pub idle_nanos: VecDeque<u64>,
    /// Time spent writing offsets + commit per recent batch, ns.
    pub checkpoint_nanos: VecDeque<u64>,
    /// In an `AvailableNow` run: how far through its data it is.
    pub backlog: Option<crate::sources::Backlog>,
    /// Waiting for a manual clock to reach this time (the next trigger).
    pub waiting_until_ms: Option<i64>,
    /// When the run ended (stopped or failed), ms since the epoch.
    pub ended_ms: Option<i64>,
}

/// State shared between a query's handle(s) and its engine thread.
#[derive(Debug)]
pub struct QueryShared {
    pub(crate) id: String,
    pub(crate) run_id: String,
    pub(crate) name: Option<String>,
    pub(crate) explain: String,
    pub(crate) state: Mutex<QueryState>,
    pub(crate) changed: Condvar,
    pub(crate) stop: AtomicBool,
    pub(crate) thread: Mutex<Option<JoinHandle<()>>>,
    pub(crate) thread_id: Mutex<Option<ThreadId>>,
    pub(crate) max_recent: usize,
    /// Where its listener events go.
    pub(crate) bus: Arc<super::listener::ListenerBus>,
    /// When this run started, ms since the epoch.
    pub(crate) started_ms: i64,
}

impl QueryShared {
    pub(crate) fn new(
        id: String,
        name: Option<String>,
        explain: String,
        max_recent: usize,
        bus: Arc<super::listener::ListenerBus>,
    ) -> Self {
        QueryShared {
            id,
            run_id: uuid::Uuid::new_v4().to_string(),
            started_ms: chrono::Utc::now().timestamp_millis(),
            name,
            explain,
            state: Mutex::new(QueryState {
                active: true,
                exception: None,
                status: QueryStatus::new("Initializing sources", false, false),
                recent: VecDeque::new(),
                idle_checks: 0,
                idle_nanos: VecDeque::new(),
                checkpoint_nanos: VecDeque::new(),
                backlog: None,
                waiting_until_ms: None,
                ended_ms: None,
            }),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
            thread_id: Mutex::new(None),
            max_recent: max_recent.max(1),
            bus,
        }
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut QueryState)) {
        let mut st = self.state.lock();
        f(&mut st);
        drop(st);
        self.changed.notify_all();
    }

    /// Record a batch's progress (and post it to listeners).
    pub(crate) fn push_progress(&self, p: QueryProgress) {
        self.bus.progress(&p);
        self.record(p);
    }

    /// Record an idle trigger's progress (listeners get `QueryIdleEvent`).
    pub(crate) fn push_idle_progress(&self, p: QueryProgress) {
        self.bus.idle(&p);
        self.record(p);
    }

    fn record(&self, p: QueryProgress) {
        self.update(|st| {
            st.recent.push_back(p);
            while st.recent.len() > self.max_recent {
                st.recent.pop_front();
            }
        });
    }
}

/// A handle on a running (or finished) streaming query.
#[derive(Debug, Clone)]
pub struct StreamingQuery {
    pub(crate) shared: Arc<QueryShared>,
}

impl StreamingQuery {
    /// The query id, stable across restarts from the same checkpoint.
    pub fn id(&self) -> &str {
        &self.shared.id
    }

    /// The id of this run.
    pub fn run_id(&self) -> &str {
        &self.shared.run_id
    }

    /// The query name, if given with `queryName`.
    pub fn name(&self) -> Option<&str> {
        self.shared.name.as_deref()
    }

    /// When this run started, ms since the epoch.
    pub fn started_ms(&self) -> i64 {
        self.shared.started_ms
    }

    /// Whether the query is still running.
    pub fn is_active(&self) -> bool {
        self.shared.state.lock().active
    }

    /// What the query is doing now.
    pub fn status(&self) -> QueryStatus {
        self.shared.state.lock().status.clone()
    }

    /// The most recent progress, if any.
    pub fn last_progress(&self) -> Option<QueryProgress> {
        self.shared.state.lock().recent.back().cloned()
    }

    /// Recent progress, oldest first.
    pub fn recent_progress(&self) -> Vec<QueryProgress> {
        self.shared.state.lock().recent.iter().cloned().collect()
    }

    /// In an `AvailableNow` run: the data done of what it was capped at.
    pub fn backlog(&self) -> Option<crate::sources::Backlog> {
        self.shared.state.lock().backlog
    }

    /// The manual-clock time the query waits for to trigger next (None:
    /// not waiting on a manual clock).
    pub fn waiting_until_ms(&self) -> Option<i64> {
        self.shared.state.lock().waiting_until_ms
    }

    /// When the run ended (stopped or failed), ms since the epoch.
    pub fn ended_ms(&self) -> Option<i64> {
        self.shared.state.lock().ended_ms
    }

    /// The error that stopped the query, if it failed.
    pub fn exception(&self) -> Option<Arc<Error>> {
        self.shared.state.lock().exception.clone()
    }

    /// Wall times (ns) of the most recent triggers that found no new data.
    pub fn idle_trigger_nanos(&self) -> Vec<u64> {
        self.shared
            .state
            .lock()
            .idle_nanos
            .iter()
            .copied()
            .collect()
    }

    /// Time (ns) spent writing `offsets/N` + `commits/N` for recent batches.
    pub fn checkpoint_nanos(&self) -> Vec<u64> {
        self.shared
            .state
            .lock()
            .checkpoint_nanos
            .iter()
            .copied()
            .collect()
    }

    /// The plan description printed by `explain()`.
    pub fn explain(&self) -> String {
        self.shared.explain.clone()
    }

    /// Wait up to `timeout` for the query to end. `Ok(true)` when it ended
    /// normally, `Ok(false)` on timeout, `Err` with the failure otherwise.
    pub fn await_termination(&self, timeout: Option<Duration>) -> Result<bool, Arc<Error>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.shared.state.lock();
        while st.active {
            match deadline {
                Some(d) => {
                    if self.shared.changed.wait_until(&mut st, d).timed_out() && st.active {
                        return Ok(false);
                    }
                }
                None => self.shared.changed.wait(&mut st),
            }
        }
        match &st.exception {
            Some(e) => Err(Arc::clone(e)),
            None => Ok(true),
        }
    }

    /// The idle-check count `process_all_available` must reach for a call
    /// starting now: two checks, since the first may have begun before it.
    pub fn idle_target(&self) -> u64 {
        let target = self.shared.state.lock().idle_checks + 2;
        super::global_wake().notify();
        target
    }

    /// Wait up to `timeout` until the loop has found no new data `target`
    /// times (see [`Self::idle_target`]): everything available when the
    /// wait began is processed. `Ok(true)` when done, `Ok(false)` on timeout.
    pub fn process_all_available(
        &self,
        target: u64,
        timeout: Duration,
    ) -> Result<bool, Arc<Error>> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.lock();
        while st.active && st.idle_checks < target {
            if self
                .shared
                .changed
                .wait_until(&mut st, deadline)
                .timed_out()
            {
                return Ok(false);
            }
        }
        match &st.exception {
            Some(e) => Err(Arc::clone(e)),
            None => Ok(true),
        }
    }

    /// Ask the query to stop and wait for its thread (unless called from
    /// that thread, e.g. inside foreachBatch).
    pub fn stop(&self) {
        self.stop_within(None);
    }

    /// Stop the query and wait for its thread, up to `timeout` (Spark's
    /// `spark.sql.streaming.stopTimeout`; `None`: as long as it takes).
    /// `false`: the thread is still busy (a callback that does not return)
    /// when the time is up; it stops at its next step.
    pub fn stop_within(&self, timeout: Option<Duration>) -> bool {
        self.shared.stop.store(true, Ordering::SeqCst);
        super::global_wake().notify();
        let on_engine_thread = *self.shared.thread_id.lock() == Some(std::thread::current().id());
        if on_engine_thread {
            return true;
        }
        if let Some(t) = timeout {
            let deadline = Instant::now() + t;
            let mut st = self.shared.state.lock();
            while st.active {
                if self
                    .shared
                    .changed
                    .wait_until(&mut st, deadline)
                    .timed_out()
                    && st.active
                {
                    return false;
                }
            }
        }
        let handle = self.shared.thread.lock().take();
        if let Some(h) = handle {
            let _ = h.join();
        }
        true
    }
}
