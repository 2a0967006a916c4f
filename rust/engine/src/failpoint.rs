//! Crash points for the exactly-once tests: with `SPARKLET_FAILPOINT=name@batch`
//! (or just `name`) in the environment, the process aborts when it reaches
//! that point, as a `kill -9` would at that instant (or, at a
//! [`panic_at`] point, panics as a bug would). Unset (always, for users), a
//! check is one load of a cached `None`.

use std::sync::OnceLock;

static SPEC: OnceLock<Option<(String, Option<i64>)>> = OnceLock::new();

fn spec() -> &'static Option<(String, Option<i64>)> {
    SPEC.get_or_init(|| {
        let v = std::env::var("SPARKLET_FAILPOINT").ok()?;
        match v.split_once('@') {
            Some((name, batch)) => Some((name.to_string(), batch.parse().ok())),
            None => Some((v, None)),
        }
    })
}

fn armed(name: &str, batch: i64) -> bool {
    spec()
        .as_ref()
        .is_some_and(|(armed, at)| armed == name && at.is_none_or(|b| b == batch))
}

/// Abort the process if the failpoint `name` is armed for `batch`.
pub fn hit(name: &str, batch: i64) {
    if armed(name, batch) {
        std::process::abort();
    }
}

/// Panic, as a bug would, if the failpoint `name` is armed for `batch`
/// (the tests that no panic reaches Python arm these).
pub fn panic_at(name: &str, batch: i64) {
    if armed(name, batch) {
        panic!("failpoint {name} reached at batch {batch}");
    }
}
