//! Spark's multi-level groupings over [`crate::dataframe::aggregate`]:
//! `cube`, `rollup`, `groupingSets` (DataFusion's grouping sets, whose
//! internal grouping id the DataFrame API projects away) and
//! `groupBy(...).pivot(col, values)` (each aggregate once per pivot value,
//! counting only that value's rows).

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::dataframe::DataFrame;
use datafusion::functions_aggregate::expr_fn::count;
use datafusion::logical_expr::{lit, when, Expr, GroupingSet};

use crate::error::{Error, Result};

/// How the grouping keys group.
#[derive(Debug, Clone)]
pub enum Grouping {
    /// `groupBy`: one group per distinct key.
    Plain,
    /// `cube`: every subset of the keys.
    Cube,
    /// `rollup`: each prefix of the keys, down to none.
    Rollup,
    /// `groupingSets`: the listed sets, each a list of key positions.
    Sets(Vec<Vec<usize>>),
}

impl Grouping {
    /// The grouping kind by its name in the bindings (`sets` for `sets`).
    pub fn parse(kind: &str, sets: Option<Vec<Vec<usize>>>) -> Result<Grouping> {
        match (kind, sets) {
            ("groupby", _) => Ok(Grouping::Plain),
            ("cube", _) => Ok(Grouping::Cube),
            ("rollup", _) => Ok(Grouping::Rollup),
            ("sets", Some(sets)) => Ok(Grouping::Sets(sets)),
            (other, _) => Err(Error::Internal(format!("unknown grouping {other}"))),
        }
    }

    /// The group-by expressions for `keys` (plain columns by now).
    pub fn keys(&self, keys: Vec<Expr>) -> Result<Vec<Expr>> {
        Ok(match self {
            Grouping::Plain => keys,
            Grouping::Cube => vec![Expr::GroupingSet(GroupingSet::Cube(keys))],
            Grouping::Rollup => vec![Expr::GroupingSet(GroupingSet::Rollup(keys))],
            Grouping::Sets(sets) => {
                let pick = |i: &usize| {
                    keys.get(*i)
                        .cloned()
                        .ok_or_else(|| Error::Internal(format!("grouping set refers to key {i}")))
                };
                let sets = sets
                    .iter()
                    .map(|s| s.iter().map(pick).collect::<Result<Vec<_>>>())
                    .collect::<Result<Vec<_>>>()?;
                vec![Expr::GroupingSet(GroupingSet::GroupingSets(sets))]
            }
        })
    }
}

/// `groupBy(group).pivot(pivot, values).agg(aggs)`: for each value, each
/// aggregate over the rows whose `pivot` is that value (null: the rows where
/// it is null), named `names[v * aggs.len() + a]`; null where a group has
/// no row of that value (Spark's pivot, even for `count`).
pub fn pivot(
    df: DataFrame,
    group: Vec<Expr>,
    pivot: Expr,
    values: Vec<Expr>,
    aggs: Vec<Expr>,
    names: Vec<String>,
) -> Result<DataFrame> {
    let pivot = crate::dataframe::resolve(&df, pivot)?;
    let mut out = Vec::with_capacity(values.len() * aggs.len());
    for value in &values {
        let only = match value {
            Expr::Literal(v, _) if v.is_null() => pivot.clone().is_null(),
            v => pivot.clone().eq(v.clone()),
        };
        for agg in &aggs {
            let agg = crate::dataframe::resolve(&df, agg.clone())?;
            let inner = match agg {
                Expr::Alias(a) => *a.expr,
                other => other,
            };
            let any = filtered(count(lit(1)), &only)?.gt(lit(0i64));
            out.push(
                when(any, filtered(inner, &only)?)
                    .end()
                    .map_err(Error::from_planning)?,
            );
        }
    }
    if out.len() != names.len() {
        return Err(Error::Internal("pivot: one name per output".into()));
    }
    let out = out
        .into_iter()
        .zip(names)
        .map(|(e, n)| e.alias(n))
        .collect();
    crate::dataframe::aggregate(df, group, out, &Grouping::Plain)
}

/// `e` with each aggregate in it counting only the rows where `only` holds.
fn filtered(e: Expr, only: &Expr) -> Result<Expr> {
    e.transform_up(|e| match e {
        Expr::AggregateFunction(mut f) => {
            f.params.filter = Some(Box::new(match f.params.filter.take() {
                Some(existing) => existing.as_ref().clone().and(only.clone()),
                None => only.clone(),
            }));
            Ok(Transformed::yes(Expr::AggregateFunction(f)))
        }
        other => Ok(Transformed::no(other)),
    })
    .map(|t| t.data)
    .map_err(Error::from_planning)
}
