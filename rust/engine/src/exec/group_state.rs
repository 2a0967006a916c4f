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
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchemaRef, Result as DFResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::{collect, ExecutionPlan, PhysicalExpr, PlanProperties};

use super::event_time::micros;
use super::operator::{
    blocking_batch, OpenContext, OperatorControl, OperatorSlot, StatefulOperator,
};
use crate::error::{Error, Result};
use crate::runtime::block_on;
use crate::state::partitioned::{OperatorMetrics, PartitionedState, StateLayout};
use crate::state::KeyOrder;

/// Which Python API a node serves; it decides the stored value's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// `applyInPandasWithState`: Spark's state format v2, `groupState` (a
    /// struct of the user's state fields) and `timeoutTimestamp`.
    PandasWithState,
    /// `transformWithStateInPandas` (or, `rows`, the row-based
    /// `transformWithState`): `state` (a field per state variable, timers
    /// among them), `timeoutTimestamp` (the earliest timer) and, when a
    /// variable has a TTL, `ttlExpiry` (the earliest expiry, in processing
    /// time): the engine reads only these two times.
    Processor {
        /// Whether any state variable has a TTL.
        ttl: bool,
        /// The row-based API (its own operator name in Spark).
        rows: bool,
    },
}

impl Flavor {
    /// Spark's operator name (progress, state metadata).
    fn name(self) -> &'static str {
        match self {
            Flavor::PandasWithState => "applyInPandasWithState",
            Flavor::Processor { rows: false, .. } => "transformWithStateInPandasExec",
            Flavor::Processor { rows: true, .. } => "transformWithStateInPySparkExec",
        }
    }

    /// Whether stored values carry a TTL expiry.
    fn ttl(self) -> bool {
        matches!(self, Flavor::Processor { ttl: true, .. })
    }

    /// The stored value's columns.
    fn value_fields(self, state: &[FieldRef]) -> Vec<FieldRef> {
        let name = match self {
            Flavor::PandasWithState => "groupState",
            Flavor::Processor { .. } => "state",
        };
        let mut fields: Vec<FieldRef> = vec![
            Arc::new(Field::new(
                name,
                DataType::Struct(Fields::from(state.to_vec())),
                true,
            )),
            Arc::new(Field::new("timeoutTimestamp", DataType::Int64, true)),
        ];
        if self.ttl() {
            fields.push(Arc::new(Field::new("ttlExpiry", DataType::Int64, true)));
        }
        fields
    }
}

/// What a processor (`transformWithState`) adds to its node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ProcessorSettings {
    /// Spark's `operatorProperties` (JSON: time and output mode, the state
    /// variables), shown by the state-metadata reader.
    pub properties: String,
    /// `eventTimeColumnName`: the output's event-time column, which carries
    /// the query's watermark on to the operators after this one.
    pub event_time_column: Option<String>,
}

/// The file in an operator's `_metadata` with a processor's properties.
pub const PROPERTIES_FILE: &str = "operatorProperties";

/// `GroupStateTimeout`: when a key's state times out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd)]
pub enum GroupTimeout {
    /// Never.
    NoTimeout,
    /// At a processing time set with `setTimeoutDuration`.
    ProcessingTime,
    /// When the watermark passes a time set with `setTimeoutTimestamp`.
    EventTime,
}

impl GroupTimeout {
    /// `NoTimeout`, `ProcessingTimeTimeout` or `EventTimeTimeout` (any case).
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "notimeout" => Ok(GroupTimeout::NoTimeout),
            "processingtimetimeout" => Ok(GroupTimeout::ProcessingTime),
            "eventtimetimeout" => Ok(GroupTimeout::EventTime),
            _ => Err(Error::analysis(
                "INVALID_TIMEOUT_CONF",
                format!(
                    "Unknown timeout conf '{s}': use GroupStateTimeout.NoTimeout, ProcessingTimeTimeout or EventTimeTimeout."
                ),
            )),
        }
    }
}

