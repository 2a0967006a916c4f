//! One side's stored rows of a partition, by generation: the rows a
//! micro-batch stores are one generation, appended in order to byte
//! segments of 4 MiB with a hash index of its own, and written to the
//! state store once, a value per segment. A row is probed in every live generation (a few:
//! small neighbours merge); eviction drops a generation whole once all its
//! rows expired, and hides the expired rows of the others (their bytes
//! stay until the generation goes or merges). So storing a row is an
//! append, evicting it costs nothing per row, and the checkpoint's delta
//! is the batch's new rows, not a put and a removal per row.

use super::*;
use hashbrown::HashTable;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// The first byte of this module's store keys: no key in Arrow's row
/// format starts with it (a column's first byte says null, valid or empty),
/// so they are told apart from the per-key values of earlier versions.
const OURS: u8 = 0xfe;
/// Which of a generation's values a store key holds.
const ROWS: u8 = b'g';
const FLAGS: u8 = b'm';
/// The key of the side's eviction watermark (no generation has id `u64::MAX`).
const EVICTED: [u8; KEY_LEN] = [OURS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'w'];
const KEY_LEN: usize = 10;
/// A segment's store key: its generation's rows key, then its number (u32 BE).
const SEGMENT_KEY_LEN: usize = KEY_LEN + 4;
/// A generation's rows are cut into segments of 4 MiB (a row longer than
/// that: a generation whose segments are as long), each its own store
/// value. So the buffers a batch allocates for them all have one size (the
/// memory a batch frees is what the next one takes), and the checkpoint's
/// files take them a few at a time, not a value of tens of MB copied whole.
const SEGMENT_SHIFT: u32 = 22;
/// The room a generation's first segment starts with.
const FIRST_SEGMENT: usize = 64 << 10;

/// Probes meet at most this many generations (after a batch, the two
/// smallest neighbours merge until it holds).
const MAX_GENERATIONS: usize = 6;

/// Key length (u32), expiry (i64) and row length (u32) before each row.
const HEADER: usize = 16;

/// No row (the end of a key's chain).
const NONE: u32 = u32::MAX;

fn store_key(id: u64, kind: u8) -> [u8; KEY_LEN] {
    let mut k = [OURS; KEY_LEN];
    k[1..9].copy_from_slice(&id.to_be_bytes());
    k[9] = kind;
    k
}

fn segment_key(id: u64, seg: u32) -> [u8; SEGMENT_KEY_LEN] {
    let mut k = [0u8; SEGMENT_KEY_LEN];
    k[..KEY_LEN].copy_from_slice(&store_key(id, ROWS));
    k[KEY_LEN..].copy_from_slice(&seg.to_be_bytes());
    k
}

/// log2 of the segment size a generation holding rows of `len` bytes needs.
fn shift_for(len: usize) -> u32 {
    SEGMENT_SHIFT
        .max(len.next_power_of_two().trailing_zeros())
        .min(31)
}

fn too_long(len: usize) -> Error {
    Error::Internal(format!(
        "a row of {len} bytes is too long for a stream-stream join's state"
    ))
}

/// A segment's own bytes: its store key, then its rows, so that a store
/// can keep the buffer as the entry without copying it; or the rows alone,
/// a copy a store gave.
struct OwnBytes {
    buf: Vec<u8>,
    rows_at: usize,
}

impl OwnBytes {
    /// Segment `seg` of generation `id`, room for `capacity` bytes of rows.
    fn segment(id: u64, seg: u32, capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(SEGMENT_KEY_LEN + capacity);
        buf.extend_from_slice(&segment_key(id, seg));
        OwnBytes {
            buf,
            rows_at: SEGMENT_KEY_LEN,
        }
    }

    fn rows(&self) -> &[u8] {
        &self.buf[self.rows_at..]
    }

    /// Write the rows to `store`; the bytes are still ours where the store
    /// did not keep the buffer itself.
    fn store(self, store: &mut dyn StateStore) -> Result<Option<Self>> {
        if self.rows_at == 0 {
            return Err(Error::Internal(
                "a join generation read back from the store written again".into(),
            ));
        }
        Ok(store
            .put_entry(self.buf, SEGMENT_KEY_LEN)?
            .map(|buf| OwnBytes {
                buf,
                rows_at: SEGMENT_KEY_LEN,
            }))
    }
}

/// A generation's segments, as built or as read from the store.
trait Segments {
    /// Segment `i`'s rows (empty past the last).
    fn segment(&self, i: usize) -> &[u8];
}

impl Segments for [OwnBytes] {
    fn segment(&self, i: usize) -> &[u8] {
        self.get(i).map_or(&[], OwnBytes::rows)
    }
}

impl Segments for [Cow<'_, [u8]>] {
    fn segment(&self, i: usize) -> &[u8] {
        self.get(i).map_or(&[], |c| c.as_ref())
    }
}

/// The row at address `at`: segment `at >> shift`, offset the low bits.
fn row_in<S: Segments + ?Sized>(segs: &S, shift: u32, at: u32) -> Result<StoredRow<'_>> {
    let offset = at & ((1u32 << shift) - 1);
    row_at(segs.segment((at >> shift) as usize), offset as usize)
}

/// What a store key holds.
enum Entry {
    /// A segment of a generation's rows: the generation and its number.
    Segment(u64, u32),
    /// A generation's matched flags.
    Flags(u64),
    /// A generation's rows in one value, as the version before segments
    /// stored them.
    Whole(u64),
    Evicted,
    /// A key's rows as earlier versions stored them (see [`legacy_rows`]).
    Legacy,
}

