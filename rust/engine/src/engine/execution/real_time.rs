//! The real-time and continuous modes (`trigger(realTime=...)`,
//! `trigger(continuous=...)`): long-running batches, one per checkpoint
//! interval, inside which records are processed as they arrive.
//!
//! Batch N starts from the offsets batch N-1 ended at, and plans the query
//! once, over tables whose rows each epoch sets (`sources::live`). Until the
//! interval is over, the loop asks the sources for new data and runs each
//! arrival ("epoch") through that plan at once, handing its rows to the
//! sink; the stateful operators update their state in memory across the
//! epochs. At
//! the end of the interval the batch's end offsets go to `offsets/N`, the
//! state is committed as version N+1 and `commits/N` is written: the
//! checkpoint moves once per interval, not per record.
//!
//! After a crash inside batch N nothing of it is logged, so the restart runs
//! batch N again from N-1's offsets and state; a sink keyed by batch id (the
//! memory sink) replaces what the failed run gave it, which is exactly-once.
//! A crash between `offsets/N` and `commits/N` replays batch N with its
//! logged offsets as one micro-batch. Row-at-a-time sinks (`foreach`,
//! Kafka) see the failed run's rows again: at-least-once, as in Spark.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::execution_plan::reset_plan_states;
use datafusion::physical_plan::ExecutionPlan;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::{Expr, LogicalPlan};

use super::{any_new, global_wake, run_plan, Execution, QueryStatus, StartOptions};
use crate::catalog::is_streaming;
use crate::conf::{keys, Conf};
use crate::error::{Error, Result};
use crate::failpoint;
use crate::runtime::block_on;
use crate::sinks::Sink;
use crate::sources::live::LiveInput;
use crate::sources::{Offset, SourceFactory};

use super::super::trigger::Trigger;

const MIN_BATCH_DURATION: &str = keys::REAL_TIME_MIN_BATCH_DURATION;
const ALLOWLIST_CHECK: &str = keys::REAL_TIME_ALLOWLIST_CHECK;
/// How long the loop sleeps when a source has nothing new and cannot wake
/// it (Kafka, the rate source): the latency floor for those.
const POLL_INTERVAL: Duration = Duration::from_micros(200);
/// The sleep when every source wakes the loop on arrival (memory, socket):
/// only a stop or the end of the batch needs it.
const WOKEN_WAIT: Duration = Duration::from_millis(100);

fn real_time_error(sub: &str, message: impl std::fmt::Display) -> Error {
    Error::analysis(
        &format!("STREAMING_REAL_TIME_MODE.{sub}"),
        format!("Streaming real-time mode has the following limitation: {message}"),
    )
}

/// Spark's `UnsupportedOperationChecker` raises its continuous-mode
/// refusals as `_LEGACY_ERROR_TEMP_3102`.
fn continuous_error(message: impl Into<String>) -> Error {
    Error::analysis("_LEGACY_ERROR_TEMP_3102", message)
}

/// Whether an expression anywhere in `plan` calls one of `functions`.
fn calls(plan: &LogicalPlan, functions: &[&str]) -> Result<bool> {
    plan.exists(|n| {
        Ok(n.expressions().iter().any(|e| {
            e.exists(|x| Ok(matches!(x, Expr::ScalarFunction(f) if functions.contains(&f.name()))))
                .unwrap_or(false)
        }))
    })
    .map_err(Error::from_planning)
}

/// Spark's refusal of operators or sinks outside real-time mode's allowlist.
fn not_in_allowlist(kind: &str, names: &[String]) -> Error {
    let (names, verb) = (
        names.join(", "),
        if names.len() == 1 { "is" } else { "are" },
    );
    Error::illegal_argument_in(
        "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
        format!("Streaming real-time mode has the following limitation: The {kind}(s): {names} {verb} not in the {kind} allowlist for Real-Time Mode. To bypass this check, set {ALLOWLIST_CHECK} to false. By changing this, you agree to run the query at your own risk."),
    )
}