/// A batch's groups, as the user's function is called with them.
pub struct Groups {
    /// The micro-batch.
    pub batch_id: i64,
    /// The input rows group by group.
    pub data: RecordBatch,
    /// Group `i` is rows `offsets[i]..offsets[i + 1]` of `data` (none for
    /// a key that timed out); one more entry than groups.
    pub offsets: Vec<usize>,
    /// One row per group: its key columns.
    pub keys: RecordBatch,
    /// One row per group: `state` (the state struct, null when none),
    /// `timeoutTimestamp` (ms, null when none) and `timedOut`.
    pub states: RecordBatch,
    /// The watermark (ms) state times out by, if the query has one.
    pub watermark_ms: Option<i64>,
    /// The batch's processing time (ms).
    pub processing_time_ms: i64,
}

/// What the function made of a batch's groups.
pub struct GroupsDone {
    /// The rows to emit (the output schema).
    pub output: Vec<RecordBatch>,
    /// One row per group, then one per new key: `state` (null: none),
    /// `timeoutTimestamp` (ms, null: none), `ttlExpiry` when the flavor
    /// has it, and `changed` (whether to write them back).
    pub states: RecordBatch,
    /// Keys (their columns) the call gave a state that were not among the
    /// groups (a processor's initial state).
    pub new_keys: Option<RecordBatch>,
}

/// The user's function over a batch's groups.
pub trait GroupFunction: Send + Sync {
    /// Call it for every group of `groups`.
    fn call(&self, groups: Groups) -> Result<GroupsDone>;
}

/// The function in a plan node, compared by identity.
pub type UserFunction = super::operator::ByIdentity<dyn GroupFunction>;

/// The logical `groupBy(keys).applyInPandasWithState(...)` of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupStateNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// Grouping columns of the input.
    pub keys: Vec<String>,
    /// The user's function.
    pub func: UserFunction,
    /// The output schema (`outputStructType`).
    pub output: DFSchemaRef,
    /// The state's fields (`stateStructType`; the state variables).
    pub state: Vec<FieldRef>,
    /// The API it serves.
    pub flavor: Flavor,
    /// `timeoutConf`.
    pub timeout: GroupTimeout,
    /// A processor's settings.
    pub processor: Option<ProcessorSettings>,
    /// The running query's operator.
    pub slot: OperatorSlot<GroupStateOp>,
}

impl PartialOrd for GroupStateNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        // nodes are told apart by identity; no order among them
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

fn converter(fields: &[FieldRef]) -> Result<RowConverter> {
    Ok(RowConverter::new(
        fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect(),
    )?)
}

