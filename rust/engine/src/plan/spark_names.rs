//! Spark's names for unaliased expressions: `df.select(F.col("v") + 1)` has
//! a column `(v + 1)`, `agg(F.sum("v"))` one named `sum(v)`, `F.count("*")`
//! `count(1)`, as Spark prints them; DataFusion would name them
//! `df_0.v + Int32(1)`, `sum(df_0.v)`, `count(Int32(1))`. Code that reads
//! a result by name (`row["sum(v)"]`) works on both engines.

use crate::functions::spark_sql::TYPE_CAST_FUNCTIONS;
use crate::functions::{higher_order, sketches};
use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{
    AggregateFunction, Cast, ScalarFunction, Sort, TryCast, WindowFunction,
};
use datafusion::logical_expr::{
    BinaryExpr, Expr, Operator, WindowFrameBound, WindowFunctionDefinition,
};

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
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: op @ (Operator::RegexMatch | Operator::RegexNotMatch),
            right,
        }) => {
            let call = format!("RLIKE({}, {})", spark_name(left), spark_name(right));
            match op {
                Operator::RegexNotMatch => format!("(NOT {call})"),
                _ => call,
            }
        }
        Expr::Like(l) => {
            let (value, pattern) = (spark_name(&l.expr), spark_name(&l.pattern));
            let like = match (l.case_insensitive, l.escape_char) {
                (true, _) => format!("ilike({value}, {pattern})"),
                (false, Some(c)) => format!("{value} LIKE {pattern} ESCAPE '{c}'"),
                (false, None) => format!("{value} LIKE {pattern}"),
            };
            if l.negated {
                format!("(NOT {like})")
            } else {
                like
            }
        }
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            format!(
                "({} {} {})",
                spark_name(left),
                operator(op),
                spark_name(right)
            )
        }
        Expr::Not(_) if higher_order::as_forall(e).is_some() => {
            let f = higher_order::as_forall(e).map(|f| (f.args.clone(), "forall"));
            let (mut args, name) = f.unwrap_or_default();
            if let Some(Expr::Lambda(l)) = args.last_mut() {
                if let Expr::Not(inner) = l.body.as_ref() {
                    l.body = inner.clone();
                }
            }
            call(name, &args, false)
        }
        Expr::Not(x) => format!("(NOT {})", spark_name(x)),
        Expr::HigherOrderFunction(f) => {
            let name = higher_order::spark_name(f.func.name());
            let text = call(name, &f.args, false);
            // without `finish`, Spark names the identity it fills in
            match (name, f.args.len()) {
                ("aggregate" | "reduce", 3) => format!(
                    "{}, lambdafunction(namedlambdavariable(), namedlambdavariable()))",
                    text.strip_suffix(')').unwrap_or(&text)
                ),
                _ => text,
            }
        }
        Expr::Lambda(l) => {
            let params: Vec<String> = l.params.iter().map(|p| lambda_variable_name(p)).collect();
            format!(
                "lambdafunction({}, {})",
                spark_name(&l.body),
                params.join(", ")
            )
        }
        Expr::LambdaVariable(v) => lambda_variable_name(&v.name),
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
            if func.name() == crate::functions::column::GET_ITEM && args.len() == 2 {
                return format!("{}[{}]", spark_name(&args[0]), spark_name(&args[1]));
            }
            if func.name() == "get_field" {
                if let (Some(base), Some(Expr::Literal(ScalarValue::Utf8(Some(f)), _))) =
                    (args.first(), args.get(1))
                {
                    return format!("{}.{f}", spark_name(base));
                }
            }
            if func.name() == crate::plan::spark_division::SPARK_DIVIDE && args.len() == 2 {
                return format!("({} / {})", spark_name(&args[0]), spark_name(&args[1]));
            }
            if func.name() == crate::plan::spark_remainder::SPARK_REMAINDER && args.len() == 2 {
                return format!("({} % {})", spark_name(&args[0]), spark_name(&args[1]));
            }
            if let (Some(to), [arg]) = (crate::plan::cast_overflow::target_of(func), &args[..]) {
                return format!("CAST({} AS {})", spark_name(arg), type_name(to));
            }
            if func.name() == "div" && args.len() == 2 {
                return format!("({} div {})", spark_name(&args[0]), spark_name(&args[1]));
            }
            if let Some(name) = special_call_name(func.name(), args) {
                return name;
            }
            call(function_name(func.name()), args, false)
        }
        Expr::AggregateFunction(AggregateFunction { func, params }) => {
            // collect_set is array_agg(DISTINCT ...) under Spark's name
            let distinct = params.distinct && func.name() != "collect_set";
            if let Some(name) = with_default_args(func.name(), &params.args, distinct) {
                return name;
            }
            // mode(col, deterministic): Spark names the deterministic one
            // as the ordered-set form it becomes
            if let ("mode", [value, Expr::Literal(ScalarValue::Boolean(Some(d)), _)]) =
                (func.name(), params.args.as_slice())
            {
                return match d {
                    true => format!("mode() WITHIN GROUP (ORDER BY {} DESC)", spark_name(value)),
                    false => format!("mode({})", spark_name(value)),
                };
            }
            call(function_name(func.name()), &params.args, distinct)
        }
        Expr::WindowFunction(w) => window_name(w),
        Expr::Case(c) => {
            let mut out = String::from("CASE");
            if let Some(e) = &c.expr {
                out.push_str(&format!(" {}", spark_name(e)));
            }
            for (w, t) in &c.when_then_expr {
                out.push_str(&format!(" WHEN {} THEN {}", spark_name(w), spark_name(t)));
            }
            if let Some(e) = &c.else_expr {
                out.push_str(&format!(" ELSE {}", spark_name(e)));
            }
            out + " END"
        }
        Expr::Between(b) => {
            let not = if b.negated { "NOT " } else { "" };
            format!(
                "({not}{} BETWEEN {} AND {})",
                spark_name(&b.expr),
                spark_name(&b.low),
                spark_name(&b.high)
            )
        }
        other => other.schema_name().to_string(),
    }
}

