//! More of Spark's functions as rewrites into DataFusion expressions (see
//! [`super::spark_sql`]): Spark's null results where DataFusion gives NaN
//! or infinity (`ln(0)`), the `try_` arithmetic, epoch conversions, and
//! small conveniences (`nullifzero`, `equal_null`, `sequence`).

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DFResult;
use datafusion::functions_nested::expr_fn as nested;
use datafusion::logical_expr::{cast, lit, when, Expr, ScalarUDF, Signature, Volatility};

use super::spark_sql::{common_type, element_type, Build, Returns, Rewritten};

fn rewrite(name: &'static str, arity: usize, returns: Returns, build: Build) -> ScalarUDF {
    ScalarUDF::new_from_impl(Rewritten {
        name,
        tag: name,
        // arity 0: any number of arguments
        signature: if arity == 0 {
            Signature::variadic_any(Volatility::Immutable)
        } else {
            Signature::any(arity, Volatility::Immutable)
        },
        returns,
        build,
    })
}

fn double(_: &[DataType]) -> DFResult<DataType> {
    Ok(DataType::Float64)
}

fn timestamp(_: &[DataType]) -> DFResult<DataType> {
    Ok(DataType::Timestamp(
        TimeUnit::Microsecond,
        Some("UTC".into()),
    ))
}

fn null_of(t: DataType) -> DFResult<Expr> {
    Ok(lit(ScalarValue::try_from(&t)?))
}

/// `f(x)` where `x` is in its domain, else null (Spark's logarithms).
fn in_domain(f: Expr, domain: Expr) -> DFResult<Expr> {
    when(domain, f).otherwise(null_of(DataType::Float64)?)
}

fn f64_arg(a: &mut Vec<Expr>) -> Expr {
    cast(a.remove(0), DataType::Float64)
}

/// Microseconds since the epoch, `unit` per value, as a UTC timestamp.
fn epoch(value: Expr, micros_per_unit: i64) -> Expr {
    let micros = cast(value, DataType::Int64) * lit(micros_per_unit);
    cast(
        micros,
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    )
}

/// The numbers of a `try_` division, of one type: doubles for integers
/// (Spark's `/`), else the common type.
fn division_operands(a: &mut Vec<Expr>, t: &[DataType]) -> DFResult<(Expr, Expr, DataType)> {
    let (x, y) = (a.remove(0), a.remove(0));
    let common = if t.iter().all(|t| t.is_integer() || t.is_null()) {
        DataType::Float64
    } else {
        common_type(t)?
    };
    Ok((cast(x, common.clone()), cast(y, common.clone()), common))
}

/// The type of `try_add` / `try_subtract` / `try_multiply`: the numbers'
/// common type, or the date or timestamp an interval or days move.
fn try_arithmetic_type(t: &[DataType]) -> DFResult<DataType> {
    if t.iter().all(|t| t.is_numeric() || t.is_null()) {
        common_type(t)
    } else if t[0].is_temporal() || t[1].is_null() {
        Ok(t[0].clone())
    } else {
        Ok(t[1].clone())
    }
}

/// `x op y`, null where integers overflow their type (computed wide, as a
/// 38-digit decimal, and narrowed by a try-cast); other operands as `op`
/// gives them (a date moved by days or an interval).
fn try_arithmetic(
    mut a: Vec<Expr>,
    t: &[DataType],
    op: fn(Expr, Expr) -> Expr,
    on_days: Option<fn(Expr, Expr) -> Expr>,
) -> DFResult<Expr> {
    let (x, y) = (a.remove(0), a.remove(0));
    if t.iter().all(|t| t.is_integer() || t.is_null()) {
        let wide = DataType::Decimal128(38, 0);
        let exact = op(cast(x, wide.clone()), cast(y, wide));
        return Ok(Expr::TryCast(datafusion::logical_expr::TryCast::new(
            Box::new(exact),
            common_type(t)?,
        )));
    }
    if t.iter().all(|t| t.is_numeric() || t.is_null()) {
        let common = common_type(t)?;
        return Ok(op(cast(x, common.clone()), cast(y, common)));
    }
    match on_days {
        // a date and a number of days: Spark's date_add / date_sub
        Some(f) if matches!(t[0], DataType::Date32) && t[1].is_integer() => {
            Ok(f(x, cast(y, DataType::Int32)))
        }
        _ => Ok(op(x, y)),
    }
}

/// The timestamp `from_utc_timestamp` / `to_utc_timestamp` shift (text is
/// read as a timestamp).
fn shifted_type(t: &[DataType]) -> DFResult<DataType> {
    Ok(match &t[0] {
        DataType::Timestamp(..) => t[0].clone(),
        _ => DataType::Timestamp(TimeUnit::Microsecond, None),
    })
}

fn shifted_args(mut a: Vec<Expr>, t: &[DataType]) -> (Expr, Expr) {
    let ts = a.remove(0);
    let ts = match &t[0] {
        DataType::Timestamp(..) => ts,
        _ => cast(ts, DataType::Timestamp(TimeUnit::Microsecond, None)),
    };
    (ts, java_zone(a.remove(0)))
}

