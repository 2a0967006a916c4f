//! `rand(seed)` / `randn(seed)`: uniform [0, 1) and standard normal
//! doubles from a seeded generator (SplitMix64), so a seeded query gives the
//! same values each run over the same input in the same order. Spark's
//! XORShift stream per partition is not reproduced: the values differ from
//! Spark's (see docs/differences.md).

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::Float64Array;
use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

#[derive(Debug)]
struct SeededRandom {
    name: &'static str,
    normal: bool,
    signature: Signature,
    /// How many values this call has drawn (a plan's calls continue the stream)
    drawn: AtomicU64,
    /// The seed when the call gives none
    unseeded: u64,
}

impl PartialEq for SeededRandom {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for SeededRandom {}
impl Hash for SeededRandom {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

/// `rand` and `randn`, for SQL text (a session's calls share one stream).
pub(super) fn all() -> Vec<ScalarUDF> {
    ["rand", "randn"].into_iter().filter_map(fresh).collect()
}

/// A new `rand` or `randn` whose stream starts at the seed: each
/// DataFrame call gets its own, so two queries of `rand(42)` see the same
/// values.
pub(super) fn fresh(name: &str) -> Option<ScalarUDF> {
    let (name, normal) = match name {
        "rand" | "random" => ("rand", false),
        "randn" => ("randn", true),
        _ => return None,
    };
    Some(ScalarUDF::new_from_impl(SeededRandom {
        name,
        normal,
        signature: Signature::variadic_any(Volatility::Volatile),
        drawn: AtomicU64::new(0),
        unseeded: rand_seed(),
    }))
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `i`-th uniform double in [0, 1) of the stream of `seed`.
fn uniform(seed: u64, i: u64) -> f64 {
    (splitmix64(seed ^ splitmix64(i)) >> 11) as f64 / (1u64 << 53) as f64
}

impl ScalarUDFImpl for SeededRandom {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let seed = match args.args.first() {
            None => None,
            Some(ColumnarValue::Scalar(v)) => match v.cast_to(&DataType::Int64)? {
                ScalarValue::Int64(Some(s)) => Some(s as u64),
                _ => Some(0),
            },
            Some(ColumnarValue::Array(_)) => {
                return Err(DataFusionError::Plan(format!(
                    "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the seed of {} must be a literal",
                    self.name
                )))
            }
        };
        let n = args.number_rows as u64;
        let start = self
            .drawn
            .fetch_add(if self.normal { 2 * n } else { n }, Ordering::Relaxed);
        let seed = seed.unwrap_or(self.unseeded);
        let values: Float64Array = (0..n)
            .map(|i| {
                if self.normal {
                    // Box-Muller over two uniforms
                    let (u1, u2) = (
                        uniform(seed, start + 2 * i),
                        uniform(seed, start + 2 * i + 1),
                    );
                    Some((-2.0 * (1.0 - u1).ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos())
                } else {
                    Some(uniform(seed, start + i))
                }
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(values)))
    }
}

/// A seed for a `rand()` without one: different for each call.
fn rand_seed() -> u64 {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    splitmix64(
        t ^ u64::from(std::process::id()) ^ splitmix64(CALLS.fetch_add(1, Ordering::Relaxed)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniforms_are_in_the_unit_interval_and_reproducible() {
        let draws: Vec<f64> = (0..1000).map(|i| uniform(42, i)).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        assert_eq!(draws, (0..1000).map(|i| uniform(42, i)).collect::<Vec<_>>());
        let mean = draws.iter().sum::<f64>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.05);
    }
}
