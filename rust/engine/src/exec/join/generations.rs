//! One side's stored rows of a partition, by generation: the rows a
//! micro-batch stores are one generation, appended in order to one byte
//! buffer with a hash index of its own, and written to the state store
//! once, as one value. A row is probed in every live generation (a few:
//! small neighbours merge); eviction drops a generation whole once all its
//! rows expired, and hides the expired rows of the others (their bytes
//! stay until the generation goes or merges). So storing a row is an
//! append, evicting it costs nothing per row, and the checkpoint's delta
//! is the batch's new rows, not a put and a removal per row.

use super::*;
use hashbrown::HashTable;
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

/// A generation's own bytes: its store key, then its rows, so that a store
/// can keep the buffer as the entry without copying it; or the rows alone,
/// a copy a store gave.
struct OwnBytes {
    buf: Vec<u8>,
    rows_at: usize,
}

impl OwnBytes {
    /// Generation `id`'s entry, no rows yet.
    fn entry(id: u64) -> Self {
        OwnBytes {
            buf: store_key(id, ROWS).to_vec(),
            rows_at: KEY_LEN,
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
        Ok(store.put_entry(self.buf, KEY_LEN)?.map(|buf| OwnBytes {
            buf,
            rows_at: KEY_LEN,
        }))
    }
}

/// What a store key holds.
enum Entry {
    /// A generation's rows or flags: its id and which.
    Generation(u64, u8),
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
    match key {
        [_, id @ .., kind] if id.len() == 8 && matches!(*kind, ROWS | FLAGS) => {
            Ok(Entry::Generation(
                u64::from_be_bytes(id.try_into().map_err(|_| corrupt())?),
                *kind,
            ))
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
fn same_key(e: &(u64, u32, u32), bytes: &[u8], starts: &[u32], key: &[u8], hash: u64) -> bool {
    e.0 == hash && row_at(bytes, starts[e.1 as usize] as usize).is_ok_and(|s| s.key == key)
}

/// The rows of one batch (or of merged batches) of a side's partition.
pub(super) struct Generation {
    id: u64,
    /// Each row's offset in the bytes.
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
    /// Its bytes while it is built, and after where the store cannot lend
    /// its copy (a store on disk gives a copy per read).
    own: Option<OwnBytes>,
    /// Written to the store (its bytes there, its rows checkpointed).
    stored: bool,
}

impl Generation {
    fn new(id: u64) -> Self {
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
            own: Some(OwnBytes::entry(id)),
            stored: false,
        }
    }

    /// Index a row appended to the bytes at `at`.
    fn index(&mut self, bytes: &[u8], at: usize, key: &[u8], expiry: i64, flags: Option<bool>) {
        let r = self.starts.len() as u32;
        self.starts.push(at as u32);
        self.expiry.push(expiry);
        self.max_expiry = self.max_expiry.max(expiry);
        self.live += 1;
        if let Some(m) = flags {
            self.matched.push(m);
        }
        let hash = key_hash(key);
        self.newer.push(NONE);
        let starts = &self.starts;
        match self
            .table
            .find_mut(hash, |e| same_key(e, bytes, starts, key, hash))
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

    /// A generation over stored bytes (restored, or merged).
    fn over(id: u64, bytes: &[u8], flags: Option<&[u8]>, keep_flags: bool) -> Result<Self> {
        let mut g = Generation::new(id);
        g.own = None;
        let rows: Vec<StoredRow> = stored_rows(bytes).collect::<Result<_>>()?;
        let matched = keep_flags.then(|| unpack_flags(flags.unwrap_or_default(), rows.len()));
        let mut at = 0;
        for (i, r) in rows.iter().enumerate() {
            g.index(bytes, at, r.key, r.expiry, matched.as_ref().map(|m| m[i]));
            at = r.end;
        }
        Ok(g)
    }

    /// Its bytes: its own, or the store's.
    pub(super) fn bytes<'a>(&'a self, store: &'a dyn StateStore) -> Result<Cow<'a, [u8]>> {
        match &self.own {
            Some(b) => Ok(Cow::Borrowed(b.rows())),
            None => store
                .get_bytes(&store_key(self.id, ROWS))?
                .ok_or_else(corrupt),
        }
    }

    /// Whether row `r` is still in the state: in a generation being built
    /// (this batch's, evicted at its end), or expiring after `evicted`.
    fn alive(&self, r: usize, evicted: i64) -> bool {
        !self.stored || self.expiry[r] > evicted
    }

    /// The rows of `key` (in the order stored) that are still in the state.
    fn rows_of<'a>(
        &'a self,
        bytes: &'a [u8],
        key: &'a [u8],
        hash: u64,
        evicted: i64,
    ) -> impl Iterator<Item = u32> + 'a {
        let starts = &self.starts;
        let first = self
            .table
            .find(hash, |e| same_key(e, bytes, starts, key, hash))
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
        (self.starts.capacity() * per_row
            + self.table.capacity() * 17 // a 16-byte entry and its control byte
            + self.own.as_ref().map_or(0, |b| b.buf.capacity())) as u64
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
    /// Rows and bytes of the last generation built: the next one is sized
    /// after it.
    last_built: (usize, usize),
}

/// A store's entries as bytes: (key, value).
pub(crate) type ByteEntries = Vec<(Vec<u8>, Vec<u8>)>;

/// A row found by a probe: (generation, row) in [`Generations::list`].
pub(super) type Found = (u32, u32);

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
            last_built: (0, 0),
        };
        let (mut ids, mut legacy) = (Vec::new(), Vec::new());
        for key in store.keys() {
            let key = key?;
            match entry_of(&key)? {
                Entry::Generation(id, ROWS) => ids.push(id),
                Entry::Legacy => legacy.push(key.into_owned()),
                _ => {}
            }
        }
        ids.sort_unstable();
        if let Some(wm) = store.get_bytes(&EVICTED)? {
            gens.evicted = i64::from_le_bytes(wm.as_ref().try_into().map_err(|_| corrupt())?);
        }
        for id in ids {
            let bytes = store.get_bytes(&store_key(id, ROWS))?.ok_or_else(corrupt)?;
            let matched = store.get_bytes(&store_key(id, FLAGS))?;
            let mut g = Generation::over(id, &bytes, matched.as_deref(), flags)?;
            g.stored = true;
            g.live = g.expiry.iter().filter(|e| **e > gens.evicted).count() as u64;
            if let Cow::Owned(buf) = bytes {
                g.own = Some(OwnBytes { buf, rows_at: 0 });
            }
            gens.list.push(g);
            gens.next_id = id + 1;
        }
        // a checkpoint of an earlier version: its rows become a generation
        // written at the next commit, which removes their keys
        for key in legacy {
            let list = store.get_bytes(&key)?.ok_or_else(corrupt)?;
            for (matched, expiry, row) in legacy_rows(&list)? {
                gens.append(&key, expiry, matched, row);
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

    /// Every generation's bytes, in [`Self::list`]'s order.
    pub(super) fn views<'a>(&'a self, store: &'a dyn StateStore) -> Result<Vec<Cow<'a, [u8]>>> {
        self.list.iter().map(|g| g.bytes(store)).collect()
    }

    /// The stored rows of `key` (hashed `hash`), pushed to `out` in the
    /// order they were stored.
    pub(super) fn probe(&self, views: &[Cow<[u8]>], key: &[u8], hash: u64, out: &mut Vec<Found>) {
        for (gi, g) in self.list.iter().enumerate() {
            out.extend(
                g.rows_of(&views[gi], key, hash, self.evicted)
                    .map(|r| (gi as u32, r)),
            );
        }
    }

    /// A found row's bytes (Arrow row format).
    pub(super) fn row<'a>(&self, views: &'a [Cow<[u8]>], (gi, r): Found) -> Result<&'a [u8]> {
        let g = &self.list[gi as usize];
        Ok(row_at(&views[gi as usize], g.starts[r as usize] as usize)?.row)
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

    /// The generation being built, begun if none is or `len` more bytes
    /// would not fit its offsets.
    fn building(&mut self, len: usize) -> &mut Generation {
        let fits = self.list.last().is_some_and(|g| {
            !g.stored
                && g.own
                    .as_ref()
                    .is_some_and(|b| b.rows().len() + len <= u32::MAX as usize)
        });
        if !fits {
            self.list.push(Generation::new(self.next_id));
            self.next_id += 1;
        }
        let last = self.list.len() - 1;
        &mut self.list[last]
    }

    /// Room for `rows` rows of `bytes` bytes (their headers included) about
    /// to be appended. A batch's rows come a chunk at a time, so a new
    /// generation is sized after the last one built (an eighth more), and
    /// grows by doubling only past that: grown by doubling from empty, each
    /// step copied it into fresh pages, at 16M events most of the process's
    /// new memory.
    pub(super) fn reserve(&mut self, rows: usize, bytes: usize) {
        let (flags, (last_rows, last_bytes)) = (self.flags, self.last_built);
        let g = self.building(bytes);
        let (rows, bytes) = if g.starts.is_empty() {
            (
                rows.max(last_rows + last_rows / 8),
                bytes.max(last_bytes + last_bytes / 8),
            )
        } else {
            (rows, bytes)
        };
        if let Some(own) = g.own.as_mut() {
            own.buf.reserve(bytes);
        }
        g.starts.reserve(rows);
        g.expiry.reserve(rows);
        g.newer.reserve(rows);
        if flags {
            g.matched.reserve(rows);
        }
        g.table.reserve(rows, |e| e.0);
    }

    /// Append a row to the generation being built.
    pub(super) fn append(&mut self, key: &[u8], expiry: i64, matched: bool, row: &[u8]) {
        let flags = self.flags.then_some(matched);
        let g = self.building(stored_len(key, row));
        let mut own = g.own.take().unwrap_or_else(|| OwnBytes::entry(g.id));
        let at = own.rows().len();
        push_row(&mut own.buf, key, expiry, row);
        g.index(own.rows(), at, key, expiry, flags);
        g.own = Some(own);
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
        for (gi, g) in self.list.iter_mut().enumerate() {
            let whole = g.max_expiry <= wm;
            let lo = if g.stored { evicted } else { i64::MIN };
            let expiring = |e: i64| e > lo && e <= wm;
            if g.live > 0 && (whole || g.expiry.iter().any(|e| expiring(*e))) {
                let bytes = g.bytes(&*store)?;
                for (r, e) in g.expiry.iter().enumerate() {
                    if !expiring(*e) {
                        continue;
                    }
                    removed += 1;
                    if emit && !g.matched.get(r).copied().unwrap_or(false) {
                        unmatched.push(row_at(&bytes, g.starts[r] as usize)?.row);
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
                store.remove(&store_key(g.id, ROWS));
                if self.flags {
                    store.remove(&store_key(g.id, FLAGS));
                }
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
                let own = g.own.take().unwrap_or_else(|| OwnBytes::entry(g.id));
                self.last_built = (g.starts.len(), own.rows().len());
                g.own = own.store(store)?;
                g.stored = true;
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
        let (mut own, mut matched) = (OwnBytes::entry(id), Vec::new());
        for g in &self.list[i..i + 2] {
            let view = g.bytes(&*store)?;
            for r in (0..g.starts.len()).filter(|r| g.alive(*r, self.evicted)) {
                let row = row_at(&view, g.starts[r] as usize)?;
                push_row(&mut own.buf, row.key, row.expiry, row.row);
                matched.push(g.matched.get(r).copied().unwrap_or(false));
            }
        }
        let flags = self.flags.then(|| pack_flags(&matched));
        let mut merged = Generation::over(id, own.rows(), flags.as_deref(), self.flags)?;
        if let Some(f) = &flags {
            store.put_bytes(&store_key(id, FLAGS), f)?;
        }
        merged.stored = true;
        merged.own = own.store(store)?;
        for g in self.list.drain(i..i + 2) {
            store.remove(&store_key(g.id, ROWS));
            if self.flags {
                store.remove(&store_key(g.id, FLAGS));
            }
        }
        self.list.insert(i, merged);
        Ok(())
    }

    /// After the store committed: drop the copies of bytes it can lend.
    pub(super) fn committed(&mut self, store: &dyn StateStore) -> Result<()> {
        for g in &mut self.list {
            if g.own.is_some()
                && matches!(
                    store.get_bytes(&store_key(g.id, ROWS))?,
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
    let mut gens = Vec::new();
    let mut out = Vec::new();
    for (k, v) in entries {
        match entry_of(k)? {
            Entry::Generation(id, ROWS) => gens.push((id, v)),
            Entry::Legacy => {
                for (_, _, row) in legacy_rows(v)? {
                    out.push((k.clone(), row.to_vec()));
                }
            }
            _ => {}
        }
    }
    gens.sort();
    for (_, bytes) in gens {
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
    let flags_of: HashMap<u64, Vec<u8>> = entries
        .iter()
        .filter_map(|(k, v)| match entry_of(k) {
            Ok(Entry::Generation(id, FLAGS)) => Some((id, v.clone())),
            _ => None,
        })
        .collect();
    let mut gens = Vec::new();
    for (k, v) in entries {
        match entry_of(&k)? {
            Entry::Generation(id, ROWS) => gens.push((id, v)),
            Entry::Generation(..) => {}
            Entry::Evicted => out.iter_mut().for_each(|p| p.push((k.clone(), v.clone()))),
            Entry::Legacy => out[partition_for(&k, partitions)].push((k, v)),
        }
    }
    gens.sort();
    for (id, bytes) in gens {
        let flags = flags_of.get(&id);
        let rows: Vec<StoredRow> = stored_rows(&bytes).collect::<Result<_>>()?;
        let matched = flags.map(|f| unpack_flags(f, rows.len()));
        let mut split: Vec<(Vec<u8>, Vec<bool>)> = vec![Default::default(); partitions];
        for (i, r) in rows.iter().enumerate() {
            let (b, m) = &mut split[partition_for(r.key, partitions)];
            push_row(b, r.key, r.expiry, r.row);
            m.push(matched.as_ref().is_some_and(|f| f[i]));
        }
        for (p, (b, m)) in split.into_iter().enumerate() {
            if b.is_empty() {
                continue;
            }
            let id = *next_id;
            *next_id += 1;
            out[p].push((store_key(id, ROWS).to_vec(), b));
            if flags.is_some() {
                out[p].push((store_key(id, FLAGS).to_vec(), pack_flags(&m)));
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
        gens.append(b"a", 10, false, b"a1");
        gens.append(b"b", 20, false, b"b1");
        gens.append(b"a", 30, false, b"a2");
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
        gens.append(b"a", 100, false, b"a3");
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
            gens.append(&[b'k', batch % 5], i64::MAX, false, &[batch]);
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
