//! Spark SQL operators DataFusion's SQL planner lacks or names otherwise,
//! rewritten in the parsed query before planning:
//!
//! - `a RLIKE p` / `a REGEXP p` (planning fails on them) become
//!   `rlike(a, p)`, which Spark names `RLIKE(a, p)` either way;
//! - `TRIM(BOTH x FROM s)` becomes `TRIM(x FROM s)`: the same call, but
//!   DataFusion plans `BOTH` as `btrim`, which Spark names `btrim(s, x)`
//!   only when written so;
//! - `a[i]` / `m[k]` become `get_item(a, i)`: Spark counts an array's
//!   elements from 0 (DataFusion's subscript from 1), raises past the end,
//!   and names the column `a[i]`;
//! - `0L`, `1.5D`, `1.25BD` and their kin become casts of the number;
//! - `substr(s, p, n)` / `substring(s FROM p FOR n)` become calls of the
//!   function by its quoted name: the parser reads them as SQL's
//!   `SUBSTRING`, which DataFusion plans as its own `substr` (a position of
//!   0 or below counts differently from Spark's), not the registered one;
//! - `struct(a, b + 1)` becomes `named_struct('a', a, 'col2', b + 1)`: Spark
//!   names a struct's fields after its columns (`col1`, `col2`... for other
//!   expressions), DataFusion `c0`, `c1`...; the column is still named
//!   `struct(a, (b + 1))` ([`super::spark_names`]);
//! - `a DIV b` (which the parser's Databricks dialect cannot read) becomes
//!   `div(a, b)`, Spark's integral division, named `(a div b)`.
//!
//! A query without them is passed on as written (the rewrite prints the
//! parsed query back, so it is only done when something changed).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, AccessExpr, BinaryOperator, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, Subscript, TrimWhereField, VisitMut,
};
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;

use super::spark_dialect::SparkDialect;

/// `sql` (statements) with the operators above rewritten.
pub fn rewrite_query(sql: &str) -> String {
    if !mentions_rewritten(sql) {
        return sql.to_string();
    }
    let Ok(mut statements) = Parser::parse_sql(&SparkDialect, sql) else {
        return sql.to_string(); // the planner reports the syntax error
    };
    if !rewrite_all(&mut statements) {
        return sql.to_string();
    }
    let texts: Vec<String> = statements.iter().map(ToString::to_string).collect();
    texts.join(";\n")
}

/// A SQL expression's `text` (`df.filter("s RLIKE 'x'")`) with the
/// operators above rewritten.
pub fn rewrite_expr(text: &str) -> String {
    if !mentions_rewritten(text) {
        return text.to_string();
    }
    // the whole text as a select item: an expression, and its `AS alias`
    // when it has one (an expression alone would leave the alias out)
    let parsed = Parser::new(&SparkDialect)
        .try_with_sql(text)
        .and_then(|mut p| {
            let item = p.parse_select_item()?;
            Ok((p.peek_token().token == Token::EOF).then_some(item))
        });
    let Ok(Some(mut item)) = parsed else {
        return text.to_string();
    };
    if rewrite_all(&mut item) {
        item.to_string()
    } else {
        text.to_string()
    }
}

/// Rewrite every expression of `tree`; whether any changed.
fn rewrite_all(tree: &mut impl VisitMut) -> bool {
    let mut changed = false;
    let _ = visit_expressions_mut(tree, |e| {
        changed |= rewrite(e);
        ControlFlow::<()>::Continue(())
    });
    changed
}

/// `text` parsed as one expression (None: not one).
fn parse_expr(text: &str) -> Option<Expr> {
    Parser::new(&SparkDialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .ok()
}

/// Cheap test before parsing: only text naming an operator above can change.
fn mentions_rewritten(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    let suffixed = upper
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && b"LYSDFB".contains(&w[1]));
    suffixed
        || ["RLIKE", "REGEXP", "BOTH", "[", "STRUCT", "SUBSTR", "DIV"]
            .iter()
            .any(|w| upper.contains(w))
}

/// `0L` and its kin: the literal as Spark's cast function of its type.
fn suffixed_literal(word: &str) -> Option<String> {
    let upper = word.to_ascii_uppercase();
    let (digits, cast) = [
        ("BD", "decimal"),
        ("L", "bigint"),
        ("Y", "tinyint"),
        ("S", "smallint"),
        ("D", "double"),
        ("F", "float"),
    ]
    .iter()
    .find_map(|(suffix, cast)| upper.strip_suffix(suffix).map(|d| (d, *cast)))?;
    let number = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.chars().filter(|c| *c == '.').count() <= 1
        && digits.chars().next().is_some_and(|c| c.is_ascii_digit());
    let integral = !digits.contains('.');
    match cast {
        _ if !number => None,
        "decimal" if integral => Some(format!("CAST({digits} AS DECIMAL({}, 0))", digits.len())),
        "decimal" => {
            let scale = digits.len() - digits.find('.')? - 1;
            Some(format!(
                "CAST({digits} AS DECIMAL({}, {scale}))",
                digits.len() - 1
            ))
        }
        "bigint" | "tinyint" | "smallint" if !integral => None,
        _ => Some(format!("{cast}({digits})")),
    }
}

