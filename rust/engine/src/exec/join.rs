//! Stream-stream joins (Spark's `StreamingSymmetricHashJoinExec`).
//!
//! Both sides keep their rows in state, keyed by the equi-join key. Per
//! batch: each new left row is joined with the right rows in state, then
//! stored; each new right row is joined with the left rows in state (this
//! batch's included), then stored; so every matching pair is output once.
//! Rows behind the watermark are dropped. State is evicted when no future
//! row can match it: for a watermarked key column (a window or event time)
//! once the watermark passes it, and for a time-range condition such as
//! `r.ts BETWEEN l.ts AND l.ts + INTERVAL 1 HOUR` once the watermark passes
//! the row's time plus the range. Outer joins emit a row that never matched,
//! padded with nulls, when it is evicted; left semi joins emit a left row on
//! its first match.

use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, RecordBatch, UInt32Array,
};
use arrow::buffer::NullBuffer;
use arrow::compute::{cast, concat_batches, filter_record_batch, take};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef, TimeUnit};
use arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, DFSchemaRef, Result as DFResult, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    build_join_schema, BinaryExpr, Expr, ExprSchemable, JoinType, LogicalPlan, Operator,
    UserDefinedLogicalNodeCore,
};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    execute_stream, DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PhysicalExpr,
    PlanProperties,
};

use super::event_time::event_times;
use super::operator::{OpenContext, OperatorControl, OperatorSlot, StatefulOperator};
use crate::error::{Error, Result};
use crate::exec::watermark::watermarks_under;
use crate::state::partitioned::{progress, OperatorMetrics, PartitionedState, StateLayout};
use crate::state::{KeyOrder, StateStore, TIME_BUCKET_BITS};

/// The logical stream-stream join.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamJoinNode {
    /// Left input.
    pub left: LogicalPlan,
    /// Right input.
    pub right: LogicalPlan,
    /// Inner, left/right/full outer or left semi.
    pub join_type: JoinType,
    /// Equi-join keys (left expression, right expression).
    pub on: Vec<(Expr, Expr)>,
    /// The rest of the condition, over both sides' columns.
    pub filter: Option<Expr>,
    /// The output schema (the logical join's).
    pub schema: DFSchemaRef,
    /// The running query's operator.
    pub slot: OperatorSlot<StreamJoin>,
}

impl PartialOrd for StreamJoinNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (&self.left, &self.right).partial_cmp(&(&other.left, &other.right))
    }
}

/// How a side's stored rows expire: a column of the side (µs) plus an offset,
/// at or below the watermark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    /// The column (in the side's schema); a window struct's `end` is used.
    pub column: usize,
    /// Added to the column's time before comparing with the watermark.
    pub offset_us: i64,
}

/// The delay of a watermark declared under `plan` (0 if none).
fn watermarks_delay(plan: &LogicalPlan, watermarked: &[(String, i64)]) -> i64 {
    crate::exec::watermark::watermarks_under(plan)
        .iter()
        .chain(watermarked)
        .map(|(_, d)| *d)
        .next()
        .unwrap_or(0)
}

/// Whether `name` in `plan`'s output is a time window: the `window` column
/// `groupBy(window(...))` names, or a `window(...)` under any alias (Nexmark
/// q8 joins `window(...) AS pw` to `window(...) AS aw`).
fn is_window_column(plan: &LogicalPlan, name: &str) -> bool {
    if plan.schema().index_of_column_by_name(None, name).is_none() {
        return false;
    }
    name == "window"
        || crate::plan::column_origin::origin(plan, name)
            .is_some_and(|o| matches!(o.function(), Some("window" | "window_pane")))
}

impl StreamJoinNode {
    /// A stream-stream join from a logical join whose inputs are both streams.
    pub fn from_join(join: &datafusion::logical_expr::Join) -> Result<Self> {
        let mut on = join.on.clone();
        let mut rest = Vec::new();
        // equalities between the two sides are keys; the rest is a filter
        if let Some(f) = &join.filter {
            for c in split_conjunction(f) {
                match equi_pair(&c, join.left.schema(), join.right.schema()) {
                    Some(pair) => on.push(pair),
                    None => rest.push(c),
                }
            }
        }
        let supported = matches!(
            join.join_type,
            JoinType::Inner
                | JoinType::Left
                | JoinType::Right
                | JoinType::Full
                | JoinType::LeftSemi
        );
        if !supported {
            return Err(Error::analysis(
                "UNSUPPORTED_STREAMING_OPERATION",
                format!(
                    "{} join between two streaming DataFrames/Datasets is not supported",
                    join.join_type
                ),
            ));
        }
        if on.is_empty() {
            return Err(Error::analysis(
                "UNSUPPORTED_STREAMING_OPERATION",
                "Stream-stream joins need at least one equality between the two sides' columns",
            ));
        }
        Ok(StreamJoinNode {
            left: join.left.as_ref().clone(),
            right: join.right.as_ref().clone(),
            join_type: join.join_type,
            on,
            filter: rest.into_iter().reduce(Expr::and),
            schema: Arc::clone(&join.schema),
            slot: OperatorSlot::empty(),
        })
    }

    /// When each side's rows can go: from watermarked key columns, or from
    /// a time range between the sides' watermarked columns.
    fn expiries(&self, watermarked: &[(String, i64)]) -> (Option<Expiry>, Option<Expiry>) {
        let is_wm = |name: &str| watermarked.iter().any(|(c, _)| c == name);
        let (ls, rs) = (self.left.schema(), self.right.schema());
        // a key that is a watermarked column (or a window) on both sides
        for (l, r) in &self.on {
            if let (Expr::Column(lc), Expr::Column(rc)) = (l, r) {
                if (is_wm(&lc.name) || is_window_column(&self.left, &lc.name))
                    && (is_wm(&rc.name) || is_window_column(&self.right, &rc.name))
                {
                    if let (Ok(li), Ok(ri)) = (ls.index_of_column(lc), rs.index_of_column(rc)) {
                        return (
                            Some(Expiry {
                                column: li,
                                offset_us: 0,
                            }),
                            Some(Expiry {
                                column: ri,
                                offset_us: 0,
                            }),
                        );
                    }
                }
            }
        }
        let Some(bounds) = self.time_bounds(watermarked) else {
            return (None, None);
        };
        let side = |col: Option<usize>, offset: Option<i64>| match (col, offset) {
            (Some(column), Some(offset_us)) => Some(Expiry { column, offset_us }),
            _ => None,
        };
        // a left row can match future right rows (time > wm) while left - lo > wm
        (
            side(bounds.left_col, bounds.lo.map(|lo| -lo)),
            side(bounds.right_col, bounds.hi),
        )
    }

    /// Spark's refusal of a side with more than one event-time column (a
    /// watermarked column and a window of it, say): its message.
    fn multiple_event_times(&self, watermarked: &[(String, i64)]) -> Option<String> {
        [&self.left, &self.right].into_iter().find_map(|side| {
            let delay = |name: &str| watermarked.iter().find(|(c, _)| c == name).map(|(_, d)| *d);
            let any_delay = watermarks_delay(side, watermarked);
            let columns: Vec<String> = side
                .schema()
                .fields()
                .iter()
                .filter_map(|f| match delay(f.name()) {
                    Some(d) => Some(format!("{}-T{d}ms", f.name())),
                    None if is_window_column(side, f.name()) => {
                        Some(format!("{}-T{}ms", f.name(), any_delay))
                    }
                    None => None,
                })
                .collect();
            (columns.len() > 1).then(|| {
                format!(
                    "More than one event time columns are available. Please ensure there is at most one event time column per stream. event time columns: ({})",
                    columns.join(",")
                )
            })
        })
    }

