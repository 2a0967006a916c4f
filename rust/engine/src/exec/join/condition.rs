//! The join condition taken apart: equi-keys, the side each term reads,
//! event-time ranges between the sides that bound the state.

use super::*;

pub(super) fn outer_name(t: JoinType) -> &'static str {
    match t {
        JoinType::Left => "LeftOuter",
        JoinType::Right => "RightOuter",
        JoinType::LeftSemi => "LeftSemi",
        _ => "FullOuter",
    }
}

/// `a AND b AND c` as `[a, b, c]` (BETWEEN as its two comparisons).
pub(super) fn split_conjunction(e: &Expr) -> Vec<Expr> {
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
pub(super) fn side_of(e: &Expr, ls: &DFSchema, rs: &DFSchema) -> Option<bool> {
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
pub(super) fn equi_pair(e: &Expr, ls: &DFSchema, rs: &DFSchema) -> Option<(Expr, Expr)> {
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
pub(super) fn time_term(e: &Expr) -> Option<(&datafusion::common::Column, i64)> {
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
pub(super) fn interval_us(e: &Expr) -> Option<i64> {
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
pub(super) fn durations_for_intervals(filter: &Expr, schema: &DFSchema) -> Expr {
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
pub(super) struct TimeBounds {
    pub(super) left_col: Option<usize>,
    pub(super) right_col: Option<usize>,
    pub(super) lo: Option<i64>,
    pub(super) hi: Option<i64>,
    /// Whether the bound `lo` (`hi`) comes from a strict comparison.
    pub(super) lo_strict: bool,
    pub(super) hi_strict: bool,
}

impl TimeBounds {
    pub(super) fn add(
        &mut self,
        c: &Expr,
        ls: &DFSchema,
        rs: &DFSchema,
        is_wm: &dyn Fn(&str) -> bool,
    ) {
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

pub(super) fn flip(op: Operator) -> Operator {
    match op {
        Operator::Gt => Operator::Lt,
        Operator::GtEq => Operator::LtEq,
        Operator::Lt => Operator::Gt,
        Operator::LtEq => Operator::GtEq,
        o => o,
    }
}