fn is_list(t: &DataType) -> bool {
    matches!(t, DataType::List(_) | DataType::LargeList(_))
}

/// What `concat` joins: arrays (of their common type), binary, or text
/// (anything else is cast to text, as Spark does).
fn concat_type(t: &[DataType]) -> DFResult<DataType> {
    if !t.is_empty() && t.iter().all(|t| is_list(t) || t.is_null()) {
        return common_type(t);
    }
    let binary = |t: &DataType| {
        matches!(
            t,
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        )
    };
    Ok(
        if !t.is_empty() && t.iter().all(|t| binary(t) || t.is_null()) {
            DataType::Binary
        } else {
            DataType::Utf8
        },
    )
}

fn call_udf(f: std::sync::Arc<ScalarUDF>, args: Vec<Expr>) -> Expr {
    Expr::ScalarFunction(datafusion::logical_expr::expr::ScalarFunction::new_udf(
        f, args,
    ))
}

/// `value` (of type `t`), null where any of `args` is.
fn null_if_any_null(args: Vec<Expr>, value: Expr, t: &DataType) -> DFResult<Expr> {
    let any_null = args
        .into_iter()
        .map(Expr::is_null)
        .reduce(Expr::or)
        .unwrap_or(lit(false));
    when(any_null, null_of(t.clone())?).otherwise(value)
}

/// Whether an array has a null element (`array_compact` drops them; the
/// lengths are the outer array's, `cardinality` would count nested ones).
fn has_null_element(array: Expr) -> Expr {
    nested::array_length(nested::array_compact(array.clone())).lt(nested::array_length(array))
}

/// `str LIKE pattern [ESCAPE c]`, case-insensitive for `ilike`.
fn like(mut a: Vec<Expr>, case_insensitive: bool) -> DFResult<Expr> {
    if !(2..=3).contains(&a.len()) {
        return Err(datafusion::error::DataFusionError::Plan(
            "[WRONG_NUM_ARGS] like takes (str, pattern[, escapeChar])".into(),
        ));
    }
    let escape = match a.get(2) {
        None => None,
        Some(Expr::Literal(ScalarValue::Utf8(Some(c)) | ScalarValue::Utf8View(Some(c)), _))
            if c.chars().count() == 1 =>
        {
            c.chars().next()
        }
        Some(_) => {
            return Err(datafusion::error::DataFusionError::Plan(
                "[INVALID_ESCAPE_CHAR] the escape character of like must be a string literal of one character".into(),
            ))
        }
    };
    let (text, pattern) = (a.remove(0), cast(a.remove(0), DataType::Utf8));
    let pattern = match escape {
        Some(c) if c != '\\' => with_backslash_escapes(pattern, c),
        _ => pattern,
    };
    Ok(Expr::Like(datafusion::logical_expr::expr::Like::new(
        false,
        Box::new(cast(text, DataType::Utf8)),
        Box::new(pattern),
        None,
        case_insensitive,
    )))
}

/// A LIKE pattern escaped by `c` rewritten to escape by backslash (the only
/// escape DataFusion's LIKE takes): `cc` is a literal `c` (held aside in a
/// private-use character meanwhile), a backslash a literal backslash, `c`
/// the escape.
fn with_backslash_escapes(pattern: Expr, c: char) -> Expr {
    use datafusion::functions::string::expr_fn::replace;
    const HELD: &str = "\u{E000}";
    let escape = c.to_string();
    let doubled = format!("{c}{c}");
    let held = replace(pattern, lit(doubled), lit(HELD));
    let backslashes = replace(held, lit("\\"), lit("\\\\"));
    let escapes = replace(backslashes, lit(escape.clone()), lit("\\"));
    replace(escapes, lit(HELD), lit(escape))
}

/// `ceil(x)` / `floor(x)` is Spark's (a bigint for a number); with a
/// scale, the value to that many decimal places (a double).
fn rounded_type(t: &[DataType]) -> DFResult<DataType> {
    match t {
        [_, _] => Ok(DataType::Float64),
        [_] => datafusion_spark::function::math::ceil().return_type(t),
        _ => Err(datafusion::error::DataFusionError::Plan(
            "[WRONG_NUM_ARGS] ceil and floor take (col[, scale])".into(),
        )),
    }
}

fn rounded(
    mut a: Vec<Expr>,
    t: &[DataType],
    spark: std::sync::Arc<ScalarUDF>,
    to_integer: fn(Expr) -> Expr,
) -> DFResult<Expr> {
    if a.len() == 1 {
        return Ok(call_udf(spark, a));
    }
    let scale = match &a[1] {
        Expr::Literal(v, _) => match v.cast_to(&DataType::Int64) {
            Ok(ScalarValue::Int64(Some(s))) if (0..=18).contains(&s) => s,
            _ => -1,
        },
        _ => -1,
    };
    if scale < 0 {
        return Err(datafusion::error::DataFusionError::Plan(format!(
            "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the scale of ceil/floor must be an integer literal from 0 to 18, not {:?}",
            t[1]
        )));
    }
    let factor = 10f64.powi(scale as i32);
    let x = cast(a.remove(0), DataType::Float64);
    Ok(to_integer(x * lit(factor)) / lit(factor))
}

