//! `corr`: Pearson's coefficient, updated and merged with Spark's formulas
//! (`PearsonCorrelation`), so its digits are Spark's: DataFusion's own,
//! which divides the covariance by the two standard deviations, differs
//! in the last place (`0.9999999999999999` where Spark says `1.0`).

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::Float64Type;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;

use super::as_f64;

/// The count, both means, the co-moment and each variable's second
/// moment.
#[derive(Debug, Default)]
pub(super) struct Pearson {
    n: f64,
    x_avg: f64,
    y_avg: f64,
    ck: f64,
    x_mk: f64,
    y_mk: f64,
}

impl Pearson {
    fn update(&mut self, x: f64, y: f64) {
        let n = self.n + 1.0;
        let dx = x - self.x_avg;
        let dy = y - self.y_avg;
        self.x_avg += dx / n;
        self.y_avg += dy / n;
        self.ck += dx * (y - self.y_avg);
        self.x_mk += dx * (x - self.x_avg);
        self.y_mk += dy * (y - self.y_avg);
        self.n = n;
    }

    fn merge(&mut self, other: &Pearson) {
        let (n1, n2) = (self.n, other.n);
        let n = n1 + n2;
        let dx = other.x_avg - self.x_avg;
        let dy = other.y_avg - self.y_avg;
        let (dx_n, dy_n) = if n == 0.0 {
            (0.0, 0.0)
        } else {
            (dx / n, dy / n)
        };
        self.x_avg += dx_n * n2;
        self.y_avg += dy_n * n2;
        self.ck += other.ck + dx * dy_n * n1 * n2;
        self.x_mk += other.x_mk + dx * dx_n * n1 * n2;
        self.y_mk += other.y_mk + dy * dy_n * n1 * n2;
        self.n = n;
    }
}

impl Accumulator for Pearson {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let (x, y) = (as_f64(&values[0])?, as_f64(&values[1])?);
        let (x, y) = (
            x.as_primitive::<Float64Type>(),
            y.as_primitive::<Float64Type>(),
        );
        for i in 0..x.len() {
            if x.is_valid(i) && y.is_valid(i) {
                self.update(x.value(i), y.value(i));
            }
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let cols: Vec<_> = states
            .iter()
            .map(|s| s.as_primitive::<Float64Type>().clone())
            .collect();
        for i in 0..cols[0].len() {
            if cols[0].is_valid(i) {
                let v = |c: usize| cols[c].value(i);
                self.merge(&Pearson {
                    n: v(0),
                    x_avg: v(1),
                    y_avg: v(2),
                    ck: v(3),
                    x_mk: v(4),
                    y_mk: v(5),
                });
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok([
            self.n, self.x_avg, self.y_avg, self.ck, self.x_mk, self.y_mk,
        ]
        .into_iter()
        .map(|v| ScalarValue::Float64(Some(v)))
        .collect())
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        // one pair, or no spread: Spark's division by zero gives null
        let denominator = (self.x_mk * self.y_mk).sqrt();
        if self.n <= 1.0 || denominator == 0.0 {
            return Ok(ScalarValue::Float64(None));
        }
        Ok(ScalarValue::Float64(Some(self.ck / denominator)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_partials_equal_one_pass() {
        let pairs = [(3.0, 2.0), (3.0, 3.0), (6.0, 4.0), (1.5, -2.0)];
        let mut whole = Pearson::default();
        pairs.iter().for_each(|(x, y)| whole.update(*x, *y));
        let (mut a, mut b) = (Pearson::default(), Pearson::default());
        pairs[..1].iter().for_each(|(x, y)| a.update(*x, *y));
        pairs[1..].iter().for_each(|(x, y)| b.update(*x, *y));
        a.merge(&b);
        let (w, m) = (whole.evaluate().unwrap(), a.evaluate().unwrap());
        let (ScalarValue::Float64(Some(w)), ScalarValue::Float64(Some(m))) = (w, m) else {
            panic!("no coefficient");
        };
        assert!((w - m).abs() < 1e-12);
    }

    #[test]
    fn spark_example() {
        // Spark's documented example: corr of (3, 2), (3, 3), (6, 4)
        let mut p = Pearson::default();
        [(3.0, 2.0), (3.0, 3.0), (6.0, 4.0)]
            .iter()
            .for_each(|(x, y)| p.update(*x, *y));
        assert_eq!(
            p.evaluate().unwrap(),
            ScalarValue::Float64(Some(0.8660254037844387))
        );
    }
}
