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
    /// Both sides' rows, by partition.
    pub(super) this_gens: Arc<Vec<Mutex<Generations>>>,
    pub(super) other_gens: Arc<Vec<Mutex<Generations>>>,
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
}

impl SideJob {
    /// Join partition `p`'s rows with the other side's rows of the
    /// partition (their bytes in `other`, its store), then store them.
    pub(super) fn run(&self, p: usize, other: &dyn StateStore) -> Result<PartJoined> {
        let b = &self.parts[p];
        let mut done = PartJoined {
            out: Vec::new(),
            added: 0,
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
        let mut theirs = self.other_gens[p].lock();
        // the other side's rows of each distinct key (a semi join emits a
        // left row once: a matched one is not met again)
        let views = theirs.views(other)?;
        let mut stored: Vec<Found> = Vec::new();
        let mut range_of = vec![0..0; groups.len()];
        for (g, range) in range_of.iter_mut().enumerate() {
            let key = groups.key(&keys, g);
            let start = stored.len();
            theirs.probe(&views, key, key_hash(key), &mut stored);
            if semi && !left {
                let mut kept = start;
                for i in start..stored.len() {
                    if !theirs.matched(stored[i]) {
                        stored[kept] = stored[i];
                        kept += 1;
                    }
                }
                stored.truncate(kept);
            }
            *range = start..stored.len();
        }
        let mut stored_matched: Vec<bool> = stored.iter().map(|f| theirs.matched(*f)).collect();
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
        let other_rows = stored
            .iter()
            .map(|f| theirs.row(&views, *f))
            .collect::<Result<Vec<&[u8]>>>()?;
        let other_batch = decode_rows(
            &self.other_conv,
            other_rows.into_iter(),
            exprs.side_schema(!left),
        )?;
        drop(views);
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
        if flag_other {
            for s in first_matches {
                theirs.set_matched(stored[s]);
            }
        }
        drop(theirs);
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
        };
        // a row with a null key is stored under the empty key, which no
        // key's row format equals: it never matches
        let key = |r: usize| if valid[r] { keys.row(r).data() } else { &[] };
        let count = (0..b.num_rows()).filter(|r| appends.stored(*r)).count();
        let mut mine = self.this_gens[p].lock();
        if count > 0 {
            mine.reserve(count)?;
        }
        for r in (0..b.num_rows()).filter(|r| appends.stored(*r)) {
            let key = key(r);
            mine.append(
                key,
                appends.expiries[r],
                appends.matched[r],
                rows.row(r).data(),
            )?;
            done.added += 1;
        }
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