    /// Bounds on leftTime - rightTime in the filter, between watermarked columns.
    fn time_bounds(&self, watermarked: &[(String, i64)]) -> Option<TimeBounds> {
        let is_wm = |name: &str| watermarked.iter().any(|(c, _)| c == name);
        let (ls, rs) = (self.left.schema(), self.right.schema());
        let mut bounds = TimeBounds::default();
        for c in split_conjunction(self.filter.as_ref()?) {
            bounds.add(&c, ls, rs, &is_wm);
        }
        Some(bounds)
    }

    /// How far (µs) the join's output watermark trails its input's: the
    /// stateful operators above it run on the watermark less this, as in
    /// Spark, whose join emits rows up to its time range behind the
    /// watermark. A side's state watermark trails by its bound on the other
    /// side's time (a millisecond more when the bound is not strict); the
    /// output's is the earliest of the sides that have one.
    pub fn output_lag_us(&self, watermarked: &[(String, i64)]) -> i64 {
        let (left, right) = self.expiries(watermarked);
        let Some(bounds) = self
            .time_bounds(watermarked)
            .filter(|b| b.left_col.is_some())
        else {
            return 0; // watermarked keys: the output keeps the watermark
        };
        let adjust = |strict: bool| if strict { 0 } else { 1000 };
        let lags = [
            left.map(|e| e.offset_us + adjust(bounds.lo_strict)),
            right.map(|e| e.offset_us + adjust(bounds.hi_strict)),
        ];
        lags.into_iter().flatten().max().unwrap_or(0).max(0)
    }

    /// Spark runs outer stream-stream joins in append mode only (its
    /// unsupported-operation check, before the watermark's); inner and semi
    /// joins run in update mode too.
    pub fn check_output_mode(&self, mode: crate::plan::output_mode::OutputMode) -> Result<()> {
        let name = match self.join_type {
            JoinType::Left | JoinType::Right | JoinType::Full => outer_name(self.join_type),
            _ => return Ok(()),
        };
        if mode == crate::plan::output_mode::OutputMode::Append {
            return Ok(());
        }
        Err(Error::analysis(
            "_LEGACY_ERROR_TEMP_3102",
            format!(
                "{name} join between two streaming DataFrames/Datasets is not supported in {mode:?} output mode, \
                 only in Append output mode"
            ),
        ))
    }

    /// The node with its operator opened for a running query.
    pub fn open(&self, ctx: &OpenContext) -> Result<(Self, Arc<dyn OperatorControl>)> {
        let watermarked = &ctx.watermarks;
        let (left_expiry, right_expiry) = self.expiries(watermarked);
        let needs = |side_nullable: bool, expiry: Option<Expiry>| side_nullable && expiry.is_none();
        // a semi join's left rows wait for matches as an outer join's do
        let (outer_left, outer_right) = match self.join_type {
            JoinType::Left | JoinType::LeftSemi => (true, false),
            JoinType::Right => (false, true),
            JoinType::Full => (true, true),
            _ => (false, false),
        };
        if needs(outer_left, left_expiry) || needs(outer_right, right_expiry) {
            // Spark's unsupported-operation check names no other condition
            return Err(Error::analysis(
                "_LEGACY_ERROR_TEMP_3102",
                format!(
                    "Stream-stream {} join between two streaming DataFrame/Datasets is not supported without a watermark \
                     in the join keys, or a watermark on the nullable side and an appropriate range condition",
                    outer_name(self.join_type)
                ),
            ));
        }
        if left_expiry.is_none() || right_expiry.is_none() {
            log::warn!(
                "stream-stream join without a watermark and time range on both sides: its state grows without bound"
            );
        }
        let side_time = |s: &DFSchema| {
            s.fields()
                .iter()
                .position(|f| watermarked.iter().any(|(c, _)| c == f.name()))
        };
        // as in Spark, a side drops late rows only where its state has a
        // watermark condition (a watermarked key or a time range): without
        // one, a late row is stored and joins like any other
        let open_side = |name: &str, schema: &DFSchema, expiry: Option<Expiry>| {
            let late = expiry.and_then(|_| side_time(schema));
            SideState::open(ctx, name, schema.as_arrow(), expiry, late)
        };
        ctx.spec.claim("symmetricHashJoin", &["left", "right"])?;
        for (name, schema, keys) in [
            (
                "left",
                self.left.schema(),
                self.on.iter().map(|(l, _)| l).collect::<Vec<_>>(),
            ),
            (
                "right",
                self.right.schema(),
                self.on.iter().map(|(_, r)| r).collect(),
            ),
        ] {
            let key = keys
                .iter()
                .map(|e| {
                    let (_, f) = e.to_field(schema)?;
                    Ok(Arc::new(
                        f.as_ref().clone().with_name(e.schema_name().to_string()),
                    ))
                })
                .collect::<Result<Vec<FieldRef>>>()?;
            StateLayout {
                key,
                time: None,
                value: vec![Arc::new(Field::new("rows", DataType::Binary, true))],
                rows: Some(schema.as_arrow().fields().to_vec()),
            }
            .record(&ctx.spec, name)?;
        }
        let join = StreamJoin {
            refusal: self.multiple_event_times(watermarked),
            join_type: self.join_type,
            left: open_side("left", self.left.schema(), left_expiry)?,
            right: open_side("right", self.right.schema(), right_expiry)?,
            version: ctx.spec.version,
            watermark: None,
            evict_wm: None,
            metrics: OperatorMetrics::default(),
            updating: std::time::Duration::ZERO,
        };
        let node = StreamJoinNode {
            slot: OperatorSlot::empty(),
            ..self.clone()
        };
        let control = node.slot.open(join);
        Ok((node, control))
    }
}

fn outer_name(t: JoinType) -> &'static str {
    match t {
        JoinType::Left => "LeftOuter",
        JoinType::Right => "RightOuter",
        JoinType::LeftSemi => "LeftSemi",
        _ => "FullOuter",
    }
}

/// `a AND b AND c` as `[a, b, c]` (BETWEEN as its two comparisons).
fn split_conjunction(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And,
            right,
        }) => {
            let mut v = split_conjunction(left);
            v.extend(split_conjunction(right));
            v
        }
        Expr::Between(b) if !b.negated => vec![
            b.expr.as_ref().clone().gt_eq(b.low.as_ref().clone()),
            b.expr.as_ref().clone().lt_eq(b.high.as_ref().clone()),
        ],
        other => vec![other.clone()],
    }
}

/// Which side's columns `e` uses: Some(true) left only, Some(false) right only.
fn side_of(e: &Expr, ls: &DFSchema, rs: &DFSchema) -> Option<bool> {
    let cols = e.column_refs();
    if cols.is_empty() {
        return None;
    }
    if cols.iter().all(|c| ls.has_column(c)) {
        Some(true)
    } else if cols.iter().all(|c| rs.has_column(c)) {
        Some(false)
    } else {
        None
    }
}

/// `l = r` with one side's columns on each side, as (left, right).
fn equi_pair(e: &Expr, ls: &DFSchema, rs: &DFSchema) -> Option<(Expr, Expr)> {
    let Expr::BinaryExpr(BinaryExpr {
        left,
        op: Operator::Eq,
        right,
    }) = e
    else {
        return None;
    };
    match (side_of(left, ls, rs), side_of(right, ls, rs)) {
        (Some(true), Some(false)) => Some((left.as_ref().clone(), right.as_ref().clone())),
        (Some(false), Some(true)) => Some((right.as_ref().clone(), left.as_ref().clone())),
        _ => None,
    }
}

