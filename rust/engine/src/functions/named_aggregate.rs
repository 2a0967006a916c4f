//! A DataFusion aggregate under Spark's name for it (`first` and
//! `any_value` for `first_value`, `std` for `stddev`, `every` for
//! `bool_and`): the call keeps the name the user wrote, so the result
//! column is `any_value(c)` as in Spark, in the DataFrame API and in SQL.
//!
//! Some are also distinct by what they are, not by a DISTINCT the user
//! wrote: `collect_set` and `approx_count_distinct` (computed exactly:
//! `count`'s distinct accumulator, whose state merges across
//! micro-batches). Spark refuses DISTINCT aggregations on streams and
//! allows these, so the plan's DISTINCT flag must mean the user's DISTINCT.

use std::sync::Arc;

use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, GroupsAccumulator, ReversedUDAF, Signature,
};

#[derive(Debug, PartialEq, Eq, Hash)]
struct Named {
    name: String,
    inner: Arc<AggregateUDF>,
    /// Always over distinct values.
    distinct: bool,
}

/// `inner` under `name`.
pub fn named(name: &str, inner: Arc<AggregateUDF>) -> AggregateUDF {
    AggregateUDF::new_from_impl(Named {
        name: name.to_string(),
        inner,
        distinct: false,
    })
}

/// `inner` named `name`, its accumulators always distinct.
pub fn always_distinct(name: &str, inner: Arc<AggregateUDF>) -> AggregateUDF {
    AggregateUDF::new_from_impl(Named {
        name: name.to_string(),
        inner,
        distinct: true,
    })
}

impl Named {
    fn args<'a>(&self, args: AccumulatorArgs<'a>) -> AccumulatorArgs<'a> {
        AccumulatorArgs {
            is_distinct: args.is_distinct || self.distinct,
            ..args
        }
    }
    fn rewrap(&self, inner: Arc<AggregateUDF>) -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::new_from_impl(Named {
            name: self.name.clone(),
            inner,
            distinct: self.distinct,
        }))
    }
}

impl AggregateUDFImpl for Named {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        self.inner.return_field(arg_fields)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }
    fn is_nullable(&self) -> bool {
        self.inner.is_nullable()
    }
    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        self.inner.default_value(data_type)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.state_fields(StateFieldsArgs {
            is_distinct: args.is_distinct || self.distinct,
            ..args
        })
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.inner.accumulator(self.args(args))
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.inner.groups_accumulator_supported(self.args(args))
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        self.inner.create_groups_accumulator(self.args(args))
    }
    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.inner.create_sliding_accumulator(self.args(args))
    }
    fn with_beneficial_ordering(
        self: Arc<Self>,
        beneficial_ordering: bool,
    ) -> Result<Option<Arc<dyn AggregateUDFImpl>>> {
        let inner = Arc::clone(self.inner.inner()).with_beneficial_ordering(beneficial_ordering)?;
        Ok(inner.map(|i| {
            Arc::new(Named {
                name: self.name.clone(),
                inner: Arc::new(AggregateUDF::new_from_shared_impl(i)),
                distinct: self.distinct,
            }) as Arc<dyn AggregateUDFImpl>
        }))
    }
    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        self.inner.inner().order_sensitivity()
    }
    fn reverse_expr(&self) -> ReversedUDAF {
        match self.inner.reverse_udf() {
            ReversedUDAF::Reversed(r) => ReversedUDAF::Reversed(self.rewrap(r)),
            other => other,
        }
    }
    fn is_descending(&self) -> Option<bool> {
        self.inner.is_descending()
    }
    fn supports_null_handling_clause(&self) -> bool {
        self.inner.supports_null_handling_clause()
    }
    fn set_monotonicity(&self, data_type: &DataType) -> datafusion::logical_expr::SetMonotonicity {
        self.inner.inner().set_monotonicity(data_type)
    }
}
