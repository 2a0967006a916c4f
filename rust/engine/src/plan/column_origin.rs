//! Where a column of a plan's output comes from: the expression that
//! computed it, followed down through projections, aggregations' group keys
//! and the nodes that pass their input's columns through. Operators use it
//! to tell a time window by what computed it, not by its name (Spark marks
//! the column itself; `F.window(...).alias("w")` is still a window).

use datafusion::logical_expr::{Expr, LogicalPlan};

/// The expression behind a column, and how many aggregations it passed on
/// its way to the plan's output, the one grouping by it included (a window
/// computed below an earlier aggregation reaches a later one as that
/// aggregation's finished window, whatever computed it).
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    /// The computing expression, aliases stripped.
    pub expr: Expr,
    /// Aggregations passed.
    pub aggregations: usize,
}

/// The expression that computed `name` in `plan`'s output (aliases
/// stripped), or None when it is a source's column or cannot be followed.
pub fn origin(plan: &LogicalPlan, name: &str) -> Option<Origin> {
    let mut plan = plan;
    let mut name = name.to_string();
    let mut aggregations = 0;
    loop {
        let computed = match plan {
            LogicalPlan::Projection(p) => {
                let i = position(plan, &name)?;
                Some((unaliased(p.expr.get(i)?), p.input.as_ref()))
            }
            LogicalPlan::Aggregate(a) => {
                if matches!(a.group_expr.first(), Some(Expr::GroupingSet(_))) {
                    return None;
                }
                let i = position(plan, &name)?;
                aggregations += 1;
                match a.group_expr.get(i) {
                    Some(g) => Some((unaliased(g), a.input.as_ref())),
                    None => Some((
                        unaliased(a.aggr_expr.get(i - a.group_expr.len())?),
                        a.input.as_ref(),
                    )),
                }
            }
            LogicalPlan::Extension(e) => {
                // only a node that passes its one input's columns through
                let inputs = e.node.inputs();
                let [input] = inputs.as_slice() else {
                    return None;
                };
                if input.schema().fields() != plan.schema().fields() {
                    return None;
                }
                plan = *input;
                None
            }
            LogicalPlan::TableScan(_) | LogicalPlan::EmptyRelation(_) | LogicalPlan::Values(_) => {
                return None
            }
            // filters, sorts, limits, aliases, joins: the input holding it
            other => {
                plan = other
                    .inputs()
                    .into_iter()
                    .find(|i| position(i, &name).is_some())?;
                None
            }
        };
        if let Some((expr, input)) = computed {
            match expr {
                Expr::Column(c) => {
                    name = c.name.clone();
                    plan = input;
                }
                other => {
                    return Some(Origin {
                        expr: other.clone(),
                        aggregations,
                    })
                }
            }
        }
    }
}

impl Origin {
    /// The name of the function that computed the column, if a call did.
    pub fn function(&self) -> Option<&str> {
        match &self.expr {
            Expr::ScalarFunction(f) => Some(f.func.name()),
            _ => None,
        }
    }
}

fn position(plan: &LogicalPlan, name: &str) -> Option<usize> {
    plan.schema().fields().iter().position(|f| f.name() == name)
}

fn unaliased(e: &Expr) -> &Expr {
    match e {
        Expr::Alias(a) => unaliased(&a.expr),
        other => other,
    }
}