fn entry_of(key: &[u8]) -> Result<Entry> {
    if key.first() != Some(&OURS) {
        return Ok(Entry::Legacy);
    }
    if key == EVICTED {
        return Ok(Entry::Evicted);
    }
    let id = || -> Result<u64> {
        let id = key.get(1..9).ok_or_else(corrupt)?;
        Ok(u64::from_be_bytes(id.try_into().map_err(|_| corrupt())?))
    };
    match (key.len(), key.get(9)) {
        (KEY_LEN, Some(&ROWS)) => Ok(Entry::Whole(id()?)),
        (KEY_LEN, Some(&FLAGS)) => Ok(Entry::Flags(id()?)),
        (SEGMENT_KEY_LEN, Some(&ROWS)) => {
            let seg = key[KEY_LEN..].try_into().map_err(|_| corrupt())?;
            Ok(Entry::Segment(id()?, u32::from_be_bytes(seg)))
        }
        _ => Err(corrupt()),
    }
}

/// The rows of a key's value as versions before generations stored them:
/// each a matched flag (1: matched), its expiry (i64) and its length (u32)
/// before its bytes. (matched, expiry, row) of each.
fn legacy_rows(list: &[u8]) -> Result<Vec<(bool, i64, &[u8])>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < list.len() {
        let parse = || {
            let expiry = i64::from_le_bytes(list.get(at + 1..at + 9)?.try_into().ok()?);
            let len = u32_at(list, at + 9)?;
            Some((list[at] == 1, expiry, list.get(at + 13..at + 13 + len)?))
        };
        let row = parse().ok_or_else(corrupt)?;
        at += 13 + row.2.len();
        out.push(row);
    }
    Ok(out)
}

/// The hash a key is indexed by (the same in every generation).
pub(super) fn key_hash(key: &[u8]) -> u64 {
    foldhash::fast::FixedState::default().hash_one(key)
}

/// A stored row inside a generation's bytes.
pub(crate) struct StoredRow<'a> {
    /// The join key (Arrow row format; empty for a null key).
    pub(crate) key: &'a [u8],
    /// When it expires (µs; `i64::MAX`: never).
    pub(crate) expiry: i64,
    /// The side's row (Arrow row format).
    pub(crate) row: &'a [u8],
    /// Where the next row starts.
    end: usize,
}

fn corrupt() -> Error {
    Error::Internal("a stream-stream join's stored rows are corrupt".into())
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
}

/// The row starting at `at` of a generation's bytes.
pub(crate) fn row_at(bytes: &[u8], at: usize) -> Result<StoredRow<'_>> {
    let parse = || {
        let klen = u32_at(bytes, at)?;
        let key_end = at + 4 + klen;
        let expiry = i64::from_le_bytes(bytes.get(key_end..key_end + 8)?.try_into().ok()?);
        let rlen = u32_at(bytes, key_end + 8)?;
        let row_start = key_end + 12;
        Some(StoredRow {
            key: bytes.get(at + 4..key_end)?,
            expiry,
            row: bytes.get(row_start..row_start + rlen)?,
            end: row_start + rlen,
        })
    };
    parse().ok_or_else(corrupt)
}

/// Every row of a generation's bytes, in the order they were stored.
pub(crate) fn stored_rows(bytes: &[u8]) -> impl Iterator<Item = Result<StoredRow<'_>>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let r = row_at(bytes, at);
        at = r.as_ref().map_or(bytes.len(), |r| r.end);
        Some(r)
    })
}

/// The bytes [`push_row`] adds for a row.
pub(super) fn stored_len(key: &[u8], row: &[u8]) -> usize {
    HEADER + key.len() + row.len()
}

fn push_row(bytes: &mut Vec<u8>, key: &[u8], expiry: i64, row: &[u8]) {
    bytes.extend_from_slice(&(key.len() as u32).to_le_bytes());
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&expiry.to_le_bytes());
    bytes.extend_from_slice(&(row.len() as u32).to_le_bytes());
    bytes.extend_from_slice(row);
}

/// Flags packed a bit each, as a generation's flags value holds them.
fn pack_flags(flags: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; flags.len().div_ceil(8)];
    for (i, f) in flags.iter().enumerate() {
        if *f {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

fn unpack_flags(bytes: &[u8], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| bytes.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0))
        .collect()
}

/// Whether a generation's table entry `e` is `key`'s (hashed `hash`).
fn same_key<S: Segments + ?Sized>(
    e: &(u64, u32, u32),
    segs: &S,
    shift: u32,
    starts: &[u32],
    key: &[u8],
    hash: u64,
) -> bool {
    e.0 == hash && row_in(segs, shift, starts[e.1 as usize]).is_ok_and(|s| s.key == key)
}

/// The rows of one batch (or of merged batches) of a side's partition.
pub(super) struct Generation {
    id: u64,
    /// Each row's address: its segment `<< shift`, then its offset there.
    starts: Vec<u32>,
    expiry: Vec<i64>,
    /// The key's row stored after each row (`NONE`: its last so far).
    newer: Vec<u32>,
    /// (key hash, its first row, its last row).
    table: HashTable<(u64, u32, u32)>,
    /// Each row's matched flag, where the side's flags are read.
    matched: Vec<bool>,
    flags_changed: bool,
    max_expiry: i64,
    /// Rows not evicted.
    live: u64,
    /// log2 of its segments' size.
    shift: u32,
    /// How many segments hold its rows.
    segments: u32,
    /// Its segments while it is built, and after where the store cannot
    /// lend its copy (a store on disk gives a copy per read).
    own: Option<Vec<OwnBytes>>,
    /// Written to the store (its bytes there, its rows checkpointed).
    stored: bool,
}

