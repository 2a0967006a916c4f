//! `mode`: the most frequent non-null value; among values equally
//! frequent, the lowest (Spark returns the lowest with
//! `deterministic = true` and any of them without, so the lowest is
//! Spark's answer either way). The state is each distinct value with its
//! count, so it merges across micro-batches.

use std::collections::HashMap;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Int64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;

#[derive(Debug)]
pub(super) struct Mode {
    pub(super) value_type: DataType,
    pub(super) counts: HashMap<ScalarValue, i64>,
}

impl Mode {
    fn add(&mut self, values: &ArrayRef, counts: Option<&ArrayRef>) -> Result<()> {
        let counts = counts.map(|c| c.as_primitive::<Int64Type>());
        for i in 0..values.len() {
            if values.is_null(i) {
                continue;
            }
            let n = counts.map_or(1, |c| c.value(i));
            *self
                .counts
                .entry(ScalarValue::try_from_array(values, i)?)
                .or_default() += n;
        }
        Ok(())
    }
}

impl Accumulator for Mode {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.add(&values[0], None)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (values, counts) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for i in 0..values.len() {
            if values.is_valid(i) {
                self.add(&values.value(i), Some(&counts.value(i)))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let (values, counts): (Vec<ScalarValue>, Vec<ScalarValue>) = self
            .counts
            .iter()
            .map(|(v, n)| (v.clone(), ScalarValue::Int64(Some(*n))))
            .unzip();
        Ok(vec![
            ScalarValue::List(ScalarValue::new_list_nullable(&values, &self.value_type)),
            ScalarValue::List(ScalarValue::new_list_nullable(&counts, &DataType::Int64)),
        ])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        let best = self.counts.iter().max_by(|(va, na), (vb, nb)| {
            na.cmp(nb)
                .then_with(|| vb.partial_cmp(va).unwrap_or(std::cmp::Ordering::Equal))
        });
        match best {
            Some((v, _)) => Ok(v.clone()),
            None => ScalarValue::try_from(&self.value_type),
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.counts.keys().map(|k| k.size() + 8).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use std::sync::Arc;

    fn mode_of(batches: &[Vec<Option<i64>>]) -> ScalarValue {
        let mut whole = Mode {
            value_type: DataType::Int64,
            counts: HashMap::new(),
        };
        for b in batches {
            let mut part = Mode {
                value_type: DataType::Int64,
                counts: HashMap::new(),
            };
            let a: ArrayRef = Arc::new(Int64Array::from(b.clone()));
            part.update_batch(&[a]).unwrap();
            let state: Vec<ArrayRef> = part
                .state()
                .unwrap()
                .iter()
                .map(|s| s.to_array().unwrap())
                .collect();
            whole.merge_batch(&state).unwrap();
        }
        whole.evaluate().unwrap()
    }

    #[test]
    fn most_frequent_across_partials_lowest_on_ties() {
        let got = mode_of(&[
            vec![Some(3), Some(1)],
            vec![Some(3), None, Some(1), Some(1)],
        ]);
        assert_eq!(got, ScalarValue::Int64(Some(1)));
        assert_eq!(
            mode_of(&[vec![Some(10), Some(-10), Some(0)]]),
            ScalarValue::Int64(Some(-10))
        );
        assert_eq!(mode_of(&[vec![None]]), ScalarValue::Int64(None));
    }
}
