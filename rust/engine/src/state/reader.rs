//! Reading a checkpoint's state as a batch DataFrame, as Spark's state data
//! sources do: `spark.read.format("statestore")` (one row per key: `key`
//! and `value` structs and `partition_id`; a join side's stored rows with
//! `joinSide`) and `spark.read.format("state-metadata")` (one row per
//! operator and store).
//!
//! Both read only the checkpoint's files, never a running query's memory,
//! so they work on any provider's state, stopped or running.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray,
    TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema, TimeUnit};
use arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;

use super::files::{files, load};
use super::partitioned::{OperatorInfo, StateLayout};
use super::processor_reader::{processor_changes, processor_view};
use crate::checkpoint::log;
use crate::checkpoint::CheckpointPaths;
use crate::error::{Error, Result};
use crate::exec::group_state::PROPERTIES_FILE;

/// `spark.read.format("statestore").load(checkpoint)` with Spark's options
/// (`batchId`, `operatorId`, `storeName`, `joinSide`, and for a
/// processor's state `stateVarName` or `readRegisteredTimers`; keys
/// lower-cased), or with `readChangeFeed` the changes of batches
/// `changeStartBatchId` to `changeEndBatchId` (the last by default), found
/// by comparing each batch's state with the one before it.
pub fn read_state(checkpoint: &Path, options: &HashMap<String, String>) -> Result<RecordBatch> {
    // Spark's option name (the keys arrive lower-cased)
    let number = |name: &str| -> Result<Option<i64>> {
        options
            .get(&name.to_ascii_lowercase())
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| {
                    // Spark's words (a NumberFormatException), then which option
                    Error::illegal_argument(format!(
                        "For input string: \"{v}\" (statestore option {name} must be a number)"
                    ))
                })
            })
            .transpose()
    };
    let batch = match number("batchId")? {
        Some(b) => b,
        None => last_committed(checkpoint)?.ok_or_else(|| no_committed_batch(checkpoint))?,
    };
    let op = number("operatorId")?.unwrap_or(0);
    let side = options.get("joinside").map(|s| s.to_ascii_lowercase());
    let store = match side.as_deref() {
        Some("left") | Some("right") => side.clone().unwrap_or_default(),
        None | Some("none") => options
            .get("storename")
            .cloned()
            .unwrap_or_else(|| "default".into()),
        Some(other) => {
            return Err(Error::illegal_argument(format!(
                "statestore option joinSide must be left, right or none, not '{other}'"
            )))
        }
    };
    let op_dir = CheckpointPaths::new(checkpoint, true)
        .state()
        .join(op.to_string());
    let (name, partitions, stores) = operator_metadata(&op_dir)?;
    if !stores.contains(&store) {
        // Spark's condition, then what the operator holds
        return Err(Error::Input {
            condition: "STDS_FAILED_TO_READ_STATE_SCHEMA".into(),
            message: format!(
                "Failed to read the state schema. Operator {op} ({name}) in {} has the state stores {stores:?}, not '{store}'{}",
                checkpoint.display(),
                if name == "symmetricHashJoin" {
                    ": read a join's state with joinSide=left or right"
                } else {
                    ""
                }
            ),
        });
    }
    let layout = StateLayout::read(&op_dir, &store)?;
    let evolution = super::processor_evolution::of_operator(&op_dir)?;
    let spec_of = |p: usize| {
        layout
            .store_spec(&op_dir, p, &store)
            .with_evolution(evolution.clone())
    };
    let change_feed = options
        .get("readchangefeed")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if change_feed && name.starts_with("transformWithState") && options.contains_key("statevarname")
    {
        // a processor variable's changes: its view after each batch against
        // the one before
        let start = number("changeStartBatchId")?.ok_or_else(|| Error::Input {
            condition: "STDS_REQUIRED_OPTION_UNSPECIFIED".into(),
            message: "'changeStartBatchId' must be specified.".into(),
        })?;
        let end = match number("changeEndBatchId")? {
            Some(b) => b,
            None => last_committed(checkpoint)?.ok_or_else(|| no_committed_batch(checkpoint))?,
        };
        let at = |b: i64| {
            let mut o = options.clone();
            o.remove("readchangefeed");
            o.insert("batchid".into(), b.to_string());
            read_state(checkpoint, &o)
        };
        let mut parts = Vec::new();
        let mut before = at(start - 1)?;
        for b in start..=end {
            let after = at(b)?;
            parts.push(processor_changes(b, &before, &after)?);
            before = after;
        }
        let schema = parts[0].schema();
        return Ok(arrow::compute::concat_batches(&schema, &parts)?);
    }
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut values: Vec<Vec<ScalarValue>> = Vec::new();
    let mut part_ids: Vec<i32> = Vec::new();
    // the change feed's batch and kind of each row
    let mut changes: Vec<(i64, &'static str)> = Vec::new();
    if change_feed {
        let start = number("changeStartBatchId")?.ok_or_else(|| Error::Input {
            condition: "STDS_REQUIRED_OPTION_UNSPECIFIED".into(),
            message: "'changeStartBatchId' must be specified.".into(),
        })?;
        let end = match number("changeEndBatchId")? {
            Some(b) => b,
            None => last_committed(checkpoint)?.ok_or_else(|| no_committed_batch(checkpoint))?,
        };
        let nulls = layout
            .value
            .iter()
            .map(|f| Ok(ScalarValue::try_from(f.data_type())?))
            .collect::<Result<Vec<_>>>()?;
        for b in start..=end {
            for p in 0..partitions {
                let spec = spec_of(p);
                let before = load(&spec, b)?;
                let mut after = load(&spec, b + 1)?;
                for (k, v) in before {
                    match after.remove(&k) {
                        Some(now) if now == v => {}
                        Some(now) => {
                            keys.push(k);
                            values.push(now);
                            part_ids.push(p as i32);
                            changes.push((b, "update"));
                        }
                        None => {
                            keys.push(k);
                            values.push(nulls.clone());
                            part_ids.push(p as i32);
                            changes.push((b, "delete"));
                        }
                    }
                }
                for (k, v) in after {
                    keys.push(k);
                    values.push(v);
                    part_ids.push(p as i32);
                    changes.push((b, "update"));
                }
            }
        }
    } else {
        for p in 0..partitions {
            for (k, v) in load(&spec_of(p), batch + 1)? {
                keys.push(k);
                values.push(v);
                part_ids.push(p as i32);
            }
        }
    }
    if let Some(row_fields) = &layout.rows {
        return join_side_rows(&layout, row_fields, keys, values, &part_ids);
    }
    let partition_id: ArrayRef = Arc::new(Int32Array::from(part_ids));
    let key = decode_keys(&layout, &keys)?;
    let value_cols = (0..layout.value.len())
        .map(|c| {
            if values.is_empty() {
                return Ok(arrow::array::new_empty_array(layout.value[c].data_type()));
            }
            Ok(ScalarValue::iter_to_array(
                values.iter().map(|v| v[c].clone()),
            )?)
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let value_fields: Vec<FieldRef> = layout.value.iter().map(spark_value_field).collect();
    let value = struct_of(&value_fields, value_cols, values.len())?;
    if change_feed {
        return change_rows(&changes, key, value, partition_id);
    }
    if name.starts_with("transformWithState") {
        let var = options.get("statevarname").map(String::as_str);
        let timers = options
            .get("readregisteredtimers")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        if let Some(view) = processor_view(&key, &value, &partition_id, var, timers)? {
            return Ok(view);
        }
    }
    state_rows(key, value, partition_id)
}

/// Spark's change-feed rows: `batch_id`, `change_type` (`update` or
/// `delete`, whose value is null), `key`, `value`, `partition_id`.
fn change_rows(
    changes: &[(i64, &str)],
    key: ArrayRef,
    value: ArrayRef,
    partition_id: ArrayRef,
) -> Result<RecordBatch> {
    let batch_id: ArrayRef = Arc::new(Int64Array::from_iter_values(changes.iter().map(|c| c.0)));
    let change_type: ArrayRef =
        Arc::new(StringArray::from_iter_values(changes.iter().map(|c| c.1)));
    let deleted =
        arrow::array::BooleanArray::from_iter(changes.iter().map(|c| Some(c.1 == "delete")));
    let value = arrow::compute::nullif(&value, &deleted)?;
    let schema = Schema::new(vec![
        Field::new("batch_id", DataType::Int64, false),
        Field::new("change_type", DataType::Utf8, false),
        Field::new("key", key.data_type().clone(), false),
        Field::new("value", value.data_type().clone(), true),
        Field::new("partition_id", DataType::Int32, false),
    ]);
    Ok(RecordBatch::try_new(
        Arc::new(schema),
        vec![batch_id, change_type, key, value, partition_id],
    )?)
}

/// Spark's state-reader rows: `key`, `value` and `partition_id` columns.
fn state_rows(key: ArrayRef, value: ArrayRef, partition_id: ArrayRef) -> Result<RecordBatch> {
    let schema = Schema::new(vec![
        Field::new("key", key.data_type().clone(), false),
        Field::new("value", value.data_type().clone(), false),
        Field::new("partition_id", DataType::Int32, false),
    ]);
    Ok(RecordBatch::try_new(
        Arc::new(schema),
        vec![key, value, partition_id],
    )?)
}

/// Spark's error for a folder without a committed batch to read state at.
pub fn no_committed_batch(checkpoint: &Path) -> Error {
    Error::Input {
        condition: "STDS_COMMITTED_BATCH_UNAVAILABLE".into(),
        message: format!(
            "No committed batch found, checkpoint location: file://{}. Ensure that the query has run and committed any microbatch before stopping.",
            checkpoint.display()
        ),
    }
}

/// A value field as Spark names it: an aggregate's buffer (`sum`, `count`),
/// where sparklet's layout says whose it is (`s[sum]`).
fn spark_value_field(f: &FieldRef) -> FieldRef {
    match f.name().strip_suffix(']').and_then(|n| n.split_once('[')) {
        Some((_, buffer)) => Arc::new(f.as_ref().clone().with_name(buffer)),
        None => Arc::clone(f),
    }
}

/// A struct column of `fields` (nullable, so a field of an absent value is null).
fn struct_of(fields: &[FieldRef], cols: Vec<ArrayRef>, n: usize) -> Result<ArrayRef> {
    let fields: Fields = fields
        .iter()
        .map(|f| Arc::new(f.as_ref().clone().with_nullable(true)))
        .collect();
    if fields.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(n, None)));
    }
    Ok(Arc::new(StructArray::try_new(fields, cols, None)?))
}