impl Generation {
    fn new(id: u64, shift: u32) -> Self {
        Generation {
            id,
            starts: Vec::new(),
            expiry: Vec::new(),
            newer: Vec::new(),
            table: HashTable::new(),
            matched: Vec::new(),
            flags_changed: false,
            max_expiry: i64::MIN,
            live: 0,
            shift,
            segments: 0,
            own: Some(Vec::new()),
            stored: false,
        }
    }

    /// Whether a row of `len` bytes can still be appended.
    fn fits(&self, len: usize) -> bool {
        let size = 1usize << self.shift;
        let in_last = self
            .own
            .as_ref()
            .and_then(|o| o.last())
            .is_some_and(|s| s.rows().len() + len <= size);
        let another = (u64::from(self.segments) + 1) << self.shift <= 1u64 << 32;
        !self.stored && len <= size && (in_last || another)
    }

    /// Append a row (checked to fit).
    fn push(&mut self, key: &[u8], expiry: i64, row: &[u8], flags: Option<bool>) {
        let len = stored_len(key, row);
        let size = 1usize << self.shift;
        let mut own = self.own.take().unwrap_or_default();
        if own.last().is_none_or(|s| s.rows().len() + len > size) {
            // a generation's first segment starts small (a small stream's
            // generations are small), the next ones at their full size
            let capacity = if own.is_empty() { FIRST_SEGMENT } else { size };
            own.push(OwnBytes::segment(
                self.id,
                own.len() as u32,
                capacity.max(len),
            ));
        }
        let seg = own.len() - 1;
        let at = ((seg as u32) << self.shift) | own[seg].rows().len() as u32;
        let buf = &mut own[seg].buf;
        if buf.len() + len > buf.capacity() {
            // doubling, but never past the segment's size
            let to = (buf.capacity() * 2).min(SEGMENT_KEY_LEN + size);
            buf.reserve_exact(to.max(buf.len() + len) - buf.len());
        }
        push_row(buf, key, expiry, row);
        self.segments = own.len() as u32;
        self.index(&own[..], at, key, expiry, flags);
        self.own = Some(own);
    }

    /// Index a row stored at address `at` of `segs`.
    fn index<S: Segments + ?Sized>(
        &mut self,
        segs: &S,
        at: u32,
        key: &[u8],
        expiry: i64,
        flags: Option<bool>,
    ) {
        let r = self.starts.len() as u32;
        self.starts.push(at);
        self.expiry.push(expiry);
        self.max_expiry = self.max_expiry.max(expiry);
        self.live += 1;
        if let Some(m) = flags {
            self.matched.push(m);
        }
        let hash = key_hash(key);
        self.newer.push(NONE);
        let (starts, shift) = (&self.starts, self.shift);
        match self
            .table
            .find_mut(hash, |e| same_key(e, segs, shift, starts, key, hash))
        {
            Some(e) => {
                self.newer[e.2 as usize] = r;
                e.2 = r;
            }
            None => {
                self.table.insert_unique(hash, (hash, r, r), |e| e.0);
            }
        }
    }

    /// A generation over stored segments (restored).
    fn over(id: u64, segs: &[Cow<[u8]>], flags: Option<&[u8]>, keep_flags: bool) -> Result<Self> {
        let longest = segs.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut g = Generation::new(id, shift_for(longest));
        g.own = None;
        g.segments = segs.len() as u32;
        let mut rows = Vec::new();
        for (si, seg) in segs.iter().enumerate() {
            let mut at = 0;
            for r in stored_rows(seg) {
                let r = r?;
                rows.push((((si as u32) << g.shift) | at as u32, r.key, r.expiry));
                at = r.end;
            }
        }
        let matched = keep_flags.then(|| unpack_flags(flags.unwrap_or_default(), rows.len()));
        for (i, (at, key, expiry)) in rows.into_iter().enumerate() {
            g.index(segs, at, key, expiry, matched.as_ref().map(|m| m[i]));
        }
        Ok(g)
    }

    /// Its segments: its own, or the store's.
    pub(super) fn segments<'a>(&'a self, store: &'a dyn StateStore) -> Result<Vec<Cow<'a, [u8]>>> {
        match &self.own {
            Some(own) => Ok(own.iter().map(|o| Cow::Borrowed(o.rows())).collect()),
            None => (0..self.segments)
                .map(|s| {
                    store
                        .get_bytes(&segment_key(self.id, s))?
                        .ok_or_else(corrupt)
                })
                .collect(),
        }
    }

    /// Write its segments to `store`, keeping those the store did not take.
    fn write_rows(&mut self, store: &mut dyn StateStore) -> Result<()> {
        let mut kept = Vec::new();
        for seg in self.own.take().unwrap_or_default() {
            kept.extend(seg.store(store)?);
        }
        self.own = (!kept.is_empty()).then_some(kept);
        self.stored = true;
        Ok(())
    }

    /// Remove its values from `store`.
    fn remove_from(&self, store: &mut dyn StateStore, flags: bool) {
        for s in 0..self.segments {
            store.remove(&segment_key(self.id, s));
        }
        if flags {
            store.remove(&store_key(self.id, FLAGS));
        }
    }

    /// Whether row `r` is still in the state: in a generation being built
    /// (this batch's, evicted at its end), or expiring after `evicted`.
    fn alive(&self, r: usize, evicted: i64) -> bool {
        !self.stored || self.expiry[r] > evicted
    }

