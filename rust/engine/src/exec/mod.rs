//! Stateful physical operators run by the micro-batch loop.

pub mod aggregate;
pub mod dedup;
pub mod event_time;
pub mod group_state;
pub mod join;
mod key_buffer;
pub mod limit;
pub mod map_batches;
pub mod observe;
pub mod operator;
pub mod ordered_coalesce;
pub mod stateful_node;
pub mod unary;
pub(crate) use group_state::processor_schema::spark_type as spark_type_name;

pub mod watermark;
mod window_bounds;
