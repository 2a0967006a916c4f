//! The `statestore` reader's views of a `transformWithState` operator's
//! state, as Spark's reader gives them: one state variable's rows
//! (`stateVarName`: a value variable's `value`, a list's `list_element`
//! per element, a map's `user_map_key` and `user_map_value` per entry) or
//! the registered timers (`readRegisteredTimers`: `expiration_timestamp_ms`
//! per timer). sparklet keeps a key's variables in one struct (see
//! `exec::group_state`); these views take it apart.

use std::sync::Arc;

use std::collections::HashMap;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch, StringArray, StructArray,
    UInt32Array,
};
use arrow::compute::{interleave, nullif, take};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::row::{RowConverter, SortField};

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

/// A variable's change feed for batch `batch`, from its view (see
/// [`processor_view`]) before and after it, as Spark's reader gives it:
/// `batch_id`, `change_type`, then the view's columns. A value or map
/// entry new or changed is an `update`, one gone a `delete` (its value
/// null); a list's elements added at its end are each an `append`, a list
/// gone or rewritten a `delete` (then its elements appended).
pub fn processor_changes(
    batch: i64,
    before: &RecordBatch,
    after: &RecordBatch,
) -> Result<RecordBatch> {
    let schema = after.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let list = names.contains(&"list_element");
    // what identifies a row: the key and partition (and a map entry's key)
    let ids: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(**n, "key" | "partition_id" | "user_map_key"))
        .map(|(i, _)| i)
        .collect();
    let payload = names
        .iter()
        .position(|n| matches!(*n, "value" | "list_element" | "user_map_value"))
        .ok_or_else(|| crate::error::Error::Internal("a state view without values".into()))?;
    let conv = |cols: &[usize]| -> Result<RowConverter> {
        Ok(RowConverter::new(
            cols.iter()
                .map(|c| SortField::new(after.column(*c).data_type().clone()))
                .collect(),
        )?)
    };
    let id_conv = conv(&ids)?;
    let value_conv = conv(&[payload])?;
    let rows = |b: &RecordBatch| -> Result<(arrow::row::Rows, arrow::row::Rows)> {
        let cols: Vec<ArrayRef> = ids.iter().map(|c| Arc::clone(b.column(*c))).collect();
        Ok((
            id_conv.convert_columns(&cols)?,
            value_conv.convert_columns(&[Arc::clone(b.column(payload))])?,
        ))
    };
    let (before_ids, before_values) = rows(before)?;
    let (after_ids, after_values) = rows(after)?;
    // each identity's rows, in order
    let group = |ids: &arrow::row::Rows| {
        let mut g: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        let mut order = Vec::new();
        for (i, r) in ids.iter().enumerate() {
            let entry = g.entry(r.as_ref().to_vec()).or_default();
            if entry.is_empty() {
                order.push(r.as_ref().to_vec());
            }
            entry.push(i);
        }
        (g, order)
    };
    let (old, old_order) = group(&before_ids);
    let (new, new_order) = group(&after_ids);
    // (which batch: 0 before, 1 after; row; change type)
    let mut out: Vec<(usize, usize, &'static str)> = Vec::new();
    for id in &new_order {
        let now = &new[id];
        let was = old.get(id).map(Vec::as_slice).unwrap_or_default();
        let same = |a: usize, b: usize| before_values.row(a) == after_values.row(b);
        if list {
            let extends = was.len() <= now.len() && was.iter().zip(now).all(|(a, b)| same(*a, *b));
            if !extends {
                out.push((0, was[0], "delete"));
            }
            let from = if extends { was.len() } else { 0 };
            out.extend(now[from..].iter().map(|r| (1, *r, "append")));
        } else if was.first().is_none_or(|a| !same(*a, now[0])) {
            out.push((1, now[0], "update"));
        }
    }
    for id in &old_order {
        if !new.contains_key(id) {
            out.push((0, old[id][0], "delete"));
        }
    }
    let indices: Vec<(usize, usize)> = out.iter().map(|(b, r, _)| (*b, *r)).collect();
    let mut fields = vec![
        Field::new("batch_id", DataType::Int64, false),
        Field::new("change_type", DataType::Utf8, false),
    ];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![batch; out.len()])),
        Arc::new(StringArray::from_iter_values(out.iter().map(|c| c.2))),
    ];
    let deleted = BooleanArray::from_iter(out.iter().map(|c| Some(c.2 == "delete")));
    for (c, f) in schema.fields().iter().enumerate() {
        let column = interleave(
            &[before.column(c).as_ref(), after.column(c).as_ref()],
            &indices,
        )?;
        let column = if c == payload {
            nullif(&column, &deleted)?
        } else {
            column
        };
        fields.push(f.as_ref().clone().with_nullable(true));
        columns.push(column);
    }
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}
