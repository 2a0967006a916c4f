//! Where a restarted query resumes (Spark's `populateStartOffsets`): the
//! checkpoint read, the decision of [`super::recovery`] applied, and the
//! checkpoint checked to belong to a query of this shape.

use super::recovery::{self, Resume};
use super::{Checkpoint, OffsetSeq};
use crate::error::{Error, Result};
use crate::sources::Offset;

fn incompatible(message: String) -> Error {
    Error::Checkpoint {
        condition: "CHECKPOINT_INCOMPATIBLE".into(),
        message,
    }
}

/// Where the loop starts: first batch id, committed offsets, a batch to replay.
/// Where a run starts: the batch id, the sources' committed offsets, the
/// batch to replay (if any), and the watermark of the batch before the first
/// one run (late rows are filtered against it, as Spark's
/// `prevOffsetSeqMetadata`: the offsets log's metadata of that batch).
pub struct Start {
    /// The first batch to run.
    pub batch_id: i64,
    /// The sources' committed offsets.
    pub committed: Vec<Option<Offset>>,
    /// The batch to run again, with its logged offsets.
    pub replay: Option<OffsetSeq>,
    /// The watermark late rows are filtered against.
    pub late_watermark_ms: i64,
}

/// Read the checkpoint and decide where to resume (Spark's
/// `populateStartOffsets`), checking it belongs to a query of this shape.
pub fn resume_point(cp: &Checkpoint, num_sources: usize) -> Result<Start> {
    let (offsets, before, commits) = cp.latest()?;
    let root = cp.root().display().to_string();
    let check = |seq: OffsetSeq, batch: i64| -> Result<OffsetSeq> {
        if seq.offsets.len() != num_sources {
            return Err(incompatible(format!(
                "There are [{}] sources in the checkpoint offsets (batch {batch} in {root}) and now there are [{num_sources}] sources requested by the query. Cannot continue: use a new checkpointLocation for a query with other sources.",
                seq.offsets.len()
            )));
        }
        Ok(seq)
    };
    Ok(match recovery::decide(offsets, before, commits, &root)? {
        Resume::Fresh => Start {
            batch_id: 0,
            committed: vec![None; num_sources],
            replay: None,
            late_watermark_ms: 0,
        },
        Resume::After { last } => {
            let seq = check(cp.read_offsets(last)?, last)?;
            Start {
                batch_id: last + 1,
                late_watermark_ms: seq.metadata.batch_watermark_ms,
                committed: seq.offsets,
                replay: None,
            }
        }
        Resume::Replay { batch, previous } => {
            let (committed, late_watermark_ms) = match previous {
                Some(p) => {
                    let seq = check(cp.read_offsets(p)?, p)?;
                    (seq.offsets, seq.metadata.batch_watermark_ms)
                }
                None => (vec![None; num_sources], 0),
            };
            Start {
                batch_id: batch,
                committed,
                replay: Some(check(cp.read_offsets(batch)?, batch)?),
                late_watermark_ms,
            }
        }
    })
}
