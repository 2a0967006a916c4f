//! Spark SQL's type names in SQL text (`CAST(x AS long)`, `ARRAY<short>`):
//! the names and defaults DataFusion's own SQL types lack or read another
//! way. `timestamp` is Spark's session-time-zone timestamp (sparklet's UTC
//! instant), `decimal` alone is `decimal(10,0)`, and `long`, `short`,
//! `byte`, `dec(p,s)`, `binary`, `timestamp_ltz`, `timestamp_ntz`, `void`
//! are accepted.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use datafusion::error::Result;
use datafusion::logical_expr::planner::TypePlanner;
use datafusion::sql::sqlparser::ast::{DataType as SqlType, ExactNumberInfo, TimezoneInfo};

/// Spark's default decimal precision and scale (`DECIMAL` alone).
const DEFAULT_DECIMAL: (u8, i8) = (10, 0);

/// The session's [`TypePlanner`]: Spark's names first, DataFusion's for the rest.
#[derive(Debug, Default)]
pub struct SparkTypes;

impl TypePlanner for SparkTypes {
    fn plan_type_field(&self, sql_type: &SqlType) -> Result<Option<FieldRef>> {
        Ok(spark_type(sql_type).map(|t| Arc::new(Field::new("", t, true))))
    }
}

fn instant() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

fn spark_type(sql_type: &SqlType) -> Option<DataType> {
    Some(match sql_type {
        SqlType::Custom(name, modifiers) if modifiers.is_empty() => {
            match name.to_string().to_ascii_lowercase().as_str() {
                "long" => DataType::Int64,
                "short" => DataType::Int16,
                "byte" => DataType::Int8,
                "timestamp_ltz" => instant(),
                "timestamp_ntz" => DataType::Timestamp(TimeUnit::Microsecond, None),
                "void" => DataType::Null,
                _ => return None,
            }
        }
        SqlType::Timestamp(None, TimezoneInfo::None | TimezoneInfo::WithTimeZone) => instant(),
        SqlType::TimestampNtz(None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        SqlType::Binary(None) => DataType::Binary,
        SqlType::Decimal(ExactNumberInfo::None)
        | SqlType::Numeric(ExactNumberInfo::None)
        | SqlType::Dec(ExactNumberInfo::None) => {
            DataType::Decimal128(DEFAULT_DECIMAL.0, DEFAULT_DECIMAL.1)
        }
        SqlType::Dec(ExactNumberInfo::Precision(p)) => {
            DataType::Decimal128(u8::try_from(*p).ok()?, 0)
        }
        SqlType::Dec(ExactNumberInfo::PrecisionAndScale(p, s)) => {
            DataType::Decimal128(u8::try_from(*p).ok()?, i8::try_from(*s).ok()?)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::ast::{Ident, ObjectName};

    #[test]
    fn spark_names_plan_to_spark_s_types() {
        let custom = |n: &str| SqlType::Custom(ObjectName::from(vec![Ident::new(n)]), vec![]);
        assert_eq!(spark_type(&custom("LONG")), Some(DataType::Int64));
        assert_eq!(spark_type(&custom("short")), Some(DataType::Int16));
        assert_eq!(spark_type(&custom("byte")), Some(DataType::Int8));
        assert_eq!(spark_type(&custom("nope")), None);
        assert_eq!(
            spark_type(&SqlType::Decimal(ExactNumberInfo::None)),
            Some(DataType::Decimal128(10, 0))
        );
        assert_eq!(
            spark_type(&SqlType::Dec(ExactNumberInfo::PrecisionAndScale(5, 2))),
            Some(DataType::Decimal128(5, 2))
        );
        // DataFusion's own reading of a type it knows is kept
        assert_eq!(
            spark_type(&SqlType::Decimal(ExactNumberInfo::Precision(5))),
            None
        );
    }
}
