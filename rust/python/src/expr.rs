//! `Column` expressions: a handle on a DataFusion `Expr`, built by the
//! Python `Column` and `functions` wrappers.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{cast, lit, Expr, Like, SortExpr};
use pyo3::prelude::*;
use pyo3_arrow::{PyArray, PyDataType};
use sparklet_engine::{dataframe, functions};

use crate::errors::IntoPyResult;
use crate::session::PySession;

/// A column expression.
#[pyclass(name = "Expr", module = "sparklet._native", frozen)]
#[derive(Clone)]
pub struct PyExpr {
    pub expr: Expr,
    /// Sort direction when used in `orderBy` (asc, nulls first by default).
    pub sort: Option<(bool, bool)>,
}

impl PyExpr {
    pub fn new(expr: Expr) -> Self {
        PyExpr { expr, sort: None }
    }

    pub fn sort_expr(&self) -> SortExpr {
        let (asc, nulls_first) = self.sort.unwrap_or((true, true));
        self.expr.clone().sort(asc, nulls_first)
    }
}

fn exprs(args: Vec<PyRef<'_, PyExpr>>) -> Vec<Expr> {
    args.iter().map(|e| e.expr.clone()).collect()
}

#[pymethods]
impl PyExpr {
    fn __repr__(&self) -> String {
        format!("Column<'{}'>", self.expr.schema_name())
    }

    /// The name Spark would give this column.
    fn name(&self) -> String {
        match &self.expr {
            Expr::Alias(a) => a.name.clone(),
            Expr::Column(c) => c.name.clone(),
            // as a select names it: `(id * 10)`, not DataFusion's `id * Int32(10)`
            other => sparklet_engine::plan::spark_names::spark_name(other),
        }
    }

    /// `Column.withField(path, value)`.
    fn with_field(&self, path: &str, value: PyRef<'_, PyExpr>) -> PyExpr {
        PyExpr::new(sparklet_engine::functions::struct_fields::with_field(
            self.expr.clone(),
            path,
            value.expr.clone(),
        ))
    }

    /// `Column.dropFields(*paths)`.
    fn drop_fields(&self, paths: Vec<String>) -> PyExpr {
        PyExpr::new(sparklet_engine::functions::struct_fields::drop_fields(
            self.expr.clone(),
            &paths,
        ))
    }

    /// `alias(name, metadata=...)`: Spark's field metadata (a JSON object)
    /// travels as the Arrow field's `sparklet.metadata`.
    #[pyo3(signature = (name, metadata=None))]
    fn alias(&self, name: &str, metadata: Option<String>) -> PyExpr {
        match metadata {
            None => PyExpr::new(self.expr.clone().alias(name)),
            Some(json) => {
                let m = std::collections::HashMap::from([("sparklet.metadata".to_string(), json)]);
                PyExpr::new(self.expr.clone().alias_with_metadata(
                    name,
                    Some(datafusion::common::metadata::FieldMetadata::from(m)),
                ))
            }
        }
    }

    fn binary(&self, op: &str, other: PyRef<'_, PyExpr>) -> PyResult<PyExpr> {
        Ok(PyExpr::new(
            functions::binary(op, self.expr.clone(), other.expr.clone()).py()?,
        ))
    }

    fn not_(&self) -> PyExpr {
        PyExpr::new(!self.expr.clone())
    }

    fn negate(&self) -> PyExpr {
        PyExpr::new(Expr::Negative(Box::new(self.expr.clone())))
    }

    fn is_null(&self) -> PyExpr {
        PyExpr::new(self.expr.clone().is_null())
    }

    fn is_not_null(&self) -> PyExpr {
        PyExpr::new(self.expr.clone().is_not_null())
    }

    fn cast(&self, to: PyDataType) -> PyExpr {
        // Spark 4 casts are ANSI: a bad value is an error, as DataFusion's cast is
        PyExpr::new(cast(self.expr.clone(), to.into_inner()))
    }

    fn try_cast(&self, to: PyDataType) -> PyExpr {
        // null where the value does not convert (Spark's try_cast)
        PyExpr::new(Expr::TryCast(datafusion::logical_expr::TryCast::new(
            Box::new(self.expr.clone()),
            to.into_inner(),
        )))
    }

