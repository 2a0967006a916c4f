//! Spark's names for the result columns of `spark.sql(...)`: an unaliased
//! `SELECT count(*), sum(t.id), upper(name)` gives `count(1)`, `sum(id)`,
//! `upper(name)` as in Spark, the names the DataFrame API gives the same
//! expressions ([`super::spark_names`]), where DataFusion would say
//! `count(*)`, `sum(t.id)`, `upper(t.name)`.

use std::collections::{HashMap, HashSet};

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::expr::Cast;
use datafusion::logical_expr::{Distinct, Expr, LogicalPlan, LogicalPlanBuilder};

use super::spark_names::output_name;
use crate::error::Result;

/// `plan` with its output columns under Spark's names (a projection on
/// top, so what sorts or filters by the old names above is untouched).
pub fn rename(plan: LogicalPlan) -> Result<LogicalPlan> {
    let Some(names) = select_names(&plan) else {
        return Ok(plan);
    };
    let schema = plan.schema();
    if names.len() != schema.fields().len()
        || names
            .iter()
            .zip(schema.fields())
            .all(|(n, f)| n == f.name())
    {
        return Ok(plan);
    }
    // two columns of one name would be ambiguous: keep DataFusion's there
    let mut seen = HashSet::new();
    let unique = names.iter().all(|n| seen.insert(n.as_str()));
    if !unique {
        return Ok(plan);
    }
    let exprs: Vec<Expr> = schema
        .columns()
        .into_iter()
        .zip(names)
        .map(|(c, name)| {
            if c.name == name {
                Expr::Column(c)
            } else {
                Expr::Column(c).alias(name)
            }
        })
        .collect();
    Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
}

/// The names of the outermost SELECT's columns, Spark's way.
fn select_names(plan: &LogicalPlan) -> Option<Vec<String>> {
    match plan {
        LogicalPlan::Sort(s) => select_names(&s.input),
        LogicalPlan::Limit(l) => select_names(&l.input),
        LogicalPlan::Distinct(Distinct::All(input)) => select_names(input),
        LogicalPlan::Projection(p) => {
            let made = computed(&p.input);
            Some(p.expr.iter().map(|e| name_of(e, &made)).collect())
        }
        _ => None,
    }
}

/// The expressions an aggregation or window below computes, by the column
/// name they are read back by.
fn computed(plan: &LogicalPlan) -> HashMap<String, Expr> {
    let of = |exprs: &[Expr]| -> Vec<(String, Expr)> {
        exprs
            .iter()
            .filter(|e| !matches!(e, Expr::Column(_)))
            .map(|e| (e.schema_name().to_string(), e.clone().unalias()))
            .collect()
    };
    match plan {
        LogicalPlan::Filter(f) => computed(&f.input),
        LogicalPlan::Sort(s) => computed(&s.input),
        LogicalPlan::Limit(l) => computed(&l.input),
        LogicalPlan::Aggregate(a) => of(&a.group_expr)
            .into_iter()
            .chain(of(&a.aggr_expr))
            .collect(),
        LogicalPlan::Window(w) => {
            let mut made = computed(&w.input);
            made.extend(of(&w.window_expr));
            made
        }
        _ => HashMap::new(),
    }
}

fn name_of(e: &Expr, made: &HashMap<String, Expr>) -> String {
    match e {
        // DataFusion's own alias of `count(*)`; Spark says `count(1)`
        Expr::Alias(a) if a.name == "count(*)" => name_of(&a.expr, made),
        Expr::Alias(a) => a.name.clone(),
        Expr::Column(c) if !made.contains_key(&c.name) => c.name.clone(),
        other => {
            let whole = other
                .clone()
                .transform(|x| match &x {
                    Expr::Column(c) => Ok(match made.get(&c.name) {
                        Some(m) => Transformed::yes(m.clone()),
                        None => Transformed::no(x),
                    }),
                    // `DATE '2020-01-01'` is a typed literal, named as one
                    Expr::Cast(Cast { expr, field }) => Ok(match expr.as_ref() {
                        Expr::Literal(v, _) if v.data_type().is_string() => {
                            match v.cast_to(field.data_type()) {
                                Ok(typed) => Transformed::yes(Expr::Literal(typed, None)),
                                Err(_) => Transformed::no(x),
                            }
                        }
                        _ => Transformed::no(x),
                    }),
                    _ => Ok(Transformed::no(x)),
                })
                .map(|t| t.data)
                .unwrap_or_else(|_| other.clone());
            output_name(&whole)
        }
    }
}
