//! The arena's bytes: append-only chunks that know how many of their bytes
//! entries still use, so that a chunk whose entries all went (a time range
//! evicted, values replaced) is handed back at once, without a compaction
//! copying the rest.

/// The largest chunk; chunks grow to it from `FIRST_CHUNK` so that small
/// stores stay small.
pub(super) const MAX_CHUNK: usize = 4 << 20;
const FIRST_CHUNK: usize = 4 << 10;
/// Emptied full-size chunks kept for the next appends (a store in a steady
/// state writes into memory it already has: fresh pages, zeroed by the
/// kernel, showed in every join profile before); the rest go back.
const POOL: usize = 2;

/// A place in [`Chunks`]: chunk index and offset in it.
#[derive(Clone, Copy, Default)]
pub(super) struct Loc {
    pub chunk: u32,
    pub offset: u32,
}

/// Append-only bytes in chunks, each with the count of its bytes in use.
#[derive(Default)]
pub(super) struct Chunks {
    /// A released chunk's place holds an empty vector until reused.
    chunks: Vec<Vec<u8>>,
    /// Bytes of each chunk that entries still use.
    held: Vec<usize>,
    /// Places of released chunks.
    spare: Vec<u32>,
    /// The chunk appends go to.
    current: Option<u32>,
    pool: Vec<Vec<u8>>,
    /// Bytes written into chunks not released.
    pub written: usize,
}

impl Chunks {
    /// Make room for `len` bytes in the current chunk.
    fn reserve(&mut self, len: usize) -> usize {
        if let Some(c) = self.current {
            let chunk = &self.chunks[c as usize];
            if chunk.capacity() - chunk.len() >= len {
                return c as usize;
            }
        }
        let next = self.current.map_or(FIRST_CHUNK, |c| {
            (self.chunks[c as usize].capacity() * 2).min(MAX_CHUNK)
        });
        let chunk = match self.pool.pop() {
            Some(c) if c.capacity() >= len => c,
            _ => Vec::with_capacity(next.max(len)),
        };
        let at = self.place(chunk);
        // the chunk appends went to until now may have no entries left
        if let Some(old) = self.current.replace(at) {
            self.release_if_unused(old as usize);
        }
        at as usize
    }

    /// Put `chunk` in a released chunk's place, or a new one.
    fn place(&mut self, chunk: Vec<u8>) -> u32 {
        match self.spare.pop() {
            Some(at) => {
                self.chunks[at as usize] = chunk;
                at
            }
            None => {
                self.chunks.push(chunk);
                self.held.push(0);
                (self.chunks.len() - 1) as u32
            }
        }
    }

    /// Append `parts` as one entry's bytes.
    pub fn push(&mut self, parts: [&[u8]; 2]) -> Loc {
        let len = parts[0].len() + parts[1].len();
        let chunk = self.reserve(len);
        let c = &mut self.chunks[chunk];
        let offset = c.len();
        c.extend_from_slice(parts[0]);
        c.extend_from_slice(parts[1]);
        self.held[chunk] += len;
        self.written += len;
        Loc {
            chunk: chunk as u32,
            offset: offset as u32,
        }
    }

    /// Keep `entry` as a chunk of its own, without copying it (a value
    /// built elsewhere, megabytes long); appends do not go to it.
    pub fn adopt(&mut self, entry: Vec<u8>) -> Loc {
        let len = entry.len();
        let at = self.place(entry);
        self.held[at as usize] = len;
        self.written += len;
        Loc {
            chunk: at,
            offset: 0,
        }
    }

    pub fn get(&self, at: Loc, len: usize) -> &[u8] {
        let start = at.offset as usize;
        &self.chunks[at.chunk as usize][start..start + len]
    }

    /// `len` bytes at `at` are no longer used by any entry: a chunk left
    /// with none goes (unless appends still go to it).
    pub fn release(&mut self, at: Loc, len: usize) {
        let c = at.chunk as usize;
        self.held[c] -= len;
        self.release_if_unused(c);
    }

    fn release_if_unused(&mut self, c: usize) {
        if self.held[c] > 0 || self.current == Some(c as u32) {
            return;
        }
        let mut chunk = std::mem::take(&mut self.chunks[c]);
        self.written -= chunk.len();
        self.spare.push(c as u32);
        if self.pool.len() < POOL && chunk.capacity() == MAX_CHUNK {
            chunk.clear();
            self.pool.push(chunk);
        }
    }

    /// Bytes allocated, spare chunks included.
    pub fn allocated(&self) -> usize {
        self.chunks
            .iter()
            .chain(&self.pool)
            .map(Vec::capacity)
            .sum()
    }

    /// Start over (to compact), handing back the old chunks.
    pub fn take(&mut self) -> Vec<Vec<u8>> {
        self.written = 0;
        self.held.clear();
        self.spare.clear();
        self.current = None;
        std::mem::take(&mut self.chunks)
    }

    /// Keep full-size chunks of `old` to reuse (as many as are in use).
    pub fn recycle(&mut self, old: Vec<Vec<u8>>) {
        let keep = self.chunks.len().max(POOL);
        for mut c in old {
            if self.pool.len() < keep && c.capacity() == MAX_CHUNK {
                c.clear();
                self.pool.push(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_whose_bytes_all_went_is_released() {
        let mut c = Chunks::default();
        let entry = vec![1u8; 1 << 20];
        let locs: Vec<Loc> = (0..12).map(|_| c.push([&entry, &[]])).collect();
        let before = c.allocated();
        // the first chunks' entries go: those chunks are released (two kept
        // pooled), the one appended to stays
        for at in &locs[..8] {
            c.release(*at, entry.len());
        }
        assert!(c.allocated() < before, "{} then {before}", c.allocated());
        // chunks of 1, 2, 4, 4 and 4 MiB: the first three went, the fourth
        // still holds three entries, the last one
        assert_eq!(c.written, 5 << 20);
        for at in &locs[8..] {
            assert_eq!(c.get(*at, entry.len()), &entry[..]);
        }
        // new appends reuse released places
        let at = c.push([b"k", b"v"]);
        assert_eq!(c.get(at, 2), b"kv");
        assert!(c.chunks.len() <= 6, "{}", c.chunks.len());
    }
}
