//! Sliding windows by slices (Flink's and Arroyo's window slicing): the
//! state keeps one partial aggregate per *pane* (the gcd of size and slide)
//! and group, not one per window holding it, so a batch stores each pane
//! once, not size/slide times. A window's value is its panes' states merged
//! when it is emitted: in append mode as the watermark closes it, in update
//! mode at each batch that changes it.
//!
//! The progress still counts windows, as Spark's state holds them:
//! `numRowsUpdated` the windows a batch changed, `numRowsRemoved` those the
//! watermark closed, `numRowsTotal` the open windows holding a pane (kept
//! per partition as batches change it; counted from the state at a
//! restart). A window is new when none of its panes was stored before the
//! batch: the merge tells it for the panes the batch changed, a lookup for
//! the others, and a count of each group's stored panes spares the lookups
//! of a group that had none (a hash per group where lookups of every
//! neighbouring pane made the first version no faster than windows).
//!
//! A stored key is the pane's start (8 ordered bytes: the store's time
//! index, so done panes go by the watermark as one removal) followed by the
//! other grouping keys' row format, and routes to a partition by the
//! latter: all the panes of a group's windows are in one partition.

use super::merge::Stored;
use super::*;
use crate::functions::window::{last_start, pane_width};
use arrow::array::{ArrayBuilder, BinaryBuilder, UInt32Array};
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The name of a sliced state's leading time in its recorded layout (the
/// state reader's column for it).
pub(super) const PANE_START: &str = "pane_start";

/// A sliding window's shape, as its panes see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slicing {
    pub(super) pane: PaneSpec,
    /// Pane width, µs.
    width: i64,
}

impl Slicing {
    pub(super) fn new(pane: PaneSpec) -> Self {
        Slicing {
            pane,
            width: pane_width(pane.size, pane.slide),
        }
    }

    /// Starts of the windows holding the pane starting at `p`, earliest first.
    fn windows(&self, p: i64) -> impl Iterator<Item = i64> {
        let PaneSpec { size, slide, .. } = self.pane;
        let last = last_start(p, slide, self.pane.start);
        // windows starting at `last - j * slide` that still reach the pane's end
        let before = (last + size - p - self.width).div_euclid(slide);
        (0..=before.max(-1)).rev().map(move |j| last - j * slide)
    }

    /// Starts of the panes of the window starting at `w`.
    fn panes(&self, w: i64) -> impl Iterator<Item = i64> {
        let width = self.width;
        (0..self.pane.size / width).map(move |i| w + i * width)
    }

    fn holds(&self, w: i64, p: i64) -> bool {
        w <= p && p < w + self.pane.size
    }

    /// Start of the last window the watermark `wm` closes (ends at or before it).
    fn last_closed(&self, wm: i64) -> i64 {
        last_start(
            wm.saturating_sub(self.pane.size),
            self.pane.slide,
            self.pane.start,
        )
    }

    /// The first pane a window still open at `wm` holds: those before it
    /// are done.
    fn first_open_pane(&self, wm: i64) -> i64 {
        self.last_closed(wm).saturating_add(self.pane.slide)
    }
}

/// The pane a stored key starts with (see `time_prefix`).
fn pane_of(key: &[u8]) -> i64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    (u64::from_be_bytes(b) ^ (1 << 63)) as i64
}

/// The other grouping keys of a stored key.
fn others_of(key: &[u8]) -> &[u8] {
    &key[key.len().min(8)..]
}

/// Byte strings numbered as they first come (a hash table of their ids,
/// the bytes kept once in a [`KeyBuffer`]), with the hash of each.
#[derive(Default)]
struct Numbered {
    table: HashTable<u32>,
    keys: KeyBuffer,
    hashes: Vec<u64>,
}

/// The hash of a group's other keys: [`Numbered`]'s and [`PaneCounts`]'.
fn hash_of(key: &[u8]) -> u64 {
    foldhash::fast::FixedState::default().hash_one(key)
}

