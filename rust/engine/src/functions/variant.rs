//! Spark's `VARIANT`: semi-structured values from JSON (`parse_json`), read
//! by path (`variant_get`), described (`schema_of_variant`) and edited
//! (`variant_set`, `variant_insert`, `variant_delete`,
//! `variant_array_append`, `variant_strip_nulls`). sparklet holds a variant
//! as its JSON text, objects' keys sorted (as Spark's variant encoding
//! orders them), in a string column whose field is marked
//! [`VARIANT_METADATA_KEY`]; the functions tell a variant argument from a
//! string by that mark.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, StringArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use serde_json::{Map, Value};

use crate::error::kernel_error as error;

/// The field metadata key that marks a string column as a variant.
pub const VARIANT_METADATA_KEY: &str = "sparklet.variant";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    ParseJson,
    /// The value at a path, as text (a scalar as itself, else JSON)
    GetText,
    IsVariantNull,
    IsValidVariant,
    SchemaOf,
    Set {
        create: bool,
    },
    Insert,
    Delete,
    ArrayAppend,
    StripNulls,
    ToVariant,
}

#[derive(Debug)]
struct VariantFunction {
    name: &'static str,
    kind: Kind,
    /// errors as null (`try_` forms)
    lenient: bool,
    signature: Signature,
}

impl PartialEq for VariantFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for VariantFunction {}
impl Hash for VariantFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

/// The variant functions, under Spark's names (`variant_get_text` is
/// `variant_get` before its cast to the target type).
pub(super) fn all() -> Vec<ScalarUDF> {
    let f = |name, kind, lenient| {
        ScalarUDF::new_from_impl(VariantFunction {
            name,
            kind,
            lenient,
            signature: Signature::variadic_any(Volatility::Immutable),
        })
    };
    vec![
        f("parse_json", Kind::ParseJson, false),
        f("try_parse_json", Kind::ParseJson, true),
        f("variant_get_text", Kind::GetText, false),
        f("is_variant_null", Kind::IsVariantNull, false),
        f("is_valid_variant", Kind::IsValidVariant, false),
        f("schema_of_variant", Kind::SchemaOf, false),
        f("variant_set", Kind::Set { create: true }, false),
        f("try_variant_set", Kind::Set { create: true }, true),
        f("variant_insert", Kind::Insert, false),
        f("try_variant_insert", Kind::Insert, true),
        f("variant_delete", Kind::Delete, false),
        f("variant_array_append", Kind::ArrayAppend, false),
        f("try_variant_array_append", Kind::ArrayAppend, true),
        f("variant_strip_nulls", Kind::StripNulls, false),
        f("to_variant_object", Kind::ToVariant, false),
    ]
}

/// A variant field named `name`.
pub fn variant_field(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true).with_metadata(HashMap::from([(
        VARIANT_METADATA_KEY.to_string(),
        "true".to_string(),
    )]))
}

fn is_variant(f: &FieldRef) -> bool {
    f.metadata().contains_key(VARIANT_METADATA_KEY)
}

