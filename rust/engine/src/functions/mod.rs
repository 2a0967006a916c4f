//! PySpark's `functions` and `Column` operators as DataFusion expressions.
//!
//! The bindings call [`call`] with a Spark function name and argument
//! expressions; names DataFusion shares with Spark resolve through the
//! session's function registry, the rest are mapped here or implemented as
//! UDFs in [`udfs`].

mod aes;
mod arrays;
mod collect;
pub mod column;
pub mod higher_order;
mod java_math;
mod lambdas;
pub(crate) mod murmur3;
mod named_aggregate;
mod number_format;
pub mod over;
mod random;
pub mod range_table;
mod rounding;
pub mod sketches;
mod spark_named;
pub mod spark_rewrites;
pub mod spark_sql;
pub mod statistics;
pub mod struct_fields;
mod text;
mod timestamps;
pub mod udfs;
pub mod user_udfs;
pub mod variant;
mod vectors;
pub mod window;
mod xpath;

use std::sync::Arc;

use datafusion::common::ScalarValue;
use datafusion::execution::context::SessionState;
use datafusion::execution::FunctionRegistry;
use datafusion::functions_aggregate::{
    average, bool_and_or, count, first_last, stddev, string_agg, variance,
};
use datafusion::logical_expr::expr::{AggregateFunction, ScalarFunction};
use datafusion::logical_expr::{cast, lit, AggregateUDF, Expr, Operator, ScalarUDF};
use datafusion::prelude::{binary_expr, ident};

use crate::error::{Error, Result};

/// A binary operator by PySpark's name for it.
pub fn binary(op: &str, left: Expr, right: Expr) -> Result<Expr> {
    let operator = match op {
        "+" => Operator::Plus,
        "-" => Operator::Minus,
        "*" => Operator::Multiply,
        "/" => return Ok(crate::plan::spark_division::divide(left, right)),
        "%" => return Ok(crate::plan::spark_remainder::remainder(left, right)),
        "==" => Operator::Eq,
        "!=" => Operator::NotEq,
        "<" => Operator::Lt,
        "<=" => Operator::LtEq,
        ">" => Operator::Gt,
        ">=" => Operator::GtEq,
        "<=>" => Operator::IsNotDistinctFrom,
        "and" => Operator::And,
        "or" => Operator::Or,
        "&" => Operator::BitwiseAnd,
        "|" => Operator::BitwiseOr,
        "^" => Operator::BitwiseXor,
        other => return Err(Error::Internal(format!("unknown binary operator {other}"))),
    };
    Ok(binary_expr(left, operator, right))
}

/// Whether `e` is `F.col("*")`: every column (`count("*")`, `hash("*")`).
pub fn is_star(e: &Expr) -> bool {
    matches!(e, Expr::Column(c) if c.relation.is_none() && c.name == "*")
}

/// `F.col(name)`: `a.b` is column `b` of relation `a` (resolved against the
/// DataFrame later), `` `a.b` `` is a column literally named `a.b`.
pub fn column(name: &str) -> Expr {
    if let Some(inner) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
        return ident(inner);
    }
    if name.contains('.') {
        // `s.fieldName`: as written (DataFusion's `col` lower-cases it)
        return Expr::Column(datafusion::common::Column::from_qualified_name_ignore_case(
            name,
        ));
    }
    ident(name)
}

fn udf(state: &SessionState, name: &str) -> Option<Arc<ScalarUDF>> {
    state.udf(name).ok()
}

fn scalar(state: &SessionState, name: &str, args: Vec<Expr>) -> Result<Expr> {
    let f = udf(state, name).ok_or_else(|| Error::unresolved_routine(name))?;
    Ok(Expr::ScalarFunction(ScalarFunction::new_udf(f, args)))
}

/// Functions of `datafusion-spark` (Spark's semantics) that take the place
/// of DataFusion's namesake; the crate's others fill names nothing else has.
/// (`ceil`/`floor` give a bigint, as Spark's do.)
const SPARK_OVER_DATAFUSION: &[&str] = &[
    "sha2",
    "sha1",
    "crc32",
    "xxhash64",
    "array_contains",
    // a position of 0 is the first character, a negative one counts from the end
    "substring",
];

