//! Test-only crate: see tests/integration.rs.
