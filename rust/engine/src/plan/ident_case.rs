//! Spark's SQL matches column names without regard to case
//! (`spark.sql.caseSensitive=false`); DataFusion's planner, with identifier
//! normalization off so that `Name` stays `Name`, matches them exactly. Before
//! planning, each identifier that names no known column as written but
//! exactly one in another case is respelled as the column is.

use std::collections::{HashMap, HashSet};

use datafusion::sql::sqlparser::dialect::DatabricksDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer, Word};

/// `sql` with identifiers respelled to the case of `columns`.
pub fn respell(sql: &str, columns: &[String]) -> String {
    let exact: HashSet<&str> = columns.iter().map(String::as_str).collect();
    let mut by_lower: HashMap<String, HashSet<&str>> = HashMap::new();
    for c in columns {
        by_lower
            .entry(c.to_lowercase())
            .or_default()
            .insert(c.as_str());
    }
    let dialect = DatabricksDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return sql.to_string(); // the planner reports the syntax error
    };
    // byte offset of each line's start (token locations are line, char column)
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(sql.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |line: u64, column: u64| -> Option<usize> {
        let start = *line_starts.get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        let skip = usize::try_from(column).ok()?.checked_sub(1)?;
        sql[start..]
            .char_indices()
            .nth(skip)
            .map(|(i, _)| start + i)
            .or(Some(sql.len()).filter(|_| skip == sql[start..].chars().count()))
    };
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    for (i, t) in tokens.iter().enumerate() {
        let Token::Word(w) = &t.token else { continue };
        if !matches!(w.quote_style, None | Some('`')) || exact.contains(w.value.as_str()) {
            continue;
        }
        // a function's name, or a typed literal's (`DATE '2026-01-01'`), stays
        let next = tokens[i + 1..]
            .iter()
            .find(|n| !matches!(n.token, Token::Whitespace(_)));
        if matches!(
            next.map(|n| &n.token),
            Some(Token::LParen | Token::SingleQuotedString(_))
        ) {
            continue;
        }
        let previous = tokens[..i]
            .iter()
            .rev()
            .find(|n| !matches!(n.token, Token::Whitespace(_)))
            .map(|n| &n.token);
        if !may_name_a_column(w, previous) {
            continue;
        }
        let Some(found) = by_lower
            .get(&w.value.to_lowercase())
            .filter(|f| f.len() == 1)
        else {
            continue;
        };
        let written = w.to_string();
        let Some(start) = offset(t.span.start.line, t.span.start.column) else {
            continue;
        };
        let end = start + written.len();
        if sql.get(start..end) != Some(written.as_str()) || start < copied {
            continue;
        }
        let name = found.iter().next().copied().unwrap_or_default();
        out.push_str(&sql[copied..start]);
        out.push('`');
        out.push_str(&name.replace('`', "``"));
        out.push('`');
        copied = end;
    }
    out.push_str(&sql[copied..]);
    out
}

/// Whether word `w` after `previous` may name a column: not an alias or a
/// type (after `AS`, `::`), and a keyword (`TIMESTAMP`, `DAY`, `VALUE`)
/// only where an expression starts (after `SELECT`, `,`, `(`, an operator,
/// `WHERE`, `BY`, ...), not inside `INTERVAL 1 DAY` or `CAST(x AS DATE)`.
fn may_name_a_column(w: &Word, previous: Option<&Token>) -> bool {
    match previous {
        Some(Token::DoubleColon) => return false,
        Some(Token::Word(p)) if p.keyword == Keyword::AS => return false,
        _ => {}
    }
    if w.keyword == Keyword::NoKeyword || w.quote_style.is_some() {
        return true;
    }
    match previous {
        None => true, // an expression's text starts with it
        Some(Token::Word(p)) => matches!(
            p.keyword,
            Keyword::SELECT
                | Keyword::WHERE
                | Keyword::BY
                | Keyword::AND
                | Keyword::OR
                | Keyword::NOT
                | Keyword::ON
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::HAVING
                | Keyword::DISTINCT
        ),
        Some(t) => matches!(
            t,
            Token::Comma
                | Token::LParen
                | Token::Eq
                | Token::Neq
                | Token::Lt
                | Token::Gt
                | Token::LtEq
                | Token::GtEq
                | Token::Plus
                | Token::Minus
                | Token::Mul
                | Token::Div
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respells_only_names_known_in_another_case() {
        let cols = vec!["Name".to_string(), "age".to_string()];
        assert_eq!(
            respell("name = 1 AND AGE > 2", &cols),
            "`Name` = 1 AND `age` > 2"
        );
        assert_eq!(respell("Name + age", &cols), "Name + age");
        assert_eq!(respell("NAME(age)", &cols), "NAME(age)");
        let ts = vec!["timestamp".to_string(), "day".to_string()];
        assert_eq!(
            respell("SELECT CAST(1.5 AS TIMESTAMP), INTERVAL 1 DAY", &ts),
            "SELECT CAST(1.5 AS TIMESTAMP), INTERVAL 1 DAY"
        );
        assert_eq!(
            respell("SELECT TIMESTAMP FROM t", &ts),
            "SELECT `timestamp` FROM t"
        );
        let both = vec!["a".to_string(), "A".to_string()];
        assert_eq!(respell("a + 1", &both), "a + 1");
    }
}
