//! Spark's higher-order functions over arrays (`transform`, `filter`,
//! `exists`, `forall`) on DataFusion's lambda functions: a Python lambda
//! is called once with placeholder columns, and the expression it returns
//! becomes the lambda's body.

use datafusion::execution::SessionState;
use datafusion::logical_expr::expr::{HigherOrderFunction, Lambda, LambdaVariable};
use datafusion::logical_expr::Expr;

use crate::error::{Error, Result};

/// The prefix of the variables a Python lambda is called with; Spark names
/// them `namedlambdavariable()` in column names.
pub const PYTHON_LAMBDA_PREFIX: &str = "__sparklet_lambda_";

/// A lambda's parameter, by name.
pub fn variable(name: &str) -> Expr {
    Expr::LambdaVariable(LambdaVariable::new(name.to_string(), None))
}

/// DataFusion's function for a Spark higher-order function (the others
/// are sparklet's own, [`super::lambdas`], under Spark's names).
fn datafusion_name(spark: &str) -> Option<&str> {
    match spark {
        "exists" | "forall" => Some("array_any_match"),
        own if super::lambdas::is_own(own) => Some(own),
        _ => None,
    }
}

/// Spark's name of DataFusion's higher-order function `name`.
pub fn spark_name(name: &str) -> &str {
    match name {
        "array_transform" => "transform",
        "array_filter" => "filter",
        "array_any_match" => "exists",
        other => other,
    }
}

/// `name(args..., params -> body, ...)`; `forall(a, p)` is
/// `NOT exists(a, NOT p)`, which keeps Spark's nulls (null when no element
/// fails and one is null).
pub fn call(
    state: &SessionState,
    name: &str,
    args: Vec<Expr>,
    lambdas: Vec<(Vec<String>, Expr)>,
) -> Result<Expr> {
    let lower = name.to_ascii_lowercase();
    let df_name = datafusion_name(&lower).ok_or_else(|| {
        Error::analysis(
            "UNRESOLVED_ROUTINE",
            format!("Cannot resolve higher-order function `{name}`."),
        )
    })?;
    if lambdas.is_empty() {
        return Err(Error::analysis(
            "INVALID_LAMBDA_FUNCTION_CALL",
            format!("{lower} takes a lambda function"),
        ));
    }
    let func = state
        .higher_order_functions()
        .get(df_name)
        .cloned()
        .ok_or_else(|| {
            Error::analysis(
                "UNRESOLVED_ROUTINE",
                format!("`{df_name}` is not registered"),
            )
        })?;
    let forall = lower == "forall";
    let mut all = args;
    for (params, body) in lambdas {
        let body = if forall {
            Expr::Not(Box::new(body))
        } else {
            body
        };
        all.push(Expr::Lambda(Lambda::new(params, body)));
    }
    let call = Expr::HigherOrderFunction(HigherOrderFunction::new(func, all));
    Ok(if forall {
        Expr::Not(Box::new(call))
    } else {
        call
    })
}

/// Whether `e` is `forall` as [`call`] builds it.
pub fn as_forall(e: &Expr) -> Option<&HigherOrderFunction> {
    let Expr::Not(inner) = e else { return None };
    let Expr::HigherOrderFunction(f) = inner.as_ref() else {
        return None;
    };
    let negated_body =
        matches!(f.args.last(), Some(Expr::Lambda(l)) if matches!(l.body.as_ref(), Expr::Not(_)));
    (f.func.name() == "array_any_match" && negated_body).then_some(f)
}

/// Registers sparklet's higher-order functions, and DataFusion's
/// `array_any_match` as Spark's `exists`, for SQL text too
/// (`transform(a, x -> x + 1)`).
pub fn register_spark_names(ctx: &datafusion::prelude::SessionContext) {
    for f in super::lambdas::all() {
        ctx.register_higher_order_function(std::sync::Arc::new(f));
    }
    let state = ctx.state();
    for (df_name, spark) in [("array_any_match", "exists")] {
        if let Some(f) = state.higher_order_functions().get(df_name) {
            let named = f.as_ref().clone().with_aliases([spark]);
            ctx.register_higher_order_function(std::sync::Arc::new(named));
        }
    }
}
