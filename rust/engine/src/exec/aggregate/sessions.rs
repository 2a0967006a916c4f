//! Session windows: a key's sessions merged with the batch's rows and
//! each other, and emitted as their gaps close.

use super::*;

/// A session of one key while merging: stored or new, and which stored keys it absorbed.
pub(super) struct SessionPiece {
    pub(super) start: i64,
    pub(super) end: i64,
    pub(super) state: StateRow,
    pub(super) changed: bool,
    pub(super) keys: Vec<Vec<u8>>,
}

/// The `Int64` at `i` of a stored row (session bounds).
pub(super) fn int_at(row: &[ScalarValue], i: usize) -> i64 {
    match row.get(i) {
        Some(ScalarValue::Int64(Some(x))) => *x,
        _ => 0,
    }
}

impl StatefulAggregate {
    /// Merge two state rows of the same aggregates.
    pub(super) fn merge_states(&self, a: &[ScalarValue], b: &[ScalarValue]) -> Result<StateRow> {
        let mut accs = self.accumulators_for(Some(&a.to_vec()))?;
        let mut at = 0;
        for (acc, w) in accs.iter_mut().zip(&self.widths) {
            let arrays = b[at..at + w]
                .iter()
                .map(|v| v.to_array())
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&arrays)?;
            at += w;
        }
        let mut state = Vec::new();
        for acc in accs.iter_mut() {
            state.extend(acc.state()?);
        }
        Ok(state)
    }

    /// Session windows (Spark's `MergingSessionsExec` + session state store):
    /// each partial row is a row's own session `[ts, ts + gap)` for a key; it
    /// is merged with the key's stored sessions wherever they overlap.
    pub(super) fn process_sessions(
        &mut self,
        partial: &[RecordBatch],
        watermark_us: Option<i64>,
    ) -> Result<Vec<RecordBatch>> {
        let Some((si, prefix_conv)) = &self.session else {
            return Ok(vec![]);
        };
        let si = *si;
        let width: usize = self.widths.iter().sum();
        type Piece = (i64, i64, StateRow);
        let mut by_prefix: std::collections::BTreeMap<Vec<u8>, Vec<Piece>> =
            std::collections::BTreeMap::new();
        for b in partial {
            let others: Vec<ArrayRef> = (0..self.num_keys)
                .filter(|i| *i != si)
                .map(|i| Arc::clone(b.column(i)))
                .collect();
            // no other keys: every row shares the empty prefix (a converter
            // over no columns makes no rows)
            let prefixes = if others.is_empty() {
                None
            } else {
                Some(prefix_conv.convert_columns(&others)?)
            };
            let sess = b
                .column(si)
                .as_struct_opt()
                .ok_or_else(|| Error::Internal("session_window key is not a struct".into()))?;
            let starts = micros(sess.column(0))?;
            let ends = micros(sess.column(1))?;
            for r in 0..b.num_rows() {
                if sess.is_null(r) {
                    continue; // a row without a valid gap has no session
                }
                let (Some(start), Some(end)) = (starts[r], ends[r]) else {
                    continue;
                };
                let state = (self.num_keys..self.num_keys + width)
                    .map(|c| ScalarValue::try_from_array(b.column(c), r))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let prefix = prefixes
                    .as_ref()
                    .map_or_else(Vec::new, |p| p.row(r).as_ref().to_vec());
                by_prefix
                    .entry(prefix)
                    .or_default()
                    .push((start, end, state));
            }
        }
        let session_key = |prefix: &[u8], start: i64| {
            let mut k = prefix.to_vec();
            k.extend_from_slice(&time_prefix(start));
            k
        };
        let mut updated: Vec<Vec<u8>> = Vec::new();
        for (prefix, new) in by_prefix {
            let p = self.partition_of(&prefix);
            let stored = self.state.store(p).scan_prefix(&prefix)?;
            let mut all: Vec<SessionPiece> = stored
                .into_iter()
                .map(|(k, v)| SessionPiece {
                    start: int_at(&v, width),
                    end: int_at(&v, width + 1),
                    state: v[..width].to_vec(),
                    changed: false,
                    keys: vec![k],
                })
                .collect();
            all.extend(new.into_iter().map(|(start, end, state)| SessionPiece {
                start,
                end,
                state,
                changed: true,
                keys: vec![],
            }));
            all.sort_by_key(|x| x.start);
            let mut merged: Vec<SessionPiece> = Vec::new();
            for piece in all {
                match merged.last_mut() {
                    // sessions that touch are one (Spark: a start at the end merges)
                    Some(cur) if piece.start <= cur.end => {
                        cur.end = cur.end.max(piece.end);
                        cur.state = self.merge_states(&cur.state, &piece.state)?;
                        cur.changed = true;
                        cur.keys.extend(piece.keys);
                    }
                    _ => merged.push(piece),
                }
            }
            for piece in merged.into_iter().filter(|m| m.changed) {
                for k in &piece.keys {
                    self.state.store_mut(p).remove(k);
                }
                let key = session_key(&prefix, piece.start);
                let mut value = piece.state;
                value.push(ScalarValue::Int64(Some(piece.start)));
                value.push(ScalarValue::Int64(Some(piece.end)));
                self.state.store_mut(p).put(key.clone(), value)?;
                updated.push(key);
            }
        }
        self.metrics.rows_updated = updated.len() as u64;
        // what to emit, then evict sessions the watermark has passed
        let mut emit: Vec<(Vec<u8>, StateRow)> = Vec::new();
        match self.mode {
            OutputMode::Complete => {
                for p in 0..self.state.len() {
                    emit.extend(self.state.store(p).entries()?);
                }
            }
            OutputMode::Update => {
                for k in &updated {
                    let p = self.partition_of(&k[..k.len() - 8]);
                    if let Some(v) = self.state.store(p).get(k)? {
                        emit.push((k.clone(), v));
                    }
                }
            }
            OutputMode::Append => {}
        }
        if let Some(wm) = watermark_us {
            for p in 0..self.state.len() {
                let expired: Vec<(Vec<u8>, StateRow)> = self
                    .state
                    .store(p)
                    .entries()?
                    .into_iter()
                    .filter(|(_, v)| int_at(v, width + 1) <= wm)
                    .collect();
                for (k, v) in expired {
                    if self.mode == OutputMode::Append {
                        emit.push((k.clone(), v));
                    }
                    self.state.store_mut(p).remove(&k);
                    self.metrics.rows_removed += 1;
                }
            }
        }
        emit.sort_by(|a, b| a.0.cmp(&b.0));
        self.session_rows(emit, width)
    }

    pub(super) fn session_rows(
        &self,
        emit: Vec<(Vec<u8>, StateRow)>,
        width: usize,
    ) -> Result<Vec<RecordBatch>> {
        let Some((si, prefix_conv)) = &self.session else {
            return Ok(vec![]);
        };
        if emit.is_empty() {
            return Ok(vec![]);
        }
        let parser = prefix_conv.parser();
        let rows: Vec<_> = emit
            .iter()
            .map(|(k, _)| parser.parse(&k[..k.len() - 8]))
            .collect();
        let others = prefix_conv.convert_rows(rows)?;
        let bound = |i: usize| -> arrow::array::TimestampMicrosecondArray {
            emit.iter()
                .map(|(_, v)| match &v[width + i] {
                    ScalarValue::Int64(x) => *x,
                    _ => None,
                })
                .collect::<arrow::array::TimestampMicrosecondArray>()
                .with_timezone("UTC")
        };
        let session = arrow::array::StructArray::try_new(
            match self.out_schema.field(*si).data_type() {
                DataType::Struct(f) => f.clone(),
                _ => {
                    return Err(Error::Internal(
                        "session_window column is not a struct".into(),
                    ))
                }
            },
            vec![Arc::new(bound(0)), Arc::new(bound(1))],
            None,
        )?;
        let mut cols: Vec<ArrayRef> = Vec::new();
        let mut other = others.into_iter();
        for i in 0..self.num_keys {
            cols.push(if i == *si {
                Arc::new(session.clone())
            } else {
                other
                    .next()
                    .ok_or_else(|| Error::Internal("session key columns".into()))?
            });
        }
        let values = emit
            .iter()
            .map(|(_, v)| self.evaluate(&v[..width].to_vec()))
            .collect::<Result<Vec<_>>>()?;
        self.output_batch(cols, scalar_columns(&values, self.aggr.len())?)
    }
}
