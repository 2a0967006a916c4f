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

/// A store of byte-string keys and values in `dir`, opened at committed
/// `version` by the session's provider: state kept outside a query plan
/// (DStreams' `updateStateByKey`), versioned, written and cleaned up as a
/// query operator's is.
pub fn open_byte_store(
    conf: &Conf,
    dir: std::path::PathBuf,
    version: i64,
) -> Result<Box<dyn super::StateStore>> {
    use arrow::datatypes::{DataType, Field};
    let spec = super::StoreSpec {
        dir,
        value_fields: vec![std::sync::Arc::new(Field::new(
            "value",
            DataType::Binary,
            false,
        ))],
        min_deltas_for_snapshot: conf.get_i64(keys::MIN_DELTAS_FOR_SNAPSHOT, 10),
        min_versions_to_retain: conf.get_i64(keys::MIN_BATCHES_TO_RETAIN, 100).max(1),
        key_order: super::KeyOrder::Sorted,
        evolution: None,
        durable: true,
        fsync: true,
    };
    state_store_provider(conf)?.open(&spec, version)
}
