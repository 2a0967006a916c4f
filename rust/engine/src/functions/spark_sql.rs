//! Spark SQL functions that DataFusion has only in another form, callable by
//! their Spark names in SQL (`year(ts)`, `date_add(d, 1)`, `if(c, a, b)`,
//! `nvl(a, b)` ...). Each is rewritten, when the plan is simplified, into
//! the DataFusion expression the DataFrame API builds for it, cast to the
//! type it declared.

use arrow::datatypes::DataType;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    cast, lit, when, ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

pub(super) type Returns = fn(&[DataType]) -> DFResult<DataType>;
/// Builds the expression from the arguments and their types; `tag` is the
/// function's own datum (a date part's name).
pub(super) type Build = fn(&'static str, Vec<Expr>, &[DataType]) -> DFResult<Expr>;

#[derive(Debug)]
pub(super) struct Rewritten {
    pub(super) name: &'static str,
    pub(super) tag: &'static str,
    pub(super) signature: Signature,
    pub(super) returns: Returns,
    pub(super) build: Build,
}

impl PartialEq for Rewritten {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Rewritten {}
impl std::hash::Hash for Rewritten {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl ScalarUDFImpl for Rewritten {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        (self.returns)(arg_types)
    }
    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> DFResult<ExprSimplifyResult> {
        let types = args
            .iter()
            .map(|a| info.get_data_type(a))
            .collect::<DFResult<Vec<_>>>()?;
        let returns = (self.returns)(&types)?;
        Ok(ExprSimplifyResult::Simplified(cast(
            (self.build)(self.tag, args, &types)?,
            returns,
        )))
    }
    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        Err(DataFusionError::Internal(format!(
            "{} runs as the expression it is rewritten into",
            self.name
        )))
    }
}

fn arity(name: &str, types: &[DataType], n: usize) -> DFResult<()> {
    if types.len() != n {
        return Err(DataFusionError::Plan(format!(
            "{name} takes {n} argument(s), got {}",
            types.len()
        )));
    }
    Ok(())
}

fn part(name: &'static str, part: &'static str) -> ScalarUDF {
    ScalarUDF::new_from_impl(Rewritten {
        name,
        tag: part,
        signature: Signature::any(1, Volatility::Immutable),
        returns: |_| Ok(DataType::Int32),
        build: |part, a, t| Ok(date_part(part, a, t)),
    })
}

/// A part of a date or timestamp; text is read as a date (a timestamp for
/// the parts of a day), as Spark casts it.
fn date_part(part: &str, mut args: Vec<Expr>, types: &[DataType]) -> Expr {
    let mut value = args.remove(0);
    if matches!(
        types.first(),
        Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
    ) {
        value = if matches!(part, "hour" | "minute" | "second") {
            cast(
                value,
                DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None),
            )
        } else {
            cast(value, DataType::Date32)
        };
    }
    datafusion::functions::datetime::expr_fn::date_part(lit(part), value)
}

/// `d` plus `days` (negative to subtract), as a date.
fn add_days(mut args: Vec<Expr>, sign: i32) -> Expr {
    let days = cast(args.remove(1), DataType::Int32) * lit(sign);
    let date = cast(cast(args.remove(0), DataType::Date32), DataType::Int32);
    cast(date + days, DataType::Date32)
}

/// Any number of arguments of any type, none included.
fn any_count() -> Signature {
    use datafusion::logical_expr::TypeSignature;
    Signature::one_of(
        vec![TypeSignature::VariadicAny, TypeSignature::Nullary],
        Volatility::Immutable,
    )
}

/// The key and value types of `map(k1, v1, ...)` (strings for `map()`).
fn map_entry_types(t: &[DataType]) -> DFResult<(DataType, DataType)> {
    if !t.len().is_multiple_of(2) {
        return Err(DataFusionError::Plan(format!(
            "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] map takes an even number of arguments, got {}",
            t.len()
        )));
    }
    if t.is_empty() {
        return Ok((DataType::Utf8, DataType::Utf8));
    }
    let keys: Vec<DataType> = t.iter().step_by(2).cloned().collect();
    let values: Vec<DataType> = t.iter().skip(1).step_by(2).cloned().collect();
    Ok((common_type(&keys)?, common_type(&values)?))
}

