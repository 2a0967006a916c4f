//! Every path of a query's checkpoint, built in one place, with whether
//! writes there must reach the disk:
//!
//! ```text
//! <root>/metadata                      the query id
//! <root>/offsets/<batch>               the write-ahead log
//! <root>/commits/<batch>               batches done
//! <root>/sources/<n>/                  source n's own log
//! <root>/state/<operator>/<partition>/ an operator's state stores
//! ```

use std::path::{Path, PathBuf};

/// A checkpoint's layout, and whether its files are fsynced: only when
/// `spark.sparklet.checkpoint.fsync` asks (Spark never fsyncs; a killed
/// process loses nothing the page cache holds, only the machine going
/// down can), and never in a temporary checkpoint (a query started
/// without `checkpointLocation`, which nothing resumes from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointPaths {
    root: PathBuf,
    fsync: bool,
}

impl CheckpointPaths {
    /// The checkpoint at `root` (a reader's durability does not matter:
    /// it writes nothing).
    pub fn new(root: &Path, fsync: bool) -> Self {
        CheckpointPaths {
            root: root.to_path_buf(),
            fsync,
        }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether writes are fsynced.
    pub fn fsync(&self) -> bool {
        self.fsync
    }

    /// `metadata`: the query id.
    pub fn metadata(&self) -> PathBuf {
        self.root.join("metadata")
    }

    /// `offsets/`.
    pub fn offsets(&self) -> PathBuf {
        self.root.join("offsets")
    }

    /// `commits/`.
    pub fn commits(&self) -> PathBuf {
        self.root.join("commits")
    }

    /// `sources/`.
    pub fn sources(&self) -> PathBuf {
        self.root.join("sources")
    }

    /// `sources/<n>`: where source `n` keeps its own log.
    pub fn source(&self, n: usize) -> PathBuf {
        self.sources().join(n.to_string())
    }

    /// `state/`.
    pub fn state(&self) -> PathBuf {
        self.root.join("state")
    }

    /// `state/<id>`: stateful operator `id`'s folder.
    pub fn operator(&self, id: usize) -> PathBuf {
        self.state().join(id.to_string())
    }
}
