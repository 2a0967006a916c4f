//! The SQL dialect sparklet's own parsing of SQL text uses: DataFusion's
//! Databricks dialect, which is Spark's, plus Spark's `a DIV b` (integral
//! division), which that dialect cannot read ([`super::sql_operators`]
//! rewrites it into a call DataFusion plans).

use datafusion::sql::sqlparser::ast::{BinaryOperator, Expr};
use datafusion::sql::sqlparser::dialect::{DatabricksDialect, Dialect};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};

/// The Databricks dialect DataFusion plans with, which also reads Spark's
/// `a DIV b` (an infix operator as tight as `*`).
#[derive(Debug)]
pub struct SparkDialect;

impl Dialect for SparkDialect {
    /// The parser's dialect checks take it for Databricks.
    fn dialect(&self) -> std::any::TypeId {
        std::any::TypeId::of::<DatabricksDialect>()
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        DatabricksDialect.is_delimited_identifier_start(ch)
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        DatabricksDialect.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        DatabricksDialect.is_identifier_part(ch)
    }
    fn supports_numeric_prefix(&self) -> bool {
        DatabricksDialect.supports_numeric_prefix()
    }
    fn supports_filter_during_aggregation(&self) -> bool {
        DatabricksDialect.supports_filter_during_aggregation()
    }
    fn supports_group_by_expr(&self) -> bool {
        DatabricksDialect.supports_group_by_expr()
    }
    fn supports_table_versioning(&self) -> bool {
        DatabricksDialect.supports_table_versioning()
    }
    fn supports_lambda_functions(&self) -> bool {
        DatabricksDialect.supports_lambda_functions()
    }
    fn supports_select_wildcard_except(&self) -> bool {
        DatabricksDialect.supports_select_wildcard_except()
    }
    fn require_interval_qualifier(&self) -> bool {
        DatabricksDialect.require_interval_qualifier()
    }
    fn supports_struct_literal(&self) -> bool {
        DatabricksDialect.supports_struct_literal()
    }
    fn supports_nested_comments(&self) -> bool {
        DatabricksDialect.supports_nested_comments()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        DatabricksDialect.supports_group_by_with_modifier()
    }
    fn supports_values_as_table_factor(&self) -> bool {
        DatabricksDialect.supports_values_as_table_factor()
    }
    fn supports_optimize_table(&self) -> bool {
        DatabricksDialect.supports_optimize_table()
    }
    fn supports_bang_not_operator(&self) -> bool {
        DatabricksDialect.supports_bang_not_operator()
    }
    fn supports_cte_without_as(&self) -> bool {
        DatabricksDialect.supports_cte_without_as()
    }
    fn supports_select_item_multi_column_alias(&self) -> bool {
        DatabricksDialect.supports_select_item_multi_column_alias()
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if !parser.parse_keyword(Keyword::DIV) {
            return None;
        }
        // the right side binds as tightly as DIV: `a DIV b * c` is `(a DIV b) * c`
        Some(
            parser
                .parse_subexpr(precedence)
                .map(|right| Expr::BinaryOp {
                    left: Box::new(expr.clone()),
                    op: BinaryOperator::MyIntegerDivide,
                    right: Box::new(right),
                }),
        )
    }
}