/// A map without entries, as a literal.
fn empty_map(k: DataType, v: DataType) -> DFResult<datafusion::common::ScalarValue> {
    use arrow::array::{new_empty_array, MapArray, StructArray};
    let DataType::Map(entries, _) = map_of(k, v) else {
        return Err(DataFusionError::Internal("map_of builds a map".into()));
    };
    let DataType::Struct(fields) = entries.data_type() else {
        return Err(DataFusionError::Internal(
            "a map's entries are a struct".into(),
        ));
    };
    let columns = fields
        .iter()
        .map(|f| new_empty_array(f.data_type()))
        .collect();
    let entries_array = StructArray::try_new(fields.clone(), columns, None)?;
    let offsets = arrow::buffer::OffsetBuffer::new(vec![0i32, 0].into());
    let map = MapArray::try_new(entries, offsets, entries_array, None, false)?;
    Ok(datafusion::common::ScalarValue::Map(std::sync::Arc::new(
        map,
    )))
}

fn map_of(k: DataType, v: DataType) -> DataType {
    let entry = DataType::Struct(
        vec![
            arrow::datatypes::Field::new("key", k, false),
            arrow::datatypes::Field::new("value", v, true),
        ]
        .into(),
    );
    DataType::Map(
        std::sync::Arc::new(arrow::datatypes::Field::new("entries", entry, false)),
        false,
    )
}

/// The type values of all of `types` take (as Spark's type coercion
/// widens them: int and double to double, null to anything).
pub(super) fn common_type(types: &[DataType]) -> DFResult<DataType> {
    use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
    types.iter().try_fold(DataType::Null, |acc, t| {
        comparison_coercion(&acc, t).ok_or_else(|| {
            DataFusionError::Plan(format!(
                "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] the elements have different types: {acc} and {t}"
            ))
        })
    })
}

/// The type both branches of a conditional take: their common type, or
/// (none found) the first branch's, which the other is cast to.
fn branches_type(t: &[DataType]) -> DataType {
    common_type(t).unwrap_or_else(|_| t[0].clone())
}

/// The type of an array's elements or a map's values.
pub(super) fn element_type(t: &DataType) -> DFResult<DataType> {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            Ok(f.data_type().clone())
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) if fields.len() == 2 => Ok(fields[1].data_type().clone()),
            other => Err(DataFusionError::Plan(format!("a map of {other}"))),
        },
        other => Err(DataFusionError::Plan(format!(
            "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] element_at takes an array or a map, not {other}"
        ))),
    }
}

/// `element_at(container, key)` of a map or an array (see [`all`]).
fn element_at(mut a: Vec<Expr>, t: &[DataType], strict: bool) -> DFResult<Expr> {
    use datafusion::functions_nested::expr_fn::{array_element, map_extract};
    let key = a.remove(1);
    let container = a.remove(0);
    Ok(match &t[0] {
        DataType::Map(..) => array_element(map_extract(container, key), lit(1i64)),
        _ => super::column::element_at(container, key, strict),
    })
}

