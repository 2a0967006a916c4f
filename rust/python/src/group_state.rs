//! The user's `applyInPandasWithState` function as the engine calls it:
//! one call into Python per micro-batch (the GIL taken only for it), with
//! the batch's groups as pyarrow tables; the Python side
//! (`sparklet.sql.streaming.state._run_groups`) loops over the groups.

use arrow::array::RecordBatch;
use pyo3::prelude::*;
use pyo3_arrow::PyTable;
use sparklet_engine::exec::group_state::{GroupFunction, Groups, GroupsDone};
use sparklet_engine::Error;

use crate::arrow_table::to_pyarrow;
use crate::errors::worker_error;

/// Calls `runner(batch_id, data, offsets, keys, states, watermark_ms,
/// processing_time_ms)`, which returns `(output, states, new_keys)` tables
/// (`new_keys` None unless the call created states for other keys).
pub struct PyGroupFunction {
    pub runner: Py<PyAny>,
}

/// A table's batches as one record batch.
fn one_batch(table: PyTable) -> Result<RecordBatch, Error> {
    let (batches, schema) = table.into_inner();
    Ok(arrow::compute::concat_batches(&schema, &batches)?)
}

impl GroupFunction for PyGroupFunction {
    fn call(&self, g: Groups) -> Result<GroupsDone, Error> {
        crate::errors::attach_from_engine(|py| {
            let run = || -> PyResult<(PyTable, PyTable, Option<PyTable>)> {
                let data = to_pyarrow(py, vec![g.data.clone()], g.data.schema())?;
                let keys = to_pyarrow(py, vec![g.keys.clone()], g.keys.schema())?;
                let states = to_pyarrow(py, vec![g.states.clone()], g.states.schema())?;
                let out = self.runner.call1(
                    py,
                    (
                        g.batch_id,
                        data,
                        g.offsets.clone(),
                        keys,
                        states,
                        g.watermark_ms,
                        g.processing_time_ms,
                    ),
                )?;
                out.extract::<(PyTable, PyTable, Option<PyTable>)>(py)
            };
            let (output, states, new_keys) = run().map_err(|e| worker_error(py, e))?;
            let (output, _) = output.into_inner();
            Ok(GroupsDone {
                output,
                states: one_batch(states)?,
                new_keys: new_keys.map(one_batch).transpose()?,
            })
        })
    }
}