impl ScalarUDFImpl for VariantFunction {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::IsVariantNull | Kind::IsValidVariant => DataType::Boolean,
            _ => DataType::Utf8,
        })
    }
    fn return_field_from_args(&self, _: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(Arc::new(match self.kind {
            Kind::IsVariantNull | Kind::IsValidVariant => {
                Field::new(self.name, DataType::Boolean, true)
            }
            Kind::GetText | Kind::SchemaOf => Field::new(self.name, DataType::Utf8, true),
            _ => variant_field(self.name),
        }))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let fields = args.arg_fields.clone();
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let Some(first) = arrays.first() else {
            return Err(DataFusionError::Plan(format!(
                "[WRONG_NUM_ARGS] {} takes arguments",
                self.name
            )));
        };
        if self.kind == Kind::ToVariant {
            return Ok(ColumnarValue::Array(to_variant(first)?));
        }
        let texts = cast(first, &DataType::Utf8)?;
        let texts = texts.as_string::<i32>();
        let n = texts.len();
        let row_json = |row: usize| -> Result<Option<Value>> {
            if texts.is_null(row) {
                return Ok(None);
            }
            serde_json::from_str(texts.value(row))
                .map(Some)
                .map_err(|e| {
                    error(
                        "MALFORMED_RECORD_IN_PARSING",
                        format!("{}: '{}' is not JSON ({e})", self.name, texts.value(row)),
                    )
                })
        };
        let out: ArrayRef = match self.kind {
            Kind::ParseJson => {
                let values: Result<StringArray> = (0..n)
                    .map(|row| match row_json(row) {
                        Ok(v) => Ok(v.map(|v| canonical(&v))),
                        Err(_) if self.lenient => Ok(None),
                        Err(e) => Err(e),
                    })
                    .collect();
                Arc::new(values?)
            }
            Kind::IsVariantNull => {
                let values: BooleanArray = (0..n)
                    .map(|row| Some(!texts.is_null(row) && texts.value(row) == "null"))
                    .collect();
                Arc::new(values)
            }
            Kind::IsValidVariant => {
                let values: BooleanArray = (0..n)
                    .map(|row| {
                        (!texts.is_null(row))
                            .then(|| serde_json::from_str::<Value>(texts.value(row)).is_ok())
                    })
                    .collect();
                Arc::new(values)
            }
            Kind::SchemaOf => {
                let values: Result<StringArray> = (0..n)
                    .map(|row| Ok(row_json(row)?.map(|v| schema_of(&v))))
                    .collect();
                Arc::new(values?)
            }
            Kind::StripNulls => {
                let include_arrays = match arrays.get(1) {
                    Some(a) => cast(a, &DataType::Boolean)?.as_boolean().value(0),
                    None => true,
                };
                let values: Result<StringArray> = (0..n)
                    .map(|row| {
                        Ok(row_json(row)?.map(|v| canonical(&strip_nulls(v, include_arrays))))
                    })
                    .collect();
                Arc::new(values?)
            }
            Kind::GetText | Kind::Delete => {
                let paths: Vec<ArrayRef> = arrays[1..]
                    .iter()
                    .map(|p| cast(p, &DataType::Utf8))
                    .collect::<std::result::Result<_, _>>()?;
                let values: Result<StringArray> = (0..n)
                    .map(|row| {
                        let Some(mut v) = row_json(row)? else {
                            return Ok(None);
                        };
                        if self.kind == Kind::GetText {
                            let p = paths[0].as_string::<i32>();
                            if p.is_null(row) {
                                return Ok(None);
                            }
                            let steps = parse_path(self.name, p.value(row))?;
                            return Ok(get(&v, &steps).and_then(as_text));
                        }
                        for p in &paths {
                            let p = p.as_string::<i32>();
                            if p.is_valid(row) {
                                let steps = parse_path(self.name, p.value(row))?;
                                delete(&mut v, &steps);
                            }
                        }
                        Ok(Some(canonical(&v)))
                    })
                    .collect();
                Arc::new(values?)
            }
            Kind::Set { .. } | Kind::Insert | Kind::ArrayAppend => {
                let paths = cast(&arrays[1], &DataType::Utf8)?;
                let paths = paths.as_string::<i32>();
                let new_values = &arrays[2];
                let value_is_variant = fields.get(2).is_some_and(is_variant);
                let create = match self.kind {
                    Kind::Set { create } => match arrays.get(3) {
                        Some(a) => cast(a, &DataType::Boolean)?.as_boolean().value(0),
                        None => create,
                    },
                    _ => true,
                };
                let values: Result<StringArray> = (0..n)
                    .map(|row| {
                        let (Some(mut v), true) = (row_json(row)?, paths.is_valid(row)) else {
                            return Ok(None);
                        };
                        // a null value makes the whole result null, as Spark's
                        if new_values.data_type().is_null() || new_values.is_null(row) {
                            return Ok(None);
                        }
                        let value = json_of(new_values, row, value_is_variant)?;
                        let steps = parse_path(self.name, paths.value(row))?;
                        let done = match self.kind {
                            Kind::Insert => insert(&mut v, &steps, value),
                            Kind::ArrayAppend => match get_mut(&mut v, &steps) {
                                Some(Value::Array(items)) => {
                                    items.push(value);
                                    Ok(())
                                }
                                None => Ok(()),
                                Some(_) => Err("the path does not lead to an array".to_string()),
                            },
                            _ => set(&mut v, &steps, value, create),
                        };
                        match done {
                            Ok(()) => Ok(Some(canonical(&v))),
                            Err(_) if self.lenient => Ok(None),
                            Err(e) => {
                                // Spark's condition for a key inserted twice
                                let condition = if e.contains("exists already") {
                                    "VARIANT_DUPLICATE_KEY"
                                } else {
                                    "INVALID_VARIANT_UPDATE"
                                };
                                Err(error(condition, format!("{}: {e}", self.name)))
                            }
                        }
                    })
                    .collect();
                Arc::new(values?)
            }
            Kind::ToVariant => unreachable!("handled above"),
        };
        Ok(ColumnarValue::Array(out))
    }
}