/// `rank() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN ...)`,
/// with the frame Spark resolves for the function.
fn window_name(w: &WindowFunction) -> String {
    let p = &w.params;
    let function = match &w.fun {
        WindowFunctionDefinition::WindowUDF(f) => {
            let name = match f.name() {
                "rank" => "RANK",
                "dense_rank" => "DENSE_RANK",
                "percent_rank" => "PERCENT_RANK",
                other => other,
            };
            call(name, &p.args, false)
        }
        WindowFunctionDefinition::AggregateUDF(f) => {
            call(function_name(f.name()), &p.args, p.distinct)
        }
    };
    format!("{function} OVER ({})", window_spec(w))
}

/// The `PARTITION BY ... ORDER BY ... frame` of a window, Spark's way.
pub fn window_spec(w: &WindowFunction) -> String {
    let p = &w.params;
    let mut parts = Vec::new();
    if !p.partition_by.is_empty() {
        let keys: Vec<String> = p.partition_by.iter().map(spark_name).collect();
        parts.push(format!("PARTITION BY {}", keys.join(", ")));
    }
    if !p.order_by.is_empty() {
        let keys: Vec<String> = p.order_by.iter().map(sort_name).collect();
        parts.push(format!("ORDER BY {}", keys.join(", ")));
    }
    let offset = || match p.args.get(1) {
        Some(Expr::Literal(v, _)) => v.to_string(),
        _ => "1".into(),
    };
    let frame = match &w.fun {
        WindowFunctionDefinition::WindowUDF(f) => match f.name() {
            "row_number" | "rank" | "dense_rank" | "percent_rank" | "ntile" => {
                Some("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".to_string())
            }
            "cume_dist" => Some("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".to_string()),
            "lag" => {
                let n = offset();
                Some(format!("ROWS BETWEEN -{n} FOLLOWING AND -{n} FOLLOWING"))
            }
            "lead" => {
                let n = offset();
                Some(format!("ROWS BETWEEN {n} FOLLOWING AND {n} FOLLOWING"))
            }
            _ => None,
        },
        WindowFunctionDefinition::AggregateUDF(_) => None,
    };
    parts.push(frame.unwrap_or_else(|| {
        let f = &p.window_frame;
        format!(
            "{} BETWEEN {} AND {}",
            f.units.to_string().to_uppercase(),
            frame_bound(&f.start_bound),
            frame_bound(&f.end_bound)
        )
    }));
    parts.join(" ")
}