/// A zone name with Java's short ids (`PST`) written out.
fn java_zone(zone: Expr) -> Expr {
    use crate::formats::datetime::JAVA_SHORT_ZONE_IDS;
    let mut case = datafusion::logical_expr::case(zone.clone());
    for (short, full) in JAVA_SHORT_ZONE_IDS {
        case = case.when(lit(*short), lit(*full));
    }
    case.otherwise(zone)
        .unwrap_or_else(|_| lit(ScalarValue::Utf8(None)))
}

/// `x op y`, null where `y` is zero.
fn unless_zero_divisor(
    x: Expr,
    y: Expr,
    t: &DataType,
    op: fn(Expr, Expr) -> Expr,
) -> DFResult<Expr> {
    let zero = cast(lit(0), t.clone());
    when(y.clone().eq(zero), null_of(t.clone())?).otherwise(op(x, y))
}

/// `f(arr)`, null where `arr` is null.
fn unless_null_array(arr: Expr, t: &DataType, f: impl FnOnce(Expr) -> Expr) -> DFResult<Expr> {
    when(arr.clone().is_null(), null_of(t.clone())?).otherwise(f(arr))
}

/// Checks a charset Spark's `decode`/`encode` take whose bytes are the text's.
fn charset(e: &Expr) -> DFResult<()> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(c)), _)
            if matches!(
                c.to_ascii_uppercase().as_str(),
                "UTF-8" | "UTF8" | "US-ASCII" | "ASCII"
            ) =>
        {
            Ok(())
        }
        other => Err(datafusion::error::DataFusionError::Plan(format!(
            "[INVALID_PARAMETER_VALUE.CHARSET] sparklet decodes and encodes UTF-8 and US-ASCII, not {other}"
        ))),
    }
}

/// `to_binary(str, format)`; `lenient` (`try_to_binary`): malformed hex is
/// null (datafusion-spark's `unhex`) rather than an error.
fn to_binary(mut a: Vec<Expr>, lenient: bool) -> DFResult<Expr> {
    use datafusion::functions::encoding::expr_fn::decode;
    let format = match a.get(1) {
        None => "hex".to_string(),
        Some(Expr::Literal(ScalarValue::Utf8(Some(f)), _)) => f.to_ascii_lowercase(),
        Some(other) => {
            return Err(datafusion::error::DataFusionError::Plan(format!(
                "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] to_binary's format must be a literal, not {other}"
            )))
        }
    };
    let s = a.remove(0);
    Ok(match format.as_str() {
        "hex" if lenient => call_udf(datafusion_spark::function::math::unhex(), vec![s]),
        "hex" => decode(cast(s, DataType::Binary), lit("hex")),
        "base64" => decode(cast(s, DataType::Binary), lit("base64pad")),
        "utf-8" | "utf8" => cast(s, DataType::Binary),
        other => {
            return Err(datafusion::error::DataFusionError::Plan(format!(
                "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] to_binary takes 'hex', 'utf-8' or 'base64', not '{other}'"
            )))
        }
    })
}

/// `e` as a date: text and timestamps are cast, as Spark reads them.
fn as_date(e: &Expr, t: &DataType) -> Expr {
    match t {
        DataType::Date32 => e.clone(),
        _ => cast(e.clone(), DataType::Date32),
    }
}

/// DataFusion's name of a Spark `date_trunc` unit.
fn trunc_unit(unit: &str) -> DFResult<&'static str> {
    Ok(match unit.to_ascii_lowercase().as_str() {
        "yyyy" | "yy" | "year" => "year",
        "mm" | "mon" | "month" => "month",
        "dd" | "day" => "day",
        "hh" | "hour" => "hour",
        "minute" => "minute",
        "second" => "second",
        "week" => "week",
        "quarter" => "quarter",
        "millisecond" => "millisecond",
        "microsecond" => "microsecond",
        other => {
            return Err(datafusion::error::DataFusionError::Plan(format!(
                "[INVALID_PARAMETER_VALUE] date_trunc: unknown unit '{other}'"
            )))
        }
    })
}

