//! Merging a batch's partial aggregate states into the stored ones: rows
//! routed to their partition, each key's accumulators merged, what changed
//! kept for the output mode.

use super::accumulators::{groups_accumulator, row_accumulator};
use super::*;

pub(super) type Accumulators = Vec<Box<dyn datafusion::logical_expr::Accumulator>>;

/// Fresh accumulators for `aggr` (`keyed`: see [`row_accumulator`]), with
/// a stored state row merged in.
pub(super) fn accumulators_for(
    aggr: &[Arc<AggregateFunctionExpr>],
    widths: &[usize],
    keyed: bool,
    state: Option<&StateRow>,
) -> Result<Accumulators> {
    let mut accs = aggr
        .iter()
        .map(|a| row_accumulator(a, keyed))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if let Some(row) = state {
        let mut at = 0;
        for (acc, w) in accs.iter_mut().zip(widths) {
            let arrays = row[at..at + w]
                .iter()
                .map(|v| v.to_array())
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&arrays)?;
            at += w;
        }
    }
    Ok(accs)
}

/// One partition's share of a batch's partial aggregation: the (partial
/// batch, row) of each partial row routed to it, and its stored key.
#[derive(Default, Clone)]
pub(super) struct Work {
    pub(super) rows: Vec<(u32, u32)>,
    pub(super) keys: KeyBuffer,
}

impl Work {
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub(super) fn push(&mut self, batch: usize, row: usize, key: &[&[u8]]) {
        self.rows.push((batch as u32, row as u32));
        self.keys.push(key);
    }

    pub(super) fn append(&mut self, other: Work) {
        self.rows.extend(other.rows);
        self.keys.append(other.keys);
    }
}

/// What merging a partition updated: its keys and, when they were asked
/// for (update mode emits them), their aggregate values as columns, one per
/// aggregate, in the keys' order.
#[derive(Default)]
pub(super) struct Updated {
    pub(super) keys: KeyBuffer,
    /// The keys decoded into the grouping columns, when the partition's
    /// task did it (in parallel with the others' instead of after them).
    pub(super) key_columns: Option<Vec<ArrayRef>>,
    pub(super) values: Vec<ArrayRef>,
    /// How many groups were updated (the keys may be left out).
    pub(super) groups: usize,
    /// Whether each key had a stored state before the merge (when asked
    /// for: a sliding window's panes tell new windows from old by it).
    pub(super) existed: Vec<bool>,
    /// With those, each key's state after the merge, as stored.
    pub(super) merged: Option<arrow::row::Rows>,
}

impl Updated {
    /// From rows of (key, aggregate values), with `n` aggregates.
    pub(super) fn from_rows(rows: Vec<(Vec<u8>, Vec<ScalarValue>)>, n: usize) -> Result<Self> {
        let (keys, values): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
        Ok(Updated {
            values: scalar_columns(&values, n)?,
            groups: keys.len(),
            keys: keys.into_iter().collect(),
            key_columns: None,
            existed: Vec::new(),
            merged: None,
        })
    }
}

/// Rows of `n` values as `n` columns (none when the rows have no values).
pub(super) fn scalar_columns(rows: &[Vec<ScalarValue>], n: usize) -> Result<Vec<ArrayRef>> {
    if rows.first().is_none_or(Vec::is_empty) {
        return Ok(Vec::new());
    }
    Ok((0..n)
        .map(|i| ScalarValue::iter_to_array(rows.iter().map(|v| v[i].clone())))
        .collect::<std::result::Result<Vec<_>, _>>()?)
}

/// Routes partial rows to the state partitions: each row's stored key (for
/// panes: one per window holding it that the watermark has not passed) and
/// the partition owning it.
pub(super) struct Router<'a> {
    pub(super) converter: &'a RowConverter,
    pub(super) pane: Option<PaneSpec>,
    pub(super) num_keys: usize,
    /// The key whose event time leads the stored key (time-keyed stores).
    pub(super) time_key: Option<usize>,
    pub(super) partitions: usize,
    pub(super) late_us: Option<i64>,
    /// Sliding windows kept by slices: the other keys' encoding (see
    /// `slices`), each partial row stored as its pane.
    pub(super) slices: Option<&'a RowConverter>,
}

