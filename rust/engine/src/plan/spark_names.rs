//! Spark's names for unaliased expressions: `df.select(F.col("v") + 1)` has
//! a column `(v + 1)`, `agg(F.sum("v"))` one named `sum(v)`, `F.count("*")`
//! `count(1)`, as Spark prints them; DataFusion would name them
//! `df_0.v + Int32(1)`, `sum(df_0.v)`, `count(Int32(1))`. Code that reads
//! a result by name (`row["sum(v)"]`) works on both engines.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{AggregateFunction, Cast, ScalarFunction, TryCast};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};

/// Spark's name of `e` as an output column: a cast (or casts) of a column
/// keeps the column's name (Spark 4: `F.col("v").cast("string")` is `v`);
/// anything else as [`spark_name`] names it.
pub fn output_name(e: &Expr) -> String {
    let mut inner = e;
    while let Expr::Cast(Cast { expr, .. }) | Expr::TryCast(TryCast { expr, .. }) = inner {
        inner = expr;
    }
    match inner {
        Expr::Column(c) if !std::ptr::eq(inner, e) => c.name.clone(),
        _ => spark_name(e),
    }
}

/// Spark's name of `e` (an expression that is not an alias or a column).
pub fn spark_name(e: &Expr) -> String {
    match e {
        Expr::Alias(a) => a.name.clone(),
        Expr::Column(c) => c.name.clone(),
        Expr::Literal(v, _) => literal(v),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            format!(
                "({} {} {})",
                spark_name(left),
                operator(op),
                spark_name(right)
            )
        }
        Expr::Not(x) => format!("(NOT {})", spark_name(x)),
        Expr::Negative(x) => format!("(- {})", spark_name(x)),
        Expr::IsNull(x) => format!("({} IS NULL)", spark_name(x)),
        Expr::IsNotNull(x) => format!("({} IS NOT NULL)", spark_name(x)),
        Expr::Cast(Cast { expr, field }) | Expr::TryCast(TryCast { expr, field }) => {
            format!(
                "CAST({} AS {})",
                spark_name(expr),
                type_name(field.data_type())
            )
        }
        Expr::ScalarFunction(ScalarFunction { func, args }) => {
            if func.name() == "get_field" {
                if let (Some(base), Some(Expr::Literal(ScalarValue::Utf8(Some(f)), _))) =
                    (args.first(), args.get(1))
                {
                    return format!("{}.{f}", spark_name(base));
                }
            }
            call(function_name(func.name()), args, false)
        }
        Expr::AggregateFunction(AggregateFunction { func, params }) => {
            if func.name() == "count" && is_star(&params.args) {
                return "count(1)".into();
            }
            // collect_set is array_agg(DISTINCT ...) under Spark's name
            let distinct = params.distinct && func.name() != "collect_set";
            call(function_name(func.name()), &params.args, distinct)
        }
        other => other.schema_name().to_string(),
    }
}

/// `count(*)` as DataFusion plans it: a count of a literal.
fn is_star(args: &[Expr]) -> bool {
    matches!(args, [Expr::Literal(v, _)] if !v.is_null())
}

fn call(name: &str, args: &[Expr], distinct: bool) -> String {
    let args: Vec<String> = args.iter().map(spark_name).collect();
    let distinct = if distinct { "DISTINCT " } else { "" };
    format!("{name}({distinct}{})", args.join(", "))
}

/// Spark's name of a function DataFusion names otherwise.
fn function_name(name: &str) -> &str {
    match name {
        "character_length" => "length",
        "lower" => "lower",
        "mean" => "avg",
        "stddev" => "stddev_samp",
        "var" => "var_samp",
        // Spark names its math functions in capitals
        "acos" => "ACOS",
        "acosh" => "ACOSH",
        "asin" => "ASIN",
        "asinh" => "ASINH",
        "atan" => "ATAN",
        "atan2" => "ATAN2",
        "atanh" => "ATANH",
        "cbrt" => "CBRT",
        "ceil" => "CEIL",
        "cos" => "COS",
        "cosh" => "COSH",
        "cot" => "COT",
        "csc" => "CSC",
        "degrees" => "DEGREES",
        "exp" => "EXP",
        "expm1" => "EXPM1",
        "floor" => "FLOOR",
        "hypot" => "HYPOT",
        "log10" => "LOG10",
        "log1p" => "LOG1P",
        "log2" => "LOG2",
        "pow" | "power" => "POWER",
        "radians" => "RADIANS",
        "sec" => "SEC",
        "signum" => "SIGNUM",
        "sin" => "SIN",
        "sinh" => "SINH",
        "sqrt" => "SQRT",
        "tan" => "TAN",
        "tanh" => "TANH",
        "regexp" => "REGEXP",
        "regexp_like" => "REGEXP_LIKE",
        "rlike" => "RLIKE",
        other => other,
    }
}

fn operator(op: &Operator) -> String {
    match op {
        Operator::Eq => "=".into(),
        Operator::And => "AND".into(),
        Operator::Or => "OR".into(),
        Operator::IsNotDistinctFrom => "<=>".into(),
        Operator::BitwiseXor => "^".into(),
        other => other.to_string(),
    }
}

/// Spark's SQL name of a type, as in `CAST(v AS INT)`.
pub fn type_name(t: &DataType) -> String {
    match t {
        DataType::Int8 => "TINYINT".into(),
        DataType::Int16 => "SMALLINT".into(),
        DataType::Int32 => "INT".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::Float32 => "FLOAT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "STRING".into(),
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Date32 => "DATE".into(),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMP".into(),
        DataType::Timestamp(_, None) => "TIMESTAMP_NTZ".into(),
        DataType::Decimal128(p, s) => format!("DECIMAL({p},{s})"),
        DataType::Binary | DataType::LargeBinary => "BINARY".into(),
        other => other.to_string().to_uppercase(),
    }
}

fn literal(v: &ScalarValue) -> String {
    if v.is_null() {
        return "NULL".into();
    }
    match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s.clone(),
        ScalarValue::Boolean(Some(b)) => b.to_string(),
        other => other.to_string(),
    }
}
