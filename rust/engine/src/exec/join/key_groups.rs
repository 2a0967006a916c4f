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
/// each row's group (rows with a null key are in none: they never match).
pub(super) struct KeyGroups {
    /// The first row of each distinct key.
    pub(super) first: Vec<u32>,
    /// Each row's group (`u32::MAX`: no key).
    pub(super) group_of: Vec<u32>,
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
        KeyGroups { first, group_of }
    }

    /// Distinct keys.
    pub(super) fn len(&self) -> usize {
        self.first.len()
    }

    /// Group `g`'s key.
    pub(super) fn key<'k>(&self, keys: &'k Rows, g: usize) -> &'k [u8] {
        keys.row(self.first[g] as usize).data()
    }
}

/// Which of a partition's rows of a batch its side stores, and how.
pub(super) struct Appends {
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
}