impl GroupStateNode {
    /// The node with its operator opened for a running query.
    pub fn open(&self, ctx: &OpenContext) -> Result<(Self, Arc<dyn OperatorControl>)> {
        let time_column = ctx.watermarks.first().map(|(c, _)| c.clone());
        if self.timeout == GroupTimeout::EventTime && time_column.is_none() {
            return Err(Error::analysis(
                "UNSUPPORTED_STREAMING_OPERATION",
                format!("Watermark must be specified in the query using '[Dataset/DataFrame].withWatermark()' for using event-time timeout in a {}. Event-time timeout not supported without watermark.", self.flavor.name()),
            ));
        }
        let schema = self.input.schema().as_arrow();
        let key_fields = self
            .keys
            .iter()
            .map(|k| Ok(Arc::new(schema.field_with_name(k)?.clone())))
            .collect::<Result<Vec<FieldRef>>>()?;
        let values = self.flavor.value_fields(&self.state);
        ctx.spec.claim(self.flavor.name(), &["default"])?;
        let mut spec = ctx.spec.clone();
        if matches!(self.flavor, Flavor::Processor { .. }) {
            if spec
                .dir
                .join("_metadata")
                .join("layout-default.arrow")
                .exists()
            {
                let stored = StateLayout::read(&spec.dir, "default")?;
                super::processor_schema::check_restart(&stored.value, &values, spec.encoding)?;
            }
            // values written with earlier variables are read as declared now
            spec.evolution = Some(Arc::new(
                crate::state::processor_evolution::ProcessorEvolution {
                    encoding: spec.encoding,
                },
            ));
        }
        let layout = StateLayout {
            key: key_fields.clone(),
            time: None,
            value: values.clone(),
            rows: None,
        };
        match spec.evolution {
            Some(_) => layout.record_evolving(&spec, "default")?,
            None => layout.record(&spec, "default")?,
        }
        if let Some(settings) = &self.processor {
            // rewritten at each start: the processor's variables may change
            crate::checkpoint::log::write_atomic(
                &ctx.spec.dir.join("_metadata").join(PROPERTIES_FILE),
                settings.properties.as_bytes(),
                spec.durable,
            )?;
        }
        let mut op = GroupStateOp {
            state: PartitionedState::open(ctx.provider, &spec, &values, KeyOrder::Unordered)?,
            key_conv: converter(&key_fields)?,
            value_conv: converter(&values)?,
            key_schema: Arc::new(Schema::new(key_fields)),
            state_type: values[0].data_type().clone(),
            value_columns: values.len(),
            func: self.func.clone(),
            flavor: self.flavor,
            output: Arc::new(self.output.as_arrow().clone()),
            timeout: self.timeout,
            time_column,
            late_us: None,
            evict_us: None,
            batch_id: 0,
            now_ms: 0,
            next_timeout_ms: None,
            metrics: OperatorMetrics::default(),
            processor_rows: 0,
            processor_metrics: serde_json::Map::new(),
            unsupported_provider: None,
            event_time_column: self
                .processor
                .as_ref()
                .and_then(|p| p.event_time_column.clone()),
        };
        if matches!(self.flavor, Flavor::Processor { .. }) {
            op.processor_rows = op.stored_processor_rows()?;
            // Spark keeps a processor's variables in column families, which
            // only its RocksDB provider has
            let class = ctx.provider.spark_class();
            op.unsupported_provider =
                (!class.ends_with("RocksDBStateStoreProvider")).then_some(class);
        }
        let node = GroupStateNode {
            slot: OperatorSlot::empty(),
            ..self.clone()
        };
        let control = node.slot.open(op);
        Ok((node, control))
    }
}

impl UserDefinedLogicalNodeCore for GroupStateNode {
    fn name(&self) -> &str {
        "FlatMapGroupsInPandasWithState"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.output
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "FlatMapGroupsInPandasWithState: [{}], timeout={:?}",
            self.keys.join(", "),
            self.timeout
        )
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        Ok(GroupStateNode {
            input: inputs.swap_remove(0),
            ..self.clone()
        })
    }
}

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

    /// Spark's check on a processor's `eventTimeColumnName`: no emitted row
    /// may be behind the watermark late rows are dropped by.
    fn check_emitted_event_times(&self, output: &RecordBatch) -> Result<()> {
        let (Some(column), Some(late)) = (&self.event_time_column, self.late_us) else {
            return Ok(());
        };
        let times = micros(output.column(output.schema().index_of(column)?))?;
        if let Some(t) = times.into_iter().flatten().find(|t| *t < late) {
            let at = |us: i64| {
                chrono::DateTime::from_timestamp_micros(us).map_or(us.to_string(), |d| {
                    d.format("%Y-%m-%d %H:%M:%S%.f").to_string()
                })
            };
            return Err(Error::analysis(
                "EMITTING_ROWS_OLDER_THAN_WATERMARK_NOT_ALLOWED",
                format!(
                    "Previous node emitted a row with eventTime={} which is older than current_watermark_value={}\n\
                     This can lead to correctness issues in the stateful operators downstream in the execution pipeline.\n\
                     Please correct the operator logic to emit rows after current global watermark value.",
                    at(t),
                    at(late)
                ),
            ));
        }
        Ok(())
    }

    /// A processor's state rows over every stored key (at open).
    fn stored_processor_rows(&self) -> Result<i64> {
        let mut values = Vec::new();
        for p in 0..self.state.len() {
            let store = self.state.store(p);
            for k in store.keys() {
                values.push(store.get_bytes(&k?)?.map(|v| v.into_owned()));
            }
        }
        let cols = self.decode_values(&values)?;
        Ok(cols
            .first()
            .map_or(0, |c| processor_rows(c.as_struct()).iter().sum()))
    }

    /// Account for a processor's batch: the state rows its changed keys
    /// gained or lost (`before`: per group) and the counts it reported.
    fn count_processor_rows(&mut self, before: &[i64], states: &RecordBatch) -> Result<()> {
        let after = processor_rows(states.column(0).as_struct());
        let changed = states
            .column_by_name("changed")
            .ok_or_else(|| Error::Internal("the group results have no 'changed' column".into()))?
            .as_boolean();
        for (i, n) in after.iter().enumerate() {
            if changed.value(i) {
                self.processor_rows += n - before.get(i).copied().unwrap_or(0);
            }
        }
        if let Some(json) = states.schema().metadata().get(PROCESSOR_METRICS) {
            let counts: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json)
                .map_err(|e| Error::Internal(format!("the processor's counts: {e}")))?;
            for (name, v) in counts {
                let sum = self
                    .processor_metrics
                    .get(&name)
                    .and_then(|x| x.as_i64())
                    .unwrap_or(0)
                    + v.as_i64().unwrap_or(0);
                self.processor_metrics.insert(name, sum.into());
            }
        }
        Ok(())
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

