//! A processor's state variables at a restart, checked against those its
//! checkpoint holds with Spark's rules and error conditions, and the
//! values written before read as the variables are now declared.
//!
//! Spark keeps each variable in a column family of its own, so a processor
//! may add or remove variables; a variable keeps its kind. Its value
//! fields are matched by position with the default (unsaferow) encoding,
//! which allows renames only, and by name with the avro encoding, which
//! allows fields added (nullable: they read null), removed, reordered and
//! widened (Avro's schema resolution). sparklet keeps a key's variables in
//! one stored struct (see `group_state`): a file written with an earlier
//! struct is adapted as it is read (`state::processor_evolution`).

use arrow::datatypes::{DataType, FieldRef, Fields};

use crate::error::{Error, Result};
use crate::state::StateEncoding;

/// The stored struct's field holding the timers (not a variable).
const TIMERS: &str = "__timers";

/// A variable's kind and schemas in the stored struct.
#[derive(PartialEq)]
enum Var<'a> {
    Value(&'a Fields),
    List(&'a Fields),
    Map(&'a Fields, &'a Fields),
}

impl Var<'_> {
    fn kind(&self) -> &'static str {
        match self {
            Var::Value(_) => "ValueState",
            Var::List(_) => "ListState",
            Var::Map(..) => "MapState",
        }
    }

    fn value(&self) -> &Fields {
        match self {
            Var::Value(v) | Var::List(v) | Var::Map(_, v) => v,
        }
    }
}

fn struct_fields<'a>(t: &'a DataType, name: &str) -> Option<&'a Fields> {
    match t {
        DataType::Struct(f) => f.find(name).and_then(|(_, f)| match f.data_type() {
            DataType::Struct(inner) => Some(inner),
            _ => None,
        }),
        _ => None,
    }
}

/// The stored variables: a value is `{value, expiresAt}`, a list a list of
/// them, a map a list of `{key, value, expiresAt}`; `__timers` is not one.
fn variables(state: &FieldRef) -> Vec<(&str, Var<'_>)> {
    let DataType::Struct(vars) = state.data_type() else {
        return Vec::new();
    };
    vars.iter()
        .filter(|f| f.name() != TIMERS)
        .filter_map(|f| {
            let var = match f.data_type() {
                t @ DataType::Struct(_) => Var::Value(struct_fields(t, "value")?),
                DataType::List(item) => {
                    let t = item.data_type();
                    match struct_fields(t, "key") {
                        Some(key) => Var::Map(key, struct_fields(t, "value")?),
                        None => Var::List(struct_fields(t, "value")?),
                    }
                }
                _ => return None,
            };
            Some((f.name().as_str(), var))
        })
        .collect()
}

/// Spark's (Scala) name of a type, as its schema errors print it.
pub(crate) fn spark_type(t: &DataType) -> String {
    match t {
        DataType::Boolean => "BooleanType".into(),
        DataType::Int8 => "ByteType".into(),
        DataType::Int16 => "ShortType".into(),
        DataType::Int32 => "IntegerType".into(),
        DataType::Int64 => "LongType".into(),
        DataType::Float32 => "FloatType".into(),
        DataType::Float64 => "DoubleType".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "StringType".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "BinaryType".into(),
        DataType::Date32 => "DateType".into(),
        DataType::Timestamp(_, Some(_)) => "TimestampType".into(),
        DataType::Timestamp(_, None) => "TimestampNTZType".into(),
        DataType::Decimal128(p, s) => format!("DecimalType({p},{s})"),
        DataType::Struct(fields) => spark_struct(fields),
        DataType::List(item) => format!("ArrayType({},true)", spark_type(item.data_type())),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "MapType({},{},true)",
                spark_type(kv[0].data_type()),
                spark_type(kv[1].data_type())
            ),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// `StructType(StructField(n,LongType,true),...)`.
fn spark_struct(fields: &Fields) -> String {
    let inner: Vec<String> = fields
        .iter()
        .map(|f| {
            format!(
                "StructField({},{},{})",
                f.name(),
                spark_type(f.data_type()),
                f.is_nullable()
            )
        })
        .collect();
    format!("StructType({})", inner.join(","))
}

/// Types by position, names aside (what the unsaferow encoding stores).
fn same_by_position(a: &Fields, b: &Fields) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|(x, y)| x.data_type() == y.data_type())
}

