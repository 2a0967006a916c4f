//! A processor's state variables at a restart, checked against those its
//! checkpoint holds, with Spark's error conditions. Spark keeps each
//! variable in a column family of its own and so lets a processor add or
//! remove variables, rename value fields (and, with the avro encoding,
//! add, remove, reorder and widen them); sparklet keeps a key's variables
//! in one stored struct (see `group_state`) and cannot yet rewrite it, so
//! it refuses those changes with a message that says so.

use arrow::datatypes::{DataType, FieldRef, Fields};

use crate::error::{Error, Result};

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
        .filter(|f| f.name() != "__timers")
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
fn spark_type(t: &DataType) -> String {
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

/// Refuse a processor's restart whose state variables differ from the
/// stored ones (`old` and `new`: the stored value's fields, `state` first).
pub fn check_restart(old: &[FieldRef], new: &[FieldRef], dir: &std::path::Path) -> Result<()> {
    let (Some(old_state), Some(new_state)) = (old.first(), new.first()) else {
        return Ok(());
    };
    if old_state == new_state {
        return Ok(());
    }
    let (before, now) = (variables(old_state), variables(new_state));
    let names = |vars: &[(&str, Var)]| vars.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    for (name, var) in &now {
        let Some((_, was)) = before.iter().find(|(n, _)| n == name) else {
            continue;
        };
        if was.kind() != var.kind() {
            return Err(Error::Checkpoint {
                condition: "STATE_STORE_INVALID_VARIABLE_TYPE_CHANGE".into(),
                message: format!(
                    "Cannot change {name} to {} between query restarts. Please set {name} to {}, or restart with a new checkpoint directory.",
                    var.kind(),
                    was.kind()
                ),
            });
        }
        if was == var {
            continue;
        }
        let types = |f: &Fields| f.iter().map(|f| f.data_type().clone()).collect::<Vec<_>>();
        if types(was.value()) != types(var.value()) {
            return Err(Error::Checkpoint {
                condition: "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE".into(),
                message: format!(
                    "Provided value schema does not match existing state value schema.\nPlease check number and type of fields.\nExisting value_schema={} and new value_schema={}.\n(state variable '{name}' of the processor whose state is at {})",
                    spark_struct(was.value()),
                    spark_struct(var.value()),
                    dir.display()
                ),
            });
        }
    }
    Err(Error::Checkpoint {
        condition: "CHECKPOINT_INCOMPATIBLE".into(),
        message: format!(
            "The processor's state at {} holds the state variables [{}] as {}, but the processor now declares [{}] as {}. \
             Spark can add or remove state variables and rename their fields across restarts; sparklet cannot yet. \
             Keep the processor's state variables as they were, or use a new checkpointLocation.",
            dir.display(),
            names(&before),
            spark_type(old_state.data_type()),
            names(&now),
            spark_type(new_state.data_type()),
        ),
    })
}