/// Keys back to their columns: the row-format fields, with the 8-byte time
/// (as a timestamp) first or last, unless it is an index only (no name).
fn decode_keys(layout: &StateLayout, keys: &[Vec<u8>]) -> Result<ArrayRef> {
    let time_len = if layout.time.is_some() { 8 } else { 0 };
    let leads = layout.time.as_ref().is_some_and(|(_, l)| *l);
    let (rows, times): (Vec<&[u8]>, Vec<i64>) = keys
        .iter()
        .map(|k| {
            let split = if leads {
                time_len
            } else {
                k.len().saturating_sub(time_len)
            };
            let (a, b) = k.split_at(split.min(k.len()));
            let (row, time) = if leads { (b, a) } else { (a, b) };
            let t = time
                .try_into()
                .map(u64::from_be_bytes)
                .map_or(0, |u| (u ^ (1 << 63)) as i64);
            (row, t)
        })
        .unzip();
    let mut fields: Vec<FieldRef> = layout.key.clone();
    let mut cols: Vec<ArrayRef> = if layout.key.is_empty() {
        vec![]
    } else {
        let conv = RowConverter::new(
            layout
                .key
                .iter()
                .map(|f| SortField::new(f.data_type().clone()))
                .collect(),
        )?;
        let parser = conv.parser();
        conv.convert_rows(rows.iter().map(|r| parser.parse(r)))?
    };
    if let Some((name, _)) = layout.time.as_ref().filter(|(n, _)| !n.is_empty()) {
        let time: ArrayRef = Arc::new(TimestampMicrosecondArray::from(times).with_timezone("UTC"));
        let field = Arc::new(Field::new(
            name,
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ));
        if leads {
            fields.insert(0, field);
            cols.insert(0, time);
        } else {
            fields.push(field);
            cols.push(time);
        }
    }
    struct_of(&fields, cols, keys.len())
}

