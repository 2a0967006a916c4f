//! DataFrame operations with Spark's resolution rules, on top of DataFusion's
//! `DataFrame`: `F.expr` text resolved against the input, struct access by
//! dotted name, `explode` in `select`, analysis errors in Spark's terms.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, ScalarValue, UnnestOptions};
use datafusion::dataframe::DataFrame;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{cast, lit};
use datafusion::logical_expr::{
    ColumnarValue, Expr, JoinType, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, Volatility,
};
use datafusion::prelude::ident;

use crate::error::{Error, Result};

/// Placeholder for SQL text whose columns resolve only once the DataFrame
/// it is applied to is known (`F.expr("a + 1")`).
#[derive(Debug, PartialEq, Eq, Hash)]
struct SqlText {
    signature: Signature,
}

/// Placeholder for `explode(col)` and its kinds (`explode_outer`,
/// `posexplode`, `posexplode_outer`), rewritten to an unnest by [`select`].
#[derive(Debug, PartialEq, Eq, Hash)]
struct Explode {
    signature: Signature,
    kind: &'static str,
}

/// The generators [`select`] turns into unnests.
const EXPLODES: [&str; 6] = [
    "explode",
    "explode_outer",
    "posexplode",
    "posexplode_outer",
    "inline",
    "inline_outer",
];

macro_rules! placeholder_impl {
    ($t:ty, |$s:ident| $name:expr) => {
        impl ScalarUDFImpl for $t {
            fn name(&self) -> &str {
                let $s = self;
                $name
            }
            fn signature(&self) -> &Signature {
                &self.signature
            }
            fn return_type(&self, args: &[DataType]) -> datafusion::error::Result<DataType> {
                match args.first() {
                    Some(DataType::List(f)) | Some(DataType::LargeList(f)) => {
                        Ok(f.data_type().clone())
                    }
                    _ => Ok(DataType::Null),
                }
            }
            fn invoke_with_args(
                &self,
                _args: ScalarFunctionArgs,
            ) -> datafusion::error::Result<ColumnarValue> {
                Err(datafusion::error::DataFusionError::Plan(format!(
                    "{} can only be used directly in select()",
                    self.name()
                )))
            }
        }
    };
}
placeholder_impl!(SqlText, |_s| "__sql_text");
placeholder_impl!(Explode, |s| s.kind);

/// `F.expr(text)`: SQL resolved when applied to a DataFrame.
pub fn sql_text(text: &str) -> Expr {
    let f = ScalarUDF::new_from_impl(SqlText {
        signature: Signature::any(1, Volatility::Immutable),
    });
    Expr::ScalarFunction(ScalarFunction::new_udf(
        Arc::new(f),
        vec![Expr::Literal(
            ScalarValue::Utf8(Some(text.to_string())),
            None,
        )],
    ))
}

/// `F.explode(col)`.
pub fn explode(e: Expr) -> Expr {
    generator_call(e, "explode")
}

/// `F.explode_outer(col)`, `F.posexplode(col)` ...: one of [`EXPLODES`].
pub fn generator(e: Expr, kind: &str) -> Result<Expr> {
    let kind = EXPLODES
        .into_iter()
        .find(|k| *k == kind)
        .ok_or_else(|| Error::analysis("UNRESOLVED_ROUTINE", format!("no generator `{kind}`")))?;
    Ok(generator_call(e, kind))
}

/// `F.stack(n, *cols)`: `cols` in `n` rows of `ceil(len / n)` columns
/// (`col0`, `col1`, ...; missing values null), as an `inline` of an array
/// of structs.
pub fn stack(state: &datafusion::execution::SessionState, args: Vec<Expr>) -> Result<Expr> {
    let n = match args.first() {
        Some(Expr::Literal(v, _)) => match v.cast_to(&DataType::Int64) {
            Ok(ScalarValue::Int64(Some(n))) if n > 0 => n as usize,
            _ => 0,
        },
        _ => 0,
    };
    if n == 0 {
        return Err(Error::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "stack's first argument must be a positive integer literal (the number of rows)",
        ));
    }
    let values = &args[1..];
    let width = values.len().div_ceil(n).max(1);
    let rows = (0..n)
        .map(|r| {
            let fields = (0..width)
                .flat_map(|c| {
                    let value = values
                        .get(r * width + c)
                        .cloned()
                        .unwrap_or(lit(ScalarValue::Null));
                    [lit(format!("col{c}")), value]
                })
                .collect();
            datafusion::functions::core::expr_fn::named_struct(fields)
        })
        .collect();
    let array = crate::functions::call(state, "array", rows)?;
    Ok(generator_call(array, "inline"))
}

/// The separator of the names of `col.alias(a, b)` (a generator's columns).
pub const MULTI_ALIAS_SEPARATOR: char = '\u{0}';

fn generator_call(e: Expr, kind: &'static str) -> Expr {
    let f = ScalarUDF::new_from_impl(Explode {
        signature: Signature::any(1, Volatility::Immutable),
        kind,
    });
    Expr::ScalarFunction(ScalarFunction::new_udf(Arc::new(f), vec![e]))
}

fn is_fn(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::ScalarFunction(f) if f.func.name() == name)
}

/// Spark's `expr alias` (an alias without `AS`, as `selectExpr` takes it):
/// the expression's text and the alias.
fn implicit_alias(text: &str) -> Option<(String, String)> {
    use datafusion::sql::sqlparser::ast::SelectItem;
    use datafusion::sql::sqlparser::dialect::DatabricksDialect;
    use datafusion::sql::sqlparser::parser::Parser;
    use datafusion::sql::sqlparser::tokenizer::Token;
    let dialect = DatabricksDialect {};
    let mut parser = Parser::new(&dialect).try_with_sql(text).ok()?;
    let item = parser.parse_select_item().ok()?;
    if parser.peek_token().token != Token::EOF {
        return None;
    }
    match item {
        SelectItem::ExprWithAlias { expr, alias } => Some((expr.to_string(), alias.value)),
        _ => None,
    }
}

/// Parse SQL `text` against `df`'s columns.
pub fn parse_sql(df: &DataFrame, text: &str) -> Result<Expr> {
    use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
    let mut text =
        crate::plan::sql_operators::rewrite_expr(&crate::plan::sql_tvf::rename_functions(text));
    if !crate::spark_options::case_sensitive(df.task_ctx().session_config()) {
        let names: Vec<String> = df
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        text = crate::plan::ident_case::respell(&text, &names);
    }
    let e = match df.parse_sql_expr(&text) {
        Ok(e) => e,
        Err(first) => match implicit_alias(&text) {
            Some((expr, alias)) => df
                .parse_sql_expr(&expr)
                .map_err(Error::from_planning)?
                .alias(alias),
            None => return Err(Error::from_planning(first)),
        },
    };
    // Spark's `explode(...)` (parsed as unnest): the select's own explode
    e.transform(|e| match e {
        Expr::Unnest(u) => Ok(Transformed::yes(explode(*u.expr))),
        other => Ok(Transformed::no(other)),
    })
    .data()
    .map_err(Error::from_planning)
}

