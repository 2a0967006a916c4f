//! `applyInPandasWithState` (Spark's `FlatMapGroupsInPandasWithStateExec`):
//! a user function called once per key per batch with the key's rows and
//! its state, and once more for each key whose state timed out.
//!
//! A batch's rows are grouped by key (Arrow row format, sorted), the keys'
//! states read, the timed-out keys found, and all of it handed to the
//! [`GroupFunction`] in one call: the Python side loops over the groups
//! holding the GIL, which nothing else here takes. State is laid out as
//! Spark's state format v2 is, a `groupState` struct of the user's state
//! fields and a `timeoutTimestamp`, held in the stores' Arrow row format.

mod exec;
mod function;
mod node;
mod processor;
pub(crate) mod processor_schema;

pub use exec::{plan, GroupStateExec};
pub use function::{
    Flavor, GroupFunction, GroupTimeout, Groups, GroupsDone, ProcessorSettings, UserFunction,
};
pub use node::GroupStateNode;
use processor::processor_rows;

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch, StructArray,
    UInt32Array,
};
use arrow::compute::{concat_batches, filter_record_batch, take, take_record_batch};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Int64Type, Schema, SchemaRef};
use arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::{DFSchemaRef, Result as DFResult};
use datafusion::logical_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::ExecutionPlan;

use super::event_time::micros;
use super::operator::{OpenContext, OperatorControl, OperatorSlot, StatefulOperator};
use crate::error::{Error, Result};
use crate::state::partitioned::{
    LayoutCheck, OperatorMetrics, PartitionedState, StateLayout, StateTable,
};
use crate::state::KeyOrder;

/// The file in an operator's `_metadata` with a processor's properties.
pub const PROPERTIES_FILE: &str = "operatorProperties";

/// A running query's per-key state for the user's function.
pub struct GroupStateOp {
    state: PartitionedState,
    /// Encodes the grouping columns (the stored key).
    key_conv: RowConverter,
    /// Encodes `groupState` and `timeoutTimestamp` (the stored value).
    value_conv: RowConverter,
    key_schema: SchemaRef,
    state_type: DataType,
    /// Columns of a stored value (the flavor's `value_fields`).
    value_columns: usize,
    func: UserFunction,
    flavor: Flavor,
    output: SchemaRef,
    timeout: GroupTimeout,
    /// The input's watermarked column (late rows are dropped under
    /// event-time timeouts, as in Spark).
    time_column: Option<String>,
    late_us: Option<i64>,
    evict_us: Option<i64>,
    batch_id: i64,
    now_ms: i64,
    /// The earliest processing-time timeout still pending.
    next_timeout_ms: Option<i64>,
    metrics: OperatorMetrics,
    /// A processor's state rows as Spark counts them (`numRowsTotal`):
    /// one per value or list variable set, one per map entry.
    processor_rows: i64,
    /// A processor's counts of the batch (`customMetrics`), from Python.
    processor_metrics: serde_json::Map<String, serde_json::Value>,
    /// Spark's class of a provider Spark runs no processor on (the query
    /// then fails in its first batch, as Spark's does).
    unsupported_provider: Option<&'static str>,
    /// A processor's `eventTimeColumnName`.
    event_time_column: Option<String>,
}

/// A batch's groups before the call: keys (stored form), stored values,
/// and whether each timed out.
#[derive(Default)]
struct Pending {
    keys: Vec<Vec<u8>>,
    values: Vec<Option<Vec<u8>>>,
    timed_out: Vec<bool>,
}

impl GroupStateOp {
    /// State times out below this (ms): the batch's processing time or
    /// the watermark, by the timeout kind.
    fn timeout_threshold_ms(&self) -> Option<i64> {
        match self.timeout {
            GroupTimeout::NoTimeout => None,
            GroupTimeout::ProcessingTime => Some(self.now_ms),
            GroupTimeout::EventTime => self.evict_us.map(|us| us.div_euclid(1000)),
        }
    }

