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
        /// The last committed batch, whose offsets the replay starts from
        /// (`None`: from the beginning). Usually `batch - 1`; earlier when
        /// asynchronous progress tracking left the batches between unlogged.
        previous: Option<i64>,
    },
}

/// Decide from the newest offsets and commit batch ids, and the offsets
/// entry before the newest (`previous_offsets`). Batch ids need not be
/// contiguous: asynchronous progress tracking logs only some batches.
pub fn decide(
    latest_offsets: Option<i64>,
    previous_offsets: Option<i64>,
    latest_commit: Option<i64>,
    root: &str,
) -> Result<Resume> {
    match (latest_offsets, latest_commit) {
        (None, None) => Ok(Resume::Fresh),
        (Some(o), Some(c)) if o == c => Ok(Resume::After { last: o }),
        (Some(o), Some(c)) if o == c + 1 || (o > c && previous_offsets == Some(c)) => {
            Ok(Resume::Replay {
                batch: o,
                previous: Some(c),
            })
        }
        (Some(o), None) if previous_offsets.is_none() => Ok(Resume::Replay {
            batch: o,
            previous: None,
        }),
        (o, c) => Err(Error::Checkpoint {
            condition: "CHECKPOINT_INCONSISTENT".into(),
            message: format!(
                "The checkpoint at {root} is inconsistent: the newest offsets are for batch {} but the newest commit is for batch {}. \
                 Every offsets entry but the newest must have its commit; was a file deleted or copied from another query?",
                o.map_or("(none)".to_string(), |v| v.to_string()),
                c.map_or("(none)".to_string(), |v| v.to_string()),
            ),
        }),
    }
}
