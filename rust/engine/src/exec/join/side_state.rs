//! One side's stored rows (Spark's `SymmetricHashJoinStateManager`): each
//! partition's rows by generation ([`Generations`]), in that partition's
//! state store.

use super::*;

/// One side's stored rows.
pub(super) struct SideState {
    pub(super) state: PartitionedState,
    /// Encodes the side's columns (shared with the partitions' jobs).
    pub(super) conv: Arc<RowConverter>,
    pub(super) expiry: Option<Expiry>,
    /// The side's watermarked event-time column: rows behind the watermark are late.
    pub(super) late_column: Option<usize>,
    /// Each partition's rows; a partition's task locks its own.
    pub(super) gens: Arc<Vec<Mutex<Generations>>>,
    /// Rows stored (`numRowsTotal`).
    pub(super) rows: u64,
}

impl SideState {
    /// A side over its opened `state`, its generations restored; `flags`:
    /// whether its rows' matched flags are ever read.
    pub(super) fn open(
        state: PartitionedState,
        schema: &Schema,
        expiry: Option<Expiry>,
        late_column: Option<usize>,
        flags: bool,
    ) -> Result<Self> {
        let conv = Arc::new(RowConverter::new(
            schema
                .fields()
                .iter()
                .map(|f| SortField::new(f.data_type().clone()))
                .collect(),
        )?);
        let gens = (0..state.len())
            .map(|p| Generations::restore(state.store(p), flags).map(Mutex::new))
            .collect::<Result<Vec<_>>>()?;
        let rows = gens.iter().map(|g| g.lock().live_rows()).sum();
        Ok(SideState {
            state,
            conv,
            expiry,
            late_column,
            gens: Arc::new(gens),
            rows,
        })
    }

    /// Bytes its generations' indexes (and copies) take beside the stores.
    pub(super) fn index_bytes(&self) -> u64 {
        self.gens.iter().map(|g| g.lock().memory_bytes()).sum()
    }
}