/// Rewrite one expression node; whether it changed.
fn rewrite(e: &mut Expr) -> bool {
    match e {
        Expr::RLike {
            negated,
            expr,
            pattern,
            ..
        } => {
            let not = if *negated { "NOT " } else { "" };
            parse_expr(&format!("{not}rlike({expr}, {pattern})"))
                .map(|parsed| *e = Expr::Nested(Box::new(parsed)))
                .is_some()
        }
        Expr::Identifier(ident) if ident.quote_style.is_none() => suffixed_literal(&ident.value)
            .and_then(|text| parse_expr(&text))
            .map(|parsed| *e = parsed)
            .is_some(),
        Expr::CompoundFieldAccess { root, access_chain } => {
            let Some(text) = subscripts_as_calls(root, access_chain) else {
                return false;
            };
            parse_expr(&text).map(|parsed| *e = parsed).is_some()
        }
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("struct") => {
            let Some(text) = struct_arguments(&f.args).and_then(|v| named_struct_of(&v)) else {
                return false;
            };
            parse_expr(&text).map(|parsed| *e = parsed).is_some()
        }
        // how the dialect parses `struct(a, b)`
        Expr::Struct { values, fields } if fields.is_empty() => {
            let values: Vec<&Expr> = values.iter().collect();
            let Some(text) = named_struct_of(&values) else {
                return false;
            };
            parse_expr(&text).map(|parsed| *e = parsed).is_some()
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            shorthand,
            ..
        } => {
            let name = if *shorthand { "substr" } else { "substring" };
            let from = substring_from
                .as_ref()
                .map_or_else(|| "1".to_string(), ToString::to_string);
            let length = substring_for
                .as_ref()
                .map(|n| format!(", {n}"))
                .unwrap_or_default();
            parse_expr(&format!("`{name}`({expr}, {from}{length})"))
                .map(|parsed| *e = parsed)
                .is_some()
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::MyIntegerDivide,
            right,
        } => parse_expr(&format!("`div`({left}, {right})"))
            .map(|parsed| *e = parsed)
            .is_some(),
        Expr::Trim {
            trim_where: trim_where @ Some(TrimWhereField::Both),
            trim_what: Some(_),
            ..
        } => {
            *trim_where = None;
            true
        }
        _ => false,
    }
}

/// A `struct(...)` call's arguments (None: an argument of another kind).
fn struct_arguments(args: &FunctionArguments) -> Option<Vec<&Expr>> {
    let FunctionArguments::List(list) = args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(value)) => Some(value),
            _ => None,
        })
        .collect()
}

/// `struct(...)` of `values` as a `named_struct(...)` call's text, each
/// field named as Spark names it: a column by its name, `e AS n` by `n`,
/// any other expression `col<position>` (None: no values).
fn named_struct_of(values: &[&Expr]) -> Option<String> {
    if values.is_empty() {
        return None;
    }
    let pairs: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let (name, value) = match value {
                Expr::Identifier(id) => (id.value.clone(), *value),
                Expr::CompoundIdentifier(parts) => (
                    parts.last().map_or_else(String::new, |p| p.value.clone()),
                    *value,
                ),
                Expr::Named { expr, name } => (name.value.clone(), expr.as_ref()),
                _ => (format!("col{}", i + 1), *value),
            };
            format!("'{}', {value}", name.replace('\'', "''"))
        })
        .collect();
    Some(format!("named_struct({})", pairs.join(", ")))
}

/// `root` and its `chain` of accesses as text, each subscript a call of
/// sparklet's `get_item` (None: no subscript, or a slice).
fn subscripts_as_calls(root: &Expr, chain: &[AccessExpr]) -> Option<String> {
    let mut text = root.to_string();
    let mut subscripted = false;
    for access in chain {
        text = match access {
            AccessExpr::Subscript(Subscript::Index { index }) => {
                subscripted = true;
                format!("{}({text}, {index})", crate::functions::column::GET_ITEM)
            }
            AccessExpr::Subscript(Subscript::Slice { .. }) => return None,
            AccessExpr::Dot(field) => format!("{text}.{field}"),
        };
    }
    subscripted.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rlike_becomes_a_call_and_both_is_dropped() {
        assert_eq!(rewrite_expr("s NOT RLIKE 'a.*'"), "(NOT rlike(s, 'a.*'))");
        assert_eq!(
            rewrite_query("SELECT TRIM(BOTH 'x' FROM s), s REGEXP 'b' FROM t"),
            "SELECT TRIM('x' FROM s), (rlike(s, 'b')) FROM t"
        );
        assert_eq!(
            rewrite_expr("aggregate(xs, 0L, (acc, x) -> acc + x) + 1.5D + 2Y"),
            "aggregate(xs, bigint(0), (acc, x) -> acc + x) + double(1.5) + tinyint(2)"
        );
        assert_eq!(
            rewrite_query("SELECT a[0], m['k'], a[1].f FROM t"),
            "SELECT get_item(a, 0), get_item(m, 'k'), get_item(a, 1).f FROM t"
        );
        assert_eq!(
            rewrite_expr("struct(a, t.b, a + 1)"),
            "named_struct('a', a, 'b', t.b, 'col3', a + 1)"
        );
        assert_eq!(
            rewrite_query("SELECT substr(s, -3), SUBSTRING(s FROM 2 FOR 3) FROM t"),
            "SELECT `substr`(s, -3), `substring`(s, 2, 3) FROM t"
        );
        // an expression's alias stays
        assert_eq!(rewrite_expr("struct(a) AS s"), "named_struct('a', a) AS s");
        assert_eq!(rewrite_expr("s RLIKE 'x' AS m"), "(rlike(s, 'x')) AS m");
        assert_eq!(
            rewrite_query("SELECT struct(a, g) AS s FROM t"),
            "SELECT named_struct('a', a, 'g', g) AS s FROM t"
        );
        let plain = "SELECT regexp_like(s, 'BOTH')  FROM t";
        assert_eq!(rewrite_query(plain), plain);
    }
}
