//! The `statestore` reader's views of a `transformWithState` operator's
//! state, as Spark's reader gives them: one state variable's rows
//! (`stateVarName`: a value variable's `value`, a list's `list_element`
//! per element, a map's `user_map_key` and `user_map_value` per entry) or
//! the registered timers (`readRegisteredTimers`: `expiration_timestamp_ms`
//! per timer). sparklet keeps a key's variables in one struct (see
//! `exec::group_state`); these views take it apart.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StructArray, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{DataType, Field, Schema};

use crate::error::{Error, Result};

/// The timers' field of a processor's state struct.
const TIMERS: &str = "__timers";

/// A view of a processor's rows: `key`, `value` (the stored struct, its
/// `state` first) and `partition_id` columns, per the reader's options.
pub fn processor_view(
    key: &ArrayRef,
    value: &ArrayRef,
    partition_id: &ArrayRef,
    var: Option<&str>,
    timers: bool,
) -> Result<Option<RecordBatch>> {
    let state = value.as_struct().column(0).as_struct();
    let (name, column) = match (var, timers) {
        (_, true) => (TIMERS, TIMERS),
        (Some(v), false) => (v, v),
        (None, false) => return Ok(None),
    };
    let Some(col) = state.column_by_name(column) else {
        let vars: Vec<&str> = state
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .filter(|n| *n != TIMERS)
            .collect();
        return Err(Error::illegal_argument(format!(
            "[STDS_INVALID_OPTION_VALUE.WITH_MESSAGE] Invalid value for source option 'stateVarName': \
             the operator has no state variable '{name}' (it has {vars:?})"
        )));
    };
    let present = |i: usize| state.is_valid(i) && col.is_valid(i);
    let mut cols: Vec<(&str, ArrayRef)> = Vec::new();
    let rows: UInt32Array;
    match col.data_type() {
        DataType::Struct(_) => {
            rows = (0..col.len() as u32)
                .filter(|i| present(*i as usize))
                .collect();
            let v = col.as_struct().column_by_name("value").cloned();
            cols.push((
                "value",
                take(&v.unwrap_or_else(|| Arc::clone(col)), &rows, None)?,
            ));
        }
        DataType::List(_) => {
            let list = col.as_list::<i32>();
            let mut owner = Vec::new();
            let mut element = Vec::new();
            for i in 0..list.len() {
                if present(i) {
                    let (start, end) = (list.value_offsets()[i], list.value_offsets()[i + 1]);
                    for e in start..end {
                        owner.push(i as u32);
                        element.push(e as u32);
                    }
                }
            }
            rows = UInt32Array::from(owner);
            let elements = take(list.values(), &UInt32Array::from(element), None)?;
            if column == TIMERS {
                cols.push(("expiration_timestamp_ms", elements));
            } else {
                let entry: &StructArray = elements.as_struct();
                let field = |n: &str| {
                    entry.column_by_name(n).cloned().ok_or_else(|| {
                        Error::Internal(format!("state variable '{name}' has no '{n}' field"))
                    })
                };
                if entry.column_by_name("key").is_some() {
                    cols.push(("user_map_key", field("key")?));
                    cols.push(("user_map_value", field("value")?));
                } else {
                    cols.push(("list_element", field("value")?));
                }
            }
        }
        other => {
            return Err(Error::Internal(format!(
                "state variable '{name}' is stored as {other}, not a value, list or map"
            )))
        }
    }
    let mut fields = vec![Field::new("key", key.data_type().clone(), false)];
    let mut arrays = vec![take(key, &rows, None)?];
    for (n, a) in cols {
        fields.push(Field::new(n, a.data_type().clone(), true));
        arrays.push(a);
    }
    fields.push(Field::new("partition_id", DataType::Int32, false));
    arrays.push(take(partition_id, &rows, None)?);
    Ok(Some(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        arrays,
    )?))
}
