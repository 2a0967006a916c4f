//! One side's batch joined with the other side's state and stored,
//! partition by partition: a key lives in the same partition on both
//! sides, so each partition's rows meet only that partition's stores, and
//! the partitions run side by side.

use super::*;

/// Whether a side's stored rows ever have their matched flag read: when the
/// side emits its unmatched rows at eviction (outer joins) or each row once
/// (a semi join's left side). Elsewhere a match needs no write.
pub(super) fn flags_read(join_type: JoinType, left: bool) -> bool {
    match join_type {
        JoinType::Left | JoinType::LeftSemi => left,
        JoinType::Right => !left,
        JoinType::Full => true,
        _ => false,
    }
}

/// A side batch's rows split by the partition of their join key (rows with
/// a null key go where the empty key does: they are stored under it).
pub(super) fn split_by_partition(
    b: &RecordBatch,
    keys: &Rows,
    valid: &[bool],
    partitions: usize,
) -> Result<Vec<RecordBatch>> {
    if partitions <= 1 {
        return Ok(vec![b.clone()]);
    }
    let mut rows_of: Vec<Vec<u32>> = vec![Vec::new(); partitions];
    for (r, ok) in valid.iter().enumerate() {
        let key = if *ok { keys.row(r).data() } else { &[] };
        rows_of[partition_for(key, partitions)].push(r as u32);
    }
    rows_of
        .into_iter()
        .map(|rows| Ok(take_record_batch(b, &UInt32Array::from(rows))?))
        .collect()
}

/// What every partition's share of one side's batch needs to join.
pub(super) struct SideJob {
    /// The batch's rows of each partition.
    pub(super) parts: Vec<RecordBatch>,
    pub(super) exprs: Arc<JoinExprs>,
    /// Whether the batch is the left side's.
    pub(super) left: bool,
    pub(super) join_type: JoinType,
    /// Encode this side's rows, decode the other side's.
    pub(super) this_conv: Arc<RowConverter>,
    pub(super) other_conv: Arc<RowConverter>,
    pub(super) expiry: Option<Expiry>,
    /// Rows expiring at or below it are not stored (see [`Appends`]).
    pub(super) expired_through: Option<i64>,
}

/// What one partition's share did.
pub(super) struct PartJoined {
    /// Output rows (pair schema, or left rows for semi).
    pub(super) out: Vec<RecordBatch>,
    /// Rows stored.
    pub(super) added: u64,
    /// The stored keys by their new rows' earliest expiry.
    pub(super) index: ExpiryIndex,
}