/// The UDFs, registered under Spark's names.
pub fn all() -> Vec<ScalarUDF> {
    let mut out: Vec<ScalarUDF> = [
        ("year", "year"),
        ("month", "month"),
        ("day", "day"),
        ("dayofmonth", "day"),
        ("hour", "hour"),
        ("minute", "minute"),
        ("second", "second"),
        ("quarter", "quarter"),
        ("dayofyear", "doy"),
        ("weekofyear", "week"),
    ]
    .into_iter()
    .map(|(name, p)| part(name, p))
    .collect();
    let date_shift = |name: &'static str, build: Build| {
        ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::any(2, Volatility::Immutable),
            returns: |_| Ok(DataType::Date32),
            build,
        })
    };
    // Spark's days of the week: 1 (Sunday) to 7; weekday(): 0 (Monday) to 6
    for (name, build) in [
        (
            "dayofweek",
            (|_, a, t| Ok(date_part("dow", a, t) + lit(1))) as Build,
        ),
        ("weekday", |_, a, t| {
            Ok((date_part("dow", a, t) + lit(6)) % lit(7))
        }),
    ] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::any(1, Volatility::Immutable),
            returns: |_| Ok(DataType::Int32),
            build,
        }));
    }
    // datediff(end, start): days from start to end
    for name in ["datediff", "date_diff"] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::any(2, Volatility::Immutable),
            returns: |t| {
                arity("datediff", t, 2)?;
                Ok(DataType::Int32)
            },
            build: |_, mut a, _| {
                let days = |e: Expr| cast(cast(e, DataType::Date32), DataType::Int32);
                let start = days(a.remove(1));
                Ok(days(a.remove(0)) - start)
            },
        }));
    }
    out.push(date_shift("date_add", |_, a, _| Ok(add_days(a, 1))));
    out.push(date_shift("dateadd", |_, a, _| Ok(add_days(a, 1))));
    out.push(date_shift("date_sub", |_, a, _| Ok(add_days(a, -1))));
    // nvl(a, b): a unless null (the type of a)
    for name in ["nvl", "ifnull"] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::any(2, Volatility::Immutable),
            returns: |t| {
                arity("nvl", t, 2)?;
                Ok(t[0].clone())
            },
            build: |_, mut a, t| {
                let b = cast(a.remove(1), t[0].clone());
                Ok(datafusion::functions::core::expr_fn::coalesce(vec![
                    a.remove(0),
                    b,
                ]))
            },
        }));
    }
    // locate(substr, str, pos): 1-based position of substr in str at or
    // after pos, 0 when absent or pos < 1, null on a null string
    // position(substr, str[, pos]) is locate
    for name in ["locate", "position"] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::variadic_any(Volatility::Immutable),
            returns: |t| {
                if !(2..=3).contains(&t.len()) {
                    return Err(DataFusionError::Plan(format!(
                        "locate and position take 2 or 3 arguments, got {}",
                        t.len()
                    )));
                }
                Ok(DataType::Int32)
            },
            build: |_, mut a, _| {
                let pos = if a.len() == 3 {
                    cast(a.remove(2), DataType::Int64)
                } else {
                    lit(1i64)
                };
                let (sub, string) = (a.remove(0), a.remove(0));
                use datafusion::functions::unicode::expr_fn::{strpos, substr};
                let found = cast(strpos(substr(string, pos.clone()), sub), DataType::Int64);
                when(pos.clone().is_null(), lit(0i64))
                    .when(pos.clone().lt(lit(1i64)), found.clone() * lit(0i64))
                    .when(found.clone().eq(lit(0i64)), lit(0i64))
                    .otherwise(found + pos - lit(1i64))
            },
        }));
    }
    // sort_array(a, asc): ascending with nulls first, descending nulls last
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "sort_array",
        tag: "sort_array",
        signature: Signature::variadic_any(Volatility::Immutable),
        returns: |t| match t.first() {
            Some(list) if t.len() <= 2 => Ok(list.clone()),
            _ => Err(DataFusionError::Plan(
                "sort_array takes an array and an optional boolean literal".into(),
            )),
        },
        build: |_, mut a, _| {
            let ascending = match a.get(1) {
                None => true,
                Some(Expr::Literal(datafusion::common::ScalarValue::Boolean(Some(b)), _)) => *b,
                Some(other) => {
                    return Err(DataFusionError::Plan(format!(
                        "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] sort_array's second argument must be a boolean literal, not {other}"
                    )))
                }
            };
            let (order, nulls) = if ascending {
                ("ASC", "NULLS FIRST")
            } else {
                ("DESC", "NULLS LAST")
            };
            Ok(datafusion::functions_nested::expr_fn::array_sort(
                a.remove(0),
                lit(order),
                lit(nulls),
            ))
        },
    }));
    // map(k1, v1, k2, v2, ...): Spark's form of create_map; the keys of
    // their common type, the values of theirs; map() is empty (SQL text's
    // `map(...)` is `spark_map(...)`, past DataFusion's planner)
    for name in ["map", "spark_map"] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: any_count(),
            returns: |t| {
                let (k, v) = map_entry_types(t)?;
                Ok(map_of(k, v))
            },
            build: |_, a, t| {
                let (k, v) = map_entry_types(t)?;
                if a.is_empty() {
                    return Ok(lit(empty_map(k, v)?));
                }
                let pairs = a
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| cast(e, if i % 2 == 0 { k.clone() } else { v.clone() }))
                    .collect();
                Ok(super::arrays::map_of_pairs(pairs))
            },
        }));
    }
    // element_at(array, i) (1-based, negative from the end; ANSI: an error
    // past either end, try_element_at null) or (map, key): null if missing
    for (name, build) in [
        ("element_at", (|_, a, t| element_at(a, t, true)) as Build),
        ("try_element_at", |_, a, t| element_at(a, t, false)),
    ] {
        out.push(ScalarUDF::new_from_impl(Rewritten {
            name,
            tag: name,
            signature: Signature::any(2, Volatility::Immutable),
            returns: |t| element_type(&t[0]),
            build,
        }));
    }
    // array(a, b, ...): the elements cast to their common type, as Spark
    // does (`array(1, 2.5)` is array<double>)
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "array",
        tag: "array",
        signature: any_count(),
        returns: |t| {
            Ok(DataType::List(std::sync::Arc::new(
                arrow::datatypes::Field::new("item", common_type(t)?, true),
            )))
        },
        build: |_, a, t| {
            let common = common_type(t)?;
            let items = a.into_iter().map(|e| cast(e, common.clone())).collect();
            Ok(datafusion::functions_nested::expr_fn::make_array(items))
        },
    }));
    // typeof(x): the argument's type, as Spark writes it
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "typeof",
        tag: "typeof",
        signature: Signature::any(1, Volatility::Immutable),
        returns: |_| Ok(DataType::Utf8),
        build: |_, _, t| Ok(lit(crate::plan::spark_names::simple_type_name(&t[0]))),
    }));
    // if(cond, a, b): both branches as their common type, as Spark's
    // coercion makes them (`if(c, null, 1.5)` is a double, not a null)
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "if",
        tag: "if",
        signature: Signature::any(3, Volatility::Immutable),
        returns: |t| {
            arity("if", t, 3)?;
            Ok(branches_type(&t[1..]))
        },
        build: |_, mut a, t| {
            let common = branches_type(&t[1..]);
            let otherwise = cast(a.remove(2), common.clone());
            let then = cast(a.remove(1), common);
            when(a.remove(0), then).otherwise(otherwise)
        },
    }));
    // e(): Euler's number; positive(x): x itself (named `(+ x)`)
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "e",
        tag: "e",
        signature: Signature::nullary(Volatility::Immutable),
        returns: |_| Ok(DataType::Float64),
        build: |_, _, _| Ok(lit(std::f64::consts::E)),
    }));
    out.push(ScalarUDF::new_from_impl(Rewritten {
        name: "positive",
        tag: "positive",
        signature: Signature::any(1, Volatility::Immutable),
        returns: |t| Ok(t[0].clone()),
        build: |_, mut a, _| Ok(a.remove(0)),
    }));
    out.extend(type_casts());
    out.extend(super::spark_rewrites::all());
    out.extend(super::spark_rewrites::date_parts());
    out.extend(crate::plan::spark_remainder::functions());
    out.extend(crate::plan::spark_division::functions());
    out
}