/// `col` or `col ± interval` as (column, µs offset).
fn time_term(e: &Expr) -> Option<(&datafusion::common::Column, i64)> {
    match e {
        Expr::Column(c) => Some((c, 0)),
        Expr::Cast(c) => time_term(&c.expr),
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if matches!(op, Operator::Plus | Operator::Minus) =>
        {
            let (c, base) = time_term(left)?;
            let d = interval_us(right)?;
            Some((
                c,
                if *op == Operator::Plus {
                    base + d
                } else {
                    base - d
                },
            ))
        }
        _ => None,
    }
}

/// A fixed-length interval literal in µs.
fn interval_us(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(v, _) => match v {
            ScalarValue::IntervalMonthDayNano(Some(i)) if i.months == 0 => {
                Some(i.days as i64 * 86_400_000_000 + i.nanoseconds / 1000)
            }
            ScalarValue::IntervalDayTime(Some(i)) => {
                Some(i.days as i64 * 86_400_000_000 + i.milliseconds as i64 * 1000)
            }
            ScalarValue::DurationMicrosecond(Some(d)) => Some(*d),
            ScalarValue::DurationMillisecond(Some(d)) => Some(d * 1000),
            ScalarValue::DurationSecond(Some(d)) => Some(d * 1_000_000),
            _ => None,
        },
        Expr::Cast(c) => interval_us(&c.expr),
        _ => None,
    }
}

/// `filter` with `timestamp ± interval` (a whole number of µs, no days or
/// months) as `timestamp ± duration`: the same instants, but plain integer
/// arithmetic, where an interval makes arrow convert every row through its
/// time zone (the largest share of a join batch's filter in profiles).
fn durations_for_intervals(filter: &Expr, schema: &DFSchema) -> Expr {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    let exact_us = |e: &Expr| match e {
        Expr::Literal(ScalarValue::IntervalMonthDayNano(Some(i)), _)
            if i.months == 0 && i.days == 0 && i.nanoseconds % 1000 == 0 =>
        {
            Some(i.nanoseconds / 1000)
        }
        Expr::Literal(ScalarValue::IntervalDayTime(Some(i)), _) if i.days == 0 => {
            Some(i64::from(i.milliseconds) * 1000)
        }
        _ => None,
    };
    let rewritten = filter.clone().transform_up(|e| {
        if let Expr::BinaryExpr(BinaryExpr { left, op, right }) = &e {
            let timestamp_us = matches!(
                left.get_type(schema),
                Ok(DataType::Timestamp(TimeUnit::Microsecond, _))
            );
            if let (true, Operator::Plus | Operator::Minus, Some(us)) =
                (timestamp_us, op, exact_us(right))
            {
                let duration = Expr::Literal(ScalarValue::DurationMicrosecond(Some(us)), None);
                return Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    left.clone(),
                    *op,
                    Box::new(duration),
                ))));
            }
        }
        Ok(Transformed::no(e))
    });
    rewritten.map_or_else(|_| filter.clone(), |t| t.data)
}

/// Bounds on `leftTime - rightTime` (µs) from range conditions.
#[derive(Default)]
struct TimeBounds {
    left_col: Option<usize>,
    right_col: Option<usize>,
    lo: Option<i64>,
    hi: Option<i64>,
    /// Whether the bound `lo` (`hi`) comes from a strict comparison.
    lo_strict: bool,
    hi_strict: bool,
}

impl TimeBounds {
    fn add(&mut self, c: &Expr, ls: &DFSchema, rs: &DFSchema, is_wm: &dyn Fn(&str) -> bool) {
        let Expr::BinaryExpr(BinaryExpr { left, op, right }) = c else {
            return;
        };
        let (Some((a, da)), Some((b, db))) = (time_term(left), time_term(right)) else {
            return;
        };
        if !is_wm(&a.name) || !is_wm(&b.name) {
            return;
        }
        // normalise to leftTime + dl  op  rightTime + dr
        let (l, dl, r, dr, op) = match (ls.index_of_column(a), rs.index_of_column(b)) {
            (Ok(li), Ok(ri)) => (li, da, ri, db, *op),
            _ => match (ls.index_of_column(b), rs.index_of_column(a)) {
                (Ok(li), Ok(ri)) => (li, db, ri, da, flip(*op)),
                _ => return,
            },
        };
        self.left_col = Some(l);
        self.right_col = Some(r);
        // leftTime - rightTime  op  dr - dl
        let k = dr - dl;
        let strict = matches!(op, Operator::Gt | Operator::Lt);
        // the tighter bound wins; of two equal ones, the strict
        let tighter = |bound: Option<i64>,
                       bound_strict: bool,
                       tighter_than: fn(i64, i64) -> bool| {
            match bound {
                Some(b) if !(tighter_than(k, b) || (k == b && strict)) => (b, bound_strict),
                _ => (k, strict),
            }
        };
        match op {
            Operator::Gt | Operator::GtEq => {
                let (b, st) = tighter(self.lo, self.lo_strict, |k, b| k > b);
                (self.lo, self.lo_strict) = (Some(b), st);
            }
            Operator::Lt | Operator::LtEq => {
                let (b, st) = tighter(self.hi, self.hi_strict, |k, b| k < b);
                (self.hi, self.hi_strict) = (Some(b), st);
            }
            _ => {}
        }
    }
}

fn flip(op: Operator) -> Operator {
    match op {
        Operator::Gt => Operator::Lt,
        Operator::GtEq => Operator::LtEq,
        Operator::Lt => Operator::Gt,
        Operator::LtEq => Operator::GtEq,
        o => o,
    }
}

impl UserDefinedLogicalNodeCore for StreamJoinNode {
    fn name(&self) -> &str {
        "StreamingSymmetricHashJoin"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.left, &self.right]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    /// The keys and the filter, so that the analyzer coerces their types.
    fn expressions(&self) -> Vec<Expr> {
        let mut v: Vec<Expr> = self
            .on
            .iter()
            .flat_map(|(l, r)| [l.clone(), r.clone()])
            .collect();
        v.extend(self.filter.clone());
        v
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "StreamingSymmetricHashJoin: {} on {:?}",
            self.join_type, self.on
        )?;
        if let Some(filter) = &self.filter {
            write!(f, " filter {filter}")?;
        }
        Ok(())
    }

    /// What each side must keep: the columns read above the join, its
    /// keys and condition (the optimizer adds [`Self::expressions`]'
    /// columns) and its watermarked columns, which drop its late rows. The
    /// rest is pruned below the join, as Spark prunes it: the state holds
    /// only columns someone reads (Nexmark q3 in SQL stored the auctions'
    /// descriptions and took three times as long as its DataFrame form).
    /// Once opened, the inputs are fixed: the state stores their rows as
    /// they were then, and later optimizer passes must not reshape them.
    fn necessary_children_exprs(&self, output_columns: &[usize]) -> Option<Vec<Vec<usize>>> {
        if self.slot.is_open() {
            return None;
        }
        let left_len = self.left.schema().fields().len();
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for &i in output_columns {
            match self.join_type {
                // the output is the left side's columns
                JoinType::LeftSemi => left.push(i),
                _ if i < left_len => left.push(i),
                _ => right.push(i - left_len),
            }
        }
        for (keep, side) in [(&mut left, &self.left), (&mut right, &self.right)] {
            for (name, _) in watermarks_under(side) {
                keep.extend(side.schema().index_of_column_by_name(None, &name));
            }
            keep.sort_unstable();
            keep.dedup();
        }
        Some(vec![left, right])
    }

    fn with_exprs_and_inputs(
        &self,
        mut exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        let filter = if exprs.len() > self.on.len() * 2 {
            exprs.pop()
        } else {
            None
        };
        let on = exprs
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        let right = inputs
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        let left = inputs
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        // before it opens, the inputs may lose columns nobody reads (see
        // above); once open they are fixed, and keeping the schema makes
        // the rules that would reshape them (pushing a struct field's
        // extraction below the join) leave the node alone
        let schema = match self.slot.is_open() {
            true => Arc::clone(&self.schema),
            false => Arc::new(build_join_schema(
                left.schema(),
                right.schema(),
                &self.join_type,
            )?),
        };
        Ok(StreamJoinNode {
            left,
            right,
            on,
            filter,
            schema,
            ..self.clone()
        })
    }
}

