//! Flink-style window table functions in SQL. DataFusion's parser has no
//! `TABLE t` or `DESCRIPTOR(col)` arguments, so a query's
//!
//! - `TUMBLE(TABLE t, DESCRIPTOR(ts), size[, offset])`,
//! - `HOP(TABLE t, DESCRIPTOR(ts), slide, size[, offset])`,
//! - `CUMULATE(TABLE t, DESCRIPTOR(ts), step, size[, offset])`
//!
//! - `SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)`
//!
//! (optionally wrapped in `TABLE(...)`, as Flink writes them) are rewritten
//! before parsing into subqueries over `t` that add `window_start`,
//! `window_end` and `window_time` columns: one row per window holding the
//! row. `GROUP BY window_start, window_end` then aggregates them, and with a
//! watermark on `t` the aggregation treats `window_end` as its event time
//! (state evicted and append-mode rows emitted once the watermark passes it).
//! Sessions must merge, which only a session-window aggregation does: after
//! planning, [`merge_sessions`] turns a `GROUP BY window_start, window_end`
//! over `SESSION` rows into a `session_window` aggregation.

use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::functions::core::expr_fn::get_field;
use datafusion::logical_expr::{ident, Expr, LogicalPlan};

use crate::error::{Error, Result};

/// Spark SQL function names DataFusion spells otherwise (same arguments);
/// `map(k, v, ...)` is sparklet's (DataFusion's planner refuses `map()`).
const RENAMED: [(&str, &str); 2] = [("explode", "unnest"), ("map", "spark_map")];

/// `sql` with Spark's function names DataFusion spells otherwise renamed.
pub fn rename_functions(sql: &str) -> String {
    let names: Vec<&str> = RENAMED.iter().map(|(from, _)| *from).collect();
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some((at, name)) = find_call(rest, &names) {
        let to = RENAMED
            .iter()
            .find(|(from, _)| from.eq_ignore_ascii_case(name))
            .map_or(name, |(_, to)| *to);
        out.push_str(&rest[..at]);
        out.push_str(to);
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

/// The query with its window table functions rewritten (unchanged when it
/// has none) and Spark's function names DataFusion spells otherwise renamed.
pub fn rewrite(sql: &str) -> Result<String> {
    let sql = rename_functions(sql);
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql.as_str();
    while let Some((at, kind)) = find_call(rest, &KINDS) {
        let (before, call) = rest.split_at(at);
        let open = call[kind.len()..]
            .find('(')
            .map(|i| kind.len() + i)
            .ok_or_else(|| Error::Internal("a window function without arguments".into()))?;
        let close = matching(call, open).ok_or_else(|| {
            Error::analysis(
                "PARSE_SYNTAX_ERROR",
                format!("unbalanced parentheses after {kind}"),
            )
        })?;
        let args = split_args(&call[open + 1..close]);
        // Flink's `FROM TABLE(TUMBLE(...))`: drop the wrapper too
        let trimmed = before.trim_end();
        let (before, tail) = match strip_table_open(trimmed) {
            Some(b) => {
                let after = &call[close + 1..];
                let end = after.find(')').ok_or_else(|| {
                    Error::analysis(
                        "PARSE_SYNTAX_ERROR",
                        "TABLE( without its closing parenthesis",
                    )
                })?;
                (b, &after[end + 1..])
            }
            None => (before, &call[close + 1..]),
        };
        out.push_str(before);
        out.push_str(&subquery(&kind.to_ascii_uppercase(), &args)?);
        rest = tail;
    }
    out.push_str(rest);
    Ok(out)
}

const KINDS: [&str; 4] = ["TUMBLE", "HOP", "CUMULATE", "SESSION"];

/// The column a `SESSION` subquery adds: each row's own session, which
/// [`merge_sessions`] groups by.
pub const SESSION_COLUMN: &str = "__session_tvf";

/// The first call of one of `names` outside quotes: its position and name.
fn find_call<'a>(sql: &'a str, names: &[&str]) -> Option<(usize, &'a str)> {
    let bytes = sql.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None if c == b'\'' || c == b'"' || c == b'`' => quote = Some(c),
            None => {
                let boundary =
                    i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
                if boundary {
                    for kind in names {
                        let end = i + kind.len();
                        // bytes, not str slices: `end` may fall inside a
                        // multi-byte character (a match is ASCII, so a
                        // matched `end` is a character boundary)
                        if end <= bytes.len()
                            && bytes[i..end].eq_ignore_ascii_case(kind.as_bytes())
                            && sql[end..].trim_start().starts_with('(')
                        {
                            return Some((i, &sql[i..end]));
                        }
                    }
                }
            }
        }
        i += 1;
    }
    None
}

