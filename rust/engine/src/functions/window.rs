//! Event-time windows: `window(ts, size, slide, start)` (a `start`/`end`
//! struct), its sliding form (a list of the windows containing the row, which
//! `select`/`groupBy` explode), and `window_time(window)`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array, StructArray, TimestampMicrosecondArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Fields, Int64Type, TimeUnit};
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

fn ts_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// Spark's window struct: `struct<start: timestamp, end: timestamp>`.
pub fn window_type() -> DataType {
    DataType::Struct(window_fields())
}

fn window_fields() -> Fields {
    Fields::from(vec![
        Field::new("start", ts_type(), true),
        Field::new("end", ts_type(), true),
    ])
}

/// A timestamp column as µs since the epoch (UTC); `what` names the caller.
fn timestamp_micros(a: &ArrayRef, what: &str) -> DFResult<Int64Array> {
    match a.data_type() {
        DataType::Timestamp(_, _) => Ok(cast(&cast(a, &ts_type())?, &DataType::Int64)?
            .as_primitive::<Int64Type>()
            .clone()),
        other => Err(DataFusionError::Plan(format!(
            "{what} needs a timestamp column, got {other}"
        ))),
    }
}

/// A `window` struct array from start and end microseconds.
pub(crate) fn window_struct(
    starts: TimestampMicrosecondArray,
    ends: TimestampMicrosecondArray,
    nulls: Option<arrow::buffer::NullBuffer>,
) -> DFResult<StructArray> {
    Ok(StructArray::try_new(
        window_fields(),
        vec![
            Arc::new(starts.with_timezone("UTC")),
            Arc::new(ends.with_timezone("UTC")),
        ],
        nulls,
    )?)
}

/// Durations in µs, one per row: numbers of µs (as the DataFrame API
/// passes them), interval literals (`INTERVAL 10 SECONDS`) or text
/// (`'10 seconds'`).
fn durations_us(a: &ArrayRef, name: &str) -> DFResult<Vec<Option<i64>>> {
    use arrow::datatypes::{IntervalDayTimeType, IntervalMonthDayNanoType, IntervalUnit};
    Ok(match a.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let text = cast(a, &DataType::Utf8)?;
            text.as_string::<i32>()
                .iter()
                .map(|v| {
                    v.map(|s| {
                        crate::engine::trigger::parse_duration_ms(s)
                            .map(|ms| ms * 1000)
                            .map_err(|e| DataFusionError::Plan(format!("{name}: {e}")))
                    })
                    .transpose()
                })
                .collect::<DFResult<_>>()?
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => a
            .as_primitive::<IntervalMonthDayNanoType>()
            .iter()
            .map(|v| {
                v.map(|v| {
                    if v.months != 0 {
                        return Err(DataFusionError::Plan(format!(
                            "{name}: a window cannot be measured in months (their length varies)"
                        )));
                    }
                    Ok(v.days as i64 * 86_400_000_000 + v.nanoseconds / 1000)
                })
                .transpose()
            })
            .collect::<DFResult<_>>()?,
        DataType::Interval(IntervalUnit::DayTime) => a
            .as_primitive::<IntervalDayTimeType>()
            .iter()
            .map(|v| v.map(|v| v.days as i64 * 86_400_000_000 + v.milliseconds as i64 * 1000))
            .collect(),
        _ => cast(a, &DataType::Int64)?
            .as_primitive::<Int64Type>()
            .iter()
            .collect(),
    })
}

/// A constant duration argument in µs (see [`durations_us`]).
fn duration_us(a: &ArrayRef, name: &str) -> DFResult<i64> {
    durations_us(a, name)?
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| DataFusionError::Plan(format!("{name}: durations must not be null")))
}

/// A window function's arguments as arrays: the time column at full
/// length, the durations (literals) as one value each: only their first is
/// read, and a literal expanded to every row cost a fill and a parse per row.
fn window_arrays(a: &ScalarFunctionArgs) -> DFResult<Vec<ArrayRef>> {
    a.args
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            ColumnarValue::Array(arr) if i > 0 => Ok(arr.slice(0, arr.len().min(1))),
            ColumnarValue::Scalar(s) if i > 0 => s.to_array(),
            v => v.to_array(a.number_rows),
        })
        .collect()
}