    /// Decode stored values (row format) into the value columns (the
    /// state, `timeoutTimestamp`, maybe `ttlExpiry`), one row per value
    /// (null where none).
    fn decode_values(&self, values: &[Option<Vec<u8>>]) -> Result<Vec<ArrayRef>> {
        let parser = self.value_conv.parser();
        let present: Vec<&Vec<u8>> = values.iter().flatten().collect();
        let cols = self
            .value_conv
            .convert_rows(present.iter().map(|v| parser.parse(v)))?;
        let mut at = 0u32;
        let index: UInt32Array = values
            .iter()
            .map(|v| {
                v.as_ref().map(|_| {
                    at += 1;
                    at - 1
                })
            })
            .collect();
        cols.iter().map(|c| Ok(take(c, &index, None)?)).collect()
    }

    /// Stored keys not among `seen` whose timeout is before `threshold`
    /// (or whose TTL expired); remembers the earliest time still pending.
    fn timed_out(&mut self, seen: &HashSet<&[u8]>, threshold: Option<i64>) -> Result<Pending> {
        let mut stored = Pending::default();
        for p in 0..self.state.len() {
            let store = self.state.store(p);
            for k in store.keys() {
                let k = k?;
                if seen.contains(k.as_ref()) {
                    continue;
                }
                let v = store.get_bytes(&k)?.map(|v| v.into_owned());
                stored.keys.push(k.into_owned());
                stored.values.push(v);
            }
        }
        let cols = self.decode_values(&stored.values)?;
        let timeouts = cols[1].as_primitive::<Int64Type>();
        let expiries = cols.get(2).map(|c| c.as_primitive::<Int64Type>());
        let mut due = Pending::default();
        let mut next: Option<i64> = None;
        let mut pending = |t: i64| next = Some(next.map_or(t, |n: i64| n.min(t)));
        for (i, (k, v)) in stored.keys.into_iter().zip(stored.values).enumerate() {
            let timeout = timeouts.is_valid(i).then(|| timeouts.value(i));
            let expiry = expiries.and_then(|e| e.is_valid(i).then(|| e.value(i)));
            let timed_out = timeout.zip(threshold).is_some_and(|(t, th)| t < th);
            let expired = expiry.is_some_and(|e| e <= self.now_ms);
            if timed_out || expired {
                due.keys.push(k);
                due.values.push(v);
                due.timed_out.push(timed_out);
                continue;
            }
            if self.timeout == GroupTimeout::ProcessingTime {
                timeout.into_iter().chain(expiry).for_each(&mut pending);
            }
        }
        self.next_timeout_ms = next;
        Ok(due)
    }

    /// Run the function over a batch's input rows; returns its output.
    pub fn process(&mut self, batches: &[RecordBatch], schema: &SchemaRef) -> Result<RecordBatch> {
        if let Some(class) = self.unsupported_provider {
            return Err(Error::analysis(
                "UNSUPPORTED_FEATURE.STORE_BACKEND_NOT_SUPPORTED_FOR_TWS",
                format!("The feature is not supported: Store backend {class} is not supported by TransformWithState operator. Please use RocksDBStateStoreProvider."),
            ));
        }
        let t0 = Instant::now();
        let mut data = concat_batches(schema, batches)?;
        if let (GroupTimeout::EventTime, Some(late), Some(col)) =
            (self.timeout, self.late_us, &self.time_column)
        {
            // rows behind the watermark are late (Spark drops them here)
            let times = micros(data.column(schema.index_of(col)?))?;
            let keep: BooleanArray = times
                .iter()
                .map(|t| Some(t.is_none_or(|t| t > late)))
                .collect();
            self.metrics.rows_dropped_by_watermark += keep.false_count() as u64;
            data = filter_record_batch(&data, &keep)?;
        }
        let key_cols: Vec<ArrayRef> = self
            .key_schema
            .fields()
            .iter()
            .map(|f| Ok(Arc::clone(data.column(schema.index_of(f.name())?))))
            .collect::<Result<_>>()?;
        let rows = self.key_conv.convert_columns(&key_cols)?;
        let (data, offsets, mut groups) = self.grouped(&data, &rows)?;
        let threshold = self.timeout_threshold_ms();
        if threshold.is_some() || self.flavor.ttl() {
            let seen: HashSet<&[u8]> = groups.keys.iter().map(Vec::as_slice).collect();
            let due = self.timed_out(&seen, threshold)?;
            groups.keys.extend(due.keys);
            groups.values.extend(due.values);
            groups.timed_out.extend(due.timed_out);
        }
        let mut offsets = offsets;
        offsets.resize(groups.keys.len() + 1, data.num_rows());
        let call = self.groups_call(data, offsets, &groups)?;
        let before = match self.flavor {
            Flavor::Processor { .. } => processor_rows(call.states.column(0).as_struct()),
            Flavor::PandasWithState => Vec::new(),
        };
        let done = self.func.0.call(call)?;
        self.write_back(&groups.keys, &done.states, done.new_keys.as_ref())?;
        if let Flavor::Processor { .. } = self.flavor {
            self.count_processor_rows(&before, &done.states)?;
        }
        for b in &done.output {
            let same =
                |a: &Field, b: &Field| a.name() == b.name() && a.data_type() == b.data_type();
            let fields = b.schema().fields().clone();
            if fields.len() != self.output.fields().len()
                || !fields
                    .iter()
                    .zip(self.output.fields())
                    .all(|(a, b)| same(a, b))
            {
                return Err(Error::Internal(format!(
                    "applyInPandasWithState returned rows of schema {:?}, not the outputStructType {:?}",
                    b.schema(),
                    self.output
                )));
            }
        }
        self.metrics.all_updates_ms += t0.elapsed().as_millis() as i64;
        let output = concat_batches(&self.output, &done.output)?;
        self.check_emitted_event_times(&output)?;
        Ok(output)
    }

