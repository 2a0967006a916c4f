//! `format("console")`: prints each batch as Spark does, to a writer the
//! bindings choose (Python's `sys.stdout`, so output shows in notebooks).

use arrow::array::{Array, AsArray};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::{Sink, SinkBatch};
use crate::error::Result;

/// Where console output goes.
pub type ConsoleWriter = Box<dyn FnMut(&str) -> Result<()> + Send>;

/// Prints `numRows` rows per batch, truncating cells to 20 characters
/// unless `truncate` is false.
pub struct ConsoleSink {
    num_rows: usize,
    truncate: bool,
    out: ConsoleWriter,
}

impl ConsoleSink {
    /// A console sink writing through `out`.
    pub fn new(num_rows: usize, truncate: bool, out: ConsoleWriter) -> Self {
        ConsoleSink {
            num_rows,
            truncate,
            out,
        }
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
    if let Some(list) = array.as_list_opt::<i32>() {
        let values = list.value(row);
        let parts = (0..values.len())
            .map(|i| cell(values.as_ref(), i, opts))
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("[{}]", parts.join(", ")));
    }
    Ok(ArrayFormatter::try_new(array, opts)?.value(row).to_string())
}

/// Render rows like Spark's `Dataset.show`: a `+---+` framed table, cells
/// truncated to 20 characters, and a "only showing top N rows" footer.
pub fn render_show(data: &SinkBatch, num_rows: usize, truncate: bool) -> Result<String> {
    let names: Vec<String> = data
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let total = data.num_rows();
    // Spark renders timestamps as `2026-11-29 10:02:03[.123]` and nulls as NULL
    let opts = FormatOptions::default()
        .with_null("NULL")
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    'outer: for batch in &data.batches {
        for r in 0..batch.num_rows() {
            if rows.len() >= num_rows {
                break 'outer;
            }
            rows.push(
                batch
                    .columns()
                    .iter()
                    .map(|c| {
                        let s = cell(c.as_ref(), r, &opts)?;
                        Ok(if truncate && s.chars().count() > 20 {
                            format!("{}...", s.chars().take(17).collect::<String>())
                        } else {
                            s
                        })
                    })
                    .collect::<Result<Vec<String>>>()?,
            );
        }
    }
    let widths: Vec<usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([n.chars().count(), 3])
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
                let pad = w - c.chars().count();
                if truncate {
                    format!("{}{}", " ".repeat(pad), c)
                } else {
                    format!("{}{}", c, " ".repeat(pad))
                }
            })
            .collect();
        format!("|{}|\n", padded.join("|"))
    };
    let mut out = String::new();
    out.push_str(&sep);
    out.push_str(&line(&names));
    out.push_str(&sep);
    for r in &rows {
        out.push_str(&line(r));
    }
    out.push_str(&sep);
    if total > rows.len() {
        let noun = if rows.len() == 1 { "row" } else { "rows" };
        out.push_str(&format!("only showing top {} {noun}\n", rows.len()));
    }
    Ok(out)
}

impl Sink for ConsoleSink {
    fn description(&self) -> String {
        format!("org.apache.spark.sql.execution.streaming.ConsoleTable$@sparklet[numRows={}, truncate={}]", self.num_rows, self.truncate)
    }

    fn add_batch(&mut self, batch_id: i64, data: SinkBatch) -> Result<()> {
        let header = format!("-------------------------------------------\nBatch: {batch_id}\n-------------------------------------------\n");
        let table = render_show(&data, self.num_rows, self.truncate)?;
        (self.out)(&format!("{header}{table}\n"))
    }
    fn supports_real_time(&self) -> bool {
        true
    }
    fn supports_async_progress(&self) -> bool {
        true
    }
}
