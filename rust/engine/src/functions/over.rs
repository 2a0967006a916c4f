//! Window functions on batch DataFrames: `F.row_number()`, `F.lag(...)`
//! and every aggregate, `.over(Window.partitionBy(...).orderBy(...)
//! .rowsBetween(...))`, on DataFusion's window execution.

use datafusion::common::ScalarValue;
use datafusion::execution::context::SessionState;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::expr::{NullTreatment, WindowFunction};
use datafusion::logical_expr::{
    lit, Expr, SortExpr, WindowFrame, WindowFrameBound, WindowFrameUnits, WindowFunctionDefinition,
};

use crate::error::{Error, Result};

/// Spark's window functions that are not aggregates, by Spark's name.
const WINDOW_FUNCTIONS: &[&str] = &[
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "nth_value",
];

/// `name(args)` as a window function not yet over a window, if `name` is
/// one of Spark's window functions.
pub fn window_function(state: &SessionState, name: &str, args: Vec<Expr>) -> Option<Result<Expr>> {
    if !WINDOW_FUNCTIONS.contains(&name) {
        return None;
    }
    let f = match state.udwf(name) {
        Ok(f) => f,
        Err(e) => return Some(Err(Error::from_planning(e))),
    };
    let mut args = args;
    let mut ignore_nulls = false;
    match name {
        // Spark's lag/lead always have an offset and a default (named so)
        "lag" | "lead" => {
            if args.len() < 2 {
                args.push(lit(1i64));
            }
            if args.len() < 3 {
                args.push(lit(ScalarValue::Null));
            }
        }
        "nth_value" if args.len() == 3 => {
            ignore_nulls = matches!(
                args.pop(),
                Some(Expr::Literal(ScalarValue::Boolean(Some(true)), _))
            );
        }
        _ => {}
    }
    let mut w = WindowFunction::new(WindowFunctionDefinition::WindowUDF(f), args);
    if ignore_nulls {
        w.params.null_treatment = Some(NullTreatment::IgnoreNulls);
    }
    Some(Ok(Expr::from(w)))
}

/// A frame as `rowsBetween`/`rangeBetween` give it: offsets from the
/// current row, `None` for unbounded.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// `rowsBetween` (else `rangeBetween`)
    pub rows: bool,
    /// first row's offset (negative: before the current row)
    pub start: Option<i64>,
    /// last row's offset
    pub end: Option<i64>,
}

/// A frame bound as DataFusion's SQL planner writes one: an unsigned row
/// count, or for a range frame the offset as text, which its type coercion
/// casts to the ORDER BY column's type.
fn bound(offset: Option<i64>, start: bool, rows: bool) -> WindowFrameBound {
    let value = |n: u64| {
        if rows {
            ScalarValue::UInt64(Some(n))
        } else {
            ScalarValue::Utf8(Some(n.to_string()))
        }
    };
    match offset {
        None if start => WindowFrameBound::Preceding(ScalarValue::UInt64(None)),
        None => WindowFrameBound::Following(ScalarValue::UInt64(None)),
        Some(0) => WindowFrameBound::CurrentRow,
        Some(n) if n < 0 => WindowFrameBound::Preceding(value(n.unsigned_abs())),
        Some(n) => WindowFrameBound::Following(value(n as u64)),
    }
}

/// `e.over(window)`: a window function, or an aggregate computed over the
/// window; with no frame, Spark's default (the partition up to the current
/// row's peers when ordered, the whole partition when not).
pub fn over(
    e: Expr,
    partition_by: Vec<Expr>,
    order_by: Vec<SortExpr>,
    frame: Option<Frame>,
) -> Result<Expr> {
    let mut w = match e {
        Expr::WindowFunction(w) => *w,
        Expr::AggregateFunction(a) => {
            let mut w = WindowFunction::new(
                WindowFunctionDefinition::AggregateUDF(a.func),
                a.params.args,
            );
            w.params.distinct = a.params.distinct;
            w.params.null_treatment = a.params.null_treatment;
            w
        }
        other => {
            return Err(Error::analysis(
                "UNSUPPORTED_EXPR_FOR_WINDOW",
                format!(
                    "Expression \"{}\" not supported within a window function.",
                    crate::plan::spark_names::spark_name(&other)
                ),
            ))
        }
    };
    let ordered = !order_by.is_empty();
    w.params.partition_by = partition_by;
    w.params.order_by = order_by;
    w.params.window_frame = match frame {
        None if ordered => WindowFrame::new(Some(false)),
        None => WindowFrame::new(None),
        Some(f) => {
            let units = if f.rows {
                WindowFrameUnits::Rows
            } else {
                WindowFrameUnits::Range
            };
            WindowFrame::new_bounds(
                units,
                bound(f.start, true, f.rows),
                bound(f.end, false, f.rows),
            )
        }
    };
    let ranking = matches!(&w.fun, WindowFunctionDefinition::WindowUDF(f)
        if matches!(f.name(), "row_number" | "rank" | "dense_rank" | "ntile"));
    let out = Expr::from(w);
    // Spark's ranking functions give an int (DataFusion's a bigint); a
    // cast by type name keeps the window's own name
    match crate::functions::spark_sql::cast_function("int") {
        Some(int) if ranking => Ok(int.call(vec![out])),
        _ => Ok(out),
    }
}
