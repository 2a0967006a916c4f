//! `Column.withField` and `Column.dropFields`: a struct rebuilt with a
//! field added, replaced or dropped (`"a.b"` reaches into nested structs).
//! The call is a placeholder until the DataFrame's schema gives the
//! struct's fields ([`crate::dataframe::resolve`]).

use std::sync::Arc;

use arrow::datatypes::{DataType, Fields};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::functions::core::expr_fn::{get_field, named_struct};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{
    lit, ColumnarValue, Expr, ExprSchemable, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, Volatility,
};

const WITH_FIELD: &str = "__with_field";
const DROP_FIELDS: &str = "__drop_fields";

#[derive(Debug, PartialEq, Eq, Hash)]
struct Placeholder {
    name: &'static str,
    signature: Signature,
}

impl ScalarUDFImpl for Placeholder {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        Ok(args.first().cloned().unwrap_or(DataType::Null))
    }
    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Err(DataFusionError::Plan(format!(
            "{} is resolved against a DataFrame's schema",
            self.name
        )))
    }
}

fn placeholder(name: &'static str, args: Vec<Expr>) -> Expr {
    let f = ScalarUDF::new_from_impl(Placeholder {
        name,
        signature: Signature::variadic_any(Volatility::Immutable),
    });
    Expr::ScalarFunction(ScalarFunction::new_udf(Arc::new(f), args))
}

/// `s.withField(path, value)`.
pub fn with_field(s: Expr, path: &str, value: Expr) -> Expr {
    placeholder(WITH_FIELD, vec![s, lit(path), value])
}

/// `s.dropFields(*paths)`.
pub fn drop_fields(s: Expr, paths: &[String]) -> Expr {
    let mut args = vec![s];
    args.extend(paths.iter().map(|p| lit(p.as_str())));
    placeholder(DROP_FIELDS, args)
}

fn text(e: &Expr) -> Result<String> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(s)), _) => Ok(s.clone()),
        other => Err(DataFusionError::Plan(format!("a field name, not {other}"))),
    }
}

fn struct_fields(e: &Expr, schema: &DFSchema) -> Result<Fields> {
    match e.get_type(schema)? {
        DataType::Struct(fields) => Ok(fields),
        other => Err(DataFusionError::Plan(format!(
            "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] withField/dropFields need a struct, not {}",
            crate::plan::spark_names::simple_type_name(&other)
        ))),
    }
}

/// `s` with the field at `path` set to `value` (`None`: dropped).
fn rebuild(s: Expr, path: &[&str], value: Option<Expr>, schema: &DFSchema) -> Result<Expr> {
    let fields = struct_fields(&s, schema)?;
    let (head, rest) = (path[0], &path[1..]);
    let mut args = Vec::new();
    let mut found = false;
    for f in fields.iter() {
        let current = get_field(s.clone(), f.name().as_str());
        let new = if f.name() == head {
            found = true;
            match (&value, rest.is_empty()) {
                (None, true) => continue,
                (Some(v), true) => v.clone(),
                _ => rebuild(current, rest, value.clone(), schema)?,
            }
        } else {
            current
        };
        args.push(lit(f.name().as_str()));
        args.push(new);
    }
    if !found {
        match (value, rest.is_empty()) {
            (Some(v), true) => {
                args.push(lit(head));
                args.push(v);
            }
            _ => {
                return Err(DataFusionError::Plan(format!(
                    "[FIELD_NOT_FOUND] No such struct field `{head}`."
                )))
            }
        }
    }
    if args.is_empty() {
        return Err(DataFusionError::Plan(
            "[DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS] Cannot drop all fields in struct.".into(),
        ));
    }
    Ok(named_struct(args))
}

/// The struct a placeholder stands for, once `schema` is known.
pub fn resolve(e: &Expr, schema: &DFSchema) -> Result<Option<Expr>> {
    let Expr::ScalarFunction(f) = e else {
        return Ok(None);
    };
    match f.func.name() {
        WITH_FIELD => {
            let path = text(&f.args[1])?;
            let path: Vec<&str> = path.split('.').collect();
            rebuild(f.args[0].clone(), &path, Some(f.args[2].clone()), schema).map(Some)
        }
        DROP_FIELDS => {
            let mut s = f.args[0].clone();
            for p in &f.args[1..] {
                let p = text(p)?;
                let path: Vec<&str> = p.split('.').collect();
                s = rebuild(s, &path, None, schema)?;
            }
            Ok(Some(s))
        }
        _ => Ok(None),
    }
}
