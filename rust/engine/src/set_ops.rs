//! `intersect`, `intersectAll`, `subtract`, `exceptAll`: Spark's set
//! operations, matching columns by position (the result has the left
//! side's names) and nulls equal to nulls. The `ALL` forms are multiset
//! operations: a row the left side has `l` times and the right `r` times
//! appears `min(l, r)` times (intersect) or `l - r` times (except). Each
//! side numbers the copies of a row, and the sides are joined on the row
//! and its copy number.

use datafusion::common::{Column, JoinType};
use datafusion::dataframe::DataFrame;
use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::{binary_expr, cast, Expr, ExprFunctionExt, Operator};
use datafusion::prelude::ident;

use crate::error::{Error, Result};

/// Which set operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    /// `intersect`: distinct rows on both sides.
    Intersect,
    /// `intersectAll`: rows on both sides, duplicates as often as both have them.
    IntersectAll,
    /// `subtract`: distinct rows of the left not on the right.
    Except,
    /// `exceptAll`: the left's rows less the right's, copy for copy.
    ExceptAll,
}

impl SetOp {
    /// By the name of the DataFrame method.
    pub fn parse(name: &str) -> Result<SetOp> {
        Ok(match name {
            "intersect" => SetOp::Intersect,
            "intersectAll" => SetOp::IntersectAll,
            "subtract" => SetOp::Except,
            "exceptAll" => SetOp::ExceptAll,
            other => return Err(Error::Internal(format!("unknown set operation {other}"))),
        })
    }
}

const COPY: &str = "__copy";

/// `left <op> right`.
pub fn set_op(left: DataFrame, right: DataFrame, op: SetOp) -> Result<DataFrame> {
    let plan = Error::from_planning;
    let names: Vec<String> = left
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let right_names: Vec<String> = right
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    if names.len() != right_names.len() {
        return Err(Error::analysis(
            "NUM_COLUMNS_MISMATCH",
            format!(
                "[NUM_COLUMNS_MISMATCH] {} can only be performed on inputs with the same number of columns, \
                 but the first input has {} columns and the second input has {} columns.",
                match op {
                    SetOp::Intersect | SetOp::IntersectAll => "INTERSECT",
                    SetOp::Except | SetOp::ExceptAll => "EXCEPT",
                },
                names.len(),
                right_names.len()
            ),
        ));
    }
    // the right side takes the left's names and types, by position
    let left_types = left.schema().as_arrow().clone();
    let right = right
        .select(
            right_names
                .iter()
                .zip(left_types.fields())
                .map(|(r, l)| {
                    cast(Expr::Column(Column::from_name(r)), l.data_type().clone()).alias(l.name())
                })
                .collect::<Vec<_>>(),
        )
        .map_err(plan)?;
    let all = matches!(op, SetOp::IntersectAll | SetOp::ExceptAll);
    let numbered = |df: DataFrame| -> Result<DataFrame> {
        if !all {
            return df.distinct().map_err(plan);
        }
        let by: Vec<Expr> = names.iter().map(|n| ident(n.as_str())).collect();
        let copy = row_number()
            .partition_by(by)
            .build()
            .map_err(plan)?
            .alias(COPY);
        df.window(vec![copy]).map_err(plan)
    };
    let left = numbered(left)?.alias("__l").map_err(plan)?;
    let right = numbered(right)?.alias("__r").map_err(plan)?;
    let mut keys: Vec<&str> = names.iter().map(String::as_str).collect();
    if all {
        keys.push(COPY);
    }
    let on: Vec<Expr> = keys
        .iter()
        .map(|k| {
            binary_expr(
                Expr::Column(Column::new(Some("__l"), *k)),
                Operator::IsNotDistinctFrom,
                Expr::Column(Column::new(Some("__r"), *k)),
            )
        })
        .collect();
    let how = match op {
        SetOp::Intersect | SetOp::IntersectAll => JoinType::LeftSemi,
        SetOp::Except | SetOp::ExceptAll => JoinType::LeftAnti,
    };
    let joined = left.join_on(right, how, on).map_err(plan)?;
    joined
        .select(
            names
                .iter()
                .map(|n| Expr::Column(Column::new(Some("__l"), n.as_str())).alias(n.as_str()))
                .collect::<Vec<_>>(),
        )
        .map_err(plan)
}
