//! What a `transformWithState` processor adds to per-key state: Spark's
//! count of its state rows, its custom metrics, and the check that rows it
//! emits are not behind the watermark.

use super::*;

/// The schema metadata key of a processor's counts (JSON) in its results.
pub(super) const PROCESSOR_METRICS: &str = "sparklet.metrics";

/// Per key of a processor's `state` structs, its rows as Spark's state
/// store holds them: one per value variable set, one per non-empty list,
/// one per map entry (a list of entries with a `key`); timers are Spark's
/// internal rows and not counted.
pub(super) fn processor_rows(state: &StructArray) -> Vec<i64> {
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

impl GroupStateOp {
    /// Spark's check on a processor's `eventTimeColumnName`: no emitted row
    /// may be behind the watermark late rows are dropped by.
    pub(super) fn check_emitted_event_times(&self, output: &RecordBatch) -> Result<()> {
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
    pub(super) fn stored_processor_rows(&self) -> Result<i64> {
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
    pub(super) fn count_processor_rows(
        &mut self,
        before: &[i64],
        states: &RecordBatch,
    ) -> Result<()> {
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
}
