//! The in-memory map behind a memory store, shaped by the order its
//! operator needs ([`KeyOrder`]): a sorted map for range scans, else a hash
//! map (a probe instead of a tree walk of key comparisons), with an index
//! of keys by their leading event time when they have one.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use super::KeyOrder;

type Hasher = foldhash::fast::FixedState;

/// A store's key → value map.
pub(super) enum Entries<V> {
    Sorted(BTreeMap<Box<[u8]>, V>),
    Hashed {
        map: HashMap<Box<[u8]>, V, Hasher>,
        /// Keys by time bucket (their first 8 bytes, an event time, over
        /// `BUCKET_BITS`), for `remove_below`; may name keys since removed
        /// (they are skipped then).
        by_time: Option<BTreeMap<u64, Vec<Box<[u8]>>>>,
    },
}

/// A time bucket spans 2^20 µs (about a second): one index entry per
/// bucket, not per key, and eviction takes whole buckets but the last.
const BUCKET_BITS: u32 = 20;

/// The leading 8 bytes of a time-prefixed key as a number (same order).
fn time_of(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

impl<V> Entries<V> {
    pub fn new(order: KeyOrder) -> Self {
        match order {
            KeyOrder::Sorted => Entries::Sorted(BTreeMap::new()),
            KeyOrder::TimePrefixed | KeyOrder::Unordered => Entries::Hashed {
                map: HashMap::default(),
                by_time: (order == KeyOrder::TimePrefixed).then(BTreeMap::new),
            },
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Entries::Sorted(m) => m.len(),
            Entries::Hashed { map, .. } => map.len(),
        }
    }

    pub fn get(&self, key: &[u8]) -> Option<&V> {
        match self {
            Entries::Sorted(m) => m.get(key),
            Entries::Hashed { map, .. } => map.get(key),
        }
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.get(key).is_some()
    }

    /// Set `key`; returns the value it replaced.
    pub fn insert(&mut self, key: Box<[u8]>, value: V) -> Option<V> {
        match self {
            Entries::Sorted(m) => m.insert(key, value),
            Entries::Hashed { map, by_time } => match map.entry(key) {
                Entry::Occupied(mut e) => Some(e.insert(value)),
                Entry::Vacant(e) => {
                    if let Some(idx) = by_time {
                        let bucket = time_of(e.key()) >> BUCKET_BITS;
                        idx.entry(bucket).or_default().push(e.key().clone());
                    }
                    e.insert(value);
                    None
                }
            },
        }
    }

    pub fn remove(&mut self, key: &[u8]) -> Option<V> {
        match self {
            Entries::Sorted(m) => m.remove(key),
            Entries::Hashed { map, .. } => map.remove(key),
        }
    }

    /// Remove every key ordered before `bound`, returning them.
    pub fn remove_below(&mut self, bound: &[u8]) -> Vec<(Box<[u8]>, V)> {
        match self {
            Entries::Sorted(m) => {
                // one split instead of a lookup per key
                let keep = m.split_off(bound);
                std::mem::replace(m, keep).into_iter().collect()
            }
            Entries::Hashed {
                map,
                by_time: Some(idx),
            } if bound.len() == 8 => {
                // keys before an 8-byte bound are those with an earlier time:
                // all of the earlier buckets, and some of the bound's own
                let bound = time_of(bound);
                let mut keep = idx.split_off(&(bound >> BUCKET_BITS));
                let mut gone: Vec<Box<[u8]>> =
                    std::mem::take(idx).into_values().flatten().collect();
                if let Some(edge) = keep.get_mut(&(bound >> BUCKET_BITS)) {
                    let (before, after): (Vec<_>, Vec<_>) = std::mem::take(edge)
                        .into_iter()
                        .partition(|k| time_of(k) < bound);
                    *edge = after;
                    gone.extend(before);
                }
                *idx = keep;
                gone.into_iter()
                    .filter_map(|k| map.remove_entry(&k))
                    .collect()
            }
            Entries::Hashed { map, .. } => {
                let keys: Vec<Box<[u8]>> =
                    map.keys().filter(|k| k.as_ref() < bound).cloned().collect();
                keys.iter().filter_map(|k| map.remove_entry(k)).collect()
            }
        }
    }

    /// Every entry: in key order when sorted, else in no particular order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&[u8], &V)> + '_> {
        match self {
            Entries::Sorted(m) => Box::new(m.iter().map(|(k, v)| (k.as_ref(), v))),
            Entries::Hashed { map, .. } => Box::new(map.iter().map(|(k, v)| (k.as_ref(), v))),
        }
    }

    /// Entries whose key starts with `prefix`, in key order.
    pub fn with_prefix<'a>(&'a self, prefix: &'a [u8]) -> Vec<(&'a [u8], &'a V)> {
        match self {
            Entries::Sorted(m) => m
                .range::<[u8], _>((
                    std::ops::Bound::Included(prefix),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(k, _)| k.starts_with(prefix))
                .map(|(k, v)| (k.as_ref(), v))
                .collect(),
            Entries::Hashed { map, .. } => {
                let mut out: Vec<_> = map
                    .iter()
                    .filter(|(k, _)| k.starts_with(prefix))
                    .map(|(k, v)| (k.as_ref(), v))
                    .collect();
                out.sort_unstable_by(|a, b| a.0.cmp(b.0));
                out
            }
        }
    }
}