/// A join side's stored rows, one output row each, as Spark shows them:
/// the join key (fields `field0`, `field1`...), the row, its partition.
/// `keys`, `values` and `part_ids` are the sides' store entries.
fn join_side_rows(
    layout: &StateLayout,
    row_fields: &[FieldRef],
    keys: Vec<Vec<u8>>,
    values: Vec<Vec<ScalarValue>>,
    part_ids: &[i32],
) -> Result<RecordBatch> {
    // each partition's entries, its rows in state read from them
    let mut by_part: std::collections::BTreeMap<i32, crate::exec::join::ByteEntries> =
        Default::default();
    for ((k, v), p) in keys.into_iter().zip(values).zip(part_ids) {
        if let Some(ScalarValue::Binary(Some(b))) = v.into_iter().next() {
            by_part.entry(*p).or_default().push((k, b));
        }
    }
    let (mut row_keys, mut rows, mut parts) = (Vec::new(), Vec::new(), Vec::new());
    for (p, entries) in by_part {
        for (k, r) in crate::exec::join::rows_in_state(&entries)? {
            row_keys.push(k);
            rows.push(r);
            parts.push(p);
        }
    }
    let conv = RowConverter::new(
        row_fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect(),
    )?;
    let parser = conv.parser();
    let n = rows.len();
    let value = struct_of(
        row_fields,
        conv.convert_rows(rows.iter().map(|r| parser.parse(r)))?,
        n,
    )?;
    let key = decode_keys(layout, &row_keys)?;
    let key_struct = key
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| Error::Internal("join state keys".into()))?;
    let key_fields: Vec<FieldRef> = key_struct
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| Arc::new(f.as_ref().clone().with_name(format!("field{i}"))))
        .collect();
    let key = struct_of(&key_fields, key_struct.columns().to_vec(), n)?;
    let partition_id: ArrayRef = Arc::new(Int32Array::from(parts));
    state_rows(key, value, partition_id)
}

