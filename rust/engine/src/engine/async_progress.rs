//! Asynchronous progress tracking (the writer options
//! `asyncProgressTrackingEnabled` and
//! `asyncProgressTrackingCheckpointIntervalMs`): a batch's `offsets/N` and
//! `commits/N` are written by a background thread instead of on the batch's
//! critical path, and only for batches at least the interval apart. After a
//! crash the query resumes from the last batch logged and committed, so
//! batches after it run again: at-least-once, which is why Spark allows it
//! only for stateless queries and sinks a replay cannot corrupt.

use std::collections::HashMap;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::trigger::Trigger;
use crate::checkpoint::{Checkpoint, OffsetSeq};
use crate::error::{Error, Result};
use crate::sinks::Sink;

/// The writer options, parsed (keys lower-cased).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncProgressOptions {
    /// `asyncProgressTrackingEnabled`.
    pub enabled: bool,
    /// `asyncProgressTrackingCheckpointIntervalMs` (Spark's default: 1000).
    pub interval_ms: u64,
}

impl Default for AsyncProgressOptions {
    fn default() -> Self {
        AsyncProgressOptions {
            enabled: false,
            interval_ms: 1000,
        }
    }
}

impl AsyncProgressOptions {
    /// Read the two options from a writer's options (lower-cased keys).
    pub fn from_writer_options(options: &HashMap<String, String>) -> Result<Self> {
        let mut out = AsyncProgressOptions::default();
        if let Some(v) = options.get("asyncprogresstrackingenabled") {
            out.enabled = match v.trim().to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(Error::illegal_argument(format!(
                        "Invalid value '{v}' for option 'asyncProgressTrackingEnabled': expected true or false"
                    )))
                }
            };
        }
        if let Some(v) = options.get("asyncprogresstrackingcheckpointintervalms") {
            // Spark's words (a NumberFormatException), then which option
            out.interval_ms = v.trim().parse::<u64>().map_err(|_| {
                Error::illegal_argument(format!(
                    "For input string: \"{v}\" (option asyncProgressTrackingCheckpointIntervalMs: a number of milliseconds, 0 or more)"
                ))
            })?;
        }
        Ok(out)
    }
}

enum Job {
    Offsets(i64, OffsetSeq),
    Commit(i64, i64),
}

/// The background writer of one query's offsets and commit logs. Entries
/// are written in the order submitted (a batch's commit after its offsets).
pub struct AsyncProgressLog {
    tx: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    failure: Arc<Mutex<Option<String>>>,
    interval: Duration,
    last_logged: Option<Instant>,
    /// The newest batch whose offsets were submitted, and whether its commit was.
    newest: Option<(i64, bool)>,
    /// The newest batch run, its offsets, and its commit's watermark (for
    /// the final entry written at a graceful stop).
    pending: Option<(i64, OffsetSeq, Option<i64>)>,
}

impl AsyncProgressLog {
    /// A writer for `checkpoint`'s logs, logging batches `interval_ms` apart.
    pub fn new(checkpoint: Checkpoint, interval_ms: u64) -> Result<Self> {
        let (tx, rx) = channel::<Job>();
        let failure = Arc::new(Mutex::new(None));
        let failed = Arc::clone(&failure);
        let thread = std::thread::Builder::new()
            .name("async-log-write".into())
            .spawn(move || {
                for job in rx {
                    let done = match &job {
                        Job::Offsets(batch, seq) => checkpoint.write_offsets(*batch, seq),
                        Job::Commit(batch, wm) => checkpoint.write_commit(*batch, *wm),
                    };
                    if let Err(e) = done {
                        *failed.lock() = Some(e.to_string());
                        return;
                    }
                }
            })
            .map_err(|e| Error::Internal(format!("cannot start the async log writer: {e}")))?;
        Ok(AsyncProgressLog {
            tx: Some(tx),
            thread: Some(thread),
            failure,
            interval: Duration::from_millis(interval_ms),
            last_logged: None,
            newest: None,
            pending: None,
        })
    }