/// Register `datafusion-spark`'s scalar functions where they give Spark's
/// answer (see [`SPARK_OVER_DATAFUSION`]) or the name is free.
pub fn register_spark_functions(ctx: &datafusion::prelude::SessionContext) {
    for f in datafusion_spark::all_default_scalar_functions() {
        let name = f.name();
        if SPARK_OVER_DATAFUSION.contains(&name) || ctx.udf(name).is_err() {
            ctx.register_udf(f.as_ref().clone());
        }
    }
}

/// Which library implements Spark's function `name` in sparklet:
/// `sparklet` (its own), `datasketches` (its sketches on Apache DataSketches),
/// `datafusion-spark`, `datafusion`, or None when no
/// engine function has that name (for the coverage table in the docs).
pub fn implementation_of(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let target = renamed(&lower);
    let names = |fs: Vec<String>| fs.into_iter().any(|n| n == target || n == lower);
    let sketch_names = sketches::aggregates()
        .into_iter()
        .map(|f| f.name().to_string())
        .chain(
            sketches::scalars()
                .into_iter()
                .map(|f| f.name().to_string()),
        );
    if lower.starts_with("bitmap_") && lower.ends_with("_agg") {
        return Some("sparklet");
    }
    if names(sketch_names.collect()) {
        return Some("datasketches");
    }
    let own = udfs::all()
        .into_iter()
        .chain(window::all())
        .chain(spark_sql::all())
        .flat_map(|f| std::iter::once(f.name().to_string()).chain(f.aliases().to_vec()))
        .collect();
    if names(own)
        || matches!(
            lower.as_str(),
            "collect_list" | "collect_set" | "approx_count_distinct"
        )
        || statistics::all().iter().any(|f| f.name() == lower)
    {
        return Some("sparklet");
    }
    let of_scalars = |fs: Vec<Arc<ScalarUDF>>| -> Vec<String> {
        fs.iter()
            .flat_map(|f| std::iter::once(f.name().to_string()).chain(f.aliases().to_vec()))
            .collect()
    };
    let datafusion_scalars = of_scalars(
        datafusion::functions::all_default_functions()
            .into_iter()
            .chain(datafusion::functions_nested::all_default_nested_functions())
            .collect(),
    );
    let spark = of_scalars(datafusion_spark::all_default_scalar_functions());
    let in_spark = spark.iter().any(|n| *n == target || *n == lower);
    if in_spark
        && (SPARK_OVER_DATAFUSION.contains(&target)
            || !datafusion_scalars.iter().any(|n| n == target))
    {
        return Some("datafusion-spark");
    }
    let aggregates: Vec<String> =
        datafusion::functions_aggregate::all_default_aggregate_functions()
            .iter()
            .flat_map(|f| std::iter::once(f.name().to_string()).chain(f.aliases().to_vec()))
            .collect();
    let agg = aggregate_name(&lower).0;
    let named = NAMED_AGGREGATES.iter().any(|(n, _)| *n == lower);
    if names(datafusion_scalars) || named || aggregates.iter().any(|n| n == agg) {
        return Some("datafusion");
    }
    None
}

/// Spark names whose DataFusion function has another name; each is
/// registered under the Spark name ([`register_spark_names`]).
const RENAMED: &[(&str, &str)] = &[
    ("length", "character_length"),
    ("char_length", "character_length"),
    ("substring", "substr"),
    ("current_timestamp", "now"),
    ("pow", "power"),
    ("size", "cardinality"),
    ("ucase", "upper"),
    ("lcase", "lower"),
    ("sha", "sha1"),
    ("negate", "negative"),
    ("ceiling", "ceil"),
    ("sign", "signum"),
    ("rlike", "regexp_like"),
    ("regexp", "regexp_like"),
    ("startswith", "starts_with"),
    ("endswith", "ends_with"),
    ("printf", "format_string"),
    ("curdate", "current_date"),
    ("array_size", "array_length"),
    // sparklet's parsers already give null for text they cannot read
    ("try_to_timestamp", "to_timestamp"),
    ("try_to_date", "to_date"),
    ("to_timestamp_ltz", "to_timestamp"),
];

