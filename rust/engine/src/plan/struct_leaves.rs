//! DataFusion 55's pair of rules that push struct field access towards the
//! scan (`extract_leaf_expressions`, `push_down_leaf_projections`) let a scan
//! decode only the leaves a query reads (Nexmark's `bid.price`, not the
//! whole `bid`). But where a projection redefines a struct column under its
//! own name (`withField`, or `withColumn("s", struct(...))`), they move `s.f`
//! below it and read the old struct ("Field f not found in struct").
//! [`UnlessStructShadowed`] runs such a rule on every plan but those.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::optimizer::optimizer::ApplyOrder;
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

/// `rule`, skipped on plans where a projection redefines a struct column.
#[derive(Debug)]
pub struct UnlessStructShadowed(pub Arc<dyn OptimizerRule + Send + Sync>);

/// The two rules that need it.
pub const RULES: &[&str] = &["extract_leaf_expressions", "push_down_leaf_projections"];

impl OptimizerRule for UnlessStructShadowed {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        self.0.apply_order()
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        config: &dyn OptimizerConfig,
    ) -> DFResult<Transformed<LogicalPlan>> {
        if shadows_struct(&plan) {
            return Ok(Transformed::no(plan));
        }
        self.0.rewrite(plan, config)
    }
}

/// Whether a projection in `plan` computes a struct under the name of one
/// of its input's columns.
fn shadows_struct(plan: &LogicalPlan) -> bool {
    plan.exists(|p| {
        let LogicalPlan::Projection(proj) = p else {
            return Ok(false);
        };
        let input = proj.input.schema();
        Ok(proj.expr.iter().zip(proj.schema.fields()).any(|(e, f)| {
            let computed = !matches!(e, Expr::Column(_))
                && !matches!(e, Expr::Alias(a) if matches!(*a.expr, Expr::Column(_)));
            computed
                && matches!(f.data_type(), DataType::Struct(_))
                && input.has_column_with_unqualified_name(f.name())
        }))
    })
    .unwrap_or(true)
}