    /// A write that failed in the background fails the query.
    fn check(&self) -> Result<()> {
        match self.failure.lock().as_ref() {
            Some(message) => Err(Error::Checkpoint {
                condition: "STREAMING_ASYNC_OPERATION_FAILED".into(),
                message: format!(
                    "Asynchronous streaming operation failed with exception: {message}"
                ),
            }),
            None => Ok(()),
        }
    }

    fn submit(&self, job: Job) -> Result<()> {
        self.check()?;
        let sent = self.tx.as_ref().map(|tx| tx.send(job).is_ok());
        if sent != Some(true) {
            self.check()?;
            return Err(Error::Internal("the async log writer has stopped".into()));
        }
        Ok(())
    }

    /// Batch `batch` starts with offsets `seq`: log them unless a batch was
    /// logged less than the interval ago.
    pub fn offsets(&mut self, batch: i64, seq: OffsetSeq) -> Result<()> {
        let due = self
            .last_logged
            .is_none_or(|t| t.elapsed() >= self.interval);
        if due {
            self.submit(Job::Offsets(batch, seq.clone()))?;
            self.last_logged = Some(Instant::now());
            self.newest = Some((batch, false));
        }
        self.pending = Some((batch, seq, None));
        Ok(())
    }

    /// Batch `batch` runs again with the offsets an earlier run logged:
    /// its commit is to be logged.
    pub fn replaying(&mut self, batch: i64) {
        self.newest = Some((batch, false));
        self.last_logged = Some(Instant::now());
    }

    /// Batch `batch` finished: log its commit if its offsets were logged.
    pub fn commit(&mut self, batch: i64, next_watermark_ms: i64) -> Result<()> {
        if let Some((b, _, wm)) = &mut self.pending {
            if *b == batch {
                *wm = Some(next_watermark_ms);
            }
        }
        if self.newest == Some((batch, false)) {
            self.submit(Job::Commit(batch, next_watermark_ms))?;
            self.newest = Some((batch, true));
        }
        Ok(())
    }

    /// A graceful stop: log the newest finished batch if it was skipped
    /// (a restart then continues after it instead of running it again),
    /// and wait for every entry to be written.
    pub fn finish(&mut self) -> Result<()> {
        if let Some((batch, seq, Some(wm))) = self.pending.take() {
            if self.newest.is_none_or(|(b, _)| b < batch) {
                self.submit(Job::Offsets(batch, seq))?;
                self.submit(Job::Commit(batch, wm))?;
            }
        }
        self.close();
        self.check()
    }

    fn close(&mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for AsyncProgressLog {
    fn drop(&mut self) {
        self.close();
    }
}

/// Spark's restrictions on asynchronous progress tracking (its
/// `AsyncProgressTrackingMicroBatchExecution`): replays must be harmless.
pub(crate) fn check_supported(
    options: &AsyncProgressOptions,
    trigger: &Trigger,
    sink: &dyn Sink,
    stateful: bool,
) -> Result<()> {
    if !options.enabled {
        return Ok(());
    }
    match trigger {
        Trigger::Once => {
            return Err(Error::illegal_argument(
                "Async progress tracking cannot be used with Once trigger",
            ))
        }
        Trigger::AvailableNow => {
            return Err(Error::illegal_argument(
                "Async progress tracking cannot be used with AvailableNow trigger",
            ))
        }
        Trigger::RealTime { .. } if options.interval_ms != 0 => {
            return Err(Error::analysis(
                "STREAMING_REAL_TIME_MODE.ASYNC_PROGRESS_TRACKING_CHECKPOINTING_INTERVAL_NON_ZERO",
                "Streaming real-time mode has the following limitation: The checkpointing interval for async progress tracking must be set to 0, which means each progress update is checkpointed. Set option asyncProgressTrackingCheckpointIntervalMs to 0 in DataStreamWriter options and retry your query.",
            ))
        }
        _ => {}
    }
    if !sink.supports_async_progress() {
        return Err(Error::illegal_argument(format!(
            "Sink {} does not support async progress tracking",
            sink.description()
        )));
    }
    if stateful {
        return Err(Error::illegal_argument(
            "Stateful streaming queries does not support async progress tracking at this moment.",
        ));
    }
    Ok(())
}