/// The index of the parenthesis closing the one at `open`.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// Arguments split at top-level commas, trimmed.
fn split_args(s: &str) -> Vec<String> {
    let (mut args, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0, None);
    for c in s.chars() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    args.push(cur.trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            },
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        args.push(cur.trim().to_string());
    }
    args
}

/// `text` without a trailing `TABLE(` (Flink's wrapper), if it has one.
fn strip_table_open(text: &str) -> Option<&str> {
    let t = text.strip_suffix('(')?.trim_end();
    let cut = t.len().checked_sub(5)?;
    (t.is_char_boundary(cut) && t[cut..].eq_ignore_ascii_case("TABLE")).then(|| &t[..cut])
}

/// The argument after a keyword (`TABLE t` -> `t`, `DESCRIPTOR(ts)` -> `ts`).
fn keyword_arg<'a>(arg: &'a str, keyword: &str, kind: &str) -> Result<&'a str> {
    let bad = || {
        Error::analysis(
            "PARSE_SYNTAX_ERROR",
            format!("{kind}(TABLE t, DESCRIPTOR(ts), ...) expected; got `{arg}` where {keyword} was expected"),
        )
    };
    let head = arg.get(..keyword.len()).ok_or_else(bad)?;
    if !head.eq_ignore_ascii_case(keyword) {
        return Err(bad());
    }
    let rest = arg[keyword.len()..].trim();
    if keyword == "DESCRIPTOR" {
        return rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or_else(bad);
    }
    (!rest.is_empty()).then_some(rest).ok_or_else(bad)
}

fn subquery(kind: &str, args: &[String]) -> Result<String> {
    let usage = match kind {
        "TUMBLE" => "TUMBLE(TABLE t, DESCRIPTOR(ts), size[, offset])",
        "HOP" => "HOP(TABLE t, DESCRIPTOR(ts), slide, size[, offset])",
        "SESSION" => "SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)",
        _ => "CUMULATE(TABLE t, DESCRIPTOR(ts), step, size[, offset])",
    };
    let wanted = match kind {
        "TUMBLE" => 3..=4,
        "SESSION" => 3..=3,
        _ => 4..=5,
    };
    if !wanted.contains(&args.len()) {
        return Err(Error::analysis(
            "WRONG_NUM_ARGS",
            format!(
                "{usage} takes {} to {} arguments, got {}",
                wanted.start(),
                wanted.end(),
                args.len()
            ),
        ));
    }
    let table = keyword_arg(&args[0], "TABLE", kind)?;
    let ts = keyword_arg(&args[1], "DESCRIPTOR", kind)?;
    if kind == "SESSION" {
        // the partition keys are the other GROUP BY keys; the table is its first word
        let table = table.split_whitespace().next().unwrap_or(table);
        return Ok(format!(
            "(SELECT *, get_field({SESSION_COLUMN}, 'start') AS window_start, \
             get_field({SESSION_COLUMN}, 'end') AS window_end \
             FROM (SELECT *, session_window({ts}, {gap}) AS {SESSION_COLUMN} FROM {table}))",
            gap = args[2]
        ));
    }
    let offset = |i: usize| args.get(i).map(|o| format!(", {o}")).unwrap_or_default();
    let windows = match kind {
        "TUMBLE" => format!("window({ts}, {size}, {size}{})", offset(3), size = args[2]),
        // window_list(ts, size, slide, offset): one row per window
        "HOP" => format!(
            "unnest(window_list({ts}, {}, {}{}))",
            args[3],
            args[2],
            offset(4)
        ),
        _ => format!(
            "unnest(window_cumulate({ts}, {}, {}{}))",
            args[2],
            args[3],
            offset(4)
        ),
    };
    Ok(format!(
        "(SELECT * EXCEPT (__window), get_field(__window, 'start') AS window_start, \
         get_field(__window, 'end') AS window_end, window_time(__window) AS window_time \
         FROM (SELECT *, {windows} AS __window FROM {table}))"
    ))
}

