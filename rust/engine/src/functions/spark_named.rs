//! A DataFusion function under Spark's name for it (`instr` for `strpos`,
//! `size` for `cardinality`): the call keeps the name the user wrote, so the
//! result column is `instr(s, b)` as in Spark, in the DataFrame API and in
//! SQL text alike. Everything else is the wrapped function's.

use std::sync::Arc;

use arrow::datatypes::{DataType, FieldRef};
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SparkNamed {
    name: String,
    inner: Arc<ScalarUDF>,
}

impl SparkNamed {
    pub fn udf(name: String, inner: Arc<ScalarUDF>) -> ScalarUDF {
        ScalarUDF::new_from_impl(Self { name, inner })
    }
}

impl ScalarUDFImpl for SparkNamed {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        self.inner.return_type(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        self.inner.return_field_from_args(args)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        self.inner.invoke_with_args(args)
    }
    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> DFResult<ExprSimplifyResult> {
        self.inner.simplify(args, info)
    }
    fn short_circuits(&self) -> bool {
        self.inner.short_circuits()
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }
}
