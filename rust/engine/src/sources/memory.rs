//! `MemoryStream`: rows pushed from the test (or notebook) into a stream.
//!
//! Every `add_data` call is one offset, as in Spark's `MemoryStream`, whose
//! offsets are the index of the last added block (starting at 0).

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::datasource::MemTable;
use parking_lot::RwLock;

use super::{Backlog, BatchInput, Offset, Source, SourceContext, SourceFactory};
use crate::error::{Error, Result};

/// The shared buffer behind a `MemoryStream`: the user appends, every query
/// reading the stream takes blocks by offset.
#[derive(Debug)]
pub struct MemoryStream {
    id: usize,
    schema: SchemaRef,
    blocks: RwLock<Vec<Vec<RecordBatch>>>,
    wake: Arc<crate::engine::Wake>,
}

impl MemoryStream {
    /// An empty stream of `schema`; `id` appears in its description.
    pub fn new(id: usize, schema: SchemaRef) -> Self {
        MemoryStream {
            id,
            schema,
            blocks: RwLock::new(Vec::new()),
            wake: crate::engine::global_wake(),
        }
    }

    /// Append one block of rows (one offset); returns the new offset.
    pub fn add_data(&self, batches: Vec<RecordBatch>) -> Result<i64> {
        for b in &batches {
            if b.schema().fields() != self.schema.fields() {
                return Err(Error::illegal_argument(format!(
                    "MemoryStream[{}] expects rows of schema {:?}, got {:?}",
                    self.id,
                    self.schema
                        .fields()
                        .iter()
                        .map(|f| format!("{}: {}", f.name(), f.data_type()))
                        .collect::<Vec<_>>(),
                    b.schema()
                        .fields()
                        .iter()
                        .map(|f| format!("{}: {}", f.name(), f.data_type()))
                        .collect::<Vec<_>>()
                )));
            }
        }
        let offset = {
            let mut blocks = self.blocks.write();
            blocks.push(batches);
            blocks.len() as i64 - 1
        };
        self.wake.notify();
        Ok(offset)
    }

    /// The schema of the stream's rows.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

/// Factory handing each query a reader over the shared buffer.
#[derive(Debug)]
pub struct MemoryStreamFactory(pub Arc<MemoryStream>);

impl SourceFactory for MemoryStreamFactory {
    fn wakes_on_arrival(&self) -> bool {
        true
    }

    fn supports_real_time(&self) -> bool {
        true
    }

    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }

    fn create(&self, _ctx: &SourceContext) -> Result<Box<dyn Source>> {
        Ok(Box::new(MemoryStreamSource {
            stream: Arc::clone(&self.0),
            cap: None,
            done: -1,
            start: -1,
        }))
    }
}

struct MemoryStreamSource {
    stream: Arc<MemoryStream>,
    cap: Option<i64>,
    /// The last offset committed, and the one committed when an
    /// `AvailableNow` run began (its backlog is between them and `cap`).
    done: i64,
    start: i64,
}

fn offset_index(offset: Option<&Offset>) -> Result<i64> {
    match offset {
        None => Ok(-1),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| Error::Internal(format!("MemoryStream offset is not an integer: {v}"))),
    }
}

impl Source for MemoryStreamSource {
    fn description(&self) -> String {
        let cols: Vec<String> = self
            .stream
            .schema
            .fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect();
        format!("MemoryStream[{}]", cols.join(","))
    }

    fn schema(&self) -> SchemaRef {
        self.stream.schema()
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let mut last = self.stream.blocks.read().len() as i64 - 1;
        if let Some(cap) = self.cap {
            last = last.min(cap);
        }
        Ok((last >= 0).then(|| Offset::from(last)))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let from = (offset_index(start)? + 1) as usize;
        let to = offset_index(Some(end))? as usize;
        let blocks = self.stream.blocks.read();
        let batches: Vec<RecordBatch> = blocks
            .get(from..=to)
            .ok_or_else(|| Error::Internal(format!("MemoryStream has no offsets {from}..={to}")))?
            .iter()
            .flatten()
            .cloned()
            .collect();
        let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let provider = MemTable::try_new(self.stream.schema(), vec![batches])?;
        Ok(BatchInput {
            provider: Arc::new(provider),
            num_rows,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        self.done = offset_index(Some(end))?;
        Ok(())
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.done = offset_index(committed)?;
        Ok(())
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        self.cap = Some(self.stream.blocks.read().len() as i64 - 1);
        self.start = self.done;
        Ok(())
    }

    fn backlog(&self) -> Option<Backlog> {
        let cap = self.cap?;
        Some(Backlog {
            done: (self.done - self.start).max(0) as u64,
            total: (cap - self.start).max(0) as u64,
            unit: "offsets",
        })
    }
}
