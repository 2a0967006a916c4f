//! Helpers shared by the integration tests.

use std::sync::Arc;
use std::time::Duration;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use sparklet_engine::runtime::block_on;

pub fn schema_id_word() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("word", DataType::Utf8, true),
    ]))
}

pub fn batch(ids: &[i64], words: &[&str]) -> RecordBatch {
    RecordBatch::try_new(
        schema_id_word(),
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(words.to_vec())),
        ],
    )
    .unwrap()
}

/// Run a batch DataFrame and return its rows as pretty-printed lines.
pub fn rows(df: datafusion::dataframe::DataFrame) -> Vec<String> {
    let batches = block_on(df.collect()).unwrap().unwrap();
    arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
        .lines()
        .map(str::to_string)
        .collect()
}

pub const WAIT: Duration = Duration::from_secs(20);

/// A fresh temporary folder, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("sparklet-test-{tag}-{}", uuid_like()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.0.join(name), text).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}