/// JSON text with objects' keys sorted, no spaces.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// A scalar as its text (a string unquoted), anything else as JSON; null
/// for JSON null.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(_) | Value::Number(_) => Some(v.to_string()),
        other => Some(canonical(other)),
    }
}

/// A JSON value's type as Spark's `schema_of_json` infers it: objects are
/// structs of their fields (sorted), fractions doubles, nulls strings.
pub(super) fn schema_of_json(v: &Value) -> String {
    match v {
        Value::Null | Value::String(_) => "STRING".into(),
        Value::Bool(_) => "BOOLEAN".into(),
        Value::Number(n) if n.is_i64() || n.is_u64() => "BIGINT".into(),
        Value::Number(_) => "DOUBLE".into(),
        Value::Array(items) => {
            let mut types: Vec<String> = items
                .iter()
                .filter(|x| !x.is_null())
                .map(schema_of_json)
                .collect();
            types.dedup();
            let element = match types.as_slice() {
                [one] => one.clone(),
                _ => "STRING".to_string(),
            };
            format!("ARRAY<{element}>")
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}: {}", schema_of_json(&m[*k])))
                .collect();
            format!("STRUCT<{}>", fields.join(", "))
        }
    }
}

/// A value's type as Spark's `schema_of_variant` writes it.
fn schema_of(v: &Value) -> String {
    match v {
        Value::Null => "VOID".into(),
        Value::Bool(_) => "BOOLEAN".into(),
        Value::Number(n) if n.is_i64() || n.is_u64() => "BIGINT".into(),
        Value::Number(n) => match n.to_string().split_once('.') {
            Some((whole, fraction)) if !n.to_string().contains(['e', 'E']) => {
                let scale = fraction.len();
                let precision = whole.trim_start_matches('-').len() + scale;
                format!("DECIMAL({},{scale})", precision.max(scale))
            }
            _ => "DOUBLE".into(),
        },
        Value::String(_) => "STRING".into(),
        Value::Array(items) => {
            let mut types: Vec<String> = items
                .iter()
                .map(schema_of)
                .filter(|t| t != "VOID")
                .collect();
            types.dedup();
            let element = match types.as_slice() {
                [] => "VOID".to_string(),
                [one] => one.clone(),
                _ => "VARIANT".to_string(),
            };
            format!("ARRAY<{element}>")
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}: {}", schema_of(&m[*k])))
                .collect();
            format!("OBJECT<{}>", fields.join(", "))
        }
    }
}

fn strip_nulls(v: Value, include_arrays: bool) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k, strip_nulls(x, include_arrays)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .filter(|x| !(include_arrays && x.is_null()))
                .map(|x| strip_nulls(x, include_arrays))
                .collect(),
        ),
        other => other,
    }
}

/// One step of a variant path: a key (`.a`, `['a']`) or an index (`[0]`).
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(i64),
}

/// `$`, then `.key`, `['key']`, `["key"]` or `[index]` steps.
fn parse_path(function: &str, path: &str) -> Result<Vec<Step>> {
    let bad = || {
        error(
            "INVALID_VARIANT_GET_PATH",
            format!("{function}: '{path}' is not a valid variant path"),
        )
    };
    let rest = path.trim().strip_prefix('$').ok_or_else(bad)?;
    let chars: Vec<char> = rest.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                let mut end = start;
                while end < chars.len() && chars[end] != '.' && chars[end] != '[' {
                    end += 1;
                }
                if end == start {
                    return Err(bad());
                }
                steps.push(Step::Key(chars[start..end].iter().collect()));
                i = end;
            }
            '[' => {
                let close = chars[i..].iter().position(|c| *c == ']').ok_or_else(bad)? + i;
                let inner: String = chars[i + 1..close].iter().collect();
                let inner = inner.trim();
                if let Some(key) = inner
                    .strip_prefix('\'')
                    .and_then(|k| k.strip_suffix('\''))
                    .or_else(|| inner.strip_prefix('"').and_then(|k| k.strip_suffix('"')))
                {
                    steps.push(Step::Key(key.to_string()));
                } else {
                    steps.push(Step::Index(inner.parse().map_err(|_| bad())?));
                }
                i = close + 1;
            }
            _ => return Err(bad()),
        }
    }
    Ok(steps)
}