/// `(ts, size[, slide[, start]])` as µs values (the slide defaults to the
/// size, the start to 0).
fn args(args: &[ArrayRef], name: &str) -> DFResult<(Int64Array, i64, i64, i64)> {
    if !(2..=4).contains(&args.len()) {
        return Err(DataFusionError::Plan(format!(
            "{name} expects (timeColumn, windowDuration[, slideDuration[, startTime]])"
        )));
    }
    let ts = timestamp_micros(&args[0], "window")?;
    if ts.is_empty() {
        // no rows (constant arguments come as empty arrays too): no windows
        return Ok((ts, 1, 1, 0));
    }
    let size = duration_us(&args[1], name)?;
    let slide = match args.get(2) {
        Some(a) => duration_us(a, name)?,
        None => size,
    };
    let start = match args.get(3) {
        Some(a) => duration_us(a, name)?,
        None => 0,
    };
    if size <= 0 || slide <= 0 {
        return Err(DataFusionError::Plan(format!(
            "{name}: window and slide durations must be positive"
        )));
    }
    if slide > size {
        return Err(DataFusionError::Plan(format!(
            "The slide duration ({slide} µs) must be less than or equal to the windowDuration ({size} µs)."
        )));
    }
    Ok((ts, size, slide, start))
}

/// The element field of a list of windows.
fn window_item() -> Arc<Field> {
    Arc::new(Field::new("item", window_type(), true))
}

/// Each row's windows (`starts`/`ends`, row `i`'s from `offsets[i]` to
/// `offsets[i + 1]`) as a list column; a null `ts` row is a null list.
fn window_lists(
    starts: Vec<i64>,
    ends: Vec<i64>,
    offsets: Vec<i32>,
    ts: &Int64Array,
) -> DFResult<ColumnarValue> {
    let st = window_struct(starts.into(), ends.into(), None)?;
    let list = arrow::array::ListArray::try_new(
        window_item(),
        arrow::buffer::OffsetBuffer::new(offsets.into()),
        Arc::new(st),
        ts.nulls().cloned(),
    )?;
    Ok(ColumnarValue::Array(Arc::new(list)))
}

/// Start of the last window (of step `slide`, offset `start`) containing `ts`.
pub(crate) fn last_start(ts: i64, slide: i64, start: i64) -> i64 {
    ts - (ts - start).rem_euclid(slide)
}

/// For each `ts`, the window of `width` starting at the last multiple of
/// `step` (offset `start`) at or before it. A tight loop over the values;
/// nulls are carried by the null buffer.
fn aligned_windows(ts: &Int64Array, step: i64, width: i64, start: i64) -> DFResult<ColumnarValue> {
    let nulls = ts.nulls().cloned();
    // event times arrive mostly in order: a row in the window of the row
    // before it takes that start, without an i64 division by a step known
    // only at run time
    let mut current: Option<i64> = None;
    let starts_v: Vec<i64> = ts
        .values()
        .iter()
        .map(|&t| match current {
            // unsigned: the distance from a window before 0 to a time near
            // the range's end does not fit an i64
            Some(c) if t >= c && (t.wrapping_sub(c) as u64) < step as u64 => c,
            _ => {
                let s = last_start(t, step, start);
                current = Some(s);
                s
            }
        })
        .collect();
    // saturating: a time near the end of the range has no later end
    let ends_v: Vec<i64> = starts_v.iter().map(|s| s.saturating_add(width)).collect();
    let starts = TimestampMicrosecondArray::new(starts_v.into(), nulls.clone());
    let ends = TimestampMicrosecondArray::new(ends_v.into(), nulls.clone());
    Ok(ColumnarValue::Array(Arc::new(window_struct(
        starts, ends, nulls,
    )?)))
}

/// `window(ts, size, slide, start)` (the window holding `ts`, one per row),
/// and `window_pane(ts, size, slide, start)`: the pane of a sliding window
/// holding `ts`. A streaming aggregation over sliding windows groups rows by
/// pane and merges each pane into its windows in the state (one aggregation
/// pass over the input instead of one per overlapping window).
#[derive(Debug, PartialEq, Eq, Hash)]
struct Fixed {
    signature: Signature,
    pane: bool,
}

