//! The micro-batch loop (Spark's `MicroBatchExecution`), one OS thread per
//! query. Per batch, in Spark's order: ask sources for their latest offsets,
//! read the new data, bind it into the plan, plan and run it with DataFusion,
//! hand the result to the sink, commit the sources, report progress.
//!
//! Around it, along Spark's seams: `plan::unsupported` refuses what Spark
//! refuses at start, `checkpoint::resume` decides where a run resumes,
//! `state::providers` picks the state store, [`operators`] opens the
//! stateful operators, [`incremental`] plans each batch, [`watermarks`]
//! tracks the event-time watermark, `progress` reports.

mod incremental;
mod operators;
mod real_time;
mod watermarks;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::datatypes::DataType;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::datasource::MemTable;
use datafusion::execution::context::SessionState;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::LogicalPlan;

use incremental::{bind, empty_inputs, optimize_once, run_plan, run_plan_discarding, BatchInputs};
pub use operators::explain;
use operators::{plan_with_operators, OpenSettings, WatermarkLags};
use watermarks::Watermarks;

use super::async_progress::{AsyncProgressLog, AsyncProgressOptions};
use super::progress::{
    format_timestamp_ms, rate, QueryProgress, QueryStatus, SinkProgress, SourceProgress,
};
use super::query::{QueryShared, StreamingQuery};
use super::trigger::Trigger;
use super::{global_wake, manager::QueryManager};
use crate::catalog::stream_tables;
use crate::checkpoint::resume::{resume_point, Start};
use crate::checkpoint::{
    Checkpoint, CheckpointLock, CheckpointPaths, OffsetSeq, OffsetSeqMetadata,
};
use crate::conf::{keys, Conf};
use crate::error::{Error, Result};
use crate::exec::observe::ObserveNode;
use crate::exec::operator::OperatorControl;
use crate::failpoint;
pub use crate::plan::output_mode::OutputMode;
use crate::plan::unsupported::{check_supported, has_stateful_nodes};
use crate::runtime::{block_on, on_blocking_thread, Blocking};
use crate::sinks::{Sink, SinkBatch};
use crate::sources::{BatchInput, Offset, Source, SourceContext, SourceFactory};
use crate::state::partitioned::OperatorStateSpec;
use crate::state::providers::{state_encoding, state_store_provider};

/// Where the query keeps its checkpoint.
#[derive(Debug, Clone)]
pub struct CheckpointSpec {
    /// The checkpoint folder.
    pub dir: std::path::PathBuf,
    /// A temporary folder, removed when the query stops without error.
    pub temporary: bool,
}

/// Everything `writeStream.start()` decided.
pub struct StartOptions {
    /// `queryName`.
    pub name: Option<String>,
    /// The trigger.
    pub trigger: Trigger,
    /// The output mode.
    pub output_mode: OutputMode,
    /// The checkpoint.
    pub checkpoint: CheckpointSpec,
    /// Where rows dropped behind the watermark go (`lateRowsTable`).
    pub late_rows: Option<Box<dyn Sink>>,
    /// The clock triggers and processing time follow.
    pub clock: crate::engine::clock::Clock,
    /// Asynchronous progress tracking.
    pub async_progress: AsyncProgressOptions,
}

/// A batch's `offsets/N` being written: done (ns taken) or on its way.
enum OffsetsWrite {
    Done(u64),
    Pending(Blocking<u64>),
}

impl OffsetsWrite {
    /// Wait until the file is written; ns its writing took.
    fn wait(self) -> Result<u64> {
        match self {
            OffsetsWrite::Done(nanos) => Ok(nanos),
            OffsetsWrite::Pending(w) => w.wait("writing the offsets log"),
        }
    }
}

/// Make this run the checkpoint's one owner: its query id and its lock. A
/// run of the same query active in this session is stopped first (or
/// refused, as `spark.sql.streaming.stopActiveRunOnRestart` says); a run
/// elsewhere, in another session or process, is refused.
fn own_checkpoint(
    cp: &Checkpoint,
    name: Option<&str>,
    conf: &Conf,
    manager: &QueryManager,
) -> Result<(String, CheckpointLock)> {
    let stop_active = conf.get_bool(keys::STOP_ACTIVE_RUN_ON_RESTART, true);
    if let Some(lock) = cp.try_lock()? {
        let id = cp.query_id(&uuid::Uuid::new_v4().to_string())?;
        manager.prepare_start(name, &id, stop_active)?;
        return Ok((id, lock));
    }
    // held: by a run this session may stop, or by someone else
    let busy = || {
        Error::illegal_argument(format!(
            "[CONCURRENT_QUERY] Another run is using the checkpoint {} (in this process or another): \
             only one run at a time may use a checkpoint location. Stop the other run, or start this query with its own checkpointLocation.",
            cp.root().display()
        ))
    };
    let id = cp.stored_query_id()?.ok_or_else(busy)?;
    manager.prepare_start(name, &id, stop_active)?;
    let lock = cp.try_lock()?.ok_or_else(busy)?;
    Ok((id, lock))
}