/// One side's stored rows, by join key. A key's value packs its rows, each
/// as a matched flag, its expiry time and its bytes in Arrow's row format,
/// so a batch reads and writes each distinct key once and eviction reads no
/// row. (A key with very many rows is rewritten whole when it changes.)
struct SideState {
    state: PartitionedState,
    /// Encodes the side's columns.
    conv: RowConverter,
    expiry: Option<Expiry>,
    /// The side's watermarked event-time column: rows behind the watermark are late.
    late_column: Option<usize>,
    /// Each partition's keys by the time bucket of their rows' earliest
    /// expiry: the keys eviction visits once the watermark reaches the
    /// bucket (a key may be listed more than once; a visit to a key with
    /// nothing expired is a no-op that lists it again).
    by_expiry: Vec<ExpiryIndex>,
    /// Rows stored (`numRowsTotal`).
    rows: u64,
}

const MATCHED: u8 = 1;
/// Flag, expiry (i64) and length (u32) before each packed row.
const HEADER: usize = 13;

/// A row inside a key's packed value.
struct Packed<'a> {
    /// Where its flag byte is in the value.
    at: usize,
    matched: bool,
    /// When it expires (µs; `i64::MAX`: never).
    expiry: i64,
    row: &'a [u8],
}

fn packed_at(list: &[u8], at: usize) -> Option<Packed<'_>> {
    let head = list.get(at..at + HEADER)?;
    let expiry = i64::from_le_bytes(head[1..9].try_into().ok()?);
    let len = u32::from_le_bytes(head[9..13].try_into().ok()?) as usize;
    Some(Packed {
        at,
        matched: head[0] == MATCHED,
        expiry,
        row: list.get(at + HEADER..at + HEADER + len)?,
    })
}

/// The rows packed in a key's value, in the order they were stored.
fn unpack(list: &[u8]) -> impl Iterator<Item = Packed<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let p = packed_at(list, at)?;
        at += HEADER + p.row.len();
        Some(p)
    })
}

/// The rows (Arrow row format) packed in a join side's stored value.
pub(crate) fn packed_rows(list: &[u8]) -> impl Iterator<Item = &[u8]> {
    unpack(list).map(|p| p.row)
}

fn pack(list: &mut Vec<u8>, matched: bool, expiry: i64, row: &[u8]) {
    list.push(u8::from(matched));
    list.extend_from_slice(&expiry.to_le_bytes());
    list.extend_from_slice(&(row.len() as u32).to_le_bytes());
    list.extend_from_slice(row);
}

impl SideState {
    fn open(
        ctx: &OpenContext,
        name: &str,
        schema: &Schema,
        expiry: Option<Expiry>,
        late_column: Option<usize>,
    ) -> Result<Self> {
        let fields = vec![Arc::new(Field::new("rows", DataType::Binary, true))];
        let state = PartitionedState::open_named(
            ctx.provider,
            &ctx.spec,
            Some(name),
            &fields,
            KeyOrder::Unordered,
        )?;
        let conv = RowConverter::new(
            schema
                .fields()
                .iter()
                .map(|f| SortField::new(f.data_type().clone()))
                .collect(),
        )?;
        let mut side = SideState {
            state,
            conv,
            expiry,
            late_column,
            by_expiry: Vec::new(),
            rows: 0,
        };
        side.by_expiry
            .resize_with(side.state.len(), ExpiryIndex::default);
        // count the restored rows and rebuild the eviction index
        // (keys, then each value read in place: no copy of the rows)
        for p in 0..side.state.len() {
            let store = side.state.store(p);
            for key in store.keys() {
                let key = key?;
                let Some(list) = store.get_bytes(&key)? else {
                    continue;
                };
                let (n, earliest) =
                    unpack(&list).fold((0, i64::MAX), |(n, e), r| (n + 1, e.min(r.expiry)));
                side.rows += n;
                if expiry.is_some() {
                    side.by_expiry[p].insert(earliest, &key);
                }
            }
        }
        Ok(side)
    }

    /// Stored rows back to a batch of the side's columns.
    fn decode<'a>(
        &self,
        rows: impl Iterator<Item = &'a [u8]>,
        schema: &Schema,
    ) -> Result<RecordBatch> {
        let parser = self.conv.parser();
        let rows: Vec<_> = rows.map(|r| parser.parse(r)).collect();
        let cols = self.conv.convert_rows(rows)?;
        Ok(RecordBatch::try_new(
            Arc::new(schema.clone()),
            cols.into_iter()
                .zip(schema.fields())
                .map(|(c, f)| {
                    if c.data_type() == f.data_type() {
                        Ok(c)
                    } else {
                        Ok(cast(&c, f.data_type())?)
                    }
                })
                .collect::<Result<Vec<_>>>()?,
        )?)
    }

    fn put(&mut self, key: &[u8], list: Vec<u8>) -> Result<()> {
        let p = self.state.partition_of(key);
        let store = self.state.store_mut(p);
        if list.is_empty() {
            store.remove(key);
            Ok(())
        } else {
            store.put_bytes(key, &list)
        }
    }
}

/// Keys by time bucket ([`TIME_BUCKET_BITS`]) of an expiry, a bucket's keys
/// in one buffer, so a batch's inserts are appends.
#[derive(Default)]
struct ExpiryIndex(BTreeMap<i64, KeyList>);

/// Byte-string keys packed in one buffer.
#[derive(Default)]
struct KeyList {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyList {
    fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, e)| &self.bytes[s..*e])
    }
}

impl ExpiryIndex {
    fn insert(&mut self, expiry: i64, key: &[u8]) {
        let bucket = expiry >> TIME_BUCKET_BITS;
        self.0.entry(bucket).or_default().push(key);
    }

    /// Add `other`'s keys.
    fn merge(&mut self, other: ExpiryIndex) {
        for (bucket, keys) in other.0 {
            match self.0.entry(bucket) {
                Entry::Vacant(e) => {
                    e.insert(keys);
                }
                Entry::Occupied(mut e) => keys.iter().for_each(|k| e.get_mut().push(k)),
            }
        }
    }

    /// The keys of every bucket up to the one holding `wm`, removed.
    fn take_through(&mut self, wm: i64) -> Vec<KeyList> {
        let keep = self.0.split_off(&((wm >> TIME_BUCKET_BITS) + 1));
        std::mem::replace(&mut self.0, keep).into_values().collect()
    }
}

/// What evicting a partition of one side did.
struct Evicted {
    /// Rows removed.
    removed: u64,
    /// The unmatched expired rows, packed, when the side emits them.
    unmatched: Vec<u8>,
    /// The visited keys that keep rows, by their new earliest expiry.
    again: ExpiryIndex,
}