fn renamed(name: &str) -> &str {
    RENAMED
        .iter()
        .find(|(spark, _)| *spark == name)
        .map_or(name, |(_, df)| df)
}

/// Register each DataFusion function of [`RENAMED`] under its Spark name,
/// and each alias under its own name (`array_join`, `substring_index`):
/// a call keeps the name it was made by, as in Spark.
pub fn register_spark_names(ctx: &datafusion::prelude::SessionContext) {
    let aliases: Vec<(String, Arc<ScalarUDF>)> = ctx
        .state()
        .scalar_functions()
        .iter()
        .filter(|(name, f)| f.name() != name.as_str())
        .map(|(name, f)| (name.clone(), Arc::clone(f)))
        .collect();
    for (alias, f) in aliases {
        ctx.register_udf(spark_named::SparkNamed::udf(alias, f));
    }
    for (spark, df) in RENAMED {
        if ctx.udf(spark).is_ok_and(|f| f.name() == *spark) {
            continue;
        }
        if let Ok(f) = ctx.udf(df) {
            ctx.register_udf(spark_named::SparkNamed::udf(spark.to_string(), f));
        }
    }
}

/// Build the expression for Spark function `name` over `args`.
pub fn call(state: &SessionState, name: &str, args: Vec<Expr>) -> Result<Expr> {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "regexp_replace" => {
            let mut args = args;
            if !(3..=4).contains(&args.len()) {
                return Err(Error::analysis(
                    "WRONG_NUM_ARGS",
                    "regexp_replace takes (str, pattern, replacement[, position])",
                ));
            }
            // from 1-based `position` on: the text before it kept as it is
            let position =
                (args.len() == 4).then(|| cast(args.remove(3), arrow::datatypes::DataType::Int64));
            args.push(lit("g")); // Spark replaces every match
            let Some(position) = position else {
                return scalar(state, "regexp_replace", args);
            };
            use datafusion::functions::unicode::expr_fn::{left, substr};
            let text = args[0].clone();
            args[0] = substr(text.clone(), position.clone());
            let replaced = scalar(state, "regexp_replace", args)?;
            let kept = left(text, position - lit(1i64));
            Ok(datafusion::functions::string::expr_fn::concat(vec![
                kept, replaced,
            ]))
        }
        "rand" | "randn" => {
            let f = random::fresh(&lower).ok_or_else(|| Error::Internal("rand".into()))?;
            Ok(Expr::ScalarFunction(ScalarFunction::new_udf(
                Arc::new(f),
                args,
            )))
        }
        "isnan" => {
            let a = args
                .into_iter()
                .next()
                .ok_or_else(|| Error::analysis("WRONG_NUM_ARGS", "isnan takes one argument"))?;
            scalar(state, "isnan", vec![a])
        }
        "count"
        | "sum"
        | "avg"
        | "mean"
        | "min"
        | "max"
        | "first"
        | "last"
        | "collect_list"
        | "collect_set"
        | "stddev"
        | "variance"
        | "approx_count_distinct"
        | "count_distinct" => aggregate(state, &lower, args),
        _ => {
            if let Some(w) = over::window_function(state, &lower, args.clone()) {
                return w;
            }
            let target = if udf(state, &lower).is_some() {
                lower.as_str()
            } else {
                renamed(&lower)
            };
            if udf(state, target).is_none() && state.udaf(aggregate_name(&lower).0).is_ok() {
                return aggregate(state, &lower, args);
            }
            scalar(state, target, args)
        }
    }
}

/// DataFusion's aggregate for Spark's aggregate `name`, and whether it
/// aggregates distinct values.
fn aggregate_name(name: &str) -> (&str, bool) {
    match name {
        "mean" => ("avg", false),
        "first_value" | "last_value" => (name, false),
        "array_agg" => ("collect_list", false),
        "count_distinct" => ("count", true),
        "sum_distinct" => ("sum", true),
        other => (other, false),
    }
}