/// Whether a source's newest offset is past where the query is.
fn any_new(latest: &[Option<Offset>], at: &[Option<Offset>]) -> bool {
    latest.iter().zip(at).any(|(l, c)| l.is_some() && l != c)
}

/// Start a query over `plan` writing to `sink`. Checks the plan (analysis
/// errors surface here, before any thread starts), then runs the loop on a
/// new thread.
pub fn start(
    state: SessionState,
    plan: LogicalPlan,
    sink: Box<dyn Sink>,
    opts: StartOptions,
    conf: &Conf,
    manager: &Arc<QueryManager>,
) -> Result<StreamingQuery> {
    let temporary = opts
        .checkpoint
        .temporary
        .then(|| opts.checkpoint.dir.clone());
    let started = start_query(streaming_state(state), plan, sink, opts, conf, manager);
    if let (Err(_), Some(dir)) = (&started, temporary) {
        // a query refused at start leaves no temporary checkpoint behind
        let _ = std::fs::remove_dir_all(dir);
    }
    started
}

/// The session's state for a streaming query: without DataFusion's rule
/// that answers an aggregate from its input's statistics (over an empty
/// micro-batch it replaces the aggregation the query's state is kept by).
fn streaming_state(state: SessionState) -> SessionState {
    let rules = state
        .physical_optimizers()
        .iter()
        .filter(|r| r.name() != "aggregate_statistics")
        .cloned()
        .collect();
    datafusion::execution::session_state::SessionStateBuilder::new_from_existing(state)
        .with_physical_optimizer_rules(rules)
        .build()
}

