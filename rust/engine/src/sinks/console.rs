//! `format("console")`: prints each batch as Spark does, to a writer the
//! bindings choose (Python's `sys.stdout`, so output shows in notebooks).

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::{Sink, SinkBatch};
use crate::error::Result;

/// Where console output goes.
pub type ConsoleWriter = Box<dyn FnMut(&str) -> Result<()> + Send>;

/// Prints `numRows` rows per batch, truncating cells to 20 characters
/// unless `truncate` is false; timestamps in the session time zone.
pub struct ConsoleSink {
    num_rows: usize,
    truncate: bool,
    time_zone: Option<String>,
    out: ConsoleWriter,
}

impl ConsoleSink {
    /// A console sink writing through `out`, timestamps shown in `time_zone`.
    pub fn new(
        num_rows: usize,
        truncate: bool,
        time_zone: Option<String>,
        out: ConsoleWriter,
    ) -> Self {
        ConsoleSink {
            num_rows,
            truncate,
            time_zone,
            out,
        }
    }
}

/// A timestamp column as wall-clock time in `time_zone` (Spark shows
/// timestamps in the session time zone); other columns as they are.
fn in_time_zone(column: &ArrayRef, time_zone: Option<&str>) -> Result<ArrayRef> {
    use arrow::datatypes::DataType;
    match (column.data_type(), time_zone) {
        (DataType::Timestamp(unit, Some(_)), Some(tz)) => {
            let zone = crate::formats::datetime::java_zone_name(tz);
            let shown = DataType::Timestamp(*unit, Some(zone.into()));
            Ok(arrow::compute::cast(column, &shown)?)
        }
        _ => Ok(std::sync::Arc::clone(column)),
    }
}

