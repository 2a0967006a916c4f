//! Handing results to Python as `pyarrow.Table`s.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3_arrow::PyTable;

/// `batches` as a `pyarrow.Table`, through the Arrow C stream interface.
///
/// Read with `RecordBatchReader.from_stream` rather than `pyarrow.table()`:
/// the latter first asks whether its argument is a pandas DataFrame, which
/// imports pandas (about 0.4 s) into a process that may never use it.
pub fn to_pyarrow(
    py: Python<'_>,
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
) -> PyResult<Bound<'_, PyAny>> {
    let stream = PyTable::try_new(batches, schema)?.into_pyobject(py)?;
    py.import(intern!(py, "pyarrow"))?
        .getattr(intern!(py, "RecordBatchReader"))?
        .call_method1(intern!(py, "from_stream"), (stream,))?
        .call_method0(intern!(py, "read_all"))
}