impl Router<'_> {
    /// Each partition's work from all partial batches: split over `lanes`
    /// threads when there are many rows (encoding keys was a tenth of a
    /// sliding-window query, on one core), in the batches' order.
    pub(super) fn route_all(&self, batches: &[RecordBatch], lanes: usize) -> Result<Vec<Work>> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        if lanes < 2 || batches.len() < 2 || rows < PARALLEL_ROWS {
            return self.route(batches, 0);
        }
        let chunk = batches.len().div_ceil(lanes);
        let chunks: Vec<(usize, &[RecordBatch])> = batches.chunks(chunk).enumerate().collect();
        let parts = parallel_map(chunks, |(c, bs)| self.route(bs, c * chunk))?;
        let mut work: Vec<Work> = vec![Work::default(); self.partitions];
        for part in parts {
            for (w, items) in work.iter_mut().zip(part) {
                w.append(items);
            }
        }
        Ok(work)
    }

    /// Each partition's work from `batches`, the first being partial batch `first`.
    pub(super) fn route(&self, batches: &[RecordBatch], first: usize) -> Result<Vec<Work>> {
        let mut work: Vec<Work> = vec![Work::default(); self.partitions];
        for (bi, b) in batches.iter().enumerate() {
            if let (Some(others), Some(pane)) = (self.slices, self.pane) {
                self.route_slices(b, first + bi, others, pane, &mut work)?;
                continue;
            }
            let (source_rows, keys) = match self.pane {
                Some(pane) => self.pane_keys(b, pane)?,
                None => (None, b.columns()[..self.num_keys].to_vec()),
            };
            // a global aggregation (no keys): every row is the one group, its key empty
            let rows = (!keys.is_empty())
                .then(|| self.converter.convert_columns(&keys))
                .transpose()?;
            let times = match self.time_key {
                Some(i) => event_times(&keys[i])?,
                None => Vec::new(),
            };
            let mut key = Vec::new();
            let n = rows.as_ref().map_or(b.num_rows(), |rows| rows.num_rows());
            for r in 0..n {
                key.clear();
                if let Some(t) = times.get(r) {
                    // no event time: never closed (as without the index)
                    key.extend_from_slice(&time_prefix(t.unwrap_or(i64::MAX)));
                }
                if let Some(rows) = &rows {
                    key.extend_from_slice(rows.row(r).as_ref());
                }
                let src = source_rows.as_ref().map_or(r, |s| s[r] as usize);
                work[partition_for(&key, self.partitions)].push(first + bi, src, &[&key]);
            }
        }
        Ok(work)
    }

    /// Key columns of a partial batch with each pane row expanded into the
    /// windows holding it that the watermark has not passed, and for each
    /// expanded row the partial row it came from.
    pub(super) fn pane_keys(
        &self,
        b: &RecordBatch,
        pane: PaneSpec,
    ) -> Result<(Option<Vec<u32>>, Vec<ArrayRef>)> {
        let starts = window_starts(b.column(pane.key))?;
        let (mut rows, mut window_starts_v) = (Vec::new(), Vec::new());
        // rows of a pane come together: its windows once per run of rows
        let mut last: Option<(i64, Vec<i64>)> = None;
        for (r, ps) in starts.iter().enumerate() {
            let Some(ps) = ps else { continue };
            if last.as_ref().is_none_or(|(p, _)| p != ps) {
                last = Some((*ps, pane.windows(*ps)));
            }
            for &w in last.iter().flat_map(|(_, ws)| ws) {
                if self.late_us.is_none_or(|wm| w + pane.size > wm) {
                    rows.push(r as u32);
                    window_starts_v.push(w);
                }
            }
        }
        let indices = arrow::array::UInt32Array::from(rows.clone());
        let mut keys = Vec::with_capacity(self.num_keys);
        for (i, c) in b.columns()[..self.num_keys].iter().enumerate() {
            keys.push(if i == pane.key {
                Arc::new(window_array(&window_starts_v, pane.size)?) as ArrayRef
            } else {
                arrow::compute::take(c.as_ref(), &indices, None)?
            });
        }
        Ok((Some(rows), keys))
    }
}

/// The stored states of some of a partition's groups, as columns.
pub(super) struct Stored {
    pub(super) columns: Vec<ArrayRef>,
    /// The group of each stored row.
    pub(super) groups: Vec<usize>,
    /// Whether each group had a stored state.
    pub(super) existed: Vec<bool>,
}

/// The aggregates and how their partial states lie in the partial batches.
pub(super) struct Merge<'a> {
    pub(super) partial: &'a [RecordBatch],
    pub(super) aggr: &'a [Arc<AggregateFunctionExpr>],
    pub(super) widths: &'a [usize],
    pub(super) num_keys: usize,
    /// Whether to evaluate each updated key's aggregates.
    pub(super) evaluate: bool,
    /// Whether to give back the updated keys and whether each existed.
    pub(super) keep_existed: bool,
    /// The stores' encoding of state rows: with it, states move between
    /// store and accumulators as bytes, column by column.
    pub(super) codec: &'a Codec,
    /// The encoding of the grouping keys, after `key_skip` bytes of a
    /// stored key (its event-time prefix).
    pub(super) converter: &'a RowConverter,
    pub(super) key_skip: usize,
}

