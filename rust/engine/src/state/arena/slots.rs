//! The arena's slots (where each entry's bytes are) in fixed-size segments:
//! millions of them grow without copying the earlier ones (a copy briefly
//! needs both, and the freed block is kept by the allocator a while), and
//! without the unused half a doubling vector may leave.

use std::ops::{Index, IndexMut};

/// Slots per segment (1.5 MB of them); the first segment grows up to it.
const SEGMENT: usize = 1 << 16;

/// A vector of `T` in segments of [`SEGMENT`].
pub(super) struct Segmented<T> {
    segments: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Segmented<T> {
    fn default() -> Self {
        Segmented {
            segments: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Segmented<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    /// Elements allocated for.
    pub fn capacity(&self) -> usize {
        self.segments.iter().map(Vec::capacity).sum()
    }

    pub fn push(&mut self, value: T) {
        match self.segments.last_mut() {
            Some(last) if last.len() < SEGMENT => {
                if last.len() == last.capacity() {
                    // the first segment doubles, up to a whole one
                    let more = last.len().max(64).min(SEGMENT - last.len());
                    last.reserve_exact(more);
                }
                last.push(value);
            }
            _ => {
                let mut segment = Vec::with_capacity(if self.segments.is_empty() {
                    64
                } else {
                    SEGMENT
                });
                segment.push(value);
                self.segments.push(segment);
            }
        }
        self.len += 1;
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.segments.iter_mut().flatten()
    }
}

impl<T> Index<usize> for Segmented<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.segments[i / SEGMENT][i % SEGMENT]
    }
}

impl<T> IndexMut<usize> for Segmented<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.segments[i / SEGMENT][i % SEGMENT]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_segments_and_indexes_across_them() {
        let mut v = Segmented::default();
        let n = SEGMENT * 2 + 5;
        for i in 0..n {
            v.push(i as u32);
        }
        assert_eq!(v.len(), n);
        assert_eq!(v.capacity(), SEGMENT * 3);
        assert_eq!(v[SEGMENT - 1], (SEGMENT - 1) as u32);
        assert_eq!(v[SEGMENT * 2 + 4], (SEGMENT * 2 + 4) as u32);
        v[SEGMENT] = 7;
        assert_eq!(v[SEGMENT], 7);
        assert_eq!(v.iter_mut().count(), n);
    }

    #[test]
    fn a_small_vector_stays_small() {
        let mut v = Segmented::default();
        for i in 0..100u64 {
            v.push(i);
        }
        assert!(v.capacity() <= 128, "{}", v.capacity());
    }
}