/// The SQL functions that are casts by type name ([`type_casts`]); Spark
/// names their result as it names their argument (`float('NaN')` is `NaN`).
pub const TYPE_CAST_FUNCTIONS: &[&str] = &[
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary",
    "date",
];

/// Spark's cast function `name` (`double`), which Spark names as its
/// argument itself: a widening made with it keeps the expression's name.
pub fn cast_function(name: &str) -> Option<ScalarUDF> {
    type_casts().into_iter().find(|f| f.name() == name)
}

/// Spark's casts by type name: `float('NaN')`, `int(s)`, `string(n)`.
fn type_casts() -> Vec<ScalarUDF> {
    macro_rules! cast_to {
        ($name:literal, $t:expr) => {
            ScalarUDF::new_from_impl(Rewritten {
                name: $name,
                tag: $name,
                signature: Signature::any(1, Volatility::Immutable),
                returns: |_| Ok($t),
                build: |_, mut a, _| Ok(cast(a.remove(0), $t)),
            })
        };
    }
    vec![
        cast_to!("boolean", DataType::Boolean),
        cast_to!("tinyint", DataType::Int8),
        cast_to!("smallint", DataType::Int16),
        cast_to!("int", DataType::Int32),
        cast_to!("bigint", DataType::Int64),
        cast_to!("float", DataType::Float32),
        cast_to!("double", DataType::Float64),
        cast_to!("string", DataType::Utf8),
        cast_to!("binary", DataType::Binary),
        cast_to!("date", DataType::Date32),
    ]
}
