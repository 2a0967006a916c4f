//! Spark's `xpath*` functions: an XPath 1.0 expression over an XML string
//! (`sxd-document` / `sxd-xpath`, as Spark's Java XPath reads them):
//! `xpath` the node values of a node set (an element's is null, as Java's
//! `getNodeValue`), `xpath_string` / `xpath_boolean` / `xpath_number` and
//! the numeric casts of the expression's value.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array,
    ListBuilder, StringArray, StringBuilder,
};
use arrow::datatypes::{DataType, Field};
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::ScalarUDF;
use sxd_xpath::nodeset::Node;
use sxd_xpath::Value;

use super::udfs::{kernel_udf, strings};

pub(super) fn all() -> Vec<ScalarUDF> {
    let strings_list = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    vec![
        kernel_udf("xpath", strings_list, |a| {
            let mut out = ListBuilder::new(StringBuilder::new());
            each("xpath", a, |v| {
                match v {
                    Some(Value::Nodeset(nodes)) => {
                        for node in nodes.document_order() {
                            out.values().append_option(node_value(&node));
                        }
                        out.append(true);
                    }
                    Some(_) => out.append(true),
                    None => out.append_null(),
                }
                Ok(())
            })?;
            Ok(Arc::new(out.finish()) as ArrayRef)
        }),
        kernel_udf("xpath_string", DataType::Utf8, |a| {
            let values: StringArray = collect("xpath_string", a, |v| v.string())?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
        kernel_udf("xpath_boolean", DataType::Boolean, |a| {
            let values: BooleanArray = collect("xpath_boolean", a, |v| v.boolean())?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
        kernel_udf("xpath_double", DataType::Float64, doubles),
        kernel_udf("xpath_number", DataType::Float64, doubles),
        kernel_udf("xpath_float", DataType::Float32, |a| {
            let values: Float32Array = collect("xpath_float", a, |v| v.number() as f32)?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
        // Java's double-to-integer conversion: truncated, NaN is 0, clamped
        kernel_udf("xpath_long", DataType::Int64, |a| {
            let values: Int64Array = collect("xpath_long", a, |v| v.number() as i64)?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
        kernel_udf("xpath_int", DataType::Int32, |a| {
            let values: Int32Array = collect("xpath_int", a, |v| v.number() as i32)?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
        kernel_udf("xpath_short", DataType::Int16, |a| {
            let values: Int16Array = collect("xpath_short", a, |v| v.number() as i32 as i16)?
                .into_iter()
                .collect();
            Ok(Arc::new(values) as ArrayRef)
        }),
    ]
}

fn doubles(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let values: Float64Array = collect("xpath_double", args, |v| v.number())?
        .into_iter()
        .collect();
    Ok(Arc::new(values))
}

/// A node's value as Java's DOM gives it: text, attributes, comments have
/// one; elements and the document do not.
fn node_value(node: &Node<'_>) -> Option<String> {
    match node {
        Node::Text(_) | Node::Attribute(_) | Node::Comment(_) | Node::ProcessingInstruction(_) => {
            Some(node.string_value())
        }
        _ => None,
    }
}

/// `f` of the expression's value for each row (null where the XML or the
/// path is).
fn collect<T>(
    name: &str,
    args: &[ArrayRef],
    f: impl Fn(&Value<'_>) -> T,
) -> DFResult<Vec<Option<T>>> {
    let mut out = Vec::new();
    each(name, args, |v| {
        out.push(v.map(&f));
        Ok(())
    })?;
    Ok(out)
}

/// Each row's XML evaluated at its path: `f` gets the value, None for a
/// null input.
fn each(
    name: &str,
    args: &[ArrayRef],
    mut f: impl FnMut(Option<&Value<'_>>) -> DFResult<()>,
) -> DFResult<()> {
    let [xml, path] = args else {
        return Err(DataFusionError::Plan(format!(
            "[WRONG_NUM_ARGS] {name} takes (xml, path)"
        )));
    };
    let (xml, path) = (strings(xml)?, strings(path)?);
    for row in 0..xml.len() {
        if xml.is_null(row) || path.is_null(row) {
            f(None)?;
            continue;
        }
        let package = sxd_document::parser::parse(xml.value(row)).map_err(|e| {
            DataFusionError::Execution(format!(
                "[XML_PARSE_ERROR] {name}: the input is not well-formed XML ({e:?})"
            ))
        })?;
        let document = package.as_document();
        let value = sxd_xpath::evaluate_xpath(&document, path.value(row)).map_err(|e| {
            DataFusionError::Execution(format!(
                "[INVALID_XPATH] {name}: '{}' is not a valid XPath expression ({e})",
                path.value(row)
            ))
        })?;
        f(Some(&value))?;
    }
    Ok(())
}
