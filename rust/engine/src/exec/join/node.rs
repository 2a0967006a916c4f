//! A stream-stream join in the plan: its logical node, made from
//! DataFusion's join, with the keys, condition and state-bounding
//! watermark terms Spark derives from it.

use super::*;

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
pub(super) fn watermarks_delay(plan: &LogicalPlan, watermarked: &[(String, i64)]) -> i64 {
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
pub(super) fn is_window_column(plan: &LogicalPlan, name: &str) -> bool {
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
    pub(super) fn expiries(
        &self,
        watermarked: &[(String, i64)],
    ) -> (Option<Expiry>, Option<Expiry>) {
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
    pub(super) fn multiple_event_times(&self, watermarked: &[(String, i64)]) -> Option<String> {
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
    pub(super) fn time_bounds(&self, watermarked: &[(String, i64)]) -> Option<TimeBounds> {
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
        let mut tables = Vec::new();
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
            tables.push(StateTable {
                name,
                layout: StateLayout {
                    key,
                    time: None,
                    value: vec![Arc::new(Field::new("rows", DataType::Binary, true))],
                    rows: Some(schema.as_arrow().fields().to_vec()),
                },
                order: KeyOrder::Unordered,
                restart_check: None,
            });
        }
        let mut opened =
            ctx.spec
                .open_tables(ctx.provider.as_ref(), "symmetricHashJoin", &tables)?;
        let right_state = opened.pop();
        let left_state = opened.pop();
        let (Some(left_state), Some(right_state)) = (left_state, right_state) else {
            return Err(Error::Internal(
                "a join opened without its sides' state".into(),
            ));
        };
        let open_side =
            |state: PartitionedState, schema: &DFSchema, expiry: Option<Expiry>, left: bool| {
                let late = expiry.and_then(|_| side_time(schema));
                let flags = flags_read(self.join_type, left);
                SideState::open(state, schema.as_arrow(), expiry, late, flags)
            };
        let join = StreamJoin {
            refusal: self.multiple_event_times(watermarked),
            join_type: self.join_type,
            left: open_side(left_state, self.left.schema(), left_expiry, true)?,
            right: open_side(right_state, self.right.schema(), right_expiry, false)?,
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