    /// The rows sorted by key, where each key's rows start, and each
    /// key with its stored value.
    fn grouped(
        &self,
        data: &RecordBatch,
        rows: &Rows,
    ) -> Result<(RecordBatch, Vec<usize>, Pending)> {
        let mut order: Vec<u32> = (0..data.num_rows() as u32).collect();
        order.sort_by(|a, b| {
            rows.row(*a as usize)
                .cmp(&rows.row(*b as usize))
                .then(a.cmp(b))
        });
        let mut offsets = Vec::new();
        let mut groups = Pending::default();
        for (i, r) in order.iter().enumerate() {
            let key = rows.row(*r as usize);
            if groups
                .keys
                .last()
                .is_none_or(|k| k.as_slice() != key.as_ref())
            {
                offsets.push(i);
                let stored = self.state.partition_of(key.as_ref());
                let value = self
                    .state
                    .store(stored)
                    .get_bytes(key.as_ref())?
                    .map(|v| v.into_owned());
                groups.keys.push(key.as_ref().to_vec());
                groups.values.push(value);
                groups.timed_out.push(false);
            }
        }
        let data = take_record_batch(data, &UInt32Array::from(order))?;
        Ok((data, offsets, groups))
    }

    /// The function's argument for `groups` over the sorted `data`.
    fn groups_call(
        &self,
        data: RecordBatch,
        offsets: Vec<usize>,
        groups: &Pending,
    ) -> Result<Groups> {
        let parser = self.key_conv.parser();
        let key_cols = self
            .key_conv
            .convert_rows(groups.keys.iter().map(|k| parser.parse(k)))?;
        let keys = RecordBatch::try_new(Arc::clone(&self.key_schema), key_cols)?;
        let mut cols = self.decode_values(&groups.values)?.into_iter();
        let mut named = vec![
            (
                "state",
                cols.next()
                    .unwrap_or_else(|| new_null_array(&self.state_type, 0)),
            ),
            (
                "timeoutTimestamp",
                cols.next()
                    .unwrap_or_else(|| new_null_array(&DataType::Int64, 0)),
            ),
        ];
        named.extend(cols.map(|c| ("ttlExpiry", c)));
        named.push((
            "timedOut",
            Arc::new(BooleanArray::from(groups.timed_out.clone())),
        ));
        let states = RecordBatch::try_from_iter(named)?;
        Ok(Groups {
            batch_id: self.batch_id,
            data,
            offsets,
            keys,
            states,
            watermark_ms: self.evict_us.map(|us| us.div_euclid(1000)),
            processing_time_ms: self.now_ms,
        })
    }

