//! Streaming-only plan nodes (DataFusion `Extension`s) and the query planner
//! that turns them into physical operators.

pub mod adaptive_join;
pub mod cast_overflow;
pub mod column_origin;
pub mod hold_filters;
pub mod ident_case;
pub mod output_mode;
pub mod partitions;
pub mod planner;
pub mod short_circuit;
pub mod spark_casts;
pub mod spark_dialect;
pub mod spark_division;
pub mod spark_names;
pub mod spark_remainder;
pub mod spark_types;
pub mod sql_names;
pub mod sql_operators;
pub mod sql_tvf;
pub mod sql_windows;
pub mod struct_leaves;
pub mod unsupported;
pub mod window_nulls;