impl SideJob {
    /// Join partition `p`'s rows with `other`'s (the other side's store of
    /// the partition), then store them in `this`.
    pub(super) fn run(
        &self,
        p: usize,
        this: &mut dyn StateStore,
        other: &mut dyn StateStore,
    ) -> Result<PartJoined> {
        let b = &self.parts[p];
        let mut done = PartJoined {
            out: Vec::new(),
            added: 0,
            index: ExpiryIndex::default(),
        };
        if b.num_rows() == 0 {
            return Ok(done);
        }
        let (exprs, left) = (&self.exprs, self.left);
        let key_exprs = if left {
            &exprs.left_keys
        } else {
            &exprs.right_keys
        };
        let (keys, valid) = key_rows(b, key_exprs, &exprs.key_conv)?;
        let groups = KeyGroups::new(&keys, &valid);
        let semi = self.join_type == JoinType::LeftSemi;
        let flag_other = flags_read(self.join_type, !left);
        // the other side's rows of each distinct key: their packed values
        // (`lists`, read in place), and per candidate row (list, offset)
        // and its flag
        let mut lists: Vec<(usize, Cow<[u8]>)> = Vec::new();
        let mut stored: Vec<(u32, usize)> = Vec::new();
        let mut stored_matched: Vec<bool> = Vec::new();
        let mut range_of = vec![0..0; groups.len()];
        let reader: &dyn StateStore = other;
        for (g, range) in range_of.iter_mut().enumerate() {
            let Some(list) = reader.get_bytes(groups.key(&keys, g))? else {
                continue;
            };
            let start = stored.len();
            for row in unpack(&list) {
                // a semi join emits a left row once
                if !(semi && !left && row.matched) {
                    stored.push((lists.len() as u32, row.at));
                    stored_matched.push(row.matched);
                }
            }
            *range = start..stored.len();
            lists.push((g, list));
        }
        // candidate pairs: (row of b, index in `stored`), in b's row order
        let mut this_idx: Vec<u32> = Vec::new();
        let mut cand: Vec<u32> = Vec::new();
        for (r, g) in groups.group_of.iter().enumerate() {
            if *g != u32::MAX {
                for s in range_of[*g as usize].clone() {
                    this_idx.push(r as u32);
                    cand.push(s as u32);
                }
            }
        }
        let (this_idx, cand) = (UInt32Array::from(this_idx), UInt32Array::from(cand));
        let this_cols = b
            .columns()
            .iter()
            .map(|c| Ok(take(c.as_ref(), &this_idx, None)?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        // each stored row decoded once, then repeated for its pairs
        let other_batch = decode_rows(
            &self.other_conv,
            stored
                .iter()
                .filter_map(|(l, at)| packed_at(&lists[*l as usize].1, *at).map(|p| p.row)),
            exprs.side_schema(!left),
        )?;
        let other_cols = other_batch
            .columns()
            .iter()
            .map(|c| Ok(take(c.as_ref(), &cand, None)?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let cols: Vec<ArrayRef> = if left {
            this_cols.into_iter().chain(other_cols).collect()
        } else {
            other_cols.into_iter().chain(this_cols).collect()
        };
        let pairs = RecordBatch::try_new(Arc::clone(&exprs.pair_schema), cols)?;
        let mask = match &exprs.filter {
            Some(f) => f
                .evaluate(&pairs)?
                .into_array(pairs.num_rows())?
                .as_boolean()
                .clone(),
            None => BooleanArray::from(vec![true; pairs.num_rows()]),
        };
        let mut matched_rows = vec![false; b.num_rows()];
        // stored rows matched for the first time (indices in `stored`)
        let mut first_matches: Vec<usize> = Vec::new();
        for (i, ok) in mask.iter().enumerate() {
            if ok == Some(true) {
                matched_rows[this_idx.value(i) as usize] = true;
                let s = cand.value(i) as usize;
                if !stored_matched[s] {
                    stored_matched[s] = true;
                    first_matches.push(s);
                }
            }
        }
        if semi && left {
            // left rows with a match in the right state: emitted now, once
            let first: BooleanArray = matched_rows.iter().map(|m| Some(*m)).collect();
            done.out.push(filter_record_batch(b, &first)?);
        } else if semi {
            // stored left rows matched for the first time by this right batch
            let idx =
                UInt32Array::from(first_matches.iter().map(|i| *i as u32).collect::<Vec<_>>());
            let cols = other_batch
                .columns()
                .iter()
                .map(|c| Ok(take(c.as_ref(), &idx, None)?))
                .collect::<Result<Vec<ArrayRef>>>()?;
            done.out
                .push(RecordBatch::try_new(Arc::clone(&exprs.out_schema), cols)?);
        } else {
            done.out.push(filter_record_batch(&pairs, &mask)?);
        }
        // flag the stored rows that matched (where a flag is ever read)
        let flagged: Vec<(usize, Vec<u8>)> = if flag_other {
            let mut changed = vec![false; lists.len()];
            for s in first_matches {
                let (l, at) = stored[s];
                lists[l as usize].1.to_mut()[at] = MATCHED;
                changed[l as usize] = true;
            }
            // copied out only when flagged, which ends the borrow of the store
            lists
                .into_iter()
                .zip(changed)
                .filter(|(_, c)| *c)
                .map(|((g, list), _)| (g, list.into_owned()))
                .collect()
        } else {
            drop(lists);
            Vec::new()
        };
        for (g, list) in flagged {
            other.put_bytes(groups.key(&keys, g), &list)?;
        }
        // then store this batch's rows
        let keep_unmatched = matches!(self.join_type, JoinType::Right | JoinType::Full);
        let rows = self.this_conv.convert_columns(b.columns())?;
        let expiries: Vec<i64> = match self.expiry {
            Some(exp) => times_of(b, exp.column)?
                .iter()
                .map(|t| t.unwrap_or(i64::MIN).saturating_add(exp.offset_us))
                .collect(),
            None => vec![i64::MAX; b.num_rows()],
        };
        let appends = Appends {
            expiries,
            matched: matched_rows,
            skip_matched: semi && left,
            expired_through: self.expired_through,
            keep_unmatched,
            rows,
            keys,
            groups,
        };
        // each key with rows to store, listed in the eviction index under
        // its new rows' earliest expiry
        let mut to_store = Vec::new();
        for g in 0..=appends.groups.len() {
            let earliest = appends
                .groups
                .rows_of(g)
                .iter()
                .map(|r| *r as usize)
                .filter(|r| appends.stored(*r))
                .map(|r| appends.expiries[r])
                .min();
            let Some(earliest) = earliest else {
                continue;
            };
            if self.expiry.is_some() {
                done.index
                    .insert(earliest, appends.groups.key(&appends.keys, g));
            }
            to_store.push(g as u32);
        }
        done.added = appends.append(&to_store, this)?;
        Ok(done)
    }
}

/// Stored rows (Arrow's row format of `conv`) back to a batch of `schema`.
pub(super) fn decode_rows<'a>(
    conv: &RowConverter,
    rows: impl Iterator<Item = &'a [u8]>,
    schema: &Schema,
) -> Result<RecordBatch> {
    let parser = conv.parser();
    let rows: Vec<_> = rows.map(|r| parser.parse(r)).collect();
    let cols = conv.convert_rows(rows)?;
    Ok(RecordBatch::try_new(
        Arc::new(schema.clone()),
        cols.into_iter()
            .zip(schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c)
                } else {
                    Ok(cast(&c, f.data_type())?)
                }
            })
            .collect::<Result<Vec<_>>>()?,
    )?)
}