/// Remove the rows of `keys` expired at `wm` from one partition's store.
fn evict_partition(
    keys: &[KeyList],
    store: &mut dyn StateStore,
    wm: i64,
    emit: bool,
) -> Result<Evicted> {
    let mut out = Evicted {
        removed: 0,
        unmatched: Vec::new(),
        again: ExpiryIndex::default(),
    };
    for key in keys.iter().flat_map(KeyList::iter) {
        let Some(list) = store.get_bytes(key)? else {
            continue;
        };
        let (mut kept, mut earliest) = (Vec::new(), i64::MAX);
        for row in unpack(&list) {
            if row.expiry <= wm {
                out.removed += 1;
                if emit && !row.matched {
                    pack(&mut out.unmatched, false, row.expiry, row.row);
                }
            } else {
                pack(&mut kept, row.matched, row.expiry, row.row);
                earliest = earliest.min(row.expiry);
            }
        }
        let changed = kept.len() != list.len();
        drop(list);
        if kept.is_empty() {
            store.remove(key);
        } else if changed {
            store.put_bytes(key, &kept)?;
        }
        if earliest != i64::MAX {
            out.again.insert(earliest, key);
        }
    }
    Ok(out)
}

/// A running query's stream-stream join.
pub struct StreamJoin {
    /// Why the join cannot run, which Spark says when it first runs (a side
    /// with two event-time columns).
    refusal: Option<String>,
    join_type: JoinType,
    left: SideState,
    right: SideState,
    /// The state version this batch writes (unique row ids in state keys).
    version: i64,
    /// Rows at or below it are late.
    watermark: Option<i64>,
    /// State at or below it is evicted.
    evict_wm: Option<i64>,
    metrics: OperatorMetrics,
    /// Time spent joining this batch's rows so far (its chunks').
    updating: std::time::Duration,
}

/// The physical expressions and schemas of a planned join.
#[derive(Debug)]
pub struct JoinExprs {
    left_schema: SchemaRef,
    right_schema: SchemaRef,
    left_keys: Vec<Arc<dyn PhysicalExpr>>,
    right_keys: Vec<Arc<dyn PhysicalExpr>>,
    /// Over the left columns followed by the right columns.
    filter: Option<Arc<dyn PhysicalExpr>>,
    /// Left columns followed by right columns, all nullable (outer rows).
    pair_schema: SchemaRef,
    /// Encodes either side's keys (the right ones cast to the left's types).
    key_conv: RowConverter,
    out_schema: SchemaRef,
    /// A left semi join (its right side joins first).
    semi: bool,
}

impl JoinExprs {
    fn side_schema(&self, left: bool) -> &SchemaRef {
        if left {
            &self.left_schema
        } else {
            &self.right_schema
        }
    }
}

/// Event times (µs) of a side's batch for `column` (a window's end).
fn times_of(b: &RecordBatch, column: usize) -> Result<Vec<Option<i64>>> {
    event_times(b.column(column))
}

/// The key bytes of a side batch's rows, and which rows have a key (a null
/// key never matches).
fn key_rows(
    b: &RecordBatch,
    keys: &[Arc<dyn PhysicalExpr>],
    conv: &RowConverter,
) -> Result<(Rows, Vec<bool>)> {
    let cols = keys
        .iter()
        .map(|k| Ok(k.evaluate(b)?.into_array(b.num_rows())?))
        .collect::<Result<Vec<ArrayRef>>>()?;
    let rows = conv.convert_columns(&cols)?;
    let nulls = cols.iter().fold(None, |acc, c| {
        NullBuffer::union(acc.as_ref(), c.logical_nulls().as_ref())
    });
    let valid = match nulls {
        Some(n) => n.iter().collect(),
        None => vec![true; b.num_rows()],
    };
    Ok((rows, valid))
}

/// A batch's rows grouped by key: the distinct keys in first-seen order and
/// each one's rows, in row order. Group `keys.len()` is the rows with a null
/// key: stored (an outer join emits them) under the empty key, which no
/// key's row format equals, so they never match.
struct KeyGroups {
    /// The first row of each distinct key.
    first: Vec<u32>,
    /// Rows of group g: `rows[starts[g]..starts[g + 1]]`.
    starts: Vec<usize>,
    rows: Vec<u32>,
    /// Each row's group (`u32::MAX`: no key).
    group_of: Vec<u32>,
    nulls: Vec<u32>,
}

impl KeyGroups {
    fn new(keys: &Rows, valid: &[bool]) -> Self {
        let n = keys.num_rows();
        // sized for typical key counts, not rows: a table sized for every
        // row is mostly empty and cold
        let mut ids: HashMap<&[u8], u32, foldhash::fast::FixedState> =
            HashMap::with_capacity_and_hasher(n.min(1024), Default::default());
        let mut first = Vec::new();
        let group_of: Vec<u32> = (0..n)
            .map(|r| {
                if !valid[r] {
                    return u32::MAX;
                }
                *ids.entry(keys.row(r).data()).or_insert_with(|| {
                    first.push(r as u32);
                    (first.len() - 1) as u32
                })
            })
            .collect();
        // a counting sort of the rows by group
        let mut starts = vec![0usize; first.len() + 1];
        for g in group_of.iter().filter(|g| **g != u32::MAX) {
            starts[*g as usize + 1] += 1;
        }
        for g in 0..first.len() {
            starts[g + 1] += starts[g];
        }
        let mut next = starts.clone();
        let mut rows = vec![0u32; starts[first.len()]];
        for (r, g) in group_of.iter().enumerate() {
            if *g != u32::MAX {
                rows[next[*g as usize]] = r as u32;
                next[*g as usize] += 1;
            }
        }
        let nulls = (0..n as u32)
            .filter(|r| group_of[*r as usize] == u32::MAX)
            .collect();
        KeyGroups {
            first,
            starts,
            rows,
            group_of,
            nulls,
        }
    }

    /// Distinct keys (the null group not counted).
    fn len(&self) -> usize {
        self.first.len()
    }

    /// Group `g`'s key (empty for the null group).
    fn key<'k>(&self, keys: &'k Rows, g: usize) -> &'k [u8] {
        match self.first.get(g) {
            Some(r) => keys.row(*r as usize).data(),
            None => &[],
        }
    }

    /// Group `g`'s rows.
    fn rows_of(&self, g: usize) -> &[u32] {
        if g < self.first.len() {
            &self.rows[self.starts[g]..self.starts[g + 1]]
        } else {
            &self.nulls
        }
    }
}

/// What a batch appends to its side's state: each key's new rows, packed
/// and appended to its stored ones, partition by partition.
struct Appends {
    keys: Rows,
    groups: KeyGroups,
    /// The side's rows, encoded.
    rows: Rows,
    /// Each row's expiry (µs; `i64::MAX`: never).
    expiries: Vec<i64>,
    /// Each row's matched flag.
    matched: Vec<bool>,
    /// Whether matched rows are left out (a semi join's left rows, emitted once).
    skip_matched: bool,
    /// Rows expiring at or below it are left out (the right side's, which
    /// this batch's left rows have already met, as Spark leaves them out)...
    expired_through: Option<i64>,
    /// ...unless they are unmatched and an outer join emits them at eviction.
    keep_unmatched: bool,
    /// The groups of each partition.
    by_partition: Vec<Vec<u32>>,
}