fn start_query(
    state: SessionState,
    plan: LogicalPlan,
    mut sink: Box<dyn Sink>,
    opts: StartOptions,
    conf: &Conf,
    manager: &Arc<QueryManager>,
) -> Result<StreamingQuery> {
    let factories: Vec<Arc<dyn SourceFactory>> = stream_tables(&plan);
    if factories.is_empty() {
        return Err(Error::analysis(
            "WRITE_STREAM_NOT_ALLOWED",
            "'writeStream' can be called only on streaming Dataset/DataFrame.",
        ));
    }
    let aggregating = check_supported(&plan, opts.output_mode)?;
    let stateful = aggregating || has_stateful_nodes(&plan);
    super::async_progress::check_supported(
        &opts.async_progress,
        &opts.trigger,
        sink.as_ref(),
        stateful,
    )?;
    real_time::check_supported(&plan, &opts, sink.as_ref(), &factories, conf)?;
    let max_policy = conf
        .get(keys::MULTIPLE_WATERMARK_POLICY)
        .is_some_and(|p| p.eq_ignore_ascii_case("max"));
    let (plan, watermarks) = Watermarks::attach(plan, max_policy)?;
    // plan once over empty inputs: type errors are analysis errors at start()
    let probe = bind(&plan, &factories, &empty_inputs(&factories)?)?;
    block_on(state.create_physical_plan(&probe))?.map_err(Error::from_planning)?;
    // files fsynced only when asked: Spark never fsyncs its checkpoint (a
    // killed process loses nothing the page cache holds)
    let fsync = !opts.checkpoint.temporary && conf.get_bool(keys::CHECKPOINT_FSYNC, false);
    let cp = Checkpoint::open(CheckpointPaths::new(&opts.checkpoint.dir, fsync))?;
    let paths = cp.paths().clone();
    let (id, lock) = own_checkpoint(&cp, opts.name.as_deref(), conf, manager)?;
    sink.bind_query(&id);
    let Start {
        batch_id,
        committed,
        replay,
        late_watermark_ms,
    } = resume_point(&cp, factories.len())?;
    let retain = conf.get_i64(keys::MIN_BATCHES_TO_RETAIN, 100).max(1);
    let mut sources = factories
        .iter()
        .enumerate()
        .map(|(index, f)| {
            f.create(&SourceContext {
                index,
                metadata_dir: Some(paths.source(index)),
                fsync: paths.fsync(),
                min_batches_to_retain: retain,
                real_time: opts.trigger.real_time_interval_ms().is_some(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    for (src, c) in sources.iter_mut().zip(&committed) {
        src.restore(c.as_ref())?;
    }
    let watermark_ms = match (&replay, batch_id) {
        (Some(seq), _) => seq.metadata.batch_watermark_ms,
        (None, 0) => 0,
        (None, b) => cp.read_commit(b - 1)?,
    };
    let partitions = conf.get_i64(keys::SHUFFLE_PARTITIONS, 2).max(1);
    if stateful {
        // beyond Spark: state written with another partition count is
        // repartitioned (also finishes a rescale a crash interrupted)
        for (op, from) in crate::state::rescale::rescale(
            &paths.state(),
            batch_id,
            partitions as usize,
            paths.fsync(),
        )? {
            log::info!(
                "state of operator {op} in {} repartitioned from {from} to {partitions} partitions",
                cp.root().display()
            );
        }
    }
    let provider = state_store_provider(conf)?;
    let encoding = state_encoding(&cp, replay.is_none() && batch_id == 0, conf)?;
    let op_spec = |id: usize| OperatorStateSpec {
        id,
        dir: paths.operator(id),
        partitions: partitions as usize,
        version: batch_id,
        min_deltas_for_snapshot: conf.get_i64(keys::MIN_DELTAS_FOR_SNAPSHOT, 10),
        min_versions_to_retain: retain,
        evolution: None,
        encoding,
        durable: !opts.checkpoint.temporary,
        fsync: paths.fsync(),
    };
    let settings = OpenSettings {
        mode: opts.output_mode,
        provider: &provider,
        spec: &op_spec,
        checks_mode: true,
    };
    let ((plan, mut operators, watermark_lags), _physical, explain) =
        plan_with_operators(&state, plan, &factories, &settings)?;
    operators.sort_by_key(|(id, _)| *id);
    let shared = Arc::new(QueryShared::new(
        id,
        opts.name.clone(),
        explain,
        // Spark keeps one fewer than the setting (it trims before it adds)
        (conf.get_i64(keys::NUM_RECENT_PROGRESS, 100) - 1).max(1) as usize,
        Arc::clone(&manager.bus),
    ));
    manager.register(Arc::clone(&shared));
    shared.bus.started(
        &shared.id,
        &shared.run_id,
        shared.name.as_deref(),
        &crate::engine::progress::format_timestamp_ms(opts.clock.now_ms()),
    );
    let mut conf_snapshot = BTreeMap::new();
    for key in [keys::SHUFFLE_PARTITIONS, keys::SESSION_TIME_ZONE] {
        if let Some(v) = conf.get(key) {
            conf_snapshot.insert(key.to_string(), v);
        }
    }
    conf_snapshot.insert(
        keys::STATE_STORE_ENCODING.to_string(),
        encoding.name().to_string(),
    );
    let observations = observations_in(&plan);
    let optimized = optimize_once(&state, &plan);
    let mut exec = Execution {
        shared: Arc::clone(&shared),
        state,
        observations,
        plan,
        optimized,
        factories,
        sources,
        sink,
        trigger: opts.trigger,
        committed,
        batch_id,
        replay,
        operators,
        watermark_lags,
        late_sink: opts.late_rows,
        watermarks,
        watermark_ms,
        restored_late_watermark_ms: Some(late_watermark_ms),
        next_watermark_ms: watermark_ms,
        no_data_batches: conf.get_bool(keys::NO_DATA_MICRO_BATCHES, true),
        progress_log: match opts.async_progress.enabled {
            true => Some(AsyncProgressLog::new(
                cp.clone(),
                if opts.trigger.real_time_interval_ms().is_some() {
                    0 // a real-time batch is already one checkpoint interval
                } else {
                    opts.async_progress.interval_ms
                },
            )?),
            false => None,
        },
        checkpoint: cp,
        _lock: lock,
        temporary: opts.checkpoint.temporary,
        retain,
        conf_snapshot,
        last_trigger_start: None,
        // none yet: as in Spark, the first trigger without data reports at once
        last_progress_ms: i64::MIN,
        clock: opts.clock.clone(),
        polling_delay: Duration::from_millis(conf.get_i64(keys::POLLING_DELAY, 10).max(1) as u64),
        no_data_interval_ms: conf.get_i64(keys::NO_DATA_PROGRESS_INTERVAL, 10_000),
    };
    let thread_manager = Arc::clone(manager);
    let thread_shared = Arc::clone(&shared);
    let handle = std::thread::Builder::new()
        .name(format!(
            "stream execution thread for {}",
            opts.name.as_deref().unwrap_or(&shared.id)
        ))
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| exec.run())).unwrap_or_else(|p| {
                Err(Error::Internal(crate::runtime::panic_message(p.as_ref())))
            });
            let (temporary, root) = (exec.temporary, exec.checkpoint.root().to_path_buf());
            // state stores close (RocksDB flushes) before anyone learns the
            // query ended: a process that exits then leaves nothing open
            drop(exec);
            if temporary {
                // a temporary checkpoint goes with the query; a failed one's
                // stays for a look until the process exits, as in Spark
                match outcome {
                    Ok(()) => {
                        let _ = std::fs::remove_dir_all(root);
                    }
                    Err(_) => thread_manager.keep_failed_temporary(root),
                }
            }
            let error = outcome
                .as_ref()
                .err()
                .map(|e| (e.to_string(), e.condition().map(str::to_string)));
            thread_manager.deactivate(&thread_shared);
            thread_shared.update(|st| {
                st.active = false;
                st.ended_ms = Some(chrono::Utc::now().timestamp_millis());
                st.status = QueryStatus::new("Stopped", false, false);
                if let Err(e) = outcome {
                    st.exception = Some(Arc::new(e));
                }
            });
            thread_manager.terminated(&thread_shared);
            thread_shared
                .bus
                .terminated(&thread_shared.id, &thread_shared.run_id, error);
        })
        .map_err(|e| Error::Internal(format!("cannot start the query thread: {e}")))?;
    *shared.thread_id.lock() = Some(handle.thread().id());
    *shared.thread.lock() = Some(handle);
    Ok(StreamingQuery { shared })
}

struct Execution {
    shared: Arc<QueryShared>,
    state: SessionState,
    plan: LogicalPlan,
    /// `plan` optimized once at start (see [`optimize_once`]): each batch
    /// binds its data into it and goes straight to physical planning.
    optimized: Option<LogicalPlan>,
    /// The plan's `observe` nodes (metrics computed after each batch).
    observations: Vec<ObserveNode>,
    factories: Vec<Arc<dyn SourceFactory>>,
    sources: Vec<Box<dyn Source>>,
    sink: Box<dyn Sink>,
    trigger: Trigger,
    committed: Vec<Option<Offset>>,
    batch_id: i64,
    /// A batch planned by an earlier run but not committed: run it first.
    replay: Option<OffsetSeq>,
    /// The watermark of the batch before this run's first, from the
    /// checkpoint; taken by the first batch, which filters late rows against it.
    restored_late_watermark_ms: Option<i64>,
    /// The other stateful operators, with their operator ids.
    operators: Vec<(usize, Arc<dyn OperatorControl>)>,
    /// Each operator's lag behind the watermark (after stream-stream joins).
    watermark_lags: WatermarkLags,
    /// Receives the rows the aggregation dropped as late, per batch.
    late_sink: Option<Box<dyn Sink>>,
    watermarks: Watermarks,
    /// Watermark of the last batch run, ms.
    watermark_ms: i64,
    /// Watermark the next batch will run with, ms.
    next_watermark_ms: i64,
    /// `spark.sql.streaming.noDataMicroBatches.enabled`.
    no_data_batches: bool,
    checkpoint: Checkpoint,
    /// This run's ownership of the checkpoint, released as the run ends.
    _lock: CheckpointLock,
    /// Writes the offsets and commit logs in the background
    /// (asynchronous progress tracking); `None`: on the batch's path.
    progress_log: Option<AsyncProgressLog>,
    temporary: bool,
    /// `spark.sql.streaming.minBatchesToRetain`.
    retain: i64,
    /// Settings recorded in every `offsets/N`.
    conf_snapshot: BTreeMap<String, String>,
    last_trigger_start: Option<i64>,
    last_progress_ms: i64,
    /// What triggers and processing time follow.
    clock: crate::engine::clock::Clock,
    polling_delay: Duration,
    no_data_interval_ms: i64,
}

/// The `observe` nodes of `plan`.
fn observations_in(plan: &LogicalPlan) -> Vec<ObserveNode> {
    let mut found = Vec::new();
    let _ = plan.apply(|node| {
        if let LogicalPlan::Extension(ext) = node {
            if let Some(o) = ext.node.as_any().downcast_ref::<ObserveNode>() {
                found.push(o.clone());
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

impl Execution {
    /// Each observation's metrics over the rows this batch passed through
    /// it: one row of its aggregates, as JSON.
    fn observed_metrics(&self) -> Result<BTreeMap<String, serde_json::Value>> {
        let mut out = BTreeMap::new();
        for o in &self.observations {
            let schema: arrow::datatypes::SchemaRef = Arc::new(o.input.schema().as_arrow().clone());
            let rows = o.slot.with(|obs| Ok(obs.take()))?;
            let table = MemTable::try_new(Arc::clone(&schema), vec![rows])?;
            let df = datafusion::dataframe::DataFrame::new(
                self.state.clone(),
                datafusion::logical_expr::LogicalPlanBuilder::scan(
                    "observed",
                    datafusion::datasource::provider_as_source(Arc::new(table)),
                    None,
                )?
                .build()?,
            )
            .aggregate(vec![], o.exprs.clone())
            .map_err(Error::from_planning)?;
            let rows = block_on(df.collect())?.map_err(Error::from_execution)?;
            let mut writer = arrow::json::ArrayWriter::new(Vec::new());
            for b in &rows {
                writer.write(b)?;
            }
            writer.finish()?;
            let text = writer.into_inner();
            let row = serde_json::from_slice::<Vec<serde_json::Value>>(&text)
                .ok()
                .and_then(|mut r| (!r.is_empty()).then(|| r.swap_remove(0)))
                .unwrap_or_else(|| serde_json::json!({}));
            out.insert(o.name.clone(), row);
        }
        Ok(out)
    }

    /// Spark's `shouldRunAnotherBatch`: a stateful query whose watermark
    /// advanced since its last batch has state to evict or emit.
    fn needs_no_data_batch(&self) -> bool {
        let watermark_moved = self.watermarks.defined()
            && self.next_watermark_ms > self.watermark_ms
            && self.operators.iter().any(|(_, op)| op.acts_on_watermark());
        // state timing out by processing time (Spark runs a batch on every
        // trigger for it; here only once a timeout is due)
        let timeout_due = matches!(self.trigger, Trigger::ProcessingTime { .. })
            && self.operators.iter().any(|(_, op)| {
                // past, not at: a state times out once the batch time exceeds it
                op.next_timeout_ms()
                    .is_some_and(|t| t < self.clock.now_ms())
            });
        self.no_data_batches
            && self.trigger != Trigger::Once
            && !self.operators.is_empty()
            && (watermark_moved || timeout_due)
    }

    /// Publish how far an `AvailableNow` run is (for progress bars).
    fn publish_backlog(&self) {
        let backlog = crate::sources::Backlog::sum(self.sources.iter().filter_map(|s| s.backlog()));
        self.shared.update(|st| st.backlog = backlog);
    }

    fn stopping(&self) -> bool {
        self.shared.stop.load(Ordering::SeqCst)
    }

    fn run(&mut self) -> Result<()> {
        self.run_loop()?;
        // a graceful stop: what the background writer holds reaches disk
        match &mut self.progress_log {
            Some(log) => log.finish(),
            None => Ok(()),
        }
    }

    fn run_loop(&mut self) -> Result<()> {
        if let Some(interval_ms) = self.trigger.real_time_interval_ms() {
            return self.run_real_time(interval_ms);
        }
        if self.trigger == Trigger::AvailableNow {
            for s in &mut self.sources {
                s.prepare_for_available_now()?;
            }
            self.publish_backlog();
        }
        if self.trigger == Trigger::Once {
            for s in &mut self.sources {
                s.ignore_read_limits();
            }
        }
        if let Some(seq) = self.replay.take() {
            // same offsets, same batch id, same batch timestamp as the first attempt
            let start_ms = seq.metadata.batch_timestamp_ms;
            self.run_batch(seq.offsets, start_ms, 0, Instant::now(), false)?;
            if self.trigger == Trigger::Once {
                return Ok(());
            }
        }
        let wake = global_wake();
        while !self.stopping() {
            let seen = wake.seq();
            let trigger_start = Instant::now();
            let start_ms = self.clock.now_ms();
            self.shared.update(|st| {
                st.status = QueryStatus::new("Getting offsets from sources", false, true)
            });
            let t = Instant::now();
            let latest = self.latest_offsets()?;
            let latest_ms = t.elapsed().as_millis() as i64;
            let has_data = any_new(&latest, &self.committed);
            if !has_data && self.needs_no_data_batch() {
                // the watermark moved: run a batch without data so windows close
                let latest = self.committed.clone();
                self.run_batch(latest, start_ms, latest_ms, trigger_start, true)?;
                continue;
            }
            if !has_data {
                self.idle(start_ms, latest_ms, trigger_start)?;
                if matches!(self.trigger, Trigger::Once | Trigger::AvailableNow) {
                    return Ok(());
                }
                self.wait_next(trigger_start, start_ms, seen);
                continue;
            }
            self.run_batch(latest, start_ms, latest_ms, trigger_start, true)?;
            if self.trigger == Trigger::Once {
                return Ok(());
            }
            if self.trigger == Trigger::AvailableNow {
                self.publish_backlog();
            }
            // after a batch with data, the default trigger goes straight on
            if matches!(self.trigger, Trigger::ProcessingTime { interval_ms } if interval_ms > 0) {
                self.wait_next(trigger_start, start_ms, wake.seq());
            }
        }
        Ok(())
    }

    /// Each source's newest offset.
    fn latest_offsets(&mut self) -> Result<Vec<Option<Offset>>> {
        self.sources.iter_mut().map(|s| s.latest_offset()).collect()
    }

    /// No new data: tell waiters, and report an idle progress now and then.
    fn idle(&mut self, start_ms: i64, latest_ms: i64, trigger_start: Instant) -> Result<()> {
        let message = match self.trigger {
            Trigger::ProcessingTime { interval_ms: 0 } => "Waiting for data to arrive",
            _ => "Waiting for next trigger",
        };
        if start_ms.saturating_sub(self.last_progress_ms) >= self.no_data_interval_ms {
            let mut duration = BTreeMap::new();
            duration.insert("latestOffset".to_string(), latest_ms);
            duration.insert(
                "triggerExecution".to_string(),
                trigger_start.elapsed().as_millis() as i64,
            );
            let sources = self
                .sources
                .iter()
                .zip(&self.committed)
                .map(|(s, c)| SourceProgress {
                    description: s.description(),
                    start_offset: c.clone(),
                    end_offset: c.clone(),
                    latest_offset: c.clone(),
                    num_input_rows: 0,
                    input_rows_per_second: 0.0,
                    processed_rows_per_second: 0.0,
                    metrics: s.metrics(c.as_ref()),
                })
                .collect();
            let p = self.progress(start_ms, 0, duration, sources, 0);
            self.shared.push_idle_progress(p);
            self.last_progress_ms = start_ms;
        }
        let nanos = trigger_start.elapsed().as_nanos() as u64;
        self.shared.update(|st| {
            st.status = QueryStatus::new(message, false, false);
            st.idle_checks += 1;
            st.idle_nanos.push_back(nanos);
            if st.idle_nanos.len() > 1024 {
                st.idle_nanos.pop_front();
            }
        });
        Ok(())
    }

    /// Sleep until the next trigger (or until woken by new data / stop).
    fn wait_next(&self, trigger_start: Instant, start_ms: i64, seen: u64) {
        let wake = global_wake();
        if let (
            crate::engine::clock::Clock::Manual(clock),
            Trigger::ProcessingTime { interval_ms },
        ) = (&self.clock, self.trigger)
        {
            // the next trigger is due when the manual clock reaches it; tests
            // see the query waiting there (Spark's isStreamWaitingAt)
            let next = start_ms + interval_ms.max(1) as i64;
            self.shared.update(|st| st.waiting_until_ms = Some(next));
            while !self.stopping() {
                let seq = wake.seq();
                if clock.now_ms() >= next {
                    break;
                }
                wake.wait(seq, Duration::from_millis(100));
            }
            self.shared.update(|st| st.waiting_until_ms = None);
            return;
        }
        match self.trigger {
            Trigger::ProcessingTime { interval_ms } if interval_ms > 0 => {
                let next = trigger_start + Duration::from_millis(interval_ms);
                while !self.stopping() {
                    let now = Instant::now();
                    if now >= next {
                        break;
                    }
                    wake.wait(wake.seq(), (next - now).min(Duration::from_millis(100)));
                }
            }
            // no new data: wait for it, but no longer than a source's next
            // data is due (a rate or real-time Nexmark stream's next row)
            _ => {
                let due = self.sources.iter().filter_map(|s| s.next_due()).min();
                let wait = due.map_or(self.polling_delay, |d| d.min(self.polling_delay));
                wake.wait(seen, wait)
            }
        }
    }

    fn progress(
        &self,
        start_ms: i64,
        num_input_rows: i64,
        duration_ms: BTreeMap<String, i64>,
        sources: Vec<SourceProgress>,
        num_output_rows: i64,
    ) -> QueryProgress {
        let trigger_ms = duration_ms.get("triggerExecution").copied().unwrap_or(0);
        let since_last = self.last_trigger_start.map(|t| start_ms - t).unwrap_or(0);
        QueryProgress {
            id: self.shared.id.clone(),
            run_id: self.shared.run_id.clone(),
            name: self.shared.name.clone(),
            timestamp: format_timestamp_ms(start_ms),
            batch_id: self.batch_id,
            batch_duration: trigger_ms,
            num_input_rows,
            input_rows_per_second: rate(num_input_rows, since_last),
            processed_rows_per_second: rate(num_input_rows, trigger_ms),
            duration_ms,
            event_time: BTreeMap::new(),
            state_operators: Vec::new(),
            sources,
            sink: SinkProgress {
                description: self.sink.description(),
                num_output_rows,
            },
            observed_metrics: BTreeMap::new(),
        }
    }

    /// Each source's data in `(from, to]` (an empty table where nothing is
    /// new) and its row count.
    fn read_inputs(
        &mut self,
        from: &[Option<Offset>],
        to: &[Option<Offset>],
    ) -> Result<(BatchInputs, Vec<i64>)> {
        let mut inputs = Vec::with_capacity(self.sources.len());
        let mut rows = Vec::with_capacity(self.sources.len());
        for (i, src) in self.sources.iter_mut().enumerate() {
            let input = match &to[i] {
                Some(end) if Some(end) != from[i].as_ref() => {
                    src.get_batch(from[i].as_ref(), end)?
                }
                _ => BatchInput {
                    provider: Arc::new(MemTable::try_new(
                        self.factories[i].schema(),
                        vec![vec![]],
                    )?),
                    num_rows: 0,
                },
            };
            rows.push(input.num_rows as i64);
            inputs.push(input.provider);
        }
        Ok((inputs, rows))
    }

    /// The physical plan of a batch of timestamp `start_ms` over `inputs`.
    fn plan_physical(
        &mut self,
        inputs: &[Arc<dyn datafusion::catalog::TableProvider>],
        start_ms: i64,
    ) -> Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
        // current_timestamp() is the batch's timestamp, as in Spark (kept in
        // the offset log: a batch run again sees the same time)
        self.state.execution_props_mut().query_execution_start_time =
            chrono::DateTime::from_timestamp_millis(start_ms);
        match &self.optimized {
            Some(optimized) => {
                let bound = bind(optimized, &self.factories, inputs)?;
                let planner = self.state.query_planner();
                block_on(planner.create_physical_plan(&bound, &self.state))?
            }
            None => {
                let bound = bind(&self.plan, &self.factories, inputs)?;
                block_on(self.state.create_physical_plan(&bound))?
            }
        }
        .map_err(Error::from_planning)
    }

    fn run_batch(
        &mut self,
        latest: Vec<Option<Offset>>,
        start_ms: i64,
        latest_ms: i64,
        trigger_start: Instant,
        write_wal: bool,
    ) -> Result<()> {
        self.shared
            .update(|st| st.status = QueryStatus::new("Processing new data", true, true));
        let mut duration = BTreeMap::new();
        duration.insert("latestOffset".to_string(), latest_ms);

        // write-ahead: offsets/N, durable before the batch's result reaches
        // the sink or the state; written (fsynced) while the batch is read
        // and run, which nothing outside the process sees
        let wal = if write_wal {
            self.log_offsets(&latest, start_ms)?
        } else {
            if let Some(log) = &mut self.progress_log {
                log.replaying(self.batch_id);
            }
            OffsetsWrite::Done(0)
        };
        let ran = self.read_and_run(&latest, start_ms, &mut duration);
        let wal_nanos = wal.wait()?;
        duration.insert("walCommit".to_string(), (wal_nanos / 1_000_000) as i64);
        failpoint::hit("after-offsets", self.batch_id);
        let (data, num_output, rows, t) = ran?;

        let batch_id = self.batch_id;
        self.commit_state_beside(|sink| sink.add_batch(batch_id, data))?;
        duration.insert("addBatch".to_string(), t.elapsed().as_millis() as i64);
        self.finish_batch(
            latest,
            rows,
            (start_ms, trigger_start),
            duration,
            num_output,
            wal_nanos,
        )
    }

    /// Read the batch's input up to `latest` and run its plan: the result
    /// (none kept for a sink that discards it) and its row count, the rows
    /// read per source, and when the run started (`addBatch` counts from
    /// there).
    fn read_and_run(
        &mut self,
        latest: &[Option<Offset>],
        start_ms: i64,
        duration: &mut BTreeMap<String, i64>,
    ) -> Result<(SinkBatch, i64, Vec<i64>, Instant)> {
        let t = Instant::now();
        let committed = self.committed.clone();
        let (inputs, rows) = self.read_inputs(&committed, latest)?;
        duration.insert("getBatch".to_string(), t.elapsed().as_millis() as i64);

        let t = Instant::now();
        failpoint::panic_at("panic-in-planning", self.batch_id);
        let physical = self.plan_physical(&inputs, start_ms)?;
        duration.insert("queryPlanning".to_string(), t.elapsed().as_millis() as i64);

        let t = Instant::now();
        self.begin_operators(start_ms);
        let ctx = Arc::new(TaskContext::from(&self.state));
        let (data, output) = if self.sink.discards_rows() {
            run_plan_discarding(physical, ctx)?
        } else {
            let data = run_plan(physical, ctx)?;
            let n = data.num_rows();
            (data, n)
        };
        Ok((data, output as i64, rows, t))
    }

    /// Start writing `offsets/N` for the current batch ending at `end`: on
    /// a blocking thread, or by the background writer under asynchronous
    /// progress tracking.
    fn log_offsets(&mut self, end: &[Option<Offset>], start_ms: i64) -> Result<OffsetsWrite> {
        let t = Instant::now();
        let seq = OffsetSeq {
            metadata: OffsetSeqMetadata {
                batch_watermark_ms: self.next_watermark_ms,
                batch_timestamp_ms: start_ms,
                conf: self.conf_snapshot.clone(),
            },
            offsets: end.to_vec(),
        };
        if let Some(log) = &mut self.progress_log {
            log.offsets(self.batch_id, seq)?;
            return Ok(OffsetsWrite::Done(t.elapsed().as_nanos() as u64));
        }
        let (checkpoint, batch) = (self.checkpoint.clone(), self.batch_id);
        Ok(OffsetsWrite::Pending(on_blocking_thread(move || {
            let t = Instant::now();
            checkpoint.write_offsets(batch, &seq)?;
            Ok(t.elapsed().as_nanos() as u64)
        })?))
    }

    /// The batch starts: it runs with the watermark computed after the
    /// previous one, which the stateful operators learn.
    fn begin_operators(&mut self, start_ms: i64) {
        // rows at or below the previous batch's watermark are late; after a
        // restart that batch ran in an earlier run (a restart changes nothing)
        let late_ms = self
            .restored_late_watermark_ms
            .take()
            .unwrap_or(self.watermark_ms);
        self.watermark_ms = self.next_watermark_ms;
        let defined = self.watermarks.defined();
        for (id, op) in &self.operators {
            // behind a stream-stream join, the join's output watermark
            let lag = self.watermark_lags.get(id).copied().unwrap_or(0);
            let late_us = defined.then_some(late_ms * 1000 - lag);
            let evict_us = defined.then_some(self.watermark_ms * 1000 - lag);
            op.begin_batch(late_us, evict_us);
            op.batch_started(self.batch_id, start_ms);
        }
    }

    /// Commit the stateful operators' state while `deliver` hands the
    /// batch's output to the sink (and the aggregation's late rows to
    /// theirs).
    fn commit_state_beside(
        &mut self,
        deliver: impl FnOnce(&mut dyn Sink) -> Result<()>,
    ) -> Result<()> {
        if let Some(late) = &mut self.late_sink {
            // the deepest operator that keeps late rows (an aggregation)
            let taken = self
                .operators
                .iter()
                .rev()
                .find_map(|(_, op)| op.take_late_rows());
            if let Some((rows, input_schema)) = taken {
                late.add_batch(
                    self.batch_id,
                    late_rows(&rows, input_schema, self.batch_id)?,
                )?;
            }
        }
        // the state commits (delta files, fsynced) while the sink runs: the
        // output is already computed, and the batch counts as done only
        // once both have finished and commits/N is written. The commit runs
        // on the runtime's long-lived blocking threads (a thread per batch
        // would start from fresh, kernel-zeroed pages every time).
        let commits = if self.operators.is_empty() {
            None
        } else {
            let ops: Vec<_> = self
                .operators
                .iter()
                .map(|(_, op)| Arc::clone(op))
                .collect();
            let batch = self.batch_id;
            Some(on_blocking_thread(move || {
                failpoint::panic_at("panic-in-execution", batch);
                ops.iter().try_for_each(|op| op.commit())
            })?)
        };
        let sunk = deliver(self.sink.as_mut());
        let committed = commits.map_or(Ok(()), |c| c.wait("a state commit"));
        sunk?;
        committed
    }

    /// The batch's output is delivered and its state committed: write
    /// `commits/N`, let the sources go, report progress, move on.
    fn finish_batch(
        &mut self,
        latest: Vec<Option<Offset>>,
        rows: Vec<i64>,
        (start_ms, trigger_start): (i64, Instant),
        mut duration: BTreeMap<String, i64>,
        num_output: i64,
        wal_nanos: u64,
    ) -> Result<()> {
        let observed = self.observed_metrics()?;
        let (stats, next_wm) = self.watermarks.advance(self.watermark_ms);
        self.next_watermark_ms = next_wm;
        failpoint::hit("after-sink", self.batch_id);

        // commits/N: the batch is done and never delivered again
        let t = Instant::now();
        match &mut self.progress_log {
            Some(log) => log.commit(self.batch_id, self.next_watermark_ms)?,
            None => self
                .checkpoint
                .write_commit(self.batch_id, self.next_watermark_ms)?,
        }
        let commit_nanos = t.elapsed().as_nanos() as u64;
        failpoint::hit("after-commit", self.batch_id);
        for (i, src) in self.sources.iter_mut().enumerate() {
            if let Some(end) = &latest[i] {
                src.commit(end)?;
            }
        }
        if self.batch_id % 10 == 0 {
            // retention is housekeeping: keep it off the batch's critical path
            let (cp, batch, retain) = (self.checkpoint.clone(), self.batch_id, self.retain);
            std::thread::spawn(move || {
                if let Err(e) = cp.purge(batch, retain) {
                    log::warn!("checkpoint retention at batch {batch} failed: {e}");
                }
            });
        }
        duration.insert("commitOffsets".to_string(), t.elapsed().as_millis() as i64);
        self.shared.update(|st| {
            st.checkpoint_nanos.push_back(wal_nanos + commit_nanos);
            if st.checkpoint_nanos.len() > 1024 {
                st.checkpoint_nanos.pop_front();
            }
        });
        let trigger_ms = trigger_start.elapsed().as_millis() as i64;
        duration.insert("triggerExecution".to_string(), trigger_ms);

        let since_last = self.last_trigger_start.map(|t| start_ms - t).unwrap_or(0);
        let sources = self
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| SourceProgress {
                description: s.description(),
                start_offset: self.committed[i].clone(),
                end_offset: latest[i].clone(),
                latest_offset: latest[i].clone(),
                num_input_rows: rows[i],
                input_rows_per_second: rate(rows[i], since_last),
                processed_rows_per_second: rate(rows[i], trigger_ms),
                metrics: s.metrics(latest[i].as_ref()),
            })
            .collect();
        let total_rows = rows.iter().sum();
        let mut p = self.progress(start_ms, total_rows, duration, sources, num_output);
        if self.watermarks.defined() {
            let fmt = |us: i64| format_timestamp_ms(us.div_euclid(1000));
            if stats.count > 0 {
                p.event_time.insert("min".into(), fmt(stats.min));
                p.event_time.insert("max".into(), fmt(stats.max));
                p.event_time
                    .insert("avg".into(), fmt(stats.avg().unwrap_or(0)));
            }
            p.event_time
                .insert("watermark".into(), format_timestamp_ms(self.watermark_ms));
        }
        p.observed_metrics = observed;
        // stateOperators in operator id order, as Spark lists them
        p.state_operators
            .extend(self.operators.iter().map(|(_, op)| op.progress()));
        self.shared.push_progress(p);
        self.last_progress_ms = start_ms;
        self.last_trigger_start = Some(start_ms);
        self.committed = latest;
        self.batch_id += 1;
        Ok(())
    }
}

/// Late rows with the batch that dropped them, as `batchId` (first column).
fn late_rows(
    rows: &[arrow::array::RecordBatch],
    schema: arrow::datatypes::SchemaRef,
    batch_id: i64,
) -> Result<SinkBatch> {
    let mut fields = vec![Arc::new(arrow::datatypes::Field::new(
        "batchId",
        DataType::Int64,
        false,
    ))];
    fields.extend(schema.fields().iter().cloned());
    let out_schema = Arc::new(arrow::datatypes::Schema::new(fields));
    let batches = rows
        .iter()
        .map(|b| {
            let mut cols: Vec<arrow::array::ArrayRef> =
                vec![Arc::new(arrow::array::Int64Array::from(vec![
                    batch_id;
                    b.num_rows()
                ]))];
            cols.extend(b.columns().iter().cloned());
            arrow::array::RecordBatch::try_new(Arc::clone(&out_schema), cols).map_err(Error::from)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SinkBatch {
        schema: out_schema,
        batches,
    })
}
