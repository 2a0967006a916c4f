//! Which Parquet column types a read's schema may ask for: the conversions
//! Spark's Parquet reader makes (the same type, or a widening: a smaller
//! integer to a larger one, to `double` or to a decimal that holds it,
//! `float` to `double`, a date to `timestamp_ntz`, a decimal to one with
//! room for its digits). Any other asked-for type is Spark's
//! `FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH`, naming the file and
//! the column, where casting would silently change the values.

use arrow::datatypes::{DataType, Schema};

use crate::error::{Error, Result};
use crate::plan::spark_names::type_name;

/// Check that each column of `wanted` found in the file `path` (whose
/// columns are `file`) can be read as its type.
pub fn check(path: &str, file: &Schema, wanted: &Schema) -> Result<()> {
    for f in wanted.fields() {
        let Ok(found) = file.field_with_name(f.name()) else {
            continue; // a missing column reads as nulls
        };
        if !readable_as(found.data_type(), f.data_type()) {
            let url = if path.starts_with('/') {
                format!("file://{path}")
            } else {
                path.to_string()
            };
            return Err(Error::Input {
                condition: "FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH".into(),
                message: format!(
                    "Encountered error while reading file {url}. Data type mismatches when reading Parquet column [{}]. \
                     Expected Spark type {}, actual Parquet type {}.",
                    f.name(),
                    type_name(f.data_type()).to_lowercase(),
                    parquet_type(found.data_type()),
                ),
            });
        }
    }
    Ok(())
}

/// Whether a Parquet column read as `from` may be read as `to`.
fn readable_as(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let digits = |p: &u8, s: &i8| i16::from(*p) - i16::from(*s);
    match (from, to) {
        (a, b) if a == b => true,
        (Int8 | Int16 | Int32, Int8 | Int16 | Int32 | Int64 | Float64) => true,
        (Int8 | Int16 | Int32, Decimal128(p, s)) => digits(p, s) >= 10,
        (Int64, Decimal128(p, s)) => digits(p, s) >= 20,
        (Float32, Float64) => true,
        (
            Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView,
            Utf8 | LargeUtf8 | Utf8View,
        )
        | (Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView, Binary | LargeBinary) => {
            true
        }
        (Date32, Timestamp(_, None)) => true,
        (Decimal128(p1, s1), Decimal128(p2, s2)) => s2 >= s1 && digits(p2, s2) >= digits(p1, s1),
        // an instant is not a local time: Spark refuses it as timestamp_ntz
        (Timestamp(_, Some(_)), Timestamp(_, None)) => false,
        (Timestamp(_, _), Timestamp(_, _)) => true,
        (Struct(a), Struct(b)) => b.iter().all(|f| {
            a.iter()
                .find(|x| x.name() == f.name())
                .is_none_or(|x| readable_as(x.data_type(), f.data_type()))
        }),
        (List(a) | LargeList(a), List(b) | LargeList(b)) => {
            readable_as(a.data_type(), b.data_type())
        }
        (Map(_, _), Map(_, _)) => true,
        _ => false,
    }
}

/// The Parquet type name Spark reports for a column arrow reads as `t`.
fn parquet_type(t: &DataType) -> String {
    use DataType::*;
    match t {
        Boolean => "BOOLEAN".into(),
        Int8 | Int16 | Int32 | UInt8 | UInt16 | Date32 => "INT32".into(),
        Int64 | UInt32 | UInt64 | Timestamp(_, _) => "INT64".into(),
        Float32 => "FLOAT".into(),
        Float64 => "DOUBLE".into(),
        Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView => "BINARY".into(),
        FixedSizeBinary(_) | Decimal128(_, _) => "FIXED_LEN_BYTE_ARRAY".into(),
        other => type_name(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::Field;

    #[test]
    fn widenings_read_and_narrowings_refuse_naming_the_column() {
        assert!(readable_as(&DataType::Int32, &DataType::Int64));
        assert!(readable_as(&DataType::Int32, &DataType::Decimal128(12, 2)));
        assert!(!readable_as(&DataType::Int32, &DataType::Decimal128(5, 2)));
        assert!(!readable_as(&DataType::Float64, &DataType::Int64));
        assert!(!readable_as(&DataType::Float64, &DataType::Float32));
        assert!(!readable_as(&DataType::Int32, &DataType::Utf8));
        let file = Schema::new(vec![Field::new("x", DataType::Float64, true)]);
        let wanted = Schema::new(vec![Field::new("x", DataType::Int64, true)]);
        let err = check("/d/a.parquet", &file, &wanted)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("file:///d/a.parquet") && err.contains("column [x]"),
            "{err}"
        );
        assert!(
            err.contains("Expected Spark type bigint, actual Parquet type DOUBLE"),
            "{err}"
        );
    }
}