    /// Store what the function changed: a state (and its times) put, or
    /// removed when nothing is left. `keys` are the groups' stored keys;
    /// rows after them are for `new_keys` (keys the call created).
    fn write_back(
        &mut self,
        keys: &[Vec<u8>],
        states: &RecordBatch,
        new_keys: Option<&RecordBatch>,
    ) -> Result<()> {
        // keys the call created follow the groups' (copied only then)
        let keys: std::borrow::Cow<[Vec<u8>]> = match new_keys {
            Some(extra) => {
                let rows = self.key_conv.convert_columns(extra.columns())?;
                let mut all = keys.to_vec();
                all.extend(rows.iter().map(|r| r.as_ref().to_vec()));
                std::borrow::Cow::Owned(all)
            }
            None => std::borrow::Cow::Borrowed(keys),
        };
        let column = |name: &str| {
            states.column_by_name(name).cloned().ok_or_else(|| {
                Error::Internal(format!("the group results have no '{name}' column"))
            })
        };
        // the stored value's columns, by name, as many as the flavor has
        let names = ["state", "timeoutTimestamp", "ttlExpiry"];
        let value_cols = names[..self.value_columns]
            .iter()
            .map(|n| column(n))
            .collect::<Result<Vec<_>>>()?;
        let changed = column("changed")?;
        let changed = changed.as_boolean();
        if value_cols[0].len() != keys.len() || value_cols[0].data_type() != &self.state_type {
            return Err(Error::Internal(
                "the group results do not match the groups".into(),
            ));
        }
        let values = self.value_conv.convert_columns(&value_cols)?;
        let state_struct: &StructArray = value_cols[0].as_struct();
        let times: Vec<&Int64Array> = value_cols[1..]
            .iter()
            .map(|c| c.as_primitive::<Int64Type>())
            .collect();
        for (i, key) in keys.iter().enumerate() {
            if !changed.value(i) {
                continue;
            }
            let p = self.state.partition_of(key);
            let store = self.state.store_mut(p);
            if state_struct.is_null(i) && times.iter().all(|t| t.is_null(i)) {
                if store.contains(key)? {
                    store.remove(key);
                    self.metrics.rows_removed += 1;
                }
            } else {
                store.put_bytes(key, values.row(i).as_ref())?;
                self.metrics.rows_updated += 1;
            }
            if self.timeout == GroupTimeout::ProcessingTime {
                for t in times.iter().filter(|t| t.is_valid(i)).map(|t| t.value(i)) {
                    self.next_timeout_ms = Some(self.next_timeout_ms.map_or(t, |n| n.min(t)));
                }
            }
        }
        Ok(())
    }
}

impl StatefulOperator for GroupStateOp {
    fn begin_batch(&mut self, late_us: Option<i64>, evict_us: Option<i64>) {
        self.late_us = late_us;
        self.evict_us = evict_us;
        self.metrics = OperatorMetrics::default();
        self.processor_metrics.clear();
    }

    fn batch_started(&mut self, batch_id: i64, timestamp_ms: i64) {
        self.batch_id = batch_id;
        self.now_ms = timestamp_ms;
    }

    fn commit(&mut self) -> Result<()> {
        self.metrics.commit_ms = self.state.commit()?;
        Ok(())
    }

    fn progress(&self) -> serde_json::Value {
        let mut p = self.state.progress(self.flavor.name(), &self.metrics);
        if let Flavor::Processor { .. } = self.flavor {
            p["numRowsTotal"] = self.processor_rows.into();
            // Spark counts a processor's state rows written and removed
            // (a row per write; per value, list or map entry removed)
            for name in ["numRowsUpdated", "numRowsRemoved"] {
                if let Some(v) = self.processor_metrics.get(name) {
                    p[name] = v.clone();
                }
            }
            if let Some(custom) = p["customMetrics"].as_object_mut() {
                // each of Spark's tasks (one per partition) runs `init`, and
                // counts the variables it declares
                let tasks = self.state.len() as i64;
                for (name, v) in &self.processor_metrics {
                    if name.starts_with("numRows") {
                        continue;
                    }
                    let v = v.as_i64().unwrap_or(0);
                    let per_task = name.ends_with("StateVars") || name == "numDeletedStateVars";
                    custom.insert(name.clone(), (if per_task { v * tasks } else { v }).into());
                }
            }
        }
        p
    }

    fn next_timeout_ms(&self) -> Option<i64> {
        self.next_timeout_ms
            .filter(|_| self.timeout == GroupTimeout::ProcessingTime)
    }
}
