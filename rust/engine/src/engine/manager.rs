//! `spark.streams`: the session's active queries and termination tracking.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::query::{QueryShared, StreamingQuery};
use crate::error::{Error, Result};

#[derive(Debug, Default)]
struct ManagerState {
    active: Vec<Arc<QueryShared>>,
    /// A query that ended since the last `reset_terminated`.
    terminated: Option<Arc<QueryShared>>,
    /// Ended queries the web UI lists, oldest first.
    finished: std::collections::VecDeque<Arc<QueryShared>>,
    /// Temporary checkpoints of queries that failed, kept for a look until
    /// the process exits (Spark deletes them at JVM exit).
    failed_temporary: Vec<std::path::PathBuf>,
}

/// Ended queries the web UI keeps (Spark's `spark.sql.streaming.ui.retainedQueries`).
const RETAINED_QUERIES: usize = 100;

/// The session's streaming query manager.
#[derive(Debug, Default)]
pub struct QueryManager {
    state: Mutex<ManagerState>,
    changed: Condvar,
    /// The queries' listener events.
    pub bus: Arc<super::listener::ListenerBus>,
}

impl QueryManager {
    /// Before a run starts: refuse a second active query with the same name;
    /// for one with the same id (the same checkpoint), stop the old run when
    /// `stop_active` (`spark.sql.streaming.stopActiveRunOnRestart`) or refuse.
    pub(crate) fn prepare_start(
        &self,
        name: Option<&str>,
        id: &str,
        stop_active: bool,
    ) -> Result<()> {
        let same_id = {
            let st = self.state.lock();
            for q in &st.active {
                if name.is_some() && q.name.as_deref() == name && q.id != id {
                    return Err(Error::illegal_argument(format!(
                        "Cannot start query with name {} as a query with that name is already active in this SparkSession",
                        name.unwrap_or_default()
                    )));
                }
            }
            st.active.iter().find(|q| q.id == id).cloned()
        };
        if let Some(old) = same_id {
            if !stop_active {
                return Err(Error::illegal_argument(format!(
                    "[CONCURRENT_QUERY] Another instance of this query [id: {id}] was just started by a concurrent session. \
                     Cannot start query with id {id} as another query with same id is already active. \
                     Perhaps you are attempting to restart a query from checkpoint that is already active."
                )));
            }
            StreamingQuery { shared: old }.stop();
        }
        Ok(())
    }

    /// Keep the temporary checkpoint of a query that failed.
    pub(crate) fn keep_failed_temporary(&self, root: std::path::PathBuf) {
        self.state.lock().failed_temporary.push(root);
    }

    /// Remove the temporary checkpoints failed queries left (at exit).
    pub fn remove_failed_temporary_checkpoints(&self) {
        let dirs = std::mem::take(&mut self.state.lock().failed_temporary);
        for dir in dirs {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    pub(crate) fn register(&self, q: Arc<QueryShared>) {
        self.state.lock().active.push(q);
    }

    /// A query's run is ending: it is no longer listed as active. Called
    /// before the query's own waiters learn it ended (Spark's order), so
    /// that once `awaitTermination()` returns, `spark.streams.active` does
    /// not list it.
    pub(crate) fn deactivate(&self, q: &Arc<QueryShared>) {
        self.state.lock().active.retain(|a| !Arc::ptr_eq(a, q));
    }

    /// A query ended (after [`Self::deactivate`] and its own state): wake
    /// `awaitAnyTermination`.
    pub(crate) fn terminated(&self, q: &Arc<QueryShared>) {
        let mut st = self.state.lock();
        st.active.retain(|a| !Arc::ptr_eq(a, q));
        st.terminated = Some(Arc::clone(q));
        st.finished.push_back(Arc::clone(q));
        if st.finished.len() > RETAINED_QUERIES {
            st.finished.pop_front();
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Queries still running.
    pub fn active(&self) -> Vec<StreamingQuery> {
        self.state
            .lock()
            .active
            .iter()
            .map(|s| StreamingQuery {
                shared: Arc::clone(s),
            })
            .collect()
    }

    /// Queries that ended (the most recent [`RETAINED_QUERIES`]), oldest first.
    pub fn finished(&self) -> Vec<StreamingQuery> {
        self.state
            .lock()
            .finished
            .iter()
            .map(|s| StreamingQuery {
                shared: Arc::clone(s),
            })
            .collect()
    }

    /// An active query by id.
    pub fn get(&self, id: &str) -> Option<StreamingQuery> {
        self.active().into_iter().find(|q| q.id() == id)
    }

    /// Wait until any query ends (since the last reset). `Ok(true)` if one
    /// ended, `Ok(false)` on timeout, `Err` if it ended with an error.
    pub fn await_any_termination(&self, timeout: Option<Duration>) -> Result<bool, Arc<Error>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock();
        while st.terminated.is_none() {
            match deadline {
                Some(d) => {
                    if self.changed.wait_until(&mut st, d).timed_out() && st.terminated.is_none() {
                        return Ok(false);
                    }
                }
                None => self.changed.wait(&mut st),
            }
        }
        let q = st.terminated.clone();
        drop(st);
        match q.and_then(|q| q.state.lock().exception.clone()) {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }

    /// Forget ended queries, so `await_any_termination` waits for a new one.
    pub fn reset_terminated(&self) {
        self.state.lock().terminated = None;
    }

    /// Stop every active query (session shutdown).
    pub fn stop_all(&self) {
        self.stop_all_within(None);
    }

    /// Stop every active query, waiting up to `timeout` for each (see
    /// [`StreamingQuery::stop_within`]); the ids of those still busy then.
    pub fn stop_all_within(&self, timeout: Option<std::time::Duration>) -> Vec<String> {
        self.active()
            .into_iter()
            .filter(|q| !q.stop_within(timeout))
            .map(|q| q.id().to_string())
            .collect()
    }
}