/// Resolve placeholders and dotted struct access in `e` against `df`.
pub fn resolve(df: &DataFrame, e: Expr) -> Result<Expr> {
    let schema: &DFSchema = df.schema();
    let case_sensitive = crate::spark_options::case_sensitive(df.task_ctx().session_config());
    let out = e
        .transform_up(|node| {
            if !case_sensitive {
                if let Some(found) = case_insensitive_column(&node, schema)? {
                    return Ok(Transformed::yes(found));
                }
            }
            if let Some(rebuilt) = crate::functions::struct_fields::resolve(&node, schema)? {
                return Ok(Transformed::yes(rebuilt));
            }
            let node = match crate::plan::spark_names::with_assert_message(node) {
                t if t.transformed => return Ok(t),
                t => t.data,
            };
            let node = match crate::plan::spark_division::rewrite(node, schema)? {
                t if t.transformed => return Ok(t),
                t => t.data,
            };
            // `s["f"]` of a struct is its field `s.f` (named so)
            if let Expr::ScalarFunction(f) = &node {
                if crate::functions::column::is_get_item(&node)
                    && matches!(datafusion::logical_expr::ExprSchemable::get_type(&f.args[0], schema)?, DataType::Struct(_))
                {
                    let getter = Expr::ScalarFunction(ScalarFunction::new_udf(
                        datafusion::functions::core::get_field(),
                        f.args.clone(),
                    ));
                    return Ok(Transformed::yes(getter));
                }
            }
            // `hash("*")`: the function of every column, in order
            if let Expr::ScalarFunction(f) = &node {
                if f.args.iter().any(crate::functions::is_star) {
                    let args = f
                        .args
                        .iter()
                        .flat_map(|a| {
                            if crate::functions::is_star(a) {
                                schema.columns().into_iter().map(Expr::Column).collect()
                            } else {
                                vec![a.clone()]
                            }
                        })
                        .collect();
                    let call = ScalarFunction::new_udf(Arc::clone(&f.func), args);
                    return Ok(Transformed::yes(Expr::ScalarFunction(call)));
                }
            }
            if let Expr::ScalarFunction(f) = &node {
                if f.func.name() == "__sql_text" {
                    if let Some(Expr::Literal(ScalarValue::Utf8(Some(text)), _)) = f.args.first() {
                        // as `selectExpr` parses it, then resolved itself: the
                        // walk does not revisit what replaces a node (its
                        // divisions would stay DataFusion's integer ones)
                        let parsed = parse_sql(df, text)
                            .and_then(|e| resolve(df, e))
                            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
                        return Ok(Transformed::yes(parsed));
                    }
                }
            }
            if let Expr::Column(Column {
                relation: Some(rel),
                name,
                ..
            }) = &node
            {
                // `s.a` where `s` is a struct column, not a relation
                let rel_name = rel.to_string();
                let is_relation = is_relation(schema, &rel_name);
                if !is_relation && schema.has_column_with_unqualified_name(&rel_name) {
                    extractable(schema, &rel_name, name)
                        .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
                    let getter = datafusion::functions::core::expr_fn::get_field(
                        ident(rel_name),
                        name.as_str(),
                    );
                    return Ok(Transformed::yes(getter));
                }
                // `t.s.a`: field `a` of struct column `s` of relation `t`
                if let datafusion::common::TableReference::Partial { schema: q, table: c } = rel {
                    let column = Column::new(Some(q.to_string()), c.to_string());
                    if self::is_relation(schema, q) && schema.has_column(&column) {
                        let getter = datafusion::functions::core::expr_fn::get_field(
                            Expr::Column(column),
                            name.as_str(),
                        );
                        return Ok(Transformed::yes(getter));
                    }
                }
                // `df["a"]` of a parent DataFrame whose qualifier a projection dropped
                if !is_relation && schema.has_column_with_unqualified_name(name) {
                    return Ok(Transformed::yes(ident(name.as_str())));
                }
                if !is_relation {
                    // Spark analyses eagerly: the error comes here, not when run
                    let names = crate::error::closest_names(
                        name,
                        schema.fields().iter().map(|f| f.name().as_str()),
                    );
                    return Err(datafusion::error::DataFusionError::External(Box::new(
                        Error::analysis(
                            "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                            format!(
                                "A column, variable, or function parameter with name `{rel_name}`.`{name}` cannot be \
                                 resolved. Did you mean one of the following? [{names}].",
                            ),
                        ),
                    )));
                }
            }
            Ok(Transformed::no(node))
        })
        .map_err(Error::from_planning)?;
    // the variables of Python lambdas get their types from the arrays
    let resolved = out
        .data
        .resolve_lambda_variables(schema)
        .map_err(Error::from_planning)?;
    Ok(resolved.data)
}

/// Spark's string functions take numbers, dates and booleans as their text
/// (`upper(123)` is `"123"`): the function's string arguments, by position.
const STRING_ARGUMENTS: &[(&str, &[usize])] = &[
    ("upper", &[0]),
    ("lower", &[0]),
    ("initcap", &[0]),
    ("trim", &[0]),
    ("btrim", &[0]),
    ("ltrim", &[0]),
    ("rtrim", &[0]),
    ("reverse", &[0]),
    ("ascii", &[0]),
    ("character_length", &[0]),
    ("octet_length", &[0]),
    ("lpad", &[0, 2]),
    ("rpad", &[0, 2]),
    ("substr", &[0]),
    ("repeat", &[0]),
    ("instr", &[0, 1]),
    ("strpos", &[0, 1]),
];

/// `e` with Spark's implicit casts of string functions' arguments, made
/// after the output is named (Spark names `upper(age)`, not the cast).
pub fn implicit_casts(e: Expr, schema: &DFSchema) -> Result<Expr> {
    e.transform_up(|node| {
        Ok(match string_arguments(&node, schema) {
            Some(cast) => Transformed::yes(cast),
            None => Transformed::no(node),
        })
    })
    .map(|t| t.data)
    .map_err(Error::from_planning)
}

/// A call of one of [`STRING_ARGUMENTS`] with its non-string arguments (in
/// those positions) cast to text, as Spark's implicit cast makes them.
fn string_arguments(e: &Expr, schema: &DFSchema) -> Option<Expr> {
    use datafusion::logical_expr::ExprSchemable;
    let Expr::ScalarFunction(f) = e else {
        return None;
    };
    let (_, positions) = STRING_ARGUMENTS
        .iter()
        .find(|(name, _)| *name == f.func.name())?;
    let mut changed = false;
    let args = f
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let textual = a.get_type(schema).ok().is_some_and(|t| {
                t.is_numeric()
                    || matches!(
                        t,
                        DataType::Boolean | DataType::Date32 | DataType::Timestamp(_, _)
                    )
            });
            if positions.contains(&i) && textual {
                changed = true;
                cast(a.clone(), DataType::Utf8)
            } else {
                a.clone()
            }
        })
        .collect();
    changed.then(|| Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(&f.func), args)))
}

