//! Spark's `StreamingQueryListener` bus: queries post their events (started,
//! progress, idle, terminated) as JSON, in order, to every subscriber's
//! queue of [`CAPACITY`] events. Posting never blocks the engine: while a
//! subscriber's queue is full (a listener that does not return), its new
//! events are dropped with a warning, as Spark's listener bus does, so a
//! slow listener costs events, never memory without bound. A subscriber
//! that went away is dropped at the next post. The Python side subscribes
//! with one thread that calls the user's listeners.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{json, Value};

use super::progress::QueryProgress;

/// The logger of query lifecycle lines (`sparklet.engine.query` in Python).
const QUERY_LOG: &str = "sparklet_engine::query";
/// The logger of state eviction lines (`sparklet.engine.state`).
const STATE_LOG: &str = "sparklet_engine::state";

/// Events a subscriber's queue holds (Spark's
/// `spark.scheduler.listenerbus.eventqueue.capacity` default).
pub const CAPACITY: usize = 10_000;
/// How often a subscriber that drops events is warned about.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// One subscriber's queue, and what it dropped since the last warning.
#[derive(Debug)]
struct Subscriber {
    tx: SyncSender<String>,
    dropped: u64,
    warned: Option<Instant>,
}

/// The subscribers of a session's query events.
#[derive(Debug, Default)]
pub struct ListenerBus {
    subscribers: Mutex<Vec<Subscriber>>,
}

impl ListenerBus {
    /// A new subscriber: every event posted from now on, in order, but
    /// those posted while its queue is full.
    pub fn subscribe(&self) -> Receiver<String> {
        self.subscribe_bounded(CAPACITY)
    }

    /// A subscriber whose queue holds `capacity` events.
    pub fn subscribe_bounded(&self, capacity: usize) -> Receiver<String> {
        let (tx, rx) = sync_channel(capacity);
        self.subscribers.lock().push(Subscriber {
            tx,
            dropped: 0,
            warned: None,
        });
        rx
    }

    fn post(&self, event: Value) {
        let mut subs = self.subscribers.lock();
        if subs.is_empty() {
            return;
        }
        let text = event.to_string();
        subs.retain_mut(|s| match s.tx.try_send(text.clone()) {
            Ok(()) => true,
            Err(TrySendError::Disconnected(_)) => false,
            Err(TrySendError::Full(_)) => {
                s.dropped += 1;
                if s.warned.is_none_or(|t| t.elapsed() >= WARN_EVERY) {
                    log::warn!(
                        "Dropped {} streaming listener events: a listener is not keeping up \
                         (its queue holds {CAPACITY} events). Make the listener return quickly.",
                        s.dropped
                    );
                    s.warned = Some(Instant::now());
                    s.dropped = 0;
                }
                true
            }
        });
    }

    /// `QueryStartedEvent` (and its INFO line, logger `sparklet.engine.query`).
    pub fn started(&self, id: &str, run_id: &str, name: Option<&str>, timestamp: &str) {
        log::info!(target: QUERY_LOG, "query {} started (id {id}, runId {run_id})", name.unwrap_or(id));
        self.post(json!({
            "event": "QueryStartedEvent", "id": id, "runId": run_id, "name": name,
            "timestamp": timestamp, "jobTags": [],
        }));
    }

    /// `QueryProgressEvent`: a batch ran (its INFO line, and one for the
    /// state rows the watermark evicted, if any).
    pub fn progress(&self, p: &QueryProgress) {
        // formatted only when someone listens: this runs once per batch
        if log::log_enabled!(target: QUERY_LOG, log::Level::Info)
            || log::log_enabled!(target: STATE_LOG, log::Level::Info)
        {
            log_progress(p);
        }
        self.post(json!({"event": "QueryProgressEvent", "progress": p}));
    }

    /// `QueryIdleEvent`: a trigger found nothing to do (Spark 3.5+ posts it
    /// instead of a progress event for an idle trigger).
    pub fn idle(&self, p: &QueryProgress) {
        self.post(json!({
            "event": "QueryIdleEvent", "id": p.id, "runId": p.run_id, "timestamp": p.timestamp,
        }));
    }

    /// `QueryTerminatedEvent`, with the error that ended the query (an
    /// INFO line, or an ERROR one with the error).
    pub fn terminated(&self, id: &str, run_id: &str, error: Option<(String, Option<String>)>) {
        match &error {
            None => log::info!(target: QUERY_LOG, "query {id} stopped (runId {run_id})"),
            Some((e, _)) => {
                log::error!(target: QUERY_LOG, "query {id} failed (runId {run_id}): {e}")
            }
        }
        let (exception, condition) = error.unzip();
        self.post(json!({
            "event": "QueryTerminatedEvent", "id": id, "runId": run_id,
            "exception": exception, "errorClassOnException": condition.flatten(),
        }));
    }
}

/// A batch's INFO line, and one for the state rows the watermark evicted.
fn log_progress(p: &QueryProgress) {
    let label = p.name.as_deref().unwrap_or(&p.id);
    let took = p.duration_ms.get("triggerExecution").copied().unwrap_or(0);
    let watermark = p
        .event_time
        .get("watermark")
        .map(|w| format!(", watermark {w}"))
        .unwrap_or_default();
    log::info!(
        target: QUERY_LOG,
        "query {label} batch {} planned, run and committed: {} input rows in {took} ms{watermark}",
        p.batch_id,
        p.num_input_rows
    );
    for (i, op) in p.state_operators.iter().enumerate() {
        let removed = op
            .get("numRowsRemoved")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if removed > 0 {
            let name = op
                .get("operatorName")
                .and_then(Value::as_str)
                .unwrap_or("stateful operator");
            log::info!(
                target: STATE_LOG,
                "query {label} batch {}: {removed} state rows evicted by operator {i} ({name})",
                p.batch_id
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_new_events_and_keeps_the_subscriber(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let bus = ListenerBus::default();
        let rx = bus.subscribe_bounded(3);
        for i in 0..10 {
            bus.started(&i.to_string(), "run", None, "t");
        }
        let got: Vec<String> = rx.try_iter().collect();
        assert_eq!(got.len(), 3);
        assert!(got[0].contains("\"id\":\"0\""));
        // room again: the next event arrives
        bus.started("10", "run", None, "t");
        assert!(rx.try_recv()?.contains("\"id\":\"10\""));
        Ok(())
    }
}
