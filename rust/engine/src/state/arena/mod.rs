//! A hash map of byte keys to byte values for stores that need no key
//! order (dedup, joins, aggregations): entries live in one growing buffer and the hash
//! table holds only their ids, so a put is an append (no allocation per
//! entry), a lookup one probe, and the changes since the last commit are a
//! list of ids (each once) that the delta file is written from.
//!
//! A removed entry leaves the table at once (its lines are still in cache
//! from the lookup; at the commit they were not) and stays a tombstone in
//! the change list until the commit, which recycles its id (the delta
//! still needs its key). Putting the key again before then makes a new
//! entry, so a delta may name a key removed and put: it lists removals
//! first. Keys that lead with an
//! event time have a table per time bucket: eviction below a time drops
//! whole tables, and the delta records the bound instead of the keys, so
//! evicted entries need no tombstone (their ids are free at once). Freed
//! ids are reused in ascending order and a bucket is read in id order, so
//! a batch's entries are written and read front to back, not in hash
//! order (cache misses were most of an eviction). Replaced values leave
//! dead bytes behind, compacted away once they outweigh live ones. The
//! buffer is a list of chunks, so appending never moves earlier bytes, and
//! compaction hands its old chunks back for reuse: a store in a steady
//! state writes into memory it already has (fresh pages, zeroed by the
//! kernel, showed in every join profile before).

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::TIME_BUCKET_BITS;
use chunks::{Chunks, Loc};
use slots::Segmented;

mod chunks;
mod slots;

type Hasher = foldhash::fast::FixedState;

/// A key's hash folded to 32 bits (a slot keeps it so that a table grows
/// without reading keys); tables take it as `hash64`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Hash32(u32);

impl Hash32 {
    fn of(hasher: &Hasher, key: &[u8]) -> Self {
        let h = hasher.hash_one(key);
        Hash32((h ^ (h >> 32)) as u32)
    }

    /// The 32 bits in both halves: hashbrown places by the low bits and
    /// tags by the top seven, which must both vary.
    fn hash64(self) -> u64 {
        (u64::from(self.0) << 32) | u64::from(self.0)
    }
}

/// Where one entry's key and value are (`key ++ value` at `at`): 24 bytes,
/// most of what an entry costs beside its own bytes (millions of entries).
#[derive(Clone, Copy)]
struct Slot {
    /// The key's [`Hash32`].
    hash: u32,
    at: Loc,
    key_len: u32,
    value_len: u32,
    live: bool,
    /// Listed in `changed` since the last commit.
    changed: bool,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 24);

impl Slot {
    fn len(&self) -> usize {
        self.key_len as usize + self.value_len as usize
    }
}

/// Dead bytes below which no compaction runs.
const MIN_DEAD: usize = 256 << 10;

/// The leading 8 bytes of a time-prefixed key as a number (same order).
pub(crate) fn time_of(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

/// The time bucket of a time-prefixed key.
fn bucket_of(key: &[u8]) -> u64 {
    time_of(key) >> TIME_BUCKET_BITS
}

/// Entry ids by key hash: one table, or one per time bucket of the keys'
/// leading event time.
enum Tables {
    One(HashTable<u32>),
    ByTime(BTreeMap<u64, HashTable<u32>>),
}

impl Tables {
    /// The table that holds `key` if present.
    fn of(&self, key: &[u8]) -> Option<&HashTable<u32>> {
        match self {
            Tables::One(t) => Some(t),
            Tables::ByTime(m) => m.get(&bucket_of(key)),
        }
    }

    /// The table to put `key` in.
    fn for_key(&mut self, key: &[u8]) -> &mut HashTable<u32> {
        match self {
            Tables::One(t) => t,
            Tables::ByTime(m) => m.entry(bucket_of(key)).or_default(),
        }
    }

    /// Take entry `id` (key `key`, hash `hash`) out of its table, if listed.
    fn unlist(&mut self, key: &[u8], hash: Hash32, id: u32) {
        let (table, bucket) = match self {
            Tables::One(t) => (t, None),
            Tables::ByTime(m) => {
                let b = bucket_of(key);
                match m.get_mut(&b) {
                    Some(t) => (t, Some(b)),
                    None => return,
                }
            }
        };
        if let Ok(e) = table.find_entry(hash.hash64(), |&i| i == id) {
            e.remove();
        }
        if let (true, Some(b), Tables::ByTime(m)) = (table.is_empty(), bucket, self) {
            m.remove(&b);
        }
    }
}

/// The key of entry `id` (a free function, so that a caller may hold the
/// tables mutably meanwhile).
fn key_at<'a>(slots: &Segmented<Slot>, data: &'a Chunks, id: u32) -> &'a [u8] {
    let s = &slots[id as usize];
    data.get(s.at, s.key_len as usize)
}