impl Numbered {
    /// `key`'s number.
    fn number(&mut self, key: &[u8]) -> usize {
        let h = hash_of(key);
        let keys = &self.keys;
        if let Some(&id) = self.table.find(h, |&id| keys.get(id as usize) == key) {
            return id as usize;
        }
        let id = keys.len() as u32;
        self.keys.push(&[key]);
        self.hashes.push(h);
        let hashes = &self.hashes;
        self.table.insert_unique(h, id, |&i| hashes[i as usize]);
        id as usize
    }

    fn len(&self) -> usize {
        self.keys.len()
    }
}

/// How many panes each group has stored, by the hash of its other keys. A
/// group with none makes only new windows, found with no lookup: most
/// groups of a stream whose keys come and go (Nexmark's auctions). A
/// collision costs lookups, never a wrong count.
#[derive(Default)]
pub(super) struct PaneCounts(hashbrown::HashMap<u64, u32, foldhash::fast::FixedState>);

impl PaneCounts {
    fn has(&self, h: u64) -> bool {
        self.0.contains_key(&h)
    }

    fn add(&mut self, h: u64) {
        *self.0.entry(h).or_insert(0) += 1;
    }

    fn remove(&mut self, h: u64) {
        if let hashbrown::hash_map::Entry::Occupied(mut e) = self.0.entry(h) {
            if *e.get() <= 1 {
                e.remove();
            } else {
                *e.get_mut() -= 1;
            }
        }
    }
}

/// Window rows being made from pane states: each window's key and start,
/// and each (pane state, window) pair.
#[derive(Default)]
struct WindowRows {
    /// A stored key per window: its end as the time prefix, then the
    /// other keys (the output's order and key columns come from it).
    keys: KeyBuffer,
    starts: Vec<i64>,
    /// The pane states read.
    states: BinaryBuilder,
    /// For each pair, the pane state and the window.
    rows: Vec<u32>,
    windows: Vec<usize>,
}

impl WindowRows {
    /// A window starting at `w` of the group `others`: its number.
    fn window(&mut self, w: i64, size: i64, others: &[u8]) -> usize {
        self.keys
            .push(&[&time_prefix(w.saturating_add(size)), others]);
        self.starts.push(w);
        self.starts.len() - 1
    }

    fn state(&mut self, bytes: &[u8]) -> u32 {
        self.states.append_value(bytes);
        (self.states.len() - 1) as u32
    }
}

/// What one batch does to a partition's sliced state.
pub(super) struct SliceBatch<'a> {
    pub(super) merge: &'a Merge<'a>,
    pub(super) slicing: Slicing,
    /// The other keys' encoding.
    pub(super) others: &'a RowConverter,
    /// Windows ending at or before it were closed (emitted or evicted).
    pub(super) closed: Option<i64>,
    /// Rows were dropped for the windows ending at or before it (late).
    pub(super) late: Option<i64>,
    /// The watermark that closes windows now.
    pub(super) evict: Option<i64>,
    /// Update mode: the windows the batch changed are emitted.
    pub(super) emit_updated: bool,
    /// Append mode: the windows the watermark closes are emitted.
    pub(super) emit_closed: bool,
}

/// A partition's share of a batch.
#[derive(Default)]
pub(super) struct SliceDone {
    /// Windows changed, new among them, closed.
    pub(super) updated: u64,
    pub(super) created: u64,
    pub(super) closed: u64,
    /// Rows to emit.
    pub(super) rows: Vec<Updated>,
    pub(super) updating: Duration,
    pub(super) removing: Duration,
}

/// A group's run of the batch's changed panes, and what the first pass
/// found for it: ranges of the batch's windows and lookups.
struct Run {
    touched: std::ops::Range<usize>,
    windows: std::ops::Range<usize>,
    probes: std::ops::Range<usize>,
}

