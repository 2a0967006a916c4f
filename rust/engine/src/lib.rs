//! sparklet's engine: Structured Streaming's micro-batch model on DataFusion,
//! in one process and without Python. The `sparklet-python` crate binds it.

#![deny(missing_docs)]

pub mod cached_table;
pub mod catalog;
pub mod checkpoint;
pub mod conf;
pub mod dataframe;
pub mod delta;
pub mod engine;
pub mod error;
pub mod exec;
pub mod failpoint;
pub mod formats;
pub mod functions;
pub mod grouping;
pub mod plan;
pub mod runtime;
pub mod session;
pub mod set_ops;
pub mod sinks;
pub mod sources;
pub mod spark_options;
pub mod state;
pub mod table_names;

pub use error::{Error, Result};
pub use session::{QueryOptions, Session, SinkSpec};