/// An operator's name, partitions and store names (`_metadata/metadata`).
fn operator_metadata(op_dir: &Path) -> Result<(String, usize, Vec<String>)> {
    let info = OperatorInfo::read(op_dir)?.ok_or_else(|| {
        Error::illegal_argument(format!(
            "There is no state operator at {}",
            op_dir.display()
        ))
    })?;
    Ok((info.name, info.partitions, info.stores))
}

/// The newest committed batch of the checkpoint at `root`.
fn last_committed(root: &Path) -> Result<Option<i64>> {
    Ok(
        log::batch_files(&CheckpointPaths::new(root, true).commits())?
            .last()
            .map(|(n, _)| *n),
    )
}

/// `spark.read.format("state-metadata").load(checkpoint)`: operatorId,
/// operatorName, stateStoreName, numPartitions, minBatchId, maxBatchId,
/// operatorProperties (a processor's; null for other operators).
pub fn read_state_metadata(checkpoint: &Path) -> Result<RecordBatch> {
    let max_batch = last_committed(checkpoint)?.unwrap_or(-1);
    let mut ops: Vec<(i64, PathBuf)> = Vec::new();
    if let Ok(rd) = std::fs::read_dir(CheckpointPaths::new(checkpoint, true).state()) {
        for item in rd.flatten() {
            if let Ok(id) = item.file_name().to_string_lossy().parse::<i64>() {
                ops.push((id, item.path()));
            }
        }
    }
    ops.sort();
    let (mut ids, mut names, mut stores, mut parts, mut mins, mut maxs, mut props) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for (id, dir) in ops {
        let (name, partitions, store_names) = operator_metadata(&dir)?;
        let properties = dir.join("_metadata").join(PROPERTIES_FILE);
        let properties = match std::fs::read_to_string(&properties) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(properties.display().to_string(), e)),
        };
        for store in store_names {
            let first = if store == "default" {
                dir.join("0")
            } else {
                dir.join("0").join(&store)
            };
            // the oldest version still readable: from nothing through the
            // deltas, or from the oldest snapshot
            let oldest = if first.join("1.delta").exists() {
                1
            } else {
                files(&first, ".snapshot")?
                    .first()
                    .map_or(max_batch + 1, |(v, _)| *v)
            };
            ids.push(id);
            names.push(name.clone());
            stores.push(store);
            parts.push(partitions as i32);
            mins.push(oldest - 1);
            maxs.push(max_batch);
            props.push(properties.clone());
        }
    }
    let schema = Schema::new(vec![
        Field::new("operatorId", DataType::Int64, false),
        Field::new("operatorName", DataType::Utf8, false),
        Field::new("stateStoreName", DataType::Utf8, false),
        Field::new("numPartitions", DataType::Int32, false),
        Field::new("minBatchId", DataType::Int64, false),
        Field::new("maxBatchId", DataType::Int64, false),
        Field::new("operatorProperties", DataType::Utf8, true),
    ]);
    Ok(RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(StringArray::from(names)),
            Arc::new(StringArray::from(stores)),
            Arc::new(Int32Array::from(parts)),
            Arc::new(Int64Array::from(mins)),
            Arc::new(Int64Array::from(maxs)),
            Arc::new(StringArray::from(props)),
        ],
    )?)
}