impl SliceBatch<'_> {
    /// Merge the partition's partial rows (each a pane) into its store,
    /// account for the windows they changed, then close what the watermark
    /// passed.
    pub(super) fn run(
        &self,
        store: &mut dyn StateStore,
        counts: &mut PaneCounts,
        items: Work,
    ) -> Result<SliceDone> {
        let mut done = SliceDone::default();
        let mut closed = self.closed;
        // windows the late rows no longer reach close before the rows merge
        // (a batch that skipped the operator left them), as Spark evicts them
        if let Some(late) = self.late.filter(|l| closed.is_none_or(|c| c < *l)) {
            let t = Instant::now();
            self.close(store, counts, closed, late, &mut done)?;
            done.removing += t.elapsed();
            closed = Some(late);
        }
        let t = Instant::now();
        if !items.is_empty() {
            let merged = self.merge.by_groups(store, items)?;
            self.account(store, counts, &merged, closed, &mut done)?;
        }
        done.updating = t.elapsed();
        if let Some(wm) = self.evict.filter(|w| closed.is_none_or(|c| c < *w)) {
            let t = Instant::now();
            self.close(store, counts, closed, wm, &mut done)?;
            done.removing += t.elapsed();
        }
        Ok(done)
    }

    /// Count the windows the merged panes changed, and those among them
    /// that no stored pane held before; in update mode, make their rows.
    fn account(
        &self,
        store: &dyn StateStore,
        counts: &mut PaneCounts,
        merged: &Updated,
        closed: Option<i64>,
        done: &mut SliceDone,
    ) -> Result<()> {
        let slicing = &self.slicing;
        let size = slicing.pane.size;
        // the changed panes by group, in pane order
        let mut groups = Numbered::default();
        let mut touched: Vec<(u32, i64, bool, u32)> = merged
            .keys
            .iter()
            .zip(&merged.existed)
            .enumerate()
            .map(|(i, (k, existed))| {
                let g = groups.number(others_of(k)) as u32;
                (g, pane_of(k), *existed, i as u32)
            })
            .collect();
        touched.sort_unstable();
        // whether a group had panes stored before the batch (else its
        // windows are all new, and it needs no lookup)
        let stored_before: Vec<bool> = groups.hashes.iter().map(|h| counts.has(*h)).collect();
        for &(g, _, existed, _) in &touched {
            if !existed {
                counts.add(groups.hashes[g as usize]);
            }
        }
        let open = |w: i64| closed.is_none_or(|c| w + size > c);
        // panes stored before this batch's done ones went are gone
        let first_live = closed.map(|c| slicing.first_open_pane(c));
        let emit = self.emit_updated;
        // first pass: each group's windows and the panes to look up
        let mut runs: Vec<Run> = Vec::new();
        let (mut windows, mut probes, mut probe_panes) =
            (Vec::new(), KeyBuffer::default(), Vec::new());
        let mut candidates: Vec<i64> = Vec::new();
        let mut at = 0;
        while at < touched.len() {
            let g = touched[at].0;
            let end = at + touched[at..].iter().take_while(|t| t.0 == g).count();
            let run = &touched[at..end];
            let w0 = windows.len();
            for &(_, p, _, _) in run {
                windows.extend(slicing.windows(p).filter(|w| open(*w)));
            }
            windows[w0..].sort_unstable();
            let kept = w0 + dedup_sorted(&mut windows[w0..]);
            windows.truncate(kept);
            candidates.clear();
            // the stored panes the batch did not change to read: in update
            // mode each window's (their states), else those that may tell
            // an old window from a new one; a group with no stored pane
            // before the batch has none
            if stored_before[g as usize] {
                for &w in &windows[w0..] {
                    let known = run
                        .iter()
                        .any(|&(_, p, existed, _)| existed && slicing.holds(w, p));
                    if known && !emit {
                        continue;
                    }
                    for p in slicing.panes(w) {
                        let changed = run.iter().any(|t| t.1 == p);
                        if !changed && first_live.is_none_or(|f| p >= f) {
                            candidates.push(p);
                        }
                    }
                }
            }
            candidates.sort_unstable();
            let n = dedup_sorted(&mut candidates);
            let others = groups.keys.get(g as usize);
            let p0 = probe_panes.len();
            for &p in &candidates[..n] {
                probes.push(&[&time_prefix(p), others]);
                probe_panes.push(p);
            }
            runs.push(Run {
                touched: at..end,
                windows: w0..windows.len(),
                probes: p0..probe_panes.len(),
            });
            at = end;
        }
        // one batched lookup
        let mut rows = WindowRows::default();
        let mut found: Vec<Option<u32>> = vec![None; probe_panes.len()];
        if !probe_panes.is_empty() {
            let keys: Vec<&[u8]> = probes.iter().collect();
            store.get_bytes_each(&keys, &mut |i, v| {
                found[i] = Some(if emit { rows.state(v) } else { 0 });
                Ok(())
            })?;
        }
        // the changed panes' states, as merged (update mode)
        let changed_states: Vec<u32> = match (&merged.merged, emit) {
            (Some(m), true) => touched
                .iter()
                .map(|t| rows.state(m.row(t.3 as usize).data()))
                .collect(),
            (None, true) => {
                return Err(Error::Internal(
                    "sliced window state merged without its rows".into(),
                ))
            }
            (_, false) => Vec::new(),
        };
        // second pass: new windows, and in update mode their rows
        for r in runs {
            let run = &touched[r.touched.clone()];
            let others = groups.keys.get(run[0].0 as usize);
            for &w in &windows[r.windows] {
                let before = run
                    .iter()
                    .any(|&(_, p, existed, _)| existed && slicing.holds(w, p))
                    || r.probes
                        .clone()
                        .any(|i| found[i].is_some() && slicing.holds(w, probe_panes[i]));
                done.updated += 1;
                done.created += u64::from(!before);
                if emit {
                    let window = rows.window(w, size, others);
                    for (t, &(_, p, _, _)) in r.touched.clone().zip(run) {
                        if slicing.holds(w, p) {
                            rows.rows.push(changed_states[t]);
                            rows.windows.push(window);
                        }
                    }
                    for i in r.probes.clone() {
                        if let (Some(state), true) = (found[i], slicing.holds(w, probe_panes[i])) {
                            rows.rows.push(state);
                            rows.windows.push(window);
                        }
                    }
                }
            }
        }
        if emit {
            done.rows.push(self.combine(rows)?);
        }
        Ok(())
    }

    /// Close the windows ending in (`closed`, `wm`]: count them, and in
    /// append mode make their rows from their panes; then drop the panes
    /// no open window holds.
    fn close(
        &self,
        store: &mut dyn StateStore,
        counts: &mut PaneCounts,
        closed: Option<i64>,
        wm: i64,
        done: &mut SliceDone,
    ) -> Result<()> {
        let slicing = &self.slicing;
        let PaneSpec { size, slide, .. } = slicing.pane;
        let last = slicing.last_closed(wm);
        if closed.is_some_and(|c| last + size <= c) {
            return Ok(());
        }
        let closes = |w: &i64| w + size <= wm && closed.is_none_or(|c| w + size > c);
        let first_open = slicing.first_open_pane(wm);
        let mut rows = WindowRows::default();
        // every stored pane before the last closing window's end is in a
        // closing window (those of windows closed before are gone): each
        // as (group, pane, state)
        let mut groups = Numbered::default();
        let mut panes: Vec<(u32, i64, u32)> = Vec::new();
        store.each_below(&time_prefix(last.saturating_add(size)), &mut |k, v| {
            let (p, others) = (pane_of(k), others_of(k));
            let g = groups.number(others);
            if p < first_open {
                counts.remove(groups.hashes[g]);
            }
            let state = if self.emit_closed { rows.state(v) } else { 0 };
            panes.push((g as u32, p, state));
            Ok(())
        })?;
        // each group's closing windows numbered densely from its first to
        // its last (a hash per group, not per window), unused numbers
        // dropped after
        let mut span: Vec<(i64, i64)> = vec![(i64::MAX, i64::MIN); groups.len()];
        for &(g, p, _) in &panes {
            let (lo, hi) = &mut span[g as usize];
            for w in slicing.windows(p).filter(closes) {
                *lo = (*lo).min(w);
                *hi = (*hi).max(w);
            }
        }
        let mut base = Vec::with_capacity(span.len());
        let mut numbers = 0usize;
        for &(lo, hi) in &span {
            base.push(numbers);
            if lo <= hi {
                numbers += ((hi - lo) / slide) as usize + 1;
            }
        }
        // a number holds a window when one of the group's panes is in it;
        // those windows are then numbered in order, the rest dropped
        let mut window_of: Vec<Option<u32>> = vec![None; numbers];
        let mut pairs: Vec<(u32, usize)> = Vec::new();
        for &(g, p, state) in &panes {
            let (g, lo) = (g as usize, span[g as usize].0);
            for w in slicing.windows(p).filter(closes) {
                let number = base[g] + ((w - lo) / slide) as usize;
                window_of[number] = Some(0);
                if self.emit_closed {
                    pairs.push((state, number));
                }
            }
        }
        for (g, &(lo, hi)) in span.iter().enumerate() {
            if lo > hi {
                continue;
            }
            for j in 0..=((hi - lo) / slide) as usize {
                if let Some(window) = &mut window_of[base[g] + j] {
                    *window = rows.window(lo + j as i64 * slide, size, groups.keys.get(g)) as u32;
                }
            }
        }
        done.closed += rows.starts.len() as u64;
        store.remove_below(&time_prefix(first_open))?;
        if self.emit_closed {
            for (state, number) in pairs {
                rows.rows.push(state);
                rows.windows
                    .push(window_of[number].unwrap_or_default() as usize);
            }
            done.rows.push(self.combine(rows)?);
        }
        Ok(())
    }

    /// The window rows: each window's pane states merged and evaluated,
    /// its key columns decoded (the window at the pane's key position).
    fn combine(&self, mut w: WindowRows) -> Result<Updated> {
        let n = w.starts.len();
        if n == 0 {
            return Ok(Updated::default());
        }
        let conv =
            self.merge.codec.conv.as_ref().ok_or_else(|| {
                Error::Internal("sliced window state without a row encoding".into())
            })?;
        let states = decode_rows(conv, &w.states.finish())?;
        let rows = UInt32Array::from(std::mem::take(&mut w.rows));
        let columns = states
            .iter()
            .map(|s| arrow::compute::take(s.as_ref(), &rows, None))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let stored = Stored {
            columns,
            groups: std::mem::take(&mut w.windows),
            existed: Vec::new(),
        };
        let values = self.merge.evaluate(&stored, n)?;
        let mut key_columns = if self.merge.num_keys > 1 {
            parse_keys(self.others, w.keys.iter(), 8)?
        } else {
            Vec::new()
        };
        let window: ArrayRef = Arc::new(window_array(&w.starts, self.slicing.pane.size)?);
        key_columns.insert(self.slicing.pane.key, window);
        Ok(Updated {
            keys: w.keys,
            key_columns: Some(key_columns),
            values,
            groups: n,
            existed: Vec::new(),
            merged: None,
        })
    }
}