/// Sort `ids` (entry ids below `bound`) in descending order: through a bit
/// per id when they are many for their range (sorting the millions of ids
/// an eviction frees cost more than evicting them), else by comparison.
fn sort_descending(ids: &mut [u32], bound: usize) {
    if ids.len() < 4096 || bound / 256 > ids.len() {
        ids.sort_unstable_by(|a, b| b.cmp(a));
        return;
    }
    let mut bits = vec![0u64; bound.div_ceil(64)];
    let mut distinct = 0;
    for &id in ids.iter() {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        match bits.get_mut(word) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                distinct += 1;
            }
            _ => {}
        }
    }
    if distinct != ids.len() {
        // repeated or out-of-range ids: a bit each would lose some
        ids.sort_unstable_by(|a, b| b.cmp(a));
        return;
    }
    let mut at = 0;
    for (word, mut w) in bits.into_iter().enumerate().rev() {
        while w != 0 {
            let top = 63 - w.leading_zeros();
            ids[at] = (word * 64) as u32 + top;
            at += 1;
            w &= !(1u64 << top);
        }
    }
}

/// Keys and values in a buffer, found through a table of entry ids.
pub(super) struct ArenaMap {
    hasher: Hasher,
    tables: Tables,
    slots: Segmented<Slot>,
    data: Chunks,
    /// Bytes of live entries in `data` (the rest is dead).
    live_bytes: usize,
    /// Key bytes of tombstones awaiting the commit (kept by compaction).
    tombstone_bytes: usize,
    /// Tombstones awaiting the commit.
    tombstones: usize,
    live: usize,
    /// Ids free for reuse (tombstones dropped by a commit).
    free: Vec<u32>,
    /// Ids put or removed since the last commit.
    changed: Vec<u32>,
}

impl ArenaMap {
    /// An empty map; `time_prefixed` keys lead with an 8-byte event time.
    pub fn new(time_prefixed: bool) -> Self {
        ArenaMap {
            hasher: Hasher::default(),
            tables: if time_prefixed {
                Tables::ByTime(BTreeMap::new())
            } else {
                Tables::One(HashTable::new())
            },
            slots: Segmented::default(),
            data: Chunks::default(),
            live_bytes: 0,
            tombstone_bytes: 0,
            tombstones: 0,
            live: 0,
            free: Vec::new(),
            changed: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.live
    }

    /// Bytes the map holds from the allocator: the buffer's chunks (dead
    /// bytes and spare chunks kept for reuse included), the slots, the
    /// hash tables and the id lists. This is what the state costs the
    /// process (Spark's `SizeEstimator` of its map likewise counts the map's
    /// overhead); an eviction shows once its tables are dropped and its dead
    /// bytes compacted away.
    pub fn memory_bytes(&self) -> u64 {
        let tables = match &self.tables {
            Tables::One(t) => t.allocation_size(),
            Tables::ByTime(m) => m
                .values()
                .map(|t| t.allocation_size() + std::mem::size_of::<(u64, HashTable<u32>)>())
                .sum(),
        };
        let ids = (self.free.capacity() + self.changed.capacity()) * std::mem::size_of::<u32>();
        (self.data.allocated() + self.slots.capacity() * std::mem::size_of::<Slot>() + tables + ids)
            as u64
    }

    fn key(&self, id: u32) -> &[u8] {
        key_at(&self.slots, &self.data, id)
    }

    fn value(&self, id: u32) -> &[u8] {
        let s = &self.slots[id as usize];
        &self.data.get(s.at, s.len())[s.key_len as usize..]
    }

    fn find(&self, key: &[u8]) -> Option<u32> {
        // a key of a time bucket with no table is absent: no hash needed
        // (a sliding window's new groups, most of each batch's lookups)
        let table = self.tables.of(key)?;
        let hash = Hash32::of(&self.hasher, key);
        self.find_in(table, key, hash)
    }

    /// The entry id of `key`, whose hash is `hash`.
    fn find_hashed(&self, key: &[u8], hash: Hash32) -> Option<u32> {
        self.find_in(self.tables.of(key)?, key, hash)
    }

    fn find_in(&self, table: &HashTable<u32>, key: &[u8], hash: Hash32) -> Option<u32> {
        table
            .find(hash.hash64(), |&id| {
                let s = &self.slots[id as usize];
                s.hash == hash.0 && self.data.get(s.at, s.key_len as usize) == key
            })
            .copied()
    }

    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        let id = self.find(key)?;
        self.slots[id as usize].live.then(|| self.value(id))
    }

