//! `skewness` and `kurtosis`: central moments, updated and merged as
//! Spark's `CentralMomentAgg`.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::Float64Type;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;

use super::as_f64;

/// Count, mean and the 2nd to 4th central moment sums.
#[derive(Debug, Default)]
pub(super) struct Moments {
    pub(super) kurtosis: bool,
    pub(super) n: f64,
    pub(super) avg: f64,
    pub(super) m2: f64,
    pub(super) m3: f64,
    pub(super) m4: f64,
}

impl Moments {
    /// Merges a partial of `n` values (Pébay's pairwise formulas; one value
    /// is the partial `(1, x, 0, 0, 0)`).
    fn merge(&mut self, n: f64, avg: f64, m2: f64, m3: f64, m4: f64) {
        if n == 0.0 {
            return;
        }
        let (na, nb) = (self.n, n);
        let total = na + nb;
        let delta = avg - self.avg;
        let dn = delta / total;
        let new_m2 = self.m2 + m2 + delta * dn * na * nb;
        let new_m3 = self.m3
            + m3
            + dn * dn * delta * na * nb * (na - nb)
            + 3.0 * dn * (na * m2 - nb * self.m2);
        let new_m4 = self.m4
            + m4
            + dn * dn * dn * delta * na * nb * (na * na - na * nb + nb * nb)
            + 6.0 * dn * dn * (na * na * m2 + nb * nb * self.m2)
            + 4.0 * dn * (na * m3 - nb * self.m3);
        self.avg += dn * nb;
        self.n = total;
        (self.m2, self.m3, self.m4) = (new_m2, new_m3, new_m4);
    }
}

impl Accumulator for Moments {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let v = as_f64(&values[0])?;
        for x in v.as_primitive::<Float64Type>().iter().flatten() {
            self.merge(1.0, x, 0.0, 0.0, 0.0);
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let col = |i: usize| states[i].as_primitive::<Float64Type>().clone();
        let (n, avg, m2, m3, m4) = (col(0), col(1), col(2), col(3), col(4));
        for i in 0..n.len() {
            if !n.is_null(i) {
                self.merge(
                    n.value(i),
                    avg.value(i),
                    m2.value(i),
                    m3.value(i),
                    m4.value(i),
                );
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok([self.n, self.avg, self.m2, self.m3, self.m4]
            .map(|v| ScalarValue::Float64(Some(v)))
            .to_vec())
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        // Spark: null without values or without spread
        if self.n == 0.0 || self.m2 == 0.0 {
            return Ok(ScalarValue::Float64(None));
        }
        let v = if self.kurtosis {
            self.n * self.m4 / (self.m2 * self.m2) - 3.0
        } else {
            self.n.sqrt() * self.m3 / (self.m2 * self.m2 * self.m2).sqrt()
        };
        Ok(ScalarValue::Float64(Some(v)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}