/// Each aggregation of `SESSION` rows by `window_start, window_end` (and
/// other keys) as a `session_window` aggregation, so that sessions merge;
/// its output keeps the names (and qualifiers) the query refers to.
pub fn merge_sessions(df: DataFrame) -> Result<DataFrame> {
    use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
    let (state, plan) = df.into_parts();
    let rewritten = plan
        .transform_up(|node| {
            let LogicalPlan::Aggregate(agg) = &node else {
                return Ok(Transformed::no(node));
            };
            let column = |e: &Expr, name: &str| matches!(e, Expr::Column(c) if c.name == name);
            let by_window = ["window_start", "window_end"]
                .iter()
                .all(|n| agg.group_expr.iter().any(|g| column(g, n)));
            let Some((qualifier, _)) = agg
                .input
                .schema()
                .iter()
                .find(|(_, f)| f.name() == SESSION_COLUMN)
            else {
                return Ok(Transformed::no(node));
            };
            if !by_window {
                return Ok(Transformed::no(node));
            }
            let mut group: Vec<Expr> = agg
                .group_expr
                .iter()
                .filter(|g| !column(g, "window_start") && !column(g, "window_end"))
                .cloned()
                .collect();
            group.push(
                Expr::Column(Column::new(qualifier.cloned(), SESSION_COLUMN))
                    .alias("session_window"),
            );
            let input = DataFrame::new(state.clone(), agg.input.as_ref().clone());
            let merged = crate::dataframe::aggregate(
                input,
                group,
                agg.aggr_expr.clone(),
                &crate::grouping::Grouping::Plain,
            )
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
            // back to the aggregate's columns: the session's bounds as
            // window_start/window_end, the rest by name
            let field = |f: &str| get_field(ident("session_window"), f);
            let out: Vec<Expr> = agg
                .schema
                .iter()
                .map(|(q, f)| {
                    // other keys keep their qualifier; aggregates have none
                    let e = match f.name().as_str() {
                        "window_start" => field("start"),
                        "window_end" => field("end"),
                        name => Expr::Column(Column::new(q.cloned(), name)),
                    };
                    e.alias_qualified(q.cloned(), f.name())
                })
                .collect();
            let projected = merged.select(out)?;
            Ok(Transformed::yes(projected.into_parts().1))
        })
        .data()
        .map_err(Error::from_planning)?;
    Ok(DataFrame::new(state, rewritten))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_each_function_and_leaves_the_rest() -> Result<()> {
        let sql = "SELECT window_start, count(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) \
                   WHERE page <> 'TUMBLE(' GROUP BY window_start, window_end";
        let out = rewrite(sql)?;
        assert!(out.contains(
            "window(ts, INTERVAL '10' SECOND, INTERVAL '10' SECOND) AS __window FROM clicks))"
        ));
        assert!(out.starts_with("SELECT window_start, count(*) FROM (SELECT * EXCEPT (__window)"));
        assert!(out.ends_with("WHERE page <> 'TUMBLE(' GROUP BY window_start, window_end"));
        let hop = rewrite("SELECT * FROM hop(TABLE t, DESCRIPTOR(ts), '5 seconds', '10 seconds')")?;
        assert!(hop.contains("unnest(window_list(ts, '10 seconds', '5 seconds'))"));
        let cum = rewrite(
            "SELECT * FROM CUMULATE(TABLE t, DESCRIPTOR(ts), '1 minute', '1 hour', '5 minutes')",
        )?;
        assert!(cum.contains("unnest(window_cumulate(ts, '1 minute', '1 hour', '5 minutes'))"));
        assert_eq!(
            rewrite("SELECT hop_count FROM t")?,
            "SELECT hop_count FROM t"
        );
        Ok(())
    }

    #[test]
    fn bad_calls_are_named() {
        let err = rewrite("SELECT * FROM TUMBLE(clicks, DESCRIPTOR(ts), '1 minute')")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("TABLE was expected"), "{err}");
        let err = rewrite("SELECT * FROM HOP(TABLE t, DESCRIPTOR(ts), '1 minute')")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("takes 4 to 5 arguments"), "{err}");
    }

    #[test]
    fn text_beside_multi_byte_characters_is_scanned_without_panicking() -> Result<()> {
        // a name's length from `true` reaches inside the emoji's bytes
        let sql = "SELECT true, 'é😀', map('k', 1), exp😀(1) FROM t";
        assert_eq!(
            rewrite(sql)?,
            "SELECT true, 'é😀', spark_map('k', 1), exp😀(1) FROM t"
        );
        Ok(())
    }
}