impl Appends {
    fn stored(&self, r: usize) -> bool {
        if self.skip_matched && self.matched[r] {
            return false;
        }
        match self.expired_through {
            Some(wm) if self.expiries[r] <= wm => self.keep_unmatched && !self.matched[r],
            _ => true,
        }
    }

    /// Append partition `p`'s rows; returns how many.
    fn append(&self, p: usize, store: &mut dyn StateStore) -> Result<u64> {
        let (mut extra, mut added) = (Vec::new(), 0);
        for g in self.by_partition[p].iter().map(|g| *g as usize) {
            extra.clear();
            for r in self.groups.rows_of(g).iter().map(|r| *r as usize) {
                if self.stored(r) {
                    pack(
                        &mut extra,
                        self.matched[r],
                        self.expiries[r],
                        self.rows.row(r).data(),
                    );
                    added += 1;
                }
            }
            store.append_bytes(self.groups.key(&self.keys, g), &extra)?;
        }
        Ok(added)
    }
}

impl StreamJoin {
    fn side(&mut self, left: bool) -> &mut SideState {
        if left {
            &mut self.left
        } else {
            &mut self.right
        }
    }

    fn side_ref(&self, left: bool) -> &SideState {
        if left {
            &self.left
        } else {
            &self.right
        }
    }

    /// Drop late rows of a side batch.
    fn drop_late(&mut self, b: RecordBatch, left: bool) -> Result<RecordBatch> {
        let (Some(wm), Some(col)) = (self.watermark, self.side(left).late_column) else {
            return Ok(b);
        };
        let keep: BooleanArray = times_of(&b, col)?
            .iter()
            .map(|t| Some(t.is_none_or(|t| t > wm)))
            .collect();
        let dropped = keep.len() - keep.true_count();
        if dropped == 0 {
            return Ok(b);
        }
        self.metrics.rows_dropped_by_watermark += dropped as u64;
        Ok(filter_record_batch(&b, &keep)?)
    }