/// Sort-free dedup of a sorted slice in place: how many distinct lead it.
fn dedup_sorted(v: &mut [i64]) -> usize {
    if v.is_empty() {
        return 0;
    }
    let mut n = 1;
    for i in 1..v.len() {
        if v[i] != v[n - 1] {
            v[n] = v[i];
            n += 1;
        }
    }
    n
}

/// The open windows (ending after `closed`) a partition's stored panes
/// make, what Spark's state would hold for them, and how many panes each
/// group has: counted once, when a query resumes; batches keep both after.
pub(super) fn count_windows(
    store: &dyn StateStore,
    slicing: Slicing,
    closed: Option<i64>,
) -> Result<(u64, PaneCounts)> {
    let mut groups = Numbered::default();
    let mut counts = PaneCounts::default();
    let mut panes: Vec<(u32, i64)> = Vec::new();
    for k in store.keys() {
        let k = k?;
        let g = groups.number(others_of(&k));
        counts.add(groups.hashes[g]);
        panes.push((g as u32, pane_of(&k)));
    }
    panes.sort_unstable();
    let size = slicing.pane.size;
    let (mut total, mut windows, mut at) = (0u64, Vec::new(), 0);
    while at < panes.len() {
        let g = panes[at].0;
        windows.clear();
        while at < panes.len() && panes[at].0 == g {
            let p = panes[at].1;
            windows.extend(
                slicing
                    .windows(p)
                    .filter(|w| closed.is_none_or(|c| w + size > c)),
            );
            at += 1;
        }
        windows.sort_unstable();
        total += dedup_sorted(&mut windows) as u64;
    }
    Ok((total, counts))
}

