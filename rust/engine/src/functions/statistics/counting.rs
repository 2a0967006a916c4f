//! `product` and `count_if`: one scalar of state each.

use arrow::array::{ArrayRef, AsArray};
use arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;

use super::as_f64;

/// The product of the non-null values, as a double.
#[derive(Debug)]
pub(super) struct Product(pub(super) Option<f64>);

impl Product {
    fn take(&mut self, values: &ArrayRef) -> Result<()> {
        let v = as_f64(values)?;
        for x in v.as_primitive::<Float64Type>().iter().flatten() {
            self.0 = Some(self.0.unwrap_or(1.0) * x);
        }
        Ok(())
    }
}

impl Accumulator for Product {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(&values[0])
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.take(&states[0])
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Float64(self.0)])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(self.0))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The number of rows where the condition is true.
#[derive(Debug)]
pub(super) struct CountIf(pub(super) i64);

impl Accumulator for CountIf {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let b = arrow::compute::cast(&values[0], &DataType::Boolean)?;
        self.0 += b.as_boolean().true_count() as i64;
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.0 += states[0]
            .as_primitive::<Int64Type>()
            .iter()
            .flatten()
            .sum::<i64>();
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Int64(Some(self.0))])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Int64(Some(self.0)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}