/// One value as Spark shows it: structs as `{a, b}`, arrays as `[a, b]`.
fn cell(array: &dyn Array, row: usize, opts: &FormatOptions) -> Result<String> {
    if array.is_null(row) {
        return Ok("NULL".to_string());
    }
    if let Some(st) = array.as_struct_opt() {
        let parts = st
            .columns()
            .iter()
            .map(|c| cell(c.as_ref(), row, opts))
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("{{{}}}", parts.join(", ")));
    }
    if let Some(map) = array.as_map_opt() {
        let entries = map.value(row);
        let (keys, values) = (entries.column(0), entries.column(1));
        let parts = (0..entries.len())
            .map(|i| {
                Ok(format!(
                    "{} -> {}",
                    cell(keys.as_ref(), i, opts)?,
                    cell(values.as_ref(), i, opts)?
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("{{{}}}", parts.join(", ")));
    }
    if let Some(text) = spark_scalar_text(array, row) {
        return Ok(text);
    }
    if let Some(list) = array.as_list_opt::<i32>() {
        let values = list.value(row);
        let parts = (0..values.len())
            .map(|i| cell(values.as_ref(), i, opts))
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("[{}]", parts.join(", ")));
    }
    let text = ArrayFormatter::try_new(array, opts)?.value(row).to_string();
    Ok(match array.data_type() {
        // `%.f` writes 3, 6 or 9 digits; Spark drops trailing zeros (`.5`)
        arrow::datatypes::DataType::Timestamp(..) if text.contains('.') => {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        _ => text,
    })
}

/// Values Spark prints otherwise than Arrow: doubles as Java prints them
/// (`Infinity`, `1.0E10`), binary as `[41 42]`, intervals as Spark's.
fn spark_scalar_text(array: &dyn Array, row: usize) -> Option<String> {
    use crate::plan::spark_names::{java_double, java_float};
    use arrow::datatypes::{
        DataType, Float32Type, Float64Type, IntervalMonthDayNanoType, TimeUnit,
    };
    Some(match array.data_type() {
        DataType::Float64 => java_double(array.as_primitive::<Float64Type>().value(row)),
        DataType::Float32 => java_float(array.as_primitive::<Float32Type>().value(row)),
        DataType::Binary => {
            let bytes = array.as_binary::<i32>().value(row);
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
            format!("[{}]", hex.join(" "))
        }
        DataType::Duration(TimeUnit::Microsecond) => day_time_interval(
            array
                .as_primitive::<arrow::datatypes::DurationMicrosecondType>()
                .value(row),
        ),
        DataType::Time64(TimeUnit::Microsecond) => time_of_day(
            array
                .as_primitive::<arrow::datatypes::Time64MicrosecondType>()
                .value(row),
        ),
        DataType::Interval(arrow::datatypes::IntervalUnit::MonthDayNano) => {
            let v = array.as_primitive::<IntervalMonthDayNanoType>().value(row);
            calendar_interval(v.months, v.days, v.nanoseconds / 1_000)
        }
        _ => return None,
    })
}

/// `13:45:30.5`: a time of day as Spark shows it, the fraction without
/// trailing zeros.
fn time_of_day(micros: i64) -> String {
    let secs = micros / 1_000_000;
    format!(
        "{:02}:{:02}:{:02}{}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        fraction(micros.unsigned_abs() % 1_000_000)
    )
}

/// `INTERVAL '1 12:30:01.001001' DAY TO SECOND`, as Spark shows a
/// day-time interval.
fn day_time_interval(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    let (days, rest) = (m / 86_400_000_000, m % 86_400_000_000);
    let (h, rest) = (rest / 3_600_000_000, rest % 3_600_000_000);
    let (min, rest) = (rest / 60_000_000, rest % 60_000_000);
    let (sec, frac) = (rest / 1_000_000, rest % 1_000_000);
    let frac = fraction(frac);
    format!("INTERVAL '{sign}{days} {h:02}:{min:02}:{sec:02}{frac}' DAY TO SECOND")
}

/// `.5` for 500000 microseconds: a second's fraction as Spark shows it,
/// without trailing zeros (nothing for none).
fn fraction(micros: u64) -> String {
    match micros {
        0 => String::new(),
        f => format!(".{f:06}").trim_end_matches('0').to_string(),
    }
}

/// `1 years 2 months 3 days 4 hours 5 minutes 6.5 seconds`, as Spark shows
/// a calendar interval (zero parts left out).
fn calendar_interval(months: i32, days: i32, micros: i64) -> String {
    let mut parts = Vec::new();
    let mut push = |n: i64, unit: &str| {
        if n != 0 {
            parts.push(format!("{n} {unit}"));
        }
    };
    push((months / 12) as i64, "years");
    push((months % 12) as i64, "months");
    push(days as i64, "days");
    push(micros / 3_600_000_000, "hours");
    push(micros % 3_600_000_000 / 60_000_000, "minutes");
    let secs = micros % 60_000_000;
    if secs != 0 {
        let text = format!("{}.{:06}", secs / 1_000_000, (secs % 1_000_000).abs());
        parts.push(format!(
            "{} seconds",
            text.trim_end_matches('0').trim_end_matches('.')
        ));
    }
    if parts.is_empty() {
        return "0 seconds".into();
    }
    parts.join(" ")
}

/// The first `num_rows` rows' cells as `show()` prints them (cut to
/// `truncate` characters, 0: whole): what a notebook's table shows too.
pub fn show_cells(
    data: &SinkBatch,
    num_rows: usize,
    truncate: usize,
    time_zone: Option<&str>,
) -> Result<Vec<Vec<String>>> {
    let cut = |s: String| -> String {
        let n = s.chars().count();
        match truncate {
            0 => s,
            t if n <= t => s,
            t if t < 4 => s.chars().take(t).collect(),
            t => format!("{}...", s.chars().take(t - 3).collect::<String>()),
        }
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    // Spark renders timestamps as `2026-11-29 10:02:03[.123]` and nulls as NULL
    let opts = FormatOptions::default()
        .with_null("NULL")
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    'outer: for batch in &data.batches {
        let columns = batch
            .columns()
            .iter()
            .map(|c| in_time_zone(c, time_zone))
            .collect::<Result<Vec<_>>>()?;
        for r in 0..batch.num_rows() {
            if rows.len() >= num_rows {
                break 'outer;
            }
            rows.push(
                columns
                    .iter()
                    .map(|c| cell(c.as_ref(), r, &opts).map(cut))
                    .collect::<Result<Vec<String>>>()?,
            );
        }
    }
    Ok(rows)
}

/// Render rows like Spark's `Dataset.show`: a `+---+` framed table (or,
/// `vertical`, a `-RECORD i-` block per row), cells cut to
/// `truncate` characters (0: whole; under 4: without the `...`), and a
/// "only showing top N rows" footer (Spark's `showString`).
pub fn render_show(
    data: &SinkBatch,
    num_rows: usize,
    truncate: usize,
    vertical: bool,
    time_zone: Option<&str>,
) -> Result<String> {
    let names: Vec<String> = data
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let rows = show_cells(data, num_rows, truncate, time_zone)?;
    let total = data.num_rows();
    let width = |s: &String| s.chars().count();
    let mut out = if vertical {
        vertical_table(&names, &rows, width)
    } else {
        framed_table(&names, &rows, truncate > 0, width)
    };
    if total > rows.len() {
        let noun = if rows.len() == 1 { "row" } else { "rows" };
        // no line end after the footer: the caller's println adds it, as Spark's
        out.push_str(&format!("only showing top {} {noun}", rows.len()));
    }
    Ok(out)
}

/// `show()`'s table: right-aligned cells when truncating, else left-aligned.
fn framed_table(
    names: &[String],
    rows: &[Vec<String>],
    right: bool,
    width: impl Fn(&String) -> usize,
) -> String {
    let widths: Vec<usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            rows.iter()
                .map(|r| width(&r[i]))
                .chain([width(n), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let sep = format!(
        "+{}+\n",
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("+")
    );
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| {
                let pad = " ".repeat(w - width(c));
                if right {
                    format!("{pad}{c}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect();
        format!("|{}|\n", padded.join("|"))
    };
    let mut out = String::new();
    out.push_str(&sep);
    out.push_str(&line(names));
    out.push_str(&sep);
    for r in rows {
        out.push_str(&line(r));
    }
    out.push_str(&sep);
    out
}

/// `show(vertical=True)`: a `-RECORD i-` header per row, then ` name | value `.
fn vertical_table(
    names: &[String],
    rows: &[Vec<String>],
    width: impl Fn(&String) -> usize,
) -> String {
    let name_width = names.iter().map(&width).chain([3]).max().unwrap_or(3);
    let data_width = rows
        .iter()
        .flat_map(|r| r.iter().map(&width))
        .chain([3])
        .max()
        .unwrap_or(3);
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let header = format!("-RECORD {i}");
        let fill = (name_width + data_width + 5).saturating_sub(width(&header));
        out.push_str(&format!("{header}{}\n", "-".repeat(fill)));
        for (name, cell) in names.iter().zip(row) {
            let name_pad = " ".repeat(name_width - width(name));
            let cell_pad = " ".repeat(data_width - width(cell));
            out.push_str(&format!(" {name}{name_pad} | {cell}{cell_pad} \n"));
        }
    }
    if rows.is_empty() {
        out.push_str("(0 rows)\n");
    }
    out
}

impl Sink for ConsoleSink {
    fn description(&self) -> String {
        format!("org.apache.spark.sql.execution.streaming.ConsoleTable$@sparklet[numRows={}, truncate={}]", self.num_rows, self.truncate)
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        let header = format!("-------------------------------------------\nBatch: {batch_id}\n-------------------------------------------\n");
        let table = render_show(
            &data,
            self.num_rows,
            if self.truncate { 20 } else { 0 },
            false,
            self.time_zone.as_deref(),
        )?;
        (self.out)(&format!("{header}{table}\n"))
    }
    fn supports_real_time(&self) -> bool {
        true
    }
    fn supports_async_progress(&self) -> bool {
        true
    }
}
