//! Opening a streaming aggregation. The engine opens it as every stateful
//! node ([`StatefulNode::open_stateful`] on the logical plan); what its
//! state holds (the aggregates' partial states) is known once DataFusion
//! has planned the aggregate, so the node keeps what opening needs until
//! the physical planner hands it the planned aggregate.

use super::*;
use crate::exec::operator::OpenContext;
use crate::exec::stateful_node::{Opened, StatefulNode};
use datafusion::catalog::Session as CatalogSession;

/// What the engine gave a streaming aggregation to open with.
pub struct AggOpening {
    mode: OutputMode,
    provider: Arc<dyn StateStoreProvider>,
    spec: OperatorStateSpec,
    /// Every watermarked column of the query (as any node names it).
    watermarked: Vec<String>,
    /// Whether the query defines a watermark.
    has_watermark: bool,
    /// Whether the output mode is checked (not for `explain()`).
    checks_mode: bool,
}

impl std::fmt::Debug for AggOpening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AggOpening(operator {})", self.spec.id)
    }
}

impl StatefulNode for StatefulAggNode {
    fn watermarked_inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn open_stateful(&self, ctx: &OpenContext, mode: OutputMode) -> Result<Opened> {
        let mut watermarked = ctx.query_watermarks.clone().unwrap_or_default();
        watermarked.extend(ctx.watermarks.iter().map(|(c, _)| c.clone()));
        *self.opening.0.lock() = Some(AggOpening {
            mode,
            provider: Arc::clone(&ctx.provider),
            spec: ctx.spec.clone(),
            watermarked,
            has_watermark: ctx.query_watermarks.is_some(),
            checks_mode: ctx.checks_mode,
        });
        Ok((Arc::new(self.clone()), Arc::new(self.slot.clone())))
    }

    fn plan_physical(
        &self,
        inputs: &[Arc<dyn ExecutionPlan>],
        _session: &dyn CatalogSession,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let exec = StatefulAggExec::new(self, Arc::clone(&inputs[0]))?;
        if let Some(opening) = self.opening.0.lock().take() {
            let agg = opening
                .open(&exec.parts, &self.input)
                .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
            let _ = self.slot.open(agg);
        }
        Ok(Arc::new(exec))
    }
}

impl AggOpening {
    /// Open the aggregation planned as `parts` (of the logical `aggregate`):
    /// its event-time key, session or sliding window, and state. Chained
    /// aggregations run in append mode.
    fn open(self, parts: &AggregateParts, aggregate: &LogicalPlan) -> Result<StatefulAggregate> {
        let schema = parts.top.schema();
        let num_keys = parts.group_by.expr().len();
        let mut columns = self.watermarked.clone();
        columns.extend(watermarks_under(aggregate).into_iter().map(|(c, _)| c));
        // what computed each key: a window is one under any alias
        let made_by = |i: usize, functions: &[&str]| {
            column_origin::origin(aggregate, schema.field(i).name())
                .is_some_and(|o| o.function().is_some_and(|f| functions.contains(&f)))
        };
        let event_time = (0..num_keys).find_map(|i| {
            let f = schema.field(i);
            match f.data_type() {
                // F.window's column, or SQL's `GROUP BY window(ts, ...)`
                DataType::Struct(fields)
                    if (f.name() == "window"
                        || f.name().starts_with("window(")
                        || made_by(i, &["window", "window_pane"]))
                        && fields.find("end").is_some() =>
                {
                    Some(EventTimeKey::Window(i))
                }
                // a window table function's end: its window is done when
                // the watermark passes it, as a row is at its event time
                DataType::Timestamp(_, _)
                    if columns.contains(f.name()) || f.name() == "window_end" =>
                {
                    Some(EventTimeKey::Timestamp(i))
                }
                _ => None,
            }
        });
        let event_time = event_time.filter(|_| self.has_watermark);
        let session = (0..num_keys).find(|i| {
            let f = schema.field(*i);
            (f.name() == "session_window"
                || f.name().starts_with("session_window(")
                || made_by(*i, &["session_window"]))
                && matches!(f.data_type(), DataType::Struct(_))
        });
        // a session's end decides lateness and eviction, as a window's does
        let event_time = match (event_time, session) {
            (None, Some(si)) if self.has_watermark => Some(EventTimeKey::Window(si)),
            (et, _) => et,
        };
        if self.checks_mode {
            check_output_mode(self.mode, event_time, session)?;
        }
        let pane = (0..num_keys).find_map(|i| PaneSpec::of(aggregate, i, schema.field(i).name()));
        StatefulAggregate::open(
            parts,
            self.mode,
            event_time,
            session,
            pane,
            self.provider.as_ref(),
            &self.spec,
        )
    }
}

/// Spark's refusals of an output mode for a streaming aggregation.
fn check_output_mode(
    mode: OutputMode,
    event_time: Option<EventTimeKey>,
    session: Option<usize>,
) -> Result<()> {
    if session.is_some() && mode == OutputMode::Update {
        return Err(Error::analysis(
            "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
            "Invalid streaming output mode: update. This output mode is not supported for session window \
             streaming aggregations on streaming DataFrames/DataSets.",
        ));
    }
    if mode == OutputMode::Append && event_time.is_none() {
        return Err(Error::analysis(
            "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
            "Invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets. \
             (Add withWatermark() on the event-time column and group by it, or a window over it; or use update or complete mode.)",
        ));
    }
    Ok(())
}
