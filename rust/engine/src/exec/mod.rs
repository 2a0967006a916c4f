//! Stateful physical operators run by the micro-batch loop.

pub mod stateful_agg;