    /// The rows of `key` (in the order stored) that are still in the state.
    fn rows_of<'a, S: Segments + ?Sized>(
        &'a self,
        segs: &'a S,
        key: &'a [u8],
        hash: u64,
        evicted: i64,
    ) -> impl Iterator<Item = u32> + 'a {
        let (starts, shift) = (&self.starts, self.shift);
        let first = self
            .table
            .find(hash, |e| same_key(e, segs, shift, starts, key, hash))
            .map_or(NONE, |e| e.1);
        let mut r = first;
        std::iter::from_fn(move || {
            while r != NONE {
                let this = r;
                r = self.newer[this as usize];
                if self.alive(this as usize, evicted) {
                    return Some(this);
                }
            }
            None
        })
    }

    fn memory_bytes(&self) -> u64 {
        let per_row = 4 + 8 + 4 + usize::from(!self.matched.is_empty());
        let own: usize = self.own.iter().flatten().map(|o| o.buf.capacity()).sum();
        (self.starts.capacity() * per_row
            + self.table.capacity() * 17 // a 16-byte entry and its control byte
            + own) as u64
    }
}

/// A side's stored rows of one partition.
pub(super) struct Generations {
    /// Oldest first.
    pub(super) list: Vec<Generation>,
    next_id: u64,
    /// Rows of stored generations expiring at or below it are evicted.
    pub(super) evicted: i64,
    evicted_changed: bool,
    /// Whether the side's matched flags are kept (see [`flags_read`]).
    flags: bool,
    /// Keys of an earlier version's values, removed at the next write.
    legacy: Vec<Vec<u8>>,
    /// Rows of the last generation built: the next one's index is sized
    /// after it.
    last_built: usize,
}

/// A store's entries as bytes: (key, value).
pub(crate) type ByteEntries = Vec<(Vec<u8>, Vec<u8>)>;

/// A row found by a probe: (generation, row) in [`Generations::list`].
pub(super) type Found = (u32, u32);

/// Each generation's segments, in [`Generations::list`]'s order.
pub(super) type Views<'a> = Vec<Vec<Cow<'a, [u8]>>>;

impl Generations {
    /// The generations `store` holds (opened at its last version).
    pub(super) fn restore(store: &dyn StateStore, flags: bool) -> Result<Self> {
        let mut gens = Generations {
            list: Vec::new(),
            next_id: 0,
            evicted: i64::MIN,
            evicted_changed: false,
            flags,
            legacy: Vec::new(),
            last_built: 0,
        };
        let (mut segments, mut wholes, mut legacy) = (BTreeMap::new(), Vec::new(), Vec::new());
        for key in store.keys() {
            let key = key?;
            match entry_of(&key)? {
                Entry::Segment(id, s) => {
                    let n = segments.entry(id).or_insert(0u32);
                    *n = (*n).max(s + 1);
                }
                Entry::Whole(id) => wholes.push(id),
                Entry::Legacy => legacy.push(key.into_owned()),
                _ => {}
            }
        }
        wholes.sort_unstable();
        gens.next_id = segments.keys().chain(&wholes).max().map_or(0, |m| m + 1);
        if let Some(wm) = store.get_bytes(&EVICTED)? {
            gens.evicted = i64::from_le_bytes(wm.as_ref().try_into().map_err(|_| corrupt())?);
        }
        for (id, count) in segments {
            let views = (0..count)
                .map(|s| store.get_bytes(&segment_key(id, s))?.ok_or_else(corrupt))
                .collect::<Result<Vec<_>>>()?;
            let matched = store.get_bytes(&store_key(id, FLAGS))?;
            let mut g = Generation::over(id, &views, matched.as_deref(), flags)?;
            g.stored = true;
            g.live = g.expiry.iter().filter(|e| **e > gens.evicted).count() as u64;
            if views.iter().any(|v| matches!(v, Cow::Owned(_))) {
                let own = views.into_iter().map(|v| OwnBytes {
                    buf: v.into_owned(),
                    rows_at: 0,
                });
                g.own = Some(own.collect());
            }
            gens.list.push(g);
        }
        // a checkpoint of an earlier version: its rows (a generation's in
        // one value, or a key's) go into a generation written at the next
        // commit, which removes their keys
        for id in wholes {
            let bytes = store.get_bytes(&store_key(id, ROWS))?.ok_or_else(corrupt)?;
            let matched = store.get_bytes(&store_key(id, FLAGS))?;
            let rows: Vec<StoredRow> = stored_rows(&bytes).collect::<Result<_>>()?;
            let m = unpack_flags(matched.as_deref().unwrap_or_default(), rows.len());
            let evicted = gens.evicted;
            for (r, m) in rows.iter().zip(m).filter(|(r, _)| r.expiry > evicted) {
                gens.append(r.key, r.expiry, m, r.row)?;
            }
            gens.legacy.push(store_key(id, ROWS).to_vec());
            if matched.is_some() {
                gens.legacy.push(store_key(id, FLAGS).to_vec());
            }
        }
        for key in legacy {
            let list = store.get_bytes(&key)?.ok_or_else(corrupt)?;
            for (matched, expiry, row) in legacy_rows(&list)? {
                gens.append(&key, expiry, matched, row)?;
            }
            gens.legacy.push(key);
        }
        Ok(gens)
    }

    /// Rows in the state.
    pub(super) fn live_rows(&self) -> u64 {
        self.list.iter().map(|g| g.live).sum()
    }

    /// What the index and the bytes not lent by the store take.
    pub(super) fn memory_bytes(&self) -> u64 {
        self.list.iter().map(Generation::memory_bytes).sum()
    }

    /// Every generation's segments, in [`Self::list`]'s order.
    pub(super) fn views<'a>(&'a self, store: &'a dyn StateStore) -> Result<Views<'a>> {
        self.list.iter().map(|g| g.segments(store)).collect()
    }