impl ScalarUDFImpl for Fixed {
    fn name(&self) -> &str {
        if self.pane {
            "window_pane"
        } else {
            "window"
        }
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(window_type())
    }
    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = window_arrays(&a)?;
        let (ts, size, slide, start) = args(&arrays, "window")?;
        if self.pane {
            let width = pane_width(size, slide);
            aligned_windows(&ts, width, width, start)
        } else if slide != size {
            // one value per row cannot hold a row's several sliding windows
            Err(DataFusionError::Plan(
                "window(ts, size, slide) with a slide shorter than the window puts each row in several windows: \
                 in SQL write HOP(TABLE t, DESCRIPTOR(ts), slide, size) in FROM and group by window_start, window_end; \
                 in the DataFrame API, F.window(ts, size, slide)"
                    .into(),
            ))
        } else {
            aligned_windows(&ts, slide, size, start)
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Sliding {
    signature: Signature,
}

impl ScalarUDFImpl for Sliding {
    fn name(&self) -> &str {
        "window_list"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::List(window_item()))
    }
    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = window_arrays(&a)?;
        let (ts, size, slide, start) = args(&arrays, "window")?;
        // flat start/end vectors plus list offsets: no per-value builder calls
        let overlapping = (size + slide - 1) / slide;
        let mut starts: Vec<i64> = Vec::with_capacity(ts.len() * overlapping as usize);
        let mut offsets: Vec<i32> = Vec::with_capacity(ts.len() + 1);
        offsets.push(0);
        for (i, t) in ts.values().iter().enumerate() {
            if ts.is_valid(i) {
                let last = last_start(*t, slide, start);
                // Spark's order: the earliest window first
                for k in (0..overlapping).rev() {
                    let ws = last - k * slide;
                    if ws <= *t && *t < ws.saturating_add(size) {
                        starts.push(ws);
                    }
                }
            }
            offsets.push(starts.len() as i32);
        }
        let ends: Vec<i64> = starts.iter().map(|s| s.saturating_add(size)).collect();
        window_lists(starts, ends, offsets, &ts)
    }
}

/// Width of the panes a sliding window is cut into: every window is a whole
/// number of panes and every pane lies wholly inside each window covering it.
pub fn pane_width(size: i64, slide: i64) -> i64 {
    let (mut a, mut b) = (size, slide);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Starts of the windows (of `size` every `slide`, offset `start`) that hold
/// the pane beginning at `pane_start`, earliest first.
pub fn windows_of_pane(pane_start: i64, size: i64, slide: i64, start: i64) -> Vec<i64> {
    let pane_end = pane_start + pane_width(size, slide);
    let mut ws = last_start(pane_start, slide, start);
    let mut out = Vec::with_capacity((size / slide) as usize + 1);
    while ws + size >= pane_end {
        out.push(ws);
        ws -= slide;
    }
    out.reverse();
    out
}

/// `window_cumulate(ts, step, size, start)`: the cumulating windows holding
/// `ts` (Flink's CUMULATE): within each `size`-long period, the windows
/// from the period's start growing by `step`, `[p, p + step)`, `[p, p +
/// 2 step)` ... up to `[p, p + size)`; a row is in those ending after it.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Cumulate {
    signature: Signature,
}

impl ScalarUDFImpl for Cumulate {
    fn name(&self) -> &str {
        "window_cumulate"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::List(window_item()))
    }
    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = window_arrays(&a)?;
        // (ts, step, size, start): `args` reads (ts, size, slide, start)
        let (ts, size, step, start) = match arrays.len() {
            3 | 4 => {
                let mut swapped = arrays.clone();
                swapped.swap(1, 2);
                args(&swapped, "CUMULATE")?
            }
            _ => {
                return Err(DataFusionError::Plan(
                    "CUMULATE expects (timeColumn, step, maxSize[, offset])".into(),
                ))
            }
        };
        if size % step != 0 {
            return Err(DataFusionError::Plan(format!(
                "CUMULATE: the max size ({size} µs) must be a multiple of the step ({step} µs)"
            )));
        }
        let mut starts: Vec<i64> = Vec::with_capacity(ts.len() * (size / step) as usize);
        let mut ends: Vec<i64> = Vec::with_capacity(starts.capacity());
        let mut offsets: Vec<i32> = Vec::with_capacity(ts.len() + 1);
        offsets.push(0);
        for (i, t) in ts.values().iter().enumerate() {
            if ts.is_valid(i) {
                let period = last_start(*t, size, start);
                // the smallest window ending after t, then each larger one
                let mut end = period + ((*t - period) / step + 1) * step;
                while end <= period + size {
                    starts.push(period);
                    ends.push(end);
                    end += step;
                }
            }
            offsets.push(starts.len() as i32);
        }
        window_lists(starts, ends, offsets, &ts)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct WindowTime {
    signature: Signature,
}