fn get<'v>(v: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(v, |v, s| match (s, v) {
        (Step::Key(k), Value::Object(m)) => m.get(k),
        (Step::Index(i), Value::Array(items)) if *i >= 0 => items.get(*i as usize),
        _ => None,
    })
}

fn get_mut<'v>(v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    steps.iter().try_fold(v, |v, s| match (s, v) {
        (Step::Key(k), Value::Object(m)) => m.get_mut(k),
        (Step::Index(i), Value::Array(items)) if *i >= 0 => items.get_mut(*i as usize),
        _ => None,
    })
}

fn delete(v: &mut Value, steps: &[Step]) {
    let Some((last, parent)) = steps.split_last() else {
        return;
    };
    match (get_mut(v, parent), last) {
        (Some(Value::Object(m)), Step::Key(k)) => {
            m.remove(k);
        }
        (Some(Value::Array(items)), Step::Index(i)) if *i >= 0 && (*i as usize) < items.len() => {
            items.remove(*i as usize);
        }
        _ => {}
    }
}

/// The error of a path step that meets a value of another kind.
fn mismatch(step: &Step) -> String {
    match step {
        Step::Key(k) => format!("the key '{k}' is on a value that is not an object"),
        Step::Index(i) => format!("the index {i} is on a value that is not an array"),
    }
}

/// The value `parent` leads to (objects made on the way when `create`);
/// None where an array index is past the end (nothing to change), an error
/// where a step meets a value of another kind.
fn walk<'v>(
    v: &'v mut Value,
    parent: &[Step],
    create: bool,
) -> std::result::Result<Option<&'v mut Value>, String> {
    let mut at = v;
    for s in parent {
        at = match step(at, s, create)? {
            Some(next) => next,
            None => return Ok(None),
        };
    }
    Ok(Some(at))
}

/// One step of [`walk`].
fn step<'v>(
    at: &'v mut Value,
    s: &Step,
    create: bool,
) -> std::result::Result<Option<&'v mut Value>, String> {
    match (s, at) {
        (Step::Key(k), Value::Object(m)) => Ok(if create {
            Some(
                m.entry(k.clone())
                    .or_insert_with(|| Value::Object(Map::new())),
            )
        } else {
            m.get_mut(k)
        }),
        (Step::Index(i), Value::Array(items)) => {
            Ok(usize::try_from(*i).ok().and_then(move |i| items.get_mut(i)))
        }
        (s, _) => Err(mismatch(s)),
    }
}

/// `value` at index `i` of `items`: replacing (`set`) or before it; past
/// the end, nulls up to it, as Spark pads.
fn put_at(items: &mut Vec<Value>, i: usize, value: Value, replace: bool) {
    if i < items.len() && replace {
        items[i] = value;
    } else if i <= items.len() {
        items.insert(i, value);
    } else {
        items.resize(i, Value::Null);
        items.push(value);
    }
}

/// `variant_set`: replace the value at the path; with `create`, a missing
/// key (and the objects to it) or index is added.
fn set(
    v: &mut Value,
    steps: &[Step],
    value: Value,
    create: bool,
) -> std::result::Result<(), String> {
    let Some((last, parent)) = steps.split_last() else {
        *v = value;
        return Ok(());
    };
    let Some(at) = walk(v, parent, create)? else {
        return Ok(());
    };
    match (last, at) {
        (Step::Key(k), Value::Object(m)) => {
            if create || m.contains_key(k) {
                m.insert(k.clone(), value);
            }
        }
        (Step::Index(i), Value::Array(items)) if *i >= 0 => {
            if create || (*i as usize) < items.len() {
                put_at(items, *i as usize, value, true);
            }
        }
        (step, _) => return Err(mismatch(step)),
    }
    Ok(())
}