impl Router<'_> {
    /// Route each partial row of `b` (partial batch `bi`) as its pane: the
    /// stored key is the pane's start and the other keys, the partition
    /// the other keys'.
    pub(super) fn route_slices(
        &self,
        b: &RecordBatch,
        bi: usize,
        others: &RowConverter,
        pane: PaneSpec,
        work: &mut [Work],
    ) -> Result<()> {
        let starts = window_starts(b.column(pane.key))?;
        let columns: Vec<ArrayRef> = (0..self.num_keys)
            .filter(|i| *i != pane.key)
            .map(|i| Arc::clone(b.column(i)))
            .collect();
        let rows = (!columns.is_empty())
            .then(|| others.convert_columns(&columns))
            .transpose()?;
        for (r, start) in starts.iter().enumerate() {
            // a null time has no window (Spark drops it)
            let Some(start) = start else { continue };
            let row = rows.as_ref().map(|rows| rows.row(r));
            let other: &[u8] = row.as_ref().map_or(&[], |row| row.as_ref());
            work[partition_for(other, self.partitions)].push(bi, r, &[&time_prefix(*start), other]);
        }
        Ok(())
    }
}

/// A sliding window kept by slices: its shape, the other keys' encoding,
/// and what the progress counts.
pub(super) struct Sliced {
    slicing: Slicing,
    /// The grouping keys but the window, as stored after the pane's start.
    others: RowConverter,
    /// Each partition's open windows (None until counted, at the first
    /// batch of a run).
    windows: Option<Vec<u64>>,
    /// Each partition's panes per group.
    counts: Vec<PaneCounts>,
    /// Windows ending at or before it were closed.
    closed: Option<i64>,
}

