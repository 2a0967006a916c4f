//! Aggregates that count or collect distinct values by what they are, not
//! by a DISTINCT the user wrote: `collect_set` and `approx_count_distinct`
//! (computed exactly: `count`'s distinct accumulator, whose state merges
//! across micro-batches). Spark refuses DISTINCT aggregations on streams and
//! allows these, so the plan's DISTINCT flag must mean the user's DISTINCT.

use std::sync::Arc;

use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, GroupsAccumulator, Signature,
};

/// `inner` under `name`, always over distinct values.
#[derive(Debug, PartialEq, Eq, Hash)]
struct AlwaysDistinct {
    name: &'static str,
    inner: Arc<AggregateUDF>,
}

/// `inner` named `name`, its accumulators always distinct.
pub fn udaf(name: &'static str, inner: Arc<AggregateUDF>) -> AggregateUDF {
    AggregateUDF::new_from_impl(AlwaysDistinct { name, inner })
}

impl AggregateUDFImpl for AlwaysDistinct {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }
    fn is_nullable(&self) -> bool {
        self.inner.is_nullable()
    }
    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        self.inner.default_value(data_type)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.state_fields(StateFieldsArgs {
            is_distinct: true,
            ..args
        })
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.inner.accumulator(AccumulatorArgs {
            is_distinct: true,
            ..args
        })
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.inner.groups_accumulator_supported(AccumulatorArgs {
            is_distinct: true,
            ..args
        })
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        self.inner.create_groups_accumulator(AccumulatorArgs {
            is_distinct: true,
            ..args
        })
    }
    fn supports_null_handling_clause(&self) -> bool {
        self.inner.supports_null_handling_clause()
    }
}
