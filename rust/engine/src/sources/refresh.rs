//! A batch file table that follows its files (beyond Spark, as Flink users
//! do with broadcast state for slowly changing reference data).
//!
//! `spark.read.option("sparklet.refreshInterval", N)` re-reads the files
//! every N scans (a stream joined with it scans it once per micro-batch);
//! `option("sparklet.refreshOnChange", "true")` lists the files at every
//! scan and re-reads them when a file was added, removed or changed. Without
//! either, a static DataFrame reads the files it found when it was created,
//! as in Spark.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session as CatalogSession, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::Mutex;

use crate::error::{Error, Result};

/// When to re-read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshPolicy {
    /// Re-read every this many scans.
    pub every_scans: Option<u64>,
    /// Re-read when the files' names, sizes or times change.
    pub on_change: bool,
}

impl RefreshPolicy {
    /// From reader options (keys lower-cased).
    pub fn from_options(options: &HashMap<String, String>) -> Result<Self> {
        let every_scans = match options.get("sparklet.refreshinterval") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if n > 0 => Some(n),
                _ => {
                    return Err(Error::illegal_argument(format!(
                        "sparklet.refreshInterval must be a positive number of batches, got '{v}'"
                    )))
                }
            },
            None => None,
        };
        let on_change = match options.get("sparklet.refreshonchange") {
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                return Err(Error::illegal_argument(format!(
                    "sparklet.refreshOnChange must be true or false, got '{v}'"
                )))
            }
            None => false,
        };
        Ok(RefreshPolicy {
            every_scans,
            on_change,
        })
    }

    /// Whether the table follows its files at all.
    pub fn enabled(&self) -> bool {
        self.every_scans.is_some() || self.on_change
    }
}

type Reload = dyn Fn() -> Result<Arc<dyn TableProvider>> + Send + Sync;

struct Current {
    scans: u64,
    files: Vec<(PathBuf, u64, i64)>,
    table: Arc<dyn TableProvider>,
}

/// The refreshing table.
pub struct RefreshingTable {
    schema: SchemaRef,
    policy: RefreshPolicy,
    reload: Box<Reload>,
    /// The files' signature, for `on_change`.
    list: Box<dyn Fn() -> Vec<(PathBuf, u64, i64)> + Send + Sync>,
    current: Mutex<Current>,
}

impl fmt::Debug for RefreshingTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RefreshingTable({:?})", self.policy)
    }
}

impl RefreshingTable {
    /// A table serving `table` until `policy` says to `reload`; `list`
    /// gives the files' (path, size, mtime) to detect changes.
    pub fn new(
        schema: SchemaRef,
        table: Arc<dyn TableProvider>,
        policy: RefreshPolicy,
        reload: impl Fn() -> Result<Arc<dyn TableProvider>> + Send + Sync + 'static,
        list: impl Fn() -> Vec<(PathBuf, u64, i64)> + Send + Sync + 'static,
    ) -> Self {
        let files = if policy.on_change { list() } else { Vec::new() };
        RefreshingTable {
            schema,
            policy,
            reload: Box::new(reload),
            list: Box::new(list),
            current: Mutex::new(Current {
                scans: 0,
                files,
                table,
            }),
        }
    }

    /// The table to scan now, re-read if the policy says so.
    fn table(&self) -> Result<Arc<dyn TableProvider>> {
        let mut cur = self.current.lock();
        cur.scans += 1;
        let due = self
            .policy
            .every_scans
            .is_some_and(|n| cur.scans > 1 && (cur.scans - 1).is_multiple_of(n));
        let files = if self.policy.on_change {
            Some((self.list)())
        } else {
            None
        };
        let changed = files.as_ref().is_some_and(|f| *f != cur.files);
        if due || changed {
            cur.table = (self.reload)()?;
            if let Some(f) = files {
                cur.files = f;
            }
        }
        Ok(Arc::clone(&cur.table))
    }
}

#[async_trait]
impl TableProvider for RefreshingTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn CatalogSession,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let table = self
            .table()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        table.scan(state, projection, filters, limit).await
    }
}