impl Sliced {
    pub(super) fn new(pane: PaneSpec, schema: &SchemaRef, num_keys: usize) -> Result<Self> {
        let fields: Vec<SortField> = (0..num_keys)
            .filter(|i| *i != pane.key)
            .map(|i| SortField::new(schema.field(i).data_type().clone()))
            .collect();
        Ok(Sliced {
            slicing: Slicing::new(pane),
            others: RowConverter::new(fields)?,
            windows: None,
            counts: Vec::new(),
            closed: None,
        })
    }

    /// The open windows of every partition (`numRowsTotal`), once counted.
    pub(super) fn windows(&self) -> Option<u64> {
        self.windows.as_ref().map(|w| w.iter().sum())
    }
}

impl StatefulAggregate {
    /// A batch of a sliding window kept by slices, from its partial rows
    /// (a row per pane and group); `t` is when the batch's updates began.
    pub(super) fn process_slices(
        &mut self,
        partial: &[RecordBatch],
        lanes: usize,
        t: Instant,
    ) -> Result<Vec<RecordBatch>> {
        let Some(mut sliced) = self.slices.take() else {
            return Err(Error::Internal("no sliced window state".into()));
        };
        let out = self.run_slices(&mut sliced, partial, lanes, t);
        self.slices = Some(sliced);
        out
    }