/// The functions, registered under Spark's names.
pub fn all() -> Vec<ScalarUDF> {
    use datafusion::functions::math::expr_fn as m;
    use datafusion_spark::function::datetime::expr_fn as dt;
    vec![
        rewrite("ln", 1, double, |_, mut a, _| {
            let x = f64_arg(&mut a);
            in_domain(m::ln(x.clone()), x.gt(lit(0.0)))
        }),
        rewrite("log10", 1, double, |_, mut a, _| {
            let x = f64_arg(&mut a);
            in_domain(m::log10(x.clone()), x.gt(lit(0.0)))
        }),
        rewrite("log1p", 1, double, |_, mut a, _| {
            let x = f64_arg(&mut a);
            in_domain(m::ln(x.clone() + lit(1.0)), x.gt(lit(-1.0)))
        }),
        // sqrt of a negative number is NaN, as in Java (DataFusion's fails)
        rewrite("sqrt", 1, double, |_, mut a, _| {
            let x = f64_arg(&mut a);
            when(x.clone().lt(lit(0.0)), lit(f64::NAN)).otherwise(m::sqrt(x))
        }),
        // log(base, x), or log(x): the natural logarithm
        rewrite("log", 0, double, |_, mut a, _| {
            let base = if a.len() == 2 {
                f64_arg(&mut a)
            } else {
                lit(std::f64::consts::E)
            };
            let x = f64_arg(&mut a);
            in_domain(
                m::ln(x.clone()) / m::ln(base.clone()),
                x.gt(lit(0.0)).and(base.gt(lit(0.0))),
            )
        }),
        rewrite(
            "try_divide",
            2,
            |t| {
                if t.iter().all(|t| t.is_integer() || t.is_null()) {
                    Ok(DataType::Float64)
                } else {
                    common_type(t)
                }
            },
            |_, mut a, t| {
                let (x, y, common) = division_operands(&mut a, t)?;
                unless_zero_divisor(x, y, &common, |x, y| x / y)
            },
        ),
        rewrite("try_add", 2, try_arithmetic_type, |_, a, t| {
            try_arithmetic(a, t, |x, y| x + y, Some(dt::date_add))
        }),
        rewrite("try_subtract", 2, try_arithmetic_type, |_, a, t| {
            try_arithmetic(a, t, |x, y| x - y, Some(dt::date_sub))
        }),
        rewrite("try_multiply", 2, try_arithmetic_type, |_, a, t| {
            try_arithmetic(a, t, |x, y| x * y, None)
        }),
        rewrite("try_mod", 2, common_type, |_, mut a, t| {
            let common = common_type(t)?;
            let (x, y) = (
                cast(a.remove(0), common.clone()),
                cast(a.remove(0), common.clone()),
            );
            unless_zero_divisor(x, y, &common, |x, y| x % y)
        }),
        // Arrow's strings are UTF-8 already: the value, as a string
        rewrite(
            "validate_utf8",
            1,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| Ok(cast(a.remove(0), DataType::Utf8)),
        ),
        rewrite(
            "try_validate_utf8",
            1,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| Ok(cast(a.remove(0), DataType::Utf8)),
        ),
        // the collation of any string: sparklet compares bytes, as Spark's default
        rewrite(
            "collation",
            1,
            |_| Ok(DataType::Utf8),
            |_, _, _| Ok(lit("SYSTEM.BUILTIN.UTF8_BINARY")),
        ),
        // get(array, i): the element at 0-based `i`, null outside the array
        rewrite(
            "get",
            2,
            |t| element_type(&t[0]),
            |_, mut a, t| {
                let (array, i) = (a.remove(0), cast(a.remove(0), DataType::Int64));
                when(
                    i.clone().gt_eq(lit(0i64)),
                    nested::array_element(array, i + lit(1i64)),
                )
                .otherwise(null_of(element_type(&t[0])?)?)
            },
        ),
        // the text as a timestamp without time zone
        rewrite(
            "to_timestamp_ntz",
            0,
            |_| Ok(DataType::Timestamp(TimeUnit::Microsecond, None)),
            |_, a, _| {
                let parsed =
                    Expr::ScalarFunction(datafusion::logical_expr::expr::ScalarFunction::new_udf(
                        std::sync::Arc::new(super::udfs::to_timestamp_utc_udf()),
                        a,
                    ));
                Ok(cast(
                    parsed,
                    DataType::Timestamp(TimeUnit::Microsecond, None),
                ))
            },
        ),
        // a zone given by Java's short id (`PST`) read as Java reads it
        rewrite("from_utc_timestamp", 2, shifted_type, |_, a, t| {
            let (ts, zone) = shifted_args(a, t);
            Ok(dt::from_utc_timestamp(ts, zone))
        }),
        rewrite("to_utc_timestamp", 2, shifted_type, |_, a, t| {
            let (ts, zone) = shifted_args(a, t);
            Ok(dt::to_utc_timestamp(ts, zone))
        }),
        rewrite(
            "to_unix_timestamp",
            0,
            |_| Ok(DataType::Int64),
            |_, a, _| {
                Ok(Expr::ScalarFunction(
                    datafusion::logical_expr::expr::ScalarFunction::new_udf(
                        std::sync::Arc::new(super::udfs::unix_timestamp_udf()),
                        a,
                    ),
                ))
            },
        ),
        // concat of arrays is their elements in turn (null if one is null)
        rewrite("concat", 0, concat_type, |_, a, t| {
            let common = concat_type(t)?;
            let a: Vec<Expr> = a.into_iter().map(|e| cast(e, common.clone())).collect();
            Ok(match common {
                DataType::List(_) => null_if_any_null(a.clone(), nested::array_concat(a), &common)?,
                DataType::Binary => {
                    let joined = a
                        .clone()
                        .into_iter()
                        .reduce(|x, y| {
                            datafusion::prelude::binary_expr(
                                x,
                                datafusion::logical_expr::Operator::StringConcat,
                                y,
                            )
                        })
                        .unwrap_or(lit(ScalarValue::Binary(None)));
                    null_if_any_null(a, joined, &DataType::Binary)?
                }
                _ => call_udf(datafusion_spark::function::string::concat(), a),
            })
        }),
        rewrite(
            "reverse",
            1,
            |t| {
                Ok(match &t[0] {
                    l if is_list(l) => l.clone(),
                    DataType::Binary => DataType::Binary,
                    _ => DataType::Utf8,
                })
            },
            |_, mut a, t| {
                let x = a.remove(0);
                Ok(if is_list(&t[0]) {
                    nested::array_reverse(x)
                } else if t[0] == DataType::Binary {
                    call_udf(std::sync::Arc::new(super::text::reverse_bytes()), vec![x])
                } else {
                    datafusion::functions::unicode::expr_fn::reverse(cast(x, DataType::Utf8))
                })
            },
        ),
        // an array of arrays as one array: null where an inner array is
        rewrite(
            "flatten",
            1,
            |t| element_type(&t[0]),
            |_, mut a, t| {
                let x = a.remove(0);
                when(has_null_element(x.clone()), null_of(element_type(&t[0])?)?)
                    .otherwise(nested::flatten(x))
            },
        ),
        // true for a common element; else null if either array has a null
        // (and neither is empty), else false
        rewrite(
            "arrays_overlap",
            2,
            |_| Ok(DataType::Boolean),
            |_, mut a, _| {
                let (x, y) = (a.remove(0), a.remove(0));
                let nonempty = |e: &Expr| nested::array_length(e.clone()).gt(lit(0u64));
                let unknown = has_null_element(x.clone())
                    .or(has_null_element(y.clone()))
                    .and(nonempty(&x))
                    .and(nonempty(&y));
                let common = nested::array_has_any(
                    nested::array_compact(x.clone()),
                    nested::array_compact(y.clone()),
                );
                let overlap = when(common, lit(true))
                    .when(unknown, null_of(DataType::Boolean)?)
                    .otherwise(lit(false))?;
                null_if_any_null(vec![x, y], overlap, &DataType::Boolean)
            },
        ),
        // overlay(src, replace, pos, len): a negative len is the length of `replace`
        rewrite(
            "overlay",
            0,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| {
                for arg in a.iter_mut().skip(2) {
                    *arg = cast(arg.clone(), DataType::Int64);
                }
                if a.len() == 4 {
                    let len = a.remove(3);
                    let replace_len = cast(
                        datafusion::functions::unicode::expr_fn::character_length(a[1].clone()),
                        DataType::Int64,
                    );
                    a.push(when(len.clone().lt(lit(0i64)), replace_len).otherwise(len)?);
                }
                Ok(call_udf(datafusion::functions::core::overlay(), a))
            },
        ),
        // the entries of each map in turn (a repeated key is an error, as
        // Spark's default mapKeyDedupPolicy); null if a map is
        rewrite("map_concat", 0, common_type, |_, a, t| {
            let common = common_type(t)?;
            let maps: Vec<Expr> = a.into_iter().map(|m| cast(m, common.clone())).collect();
            if maps.is_empty() {
                return Err(datafusion::error::DataFusionError::Plan(
                    "[WRONG_NUM_ARGS] map_concat takes at least one map".into(),
                ));
            }
            let keys = nested::array_concat(maps.iter().cloned().map(nested::map_keys).collect());
            let values =
                nested::array_concat(maps.iter().cloned().map(nested::map_values).collect());
            let joined = super::arrays::map_of_lists(keys, values);
            null_if_any_null(maps, joined, &common)
        }),
        // ceil / floor: a bigint, or to `scale` decimal places (a decimal)
        rewrite("ceil", 0, rounded_type, |_, a, t| {
            rounded(a, t, datafusion_spark::function::math::ceil(), m::ceil)
        }),
        rewrite("floor", 0, rounded_type, |_, a, t| {
            rounded(a, t, datafusion_spark::function::math::floor(), m::floor)
        }),
        // like / ilike with an escape character (a one-character literal)
        rewrite(
            "like",
            0,
            |_| Ok(DataType::Boolean),
            |_, a, _| like(a, false),
        ),
        rewrite(
            "ilike",
            0,
            |_| Ok(DataType::Boolean),
            |_, a, _| like(a, true),
        ),
        // levenshtein(l, r, threshold): -1 past the threshold
        rewrite(
            "levenshtein",
            0,
            |_| Ok(DataType::Int32),
            |_, mut a, _| {
                use datafusion::functions::string::expr_fn::levenshtein;
                let threshold = (a.len() == 3).then(|| a.remove(2));
                let (l, r) = (
                    cast(a.remove(0), DataType::Utf8),
                    cast(a.remove(0), DataType::Utf8),
                );
                let distance = cast(levenshtein(l, r), DataType::Int32);
                match threshold {
                    None => Ok(distance),
                    Some(t) => when(distance.clone().gt(cast(t, DataType::Int32)), lit(-1i32))
                        .otherwise(distance),
                }
            },
        ),
        rewrite(
            "nullifzero",
            1,
            |t| Ok(t[0].clone()),
            |_, mut a, t| {
                let x = a.remove(0);
                when(
                    x.clone().eq(cast(lit(0), t[0].clone())),
                    null_of(t[0].clone())?,
                )
                .otherwise(x)
            },
        ),
        rewrite(
            "zeroifnull",
            1,
            |t| common_type(&[t[0].clone(), DataType::Int32]),
            |_, mut a, t| {
                let common = common_type(&[t[0].clone(), DataType::Int32])?;
                Ok(datafusion::functions::core::expr_fn::coalesce(vec![
                    cast(a.remove(0), common.clone()),
                    cast(lit(0), common),
                ]))
            },
        ),
        // Spark's isnan is false, not null, for null
        rewrite(
            "isnan",
            1,
            |_| Ok(DataType::Boolean),
            |_, mut a, t| {
                let x = match t[0] {
                    DataType::Float32 | DataType::Float64 => a.remove(0),
                    _ => cast(a.remove(0), DataType::Float64),
                };
                Ok(datafusion::functions::core::expr_fn::coalesce(vec![
                    m::isnan(x),
                    lit(false),
                ]))
            },
        ),
        rewrite(
            "equal_null",
            2,
            |_| Ok(DataType::Boolean),
            |_, mut a, t| {
                let common = common_type(t)?;
                let (x, y) = (cast(a.remove(0), common.clone()), cast(a.remove(0), common));
                Ok(datafusion::logical_expr::binary_expr(
                    x,
                    datafusion::logical_expr::Operator::IsNotDistinctFrom,
                    y,
                ))
            },
        ),
        rewrite("timestamp_seconds", 1, timestamp, |_, mut a, t| {
            let x = a.remove(0);
            Ok(
                if t[0].is_floating() || matches!(t[0], DataType::Decimal128(..)) {
                    epoch(cast(x, DataType::Float64) * lit(1e6), 1)
                } else {
                    epoch(x, 1_000_000)
                },
            )
        }),
        rewrite("timestamp_millis", 1, timestamp, |_, mut a, _| {
            Ok(epoch(a.remove(0), 1_000))
        }),
        rewrite("timestamp_micros", 1, timestamp, |_, mut a, _| {
            Ok(epoch(a.remove(0), 1))
        }),
        rewrite(
            "date_from_unix_date",
            1,
            |_| Ok(DataType::Date32),
            |_, mut a, _| Ok(cast(cast(a.remove(0), DataType::Int32), DataType::Date32)),
        ),
        rewrite(
            "dayname",
            1,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| {
                let date = cast(a.remove(0), DataType::Date32);
                Ok(datafusion::functions::datetime::expr_fn::to_char(
                    date,
                    lit("%a"),
                ))
            },
        ),
        rewrite(
            "map_contains_key",
            2,
            |_| Ok(DataType::Boolean),
            |_, mut a, t| {
                use datafusion::functions_nested::expr_fn::{array_has, map_keys};
                let (m, k) = (a.remove(0), a.remove(0));
                let k = match &t[0] {
                    DataType::Map(entries, _) => match entries.data_type() {
                        DataType::Struct(kv) if !kv.is_empty() => {
                            cast(k, kv[0].data_type().clone())
                        }
                        _ => k,
                    },
                    _ => k,
                };
                Ok(array_has(map_keys(m), k))
            },
        ),
        // Spark's array functions: null for a null array; its argument order
        rewrite(
            "array_append",
            2,
            |t| Ok(t[0].clone()),
            |_, mut a, t| {
                let (arr, x) = (a.remove(0), cast(a.remove(0), element_type(&t[0])?));
                unless_null_array(arr, &t[0], |arr| nested::array_append(arr, x))
            },
        ),
        rewrite(
            "array_prepend",
            2,
            |t| Ok(t[0].clone()),
            |_, mut a, t| {
                let (arr, x) = (a.remove(0), cast(a.remove(0), element_type(&t[0])?));
                unless_null_array(arr, &t[0], |arr| nested::array_prepend(x, arr))
            },
        ),
        // array_position(a, x): 1-based, 0 when absent
        rewrite(
            "array_position",
            2,
            |_| Ok(DataType::Int64),
            |_, mut a, t| {
                let (arr, x) = (a.remove(0), cast(a.remove(0), element_type(&t[0])?));
                let found = nested::array_position(arr.clone(), x, lit(1i64));
                let position = datafusion::functions::core::expr_fn::coalesce(vec![
                    cast(found, DataType::Int64),
                    lit(0i64),
                ]);
                when(arr.is_null(), null_of(DataType::Int64)?).otherwise(position)
            },
        ),
        // array_remove(a, x): every element equal to x
        rewrite(
            "array_remove",
            2,
            |t| Ok(t[0].clone()),
            |_, mut a, t| {
                let (arr, x) = (a.remove(0), cast(a.remove(0), element_type(&t[0])?));
                Ok(nested::array_remove_all(arr, x))
            },
        ),
        // array_sort(a): ascending, nulls last
        rewrite(
            "array_sort",
            1,
            |t| Ok(t[0].clone()),
            |_, mut a, _| {
                Ok(nested::array_sort(
                    a.remove(0),
                    lit("ASC"),
                    lit("NULLS LAST"),
                ))
            },
        ),
        // sequence(start, stop[, step]): inclusive, counting down when
        // start > stop and no step is given
        rewrite(
            "sequence",
            0,
            |t| Ok(DataType::new_list(common_type(&t[..2.min(t.len())])?, true)),
            |_, mut a, t| {
                let common = common_type(&t[..2.min(t.len())])?;
                let start = cast(a.remove(0), common.clone());
                let stop = cast(a.remove(0), common.clone());
                let step = match a.pop() {
                    // an int step with bigint bounds: the kernel wants one type
                    Some(step) if common.is_integer() => cast(step, DataType::Int64),
                    Some(step) => step,
                    None if common.is_integer() => {
                        when(start.clone().lt_eq(stop.clone()), lit(1i64)).otherwise(lit(-1i64))?
                    }
                    None => {
                        return Err(datafusion::error::DataFusionError::Plan(
                            "[DATATYPE_MISMATCH] sequence of dates or timestamps needs a step"
                                .into(),
                        ))
                    }
                };
                let (start, stop) = if common.is_integer() {
                    (cast(start, DataType::Int64), cast(stop, DataType::Int64))
                } else {
                    (start, stop)
                };
                Ok(nested::gen_series(start, stop, step))
            },
        ),
        // text <-> binary in a charset (Spark's decode/encode take only
        // charsets; UTF-8 and ASCII text are the bytes themselves)
        rewrite(
            "decode",
            2,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| {
                charset(&a[1])?;
                Ok(cast(a.remove(0), DataType::Utf8))
            },
        ),
        rewrite(
            "encode",
            2,
            |_| Ok(DataType::Binary),
            |_, mut a, _| {
                charset(&a[1])?;
                Ok(cast(a.remove(0), DataType::Binary))
            },
        ),
        // to_binary(s[, fmt]): fmt 'hex' (the default), 'utf-8' or 'base64'
        rewrite(
            "to_binary",
            0,
            |_| Ok(DataType::Binary),
            |_, a, _| to_binary(a, false),
        ),
        rewrite(
            "try_to_binary",
            0,
            |_| Ok(DataType::Binary),
            |_, a, _| to_binary(a, true),
        ),
        // datafusion-spark's date functions, with Spark's reading of text
        // and timestamps as dates (`add_months('2015-04-08', 1)`)
        rewrite(
            "add_months",
            2,
            |_| Ok(DataType::Date32),
            |_, a, t| {
                Ok(datafusion_spark::function::datetime::expr_fn::add_months(
                    as_date(&a[0], &t[0]),
                    cast(a[1].clone(), DataType::Int32),
                ))
            },
        ),
        rewrite(
            "last_day",
            1,
            |_| Ok(DataType::Date32),
            |_, a, t| {
                Ok(datafusion_spark::function::datetime::expr_fn::last_day(
                    as_date(&a[0], &t[0]),
                ))
            },
        ),
        rewrite(
            "next_day",
            2,
            |_| Ok(DataType::Date32),
            |_, a, t| {
                Ok(datafusion_spark::function::datetime::expr_fn::next_day(
                    as_date(&a[0], &t[0]),
                    cast(a[1].clone(), DataType::Utf8),
                ))
            },
        ),
        rewrite(
            "monthname",
            1,
            |_| Ok(DataType::Utf8),
            |_, a, t| {
                Ok(datafusion_spark::function::datetime::expr_fn::monthname(
                    as_date(&a[0], &t[0]),
                ))
            },
        ),
        // trunc(date, fmt): Spark's trunc is of dates only
        rewrite(
            "trunc",
            2,
            |_| Ok(DataType::Date32),
            |_, a, t| {
                Ok(datafusion_spark::function::datetime::expr_fn::trunc(
                    as_date(&a[0], &t[0]),
                    cast(a[1].clone(), DataType::Utf8),
                ))
            },
        ),
        // date_trunc(unit, ts) with Spark's unit names ('mon', 'yy', ...)
        rewrite(
            "date_trunc",
            2,
            |t| {
                Ok(match &t[1] {
                    DataType::Timestamp(..) => t[1].clone(),
                    // text and dates are read as timestamps, as Spark casts them
                    _ => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                })
            },
            |_, mut a, t| {
                let (unit, ts) = (a.remove(0), a.remove(0));
                let ts = match &t[1] {
                    DataType::Timestamp(..) => ts,
                    _ => call_udf(
                        std::sync::Arc::new(super::udfs::to_timestamp_utc_udf()),
                        vec![ts],
                    ),
                };
                let unit = match unit {
                    Expr::Literal(ScalarValue::Utf8(Some(u)), _) => lit(trunc_unit(&u)?),
                    other => other,
                };
                Ok(datafusion::functions::datetime::expr_fn::date_trunc(
                    unit, ts,
                ))
            },
        ),
        // regexp_substr(str, re): the first match, null when none
        rewrite(
            "regexp_substr",
            2,
            |_| Ok(DataType::Utf8),
            |_, mut a, _| {
                use datafusion::functions::regex::expr_fn::regexp_match;
                use datafusion::functions_nested::expr_fn::array_element;
                let (s, re) = (a.remove(0), a.remove(0));
                let whole =
                    datafusion::functions::string::expr_fn::concat(vec![lit("("), re, lit(")")]);
                Ok(array_element(regexp_match(s, whole, None), lit(1i64)))
            },
        ),
    ]
}