/// The schema metadata key of a processor's counts (JSON) in its results.
const PROCESSOR_METRICS: &str = "sparklet.metrics";

/// Per key of a processor's `state` structs, its rows as Spark's state
/// store holds them: one per value variable set, one per non-empty list,
/// one per map entry (a list of entries with a `key`); timers are Spark's
/// internal rows and not counted.
fn processor_rows(state: &StructArray) -> Vec<i64> {
    let mut rows = vec![0i64; state.len()];
    for (field, col) in state.fields().iter().zip(state.columns()) {
        if field.name() == "__timers" {
            continue;
        }
        match col.data_type() {
            DataType::List(item) => {
                let is_map =
                    matches!(item.data_type(), DataType::Struct(f) if f.find("key").is_some());
                let list = col.as_list::<i32>();
                for (i, n) in rows.iter_mut().enumerate() {
                    if state.is_valid(i) && list.is_valid(i) {
                        let len = list.value_length(i) as i64;
                        *n += if is_map { len } else { (len > 0) as i64 };
                    }
                }
            }
            _ => {
                for (i, n) in rows.iter_mut().enumerate() {
                    *n += (state.is_valid(i) && col.is_valid(i)) as i64;
                }
            }
        }
    }
    rows
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

/// The physical operator: the whole batch's input, then one call.
#[derive(Debug)]
pub struct GroupStateExec {
    input: Arc<dyn ExecutionPlan>,
    slot: OperatorSlot<GroupStateOp>,
    properties: Arc<PlanProperties>,
}

/// Plan `node` over its physical `input`.
pub fn plan(node: &GroupStateNode, input: Arc<dyn ExecutionPlan>) -> GroupStateExec {
    use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
    let schema: SchemaRef = Arc::new(node.output.as_arrow().clone());
    let properties = Arc::new(PlanProperties::new(
        datafusion::physical_expr::EquivalenceProperties::new(schema),
        datafusion::physical_plan::Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ));
    GroupStateExec {
        input,
        slot: node.slot.clone(),
        properties,
    }
}

impl datafusion::physical_plan::DisplayAs for GroupStateExec {
    fn fmt_as(
        &self,
        _t: datafusion::physical_plan::DisplayFormatType,
        f: &mut fmt::Formatter,
    ) -> fmt::Result {
        write!(f, "FlatMapGroupsInPandasWithStateExec")
    }
}

impl ExecutionPlan for GroupStateExec {
    fn name(&self) -> &str {
        "FlatMapGroupsInPandasWithStateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DFResult<TreeNodeRecursion>,
    ) -> DFResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(GroupStateExec {
            input: children.swap_remove(0),
            slot: self.slot.clone(),
            properties: Arc::clone(&self.properties),
        }))
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DFResult<datafusion::execution::SendableRecordBatchStream> {
        let (slot, input) = (self.slot.clone(), Arc::clone(&self.input));
        // the whole input first (a key is called once per batch)
        Ok(blocking_batch(
            Arc::clone(self.properties.eq_properties.schema()),
            move || {
                let input_schema = input.schema();
                let batches = block_on(collect(input, context))?.map_err(Error::from_execution)?;
                slot.with(|op| op.process(&batches, &input_schema))
            },
        ))
    }
}