    fn mark_changed(&mut self, id: u32) {
        let s = &mut self.slots[id as usize];
        if !s.changed {
            s.changed = true;
            self.changed.push(id);
        }
    }

    /// Write `key ++ value` at the end of the buffer into slot `id`.
    fn write(&mut self, id: u32, key: &[u8], value: &[u8]) {
        let at = self.data.push([key, value]);
        self.written_at(id, at, key.len(), value.len());
    }

    /// Live entry `id`'s bytes are no longer used (it is about to be
    /// written again).
    fn unwrite(&mut self, id: u32) {
        let s = self.slots[id as usize];
        self.live_bytes -= s.len();
        self.live -= 1;
        self.data.release(s.at, s.len());
    }

    /// Slot `id` holds the entry written at `at`.
    fn written_at(&mut self, id: u32, at: Loc, key_len: usize, value_len: usize) {
        let s = &mut self.slots[id as usize];
        s.at = at;
        s.key_len = key_len as u32;
        s.value_len = value_len as u32;
        s.live = true;
        self.live_bytes += key_len + value_len;
        self.live += 1;
    }

    /// Set the key `entry[..key_len]` to the rest of `entry`, keeping the
    /// buffer itself as the entry's bytes (a value of megabytes built by
    /// its operator is not copied).
    pub fn put_entry(&mut self, entry: Vec<u8>, key_len: usize) {
        let key = &entry[..key_len];
        let hash = Hash32::of(&self.hasher, key);
        let id = match self.find_hashed(key, hash) {
            Some(id) => {
                self.unwrite(id);
                id
            }
            None => {
                let id = self.new_id(hash);
                self.list(id, key, hash);
                id
            }
        };
        self.mark_changed(id);
        let value_len = entry.len() - key_len;
        let at = self.data.adopt(entry);
        self.written_at(id, at, key_len, value_len);
        self.compact_if_sparse();
    }

    /// Set `key` to `value`; with `only_if_absent`, leave a live key as it
    /// is. Returns whether the value was written.
    pub fn put(&mut self, key: &[u8], value: &[u8], only_if_absent: bool) -> bool {
        let hash = Hash32::of(&self.hasher, key);
        match self.find_hashed(key, hash) {
            Some(id) => {
                let s = self.slots[id as usize];
                // a removed entry leaves its table at once (`remove_id`)
                debug_assert!(s.live, "a table lists only live entries");
                if only_if_absent {
                    return false;
                }
                self.unwrite(id);
                self.write(id, key, value);
                self.mark_changed(id);
            }
            None => self.insert_new(key, value, hash),
        }
        self.compact_if_sparse();
        true
    }

    /// Put `key`, which has no live value, without looking for it: removed
    /// entries leave the table at once, so it cannot hold the key (a caller
    /// that just looked keys up saves the second probe of each).
    pub fn put_absent(&mut self, key: &[u8], value: &[u8]) {
        let hash = Hash32::of(&self.hasher, key);
        self.insert_new(key, value, hash);
        self.compact_if_sparse();
    }

    /// Add an entry for `key`, which the table does not hold.
    fn insert_new(&mut self, key: &[u8], value: &[u8], hash: Hash32) {
        let id = self.new_id(hash);
        self.write(id, key, value);
        self.mark_changed(id);
        self.list(id, key, hash);
    }

