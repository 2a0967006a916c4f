//! Byte keys back to back in one buffer: a batch routes and evicts hundreds
//! of thousands of group keys, and a `Vec<u8>` each (allocated, then freed
//! on one thread at the batch's end) was a tenth of a sliding-window
//! query's time.

/// KeyBuffer in one buffer, each found by its end offset.
#[derive(Default, Clone, Debug)]
pub struct KeyBuffer {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyBuffer {
    /// Add the key made of `parts` one after the other.
    pub fn push(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.bytes.extend_from_slice(p);
        }
        self.ends.push(self.bytes.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Key `i`.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Move `other`'s keys to the end.
    pub fn append(&mut self, other: KeyBuffer) {
        if self.is_empty() {
            *self = other;
            return;
        }
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }
}

impl<K: AsRef<[u8]>> FromIterator<K> for KeyBuffer {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut keys = KeyBuffer::default();
        for k in iter {
            keys.push(&[k.as_ref()]);
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_bytes_and_order_through_append() {
        let mut a: KeyBuffer = [&b"k1"[..], b"", b"key3"].into_iter().collect();
        let mut b = KeyBuffer::default();
        b.push(&[b"x", b"yz"]);
        a.append(b);
        assert_eq!(a.len(), 4);
        let all: Vec<&[u8]> = a.iter().collect();
        assert_eq!(all, vec![&b"k1"[..], b"", b"key3", b"xyz"]);
        let mut empty = KeyBuffer::default();
        empty.append(a.clone());
        assert_eq!(empty.get(3), b"xyz");
    }
}
