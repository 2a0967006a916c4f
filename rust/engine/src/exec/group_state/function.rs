//! The contract with the user's function (the Python runner): the API it
//! serves, its timeout, the groups it is handed and what it gives back.

use super::*;

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
    pub(super) fn name(self) -> &'static str {
        match self {
            Flavor::PandasWithState => "applyInPandasWithState",
            Flavor::Processor { rows: false, .. } => "transformWithStateInPandasExec",
            Flavor::Processor { rows: true, .. } => "transformWithStateInPySparkExec",
        }
    }

    /// Whether stored values carry a TTL expiry.
    pub(super) fn ttl(self) -> bool {
        matches!(self, Flavor::Processor { ttl: true, .. })
    }

    /// The stored value's columns.
    pub(super) fn value_fields(self, state: &[FieldRef]) -> Vec<FieldRef> {
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
pub type UserFunction = super::super::operator::ByIdentity<dyn GroupFunction>;
