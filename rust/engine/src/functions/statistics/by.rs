//! `max_by` / `min_by`, with and without k.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;

/// The value at the largest (smallest) ordering value; rows with a null
/// ordering are skipped, as Spark does.
#[derive(Debug)]
pub(super) struct By {
    pub(super) max: bool,
    pub(super) value: ScalarValue,
    pub(super) ordering: ScalarValue,
}

impl By {
    fn take(&mut self, values: &ArrayRef, ordering: &ArrayRef) -> Result<()> {
        for i in 0..ordering.len() {
            if ordering.is_null(i) {
                continue;
            }
            let o = ScalarValue::try_from_array(ordering, i)?;
            let better = self.ordering.is_null()
                || match o.partial_cmp(&self.ordering) {
                    Some(std::cmp::Ordering::Greater) => self.max,
                    Some(std::cmp::Ordering::Less) => !self.max,
                    _ => false,
                };
            if better {
                self.ordering = o;
                self.value = ScalarValue::try_from_array(values, i)?;
            }
        }
        Ok(())
    }
}

/// `max_by(x, y, k)` / `min_by(x, y, k)`: the values of the k largest
/// (smallest) orderings, best first.
#[derive(Debug)]
pub(super) struct TopBy {
    pub(super) max: bool,
    pub(super) k: usize,
    pub(super) value_type: DataType,
    pub(super) ordering_type: DataType,
    /// (ordering, value), best first
    pub(super) kept: Vec<(ScalarValue, ScalarValue)>,
}

impl TopBy {
    fn take(&mut self, values: &ArrayRef, orderings: &ArrayRef) -> Result<()> {
        for i in 0..orderings.len() {
            if orderings.is_null(i) {
                continue;
            }
            let o = ScalarValue::try_from_array(orderings, i)?;
            let v = ScalarValue::try_from_array(values, i)?;
            self.kept.push((o, v));
        }
        let max = self.max;
        self.kept.sort_by(|a, b| {
            let order = a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal);
            if max {
                order.reverse()
            } else {
                order
            }
        });
        self.kept.truncate(self.k);
        Ok(())
    }

    fn list(values: Vec<ScalarValue>, t: &DataType) -> ScalarValue {
        ScalarValue::List(ScalarValue::new_list_nullable(&values, t))
    }
}

impl Accumulator for TopBy {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0], &values[1])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (values, orderings) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for i in 0..values.len() {
            if !values.is_null(i) {
                self.take(&values.value(i), &orderings.value(i))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let (orderings, values): (Vec<_>, Vec<_>) = self.kept.iter().cloned().unzip();
        Ok(vec![
            Self::list(values, &self.value_type),
            Self::list(orderings, &self.ordering_type),
        ])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        let values = self.kept.iter().map(|(_, v)| v.clone()).collect();
        Ok(Self::list(values, &self.value_type))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.kept.len() * 2 * std::mem::size_of::<ScalarValue>()
    }
}

impl Accumulator for By {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0], &values[1])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.take(&states[0], &states[1])
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.value.clone(), self.ordering.clone()])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(self.value.clone())
    }
    fn size(&self) -> usize {
        self.value.size() + self.ordering.size()
    }
}