    /// Join a batch of one side with the other side's state, store its rows,
    /// and return the output rows (pair schema, or left rows for semi).
    fn join_side(
        &mut self,
        b: &RecordBatch,
        left: bool,
        exprs: &JoinExprs,
    ) -> Result<Vec<RecordBatch>> {
        let key_exprs = if left {
            &exprs.left_keys
        } else {
            &exprs.right_keys
        };
        let (keys, valid) = key_rows(b, key_exprs, &exprs.key_conv)?;
        let groups = KeyGroups::new(&keys, &valid);
        let semi = self.join_type == JoinType::LeftSemi;
        // the other side's rows of each distinct key: their packed values
        // (`lists`, read in place), and per candidate row (list, offset)
        // and its flag
        let mut lists: Vec<(usize, Cow<[u8]>)> = Vec::new();
        let mut stored: Vec<(u32, usize)> = Vec::new();
        let mut stored_matched: Vec<bool> = Vec::new();
        let mut range_of = vec![0..0; groups.len()];
        {
            let other = self.side_ref(!left);
            for (g, range) in range_of.iter_mut().enumerate() {
                let key = groups.key(&keys, g);
                let p = other.state.partition_of(key);
                let Some(list) = other.state.store(p).get_bytes(key)? else {
                    continue;
                };
                let start = stored.len();
                for row in unpack(&list) {
                    // a semi join emits a left row once
                    if !(semi && !left && row.matched) {
                        stored.push((lists.len() as u32, row.at));
                        stored_matched.push(row.matched);
                    }
                }
                *range = start..stored.len();
                lists.push((g, list));
            }
        }
        // candidate pairs: (row of b, index in `stored`), in b's row order
        let mut this_idx: Vec<u32> = Vec::new();
        let mut cand: Vec<u32> = Vec::new();
        for (r, g) in groups.group_of.iter().enumerate() {
            if *g != u32::MAX {
                for s in range_of[*g as usize].clone() {
                    this_idx.push(r as u32);
                    cand.push(s as u32);
                }
            }
        }
        let (this_idx, cand) = (UInt32Array::from(this_idx), UInt32Array::from(cand));
        let this_cols = b
            .columns()
            .iter()
            .map(|c| Ok(take(c.as_ref(), &this_idx, None)?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        // each stored row decoded once, then repeated for its pairs
        let other_batch = self.side_ref(!left).decode(
            stored
                .iter()
                .filter_map(|(l, at)| packed_at(&lists[*l as usize].1, *at).map(|p| p.row)),
            exprs.side_schema(!left),
        )?;
        let other_cols = other_batch
            .columns()
            .iter()
            .map(|c| Ok(take(c.as_ref(), &cand, None)?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let cols: Vec<ArrayRef> = if left {
            this_cols.into_iter().chain(other_cols).collect()
        } else {
            other_cols.into_iter().chain(this_cols).collect()
        };
        let pairs = RecordBatch::try_new(Arc::clone(&exprs.pair_schema), cols)?;
        let mask = match &exprs.filter {
            Some(f) => f
                .evaluate(&pairs)?
                .into_array(pairs.num_rows())?
                .as_boolean()
                .clone(),
            None => BooleanArray::from(vec![true; pairs.num_rows()]),
        };
        let mut matched_rows = vec![false; b.num_rows()];
        // stored rows matched for the first time (indices in `stored`)
        let mut first_matches: Vec<usize> = Vec::new();
        for (i, ok) in mask.iter().enumerate() {
            if ok == Some(true) {
                matched_rows[this_idx.value(i) as usize] = true;
                let s = cand.value(i) as usize;
                if !stored_matched[s] {
                    stored_matched[s] = true;
                    first_matches.push(s);
                }
            }
        }
        let mut out = Vec::new();
        if semi && left {
            // left rows with a match in the right state: emitted now, once
            let first: BooleanArray = matched_rows.iter().map(|m| Some(*m)).collect();
            out.push(filter_record_batch(b, &first)?);
        } else if semi {
            // stored left rows matched for the first time by this right batch
            let idx =
                UInt32Array::from(first_matches.iter().map(|i| *i as u32).collect::<Vec<_>>());
            let cols = other_batch
                .columns()
                .iter()
                .map(|c| Ok(take(c.as_ref(), &idx, None)?))
                .collect::<Result<Vec<ArrayRef>>>()?;
            out.push(RecordBatch::try_new(Arc::clone(&exprs.out_schema), cols)?);
        } else {
            out.push(filter_record_batch(&pairs, &mask)?);
        }
        // flag the stored rows that matched, then store this batch's rows
        let mut changed = vec![false; lists.len()];
        for s in first_matches {
            let (l, at) = stored[s];
            lists[l as usize].1.to_mut()[at] = MATCHED;
            changed[l as usize] = true;
        }
        // copied out only when flagged, which ends the borrow of the store
        let flagged: Vec<(usize, Vec<u8>)> = lists
            .into_iter()
            .zip(changed)
            .filter(|(_, c)| *c)
            .map(|((g, list), _)| (g, list.into_owned()))
            .collect();
        for (g, list) in flagged {
            self.side(!left).put(groups.key(&keys, g), list)?;
        }
        let expired_through = if left { None } else { self.evict_wm };
        let keep_unmatched = matches!(self.join_type, JoinType::Right | JoinType::Full);
        let this = self.side(left);
        let rows = this.conv.convert_columns(b.columns())?;
        let expiries: Vec<i64> = match this.expiry {
            Some(exp) => times_of(b, exp.column)?
                .iter()
                .map(|t| t.unwrap_or(i64::MIN).saturating_add(exp.offset_us))
                .collect(),
            None => vec![i64::MAX; b.num_rows()],
        };
        let mut appends = Appends {
            by_partition: vec![Vec::new(); this.state.len()],
            expiries,
            matched: matched_rows,
            skip_matched: semi && left,
            expired_through,
            keep_unmatched,
            rows,
            keys,
            groups,
        };
        // each key with rows to store: its partition, and its earliest
        // expiry in the eviction index
        for g in 0..=appends.groups.len() {
            let earliest = appends
                .groups
                .rows_of(g)
                .iter()
                .map(|r| *r as usize)
                .filter(|r| appends.stored(*r))
                .map(|r| appends.expiries[r])
                .min();
            let Some(earliest) = earliest else {
                continue;
            };
            let key = appends.groups.key(&appends.keys, g);
            let p = this.state.partition_of(key);
            if this.expiry.is_some() {
                this.by_expiry[p].insert(earliest, key);
            }
            appends.by_partition[p].push(g as u32);
        }
        let appends = Arc::new(appends);
        let added: u64 = this
            .state
            .each(b.num_rows(), move |p, store| appends.append(p, store))?
            .iter()
            .sum();
        this.rows += added;
        self.metrics.rows_updated += added;
        Ok(out)
    }

    /// Evict both sides' expired rows; outer joins emit the unmatched ones.
    fn evict(&mut self, exprs: &JoinExprs) -> Result<Vec<RecordBatch>> {
        let Some(wm) = self.evict_wm else {
            return Ok(vec![]);
        };
        let t = Instant::now();
        let mut out = Vec::new();
        for left in [true, false] {
            let emit = match self.join_type {
                JoinType::Left => left,
                JoinType::Right => !left,
                JoinType::Full => true,
                _ => false,
            };
            let side = if left {
                &mut self.left
            } else {
                &mut self.right
            };
            // each partition's keys with rows that may expire at or below
            // the watermark
            let taken: Vec<Vec<KeyList>> = side
                .by_expiry
                .iter_mut()
                .map(|ix| ix.take_through(wm))
                .collect();
            let keys = taken.iter().flatten().map(|l| l.ends.len()).sum();
            let taken = Arc::new(taken);
            let parts = side.state.each(keys, move |p, store| {
                evict_partition(&taken[p], store, wm, emit)
            })?;
            let (mut unmatched, mut removed) = (Vec::new(), 0);
            for (p, part) in parts.into_iter().enumerate() {
                removed += part.removed;
                unmatched.extend_from_slice(&part.unmatched);
                side.by_expiry[p].merge(part.again);
            }
            side.rows -= removed;
            self.metrics.rows_removed += removed;
            if unmatched.is_empty() {
                continue;
            }
            let own = side.decode(unpack(&unmatched).map(|p| p.row), exprs.side_schema(left))?;
            let n = own.num_rows();
            let nulls = exprs
                .side_schema(!left)
                .fields()
                .iter()
                .map(|f| new_null_array(f.data_type(), n));
            let cols: Vec<ArrayRef> = if left {
                own.columns().iter().cloned().chain(nulls).collect()
            } else {
                nulls.chain(own.columns().iter().cloned()).collect()
            };
            out.push(RecordBatch::try_new(Arc::clone(&exprs.pair_schema), cols)?);
        }
        self.metrics.all_removals_ms += t.elapsed().as_millis() as i64;
        Ok(out)
    }
    /// One side's rows of a batch joined with the other side's state, and
    /// stored. One side goes first (the left, or the right in a semi join):
    /// the other side's rows of this batch then meet its rows in state, so
    /// every new pair is output once.
    fn join_input(
        &mut self,
        batches: Vec<RecordBatch>,
        left: bool,
        exprs: &JoinExprs,
    ) -> Result<Vec<RecordBatch>> {
        if let Some(message) = &self.refusal {
            return Err(Error::analysis(
                "MULTIPLE_EVENT_TIME_COLUMNS",
                message.clone(),
            ));
        }
        let t = Instant::now();
        let b = concat_batches(exprs.side_schema(left), &batches)?;
        let b = self.drop_late(b, left)?;
        let out = self.join_side(&b, left, exprs)?;
        self.updating += t.elapsed();
        Ok(out)
    }

    /// The batch's output: the joined rows of both sides and the rows
    /// evicted unmatched (outer joins), in the output schema.
    fn finish(&mut self, mut out: Vec<RecordBatch>, exprs: &JoinExprs) -> Result<RecordBatch> {
        self.metrics.all_updates_ms = self.updating.as_millis() as i64;
        out.extend(self.evict(exprs)?);
        // pairs to the output schema (semi output is the left rows already)
        let out: Vec<RecordBatch> = out
            .into_iter()
            .map(|b| RecordBatch::try_new(Arc::clone(&exprs.out_schema), b.columns().to_vec()))
            .collect::<std::result::Result<_, _>>()?;
        Ok(concat_batches(&exprs.out_schema, &out)?)
    }
}

impl StatefulOperator for StreamJoin {
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>) {
        self.watermark = late_us;
        self.evict_wm = evict_us;
        self.metrics = OperatorMetrics::default();
        self.updating = std::time::Duration::ZERO;
    }

    fn commit(&mut self) -> Result<()> {
        let ms = self.left.state.commit()? + self.right.state.commit()?;
        self.metrics.commit_ms = ms;
        self.version += 1;
        Ok(())
    }

    fn progress(&self) -> serde_json::Value {
        let mut p = progress(
            "symmetricHashJoin",
            &[("left", &self.left.state), ("right", &self.right.state)],
            &self.metrics,
        );
        // the stores hold a value per key; Spark counts the rows
        p["numRowsTotal"] = (self.left.rows + self.right.rows).into();
        p
    }
}

/// The physical stream-stream join of one batch: runs both inputs, joins
/// them with the state, and outputs one partition.
#[derive(Debug)]
pub struct StreamJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    exprs: Arc<JoinExprs>,
    slot: OperatorSlot<StreamJoin>,
    properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical inputs.
pub fn plan(
    node: &StreamJoinNode,
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    session: &dyn datafusion::catalog::Session,
) -> DFResult<StreamJoinExec> {
    let (ls, rs) = (node.left.schema(), node.right.schema());
    let left_keys = node
        .on
        .iter()
        .map(|(l, _)| session.create_physical_expr(l.clone(), ls))
        .collect::<DFResult<Vec<_>>>()?;
    // right keys cast to the left keys' types, so equal values encode alike
    let right_keys = node
        .on
        .iter()
        .map(|(l, r)| {
            let want = l.get_type(ls)?;
            let r = if r.get_type(rs)? == want {
                r.clone()
            } else {
                Expr::Cast(datafusion::logical_expr::Cast::new(
                    Box::new(r.clone()),
                    want,
                ))
            };
            session.create_physical_expr(r, rs)
        })
        .collect::<DFResult<Vec<_>>>()?;
    let both = ls.join(rs)?;
    let filter = node
        .filter
        .as_ref()
        .map(|f| {
            session
                .create_physical_expr(durations_for_intervals(f, &both), &both)
                .or_else(|_| session.create_physical_expr(f.clone(), &both))
        })
        .transpose()?;
    let nullable = |s: &DFSchema| -> Vec<FieldRef> {
        s.fields()
            .iter()
            .map(|f| Arc::new(f.as_ref().clone().with_nullable(true)))
            .collect()
    };
    let mut pair: Vec<FieldRef> = nullable(ls);
    pair.extend(nullable(rs));
    let out_schema: SchemaRef = Arc::new(node.schema.as_arrow().clone());
    let key_conv = RowConverter::new(
        left_keys
            .iter()
            .map(|k| Ok(SortField::new(k.data_type(ls.as_arrow())?)))
            .collect::<DFResult<Vec<_>>>()?,
    )?;
    let exprs = JoinExprs {
        left_schema: Arc::clone(ls.inner()),
        right_schema: Arc::clone(rs.inner()),
        left_keys,
        right_keys,
        filter,
        pair_schema: Arc::new(Schema::new(pair)),
        out_schema: Arc::clone(&out_schema),
        key_conv,
        semi: node.join_type == JoinType::LeftSemi,
    };
    let properties = Arc::new(PlanProperties::new(
        EquivalenceProperties::new(out_schema),
        Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    Ok(StreamJoinExec {
        left,
        right,
        exprs: Arc::new(exprs),
        slot: node.slot.clone(),
        properties,
    })
}

impl DisplayAs for StreamJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "StreamingSymmetricHashJoinExec")
    }
}

impl ExecutionPlan for StreamJoinExec {
    fn name(&self) -> &str {
        "StreamingSymmetricHashJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.left, &self.right]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let right = children
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        let left = children
            .pop()
            .ok_or_else(|| DataFusionError::Internal("join needs two inputs".into()))?;
        Ok(Arc::new(StreamJoinExec {
            left,
            right,
            exprs: Arc::clone(&self.exprs),
            slot: self.slot.clone(),
            properties: Arc::clone(&self.properties),
        }))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<SendableRecordBatchStream> {
        let (left, right) = (Arc::clone(&self.left), Arc::clone(&self.right));
        let (exprs, slot) = (Arc::clone(&self.exprs), self.slot.clone());
        let schema = Arc::clone(&self.exprs.out_schema);
        let fut = async move {
            // both inputs are read from the start, and their rows join as
            // they come, while the scans go on: one side first (the other's
            // rows read meanwhile wait), so that the second side's rows meet
            // the first's in state and each new pair is output once
            let left = Chunks::read(left, Arc::clone(&context));
            let right = Chunks::read(right, context);
            // Spark's semi join meets the right rows first: a left row then
            // matches only right rows that stay in state
            let ((first, first_is_left), (second, second_is_left)) = match exprs.semi {
                true => ((right, false), (left, true)),
                false => ((left, true), (right, false)),
            };
            let mut out = first.join(&slot, &exprs, first_is_left).await?;
            out.extend(second.join(&slot, &exprs, second_is_left).await?);
            slot.with(|j| j.finish(out, &exprs)).map_err(external)
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            futures::stream::once(fut),
        )))
    }
}

/// Rows a side joins at a time (or all it has, at its end): enough for a
/// join to work on partitions side by side, few enough to start before the
/// scan ends.
const CHUNK_ROWS: usize = 16_384;

/// A join input being read by a task of its own, its batches queued.
struct Chunks {
    batches: tokio::sync::mpsc::UnboundedReceiver<RecordBatch>,
    task: SpawnedTask<DFResult<()>>,
}

impl Chunks {
    fn read(plan: Arc<dyn ExecutionPlan>, context: Arc<TaskContext>) -> Self {
        let (tx, batches) = tokio::sync::mpsc::unbounded_channel();
        let task = SpawnedTask::spawn(async move {
            let mut stream = execute_stream(plan, context)?;
            while let Some(b) = stream.next().await {
                if tx.send(b?).is_err() {
                    break; // the join stopped
                }
            }
            Ok(())
        });
        Chunks { batches, task }
    }