/// The streaming part of `plan`'s nodes that `allowed` refuses (Spark's
/// operator names), in plan order.
fn refused(plan: &LogicalPlan, allowed: impl Fn(&LogicalPlan) -> bool) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    plan.apply(|node| {
        if !is_streaming(node) {
            return Ok(TreeNodeRecursion::Jump); // a join's static side is a batch plan
        }
        if !allowed(node) {
            let name = match node {
                LogicalPlan::Extension(ext) => ext.node.name().to_string(),
                LogicalPlan::Projection(_) => "Project".into(),
                LogicalPlan::Unnest(_) => "Generate".into(),
                LogicalPlan::Limit(_) => "GlobalLimit".into(),
                LogicalPlan::Distinct(_) => "Deduplicate".into(),
                LogicalPlan::Join(j) if is_streaming(&j.left) && is_streaming(&j.right) => {
                    "StreamingSymmetricHashJoin".into()
                }
                LogicalPlan::Join(_) => "Join".into(),
                other => other
                    .display()
                    .to_string()
                    .split([':', ' '])
                    .next()
                    .unwrap_or("")
                    .to_string(),
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .map_err(Error::from_planning)?;
    Ok(out)
}

/// Nodes that only map rows (continuous processing allows nothing else).
fn map_like(node: &LogicalPlan) -> bool {
    matches!(
        node,
        LogicalPlan::Projection(_)
            | LogicalPlan::Filter(_)
            | LogicalPlan::SubqueryAlias(_)
            | LogicalPlan::TableScan(_)
            | LogicalPlan::Unnest(_)
    ) || matches!(node, LogicalPlan::Extension(e) if matches!(e.node.name(), "MapInPandas" | "MapInArrow"))
}

/// What real-time mode runs (Spark 4.3's allowlist): map-like nodes,
/// unions, joins with a static side, watermarks, observed metrics,
/// streaming aggregations without session windows and deduplication.
fn real_time_allowed(node: &LogicalPlan) -> bool {
    if map_like(node) {
        return true;
    }
    match node {
        LogicalPlan::Union(_) | LogicalPlan::Aggregate(_) => true,
        LogicalPlan::Join(j) => !(is_streaming(&j.left) && is_streaming(&j.right)),
        LogicalPlan::Extension(e) => matches!(
            e.node.name(),
            "EventTimeWatermark" | "CollectMetrics" | "StateStoreSave" | "Deduplicate"
        ),
        _ => false,
    }
}

/// Spark's restrictions on the real-time and continuous modes, at start.
pub(super) fn check_supported(
    plan: &LogicalPlan,
    opts: &StartOptions,
    sink: &dyn Sink,
    factories: &[std::sync::Arc<dyn SourceFactory>],
    conf: &Conf,
) -> Result<()> {
    match opts.trigger {
        Trigger::RealTime { interval_ms } => {
            // Spark checks the sink first
            let allowlist = conf.get_bool(ALLOWLIST_CHECK, true);
            if allowlist && !sink.in_real_time_allowlist() {
                return Err(not_in_allowlist("sink", &[sink.class_name()]));
            }
            let min = conf.get_i64(MIN_BATCH_DURATION, 5000);
            if (interval_ms as i64) < min {
                return Err(Error::illegal_argument_in(
                    "INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL",
                    format!("The real-time trigger interval is set to {interval_ms} ms. This is less than the {min} ms minimum specified by {MIN_BATCH_DURATION}."),
                ));
            }
            if opts.output_mode != super::OutputMode::Update {
                let mode = format!("{:?}", opts.output_mode);
                return Err(real_time_error(
                    "OUTPUT_MODE_NOT_SUPPORTED",
                    format!("The output mode {mode} is not supported. To work around this limitation, set the output mode to Update. In the future, {mode} may be supported."),
                ));
            }
            if let Some(f) = factories.iter().find(|f| !f.supports_real_time()) {
                return Err(real_time_error(
                    "INPUT_STREAM_NOT_SUPPORTED",
                    format!(
                        "The input stream {} is not supported in Real-time Mode.",
                        f.class_name()
                    ),
                ));
            }
            if !allowlist {
                return Ok(());
            }
            let mut ops = refused(plan, real_time_allowed)?;
            if calls(plan, &["session_window"])? {
                ops.push("SessionWindowStateStoreSaveExec".into());
            }
            if !ops.is_empty() {
                return Err(not_in_allowlist("operator", &ops));
            }
        }
        Trigger::Continuous { .. } => {
            if !sink.supports_real_time() {
                // DataStreamWriter refuses it, before the query is analysed
                return Err(match sink.description().as_str() {
                    "ForeachBatchSink" => Error::analysis(
                        "_LEGACY_ERROR_TEMP_1195",
                        "'foreachBatch' is not supported with continuous trigger.",
                    ),
                    other => Error::analysis(
                        "UNSUPPORTED_STREAMING_OPERATION",
                        format!("'{other}' is not supported with continuous trigger"),
                    ),
                });
            }
            if let Some(f) = factories.iter().find(|f| !f.supports_real_time()) {
                // a file source is a (V1) StreamingRelation to Spark's checker
                return Err(match f.class_name() {
                    "FileStreamSource" => continuous_error(
                        "Continuous processing does not support StreamingRelation operations.",
                    ),
                    name => Error::analysis(
                        "UNSUPPORTED_STREAMING_OPERATION",
                        format!("Data source {name} does not support continuous processing."),
                    ),
                });
            }
            // Spark checks the output mode before continuous mode's rules
            let has = |name: &str| {
                plan.exists(|n| {
                    Ok(match n {
                        LogicalPlan::Aggregate(_) => name == "Aggregate",
                        LogicalPlan::Extension(e) => e.node.name() == name,
                        _ => false,
                    })
                })
                .unwrap_or(false)
            };
            if opts.output_mode == super::OutputMode::Append
                && has("Aggregate")
                && !has("EventTimeWatermark")
            {
                return Err(Error::analysis(
                    "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                    "Invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets.",
                ));
            }
            if let Some(name) = refused(plan, map_like)?.first() {
                return Err(continuous_error(format!(
                    "Continuous processing does not support {name} operations."
                )));
            }
            let clock = [
                "now",
                "current_timestamp",
                "current_date",
                "current_time",
                "localtimestamp",
            ];
            if calls(plan, &clock)? {
                return Err(continuous_error(
                    "Continuous processing does not support current time operations.",
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// What a long-running batch has done so far.
struct Epochs {
    /// The batch's plan, made once, over `live`.
    plan: Arc<dyn ExecutionPlan>,
    /// Each source's table in `plan`: an epoch sets its rows.
    live: Vec<Arc<LiveInput>>,
    /// What runs `plan` (made once: it copies the session's settings).
    task_ctx: Arc<TaskContext>,
    rows: Vec<i64>,
    output: i64,
    delivered: bool,
    /// Time per phase, summed over the epochs (ns).
    nanos: BTreeMap<String, u128>,
}

impl Epochs {
    fn add_time(&mut self, key: &str, since: Instant) {
        *self.nanos.entry(key.to_string()).or_insert(0) += since.elapsed().as_nanos();
    }

    /// The phases' times for progress (`durationMs`).
    fn duration_ms(&self) -> BTreeMap<String, i64> {
        self.nanos
            .iter()
            .map(|(k, ns)| (k.clone(), (ns / 1_000_000) as i64))
            .collect()
    }
}

impl Execution {
    /// The loop of the real-time and continuous modes.
    pub(super) fn run_real_time(&mut self, interval_ms: u64) -> Result<()> {
        if let Some(seq) = self.replay.take() {
            // logged but not committed: the same offsets again, in one go
            let start_ms = seq.metadata.batch_timestamp_ms;
            self.run_batch(seq.offsets, start_ms, 0, Instant::now(), false)?;
        }
        let interval = Duration::from_millis(interval_ms.max(1));
        let poll = if self.factories.iter().all(|f| f.wakes_on_arrival()) {
            WOKEN_WAIT
        } else {
            POLL_INTERVAL
        };
        while !self.stopping() {
            self.run_long_batch(interval, poll)?;
        }
        Ok(())
    }

    /// One long-running batch: epochs until the interval is over (or the
    /// query stops), then the checkpoint.
    fn run_long_batch(&mut self, interval: Duration, poll: Duration) -> Result<()> {
        let wake = global_wake();
        let trigger_start = Instant::now();
        let start_ms = self.clock.now_ms();
        self.shared
            .update(|st| st.status = QueryStatus::new("Processing new data", true, true));
        self.begin_operators(start_ms);
        let mut current = self.committed.clone();
        let t = Instant::now();
        let live: Vec<Arc<LiveInput>> = self
            .factories
            .iter()
            .map(|f| Arc::new(LiveInput::new(f.schema())))
            .collect();
        let tables: Vec<Arc<dyn TableProvider>> = live
            .iter()
            .map(|l| Arc::clone(l) as Arc<dyn TableProvider>)
            .collect();
        // an epoch is small: one partition, no exchanges between threads
        let options = self.state.config_mut().options_mut();
        let partitions = std::mem::replace(&mut options.execution.target_partitions, 1);
        let plan = self.plan_physical(&tables, start_ms);
        let task_ctx = Arc::new(TaskContext::from(&self.state));
        self.state
            .config_mut()
            .options_mut()
            .execution
            .target_partitions = partitions;
        let mut done = Epochs {
            plan: plan?,
            task_ctx,
            live,
            rows: vec![0; self.sources.len()],
            output: 0,
            delivered: false,
            nanos: BTreeMap::new(),
        };
        done.add_time("queryPlanning", t);
        while trigger_start.elapsed() < interval && !self.stopping() {
            let seen = wake.seq();
            let t = Instant::now();
            let latest = self.latest_offsets()?;
            done.add_time("latestOffset", t);
            if any_new(&latest, &current) {
                let end: Vec<Option<Offset>> = latest
                    .into_iter()
                    .zip(&current)
                    .map(|(l, c)| l.or_else(|| c.clone()))
                    .collect();
                self.run_epoch(&current, &end, &mut done)?;
                current = end;
                continue;
            }
            // everything that arrived is processed (processAllAvailable)
            self.shared.update(|st| {
                st.idle_checks += 1;
                st.status = QueryStatus::new("Waiting for data to arrive", false, true);
            });
            let left = interval.saturating_sub(trigger_start.elapsed());
            wake.wait(seen, left.min(poll));
        }
        if !done.delivered {
            // nothing arrived: nothing to checkpoint, as a micro-batch
            // trigger without data
            let latest_ms = done.duration_ms().get("latestOffset").copied().unwrap_or(0);
            return self.idle(start_ms, latest_ms, trigger_start);
        }
        // the epoch's rows are already delivered: nothing to overlap with
        let wal_nanos = self.log_offsets(&current, start_ms)?.wait()?;
        done.nanos.insert("walCommit".into(), wal_nanos as u128);
        failpoint::hit("after-offsets", self.batch_id);
        let t = Instant::now();
        let batch_id = self.batch_id;
        self.commit_state_beside(|sink| sink.end_batch(batch_id))?;
        done.add_time("addBatch", t);
        let duration = done.duration_ms();
        self.finish_batch(
            current,
            done.rows,
            (start_ms, trigger_start),
            duration,
            done.output,
            wal_nanos,
        )
    }

    /// Records that arrived in `(from, to]`: through the batch's plan and
    /// into the sink now.
    fn run_epoch(
        &mut self,
        from: &[Option<Offset>],
        to: &[Option<Offset>],
        done: &mut Epochs,
    ) -> Result<()> {
        let t = Instant::now();
        let (inputs, rows) = self.read_inputs(from, to)?;
        for (live, input) in done.live.iter().zip(inputs) {
            live.set(self.rows_of(input, &done.task_ctx)?);
        }
        done.add_time("getBatch", t);
        let t = Instant::now();
        // the batch's plan again, with fresh run state (no planning)
        let physical = reset_plan_states(Arc::clone(&done.plan)).map_err(Error::from_planning)?;
        let data = run_plan(physical, Arc::clone(&done.task_ctx))?;
        done.output += data.num_rows() as i64;
        let first = !done.delivered;
        self.sink.add_rows(self.batch_id, first, data)?;
        done.delivered = true;
        done.add_time("addBatch", t);
        for (total, n) in done.rows.iter_mut().zip(rows) {
            *total += n;
        }
        Ok(())
    }

    /// All the rows of a source's batch table: a memory table's batches as
    /// they are (what most sources return), else what a scan of it yields.
    fn rows_of(
        &self,
        table: Arc<dyn TableProvider>,
        task_ctx: &Arc<TaskContext>,
    ) -> Result<Vec<RecordBatch>> {
        if let Some(mem) = table.downcast_ref::<MemTable>() {
            let held: Option<Vec<RecordBatch>> = mem
                .batches
                .iter()
                .map(|p| p.try_read().ok().map(|b| b.clone()))
                .collect::<Option<Vec<_>>>()
                .map(|parts| parts.concat());
            if let Some(rows) = held {
                return Ok(rows);
            }
        }
        block_on(async {
            let scan = table.scan(&self.state, None, &[], None).await?;
            datafusion::physical_plan::collect(scan, Arc::clone(task_ctx)).await
        })?
        .map_err(Error::from_execution)
    }
}