    /// The stored rows of `key` (hashed `hash`), pushed to `out` in the
    /// order they were stored.
    pub(super) fn probe(&self, views: &Views, key: &[u8], hash: u64, out: &mut Vec<Found>) {
        for (gi, g) in self.list.iter().enumerate() {
            out.extend(
                g.rows_of(&views[gi][..], key, hash, self.evicted)
                    .map(|r| (gi as u32, r)),
            );
        }
    }

    /// A found row's bytes (Arrow row format).
    pub(super) fn row<'a>(&self, views: &'a Views, (gi, r): Found) -> Result<&'a [u8]> {
        let g = &self.list[gi as usize];
        Ok(row_in(&views[gi as usize][..], g.shift, g.starts[r as usize])?.row)
    }

    /// Whether a found row has matched (false where flags are not kept).
    pub(super) fn matched(&self, (gi, r): Found) -> bool {
        self.list[gi as usize]
            .matched
            .get(r as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Flag a found row as matched (where flags are kept).
    pub(super) fn set_matched(&mut self, (gi, r): Found) {
        let g = &mut self.list[gi as usize];
        if let Some(m) = g.matched.get_mut(r as usize) {
            *m = true;
            g.flags_changed = true;
        }
    }

    /// The generation being built, begun if none is or a row of `len`
    /// bytes would not fit it.
    fn building(&mut self, len: usize) -> Result<&mut Generation> {
        if !self.list.last().is_some_and(|g| g.fits(len)) {
            let shift = shift_for(len);
            if len > 1usize << shift {
                return Err(too_long(len));
            }
            self.list.push(Generation::new(self.next_id, shift));
            self.next_id += 1;
        }
        let last = self.list.len() - 1;
        Ok(&mut self.list[last])
    }

    /// Room in the index for `rows` rows about to be appended: a batch's
    /// rows come a chunk at a time, so a new generation's index is sized
    /// after the last one built (an eighth more), and grows by doubling only
    /// past that.
    pub(super) fn reserve(&mut self, rows: usize) -> Result<()> {
        let (flags, last) = (self.flags, self.last_built);
        let g = self.building(0)?;
        let rows = if g.starts.is_empty() {
            rows.max(last + last / 8)
        } else {
            rows
        };
        g.starts.reserve(rows);
        g.expiry.reserve(rows);
        g.newer.reserve(rows);
        if flags {
            g.matched.reserve(rows);
        }
        g.table.reserve(rows, |e| e.0);
        Ok(())
    }

    /// Append a row to the generation being built.
    pub(super) fn append(
        &mut self,
        key: &[u8],
        expiry: i64,
        matched: bool,
        row: &[u8],
    ) -> Result<()> {
        let flags = self.flags.then_some(matched);
        self.building(stored_len(key, row))?
            .push(key, expiry, row, flags);
        Ok(())
    }

    /// Evict the rows expiring at or below `wm` (Spark's state watermark):
    /// a generation whose rows all expired goes whole. Returns how many
    /// rows went; the unmatched ones are added to `unmatched` when `emit`.
    pub(super) fn evict(
        &mut self,
        store: &mut dyn StateStore,
        wm: i64,
        emit: bool,
        unmatched: &mut ByteList,
    ) -> Result<u64> {
        // (a watermark never goes back; were it given lower, rows of this
        // batch's generation below the last one would be hidden unemitted)
        let wm = wm.max(self.evicted);
        let mut removed = 0;
        let evicted = self.evicted;
        let mut gone = Vec::new();
        for (gi, g) in self.list.iter().enumerate() {
            let whole = g.max_expiry <= wm;
            let lo = if g.stored { evicted } else { i64::MIN };
            let expiring = |e: i64| e > lo && e <= wm;
            if g.live > 0 && (whole || g.expiry.iter().any(|e| expiring(*e))) {
                let segs = g.segments(&*store)?;
                for (r, e) in g.expiry.iter().enumerate() {
                    if !expiring(*e) {
                        continue;
                    }
                    removed += 1;
                    if emit && !g.matched.get(r).copied().unwrap_or(false) {
                        unmatched.push(row_in(&segs[..], g.shift, g.starts[r])?.row);
                    }
                }
            }
            if whole {
                gone.push(gi);
            }
        }
        for gi in gone.into_iter().rev() {
            let g = self.list.remove(gi);
            if g.stored {
                g.remove_from(store, self.flags);
            }
        }
        // recount the rest (their evicted rows are hidden from now on)
        for g in &mut self.list {
            g.live = g.expiry.iter().filter(|e| **e > wm).count() as u64;
        }
        if wm > self.evicted {
            self.evicted = wm;
            self.evicted_changed = true;
        }
        Ok(removed)
    }

    /// Write what changed to `store` before it commits: the generations
    /// built this batch, changed flags, the eviction watermark; then merge
    /// the smallest neighbours while there are too many generations.
    pub(super) fn write(&mut self, store: &mut dyn StateStore) -> Result<()> {
        for key in self.legacy.drain(..) {
            store.remove(&key);
        }
        for g in &mut self.list {
            if !g.stored {
                self.last_built = g.starts.len();
                g.write_rows(store)?;
                g.flags_changed = self.flags;
            }
            if g.flags_changed {
                store.put_bytes(&store_key(g.id, FLAGS), &pack_flags(&g.matched))?;
                g.flags_changed = false;
            }
        }
        if self.evicted_changed {
            store.put_bytes(&EVICTED, &self.evicted.to_le_bytes())?;
            self.evicted_changed = false;
        }
        while self.list.len() > MAX_GENERATIONS {
            let i = (0..self.list.len() - 1)
                .min_by_key(|i| self.list[*i].live + self.list[*i + 1].live)
                .unwrap_or(0);
            self.merge(i, store)?;
        }
        Ok(())
    }

    /// Merge generation `i` and the next one into one, their evicted rows
    /// left out.
    fn merge(&mut self, i: usize, store: &mut dyn StateStore) -> Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        let shift = self.list[i].shift.max(self.list[i + 1].shift);
        let mut merged = Generation::new(id, shift);
        for g in &self.list[i..i + 2] {
            let segs = g.segments(&*store)?;
            for r in (0..g.starts.len()).filter(|r| g.alive(*r, self.evicted)) {
                let row = row_in(&segs[..], g.shift, g.starts[r])?;
                let len = stored_len(row.key, row.row);
                if !merged.fits(len) {
                    return Err(too_long(len));
                }
                let matched = g.matched.get(r).copied().unwrap_or(false);
                merged.push(row.key, row.expiry, row.row, self.flags.then_some(matched));
            }
        }
        if self.flags {
            store.put_bytes(&store_key(id, FLAGS), &pack_flags(&merged.matched))?;
        }
        merged.write_rows(store)?;
        for g in self.list.drain(i..i + 2) {
            g.remove_from(store, self.flags);
        }
        self.list.insert(i, merged);
        Ok(())
    }

    /// After the store committed: drop the copies of bytes it can lend.
    pub(super) fn committed(&mut self, store: &dyn StateStore) -> Result<()> {
        for g in &mut self.list {
            if g.own.is_some()
                && g.segments > 0
                && matches!(
                    store.get_bytes(&segment_key(g.id, 0))?,
                    Some(Cow::Borrowed(_))
                )
            {
                g.own = None;
            }
        }
        Ok(())
    }
}