/// Spark's `date_part(field, source)` / `datepart` / `extract`: the field
/// of a date or timestamp as datafusion-spark's `date_part` gives it, but
/// the seconds (`S`, `SEC`, `SECOND`, ...) with their fraction, as Spark's
/// `DECIMAL(8,6)`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) struct DatePart {
    name: &'static str,
    signature: Signature,
}

/// `date_part`, `datepart` and `extract`.
pub(super) fn date_parts() -> Vec<ScalarUDF> {
    ["date_part", "datepart", "extract"]
        .into_iter()
        .map(|name| {
            ScalarUDF::new_from_impl(DatePart {
                name,
                signature: Signature::any(2, Volatility::Immutable),
            })
        })
        .collect()
}

const SECONDS_DECIMAL: DataType = DataType::Decimal128(8, 6);

fn is_seconds(field: Option<&ScalarValue>) -> bool {
    matches!(field, Some(ScalarValue::Utf8(Some(f)) | ScalarValue::Utf8View(Some(f)))
        if matches!(f.to_ascii_uppercase().as_str(), "S" | "SEC" | "SECS" | "SECOND" | "SECONDS"))
}

impl datafusion::logical_expr::ScalarUDFImpl for DatePart {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int32)
    }
    fn return_field_from_args(
        &self,
        args: datafusion::logical_expr::ReturnFieldArgs,
    ) -> DFResult<arrow::datatypes::FieldRef> {
        let t = if is_seconds(args.scalar_arguments.first().copied().flatten()) {
            SECONDS_DECIMAL
        } else {
            DataType::Int32
        };
        Ok(std::sync::Arc::new(arrow::datatypes::Field::new(
            self.name, t, true,
        )))
    }
    fn simplify(
        &self,
        mut args: Vec<Expr>,
        info: &datafusion::logical_expr::simplify::SimplifyContext,
    ) -> DFResult<datafusion::logical_expr::simplify::ExprSimplifyResult> {
        use datafusion::logical_expr::simplify::ExprSimplifyResult;
        let field = match &args[0] {
            Expr::Literal(v, _) => Some(v.clone()),
            _ => None,
        };
        let source_type = info.get_data_type(&args[1])?;
        if !is_seconds(field.as_ref()) {
            let part = call_udf(datafusion_spark::function::datetime::date_part(), args);
            return Ok(ExprSimplifyResult::Simplified(cast(part, DataType::Int32)));
        }
        // microseconds into the minute, as seconds with their fraction
        let ts = args.remove(1);
        let ts = match source_type {
            DataType::Timestamp(..) => ts,
            _ => call_udf(
                std::sync::Arc::new(super::udfs::to_timestamp_utc_udf()),
                vec![ts],
            ),
        };
        let micros = cast(
            cast(ts, DataType::Timestamp(TimeUnit::Microsecond, None)),
            DataType::Int64,
        );
        let minute = lit(60_000_000i64);
        let within = ((micros % minute.clone()) + minute.clone()) % minute;
        let seconds = cast(within, DataType::Float64) / lit(1e6);
        Ok(ExprSimplifyResult::Simplified(cast(
            seconds,
            SECONDS_DECIMAL,
        )))
    }
    fn invoke_with_args(
        &self,
        _: datafusion::logical_expr::ScalarFunctionArgs,
    ) -> DFResult<datafusion::logical_expr::ColumnarValue> {
        Err(datafusion::error::DataFusionError::Internal(format!(
            "{} runs as the expression it is rewritten into",
            self.name
        )))
    }
}
