//! The accumulators that read the partial states DataFusion's partial
//! aggregation emits. With grouping keys it runs each aggregate's groups
//! accumulator where there is one (an adapter over the row accumulator
//! where not); without keys, the row accumulator. The two may lay out a
//! state differently (`corr`: sums against means and deviations), so the
//! stored state is merged by the kind that made the partial.

use std::sync::Arc;

use arrow::array::ArrayRef;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Accumulator, EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::GroupsAccumulatorAdapter;

use parking_lot::Mutex;

use crate::error::Result;

/// Whether the partial states of `a` are its groups accumulator's.
fn by_groups(a: &AggregateFunctionExpr, keyed: bool) -> bool {
    keyed && a.groups_accumulator_supported()
}

/// A groups accumulator for `a`'s partial states (`keyed`: the partial
/// aggregation had grouping keys).
pub(super) fn groups_accumulator(
    a: &Arc<AggregateFunctionExpr>,
    keyed: bool,
) -> Result<Box<dyn GroupsAccumulator>> {
    if by_groups(a, keyed) {
        return Ok(a.create_groups_accumulator()?);
    }
    let a = Arc::clone(a);
    Ok(Box::new(GroupsAccumulatorAdapter::new(move || {
        a.create_accumulator()
    })))
}

/// A one-key accumulator for `a`'s partial states.
pub(super) fn row_accumulator(
    a: &Arc<AggregateFunctionExpr>,
    keyed: bool,
) -> Result<Box<dyn Accumulator>> {
    if by_groups(a, keyed) {
        return Ok(Box::new(OneGroup {
            acc: Mutex::new(a.create_groups_accumulator()?),
            of: Arc::clone(a),
        }));
    }
    Ok(a.create_accumulator()?)
}

/// A groups accumulator over a single group, as a row accumulator.
/// (in a mutex only to be `Sync`, as an `Accumulator` must be; it is
/// only reached through `&mut self`)
struct OneGroup {
    acc: Mutex<Box<dyn GroupsAccumulator>>,
    of: Arc<AggregateFunctionExpr>,
}

impl std::fmt::Debug for OneGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OneGroup({})", self.of.name())
    }
}

impl OneGroup {
    /// The group's state, left in place (emitting takes it out).
    fn arrays(&mut self) -> datafusion::error::Result<Vec<ArrayRef>> {
        let states = self.acc.get_mut().state(EmitTo::All)?;
        self.acc.get_mut().merge_batch(&states, &[0], 1)?;
        Ok(states)
    }
}

impl Accumulator for OneGroup {
    fn update_batch(&mut self, values: &[ArrayRef]) -> datafusion::error::Result<()> {
        let rows = values.first().map_or(0, |v| v.len());
        self.acc
            .get_mut()
            .update_batch(values, &vec![0; rows], None, 1)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> datafusion::error::Result<()> {
        let rows = states.first().map_or(0, |v| v.len());
        self.acc.get_mut().merge_batch(states, &vec![0; rows], 1)
    }

    fn state(&mut self) -> datafusion::error::Result<Vec<ScalarValue>> {
        self.arrays()?
            .iter()
            .map(|a| ScalarValue::try_from_array(a, 0))
            .collect()
    }

    fn evaluate(&mut self) -> datafusion::error::Result<ScalarValue> {
        let states = self.arrays()?;
        let mut once = self.of.create_groups_accumulator()?;
        once.merge_batch(&states, &[0], 1)?;
        ScalarValue::try_from_array(&once.evaluate(EmitTo::All)?, 0)
    }

    fn size(&self) -> usize {
        self.acc.lock().size()
    }
}