/// Byte strings packed in one buffer (rows evicted unmatched).
#[derive(Default)]
pub(super) struct ByteList {
    pub(super) bytes: Vec<u8>,
    pub(super) ends: Vec<usize>,
}

impl ByteList {
    pub(super) fn push(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.ends.push(self.bytes.len());
    }

    /// Add `other`'s strings after these.
    pub(super) fn extend(&mut self, other: &ByteList) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|e| base + e));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, e)| &self.bytes[s..*e])
    }
}

/// The rows in the state of a join side's store, for the state reader:
/// (key, row) of each row not evicted, from the store's entries.
pub(crate) fn rows_in_state(entries: &[(Vec<u8>, Vec<u8>)]) -> Result<ByteEntries> {
    let evicted = match entries.iter().find(|(k, _)| *k == EVICTED) {
        Some((_, v)) => i64::from_le_bytes(v.as_slice().try_into().map_err(|_| corrupt())?),
        None => i64::MIN,
    };
    let mut segments = BTreeMap::new();
    let mut out = Vec::new();
    for (k, v) in entries {
        match entry_of(k)? {
            Entry::Segment(id, s) => {
                segments.insert((id, s), v);
            }
            Entry::Whole(id) => {
                segments.insert((id, 0), v);
            }
            Entry::Legacy => {
                for (_, _, row) in legacy_rows(v)? {
                    out.push((k.clone(), row.to_vec()));
                }
            }
            _ => {}
        }
    }
    for bytes in segments.values() {
        for r in stored_rows(bytes) {
            let r = r?;
            if r.expiry > evicted {
                out.push((r.key.to_vec(), r.row.to_vec()));
            }
        }
    }
    Ok(out)
}