/// Spark writes an offset before the row as a negative one after it.
fn frame_bound(b: &WindowFrameBound) -> String {
    match b {
        WindowFrameBound::Preceding(n) if n.is_null() => "UNBOUNDED PRECEDING".into(),
        WindowFrameBound::Preceding(n) => format!("-{n} FOLLOWING"),
        WindowFrameBound::CurrentRow => "CURRENT ROW".into(),
        WindowFrameBound::Following(n) if n.is_null() => "UNBOUNDED FOLLOWING".into(),
        WindowFrameBound::Following(n) => format!("{n} FOLLOWING"),
    }
}

/// `v ASC NULLS FIRST`.
pub fn sort_name(s: &Sort) -> String {
    format!(
        "{} {} NULLS {}",
        spark_name(&s.expr),
        if s.asc { "ASC" } else { "DESC" },
        if s.nulls_first { "FIRST" } else { "LAST" }
    )
}

/// Spark's names of calls that are not `name(args)`, or that show the
/// arguments Spark fills in (`substr(a, b, 2147483647)`).
fn special_call_name(name: &str, args: &[Expr]) -> Option<String> {
    let n = |i: usize| spark_name(&args[i]);
    let with = |extra: &str| {
        let mut parts: Vec<String> = args.iter().map(spark_name).collect();
        parts.push(extra.to_string());
        format!("{}({})", function_name(name), parts.join(", "))
    };
    if let Some(name) = with_default_args(name, args, false) {
        return Some(name);
    }
    Some(match (name, args.len()) {
        ("positive", 1) => format!("(+ {})", n(0)),
        ("bitwise_not", 1) => format!("~{}", n(0)),
        (name, 1) if TYPE_CAST_FUNCTIONS.contains(&name) => n(0),
        // F.trim(s, x) and SQL's TRIM(x FROM s); btrim(s, x) keeps its name
        ("trim", 2) => format!("TRIM(BOTH {} FROM {})", n(1), n(0)),
        ("ltrim", 2) => format!("TRIM(LEADING {} FROM {})", n(1), n(0)),
        ("rtrim", 2) => format!("TRIM(TRAILING {} FROM {})", n(1), n(0)),
        ("substr" | "substring", 2) => with("2147483647"),
        ("position", 2) => with("1"),
        ("datepart" | "extract", 2) => format!("{name}({} FROM {})", n(0), n(1)),
        // Spark shows the to_time that try_to_time wraps
        ("try_to_time", _) => format!("try_to_time({})", call("to_time", args, false)),
        ("like", 2) => format!("{} LIKE {}", n(0), n(1)),
        ("like", 3) => format!("{} LIKE {} ESCAPE '{}'", n(0), n(1), n(2)),
        // Spark leaves ilike's escape character out of its name
        ("ilike", 3) => format!("ilike({}, {})", n(0), n(1)),
        ("regexp_instr", 2) => with("0"),
        ("regexp_extract_all", 2) => with("1"),
        ("instr", 3) => with("1"),
        ("hmac", 2) => with("SHA-256"),
        ("convert_timezone", 2) => {
            format!("convert_timezone(current_timezone(), {}, {})", n(0), n(1))
        }
        // the option is not part of the name
        ("schema_of_json", 2) => format!("schema_of_json({})", n(0)),
        ("sentences", 1) => format!("sentences({}, , )", n(0)),
        ("sentences", 2) => with(""),
        // with a scale, Spark's names are lower case (CEIL(x) without)
        ("ceil" | "floor" | "ceiling", 2) => format!("{name}({}, {})", n(0), n(1)),
        ("to_unix_timestamp", 1) => with("yyyy-MM-dd HH:mm:ss"),
        ("vector_norm" | "vector_normalize", 1) => with("2.0"),
        ("assert_true", 1) => with(&format!("'{}' is not true!", n(0))),
        ("regexp_replace", 3) => with("1"),
        ("regexp_replace", 4) if matches!(&args[3], Expr::Literal(ScalarValue::Utf8(Some(g)), _) if g == "g") =>
        {
            format!("regexp_replace({}, {}, {}, 1)", n(0), n(1), n(2))
        }
        // F.struct(a, b) is a named_struct of the columns' own names
        ("named_struct", _) if args.len().is_multiple_of(2) && struct_of_columns(args) => {
            let values: Vec<String> = args.chunks(2).map(|kv| spark_name(&kv[1])).collect();
            format!("struct({})", values.join(", "))
        }
        _ => return None,
    })
}