type AggregateMaker = fn() -> Arc<AggregateUDF>;

/// Spark's aggregates that are a DataFusion aggregate of another name:
/// registered under Spark's name, so the call keeps it (`any_value(c)`).
const NAMED_AGGREGATES: &[(&str, AggregateMaker)] = &[
    ("first", first_last::first_value_udaf),
    ("any_value", first_last::first_value_udaf),
    ("last", first_last::last_value_udaf),
    ("std", stddev::stddev_udaf),
    ("stddev_samp", stddev::stddev_udaf),
    ("variance", variance::var_samp_udaf),
    ("var_samp", variance::var_samp_udaf),
    ("every", bool_and_or::bool_and_udaf),
    ("some", bool_and_or::bool_or_udaf),
    ("any", bool_and_or::bool_or_udaf),
    ("listagg", string_agg::string_agg_udaf),
    ("try_avg", average::avg_udaf),
];

/// Spark's aggregates DataFusion has under another name or meaning,
/// registered in each session (so SQL text finds them too).
pub fn spark_aggregates() -> Vec<AggregateUDF> {
    let mut all = vec![
        collect::udaf("collect_list"),
        // distinct by what they are (the plan's DISTINCT is the user's alone)
        named_aggregate::always_distinct("collect_set", Arc::new(collect::udaf("collect_set"))),
        // exact distinct counting: within any error bound, and its state
        // merges across micro-batches (approx_distinct's HLL state does not
        // round-trip)
        named_aggregate::always_distinct("approx_count_distinct", count::count_udaf()),
    ];
    all.extend(statistics::all());
    all.extend(sketches::aggregates());
    all.extend(vectors::aggregates());
    // Spark's try_sum (null on overflow)
    all.extend(
        datafusion_spark::all_default_aggregate_functions()
            .into_iter()
            .filter(|f| f.name() == "try_sum")
            .map(|f| f.as_ref().clone()),
    );
    all.extend(
        NAMED_AGGREGATES
            .iter()
            .map(|(name, f)| named_aggregate::named(name, f())),
    );
    all
}

/// Aggregate functions by Spark name (used by `groupBy().agg()` in later
/// issues and by batch DataFrames now).
fn aggregate(state: &SessionState, name: &str, args: Vec<Expr>) -> Result<Expr> {
    let (df_name, distinct) = aggregate_name(name);
    // count(*) counts rows, as count(1)
    let args = if df_name == "count" && args.len() == 1 && is_star(&args[0]) {
        vec![lit(1)]
    } else if df_name == "count" && distinct && args.len() > 1 {
        // count(DISTINCT a, b): the distinct combinations without a null
        let none_null = args
            .iter()
            .cloned()
            .map(Expr::is_not_null)
            .reduce(Expr::and)
            .unwrap_or(lit(true));
        let fields = args
            .iter()
            .enumerate()
            .flat_map(|(i, a)| [lit(format!("c{i}")), a.clone()])
            .collect();
        let combination = datafusion::functions::core::expr_fn::named_struct(fields);
        vec![datafusion::logical_expr::when(none_null, combination)
            .end()
            .map_err(Error::from_planning)?]
    } else {
        args
    };
    let f = state.udaf(df_name);
    // first/last(col, ignorenulls): the flag is the null treatment
    let mut args = args;
    let mut null_treatment = None;
    let ignore_nulls_flag = matches!(
        df_name,
        "first" | "first_value" | "any_value" | "last" | "last_value"
    );
    if ignore_nulls_flag && args.len() == 2 {
        if let Some(Expr::Literal(ScalarValue::Boolean(Some(true)), _)) = args.pop() {
            null_treatment = Some(datafusion::logical_expr::expr::NullTreatment::IgnoreNulls);
        }
    }
    let f = f.map_err(|_| {
        Error::analysis(
            "UNRESOLVED_ROUTINE",
            format!("Cannot resolve routine `{name}`."),
        )
    })?;
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        f,
        args,
        distinct,
        None,
        vec![],
        null_treatment,
    )))
}
