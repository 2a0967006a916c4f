//! Spark's `collect_list` and `collect_set`: DataFusion's `array_agg`
//! with nulls skipped (as Spark does; IGNORE NULLS would rename the column)
//! and an empty array, not null, for a group with no values.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, ListArray};
use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature,
};

/// `array_agg` under Spark's name, an empty array where it gives null.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Collect {
    name: &'static str,
    inner: Arc<AggregateUDF>,
}

/// `collect_list` (`distinct`: `collect_set`, called with DISTINCT).
pub fn udaf(name: &'static str) -> AggregateUDF {
    AggregateUDF::new_from_impl(Collect {
        name,
        inner: datafusion::functions_aggregate::array_agg::array_agg_udaf(),
    })
}

impl AggregateUDFImpl for Collect {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.state_fields(args)
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let list_type = args.return_field.data_type().clone();
        Ok(Box::new(EmptyNotNull {
            inner: self.inner.accumulator(args)?,
            list_type,
        }))
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.inner.groups_accumulator_supported(args)
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(GroupsEmptyNotNull(
            self.inner.create_groups_accumulator(args)?,
        )))
    }
    fn supports_null_handling_clause(&self) -> bool {
        true
    }
    // with an ORDER BY (a sorted frame's `collect_list`), DataFusion's
    // order-sensitive accumulator: its ordering as `array_agg` asks for it
    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        self.inner.order_sensitivity()
    }
    fn with_beneficial_ordering(
        self: Arc<Self>,
        beneficial_ordering: bool,
    ) -> Result<Option<Arc<dyn AggregateUDFImpl>>> {
        let inner = self.inner.as_ref().clone();
        Ok(inner
            .with_beneficial_ordering(beneficial_ordering)?
            .map(|inner| {
                Arc::new(Collect {
                    name: self.name,
                    inner: Arc::new(inner),
                }) as Arc<dyn AggregateUDFImpl>
            }))
    }
}

struct EmptyNotNull {
    inner: Box<dyn Accumulator>,
    list_type: DataType,
}

impl std::fmt::Debug for EmptyNotNull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EmptyNotNull({:?})", self.inner)
    }
}

impl Accumulator for EmptyNotNull {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let v = &values[0];
        if v.null_count() == 0 {
            return self.inner.update_batch(values);
        }
        // the ordering columns (an ORDER BY's) lose the same rows
        let valid = arrow::compute::is_not_null(v)?;
        let kept = values
            .iter()
            .map(|c| arrow::compute::filter(c, &valid))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        self.inner.update_batch(&kept)
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        let v = self.inner.evaluate()?;
        if !v.is_null() {
            return Ok(v);
        }
        let DataType::List(item) = &self.list_type else {
            return Ok(v);
        };
        let empty = arrow::array::new_empty_array(item.data_type());
        Ok(ScalarValue::List(Arc::new(ListArray::new(
            Arc::clone(item),
            arrow::buffer::OffsetBuffer::from_lengths([0]),
            empty,
            None,
        ))))
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.inner.state()
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.inner.merge_batch(states)
    }
}

struct GroupsEmptyNotNull(Box<dyn GroupsAccumulator>);

impl GroupsAccumulator for GroupsEmptyNotNull {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        let v = &values[0];
        if v.null_count() == 0 {
            return self
                .0
                .update_batch(values, group_indices, opt_filter, total_num_groups);
        }
        let mut keep = arrow::compute::is_not_null(v)?;
        if let Some(f) = opt_filter {
            keep = arrow::compute::and(&keep, f)?;
        }
        self.0
            .update_batch(values, group_indices, Some(&keep), total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let out = self.0.evaluate(emit_to)?;
        let Some(list) = out.as_any().downcast_ref::<ListArray>() else {
            return Ok(out);
        };
        if list.null_count() == 0 {
            return Ok(out);
        }
        // a null group holds no values: the same offsets without nulls are empty lists
        let offsets = list.offsets();
        let empty_where_null =
            (0..list.len()).all(|i| list.is_valid(i) || offsets[i] == offsets[i + 1]);
        if !empty_where_null {
            return Ok(out);
        }
        let DataType::List(item) = list.data_type() else {
            return Ok(out);
        };
        Ok(Arc::new(ListArray::new(
            Arc::clone(item),
            offsets.clone(),
            Arc::clone(list.values()),
            None,
        )))
    }
    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        self.0.state(emit_to)
    }
    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.0.merge_batch(values, group_indices, total_num_groups)
    }
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let mut keep = arrow::compute::is_not_null(&values[0])?;
        if let Some(f) = opt_filter {
            keep = arrow::compute::and(&keep, f)?;
        }
        self.0.convert_to_state(values, Some(&keep))
    }
    fn size(&self) -> usize {
        self.0.size()
    }
}