    /// Join the side's rows, [`CHUNK_ROWS`] at a time, as they arrive.
    async fn join(
        mut self,
        slot: &OperatorSlot<StreamJoin>,
        exprs: &JoinExprs,
        left: bool,
    ) -> DFResult<Vec<RecordBatch>> {
        let (mut out, mut pending, mut rows) = (Vec::new(), Vec::new(), 0);
        let mut join = |chunk: Vec<RecordBatch>| -> DFResult<()> {
            out.extend(
                slot.with(|j| j.join_input(chunk, left, exprs))
                    .map_err(external)?,
            );
            Ok(())
        };
        while let Some(b) = self.batches.recv().await {
            rows += b.num_rows();
            pending.push(b);
            if rows >= CHUNK_ROWS {
                join(std::mem::take(&mut pending))?;
                rows = 0;
            }
        }
        // the input ended or failed: a failure ends the batch here
        self.task
            .join()
            .await
            .map_err(|e| DataFusionError::Internal(format!("a join input's task failed: {e}")))??;
        if rows > 0 {
            join(pending)?;
        }
        Ok(out)
    }
}

fn external(e: Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::IntervalMonthDayNano;
    use datafusion::prelude::{col, lit};

    fn interval(days: i32, nanos: i64) -> Expr {
        lit(ScalarValue::IntervalMonthDayNano(Some(
            IntervalMonthDayNano::new(0, days, nanos),
        )))
    }

    #[test]
    fn expiry_index_hands_over_the_keys_of_buckets_through_the_watermark() {
        let mut idx = ExpiryIndex::default();
        let second = 1 << TIME_BUCKET_BITS;
        idx.insert(-5, b"early");
        idx.insert(second + 1, b"edge");
        idx.insert(second + 2, b"");
        idx.insert(3 * second, b"late");
        let taken: Vec<Vec<u8>> = idx
            .take_through(second + 1)
            .iter()
            .flat_map(KeyList::iter)
            .map(<[u8]>::to_vec)
            .collect();
        // the watermark's own bucket too: its keys are checked row by row
        assert_eq!(taken, vec![b"early".to_vec(), b"edge".to_vec(), vec![]]);
        let rest: Vec<Vec<u8>> = idx
            .take_through(i64::MAX)
            .iter()
            .flat_map(KeyList::iter)
            .map(<[u8]>::to_vec)
            .collect();
        assert_eq!(rest, vec![b"late".to_vec()]);
    }

    #[test]
    fn merged_expiry_indexes_keep_every_key_in_its_bucket() {
        let second = 1 << TIME_BUCKET_BITS;
        let (mut idx, mut other) = (ExpiryIndex::default(), ExpiryIndex::default());
        idx.insert(0, b"a");
        other.insert(1, b"b"); // same bucket as "a"
        other.insert(2 * second, b"c"); // a bucket `idx` lacks
        idx.merge(other);
        let keys = |lists: Vec<KeyList>| -> Vec<Vec<u8>> {
            lists
                .iter()
                .flat_map(KeyList::iter)
                .map(<[u8]>::to_vec)
                .collect()
        };
        assert_eq!(
            keys(idx.take_through(1)),
            vec![b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(keys(idx.take_through(i64::MAX)), vec![b"c".to_vec()]);
    }

    #[test]
    fn fixed_intervals_on_timestamps_become_durations_and_others_stay() {
        let schema = DFSchema::try_from(Schema::new(vec![
            Field::new(
                "ts",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Field::new("n", DataType::Int64, true),
        ]))
        .unwrap();
        let ten_s = col("ts").lt_eq(col("ts") + interval(0, 10_000_000_000));
        assert_eq!(
            durations_for_intervals(&ten_s, &schema),
            col("ts").lt_eq(col("ts") + lit(ScalarValue::DurationMicrosecond(Some(10_000_000))))
        );
        // a day follows the time zone's calendar; sub-µs is not exact: kept
        for kept in [col("ts") + interval(1, 0), col("ts") + interval(0, 1_500)] {
            assert_eq!(durations_for_intervals(&kept, &schema), kept);
        }
    }
}
