//! Spark's session catalog resolves table and view names without regard to
//! case (`spark.sql.caseSensitive` is false by default) and keeps them in
//! lower case: a schema of the `spark_catalog` that lower-cases every name
//! it is given or asked for.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider, TableProvider};
use datafusion::error::Result;

/// A schema whose table names are case-insensitive (stored lower-cased).
#[derive(Debug, Default)]
pub struct CaseInsensitiveSchema {
    tables: MemorySchemaProvider,
}

impl CaseInsensitiveSchema {
    /// An empty schema.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
}

#[async_trait]
impl SchemaProvider for CaseInsensitiveSchema {
    fn table_names(&self) -> Vec<String> {
        self.tables.table_names()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        self.tables.table(&name.to_lowercase()).await
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        self.tables.register_table(name.to_lowercase(), table)
    }

    fn deregister_table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        self.tables.deregister_table(&name.to_lowercase())
    }

    fn table_exist(&self, name: &str) -> bool {
        self.tables.table_exist(&name.to_lowercase())
    }
}
