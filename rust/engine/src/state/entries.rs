//! The in-memory map behind a memory store, shaped by the order its
//! operator needs ([`KeyOrder`]): a sorted map for range scans, else an
//! [`ArenaMap`] (a probe instead of a tree walk, no allocation per entry),
//! with an index of keys by their leading event time when they have one.
//! Both track the keys changed since the last commit for the delta file.

use std::collections::{BTreeMap, HashSet};

use super::arena::ArenaMap;
use super::{KeyOrder, StateRow};

/// A value as held in a sorted map: bytes (row-format or an operator's own
/// binary encoding, as the store's codec says) or, for state types the row
/// format cannot hold, the scalars themselves.
#[derive(Clone)]
pub(super) enum Value {
    Bytes(Box<[u8]>),
    Scalars(StateRow),
}

/// A value as read from either map.
#[derive(Clone, Copy)]
pub(super) enum ValueRef<'a> {
    Bytes(&'a [u8]),
    Scalars(&'a StateRow),
}

impl Value {
    fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Bytes(b) => ValueRef::Bytes(b),
            Value::Scalars(r) => ValueRef::Scalars(r),
        }
    }

    /// Approximate bytes held (payload plus headers).
    fn size(&self) -> usize {
        match self {
            Value::Bytes(b) => b.len() + 16,
            Value::Scalars(r) => {
                r.iter()
                    .map(datafusion::common::ScalarValue::size)
                    .sum::<usize>()
                    + 24
            }
        }
    }
}

/// An entry's payloads plus the key's header and the tree's per-entry share.
fn entry_bytes(key_len: usize, value: &Value) -> u64 {
    (key_len + 24 + value.size() + 16) as u64
}

/// A sorted map that remembers the keys changed since the last commit.
#[derive(Default)]
pub(super) struct SortedMap {
    map: BTreeMap<Box<[u8]>, Value>,
    /// Keys put or removed since the last commit (repeats allowed).
    touched: Vec<Box<[u8]>>,
    /// Approximate bytes held, kept as entries change.
    bytes: u64,
}

impl SortedMap {
    fn insert(&mut self, key: &[u8], value: Value, only_if_absent: bool) -> bool {
        if only_if_absent && self.map.contains_key(key) {
            return false;
        }
        self.bytes += entry_bytes(key.len(), &value);
        self.touched.push(key.into());
        if let Some(old) = self.map.insert(key.into(), value) {
            self.bytes -= entry_bytes(key.len(), &old);
        }
        true
    }

    fn remove(&mut self, key: &[u8]) {
        if let Some(old) = self.map.remove(key) {
            self.bytes -= entry_bytes(key.len(), &old);
            self.touched.push(key.into());
        }
    }

    fn remove_below(&mut self, bound: &[u8]) -> usize {
        // one split instead of a lookup per key
        let keep = self.map.split_off(bound);
        let gone = std::mem::replace(&mut self.map, keep);
        let n = gone.len();
        for (k, v) in gone {
            self.bytes -= entry_bytes(k.len(), &v);
            self.touched.push(k);
        }
        n
    }

    fn with_prefix<'a>(&'a self, prefix: &'a [u8]) -> Vec<(&'a [u8], ValueRef<'a>)> {
        self.map
            .range::<[u8], _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.as_ref(), v.as_ref()))
            .collect()
    }

    fn changes(&self) -> (Vec<Entry<'_>>, Vec<&[u8]>) {
        // hashing is cheaper than sorting long keys
        let mut seen: HashSet<&[u8], foldhash::fast::FixedState> =
            HashSet::with_capacity_and_hasher(self.touched.len(), Default::default());
        let (mut present, mut removed) = (Vec::new(), Vec::new());
        for k in self
            .touched
            .iter()
            .map(|k| k.as_ref())
            .filter(|k| seen.insert(k))
        {
            match self.map.get(k) {
                Some(v) => present.push((k, v.as_ref())),
                None => removed.push(k),
            }
        }
        (present, removed)
    }
}

/// A key with its value.
pub(super) type Entry<'a> = (&'a [u8], ValueRef<'a>);
/// Entries walked as they are read.
pub(super) type EntryIter<'a> = Box<dyn Iterator<Item = Entry<'a>> + 'a>;

/// Changes since the last commit: keys put (with their values), keys removed.
pub(super) type Changes<'a> = (EntryIter<'a>, Box<dyn Iterator<Item = &'a [u8]> + 'a>);

/// A store's key → value map.
pub(super) enum Entries {
    Sorted(SortedMap),
    Arena(Box<ArenaMap>),
}

impl Entries {
    /// An empty map for `order`; `bytes_only` when every value is bytes
    /// (the arena holds nothing else).
    pub fn new(order: KeyOrder, bytes_only: bool) -> Self {
        match order {
            KeyOrder::TimePrefixed | KeyOrder::Unordered if bytes_only => {
                Entries::Arena(Box::new(ArenaMap::new(order == KeyOrder::TimePrefixed)))
            }
            _ => Entries::Sorted(SortedMap::default()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Entries::Sorted(m) => m.map.len(),
            Entries::Arena(a) => a.len(),
        }
    }

    /// Approximate bytes held in memory.
    pub fn memory_bytes(&self) -> u64 {
        match self {
            Entries::Sorted(m) => m.bytes,
            Entries::Arena(a) => a.memory_bytes(),
        }
    }

    pub fn get(&self, key: &[u8]) -> Option<ValueRef<'_>> {
        match self {
            Entries::Sorted(m) => m.map.get(key).map(Value::as_ref),
            Entries::Arena(a) => a.get(key).map(ValueRef::Bytes),
        }
    }