/// A join side's store entries regrouped for `partitions` partitions (a
/// rescale): each generation's rows (and flags) split by their key's
/// partition under new ids from `next_id`, the eviction watermark kept by
/// each, an earlier version's per-key value routed by its key.
pub(crate) fn regroup(
    entries: ByteEntries,
    partitions: usize,
    next_id: &mut u64,
) -> Result<Vec<ByteEntries>> {
    let mut out = vec![Vec::new(); partitions];
    let mut flags_of: HashMap<u64, Vec<u8>> = HashMap::new();
    // each generation's segments, in order
    let mut gens: BTreeMap<u64, BTreeMap<u32, Vec<u8>>> = BTreeMap::new();
    for (k, v) in entries {
        match entry_of(&k)? {
            Entry::Segment(id, s) => {
                gens.entry(id).or_default().insert(s, v);
            }
            Entry::Whole(id) => {
                gens.entry(id).or_default().insert(0, v);
            }
            Entry::Flags(id) => {
                flags_of.insert(id, v);
            }
            Entry::Evicted => out.iter_mut().for_each(|p| p.push((k.clone(), v.clone()))),
            Entry::Legacy => out[partition_for(&k, partitions)].push((k, v)),
        }
    }
    for (id, segments) in gens {
        let flags = flags_of.get(&id);
        let mut rows = Vec::new();
        for bytes in segments.values() {
            for r in stored_rows(bytes) {
                rows.push(r?);
            }
        }
        let matched = flags.map(|f| unpack_flags(f, rows.len()));
        let longest = segments.values().map(Vec::len).max().unwrap_or(0);
        let mut split: Vec<Option<Generation>> = (0..partitions).map(|_| None).collect();
        for (i, r) in rows.iter().enumerate() {
            let g = split[partition_for(r.key, partitions)].get_or_insert_with(|| {
                *next_id += 1;
                Generation::new(*next_id - 1, shift_for(longest))
            });
            let m = matched.as_ref().is_some_and(|f| f[i]);
            g.push(r.key, r.expiry, r.row, Some(m));
        }
        for (p, g) in split.into_iter().enumerate() {
            let Some(mut g) = g else { continue };
            for seg in g.own.take().unwrap_or_default() {
                let mut key = seg.buf;
                let rows = key.split_off(SEGMENT_KEY_LEN);
                out[p].push((key, rows));
            }
            if flags.is_some() {
                out[p].push((store_key(g.id, FLAGS).to_vec(), pack_flags(&g.matched)));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::memory::MemoryProvider;
    use crate::state::{StateStoreProvider, StoreSpec};

    fn spec(name: &str) -> StoreSpec {
        let dir =
            std::env::temp_dir().join(format!("sparklet-gens-{name}-{}", uuid::Uuid::new_v4()));
        StoreSpec {
            dir,
            value_fields: vec![Arc::new(Field::new("rows", DataType::Binary, true))],
            min_deltas_for_snapshot: 10,
            min_versions_to_retain: 10,
            key_order: KeyOrder::Unordered,
            evolution: None,
            durable: true,
            fsync: true,
        }
    }

    /// The rows of `key` a probe finds, in the order stored.
    fn probe(gens: &Generations, store: &dyn StateStore, key: &[u8]) -> Result<Vec<Vec<u8>>> {
        let views = gens.views(store)?;
        let mut found = Vec::new();
        gens.probe(&views, key, key_hash(key), &mut found);
        found
            .into_iter()
            .map(|f| Ok(gens.row(&views, f)?.to_vec()))
            .collect()
    }

    fn commit(gens: &mut Generations, store: &mut dyn StateStore) -> Result<()> {
        gens.write(store)?;
        store.commit()?;
        gens.committed(store)
    }

    #[test]
    fn rows_survive_their_byte_layout_and_flags_their_packing() -> Result<()> {
        let mut b = Vec::new();
        push_row(&mut b, b"k1", 5, b"row one");
        push_row(&mut b, b"", i64::MAX, b"");
        let rows: Vec<StoredRow> = stored_rows(&b).collect::<Result<_>>()?;
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].key, rows[0].expiry, rows[0].row),
            (&b"k1"[..], 5, &b"row one"[..])
        );
        assert_eq!(
            (rows[1].key, rows[1].expiry, rows[1].row),
            (&b""[..], i64::MAX, &b""[..])
        );
        let flags = [true, false, false, true, false, false, false, false, true];
        assert_eq!(unpack_flags(&pack_flags(&flags), flags.len()), flags);
        // a cut value is an error, not a panic
        assert!(stored_rows(&b[..7]).any(|r| r.is_err()));
        Ok(())
    }

    #[test]
    fn rows_are_probed_evicted_by_expiry_and_restored_as_committed() -> Result<()> {
        let spec = spec("evict");
        let mut store = MemoryProvider.open(&spec, 0)?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        gens.append(b"a", 10, false, b"a1")?;
        gens.append(b"b", 20, false, b"b1")?;
        gens.append(b"a", 30, false, b"a2")?;
        assert_eq!(
            probe(&gens, store.as_ref(), b"a")?,
            vec![b"a1".to_vec(), b"a2".to_vec()]
        );
        assert!(probe(&gens, store.as_ref(), b"c")?.is_empty());
        // a1 matched: not emitted when it expires
        let views = gens.views(store.as_ref())?;
        let mut found = Vec::new();
        gens.probe(&views, b"a", key_hash(b"a"), &mut found);
        drop(views);
        gens.set_matched(found[0]);
        commit(&mut gens, store.as_mut())?;
        // the next batch's row, then eviction at 25: a1 and b1 go, b1 emitted
        gens.append(b"a", 100, false, b"a3")?;
        let mut unmatched = ByteList::default();
        assert_eq!(gens.evict(store.as_mut(), 25, true, &mut unmatched)?, 2);
        assert_eq!(unmatched.iter().collect::<Vec<_>>(), vec![&b"b1"[..]]);
        assert_eq!(
            probe(&gens, store.as_ref(), b"a")?,
            vec![b"a2".to_vec(), b"a3".to_vec()]
        );
        assert_eq!(gens.live_rows(), 2);
        commit(&mut gens, store.as_mut())?;
        // a restart sees the same rows, the evicted ones hidden
        let mut store = MemoryProvider.open(&spec, 2)?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        assert_eq!(gens.live_rows(), 2);
        assert!(probe(&gens, store.as_ref(), b"b")?.is_empty());
        assert_eq!(
            probe(&gens, store.as_ref(), b"a")?,
            vec![b"a2".to_vec(), b"a3".to_vec()]
        );
        // at 50 the first generation goes whole, its unmatched a2 emitted once
        let mut unmatched = ByteList::default();
        assert_eq!(gens.evict(store.as_mut(), 50, true, &mut unmatched)?, 1);
        assert_eq!(unmatched.iter().collect::<Vec<_>>(), vec![&b"a2"[..]]);
        assert_eq!(gens.list.len(), 1);
        commit(&mut gens, store.as_mut())?;
        let store = MemoryProvider.open(&spec, 3)?;
        assert_eq!(
            store.keys().count(),
            3,
            "one generation's rows and flags, the watermark"
        );
        let _ = std::fs::remove_dir_all(&spec.dir);
        Ok(())
    }

    #[test]
    fn many_small_generations_merge_and_keep_every_row() -> Result<()> {
        let spec = spec("merge");
        let mut store = MemoryProvider.open(&spec, 0)?;
        let mut gens = Generations::restore(store.as_ref(), false)?;
        for batch in 0..40u8 {
            gens.append(&[b'k', batch % 5], i64::MAX, false, &[batch])?;
            commit(&mut gens, store.as_mut())?;
            assert!(gens.list.len() <= MAX_GENERATIONS);
        }
        let store = MemoryProvider.open(&spec, 40)?;
        let gens = Generations::restore(store.as_ref(), false)?;
        assert_eq!(gens.live_rows(), 40);
        let mut rows = probe(&gens, store.as_ref(), &[b'k', 3])?;
        rows.sort();
        let want: Vec<Vec<u8>> = (0..40u8).filter(|b| b % 5 == 3).map(|b| vec![b]).collect();
        assert_eq!(rows, want);
        let _ = std::fs::remove_dir_all(&spec.dir);
        Ok(())
    }

    #[test]
    fn rows_span_segments_and_a_row_longer_than_one_gets_its_own() -> Result<()> {
        let spec = spec("segments");
        let mut store = MemoryProvider.open(&spec, 0)?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        // 3,000 rows of 2 KB: two segments of 4 MiB
        let row = |i: u32| [&i.to_le_bytes()[..], &[7u8; 2044]].concat();
        for i in 0..3_000u32 {
            gens.append(&[b'k', (i % 7) as u8], i64::MAX, false, &row(i))?;
        }
        let want: Vec<Vec<u8>> = (0..3_000u32).filter(|i| i % 7 == 3).map(row).collect();
        assert_eq!(probe(&gens, store.as_ref(), b"k\x03")?, want);
        commit(&mut gens, store.as_mut())?;
        assert_eq!(gens.list[0].segments, 2);
        // a row longer than a segment: a generation of longer segments
        let long = vec![9u8; 5 << 20];
        gens.append(b"k\x03", i64::MAX, false, &long)?;
        gens.append(b"k\x03", i64::MAX, false, b"after")?;
        commit(&mut gens, store.as_mut())?;
        let store = MemoryProvider.open(&spec, 2)?;
        let gens = Generations::restore(store.as_ref(), true)?;
        let mut all = want.clone();
        all.extend([long, b"after".to_vec()]);
        assert_eq!(probe(&gens, store.as_ref(), b"k\x03")?, all);
        assert_eq!(gens.live_rows(), 3_002);
        // a rescale splits the segments by key, every row kept once
        let entries: ByteEntries = store
            .keys()
            .map(|k| {
                let k = k?.into_owned();
                let v = store.get_bytes(&k)?.ok_or_else(corrupt)?.into_owned();
                Ok((k, v))
            })
            .collect::<Result<_>>()?;
        let split = regroup(entries, 3, &mut 100)?;
        let rows: usize = split
            .iter()
            .map(|p| rows_in_state(p).map(|r| r.len()))
            .sum::<Result<_>>()?;
        assert_eq!(rows, 3_002);
        for (p, part) in split.iter().enumerate() {
            for (key, _) in rows_in_state(part)? {
                assert_eq!(partition_for(&key, 3), p);
            }
        }
        let _ = std::fs::remove_dir_all(&spec.dir);
        Ok(())
    }

    #[test]
    fn a_generation_stored_in_one_value_is_read_and_rewritten_in_segments() -> Result<()> {
        let spec = spec("whole");
        let mut store = MemoryProvider.open(&spec, 0)?;
        // as the version before segments wrote it: generation 3's rows in
        // one value, r1 matched, r0 evicted already (watermark 5)
        let mut rows = Vec::new();
        for (expiry, row) in [(4i64, &b"r0"[..]), (7, b"r1"), (9, b"r2")] {
            push_row(&mut rows, b"k", expiry, row);
        }
        store.put_bytes(&store_key(3, ROWS), &rows)?;
        store.put_bytes(&store_key(3, FLAGS), &pack_flags(&[false, true, false]))?;
        store.put_bytes(&EVICTED, &5i64.to_le_bytes())?;
        store.commit()?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        assert_eq!(
            probe(&gens, store.as_ref(), b"k")?,
            vec![b"r1".to_vec(), b"r2".to_vec()]
        );
        commit(&mut gens, store.as_mut())?;
        assert!(store.get_bytes(&store_key(3, ROWS))?.is_none());
        assert!(store.get_bytes(&segment_key(4, 0))?.is_some());
        let store = MemoryProvider.open(&spec, 2)?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        let mut store = store;
        let mut unmatched = ByteList::default();
        assert_eq!(gens.evict(store.as_mut(), 10, true, &mut unmatched)?, 2);
        assert_eq!(unmatched.iter().collect::<Vec<_>>(), vec![&b"r2"[..]]);
        let _ = std::fs::remove_dir_all(&spec.dir);
        Ok(())
    }

    #[test]
    fn a_checkpoint_of_rows_stored_per_key_is_read_and_rewritten() -> Result<()> {
        let spec = spec("legacy");
        let mut store = MemoryProvider.open(&spec, 0)?;
        // two rows of key `k` as earlier versions packed them, one matched
        let mut list = Vec::new();
        for (matched, expiry, row) in [(1u8, 7i64, &b"r1"[..]), (0, 9, b"r2")] {
            list.push(matched);
            list.extend_from_slice(&expiry.to_le_bytes());
            list.extend_from_slice(&(row.len() as u32).to_le_bytes());
            list.extend_from_slice(row);
        }
        store.put_bytes(b"\x01k", &list)?;
        store.commit()?;
        let mut gens = Generations::restore(store.as_ref(), true)?;
        assert_eq!(
            probe(&gens, store.as_ref(), b"\x01k")?,
            vec![b"r1".to_vec(), b"r2".to_vec()]
        );
        commit(&mut gens, store.as_mut())?;
        let store = MemoryProvider.open(&spec, 2)?;
        assert!(
            store.get_bytes(b"\x01k")?.is_none(),
            "the old value is gone"
        );
        let mut gens = Generations::restore(store.as_ref(), true)?;
        assert_eq!(gens.live_rows(), 2);
        let mut store = store;
        let mut unmatched = ByteList::default();
        gens.evict(store.as_mut(), 10, true, &mut unmatched)?;
        assert_eq!(unmatched.iter().collect::<Vec<_>>(), vec![&b"r2"[..]]);
        let _ = std::fs::remove_dir_all(&spec.dir);
        Ok(())
    }
}
