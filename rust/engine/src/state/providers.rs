//! The state store provider and encoding a query runs with, from the
//! session's settings and what the checkpoint recorded.

use super::memory::MemoryProvider;
use super::rocks::{RocksDbProvider, RocksDbSettings};
use super::StateEncoding;
use crate::checkpoint::Checkpoint;
use crate::conf::{keys, Conf};
use crate::error::{Error, Result};

/// The provider `spark.sql.streaming.stateStore.providerClass` names.
pub(crate) fn state_store_provider(
    conf: &Conf,
) -> Result<std::sync::Arc<dyn crate::state::StateStoreProvider>> {
    let name = conf.get(keys::STATE_STORE_PROVIDER).unwrap_or_default();
    let short = name
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match short.as_str() {
        "" | "memory" | "hdfs" | "hdfsbackedstatestoreprovider" => Ok(std::sync::Arc::new(MemoryProvider)),
        "rocksdb" | "rocksdbstatestoreprovider" => Ok(std::sync::Arc::new(RocksDbProvider::new(
            RocksDbSettings::from_conf(conf)?,
        ))),
        _ => Err(Error::illegal_argument(format!(
            "Unknown state store provider '{name}' for spark.sql.streaming.stateStore.providerClass: \
             sparklet has 'memory' (Spark's HDFSBackedStateStoreProvider, the default) and 'rocksdb' \
             (org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider)"
        ))),
    }
}

/// The state encoding of the query's checkpoint: the one its offsets
/// record (Spark's default for a checkpoint that records none), else, for
/// a new checkpoint, the session's.
pub(crate) fn state_encoding(cp: &Checkpoint, fresh: bool, conf: &Conf) -> Result<StateEncoding> {
    let value = if fresh {
        conf.get(keys::STATE_STORE_ENCODING)
    } else {
        Checkpoint::recorded_conf(cp.root(), keys::STATE_STORE_ENCODING)?
    };
    Ok(value.map_or_else(StateEncoding::default, |v| StateEncoding::parse(&v)))
}
