//! Crash points for the exactly-once tests: with `SPARKLET_FAILPOINT=name@batch`
//! (or just `name`) in the environment, the process aborts when it reaches
//! that point, as a `kill -9` would at that instant. Unset (always, for
//! users), a check is one load of a cached `None`.

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

/// Abort the process if the failpoint `name` is armed for `batch`.
pub fn hit(name: &str, batch: i64) {
    if let Some((armed, at)) = spec() {
        if armed == name && at.is_none_or(|b| b == batch) {
            std::process::abort();
        }
    }
}
