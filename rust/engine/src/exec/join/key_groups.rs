//! A batch's rows grouped by join key, and the rows each side appends to
//! its state.

use super::*;

/// Event times (µs) of a side's batch for `column` (a window's end).
pub(super) fn times_of(b: &RecordBatch, column: usize) -> Result<Vec<Option<i64>>> {
    event_times(b.column(column))
}

/// The key bytes of a side batch's rows, and which rows have a key (a null
/// key never matches).
pub(super) fn key_rows(
    b: &RecordBatch,
    keys: &[Arc<dyn PhysicalExpr>],
    conv: &RowConverter,
) -> Result<(Rows, Vec<bool>)> {
    let cols = keys
        .iter()
        .map(|k| Ok(k.evaluate(b)?.into_array(b.num_rows())?))
        .collect::<Result<Vec<ArrayRef>>>()?;
    let rows = conv.convert_columns(&cols)?;
    let nulls = cols.iter().fold(None, |acc, c| {
        NullBuffer::union(acc.as_ref(), c.logical_nulls().as_ref())
    });
    let valid = match nulls {
        Some(n) => n.iter().collect(),
        None => vec![true; b.num_rows()],
    };
    Ok((rows, valid))
}

/// A batch's rows grouped by key: the distinct keys in first-seen order and
/// each one's rows, in row order. Group `keys.len()` is the rows with a null
/// key: stored (an outer join emits them) under the empty key, which no
/// key's row format equals, so they never match.
pub(super) struct KeyGroups {
    /// The first row of each distinct key.
    pub(super) first: Vec<u32>,
    /// Rows of group g: `rows[starts[g]..starts[g + 1]]`.
    pub(super) starts: Vec<usize>,
    pub(super) rows: Vec<u32>,
    /// Each row's group (`u32::MAX`: no key).
    pub(super) group_of: Vec<u32>,
    pub(super) nulls: Vec<u32>,
}

impl KeyGroups {
    pub(super) fn new(keys: &Rows, valid: &[bool]) -> Self {
        let n = keys.num_rows();
        // sized for every row (a partition's share of a chunk: thousands),
        // so that keys mostly distinct (a row each) never rehash
        let mut ids: HashMap<&[u8], u32, foldhash::fast::FixedState> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        let mut first = Vec::new();
        let group_of: Vec<u32> = (0..n)
            .map(|r| {
                if !valid[r] {
                    return u32::MAX;
                }
                *ids.entry(keys.row(r).data()).or_insert_with(|| {
                    first.push(r as u32);
                    (first.len() - 1) as u32
                })
            })
            .collect();
        // a counting sort of the rows by group
        let mut starts = vec![0usize; first.len() + 1];
        for g in group_of.iter().filter(|g| **g != u32::MAX) {
            starts[*g as usize + 1] += 1;
        }
        for g in 0..first.len() {
            starts[g + 1] += starts[g];
        }
        let mut next = starts.clone();
        let mut rows = vec![0u32; starts[first.len()]];
        for (r, g) in group_of.iter().enumerate() {
            if *g != u32::MAX {
                rows[next[*g as usize]] = r as u32;
                next[*g as usize] += 1;
            }
        }
        let nulls = (0..n as u32)
            .filter(|r| group_of[*r as usize] == u32::MAX)
            .collect();
        KeyGroups {
            first,
            starts,
            rows,
            group_of,
            nulls,
        }
    }

    /// Distinct keys (the null group not counted).
    pub(super) fn len(&self) -> usize {
        self.first.len()
    }

    /// Group `g`'s key (empty for the null group).
    pub(super) fn key<'k>(&self, keys: &'k Rows, g: usize) -> &'k [u8] {
        match self.first.get(g) {
            Some(r) => keys.row(*r as usize).data(),
            None => &[],
        }
    }

    /// Group `g`'s rows.
    pub(super) fn rows_of(&self, g: usize) -> &[u32] {
        if g < self.first.len() {
            &self.rows[self.starts[g]..self.starts[g + 1]]
        } else {
            &self.nulls
        }
    }
}

/// What a partition's rows of a batch append to its side's store: each
/// key's new rows, packed and appended to its stored ones.
pub(super) struct Appends {
    pub(super) keys: Rows,
    pub(super) groups: KeyGroups,
    /// The side's rows, encoded.
    pub(super) rows: Rows,
    /// Each row's expiry (µs; `i64::MAX`: never).
    pub(super) expiries: Vec<i64>,
    /// Each row's matched flag.
    pub(super) matched: Vec<bool>,
    /// Whether matched rows are left out (a semi join's left rows, emitted once).
    pub(super) skip_matched: bool,
    /// Rows expiring at or below it are left out (the right side's, which
    /// this batch's left rows have already met, as Spark leaves them out)...
    pub(super) expired_through: Option<i64>,
    /// ...unless they are unmatched and an outer join emits them at eviction.
    pub(super) keep_unmatched: bool,
}

impl Appends {
    pub(super) fn stored(&self, r: usize) -> bool {
        if self.skip_matched && self.matched[r] {
            return false;
        }
        match self.expired_through {
            Some(wm) if self.expiries[r] <= wm => self.keep_unmatched && !self.matched[r],
            _ => true,
        }
    }

    /// Append the rows of `groups` to `store`; returns how many.
    pub(super) fn append(&self, groups: &[u32], store: &mut dyn StateStore) -> Result<u64> {
        let (mut extra, mut added) = (Vec::new(), 0);
        for g in groups.iter().map(|g| *g as usize) {
            extra.clear();
            for r in self.groups.rows_of(g).iter().map(|r| *r as usize) {
                if self.stored(r) {
                    pack(
                        &mut extra,
                        self.matched[r],
                        self.expiries[r],
                        self.rows.row(r).data(),
                    );
                    added += 1;
                }
            }
            store.append_bytes(self.groups.key(&self.keys, g), &extra)?;
        }
        Ok(added)
    }
}
