//! The watermark's effects on a streaming aggregation: rows behind it
//! dropped as late, groups it passed found for emission and eviction.

use super::*;

/// Windows of `size` starting at `starts`.
pub(super) fn window_array(starts: &[i64], size: i64) -> Result<arrow::array::StructArray> {
    let ends: Vec<i64> = starts.iter().map(|s| s + size).collect();
    Ok(window_struct(starts.to_vec().into(), ends.into(), None)?)
}

impl StatefulAggregate {
    /// `b` without its rows behind the watermark (Spark: event time <= watermark
    /// is late), which are counted and kept for the late-data output. With
    /// panes, a row is late for each window holding its pane that the
    /// watermark has passed; it is dropped when all of them are.
    pub(super) fn drop_late(
        &mut self,
        b: RecordBatch,
        parts: &AggregateParts,
        kind: EventTimeKey,
        wm: i64,
    ) -> Result<RecordBatch> {
        let idx = match kind {
            EventTimeKey::Window(i) | EventTimeKey::Timestamp(i) => i,
        };
        let (expr, _) = &parts.group_by.expr()[idx];
        let key_col = expr.evaluate(&b)?.into_array(b.num_rows())?;
        let pane = self.pane.filter(|p| p.key == idx);
        if self.none_late(&key_col, pane, wm)? {
            return Ok(b);
        }
        let (keep, late_count, late): (BooleanArray, usize, Option<RecordBatch>) = match pane {
            None => {
                let times = event_times(&key_col)?;
                let keep: BooleanArray = times
                    .iter()
                    .map(|t| Some(t.is_none_or(|t| t > wm)))
                    .collect();
                let n = keep.len() - keep.true_count();
                let late = if n > 0 {
                    Some(filter_record_batch(&b, &arrow::compute::not(&keep)?)?)
                } else {
                    None
                };
                (keep, n, late)
            }
            Some(pane) => {
                let starts = window_starts(&key_col)?;
                let mut keep = Vec::with_capacity(starts.len());
                // (row, window start) of each late pairing
                let (mut rows, mut late_starts) = (Vec::new(), Vec::new());
                // a batch holds few panes: their windows once each, not per row
                let mut by_pane: std::collections::HashMap<i64, (Vec<i64>, usize)> =
                    std::collections::HashMap::new();
                for (r, ps) in starts.iter().enumerate() {
                    let Some(ps) = ps else {
                        keep.push(true);
                        continue;
                    };
                    let (windows, n) = by_pane.entry(*ps).or_insert_with(|| {
                        let windows = pane.windows(*ps);
                        let n = windows.iter().filter(|w| *w + pane.size <= wm).count();
                        (windows, n)
                    });
                    let n = *n;
                    for w in &windows[..n] {
                        rows.push(r as u32);
                        late_starts.push(*w);
                    }
                    keep.push(n < windows.len());
                }
                let late = if rows.is_empty() {
                    None
                } else {
                    let taken = arrow::compute::take_record_batch(
                        &b,
                        &arrow::array::UInt32Array::from(rows),
                    )?;
                    Some(self.with_windows(taken, &late_starts, pane, expr.as_ref())?)
                };
                (keep.into(), late_starts.len(), late)
            }
        };
        if late_count == 0 {
            return Ok(b);
        }
        self.metrics.rows_dropped_by_watermark += late_count as u64;
        self.late_rows.extend(late);
        Ok(filter_record_batch(&b, &keep)?)
    }

    /// Whether no row of an event-time key column is late (the common case,
    /// told from its earliest time or pane without a pass per row).
    pub(super) fn none_late(
        &self,
        key_col: &ArrayRef,
        pane: Option<PaneSpec>,
        wm: i64,
    ) -> Result<bool> {
        let column = match (pane, key_col.as_struct_opt()) {
            // a null window's start is no time: read every row then
            (Some(_), Some(st)) if st.logical_null_count() > 0 => return Ok(false),
            (Some(_), Some(st)) => st.column(0),
            _ => event_time_column(key_col)?,
        };
        let times = micros_array(column)?;
        let Some(earliest) = arrow::compute::min(times.as_primitive::<Int64Type>()) else {
            return Ok(true);
        };
        Ok(match pane {
            // a later pane's windows end no earlier
            Some(pane) => pane.windows(earliest).iter().all(|w| w + pane.size > wm),
            None => earliest > wm,
        })
    }

    /// `b` with its pane column (when it is one) replaced by the windows starting at `starts`.
    pub(super) fn with_windows(
        &self,
        b: RecordBatch,
        starts: &[i64],
        pane: PaneSpec,
        expr: &dyn PhysicalExpr,
    ) -> Result<RecordBatch> {
        let Some(col) = expr.downcast_ref::<datafusion::physical_expr::expressions::Column>()
        else {
            return Ok(b);
        };
        let mut cols = b.columns().to_vec();
        cols[col.index()] = Arc::new(window_array(starts, pane.size)?);
        Ok(RecordBatch::try_new(b.schema(), cols)?)
    }

    /// Keys of partition `p` whose event time is at or below the watermark.
    /// Keys are ordered by their first column: when that is the event time,
    /// the scan stops at the first key still open.
    pub(super) fn expired(&self, p: usize, kind: EventTimeKey, wm: i64) -> Result<Vec<Vec<u8>>> {
        if self.time_keyed {
            // keys lead with their event time: those before wm + 1
            return self
                .state
                .store(p)
                .keys_below(&time_prefix(wm.saturating_add(1)));
        }
        let leading = matches!(kind, EventTimeKey::Window(0) | EventTimeKey::Timestamp(0));
        let idx = match kind {
            EventTimeKey::Window(i) | EventTimeKey::Timestamp(i) => i,
        };
        let mut keys = self.state.store(p).keys();
        let mut out = Vec::new();
        // keys decoded in growing chunks: a scan that stops early (window
        // first) decodes little more than what expired
        let mut chunk_len = 64;
        loop {
            let chunk = keys
                .by_ref()
                .take(chunk_len)
                .collect::<Result<Vec<Cow<[u8]>>>>()?;
            chunk_len = (chunk_len * 2).min(4096);
            if chunk.is_empty() {
                break;
            }
            let parser = self.converter.parser();
            let rows: Vec<_> = chunk.iter().map(|k| parser.parse(k)).collect();
            let cols = self.converter.convert_rows(rows)?;
            let times = event_times(&cols[idx])?;
            for (k, t) in chunk.iter().zip(times) {
                if t.is_some_and(|t| t <= wm) {
                    out.push(k.to_vec());
                } else if leading {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }
}
