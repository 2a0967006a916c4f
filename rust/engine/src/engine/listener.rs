//! Spark's `StreamingQueryListener` bus: queries post their events (started,
//! progress, idle, terminated) as JSON, in order, to every subscriber's
//! unbounded channel. Posting never blocks the engine; a subscriber that
//! went away is dropped at the next post. The Python side subscribes with
//! one thread that calls the user's listeners.

use std::sync::mpsc::{channel, Receiver, Sender};

use parking_lot::Mutex;
use serde_json::{json, Value};

use super::progress::QueryProgress;

/// The subscribers of a session's query events.
#[derive(Debug, Default)]
pub struct ListenerBus {
    subscribers: Mutex<Vec<Sender<String>>>,
}

impl ListenerBus {
    /// A new subscriber: every event posted from now on, in order.
    pub fn subscribe(&self) -> Receiver<String> {
        let (tx, rx) = channel();
        self.subscribers.lock().push(tx);
        rx
    }

    fn post(&self, event: Value) {
        let mut subs = self.subscribers.lock();
        if subs.is_empty() {
            return;
        }
        let text = event.to_string();
        subs.retain(|s| s.send(text.clone()).is_ok());
    }

    /// `QueryStartedEvent`.
    pub fn started(&self, id: &str, run_id: &str, name: Option<&str>, timestamp: &str) {
        self.post(json!({
            "event": "QueryStartedEvent", "id": id, "runId": run_id, "name": name,
            "timestamp": timestamp, "jobTags": [],
        }));
    }

    /// `QueryProgressEvent`: a batch ran.
    pub fn progress(&self, p: &QueryProgress) {
        self.post(json!({"event": "QueryProgressEvent", "progress": p}));
    }

    /// `QueryIdleEvent`: a trigger found nothing to do (Spark 3.5+ posts it
    /// instead of a progress event for an idle trigger).
    pub fn idle(&self, p: &QueryProgress) {
        self.post(json!({
            "event": "QueryIdleEvent", "id": p.id, "runId": p.run_id, "timestamp": p.timestamp,
        }));
    }

    /// `QueryTerminatedEvent`, with the error that ended the query.
    pub fn terminated(&self, id: &str, run_id: &str, error: Option<(String, Option<String>)>) {
        let (exception, condition) = error.unzip();
        self.post(json!({
            "event": "QueryTerminatedEvent", "id": id, "runId": run_id,
            "exception": exception, "errorClassOnException": condition.flatten(),
        }));
    }
}