impl ScalarUDFImpl for WindowTime {
    fn name(&self) -> &str {
        "window_time"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(ts_type())
    }
    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&a.args)?;
        let st = arrays[0]
            .as_struct_opt()
            .ok_or_else(|| DataFusionError::Plan("window_time expects a window column".into()))?;
        let end = st.column_by_name("end").ok_or_else(|| {
            DataFusionError::Plan("window_time expects a window column with an `end`".into())
        })?;
        let end = cast(&cast(end, &ts_type())?, &DataType::Int64)?;
        let out: TimestampMicrosecondArray = end
            .as_primitive::<Int64Type>()
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if st.is_null(i) {
                    None
                } else {
                    v.map(|e| e - 1)
                }
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out.with_timezone("UTC"))))
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Session {
    signature: Signature,
}

impl ScalarUDFImpl for Session {
    fn name(&self) -> &str {
        "session_window"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(window_type())
    }
    /// A row's own session `[ts, ts + gap)`; the aggregation merges overlapping ones.
    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&a.args)?;
        if arrays.len() != 2 {
            return Err(DataFusionError::Plan(
                "session_window expects (timeColumn, gapDuration)".into(),
            ));
        }
        let ts = timestamp_micros(&arrays[0], "session_window")?;
        // the gap: per row, µs, an interval or text like "10 seconds"
        let gaps = durations_us(&arrays[1], "session_window")?;
        let mut starts = Vec::with_capacity(ts.len());
        let mut ends = Vec::with_capacity(ts.len());
        let mut valid = Vec::with_capacity(ts.len());
        for (i, g) in gaps.iter().enumerate() {
            // Spark drops rows whose gap is not positive
            let ok = ts.is_valid(i) && g.is_some_and(|g| g > 0);
            let t = ts.value(i);
            starts.push(t);
            ends.push(t.saturating_add(g.unwrap_or(0)));
            valid.push(ok);
        }
        let st = window_struct(starts.into(), ends.into(), Some(valid.into()))?;
        Ok(ColumnarValue::Array(Arc::new(st)))
    }
}

/// `window_pane` (see [`Fixed`]).
pub fn pane_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(Fixed {
        signature: Signature::variadic_any(Volatility::Immutable),
        pane: true,
    })
}

/// The window UDFs, for registration in a session.
pub fn all() -> Vec<ScalarUDF> {
    let sig = || Signature::variadic_any(Volatility::Immutable);
    vec![
        ScalarUDF::new_from_impl(Fixed {
            signature: sig(),
            pane: false,
        }),
        ScalarUDF::new_from_impl(Sliding { signature: sig() }),
        ScalarUDF::new_from_impl(Cumulate { signature: sig() }),
        pane_udf(),
        ScalarUDF::new_from_impl(WindowTime { signature: sig() }),
        ScalarUDF::new_from_impl(Session { signature: sig() }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int64Array};
    use arrow::datatypes::TimestampMicrosecondType;

    #[test]
    fn window_starts_hold_for_times_out_of_order_and_before_the_epoch() -> DFResult<()> {
        // back and forth across windows, on both sides of 0, with an offset
        let ts = Int64Array::from(vec![
            Some(12),
            Some(13),
            Some(9),
            None,
            Some(-1),
            Some(-10),
            Some(12),
            Some(20),
            Some(19),
            Some(i64::MAX),
            Some(-10),
            Some(i64::MAX - 1),
        ]);
        let ColumnarValue::Array(w) = aligned_windows(&ts, 10, 10, 3)? else {
            panic!("an array of windows");
        };
        let starts = w
            .as_struct()
            .column(0)
            .as_primitive::<TimestampMicrosecondType>();
        for (i, t) in ts.iter().enumerate() {
            match t {
                Some(t) => assert_eq!(starts.value(i), last_start(t, 10, 3), "row {i}"),
                None => assert!(starts.is_null(i)),
            }
        }
        assert_eq!(starts.value(0), 3);
        assert_eq!(starts.value(4), -7);
        assert_eq!(starts.value(7), 13);
        // the last time's window cannot end later than the range does
        let ends = w
            .as_struct()
            .column(1)
            .as_primitive::<TimestampMicrosecondType>();
        assert_eq!(ends.value(9), i64::MAX);
        assert_eq!(ends.value(0), 13);
        Ok(())
    }
}
