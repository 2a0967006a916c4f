//! Which keys a RocksDB store may hold: a blocked bloom filter over every
//! key written to it, so that looking up a key never written (most of a
//! deduplication's lookups, and a growing aggregation's) costs one cache
//! line in memory instead of a RocksDB read through each level's files.
//! A key removed stays in the filter: a stale "maybe" costs one read, never
//! a wrong answer. About 1.25 bytes per key (10 bits); it grows by adding a
//! layer four times the size of the last when full.

/// Bits per key, and bits set per key within its 512-bit block (about 1%
/// false positives).
const BITS_PER_KEY: usize = 10;
const PROBES: u32 = 6;

struct Layer {
    /// 512-bit blocks (a cache line each).
    blocks: Vec<[u64; 8]>,
    capacity: usize,
    count: usize,
}

impl Layer {
    fn new(capacity: usize) -> Self {
        let blocks = (capacity * BITS_PER_KEY).div_ceil(512).max(1);
        Layer {
            blocks: vec![[0; 8]; blocks],
            capacity,
            count: 0,
        }
    }

    /// The block and the bits within it of a key's hash.
    fn probes(&self, hash: u64) -> (usize, impl Iterator<Item = u32>) {
        let block = ((hash >> 32) as usize * self.blocks.len()) >> 32;
        let mut h = hash as u32;
        let step = (hash >> 40) as u32 | 1;
        (
            block,
            (0..PROBES).map(move |_| {
                h = h.wrapping_add(step);
                h % 512
            }),
        )
    }

    fn insert(&mut self, hash: u64) {
        let (b, bits) = self.probes(hash);
        let block = &mut self.blocks[b];
        for bit in bits {
            block[(bit / 64) as usize] |= 1 << (bit % 64);
        }
        self.count += 1;
    }

    fn may_contain(&self, hash: u64) -> bool {
        let (b, mut bits) = self.probes(hash);
        let block = &self.blocks[b];
        bits.all(|bit| block[(bit / 64) as usize] & (1 << (bit % 64)) != 0)
    }
}

/// A growable filter of keys.
pub struct KeyFilter {
    layers: Vec<Layer>,
}

fn hash(key: &[u8]) -> u64 {
    twox_hash::XxHash64::oneshot(0x5eed, key)
}

impl KeyFilter {
    /// An empty filter sized for about `expected` keys.
    pub fn with_capacity(expected: usize) -> Self {
        KeyFilter {
            layers: vec![Layer::new(expected.max(1 << 16))],
        }
    }

    /// Note that `key` may be stored.
    pub fn insert(&mut self, key: &[u8]) {
        let last = self.layers.last().map_or(0, |l| l.capacity);
        if self.layers.last().is_none_or(|l| l.count >= l.capacity) {
            self.layers.push(Layer::new(last * 4));
        }
        if let Some(layer) = self.layers.last_mut() {
            layer.insert(hash(key));
        }
    }

    /// False only if `key` was never inserted.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        let h = hash(key);
        self.layers.iter().any(|l| l.may_contain(h))
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> u64 {
        self.layers.iter().map(|l| l.blocks.len() as u64 * 64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::KeyFilter;

    #[test]
    fn no_false_negatives_and_few_false_positives_as_it_grows() {
        let mut f = KeyFilter::with_capacity(1000);
        let keys: Vec<Vec<u8>> = (0..300_000u64).map(|i| i.to_be_bytes().to_vec()).collect();
        for k in &keys {
            f.insert(k);
        }
        assert!(keys.iter().all(|k| f.may_contain(k)));
        let false_positives = (300_000..400_000u64)
            .filter(|i| f.may_contain(&i.to_be_bytes()))
            .count();
        // several layers: each adds its ~1%
        assert!(
            false_positives < 5_000,
            "{false_positives} false positives in 100000"
        );
    }
}
