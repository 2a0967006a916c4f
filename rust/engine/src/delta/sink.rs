//! The streaming Delta sink (`writeStream.format("delta")`): each
//! micro-batch is one Delta commit carrying the transaction (the query's id,
//! the batch id) as delta-spark's `DeltaSink` writes it, so a batch replayed
//! after a crash finds its transaction committed and writes nothing.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::sinks::{Sink, SinkBatch};

/// Appends (or, in complete mode, replaces the table with) each batch.
pub struct DeltaSink {
    path: String,
    partition_by: Vec<String>,
    /// Writer options, lower-case keys (`mergeschema`, `overwriteschema`).
    options: HashMap<String, String>,
    complete: bool,
    /// The transaction's application id: the query's id, stable across runs.
    query_id: Option<String>,
    /// The table as the last batch left it (brought up to date, not
    /// reloaded, for the next).
    table: Option<deltalake_core::DeltaTable>,
}

impl DeltaSink {
    /// A sink into the table at `path` (made by the first batch if absent).
    pub fn new(
        path: String,
        partition_by: Vec<String>,
        options: HashMap<String, String>,
        complete: bool,
    ) -> Self {
        DeltaSink {
            path,
            partition_by,
            options,
            complete,
            query_id: None,
            table: None,
        }
    }
}

impl Sink for DeltaSink {
    fn description(&self) -> String {
        format!("DeltaSink[{}]", self.path)
    }

    fn class_name(&self) -> String {
        "org.apache.spark.sql.delta.sources.DeltaSink".to_string()
    }

    fn bind_query(&mut self, query_id: &str) {
        self.query_id = Some(query_id.to_string());
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        let app = self
            .query_id
            .clone()
            .ok_or_else(|| Error::Internal("the Delta sink started without a query id".into()))?;
        let mut options = self.options.clone();
        options.insert("txnappid".into(), app);
        options.insert("txnversion".into(), batch_id.to_string());
        let mode = if self.complete { "overwrite" } else { "append" };
        // only a run's first batch can be a replay: later ids are new
        let check_txn = self.table.is_none();
        let path = self.path.clone();
        let spec = super::WriteSpec {
            path: &path,
            mode,
            partition_by: self.partition_by.clone(),
            options: &options,
            schema: &data.schema,
            check_txn,
            streaming: true,
        };
        let cached = self.table.take();
        self.table = crate::runtime::block_on(async move {
            let table = match cached {
                // another writer's commits since: read incrementally
                Some(mut t) => {
                    t.update_incremental(None)
                        .await
                        .map_err(|e| super::delta_error(spec.path, e))?;
                    t
                }
                None => super::open_for_write(spec.path).await?,
            };
            super::write_to(table, spec, data.batches).await
        })??;
        // the crash tests stop here: committed to Delta, not yet to the checkpoint
        crate::failpoint::hit("mid-sink", batch_id);
        Ok(())
    }
}