/// Whether Avro's schema resolution reads a `from` value as a `to` one:
/// the same type, or a promotion (int to long, float or double, long to
/// float or double, float to double, string to and from bytes); records
/// by field name, where a field only `to` has must be nullable.
fn avro_reads(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Struct(a), Struct(b)) => avro_reads_fields(a, b),
        (List(a), List(b)) => avro_reads(a.data_type(), b.data_type()),
        (Int8 | Int16 | Int32, Int64 | Float32 | Float64) => true,
        (Int8, Int16 | Int32) | (Int16, Int32) => true,
        (Int64, Float32 | Float64) | (Float32, Float64) => true,
        (Utf8, Binary) | (Binary, Utf8) => true,
        _ => false,
    }
}

fn avro_reads_fields(from: &Fields, to: &Fields) -> bool {
    to.iter().all(|t| match from.find(t.name()) {
        Some((_, f)) => {
            avro_reads(f.data_type(), t.data_type()) && (t.is_nullable() || !f.is_nullable())
        }
        None => t.is_nullable(),
    })
}

/// Refuse a processor's restart whose state variables cannot be read as
/// it now declares them (`old` and `new`: the stored value's fields,
/// `state` first).
pub fn check_restart(old: &[FieldRef], new: &[FieldRef], encoding: StateEncoding) -> Result<()> {
    let (Some(old_state), Some(new_state)) = (old.first(), new.first()) else {
        return Ok(());
    };
    if old_state == new_state {
        return Ok(());
    }
    let before = variables(old_state);
    for (name, var) in variables(new_state) {
        let Some((_, was)) = before.iter().find(|(n, _)| *n == name) else {
            continue; // an added variable starts empty
        };
        if was.kind() != var.kind() {
            return Err(Error::Checkpoint {
                condition: "STATE_STORE_INVALID_VARIABLE_TYPE_CHANGE".into(),
                message: format!(
                    "Cannot change {name} to {} between query restarts. Please set {name} to {}, or restart with a new checkpointLocation.",
                    var.kind(),
                    was.kind()
                ),
            });
        }
        if let (Var::Map(was_key, _), Var::Map(key, _)) = (was, &var) {
            if !same_by_position(was_key, key) {
                return Err(Error::Checkpoint {
                    condition: "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE".into(),
                    message: format!(
                        "Provided key schema does not match existing state key schema.\nPlease check number and type of fields.\nExisting key_schema={} and new key_schema={}.\n(the user key of map state '{name}')",
                        spark_struct(was_key),
                        spark_struct(key)
                    ),
                });
            }
        }
        let (was, now) = (was.value(), var.value());
        match encoding {
            StateEncoding::UnsafeRow if !same_by_position(was, now) => {
                return Err(Error::Checkpoint {
                    condition: "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE".into(),
                    message: format!(
                        "Provided value schema does not match existing state value schema.\nPlease check number and type of fields.\nExisting value_schema={} and new value_schema={}.\n(state variable '{name}')",
                        spark_struct(was),
                        spark_struct(now)
                    ),
                });
            }
            StateEncoding::Avro if !avro_reads_fields(was, now) => {
                return Err(Error::Checkpoint {
                    condition: "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION".into(),
                    message: format!(
                        "Schema evolution is not possible new value_schema={} and old value_schema={}\nPlease check https://avro.apache.org/docs/1.11.1/specification/_print/#schema-resolution for valid schema evolution.\n(state variable '{name}')",
                        spark_struct(now),
                        spark_struct(was)
                    ),
                });
            }
            _ => {}
        }
    }
    Ok(())
}
