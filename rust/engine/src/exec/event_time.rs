//! Event times as the stateful operators read them: a timestamp column as
//! µs, an event-time key's times (a timestamp, or a window's `end`), a
//! window's starts.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Int64Type, TimeUnit};

use crate::error::{Error, Result};

/// A timestamp column as µs values.
pub(crate) fn micros(a: &ArrayRef) -> Result<Vec<Option<i64>>> {
    Ok(micros_array(a)?
        .as_primitive::<Int64Type>()
        .iter()
        .collect())
}

/// A timestamp column as an `Int64` array of µs.
pub(crate) fn micros_array(a: &ArrayRef) -> Result<ArrayRef> {
    let c = cast(a, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
    Ok(cast(&c, &DataType::Int64)?)
}

/// The column holding an event-time key's times: the key itself (a
/// timestamp), or a window's `end`.
pub(crate) fn event_time_column(col: &ArrayRef) -> Result<&ArrayRef> {
    match col.as_struct_opt() {
        Some(st) => st
            .column_by_name("end")
            .ok_or_else(|| Error::Internal("window key has no end".into())),
        None => Ok(col),
    }
}

/// Event times (µs) of an event-time column: a timestamp, or a window's `end`.
pub(crate) fn event_times(col: &ArrayRef) -> Result<Vec<Option<i64>>> {
    micros(event_time_column(col)?)
}

/// The `start`s of a window struct column, in µs.
pub(crate) fn window_starts(col: &ArrayRef) -> Result<Vec<Option<i64>>> {
    let st = col
        .as_struct_opt()
        .ok_or_else(|| Error::Internal("window key is not a struct".into()))?;
    let mut starts = micros(st.column(0))?;
    for (i, s) in starts.iter_mut().enumerate() {
        if st.is_null(i) {
            *s = None;
        }
    }
    Ok(starts)
}