/// `name` (no qualifier) that `schema` has only in another case: the
/// column as the schema spells it (Spark's default resolution); two
/// spellings of it are Spark's `AMBIGUOUS_REFERENCE`.
fn case_insensitive_column(e: &Expr, schema: &DFSchema) -> datafusion::error::Result<Option<Expr>> {
    let Expr::Column(Column {
        relation: None,
        name,
        ..
    }) = e
    else {
        return Ok(None);
    };
    let mut matches: Vec<&str> = schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .filter(|n| n.eq_ignore_ascii_case(name))
        .collect();
    matches.sort_unstable();
    matches.dedup();
    match matches.as_slice() {
        [] => Ok(None),
        [one] if one == name => Ok(None),
        [one] => Ok(Some(ident(*one))),
        many => Err(datafusion::error::DataFusionError::External(Box::new(
            Error::analysis(
                "AMBIGUOUS_REFERENCE",
                format!(
                    "Reference `{name}` is ambiguous, could be: [{}].",
                    many.iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        ))),
    }
}

/// Spark's analysis of `base.field`: a struct must have the field, a map
/// takes any key, anything else has no fields.
fn extractable(schema: &DFSchema, base: &str, field: &str) -> Result<()> {
    let Ok((_, f)) = schema.qualified_field_with_unqualified_name(base) else {
        return Ok(()); // ambiguous: DataFusion says so
    };
    match f.data_type() {
        DataType::Struct(fields) => {
            if fields.iter().any(|x| x.name() == field) {
                return Ok(());
            }
            let names: Vec<String> = fields.iter().map(|x| format!("`{}`", x.name())).collect();
            Err(Error::analysis(
                "FIELD_NOT_FOUND",
                format!("No such struct field `{field}` in {}.", names.join(", ")),
            ))
        }
        DataType::Map(..) | DataType::List(_) | DataType::LargeList(_) => Ok(()),
        other => Err(Error::analysis(
            "INVALID_EXTRACT_BASE_FIELD_TYPE",
            format!(
                "Can't extract a value from \"{base}\". Need a complex type [STRUCT, ARRAY, MAP] but got \"{}\".",
                crate::plan::spark_names::type_name(other)
            ),
        )),
    }
}

/// `df["name"]`: the column qualified by its relation, so that it stays
/// unambiguous in a join of `df` with another DataFrame.
pub fn qualified_column(df: &DataFrame, name: &str) -> Expr {
    match df.schema().qualified_field_with_unqualified_name(name) {
        Ok((Some(q), f)) => Expr::Column(Column::new(Some(q.clone()), f.name())),
        _ => ident(name),
    }
}

/// `e` named as Spark names it, unless it is a column or already named
/// (see [`crate::plan::spark_names`]). A cast of a column takes the
/// column's name unless an earlier output has it (`taken`): Spark allows
/// two columns of one name, DataFusion does not.
fn spark_named(e: Expr, taken: &std::collections::HashSet<String>) -> Expr {
    use crate::plan::spark_names::{output_name, spark_name};
    match e {
        Expr::Alias(_) | Expr::Column(_) => e,
        Expr::ScalarFunction(ref f) if EXPLODES.contains(&f.func.name()) => e,
        other => {
            let name = output_name(&other);
            let name = if taken.contains(&name) {
                spark_name(&other)
            } else {
                name
            };
            other.alias(name)
        }
    }
}

/// The field name of `s.field` where `s` is a struct column of `df` (Spark
/// names the selected field after it).
fn struct_field_name(df: &DataFrame, e: &Expr) -> Option<String> {
    let Expr::Column(Column {
        relation: Some(rel),
        name,
        ..
    }) = e
    else {
        return None;
    };
    let schema = df.schema();
    let rel_name = rel.to_string();
    (!is_relation(schema, &rel_name) && schema.has_column_with_unqualified_name(&rel_name))
        .then(|| name.clone())
}

/// The name of column `e` as written when the schema spells it in another
/// case: Spark names the output as the reference is written (`NAME`).
fn written_name(df: &DataFrame, e: &Expr) -> Option<String> {
    match e {
        Expr::Column(Column {
            relation: None,
            name,
            ..
        }) if !df.schema().has_column_with_unqualified_name(name) => Some(name.clone()),
        _ => None,
    }
}

/// Whether `name` qualifies columns of `schema` (a relation, not a struct column).
fn is_relation(schema: &DFSchema, name: &str) -> bool {
    schema
        .iter()
        .any(|(q, _)| q.is_some_and(|q| q.to_string() == name))
}

/// `df.select(*exprs)`, with `explode` turned into an unnest, and
/// aggregates (`select(F.max("x"))`) computed over the whole DataFrame.
pub fn select(df: DataFrame, exprs: Vec<Expr>) -> Result<DataFrame> {
    let mut resolved = Vec::with_capacity(exprs.len());
    let mut exploded: Vec<String> = Vec::new();
    // unnested structs whose fields become columns: a map's key and value,
    // inline's struct fields
    let mut split: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    let mut outer_exploded = false;
    let mut taken = std::collections::HashSet::new();
    for e in exprs {
        let field = struct_field_name(&df, &e).or_else(|| written_name(&df, &e));
        let mut e = resolve(&df, e)?;
        if let Some(field) = field {
            e = e.alias(field);
        } else {
            e = spark_named(e, &taken);
        }
        let e = implicit_casts(e, df.schema())?;
        taken.insert(match &e {
            Expr::Alias(a) => a.name.clone(),
            Expr::Column(c) => c.name.clone(),
            other => other.schema_name().to_string(),
        });
        let (inner, alias) = match &e {
            Expr::Alias(a) => (a.expr.as_ref().clone(), Some(a.name.clone())),
            other => (other.clone(), None),
        };
        let generator = match &inner {
            Expr::ScalarFunction(f) if EXPLODES.contains(&f.func.name()) => Some(f.clone()),
            _ => None,
        };
        if let Some(f) = generator {
            let kind = f.func.name();
            let arg = f.args.into_iter().next().ok_or_else(|| {
                Error::analysis("WRONG_NUM_ARGS", format!("{kind} takes one argument"))
            })?;
            let outer = kind.ends_with("_outer");
            if outer {
                outer_exploded = true;
            }
            // a map explodes into its entries (key, value)
            use datafusion::logical_expr::ExprSchemable;
            let arg_type = arg.get_type(df.schema()).map_err(Error::from_planning)?;
            let arg = match arg_type {
                DataType::Map(..) => datafusion::functions_nested::expr_fn::map_entries(arg),
                _ => arg,
            };
            let fields = match arg.get_type(df.schema()).map_err(Error::from_planning)? {
                DataType::List(f) | DataType::LargeList(f) => match f.data_type() {
                    DataType::Struct(fields)
                        if kind.starts_with("inline") || matches!(arg_type, DataType::Map(..)) =>
                    {
                        Some(fields.iter().map(|f| f.name().clone()).collect::<Vec<_>>())
                    }
                    _ if kind.starts_with("inline") => {
                        return Err(Error::analysis(
                            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                            format!("{kind} takes an array of structs, not {arg_type}"),
                        ))
                    }
                    _ => None,
                },
                _ => None,
            };
            // explode_outer: an empty array gives a row of null, as a null one
            let arg = if outer {
                use datafusion::functions_nested::expr_fn::cardinality;
                datafusion::logical_expr::when(
                    cardinality(arg.clone()).eq(lit(0u64)),
                    lit(ScalarValue::Null),
                )
                .otherwise(arg)
                .map_err(Error::from_planning)?
            } else {
                arg
            };
            if kind.starts_with("pos") {
                // the positions, unnested beside the values (zipped row by row)
                use datafusion::functions_nested::expr_fn::{array_length, gen_series};
                let last = cast(array_length(arg.clone()), DataType::Int64) - lit(1i64);
                let positions = gen_series(lit(0i64), last, lit(1i64));
                resolved
                    .push(cast(positions, DataType::new_list(DataType::Int32, true)).alias("pos"));
                exploded.push("pos".to_string());
            }
            // `alias("a", "b")`: the generator's columns' names
            let names: Option<Vec<String>> = alias.as_ref().and_then(|a| {
                a.contains(MULTI_ALIAS_SEPARATOR)
                    .then(|| a.split(MULTI_ALIAS_SEPARATOR).map(str::to_string).collect())
            });
            let name = match &fields {
                Some(fields) => {
                    let outputs = match names {
                        Some(names) if names.len() == fields.len() => names,
                        Some(names) => {
                            return Err(Error::analysis(
                                "MULTI_ALIAS_WITHOUT_GENERATOR",
                                format!(
                                    "{kind} gives {} columns, but {} names were given",
                                    fields.len(),
                                    names.len()
                                ),
                            ))
                        }
                        None => fields.clone(),
                    };
                    let name = format!("__sparklet_generated_{}", split.len());
                    split.push((name.clone(), fields.clone(), outputs));
                    name
                }
                None => match names {
                    Some(mut names) if kind.starts_with("pos") && names.len() == 2 => {
                        let pos = resolved.pop().ok_or_else(|| {
                            Error::Internal("posexplode without positions".into())
                        })?;
                        let pos = match pos {
                            Expr::Alias(a) => *a.expr,
                            other => other,
                        };
                        exploded.pop();
                        let col = names.pop().unwrap_or_default();
                        let pos_name = names.pop().unwrap_or_default();
                        resolved.push(pos.alias(pos_name.clone()));
                        exploded.push(pos_name);
                        col
                    }
                    Some(names) => names.join(","),
                    None => alias.unwrap_or_else(|| "col".to_string()),
                },
            };
            resolved.push(arg.alias(name.clone()));
            exploded.push(name);
        } else {
            resolved.push(e);
        }
    }
    let aggregates = datafusion::logical_expr::utils::find_aggregate_exprs(resolved.iter());
    if !aggregates.is_empty() && exploded.is_empty() {
        return select_aggregates(df, resolved, aggregates);
    }
    let projected = df.select(resolved).map_err(Error::from_planning)?;
    if exploded.is_empty() {
        return Ok(projected);
    }
    let names: Vec<&str> = exploded.iter().map(String::as_str).collect();
    let unnested = projected
        .unnest_columns_with_options(
            &names,
            UnnestOptions::new().with_preserve_nulls(outer_exploded),
        )
        .map_err(Error::from_planning)?;
    if split.is_empty() {
        return Ok(unnested);
    }
    // each generated struct's fields as columns, where it stood
    let columns = unnested
        .schema()
        .columns()
        .into_iter()
        .flat_map(|c| match split.iter().find(|(name, ..)| *name == c.name) {
            Some((_, fields, outputs)) => fields
                .iter()
                .zip(outputs)
                .map(|(f, out)| {
                    datafusion::functions::core::expr_fn::get_field(
                        Expr::Column(c.clone()),
                        f.as_str(),
                    )
                    .alias(out)
                })
                .collect(),
            None => vec![Expr::Column(c)],
        })
        .collect::<Vec<_>>();
    unnested.select(columns).map_err(Error::from_planning)
}

/// A select of aggregates: one aggregate over all rows, then the select's
/// expressions over its results (`select(F.max("x") - F.min("x"))`).
fn select_aggregates(df: DataFrame, exprs: Vec<Expr>, aggregates: Vec<Expr>) -> Result<DataFrame> {
    let aggregated = df
        .aggregate(vec![], aggregates.clone())
        .map_err(Error::from_planning)?;
    // the aggregate's output columns, in the order of `aggregates`
    let outputs: Vec<Expr> = (0..aggregates.len())
        .map(|i| Expr::Column(Column::from(aggregated.schema().qualified_field(i))))
        .collect();
    let rebased = exprs
        .into_iter()
        .map(|e| {
            let name = e.schema_name().to_string();
            let rebased = e
                .transform_up(|node| {
                    Ok(match aggregates.iter().position(|a| *a == node) {
                        Some(i) => Transformed::yes(outputs[i].clone()),
                        None => Transformed::no(node),
                    })
                })
                .map(|t| t.data)
                .map_err(Error::from_planning)?;
            // named as the expression was, not after the aggregate's column
            Ok(match rebased {
                Expr::Alias(_) => rebased,
                other => other.alias(name),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    aggregated.select(rebased).map_err(Error::from_planning)
}

/// `df.filter(cond)` / `df.where(cond)`.
pub fn filter(df: DataFrame, cond: Expr) -> Result<DataFrame> {
    filter_made(df, |_| Ok(cond.clone()))
}

/// `df.filter("text")`: the condition parsed as SQL (see [`filter`]).
pub fn filter_sql(df: DataFrame, text: &str) -> Result<DataFrame> {
    filter_made(df, |df| parse_sql(df, text))
}

/// `df` filtered by the condition `make` gives for it. A condition that
/// reads a column `df`'s last projection left out (`df.select("a")
/// .where("b > 0")`) reads it below that projection, as Spark's analyzer
/// resolves a filter's missing references: the projection keeps the column
/// for the filter, and a projection above drops it again.
fn filter_made(df: DataFrame, make: impl Fn(&DataFrame) -> Result<Expr>) -> Result<DataFrame> {
    let on = |df: DataFrame| -> Result<DataFrame> {
        let cond = implicit_casts(resolve(&df, make(&df)?)?, df.schema())?;
        df.filter(cond).map_err(Error::from_planning)
    };
    let first = match on(df.clone()) {
        Ok(filtered) => return Ok(filtered),
        Err(e) => e,
    };
    let Some(widened) = with_dropped_columns(&df)? else {
        return Err(first);
    };
    let Ok(filtered) = on(widened) else {
        return Err(first);
    };
    let columns: Vec<Expr> = df
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    filtered.select(columns).map_err(Error::from_planning)
}

/// `df`'s last projection with the columns of its input it left out added
/// after its own (None: `df` does not end in a projection that left any).
fn with_dropped_columns(df: &DataFrame) -> Result<Option<DataFrame>> {
    let LogicalPlan::Projection(p) = df.logical_plan() else {
        return Ok(None);
    };
    let out = df.schema();
    let dropped: Vec<Expr> = p
        .input
        .schema()
        .columns()
        .into_iter()
        .filter(|c| !out.has_column_with_unqualified_name(&c.name))
        .map(Expr::Column)
        .collect();
    if dropped.is_empty() {
        return Ok(None);
    }
    let exprs = p.expr.iter().cloned().chain(dropped).collect();
    let plan = LogicalPlan::Projection(
        datafusion::logical_expr::Projection::try_new(exprs, Arc::clone(&p.input))
            .map_err(Error::from_planning)?,
    );
    let (state, _) = df.clone().into_parts();
    Ok(Some(DataFrame::new(state, plan)))
}

/// `df.withColumn(name, e)`: replaces a column of that name or appends one.
pub fn with_column(df: DataFrame, name: &str, e: Expr) -> Result<DataFrame> {
    let e = implicit_casts(resolve(&df, e)?, df.schema())?;
    if EXPLODES.iter().any(|k| is_fn(&e, k)) {
        let mut exprs: Vec<Expr> = df
            .schema()
            .columns()
            .into_iter()
            .filter(|c| c.name != name)
            .map(Expr::Column)
            .collect();
        exprs.push(e.alias(name));
        return select(df, exprs);
    }
    df.with_column(name, e).map_err(Error::from_planning)
}

/// `df.withColumnRenamed(old, new)` (a missing `old` is a no-op, as in Spark).
pub fn with_column_renamed(df: DataFrame, old: &str, new: &str) -> Result<DataFrame> {
    if !df.schema().has_column_with_unqualified_name(old) {
        return Ok(df);
    }
    df.with_column_renamed(old, new)
        .map_err(Error::from_planning)
}

/// `df.drop(*names)` (missing names are ignored, as in Spark).
pub fn drop(df: DataFrame, names: &[String]) -> Result<DataFrame> {
    let present: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| df.schema().has_column_with_unqualified_name(n))
        .collect();
    df.drop_columns(&present).map_err(Error::from_planning)
}

/// `df.union(other)`: by position; both sides need the same number of columns.
pub fn union(df: DataFrame, other: DataFrame) -> Result<DataFrame> {
    let (l, r) = (df.schema().fields().len(), other.schema().fields().len());
    if l != r {
        return Err(Error::analysis(
            "NUM_COLUMNS_MISMATCH",
            format!("UNION can only be performed on inputs with the same number of columns, but the first input has {l} columns and the second input has {r} columns."),
        ));
    }
    // align names to the left side, as Spark keeps the first input's names
    let names: Vec<String> = df
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let renamed: Vec<Expr> = other
        .schema()
        .columns()
        .into_iter()
        .zip(&names)
        .map(|(c, n)| Expr::Column(c).alias(n.as_str()))
        .collect();
    let other = other.select(renamed).map_err(Error::from_planning)?;
    df.union(other).map_err(Error::from_planning)
}

/// Spark's error for a column name not in `schema`.
pub fn unresolved_column(name: &str, schema: &DFSchema) -> Error {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    Error::analysis(
        "UNRESOLVED_COLUMN.WITH_SUGGESTION",
        format!(
            "Cannot resolve column name \"{name}\" among ({}).",
            names.join(", ")
        ),
    )
}

/// `df.observe(name, *exprs)`: on a stream, `exprs` (aggregates) computed
/// over each micro-batch's rows, reported as `observedMetrics[name]`. On a
/// batch DataFrame the rows pass unchanged: Spark hands those metrics to
/// JVM listeners only (an `Observation` is computed by the Python layer).
pub fn observe(df: DataFrame, name: String, exprs: Vec<Expr>) -> Result<DataFrame> {
    let (session, plan) = df.into_parts();
    if exprs.is_empty() {
        return Err(Error::analysis(
            "CANNOT_BE_EMPTY",
            "observe() needs at least one aggregate expression",
        ));
    }
    for e in &exprs {
        if datafusion::logical_expr::utils::find_aggregate_exprs(std::slice::from_ref(e)).is_empty()
        {
            let attribute = e.column_refs().into_iter().next().map(|c| c.name.clone());
            return Err(Error::analysis(
                "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
                format!(
                    "Invalid observed metrics. Attribute \"{}\" can only be used as an argument to an aggregate function.",
                    attribute.unwrap_or_else(|| e.schema_name().to_string())
                ),
            ));
        }
    }
    // checks the expressions now (an analysis error here, not in a batch)
    DataFrame::new(session.clone(), plan.clone())
        .aggregate(vec![], exprs.clone())
        .map_err(Error::from_planning)?;
    if !crate::catalog::is_streaming(&plan) {
        return Ok(DataFrame::new(session, plan));
    }
    let node = crate::exec::observe::ObserveNode::new(plan, name, exprs);
    Ok(DataFrame::new(
        session,
        LogicalPlan::Extension(datafusion::logical_expr::Extension {
            node: Arc::new(node),
        }),
    ))
}

/// `df.mapInPandas(func, schema)` / `df.mapInArrow(...)`: the user's
/// function over each partition's batches, emitting rows of `output`.
pub fn map_batches(
    df: DataFrame,
    mapper: Arc<dyn crate::exec::map_batches::BatchMapper>,
    output: arrow::datatypes::SchemaRef,
    kind: &'static str,
) -> Result<DataFrame> {
    use crate::exec::map_batches::MapBatchesNode;
    let (session, plan) = df.into_parts();
    let node = MapBatchesNode {
        input: plan,
        mapper: crate::exec::operator::ByIdentity(mapper),
        output: Arc::new(
            datafusion::common::DFSchema::try_from(output.as_ref().clone())
                .map_err(Error::from_planning)?,
        ),
        kind,
    };
    Ok(DataFrame::new(
        session,
        LogicalPlan::Extension(datafusion::logical_expr::Extension {
            node: Arc::new(node),
        }),
    ))
}

/// `df.groupBy(keys).applyInPandasWithState(...)` (or, by `flavor`,
/// `transformWithStateInPandas`) on a stream: the user's `func` over each
/// key's rows and state, emitting rows of `output`.
#[allow(clippy::too_many_arguments)] // the Python API's own arguments
pub fn group_state(
    df: DataFrame,
    keys: Vec<String>,
    func: Arc<dyn crate::exec::group_state::GroupFunction>,
    output: arrow::datatypes::SchemaRef,
    state: Vec<arrow::datatypes::FieldRef>,
    timeout: &str,
    flavor: crate::exec::group_state::Flavor,
    processor: Option<crate::exec::group_state::ProcessorSettings>,
) -> Result<DataFrame> {
    use crate::exec::group_state::{Flavor, GroupStateNode, GroupTimeout};
    for k in &keys {
        if !df.schema().has_column_with_unqualified_name(k) {
            return Err(unresolved_column(k, df.schema()));
        }
    }
    let timeout = GroupTimeout::parse(timeout)?;
    let (session, plan) = df.into_parts();
    if !crate::catalog::is_streaming(&plan) {
        return Err(Error::analysis(
            "UNSUPPORTED_OPERATION",
            match flavor {
                Flavor::PandasWithState => "applyInPandasWithState runs on streaming DataFrames; use applyInPandas on a batch DataFrame.",
                Flavor::Processor { .. } => "transformWithStateInPandas runs on streaming DataFrames; use applyInPandas on a batch DataFrame.",
            },
        ));
    }
    let output = Arc::new(
        datafusion::common::DFSchema::try_from(output.as_ref().clone())
            .map_err(Error::from_planning)?,
    );
    let node = GroupStateNode {
        input: plan,
        keys,
        func: crate::exec::operator::ByIdentity(func),
        output,
        state,
        flavor,
        timeout,
        processor,
        slot: crate::exec::operator::OperatorSlot::empty(),
    };
    let plan = LogicalPlan::Extension(datafusion::logical_expr::Extension {
        node: Arc::new(node),
    });
    Ok(DataFrame::new(session, plan))
}

/// `df.dropDuplicates(subset)` / `dropDuplicatesWithinWatermark(subset)`:
/// on a stream a stateful [`DedupNode`]; on a batch the first row per key.
pub fn drop_duplicates(
    df: DataFrame,
    subset: Option<Vec<String>>,
    within_watermark: bool,
) -> Result<DataFrame> {
    let all: Vec<String> = df
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let keys = subset.unwrap_or_else(|| all.clone());
    for k in &keys {
        if !df.schema().has_column_with_unqualified_name(k) {
            return Err(unresolved_column(k, df.schema()));
        }
    }
    let (state, plan) = df.into_parts();
    if crate::catalog::is_streaming(&plan) {
        let node = crate::exec::dedup::DedupNode::new(plan, keys, within_watermark);
        let plan = LogicalPlan::Extension(datafusion::logical_expr::Extension {
            node: Arc::new(node),
        });
        return Ok(DataFrame::new(state, plan));
    }
    let df = DataFrame::new(state, plan);
    let on: Vec<Expr> = keys.iter().map(|k| ident(k.as_str())).collect();
    let select: Vec<Expr> = all.iter().map(|k| ident(k.as_str())).collect();
    df.distinct_on(on, select, None)
        .map_err(Error::from_planning)
}

/// What `df.join(other, on)` joins on.
pub enum JoinOn {
    /// Column names present on both sides (Spark's using-join: one output column each).
    Using(Vec<String>),
    /// A boolean condition over both sides' columns (`None`: every pair).
    Condition(Option<Expr>),
}

/// Spark's join type names.
pub fn join_type(how: &str) -> Result<JoinType> {
    Ok(match how.to_ascii_lowercase().replace('_', "").as_str() {
        "inner" | "cross" => JoinType::Inner,
        "outer" | "full" | "fullouter" => JoinType::Full,
        "left" | "leftouter" => JoinType::Left,
        "right" | "rightouter" => JoinType::Right,
        "semi" | "leftsemi" => JoinType::LeftSemi,
        "anti" | "leftanti" => JoinType::LeftAnti,
        _ => {
            return Err(Error::analysis("UNSUPPORTED_JOIN_TYPE", format!(
                "Unsupported join type '{how}'. Supported join types include: 'inner', 'outer', 'full', 'fullouter', \
                 'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', 'right_outer', 'leftsemi', \
                 'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', 'cross'."
            )))
        }
    })
}

/// Spark's error for a USING key one side of a join lacks.
fn unresolved_using_column(key: &str, side: &str, schema: &DFSchema) -> Error {
    let columns: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("`{}`", f.name()))
        .collect();
    Error::analysis(
        "UNRESOLVED_USING_COLUMN_FOR_JOIN",
        format!(
            "USING column `{key}` cannot be resolved on the {side} side of the join. The {side}-side columns: [{}].",
            columns.join(", ")
        ),
    )
}

/// `df.join(other, on, how)`. A using-join outputs each key once (from the
/// left, the right for a right join, either for a full join), then the
/// other columns of the left and of the right side, as Spark does.
pub fn join(left: DataFrame, right: DataFrame, on: JoinOn, how: &str) -> Result<DataFrame> {
    let kind = join_type(how)?;
    match on {
        JoinOn::Condition(cond) => {
            // `F.expr` text in the condition resolves against both sides' columns
            let cond = match cond {
                Some(c) => {
                    let both = left
                        .clone()
                        .join_on(right.clone(), JoinType::Inner, None)
                        .map_err(Error::from_planning)?;
                    Some(resolve(&both, c)?)
                }
                None => None,
            };
            left.join_on(right, kind, cond)
                .map_err(Error::from_planning)
        }
        JoinOn::Using(keys) => {
            // a key computed on either side (no relation), or both sides of
            // one relation, cannot tell the sides' keys apart: name them
            let qualifier = |df: &DataFrame, k: &str| {
                df.schema()
                    .qualified_field_with_unqualified_name(k)
                    .ok()
                    .map(|(q, _)| q.cloned())
            };
            let clash = keys.iter().any(|k| {
                let (l, r) = (qualifier(&left, k), qualifier(&right, k));
                matches!(l, Some(None)) || matches!(r, Some(None)) || l == r
            });
            let (left, right) = if clash {
                (
                    left.alias("__left").map_err(Error::from_planning)?,
                    right.alias("__right").map_err(Error::from_planning)?,
                )
            } else {
                (left, right)
            };
            let qualified = |df: &DataFrame, k: &str, side: &str| -> Result<Column> {
                let (q, f) = df
                    .schema()
                    .qualified_field_with_unqualified_name(k)
                    .map_err(|_| unresolved_using_column(k, side, df.schema()))?;
                Ok(Column::new(q.cloned(), f.name()))
            };
            let lk = keys
                .iter()
                .map(|k| qualified(&left, k, "left"))
                .collect::<Result<Vec<_>>>()?;
            let rk = keys
                .iter()
                .map(|k| qualified(&right, k, "right"))
                .collect::<Result<Vec<_>>>()?;
            let others = |df: &DataFrame| -> Vec<Expr> {
                df.schema()
                    .columns()
                    .into_iter()
                    .filter(|c| !keys.contains(&c.name))
                    .map(Expr::Column)
                    .collect()
            };
            let (left_rest, right_rest) = (others(&left), others(&right));
            let cond = lk
                .iter()
                .zip(&rk)
                .map(|(l, r)| Expr::Column(l.clone()).eq(Expr::Column(r.clone())))
                .reduce(Expr::and);
            let joined = left
                .join_on(right, kind, cond)
                .map_err(Error::from_planning)?;
            if matches!(kind, JoinType::LeftSemi | JoinType::LeftAnti) {
                // the keys first here too, then the left's other columns
                let mut out: Vec<Expr> = keys
                    .iter()
                    .zip(lk)
                    .map(|(k, l)| Expr::Column(l).alias(k.as_str()))
                    .collect();
                out.extend(left_rest);
                return joined.select(out).map_err(Error::from_planning);
            }
            let mut out: Vec<Expr> = keys
                .iter()
                .zip(lk.into_iter().zip(rk))
                .map(|(k, (l, r))| {
                    let (l, r) = (Expr::Column(l), Expr::Column(r));
                    match kind {
                        JoinType::Right => r.alias(k.as_str()),
                        JoinType::Full => {
                            datafusion::functions::core::expr_fn::coalesce(vec![l, r])
                                .alias(k.as_str())
                        }
                        _ => l.alias(k.as_str()),
                    }
                })
                .collect();
            out.extend(left_rest);
            out.extend(right_rest);
            joined.select(out).map_err(Error::from_planning)
        }
    }
}

/// `df.unionByName(other, allowMissingColumns)`.
pub fn union_by_name(df: DataFrame, other: DataFrame, allow_missing: bool) -> Result<DataFrame> {
    if !allow_missing {
        for f in df.schema().fields() {
            if !other.schema().has_column_with_unqualified_name(f.name()) {
                return Err(unresolved_column(f.name(), other.schema()));
            }
        }
    }
    df.union_by_name(other).map_err(Error::from_planning)
}

/// Run a batch DataFrame: its rows and their schema (the physical plan's,
/// which may differ from the logical one in nullability).
pub fn collect(
    df: DataFrame,
) -> Result<(arrow::datatypes::SchemaRef, Vec<arrow::array::RecordBatch>)> {
    crate::failpoint::panic_at("panic-in-batch-query", 0);
    // partition by partition, in order, as Spark's collect returns rows
    run_plan(df, datafusion::physical_plan::collect_partitioned)
        .map(|(schema, parts)| (schema, parts.into_iter().flatten().collect()))
}

/// Plan `df` and run it with `run` (all rows, or by partition): the
/// physical plan's schema and what `run` gave.
fn run_plan<T, F, Fut>(df: DataFrame, run: F) -> Result<(arrow::datatypes::SchemaRef, T)>
where
    F: FnOnce(
        Arc<dyn datafusion::physical_plan::ExecutionPlan>,
        Arc<datafusion::execution::TaskContext>,
    ) -> Fut,
    Fut: std::future::Future<Output = datafusion::error::Result<T>>,
{
    crate::runtime::block_on(async move {
        let task_ctx = Arc::new(df.task_ctx());
        let plan = df
            .create_physical_plan()
            .await
            .map_err(Error::from_planning)?;
        // rows in partition order, as Spark's actions return them
        let plan = crate::exec::ordered_coalesce::in_partition_order(plan)
            .map_err(Error::from_planning)?;
        let schema = plan.schema();
        let out = run(plan, task_ctx).await.map_err(Error::from_execution)?;
        Ok((schema, out))
    })?
}

/// Run a batch DataFrame keeping its output partitions apart (a batch
/// writer writes one file each, as Spark's tasks do).
pub fn collect_partitioned(
    df: DataFrame,
) -> Result<(
    arrow::datatypes::SchemaRef,
    Vec<Vec<arrow::array::RecordBatch>>,
)> {
    run_plan(df, datafusion::physical_plan::collect_partitioned)
}

/// How `repartition`, `coalesce`, `repartitionByRange` and
/// `repartitionById` place rows.
pub enum Partitioning {
    /// By the hash of these columns (`repartition(n, cols)`).
    Hash(Vec<Expr>),
    /// Evenly, without keys (`repartition(n)`).
    Even,
    /// Input partitions merged (`coalesce(n)`).
    Coalesce,
    /// By ranges of these sort keys.
    Range(Vec<datafusion::logical_expr::SortExpr>),
    /// By the partition number a column gives.
    ById(Expr),
}

/// The order a batch plan's rows end in: its last sort, under filters.
fn trailing_sort(plan: &LogicalPlan) -> Option<Vec<datafusion::logical_expr::SortExpr>> {
    match plan {
        LogicalPlan::Sort(s) if s.fetch.is_none() => Some(s.expr.clone()),
        LogicalPlan::Filter(f) => trailing_sort(&f.input),
        _ => None,
    }
}

/// `aggs` with the aggregates whose answer is the order their rows came in
/// (`first`, `last`, `collect_list`) reading them in `order`: Spark hands
/// them the rows of `df.orderBy(...).groupBy(...)` as sorted (users rely
/// on it for the first or last value by time), where DataFusion drops a
/// sort no operator asks for.
fn in_sorted_order(
    aggs: Vec<Expr>,
    order: &[datafusion::logical_expr::SortExpr],
) -> Result<Vec<Expr>> {
    aggs.into_iter()
        .map(|a| {
            a.transform_up(|e| match e {
                Expr::AggregateFunction(mut f)
                    if f.params.order_by.is_empty()
                        && matches!(
                            f.func.name(),
                            "first" | "last" | "first_value" | "last_value" | "collect_list"
                        ) =>
                {
                    f.params.order_by = order.to_vec();
                    Ok(Transformed::yes(Expr::AggregateFunction(f)))
                }
                other => Ok(Transformed::no(other)),
            })
            .map(|t| t.data)
            .map_err(Error::from_planning)
        })
        .collect()
}

/// `orderBy`/`sort`: `df`'s rows sorted by `sorts`, whose expressions are
/// resolved as `select`'s (an `F.expr(...)` unresolved sorted by nothing).
pub fn sort(df: DataFrame, sorts: Vec<datafusion::logical_expr::SortExpr>) -> Result<DataFrame> {
    let sorts = sorts
        .into_iter()
        .map(|s| Ok(s.with_expr(resolve(&df, s.expr.clone())?)))
        .collect::<Result<Vec<_>>>()?;
    df.sort(sorts).map_err(Error::from_planning)
}

/// `df` in `n` partitions. A stream keeps DataFusion's repartitioning (its
/// micro-batches are not split as Spark's tasks are).
pub fn repartition(df: DataFrame, n: usize, how: Partitioning) -> Result<DataFrame> {
    use crate::plan::partitions::{partitioned, Scheme};
    let n = n.max(1);
    if crate::catalog::is_streaming(df.logical_plan()) {
        let scheme = match how {
            Partitioning::Hash(keys) => datafusion::logical_expr::Partitioning::Hash(
                keys.into_iter()
                    .map(|k| resolve(&df, k))
                    .collect::<Result<_>>()?,
                n,
            ),
            _ => datafusion::logical_expr::Partitioning::RoundRobinBatch(n),
        };
        return df.repartition(scheme).map_err(Error::from_planning);
    }
    let scheme = match how {
        Partitioning::Hash(keys) => Scheme::Hash(
            keys.into_iter()
                .map(|k| resolve(&df, k))
                .collect::<Result<_>>()?,
        ),
        Partitioning::Even => Scheme::Runs,
        Partitioning::Coalesce => Scheme::Coalesce,
        Partitioning::Range(sorts) => Scheme::Range(
            sorts
                .into_iter()
                .map(|s| Ok(s.with_expr(resolve(&df, s.expr.clone())?)))
                .collect::<Result<_>>()?,
        ),
        Partitioning::ById(e) => Scheme::ById(resolve(&df, e)?),
    };
    let (state, plan) = df.into_parts();
    Ok(DataFrame::new(state, partitioned(plan, scheme, n)))
}

/// `df.withWatermark(eventTime, delayThreshold)`.
pub fn with_watermark(df: DataFrame, column: &str, delay: &str) -> Result<DataFrame> {
    // Spark counts a month of delay as 31 days
    let delay_ms = crate::engine::interval::parse_calendar_interval(delay)
        .map(|i| (i.micros + i.months * 31 * 86_400_000_000) / 1_000)
        .map_err(|_| {
        Error::analysis(
            "CANNOT_PARSE_INTERVAL",
            format!("Unable to parse '{delay}'. Please ensure that the value provided is in a valid format for defining an interval. You can reference the documentation for the correct format. If the issue persists, please double check that the input value is not null or empty and try again."),
        )
    })?;
    if delay_ms < 0 {
        return Err(Error::illegal_argument(format!(
            "requirement failed: delay threshold ({delay}) should not be negative."
        )));
    }
    if !crate::catalog::is_streaming(df.logical_plan()) {
        // Spark drops it from batch plans unchecked, the column included
        return Ok(df);
    }
    let field = df
        .schema()
        .field_with_unqualified_name(column)
        .map_err(Error::from_planning)?;
    if !matches!(field.data_type(), DataType::Timestamp(_, _)) {
        return Err(Error::analysis(
            "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE",
            format!(
                "The event time `{column}` has the invalid type \"{}\", but expected \"TIMESTAMP\".",
                field.data_type()
            ),
        ));
    }
    let (state, plan) = df.into_parts();
    let node = crate::exec::watermark::WatermarkNode {
        input: plan,
        column: column.to_string(),
        delay_ms,
        stats: Default::default(),
    };
    let plan =
        datafusion::logical_expr::LogicalPlan::Extension(datafusion::logical_expr::Extension {
            node: Arc::new(node),
        });
    Ok(DataFrame::new(state, plan))
}

/// `df.groupBy(*group).agg(*aggs)` as the API calls it: [`aggregate`], its
/// unaliased aggregates named as Spark names them (`sum(v)`, `count(1)`).
pub fn group_agg(
    df: DataFrame,
    group: Vec<Expr>,
    aggs: Vec<Expr>,
    grouping: &crate::grouping::Grouping,
) -> Result<DataFrame> {
    let aggs = aggs
        .into_iter()
        .map(|a| {
            resolve(&df, a)
                .map(|a| spark_named(a, &Default::default()))
                .and_then(|a| implicit_casts(a, df.schema()))
        })
        .collect::<Result<Vec<_>>>()?;
    aggregate(df, group, aggs, grouping)
}

/// `df.groupBy(*group).agg(*aggs)`: grouping expressions that are not plain
/// columns (`window(...)`, `explode(window_list(...))`, arithmetic) are first
/// computed as named columns, so the aggregate groups by columns (Spark names
/// a window grouping column `window`). `grouping`: how the keys group
/// (`cube`, `rollup`, grouping sets).
pub fn aggregate(
    df: DataFrame,
    group: Vec<Expr>,
    aggs: Vec<Expr>,
    grouping: &crate::grouping::Grouping,
) -> Result<DataFrame> {
    // `groupBy("s.field")` names the key `field`, as Spark does
    let group = group
        .into_iter()
        .map(|g| {
            let field = struct_field_name(&df, &g).or_else(|| written_name(&df, &g));
            resolve(&df, g).map(|r| match field {
                Some(f) if !matches!(r, Expr::Alias(_)) => r.alias(f),
                _ => r,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let sessions = group.iter().any(|g| {
        let inner = match g {
            Expr::Alias(a) => a.expr.as_ref(),
            other => other,
        };
        is_fn(inner, "session_window")
            || matches!(inner, Expr::Column(c) if c.name == crate::plan::sql_tvf::SESSION_COLUMN)
    });
    let streaming = crate::catalog::is_streaming(df.logical_plan());
    let batch_sessions = sessions && !streaming;
    let aggs = aggs
        .into_iter()
        .map(|a| resolve(&df, a))
        .collect::<Result<Vec<_>>>()?;
    let aggs = match trailing_sort(df.logical_plan()) {
        Some(order) if !streaming => in_sorted_order(aggs, &order)?,
        _ => aggs,
    };
    let mut computed: Vec<Expr> = Vec::new();
    let mut keys: Vec<Expr> = Vec::new();
    for g in group {
        // the outer name wins (`F.window(...)` is itself named `window`)
        let (mut inner, alias) = match &g {
            Expr::Alias(a) => (a.expr.as_ref().clone(), Some(a.name.clone())),
            other => (other.clone(), None),
        };
        while let Expr::Alias(a) = inner {
            inner = *a.expr;
        }
        // a streaming sliding window groups by pane; the stateful operator
        // merges each pane into the windows holding it
        let inner = match sliding_window_args(&inner) {
            Some(args) if streaming => crate::functions::window::pane_udf().call(args),
            _ => inner,
        };
        match inner {
            Expr::Column(_) if alias.is_none() => keys.push(g),
            other => {
                let name = alias.unwrap_or_else(|| other.schema_name().to_string());
                computed.push(other.alias(name.clone()));
                keys.push(ident(name));
            }
        }
    }
    let df = if computed.is_empty() {
        df
    } else {
        let names: Vec<String> = computed
            .iter()
            .map(|e| match e {
                Expr::Alias(a) => a.name.clone(),
                _ => String::new(),
            })
            .collect();
        let mut exprs: Vec<Expr> = df
            .schema()
            .columns()
            .into_iter()
            .filter(|c| !names.contains(&c.name))
            .map(Expr::Column)
            .collect();
        exprs.extend(computed);
        select(df, exprs)?
    };
    if batch_sessions {
        return session_aggregate(df, keys, aggs);
    }
    df.aggregate(grouping.keys(keys)?, aggs)
        .map_err(Error::from_planning)
}

/// The arguments of `explode(window_list(...))` (a sliding `F.window`).
fn sliding_window_args(e: &Expr) -> Option<Vec<Expr>> {
    match e {
        Expr::ScalarFunction(f) if f.func.name() == "explode" => match f.args.first() {
            Some(Expr::ScalarFunction(w)) if w.func.name() == "window_list" => Some(w.args.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Session windows on a batch DataFrame: per key, rows ordered by start form
/// one session while each starts at or before the latest end so far (window
/// functions number the sessions), then the aggregate runs per session.
fn session_aggregate(df: DataFrame, keys: Vec<Expr>, aggs: Vec<Expr>) -> Result<DataFrame> {
    use datafusion::functions_aggregate::expr_fn::{max, min};
    use datafusion::logical_expr::expr::WindowFunction;
    use datafusion::logical_expr::{
        lit, when, ExprFunctionExt, WindowFrame, WindowFrameBound, WindowFrameUnits,
        WindowFunctionDefinition,
    };

    let plan = |e: datafusion::error::DataFusionError| Error::from_planning(e);
    let name_of = |e: &Expr| match e {
        Expr::Column(c) => c.name.clone(),
        other => other.schema_name().to_string(),
    };
    let others: Vec<Expr> = keys
        .iter()
        .filter(|k| name_of(k) != "session_window")
        .cloned()
        .collect();
    let field =
        |f: &str| datafusion::functions::core::expr_fn::get_field(ident("session_window"), f);
    let df = df
        .filter(ident("session_window").is_not_null())
        .and_then(|d| d.with_column("__s", field("start")))
        .and_then(|d| d.with_column("__e", field("end")))
        .map_err(plan)?;
    let order = vec![
        ident("__s").sort(true, false),
        ident("__e").sort(true, false),
    ];
    let over = |f: std::sync::Arc<datafusion::logical_expr::AggregateUDF>,
                arg: Expr,
                end: WindowFrameBound| {
        Expr::from(WindowFunction::new(
            WindowFunctionDefinition::AggregateUDF(f),
            vec![arg],
        ))
        .partition_by(others.clone())
        .order_by(order.clone())
        .window_frame(WindowFrame::new_bounds(
            WindowFrameUnits::Rows,
            WindowFrameBound::Preceding(ScalarValue::UInt64(None)),
            end,
        ))
        .build()
    };
    let prev_end = over(
        datafusion::functions_aggregate::min_max::max_udaf(),
        ident("__e"),
        WindowFrameBound::Preceding(ScalarValue::UInt64(Some(1))),
    )
    .map_err(plan)?
    .alias("__prev_end");
    let df = df.window(vec![prev_end]).map_err(plan)?;
    let starts_new = when(
        ident("__prev_end")
            .is_null()
            // a session starting at the end so far joins it, as in Spark
            .or(ident("__s").gt(ident("__prev_end"))),
        lit(1i64),
    )
    .otherwise(lit(0i64))
    .map_err(plan)?;
    let df = df.with_column("__new", starts_new).map_err(plan)?;
    let sid = over(
        datafusion::functions_aggregate::sum::sum_udaf(),
        ident("__new"),
        WindowFrameBound::CurrentRow,
    )
    .map_err(plan)?
    .alias("__sid");
    let df = df.window(vec![sid]).map_err(plan)?;
    let mut group = others.clone();
    group.push(ident("__sid"));
    let n_aggs = aggs.len();
    let mut all_aggs = aggs;
    all_aggs.push(min(ident("__s")).alias("__start"));
    all_aggs.push(max(ident("__e")).alias("__end"));
    let df = df.aggregate(group, all_aggs).map_err(plan)?;
    // Spark's columns: the grouping keys in their order, then the aggregates
    let agg_names: Vec<String> = df
        .schema()
        .fields()
        .iter()
        .skip(others.len() + 1)
        .take(n_aggs)
        .map(|f| f.name().clone())
        .collect();
    let mut out: Vec<Expr> = keys
        .iter()
        .map(|k| {
            if name_of(k) == "session_window" {
                datafusion::functions::core::expr_fn::named_struct(vec![
                    lit("start"),
                    ident("__start"),
                    lit("end"),
                    ident("__end"),
                ])
                .alias("session_window")
            } else {
                k.clone()
            }
        })
        .collect();
    out.extend(agg_names.iter().map(|n| ident(n.as_str())));
    df.select(out).map_err(plan)
}