    fn isin(&self, values: Vec<PyRef<'_, PyExpr>>) -> PyExpr {
        PyExpr::new(self.expr.clone().in_list(exprs(values), false))
    }

    fn like(&self, pattern: &str, case_insensitive: bool) -> PyExpr {
        PyExpr::new(Expr::Like(Like::new(
            false,
            Box::new(self.expr.clone()),
            Box::new(lit(pattern)),
            None,
            case_insensitive,
        )))
    }

    fn rlike(&self, pattern: &str) -> PyExpr {
        PyExpr::new(datafusion::prelude::binary_expr(
            self.expr.clone(),
            datafusion::logical_expr::Operator::RegexMatch,
            lit(pattern),
        ))
    }

    fn get_field(&self, name: &str) -> PyExpr {
        PyExpr::new(datafusion::functions::core::expr_fn::get_field(
            self.expr.clone(),
            name,
        ))
    }

    fn get_item(&self, index: PyRef<'_, PyExpr>) -> PyExpr {
        PyExpr::new(functions::column::get_item(
            self.expr.clone(),
            index.expr.clone(),
        ))
    }

    fn sorted(&self, ascending: bool, nulls_first: bool) -> PyExpr {
        PyExpr {
            expr: self.expr.clone(),
            sort: Some((ascending, nulls_first)),
        }
    }

    /// `when(cond, value)` chained onto an existing CASE.
    /// `col.over(window)`: `frame` is (rows, start, end), None unbounded.
    #[pyo3(signature = (partition_by, order_by, frame=None))]
    fn over(
        &self,
        partition_by: Vec<PyRef<'_, PyExpr>>,
        order_by: Vec<PyRef<'_, PyExpr>>,
        frame: Option<(bool, Option<i64>, Option<i64>)>,
    ) -> PyResult<PyExpr> {
        let frame = frame.map(|(rows, start, end)| functions::over::Frame { rows, start, end });
        let order = order_by.iter().map(|e| e.sort_expr()).collect();
        functions::over::over(self.expr.clone(), exprs(partition_by), order, frame)
            .map(PyExpr::new)
            .py()
    }

    fn when(&self, cond: PyRef<'_, PyExpr>, value: PyRef<'_, PyExpr>) -> PyResult<PyExpr> {
        functions::column::when_more(&self.expr, cond.expr.clone(), value.expr.clone())
            .map(PyExpr::new)
            .py()
    }

    fn otherwise(&self, value: PyRef<'_, PyExpr>) -> PyResult<PyExpr> {
        functions::column::otherwise(&self.expr, value.expr.clone())
            .map(PyExpr::new)
            .py()
    }
}

/// `F.col(name)`.
#[pyfunction]
pub fn col(name: &str) -> PyExpr {
    PyExpr::new(functions::column(name))
}

/// `F.lit(value)`: the value arrives as a one-element Arrow array, so every
/// Arrow type (dates, timestamps, decimals, lists) is a literal.
#[pyfunction]
pub fn lit_array(value: PyArray) -> PyResult<PyExpr> {
    let (array, _) = value.into_inner();
    let scalar = ScalarValue::try_from_array(array.as_ref(), 0)
        .map_err(|e| crate::errors::to_py(e.into()))?;
    Ok(PyExpr::new(Expr::Literal(scalar, None)))
}

/// A literal of a plain Python value (bool, int, float or str), typed as
/// PySpark types it (an int is an INT when it fits, else a BIGINT). Built
/// here rather than through `pyarrow.array`, which imports pandas.
#[pyfunction]
pub fn lit_plain(value: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
    let scalar = if value.is_instance_of::<PyBool>() {
        ScalarValue::Boolean(Some(value.extract()?))
    } else if value.is_instance_of::<PyInt>() {
        let v: i64 = value.extract()?;
        match i32::try_from(v) {
            Ok(small) => ScalarValue::Int32(Some(small)),
            Err(_) => ScalarValue::Int64(Some(v)),
        }
    } else if value.is_instance_of::<PyFloat>() {
        ScalarValue::Float64(Some(value.extract()?))
    } else if value.is_instance_of::<PyString>() {
        ScalarValue::Utf8(Some(value.extract()?))
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "not a plain literal: {}",
            value.get_type().name()?
        )));
    };
    Ok(PyExpr::new(Expr::Literal(scalar, None)))
}