impl Merge<'_> {
    /// Stored keys as the grouping columns.
    pub(super) fn key_columns(&self, keys: &KeyBuffer) -> Result<Vec<ArrayRef>> {
        parse_keys(self.converter, keys.iter(), self.key_skip)
    }

    /// Merge the partition's partial rows into its store.
    pub(super) fn partition(&self, store: &mut dyn StateStore, items: Work) -> Result<Updated> {
        if items.is_empty() {
            return Ok(Updated::default());
        }
        self.by_groups(store, items)
    }

    /// The stored states of `keys` (one batched lookup, decoded in one
    /// pass when the store holds bytes).
    pub(super) fn stored(&self, store: &dyn StateStore, keys: &[&[u8]]) -> Result<Stored> {
        let mut groups = Vec::new();
        let mut existed = vec![false; keys.len()];
        if let Some(conv) = &self.codec.conv {
            let mut bytes = arrow::array::BinaryBuilder::new();
            store.get_bytes_each(keys, &mut |g, v| {
                bytes.append_value(v);
                groups.push(g);
                existed[g] = true;
                Ok(())
            })?;
            let columns = if groups.is_empty() {
                Vec::new()
            } else {
                decode_rows(conv, &bytes.finish())?
            };
            return Ok(Stored {
                columns,
                groups,
                existed,
            });
        }
        // the stored rows as columns (values moved, not cloned)
        let mut columns: Vec<Vec<ScalarValue>> = vec![Vec::new(); self.widths.iter().sum()];
        for (g, key) in keys.iter().enumerate() {
            if let Some(row) = store.get(key)? {
                for (column, v) in columns.iter_mut().zip(row) {
                    column.push(v);
                }
                groups.push(g);
                existed[g] = true;
            }
        }
        let columns = if groups.is_empty() {
            Vec::new()
        } else {
            columns
                .into_iter()
                .map(ScalarValue::iter_to_array)
                .collect::<std::result::Result<Vec<_>, _>>()?
        };
        Ok(Stored {
            columns,
            groups,
            existed,
        })
    }

    /// All keys at once, with DataFusion's groups accumulators (one per
    /// aggregate, not one per key): stored states and partial rows are
    /// merged column by column.
    pub(super) fn by_groups(&self, store: &mut dyn StateStore, items: Work) -> Result<Updated> {
        // foldhash: SipHash over a batch's keys was a twentieth of q5's time
        let mut group_of: hashbrown::HashMap<&[u8], usize, foldhash::fast::FixedState> =
            hashbrown::HashMap::with_capacity_and_hasher(items.len(), Default::default());
        let mut keys: Vec<&[u8]> = Vec::new();
        let mut by_batch: Vec<(Vec<u32>, Vec<usize>)> =
            vec![Default::default(); self.partial.len()];
        for (key, &(bi, r)) in items.keys.iter().zip(&items.rows) {
            let g = *group_of.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
            by_batch[bi as usize].0.push(r);
            by_batch[bi as usize].1.push(g);
        }
        drop(group_of);
        // groups in the order they came (a store that reads faster in key
        // order sorts its lookups itself)
        let n = keys.len();
        let stored = self.stored(store, &keys)?;
        // stored states and every partial row go into one merge per
        // aggregate: a groups accumulator takes the groups below its
        // `total_num_groups` as seen when a merge has no nulls, so a merge
        // of some groups first would make the others' null sums 0
        let mut sources: Vec<(usize, usize)> =
            Vec::with_capacity(stored.groups.len() + items.len());
        let mut group_indices: Vec<usize> = Vec::with_capacity(sources.capacity());
        sources.extend((0..stored.groups.len()).map(|i| (0, i)));
        group_indices.extend_from_slice(&stored.groups);
        for (bi, (rows, groups)) in by_batch.iter().enumerate() {
            sources.extend(rows.iter().map(|&r| (bi + 1, r as usize)));
            group_indices.extend_from_slice(groups);
        }
        let mut states: Vec<ArrayRef> = Vec::new();
        let mut at = 0;
        for (a, w) in self.aggr.iter().zip(self.widths) {
            let mut acc = groups_accumulator(a, self.num_keys > 0)?;
            let values = (0..*w)
                .map(|c| {
                    let empty;
                    let stored_col: &dyn Array = match stored.columns.get(at + c) {
                        Some(col) => col.as_ref(),
                        None => {
                            empty = arrow::array::new_empty_array(
                                self.partial[0].column(self.num_keys + at + c).data_type(),
                            );
                            empty.as_ref()
                        }
                    };
                    let mut from: Vec<&dyn Array> = vec![stored_col];
                    from.extend(
                        self.partial
                            .iter()
                            .map(|b| b.column(self.num_keys + at + c).as_ref()),
                    );
                    arrow::compute::interleave(&from, &sources)
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            acc.merge_batch(&values, &group_indices, n)?;
            states.extend(acc.state(EmitTo::All)?);
            at += w;
        }
        let mut values = Vec::new();
        if self.evaluate {
            let all: Vec<usize> = (0..n).collect();
            let mut at = 0;
            for (a, w) in self.aggr.iter().zip(self.widths) {
                let mut acc = groups_accumulator(a, self.num_keys > 0)?;
                acc.merge_batch(&states[at..at + w], &all, n)?;
                values.push(acc.evaluate(EmitTo::All)?);
                at += w;
            }
        }
        let mut merged = None;
        match &self.codec.conv {
            Some(conv) => {
                let rows = conv.convert_columns(&states)?;
                let encoded: Vec<&[u8]> = rows.iter().map(|r| r.data()).collect();
                store.put_bytes_all(&keys, &encoded, &stored.existed)?;
                drop(encoded);
                merged = self.keep_existed.then_some(rows);
            }
            None => {
                for (g, key) in keys.iter().enumerate() {
                    let row = states
                        .iter()
                        .map(|c| ScalarValue::try_from_array(c, g))
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    store.put(key.to_vec(), row)?;
                }
            }
        }
        // only update mode emits them (and slices account for them)
        let keys: KeyBuffer = match self.evaluate || self.keep_existed {
            true => keys.iter().collect(),
            false => KeyBuffer::default(),
        };
        let key_columns = match self.evaluate {
            true => Some(self.key_columns(&keys)?),
            false => None,
        };
        let existed = match self.keep_existed {
            true => stored.existed,
            false => Vec::new(),
        };
        Ok(Updated {
            keys,
            key_columns,
            values,
            groups: n,
            existed,
            merged,
        })
    }

    /// The aggregate values of stored groups `keys` (closed windows being
    /// evicted), evaluated together with groups accumulators: a column per
    /// aggregate, in the keys' order.
    pub(super) fn evaluate_stored(
        &self,
        store: &dyn StateStore,
        keys: &[&[u8]],
    ) -> Result<Vec<ArrayRef>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let stored = self.stored(store, keys)?;
        self.evaluate(&stored, keys.len())
    }

    /// The groups a time-keyed store holds before `bound` (closed windows),
    /// with their aggregate values, then removed: one pass over the store's
    /// time index, no lookup per key (None: states not held as row bytes).
    pub(super) fn take_below(
        &self,
        store: &mut dyn StateStore,
        bound: &[u8],
    ) -> Result<Option<Updated>> {
        let Some(conv) = &self.codec.conv else {
            return Ok(None);
        };
        let mut keys = KeyBuffer::default();
        let mut bytes = arrow::array::BinaryBuilder::new();
        store.each_below(bound, &mut |k, v| {
            keys.push(&[k]);
            bytes.append_value(v);
            Ok(())
        })?;
        store.remove_below(bound)?;
        if keys.is_empty() {
            return Ok(Some(Updated::default()));
        }
        let stored = Stored {
            columns: decode_rows(conv, &bytes.finish())?,
            groups: (0..keys.len()).collect(),
            existed: Vec::new(),
        };
        let values = self.evaluate(&stored, keys.len())?;
        Ok(Some(Updated {
            groups: keys.len(),
            key_columns: Some(self.key_columns(&keys)?),
            keys,
            values,
            existed: Vec::new(),
            merged: None,
        }))
    }

    /// The aggregate values of `n` groups from their stored states: a
    /// column per aggregate.
    pub(super) fn evaluate(&self, stored: &Stored, n: usize) -> Result<Vec<ArrayRef>> {
        let mut values = Vec::with_capacity(self.aggr.len());
        let mut at = 0;
        for (a, w) in self.aggr.iter().zip(self.widths) {
            let mut acc = groups_accumulator(a, self.num_keys > 0)?;
            if !stored.groups.is_empty() {
                acc.merge_batch(&stored.columns[at..at + w], &stored.groups, n)?;
            }
            values.push(acc.evaluate(EmitTo::All)?);
            at += w;
        }
        Ok(values)
    }
}

/// Stored keys (their first `skip` bytes, an event-time prefix, left out)
/// as the grouping columns they encode.
pub(super) fn parse_keys<'k>(
    converter: &RowConverter,
    keys: impl Iterator<Item = &'k [u8]>,
    skip: usize,
) -> Result<Vec<ArrayRef>> {
    let parser = converter.parser();
    Ok(converter.convert_rows(keys.map(|k| parser.parse(&k[skip..])))?)
}