/// `variant_insert`: add a key (an existing one is an error) or put a value
/// before an array's index.
fn insert(v: &mut Value, steps: &[Step], value: Value) -> std::result::Result<(), String> {
    let Some((last, parent)) = steps.split_last() else {
        return Err("the path must name a key or an index to insert at".into());
    };
    let Some(at) = walk(v, parent, true)? else {
        return Ok(());
    };
    match (last, at) {
        (Step::Key(k), Value::Object(m)) => {
            if m.contains_key(k) {
                return Err(format!("the key '{k}' exists already"));
            }
            m.insert(k.clone(), value);
        }
        (Step::Index(i), Value::Array(items)) if *i >= 0 => {
            put_at(items, *i as usize, value, false)
        }
        (step, _) => return Err(mismatch(step)),
    }
    Ok(())
}

/// Row `row` of `values` as JSON: a variant's text parsed, anything else by
/// its value (a string as a JSON string).
fn json_of(values: &ArrayRef, row: usize, is_variant: bool) -> Result<Value> {
    if values.is_null(row) {
        return Ok(Value::Null);
    }
    if is_variant {
        let text = cast(values, &DataType::Utf8)?;
        return serde_json::from_str(text.as_string::<i32>().value(row))
            .map_err(|e| error("MALFORMED_VARIANT", e));
    }
    Ok(match ScalarValue::try_from_array(values, row)? {
        ScalarValue::Boolean(Some(b)) => Value::Bool(b),
        ScalarValue::Int8(Some(i)) => i.into(),
        ScalarValue::Int16(Some(i)) => i.into(),
        ScalarValue::Int32(Some(i)) => i.into(),
        ScalarValue::Int64(Some(i)) => i.into(),
        ScalarValue::UInt64(Some(i)) => i.into(),
        ScalarValue::Float32(Some(f)) => {
            serde_json::Number::from_f64(f64::from(f)).map_or(Value::Null, Value::Number)
        }
        ScalarValue::Float64(Some(f)) => {
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Value::String(s),
        other => Value::String(other.to_string()),
    })
}

/// `to_variant_object`: a struct, map or array as a variant (its JSON).
fn to_variant(values: &ArrayRef) -> Result<ArrayRef> {
    let json = super::udfs::to_json(values)?;
    let texts = json.as_string::<i32>();
    let out: StringArray = texts
        .iter()
        .map(|t| {
            t.and_then(|t| serde_json::from_str::<Value>(t).ok())
                .map(|v| canonical(&v))
        })
        .collect();
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(json: &str, f: impl FnOnce(&mut Value)) -> String {
        let mut v: Value = serde_json::from_str(json).unwrap();
        f(&mut v);
        canonical(&v)
    }

    #[test]
    fn paths_read_and_edit_as_spark() {
        let v: Value = serde_json::from_str(r#"{"b": [1, {"c": 2}], "a": 1}"#).unwrap();
        assert_eq!(canonical(&v), r#"{"a":1,"b":[1,{"c":2}]}"#);
        let steps = parse_path("t", "$.b[1]['c']").unwrap();
        assert_eq!(get(&v, &steps), Some(&Value::from(2)));
        let p = |s| parse_path("t", s).unwrap();
        assert_eq!(
            edit(r#"{"a":1,"arr":[1,2,3]}"#, |v| set(
                v,
                &p("$.arr[1]"),
                9.into(),
                true
            )
            .unwrap()),
            r#"{"a":1,"arr":[1,9,3]}"#
        );
        assert_eq!(
            edit(r#"{"a":1}"#, |v| insert(v, &p("$.c.d"), 3.into()).unwrap()),
            r#"{"a":1,"c":{"d":3}}"#
        );
        assert_eq!(
            edit(r#"{"a":1,"b":2}"#, |v| delete(v, &p("$.a"))),
            r#"{"b":2}"#
        );
        assert_eq!(
            schema_of(&serde_json::from_str(r#"{"a": 1, "b": [1.5]}"#).unwrap()),
            "OBJECT<a: BIGINT, b: ARRAY<DECIMAL(2,1)>>"
        );
        assert!(parse_path("t", "a.b").is_err());
    }
}