/// A call left without its trailing optional arguments, named as Spark
/// names it: with their defaults (`percentile(v, 0.5, 1)`).
fn with_default_args(name: &str, args: &[Expr], distinct: bool) -> Option<String> {
    let (needed, defaults) = match name {
        "percentile" => (2, &["1"][..]),
        other => sketches::default_args(other)?,
    };
    let given = args.len().checked_sub(needed)?;
    if given >= defaults.len() {
        return None;
    }
    let mut parts: Vec<String> = args.iter().map(spark_name).collect();
    parts.extend(defaults[given..].iter().map(|d| d.to_string()));
    let distinct = if distinct { "DISTINCT " } else { "" };
    Some(format!("{name}({distinct}{})", parts.join(", ")))
}

/// Whether each of `named_struct`'s names is the name of its value.
fn struct_of_columns(args: &[Expr]) -> bool {
    // a field is named after its column, or (SQL's `struct(a + 1)`) after
    // its position when it is no column
    args.chunks(2).enumerate().all(|(i, kv)| match &kv[0] {
        Expr::Literal(ScalarValue::Utf8(Some(k)), _) => {
            *k == spark_name(&kv[1])
                || (*k == format!("col{}", i + 1) && !matches!(kv[1], Expr::Column(_)))
        }
        _ => false,
    })
}

/// A lambda variable as Spark names it: Python's are `namedlambdavariable()`.
fn lambda_variable_name(name: &str) -> String {
    if name.starts_with(higher_order::PYTHON_LAMBDA_PREFIX) {
        "namedlambdavariable()".into()
    } else {
        name.to_string()
    }
}

fn call(name: &str, args: &[Expr], distinct: bool) -> String {
    let args: Vec<String> = args.iter().map(spark_name).collect();
    let distinct = if distinct { "DISTINCT " } else { "" };
    format!("{name}({distinct}{})", args.join(", "))
}