    /// Set `key` (unless `only_if_absent` and it has a value); returns
    /// whether it was set.
    pub fn insert(&mut self, key: &[u8], value: Value, only_if_absent: bool) -> bool {
        match (self, value) {
            (Entries::Arena(a), Value::Bytes(b)) => a.put(key, &b, only_if_absent),
            (Entries::Arena(_), Value::Scalars(_)) => {
                unreachable!("arena maps are only made for byte values")
            }
            (Entries::Sorted(m), value) => m.insert(key, value, only_if_absent),
        }
    }

    /// Set `key` to bytes without boxing them first (the arena copies).
    pub fn insert_bytes(&mut self, key: &[u8], value: &[u8], only_if_absent: bool) -> bool {
        match self {
            Entries::Arena(a) => a.put(key, value, only_if_absent),
            Entries::Sorted(m) => m.insert(key, Value::Bytes(value.into()), only_if_absent),
        }
    }

    /// Set the key `entry[..key_len]` to the rest of `entry`; the arena
    /// keeps the buffer itself, a sorted map copies and hands it back.
    pub fn insert_entry(&mut self, entry: Vec<u8>, key_len: usize) -> Option<Vec<u8>> {
        match self {
            Entries::Arena(a) => {
                a.put_entry(entry, key_len);
                None
            }
            Entries::Sorted(m) => {
                let (key, value) = entry.split_at(key_len);
                m.insert(key, Value::Bytes(value.into()), false);
                Some(entry)
            }
        }
    }

    /// Set `key`, which has no live value, to bytes (the arena skips its
    /// lookup).
    pub fn insert_absent(&mut self, key: &[u8], value: &[u8]) {
        match self {
            Entries::Arena(a) => a.put_absent(key, value),
            Entries::Sorted(m) => {
                m.insert(key, Value::Bytes(value.into()), false);
            }
        }
    }

    pub fn remove(&mut self, key: &[u8]) {
        match self {
            Entries::Sorted(m) => m.remove(key),
            Entries::Arena(a) => {
                a.remove(key);
            }
        }
    }

    /// Remove every key ordered before `bound`; returns how many went.
    pub fn remove_below(&mut self, bound: &[u8]) -> usize {
        match self {
            Entries::Sorted(m) => m.remove_below(bound),
            Entries::Arena(a) => a.remove_below(bound),
        }
    }

    /// Keys ordered before `bound` (see [`super::StateStore::keys_below`]).
    pub fn keys_below(&self, bound: &[u8]) -> Vec<Vec<u8>> {
        self.entries_below(bound).map(|(k, _)| k.to_vec()).collect()
    }

    /// Entries whose key is ordered before `bound`: in key order when
    /// sorted, else in no particular order.
    pub fn entries_below<'a>(&'a self, bound: &'a [u8]) -> EntryIter<'a> {
        match self {
            Entries::Sorted(m) => Box::new(
                m.map
                    .range::<[u8], _>((
                        std::ops::Bound::Unbounded,
                        std::ops::Bound::Excluded(bound),
                    ))
                    .map(|(k, v)| (k.as_ref(), v.as_ref())),
            ),
            Entries::Arena(a) => {
                Box::new(a.entries_below(bound).map(|(k, v)| (k, ValueRef::Bytes(v))))
            }
        }
    }

    /// Every entry: in key order when sorted, else in no particular order.
    pub fn iter(&self) -> EntryIter<'_> {
        match self {
            Entries::Sorted(m) => Box::new(m.map.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))),
            Entries::Arena(a) => Box::new(a.iter().map(|(k, v)| (k, ValueRef::Bytes(v)))),
        }
    }

    /// Entries whose key starts with `prefix`, in key order.
    pub fn with_prefix<'a>(&'a self, prefix: &'a [u8]) -> Vec<(&'a [u8], ValueRef<'a>)> {
        match self {
            Entries::Sorted(m) => m.with_prefix(prefix),
            Entries::Arena(_) => {
                let mut out: Vec<_> = self.iter().filter(|(k, _)| k.starts_with(prefix)).collect();
                out.sort_unstable_by(|a, b| a.0.cmp(b.0));
                out
            }
        }
    }

    /// What changed since the last commit, each key once: present keys
    /// with their final values, then removed keys (the arena's walked as
    /// they are read).
    pub fn changes(&self) -> Changes<'_> {
        match self {
            Entries::Sorted(m) => {
                let (present, removed) = m.changes();
                (Box::new(present.into_iter()), Box::new(removed.into_iter()))
            }
            Entries::Arena(a) => {
                let (present, removed) = a.changes();
                (
                    Box::new(present.map(|(k, v)| (k, ValueRef::Bytes(v)))),
                    Box::new(removed),
                )
            }
        }
    }

    /// The changes are durable: forget them.
    pub fn committed(&mut self) {
        match self {
            Entries::Sorted(m) => m.touched.clear(),
            Entries::Arena(a) => a.committed(),
        }
    }
}