    fn run_slices(
        &mut self,
        sliced: &mut Sliced,
        partial: &[RecordBatch],
        lanes: usize,
        t: Instant,
    ) -> Result<Vec<RecordBatch>> {
        let (late, evict) = (self.late_wm, self.evict_wm);
        if sliced.windows.is_none() {
            // a run's first batch: what the state holds was closed up to the
            // watermark the rows are late by (the last batch's)
            sliced.closed = late;
            let (windows, counts) = (0..self.state.len())
                .map(|p| count_windows(self.state.store(p), sliced.slicing, late))
                .collect::<Result<(Vec<_>, Vec<_>)>>()?;
            sliced.windows = Some(windows);
            sliced.counts = counts;
        }
        let router = Router {
            converter: &self.converter,
            pane: self.pane,
            num_keys: self.num_keys,
            time_key: None,
            partitions: self.state.len(),
            late_us: late,
            slices: Some(&sliced.others),
        };
        let work = router.route_all(partial, lanes)?;
        let merge = Merge {
            partial,
            aggr: &self.aggr,
            widths: &self.widths,
            num_keys: self.num_keys,
            evaluate: false,
            keep_existed: true,
            codec: &self.codec,
            converter: &self.converter,
            key_skip: 8,
        };
        let batch = SliceBatch {
            merge: &merge,
            slicing: sliced.slicing,
            others: &sliced.others,
            closed: sliced.closed,
            late,
            evict,
            emit_updated: self.mode == OutputMode::Update,
            emit_closed: self.mode == OutputMode::Append,
        };
        let total: usize = work.iter().map(Work::len).sum();
        let pairs: Vec<_> = self
            .state
            .stores_mut()
            .iter_mut()
            .zip(sliced.counts.iter_mut())
            .zip(work)
            .collect();
        let job =
            |((store, counts), items): ((&mut Box<dyn StateStore>, &mut PaneCounts), Work)| {
                batch.run(store.as_mut(), counts, items)
            };
        let results: Vec<SliceDone> = if pairs.len() > 1 && (total >= 256 || evict.is_some()) {
            parallel_map(pairs, job)?
        } else {
            pairs.into_iter().map(job).collect::<Result<_>>()?
        };
        let windows = sliced.windows.get_or_insert_with(Vec::new);
        windows.resize(results.len(), 0);
        let (mut removing, mut longest) = (Duration::ZERO, Duration::ZERO);
        let mut rows = Vec::new();
        for (count, done) in windows.iter_mut().zip(results) {
            self.metrics.rows_updated += done.updated;
            self.metrics.rows_removed += done.closed;
            *count = (*count + done.created).saturating_sub(done.closed);
            removing += done.removing;
            longest = longest.max(done.removing);
            rows.extend(done.rows);
        }
        sliced.closed = [sliced.closed, late, evict].into_iter().flatten().max();
        self.metrics.all_updates_ms = t.elapsed().saturating_sub(longest).as_millis() as i64;
        self.metrics.all_removals_ms = removing.as_millis() as i64;
        self.rows(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slicing(size: i64, slide: i64, start: i64) -> Slicing {
        Slicing::new(PaneSpec {
            key: 0,
            size,
            slide,
            start,
        })
    }

    #[test]
    fn a_panes_windows_are_those_holding_it() {
        for (size, slide, start) in [(10, 4, 0), (9, 3, 1), (10, 5, 0), (10, 10, 0), (7, 2, -3)] {
            let s = slicing(size, slide, start);
            for p in (-40..40).filter(|p| (p - start).rem_euclid(s.width) == 0) {
                let got: Vec<i64> = s.windows(p).collect();
                assert_eq!(got, windows_of_pane(p, size, slide, start), "pane {p}");
                // and each of its windows holds it among its panes
                for w in got {
                    assert!(s.panes(w).any(|q| q == p));
                }
            }
        }
    }

    #[test]
    fn the_watermark_frees_exactly_the_panes_whose_windows_all_closed() {
        for (size, slide, start) in [(10, 4, 0), (9, 3, 1), (10, 5, 0), (7, 2, -3)] {
            let s = slicing(size, slide, start);
            for wm in -20..40 {
                // the last window closed ends at or before wm, the next after it
                let last = s.last_closed(wm);
                assert!(last + size <= wm && last + slide + size > wm, "wm {wm}");
                for p in (-60..60).filter(|p| (p - start).rem_euclid(s.width) == 0) {
                    let done = s.windows(p).all(|w| w + size <= wm);
                    assert_eq!(p < s.first_open_pane(wm), done, "pane {p} at {wm}");
                }
            }
        }
        // 10 s every 4 s at 20: [8, 18) closed last; the pane at 10 (in
        // [4, 14) and [8, 18)) goes, the one at 12 (also in [12, 22)) stays
        let s = slicing(10, 4, 0);
        assert_eq!((s.last_closed(20), s.first_open_pane(20)), (8, 12));
    }

    #[test]
    fn a_stored_key_reads_back_its_pane_and_other_keys() {
        let mut key = time_prefix(-12_000_000).to_vec();
        key.extend_from_slice(b"abc");
        assert_eq!(pane_of(&key), -12_000_000);
        assert_eq!(others_of(&key), b"abc");
    }
}
