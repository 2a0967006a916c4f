//! Where a restarted query resumes: a pure decision over the batch ids found
//! in `offsets/` and `commits/` (no I/O here, so every case is unit-tested).

use crate::error::{Error, Result};

/// What the micro-batch loop does first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// Nothing in the checkpoint: start at batch 0.
    Fresh,
    /// Batch `last` committed: continue with `last + 1` from its offsets.
    After {
        /// The last committed batch.
        last: i64,
    },
    /// Batch `batch` was planned (offsets written) but not committed: run it
    /// again with exactly the same offsets, then continue.
    Replay {
        /// The batch to replay.
        batch: i64,
    },
}

/// Decide from the newest offsets and commit batch ids.
pub fn decide(
    latest_offsets: Option<i64>,
    latest_commit: Option<i64>,
    root: &str,
) -> Result<Resume> {
    match (latest_offsets, latest_commit) {
        (None, None) => Ok(Resume::Fresh),
        (Some(o), Some(c)) if o == c => Ok(Resume::After { last: o }),
        (Some(o), Some(c)) if o == c + 1 => Ok(Resume::Replay { batch: o }),
        (Some(0), None) => Ok(Resume::Replay { batch: 0 }),
        (o, c) => Err(Error::Checkpoint {
            condition: "CHECKPOINT_INCONSISTENT".into(),
            message: format!(
                "The checkpoint at {root} is inconsistent: the newest offsets are for batch {} but the newest commit is for batch {}. \
                 Offsets and commits must differ by at most one batch; was a file deleted or copied from another query?",
                o.map_or("(none)".to_string(), |v| v.to_string()),
                c.map_or("(none)".to_string(), |v| v.to_string()),
            ),
        }),
    }
}