/// A typed null literal.
#[pyfunction]
pub fn null_of(dtype: PyDataType) -> PyResult<PyExpr> {
    let t: DataType = dtype.into_inner();
    let scalar = ScalarValue::try_from(&t).map_err(|e| crate::errors::to_py(e.into()))?;
    Ok(PyExpr::new(Expr::Literal(scalar, None)))
}

/// A Spark function by name.
#[pyfunction]
pub fn call(
    session: PyRef<'_, PySession>,
    name: &str,
    args: Vec<PyRef<'_, PyExpr>>,
) -> PyResult<PyExpr> {
    let state = session.inner.state();
    Ok(PyExpr::new(
        functions::call(&state, name, exprs(args)).py()?,
    ))
}

/// A parameter of a Python lambda given to a higher-order function.
#[pyfunction]
pub fn lambda_variable(name: &str) -> PyExpr {
    PyExpr::new(functions::higher_order::variable(name))
}

/// A higher-order function (`transform`, `aggregate`, `zip_with`, ...) of
/// `args` and its lambdas, each `(params, body)`.
#[pyfunction]
pub fn higher_order(
    session: PyRef<'_, PySession>,
    name: &str,
    args: Vec<PyRef<'_, PyExpr>>,
    lambdas: Vec<(Vec<String>, PyRef<'_, PyExpr>)>,
) -> PyResult<PyExpr> {
    let state = session.inner.state();
    let lambdas = lambdas
        .into_iter()
        .map(|(params, body)| (params, body.expr.clone()))
        .collect();
    functions::higher_order::call(&state, name, exprs(args), lambdas)
        .map(PyExpr::new)
        .py()
}

/// The library that implements Spark's function `name` (the docs' coverage table).
#[pyfunction]
pub fn function_implementation(name: &str) -> Option<&'static str> {
    functions::implementation_of(name)
}

/// `F.when(cond, value)`.
#[pyfunction]
pub fn case_when(cond: PyRef<'_, PyExpr>, value: PyRef<'_, PyExpr>) -> PyResult<PyExpr> {
    functions::column::when(cond.expr.clone(), value.expr.clone())
        .map(PyExpr::new)
        .py()
}

/// `F.expr(text)`.
#[pyfunction]
pub fn sql_expr(text: &str) -> PyExpr {
    PyExpr::new(dataframe::sql_text(text))
}

/// `F.explode(col)`.
#[pyfunction]
#[pyo3(signature = (e, kind = "explode"))]
pub fn explode(e: PyRef<'_, PyExpr>, kind: &str) -> PyResult<PyExpr> {
    dataframe::generator(e.expr.clone(), kind)
        .map(PyExpr::new)
        .py()
}

/// `F.stack(n, *cols)`.
#[pyfunction]
pub fn stack(session: PyRef<'_, PySession>, args: Vec<PyRef<'_, PyExpr>>) -> PyResult<PyExpr> {
    let state = session.inner.state();
    dataframe::stack(&state, exprs(args)).map(PyExpr::new).py()
}

/// `col.alias(a, b, ...)`: the names of a generator's columns.
#[pyfunction]
pub fn multi_alias(e: PyRef<'_, PyExpr>, names: Vec<String>) -> PyExpr {
    let joined = names.join(&dataframe::MULTI_ALIAS_SEPARATOR.to_string());
    PyExpr::new(e.expr.clone().alias(joined))
}

/// `F.from_json(col, schema)`.
#[pyfunction]
pub fn from_json(e: PyRef<'_, PyExpr>, dtype: PyDataType) -> PyExpr {
    let udf = datafusion::logical_expr::ScalarUDF::new_from_impl(
        sparklet_engine::functions::udfs::FromJson::new(dtype.into_inner()),
    );
    PyExpr::new(udf.call(vec![e.expr.clone()]))
}
