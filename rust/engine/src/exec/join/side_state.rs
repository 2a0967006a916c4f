//! One side's stored rows (Spark's `SymmetricHashJoinStateManager`): per
//! key a packed list of rows with their expiry and matched flag, and the
//! expiry index that evicts them as the watermark passes.

use super::*;

/// One side's stored rows, by join key. A key's value packs its rows, each
/// as a matched flag, its expiry time and its bytes in Arrow's row format,
/// so a batch reads and writes each distinct key once and eviction reads no
/// row. (A key with very many rows is rewritten whole when it changes.)
pub(super) struct SideState {
    pub(super) state: PartitionedState,
    /// Encodes the side's columns (shared with the partitions' jobs).
    pub(super) conv: Arc<RowConverter>,
    pub(super) expiry: Option<Expiry>,
    /// The side's watermarked event-time column: rows behind the watermark are late.
    pub(super) late_column: Option<usize>,
    /// Each partition's keys by the time bucket of their rows' earliest
    /// expiry: the keys eviction visits once the watermark reaches the
    /// bucket (a key may be listed more than once; a visit to a key with
    /// nothing expired is a no-op that lists it again).
    pub(super) by_expiry: Vec<ExpiryIndex>,
    /// Rows stored (`numRowsTotal`).
    pub(super) rows: u64,
}

pub(super) const MATCHED: u8 = 1;

/// Flag, expiry (i64) and length (u32) before each packed row.
pub(super) const HEADER: usize = 13;

/// A row inside a key's packed value.
pub(super) struct Packed<'a> {
    /// Where its flag byte is in the value.
    pub(super) at: usize,
    pub(super) matched: bool,
    /// When it expires (µs; `i64::MAX`: never).
    pub(super) expiry: i64,
    pub(super) row: &'a [u8],
}

pub(super) fn packed_at(list: &[u8], at: usize) -> Option<Packed<'_>> {
    let head = list.get(at..at + HEADER)?;
    let expiry = i64::from_le_bytes(head[1..9].try_into().ok()?);
    let len = u32::from_le_bytes(head[9..13].try_into().ok()?) as usize;
    Some(Packed {
        at,
        matched: head[0] == MATCHED,
        expiry,
        row: list.get(at + HEADER..at + HEADER + len)?,
    })
}

/// The rows packed in a key's value, in the order they were stored.
pub(super) fn unpack(list: &[u8]) -> impl Iterator<Item = Packed<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let p = packed_at(list, at)?;
        at += HEADER + p.row.len();
        Some(p)
    })
}

/// The rows (Arrow row format) packed in a join side's stored value.
pub(crate) fn packed_rows(list: &[u8]) -> impl Iterator<Item = &[u8]> {
    unpack(list).map(|p| p.row)
}

pub(super) fn pack(list: &mut Vec<u8>, matched: bool, expiry: i64, row: &[u8]) {
    list.push(u8::from(matched));
    list.extend_from_slice(&expiry.to_le_bytes());
    list.extend_from_slice(&(row.len() as u32).to_le_bytes());
    list.extend_from_slice(row);
}

impl SideState {
    /// A side over its opened `state`: its rows counted and their
    /// eviction index rebuilt.
    pub(super) fn open(
        state: PartitionedState,
        schema: &Schema,
        expiry: Option<Expiry>,
        late_column: Option<usize>,
    ) -> Result<Self> {
        let conv = Arc::new(RowConverter::new(
            schema
                .fields()
                .iter()
                .map(|f| SortField::new(f.data_type().clone()))
                .collect(),
        )?);
        let mut side = SideState {
            state,
            conv,
            expiry,
            late_column,
            by_expiry: Vec::new(),
            rows: 0,
        };
        side.by_expiry
            .resize_with(side.state.len(), ExpiryIndex::default);
        // count the restored rows and rebuild the eviction index
        // (keys, then each value read in place: no copy of the rows)
        for p in 0..side.state.len() {
            let store = side.state.store(p);
            for key in store.keys() {
                let key = key?;
                let Some(list) = store.get_bytes(&key)? else {
                    continue;
                };
                let (n, earliest) =
                    unpack(&list).fold((0, i64::MAX), |(n, e), r| (n + 1, e.min(r.expiry)));
                side.rows += n;
                if expiry.is_some() {
                    side.by_expiry[p].insert(earliest, &key);
                }
            }
        }
        Ok(side)
    }
}

/// Keys by time bucket ([`TIME_BUCKET_BITS`]) of an expiry, a bucket's keys
/// in one buffer, so a batch's inserts are appends.
#[derive(Default)]
pub(super) struct ExpiryIndex(BTreeMap<i64, KeyList>);

/// Byte-string keys packed in one buffer.
#[derive(Default)]
pub(super) struct KeyList {
    pub(super) bytes: Vec<u8>,
    pub(super) ends: Vec<usize>,
}

impl KeyList {
    pub(super) fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    /// Add `other`'s keys after these.
    pub(super) fn extend(&mut self, other: &KeyList) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|e| base + e));
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, e)| &self.bytes[s..*e])
    }
}

impl ExpiryIndex {
    pub(super) fn insert(&mut self, expiry: i64, key: &[u8]) {
        let bucket = expiry >> TIME_BUCKET_BITS;
        self.0.entry(bucket).or_default().push(key);
    }

    /// Add `other`'s keys.
    pub(super) fn merge(&mut self, other: ExpiryIndex) {
        for (bucket, keys) in other.0 {
            match self.0.entry(bucket) {
                Entry::Vacant(e) => {
                    e.insert(keys);
                }
                Entry::Occupied(mut e) => e.get_mut().extend(&keys),
            }
        }
    }

    /// The keys of every bucket up to the one holding `wm`, removed.
    pub(super) fn take_through(&mut self, wm: i64) -> Vec<KeyList> {
        let keep = self.0.split_off(&((wm >> TIME_BUCKET_BITS) + 1));
        std::mem::replace(&mut self.0, keep).into_values().collect()
    }
}

/// What evicting a partition of one side did.
pub(super) struct Evicted {
    /// Rows removed.
    pub(super) removed: u64,
    /// The unmatched expired rows, packed, when the side emits them.
    pub(super) unmatched: Vec<u8>,
    /// The visited keys that keep rows, by their new earliest expiry.
    pub(super) again: ExpiryIndex,
}

/// Remove the rows of `keys` expired at `wm` from one partition's store.
pub(super) fn evict_partition(
    keys: &[KeyList],
    store: &mut dyn StateStore,
    wm: i64,
    emit: bool,
) -> Result<Evicted> {
    let mut out = Evicted {
        removed: 0,
        unmatched: Vec::new(),
        again: ExpiryIndex::default(),
    };
    // each key's value taken out in one probe (most keys keep no row), the
    // rows that stay put back
    let (mut list, mut kept) = (Vec::new(), Vec::new());
    for key in keys.iter().flat_map(KeyList::iter) {
        list.clear();
        if !store.take_bytes_into(key, &mut list)? {
            continue;
        }
        kept.clear();
        let mut earliest = i64::MAX;
        for row in unpack(&list) {
            if row.expiry <= wm {
                out.removed += 1;
                if emit && !row.matched {
                    pack(&mut out.unmatched, false, row.expiry, row.row);
                }
            } else {
                pack(&mut kept, row.matched, row.expiry, row.row);
                earliest = earliest.min(row.expiry);
            }
        }
        if !kept.is_empty() {
            store.put_bytes(key, &kept)?;
        }
        if earliest != i64::MAX {
            out.again.insert(earliest, key);
        }
    }
    Ok(out)
}
