//! Engine integration tests: one binary, a module per area.

mod checkpoint;
mod common;
mod engine;
mod formats;
mod functions;
mod fuzz;
mod joins;
mod sources;
mod state;