/// Spark's name of a function DataFusion names otherwise.
fn function_name(name: &str) -> &str {
    match name {
        "spark_map" => "map",
        "lower" => "lower",
        "mean" => "avg",
        "pi" => "PI",
        "e" => "E",
        "log" => "LOG",
        "starts_with" => "startswith",
        "ends_with" => "endswith",
        "dateadd" => "date_add",
        "to_varchar" => "to_char",
        "curdate" => "current_date",
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

/// A double as Java prints it (`0.0`, `1.5`, `1.0E10`), as Spark names it.
pub fn java_double(f: f64) -> String {
    java_number(f, f.to_string(), format!("{f:E}"))
}

/// A float as Java prints it (its own shortest digits, not a double's).
pub fn java_float(f: f32) -> String {
    java_number(f as f64, f.to_string(), format!("{f:E}"))
}

/// Java's `toString` of a floating-point number whose shortest plain and
/// scientific forms are given: plain between 1e-3 and 1e7, else `d.dE±x`.
fn java_number(f: f64, plain: String, scientific: String) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = f.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        return if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        };
    }
    let (mantissa, exp) = scientific.split_once('E').unwrap_or((&scientific, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exp}")
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

/// Spark's `simpleString` of a type, as `typeof()` gives it: `int`,
/// `array<string>`, `struct<a:int,b:string>`, `map<string,int>`.
pub fn simple_type_name(t: &DataType) -> String {
    match t {
        DataType::Null => "void".into(),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            format!("array<{}>", simple_type_name(f.data_type()))
        }
        DataType::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("{}:{}", f.name(), simple_type_name(f.data_type())))
                .collect();
            format!("struct<{}>", inner.join(","))
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "map<{},{}>",
                simple_type_name(kv[0].data_type()),
                simple_type_name(kv[1].data_type())
            ),
            other => simple_type_name(other),
        },
        other => type_name(other).to_lowercase(),
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
        // F.lit([1, 2]) is array(1, 2)
        ScalarValue::List(list) if arrow::array::Array::len(list.as_ref()) == 1 => {
            let values = list.value(0);
            let items: Vec<String> = (0..arrow::array::Array::len(values.as_ref()))
                .map(|i| {
                    ScalarValue::try_from_array(&values, i)
                        .map_or_else(|_| "?".into(), |v| literal(&v))
                })
                .collect();
            format!("array({})", items.join(", "))
        }
        ScalarValue::Binary(Some(b)) | ScalarValue::LargeBinary(Some(b)) => {
            let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
            format!("X'{hex}'")
        }
        ScalarValue::Float64(Some(f)) => java_double(*f),
        ScalarValue::Float32(Some(f)) => java_float(*f),
        ScalarValue::Date32(Some(d)) => {
            let date = chrono::NaiveDate::from_num_days_from_ce_opt(d + 719_163);
            date.map_or_else(|| v.to_string(), |d| format!("DATE '{d}'"))
        }
        ScalarValue::TimestampMicrosecond(Some(us), _) => {
            chrono::DateTime::from_timestamp_micros(*us).map_or_else(
                || v.to_string(),
                |t| {
                    format!(
                        "TIMESTAMP '{}'",
                        t.naive_utc().format("%Y-%m-%d %H:%M:%S%.f")
                    )
                },
            )
        }
        other => other.to_string(),
    }
}

/// `assert_true(c)` given Spark's default message, which names the
/// condition as its SQL text: `'(n > 0)' is not true!`. Applied where an
/// expression still reads as the user wrote it (before type coercion).
pub fn with_assert_message(e: Expr) -> datafusion::common::tree_node::Transformed<Expr> {
    use datafusion::common::tree_node::Transformed;
    match e {
        Expr::ScalarFunction(f) if f.func.name() == "assert_true" && f.args.len() == 1 => {
            let message = format!("'{}' is not true!", spark_name(&f.args[0]));
            let args = vec![f.args[0].clone(), datafusion::prelude::lit(message)];
            Transformed::yes(Expr::ScalarFunction(ScalarFunction::new_udf(f.func, args)))
        }
        other => Transformed::no(other),
    }
}

/// [`with_assert_message`] over a plan built from SQL text, after its
/// columns are named: each expression keeps its name, which the nodes
/// above it read.
pub fn assert_messages_in(
    plan: datafusion::logical_expr::LogicalPlan,
) -> datafusion::error::Result<datafusion::logical_expr::LogicalPlan> {
    super::spark_casts::rewrite_typed(plan, |e, _| Ok(with_assert_message(e)))
}