    /// A slot for a new entry whose key hashes to `hash`.
    fn new_id(&mut self, hash: Hash32) -> u32 {
        let slot = Slot {
            hash: hash.0,
            at: Loc::default(),
            key_len: 0,
            value_len: 0,
            live: false,
            changed: false,
        };
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = slot;
                id
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// List entry `id` (key `key`) in its table.
    fn list(&mut self, id: u32, key: &[u8], hash: Hash32) {
        let slots = &self.slots;
        self.tables
            .for_key(key)
            .insert_unique(hash.hash64(), id, |&i| {
                Hash32(slots[i as usize].hash).hash64()
            });
    }

    fn remove_id(&mut self, id: u32) {
        let s = &mut self.slots[id as usize];
        if s.live {
            s.live = false;
            self.live_bytes -= s.len();
            // the delta needs only the key of a removed entry
            self.data.release(s.at, s.value_len as usize);
            s.value_len = 0;
            self.tombstone_bytes += s.key_len as usize;
            self.tombstones += 1;
            self.live -= 1;
            let hash = Hash32(s.hash);
            self.mark_changed(id);
            let key = key_at(&self.slots, &self.data, id);
            self.tables.unlist(key, hash, id);
        }
    }

    /// Remove `key`; returns whether it was there.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        match self.find(key) {
            Some(id) if self.slots[id as usize].live => {
                self.remove_id(id);
                true
            }
            _ => false,
        }
    }

    /// Live entries whose key is ordered before `bound`: with an 8-byte
    /// bound and tables by time, only the tables up to the bound's are
    /// looked at (keys compared only in the bound's own), and entries come
    /// table by table (in time order but within a table), else in no
    /// particular order.
    pub fn entries_below(&self, bound: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        let ids: Vec<u32> = match &self.tables {
            Tables::ByTime(m) if bound.len() == 8 => {
                let t = time_of(bound);
                let last = t >> TIME_BUCKET_BITS;
                let mut ids = Vec::new();
                for (&b, table) in m.range(..=last) {
                    let from = ids.len();
                    ids.extend(
                        table
                            .iter()
                            .copied()
                            .filter(|&id| b < last || time_of(self.key(id)) < t),
                    );
                    // in id order, the order they were written in (see
                    // `order_freed`), not in the table's hash order
                    ids[from..].sort_unstable();
                }
                ids
            }
            _ => (0..self.slots.len() as u32)
                .filter(|&id| self.key(id) < bound)
                .collect(),
        };
        // walked as the caller reads: a pair per entry listed first cost
        // 32 bytes each of millions
        ids.into_iter()
            .filter(|&id| self.slots[id as usize].live)
            .map(|id| (self.key(id), self.value(id)))
    }

    /// Remove every key ordered before `bound`; returns how many went. With
    /// an 8-byte bound and tables by time, the earlier tables are dropped
    /// whole and the bound's own is filtered: the entries go without
    /// tombstones (the caller records the bound for the delta), their ids
    /// free at once unless the change list names them.
    pub fn remove_below(&mut self, bound: &[u8]) -> usize {
        let before = self.live;
        let Tables::ByTime(m) = &mut self.tables else {
            return self.remove_each_below(bound);
        };
        if bound.len() != 8 {
            return self.remove_each_below(bound);
        }
        let t = time_of(bound);
        let last = t >> TIME_BUCKET_BITS;
        let keep = m.split_off(&last);
        let gone = std::mem::replace(m, keep);
        let mut ids: Vec<u32> = gone.into_values().flatten().collect();
        if let Some(edge) = m.get_mut(&last) {
            let (slots, data) = (&self.slots, &self.data);
            edge.retain(|&mut id| {
                let below = time_of(key_at(slots, data, id)) < t;
                if below {
                    ids.push(id);
                }
                !below
            });
            if edge.is_empty() {
                m.remove(&last);
            }
        }
        // in descending id order: the slots are visited front to back, not
        // in hash order, and freed as `order_freed` orders them
        sort_descending(&mut ids, self.slots.len());
        for id in ids {
            self.evict(id);
        }
        before - self.live
    }

    /// The ids freed since `free` held `from` of them, ordered so that puts
    /// take them ascending: a batch's entries then lie in id order as in
    /// the buffer, and are read front to back (`entries_below`).
    fn order_freed(&mut self, from: usize) {
        sort_descending(&mut self.free[from..], self.slots.len());
    }

    /// Remove every key ordered before `bound`, one by one (tombstones).
    fn remove_each_below(&mut self, bound: &[u8]) -> usize {
        let before = self.live;
        for id in 0..self.slots.len() as u32 {
            if self.slots[id as usize].live && self.key(id) < bound {
                self.remove_id(id);
            }
        }
        before - self.live
    }

    /// Drop entry `id`, already out of the tables: a live entry put since
    /// the last commit becomes a tombstone (the change list names it, the
    /// commit frees it), any other is free now; a tombstone stays one.
    fn evict(&mut self, id: u32) {
        let s = &mut self.slots[id as usize];
        if !s.live {
            return;
        }
        s.live = false;
        self.live_bytes -= s.len();
        self.live -= 1;
        if s.changed {
            self.data.release(s.at, s.value_len as usize);
            s.value_len = 0;
            self.tombstone_bytes += s.key_len as usize;
            self.tombstones += 1;
        } else {
            self.data.release(s.at, s.len());
            self.free.push(id);
        }
    }

    /// Live entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        (0..self.slots.len() as u32)
            .filter(|&id| self.slots[id as usize].live)
            .map(|id| (self.key(id), self.value(id)))
    }

    /// The changes since the last commit, walked as the delta file is
    /// written (a list of them cost the commit tens of bytes a changed key):
    /// (key, value) of keys put, keys removed (a key may be in both:
    /// removed, then put again).
    pub fn changes(
        &self,
    ) -> (
        impl Iterator<Item = (&[u8], &[u8])> + '_,
        impl Iterator<Item = &[u8]> + '_,
    ) {
        let live = |live: bool| move |id: &&u32| self.slots[**id as usize].live == live;
        let present = self
            .changed
            .iter()
            .filter(live(true))
            .map(|&id| (self.key(id), self.value(id)));
        let removed = self
            .changed
            .iter()
            .filter(live(false))
            .map(|&id| self.key(id));
        (present, removed)
    }

    /// The changes are durable: drop tombstones and start a new change list.
    pub fn committed(&mut self) {
        let freed = self.free.len();
        for id in std::mem::take(&mut self.changed) {
            let s = &mut self.slots[id as usize];
            s.changed = false;
            if !s.live {
                // out of the tables since its removal
                self.tombstone_bytes -= s.key_len as usize;
                self.tombstones -= 1;
                let (at, key_len) = (s.at, s.key_len as usize);
                self.data.release(at, key_len);
                self.free.push(id);
            }
        }
        self.order_freed(freed);
        self.compact_if_sparse();
    }

    /// Rewrite the buffer with only live entries (and tombstones awaiting
    /// the commit) once dead bytes outweigh live ones: each byte is copied
    /// at most once per doubling, so appends stay amortised O(1).
    fn compact_if_sparse(&mut self) {
        let kept = self.live_bytes + self.tombstone_bytes;
        let dead = self.data.written - kept;
        // a floor, so small stores do not compact on every put (many
        // partitions must not each hold megabytes of dead bytes either)
        if dead < MIN_DEAD || dead < kept {
            return;
        }
        let old = self.data.take();
        for s in self.slots.iter_mut() {
            if s.live || s.changed {
                let start = s.at.offset as usize;
                let bytes = &old[s.at.chunk as usize][start..start + s.len()];
                s.at = self.data.push([bytes, &[]]);
            }
        }
        self.data.recycle(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys put with their values, and keys removed.
    type Listed<'a> = (Vec<(&'a [u8], &'a [u8])>, Vec<&'a [u8]>);

    /// The changes as lists.
    fn changes(m: &ArenaMap) -> Listed<'_> {
        let (present, removed) = m.changes();
        (present.collect(), removed.collect())
    }

    #[test]
    fn put_get_remove_and_changes() {
        let mut m = ArenaMap::new(false);
        assert!(m.put(b"a", b"1", true));
        assert!(!m.put(b"a", b"2", true));
        assert!(m.put(b"a", b"3", false));
        assert_eq!(m.get(b"a"), Some(&b"3"[..]));
        assert!(m.put(b"b", b"x", false));
        assert!(m.remove(b"b"));
        assert_eq!(m.get(b"b"), None);
        assert_eq!(m.len(), 1);
        let (present, removed) = changes(&m);
        assert_eq!(present, vec![(&b"a"[..], &b"3"[..])]);
        assert_eq!(removed, vec![&b"b"[..]]);
        m.committed();
        assert!(changes(&m).0.is_empty());
        // a recycled id holds the next key
        assert!(m.put(b"c", b"y", true));
        assert_eq!(m.get(b"c"), Some(&b"y"[..]));
        assert!(m.put(b"d", b"w", true));
        assert_eq!(m.get(b"d"), Some(&b"w"[..]));
        assert_eq!(m.get(b"a"), Some(&b"3"[..]));
    }

    #[test]
    fn a_key_removed_and_put_again_before_the_commit_is_present() {
        let mut m = ArenaMap::new(false);
        m.put(b"k", b"1", false);
        m.committed();
        m.remove(b"k");
        m.put(b"k", b"2", false);
        assert_eq!((m.get(b"k"), m.len()), (Some(&b"2"[..]), 1));
        // the delta lists removals first: replayed, "k" is 2
        let (present, removed) = changes(&m);
        assert_eq!(present, vec![(&b"k"[..], &b"2"[..])]);
        assert_eq!(removed, vec![&b"k"[..]]);
        m.committed();
        assert_eq!((m.live_bytes, m.tombstone_bytes), (2, 0));
    }

    #[test]
    fn an_entry_put_whole_is_kept_without_a_copy_and_released_whole() {
        let mut m = ArenaMap::new(false);
        m.put(b"small", b"v", false);
        let entry = [&b"big"[..], &[7u8; 1 << 20]].concat();
        let rows = entry[3..].as_ptr();
        m.put_entry(entry, 3);
        // the buffer itself is the entry, listed as changed like a put
        assert_eq!(m.get(b"big").map(<[u8]>::as_ptr), Some(rows));
        assert_eq!(m.get(b"big").map(<[u8]>::len), Some(1 << 20));
        assert_eq!(changes(&m).0.len(), 2);
        m.committed();
        let before = m.data.allocated();
        // replaced by a second buffer: the first one goes back at once
        m.put_entry([&b"big"[..], b"new"].concat(), 3);
        assert_eq!(m.get(b"big"), Some(&b"new"[..]));
        assert!(m.data.allocated() < before - (1 << 19));
        assert_eq!((m.len(), m.get(b"small")), (2, Some(&b"v"[..])));
        assert_eq!(changes(&m).0, vec![(&b"big"[..], &b"new"[..])]);
        assert!(m.remove(b"big"));
        m.committed();
        assert_eq!((m.get(b"big"), m.len()), (None, 1));
    }

    #[test]
    fn ids_sort_descending_by_bits_or_by_comparison() {
        let mut many: Vec<u32> = (0..10_000u32).map(|i| (i * 7919) % 10_007).collect();
        let mut want = many.clone();
        want.sort_unstable_by(|a, b| b.cmp(a));
        sort_descending(&mut many, 10_007);
        assert_eq!(many, want);
        // a repeated id falls back to comparison, losing none
        let mut repeated: Vec<u32> = (0..5_000u32).chain(0..5_000).collect();
        sort_descending(&mut repeated, 5_000);
        assert_eq!(
            (repeated[0], repeated[1], repeated.len()),
            (4_999, 4_999, 10_000)
        );
        // few ids in a wide range: by comparison
        let mut few = vec![3, 900_000, 17];
        sort_descending(&mut few, 1_000_000);
        assert_eq!(few, vec![900_000, 17, 3]);
    }

    #[test]
    fn a_put_without_lookup_after_a_removal_before_the_commit() {
        let mut m = ArenaMap::new(false);
        m.put_absent(b"a", b"1");
        assert_eq!(m.get(b"a"), Some(&b"1"[..]));
        assert!(m.remove(b"a"));
        // removed, not committed: out of the table, a tombstone to the delta
        m.put_absent(b"a", b"2");
        assert_eq!((m.get(b"a"), m.len()), (Some(&b"2"[..]), 1));
        let (present, removed) = changes(&m);
        assert_eq!(
            (present, removed),
            (vec![(&b"a"[..], &b"2"[..])], vec![&b"a"[..]])
        );
        m.committed();
        assert!(m.remove(b"a"));
        m.committed();
        m.put_absent(b"a", b"3");
        assert_eq!((m.get(b"a"), m.len()), (Some(&b"3"[..]), 1));
    }

    #[test]
    fn remove_below_by_time_bucket() {
        let mut m = ArenaMap::new(true);
        let key = timed;
        for t in [1u64, 5, 1 << 21, (1 << 21) + 7, 1 << 30] {
            m.put(&key(t, 0), b"", true);
        }
        // what would go: the earlier buckets and the bound's own, in part
        let bound = ((1u64 << 21) + 7).to_be_bytes();
        let mut below: Vec<Vec<u8>> = m.entries_below(&bound).map(|(k, _)| k.to_vec()).collect();
        below.sort();
        assert_eq!(below, vec![key(1, 0), key(5, 0), key(1 << 21, 0)]);
        let gone = m.remove_below(&bound);
        assert_eq!(gone, 3);
        assert!(m.entries_below(&bound).next().is_none());
        assert!(m.get(&key((1 << 21) + 7, 0)).is_some());
        assert!(m.get(&key(1 << 30, 0)).is_some());
        assert_eq!(m.remove_below(&(1u64 << 31).to_be_bytes()), 2);
        assert_eq!(m.len(), 0);
    }

    fn timed(t: u64, k: u8) -> Vec<u8> {
        let mut v = t.to_be_bytes().to_vec();
        v.push(k);
        v
    }

    #[test]
    fn evicted_entries_leave_no_tombstone_and_free_their_ids() {
        let mut m = ArenaMap::new(true);
        for k in 0..4 {
            m.put(&timed(1, k), b"old", false);
        }
        m.put(&timed(3 << 20, 0), b"kept", false);
        m.committed();
        // put since the commit, then evicted with the rest of its bucket
        m.put(&timed(2, 9), b"new", false);
        // removed by key, then its bucket evicted
        assert!(m.remove(&timed(1, 0)));
        let bound = (3u64 << 20).to_be_bytes();
        assert_eq!(m.remove_below(&bound), 4);
        assert_eq!(m.len(), 1);
        assert_eq!(m.get(&timed(1, 1)), None);
        // evicted keys from before the commit are not listed (the delta
        // records the bound); the ones the change list named are, as removed
        let (present, mut removed) = changes(&m);
        removed.sort();
        assert!(present.is_empty());
        assert_eq!(removed, vec![&timed(1, 0)[..], &timed(2, 9)[..]]);
        // freed ids hold new keys before the commit, and a key put again
        // after its eviction is present
        m.put(&timed(1, 1), b"again", false);
        m.put(&timed(5 << 20, 0), b"later", false);
        assert_eq!(m.get(&timed(1, 1)), Some(&b"again"[..]));
        assert_eq!(m.slots.len(), 6);
        let (present, _) = changes(&m);
        assert_eq!(present.len(), 2);
        m.committed();
        assert_eq!((m.len(), m.tombstones, m.tombstone_bytes), (3, 0, 0));
        assert_eq!(m.get(&timed(3 << 20, 0)), Some(&b"kept"[..]));
        assert_eq!(m.get(&timed(5 << 20, 0)), Some(&b"later"[..]));
    }

    #[test]
    fn freed_ids_are_reused_in_ascending_order_and_read_in_id_order() {
        let mut m = ArenaMap::new(true);
        for k in 0..50 {
            m.put(&timed(1, k), &[k], false);
        }
        m.committed();
        assert_eq!(m.remove_below(&(2u64 << 20).to_be_bytes()), 50);
        // the next puts fill the freed slots front to back
        for k in 0..50 {
            m.put(&timed(3 << 20, k), &[k], false);
            assert_eq!(m.find(&timed(3 << 20, k)), Some(u32::from(k)));
        }
        // and a bucket is read in that order, whatever its hash order
        let values: Vec<u8> = m
            .entries_below(&(4u64 << 20).to_be_bytes())
            .map(|(_, v)| v[0])
            .collect();
        assert_eq!(values, (0..50).collect::<Vec<u8>>());
        // ids freed by key removals at a commit too
        for k in [7u8, 3, 40] {
            assert!(m.remove(&timed(3 << 20, k)));
        }
        m.committed();
        let ids: Vec<Option<u32>> = [1u8, 2, 3]
            .iter()
            .map(|&k| {
                m.put(&timed(5 << 20, k), b"", false);
                m.find(&timed(5 << 20, k))
            })
            .collect();
        assert_eq!(ids, vec![Some(3), Some(7), Some(40)]);
    }

    #[test]
    fn a_bucket_emptied_by_key_removals_is_dropped_at_the_commit() {
        let mut m = ArenaMap::new(true);
        m.put(&timed(1, 0), b"v", false);
        m.committed();
        assert!(m.remove(&timed(1, 0)));
        m.committed();
        assert!(matches!(&m.tables, Tables::ByTime(t) if t.is_empty()));
        assert!(m.entries_below(&u64::MAX.to_be_bytes()).next().is_none());
    }

    #[test]
    fn removing_most_keys_does_not_compact_on_every_put() {
        let mut m = ArenaMap::new(false);
        let value = [1u8; 64];
        for k in 0..100_000u32 {
            m.put(&k.to_le_bytes(), &value, false);
        }
        m.committed();
        // every hundredth key stays (so that no chunk's bytes all go)
        for k in (0..100_000u32).filter(|k| k % 100 != 0) {
            m.remove(&k.to_le_bytes());
        }
        // the first put compacts (dead bytes outweigh the rest); after it,
        // tombstones' keys count as kept, not dead, so the next 999 puts
        // leave their replaced values' bytes dead instead of compacting again
        for k in (0..100_000u32).step_by(100) {
            m.put(&k.to_le_bytes(), &value, false);
        }
        let dead = m.data.written - m.live_bytes - m.tombstone_bytes;
        assert_eq!(dead, 999 * (4 + 64));
        m.committed();
        assert_eq!(m.tombstone_bytes, 0);
        assert_eq!(m.len(), 1_000);
    }

    #[test]
    fn compaction_keeps_every_live_value() {
        let mut m = ArenaMap::new(false);
        let big = vec![7u8; 1 << 16];
        for round in 0..200u32 {
            for k in 0..8u32 {
                let mut v = big.clone();
                v.extend_from_slice(&round.to_le_bytes());
                m.put(&k.to_le_bytes(), &v, false);
            }
            m.committed();
        }
        // 100 MiB written in all; compaction keeps a few MiB
        assert!(m.data.allocated() < 32 << 20, "{}", m.data.allocated());
        for k in 0..8u32 {
            assert_eq!(
                &m.get(&k.to_le_bytes()).unwrap()[1 << 16..],
                &199u32.to_le_bytes()
            );
        }
    }

    #[test]
    fn memory_counts_what_the_map_holds_and_frees_evicted_buckets() {
        let mut m = ArenaMap::new(true);
        let n = 100_000u64;
        for i in 0..n {
            // 10 ms apart: about a hundred entries a time bucket
            let mut key = (i * 10_000).to_be_bytes().to_vec();
            key.extend_from_slice(&i.to_le_bytes());
            m.put(&key, b"", false);
        }
        m.committed();
        let held = m.memory_bytes();
        // at least each entry's 16 bytes, its slot and its table entry;
        // slots grow by a quarter, so not much more
        let floor = n * (16 + std::mem::size_of::<Slot>() as u64 + 5);
        assert!(
            held >= floor && held < floor * 2,
            "{held} for floor {floor}"
        );
        // every bucket evicted: their tables go
        m.remove_below(&u64::MAX.to_be_bytes());
        m.committed();
        assert_eq!(m.len(), 0);
        assert!(
            m.memory_bytes() < held,
            "{} after, {held} before",
            m.memory_bytes()
        );
    }
}
