//! `rate` and `rate-micro-batch` sources: generated `timestamp`, `value` rows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::datasource::MemTable;

use super::{parse_u64_option, BatchInput, Offset, Source, SourceContext, SourceFactory};
use crate::error::{Error, Result};

/// Spark's rate-source schema: `timestamp TIMESTAMP, value BIGINT`.
pub fn rate_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(
            "timestamp",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("value", DataType::Int64, true),
    ]))
}

fn now_ms() -> i64 {
    crate::engine::clock::Clock::System.now_ms()
}

/// Option `name` (keys lower-cased) as a non-negative integer, or `default`.
pub(super) fn option_u64(
    options: &HashMap<String, String>,
    name: &str,
    default: u64,
) -> Result<u64> {
    options
        .get(&name.to_ascii_lowercase())
        .map(|v| parse_u64_option(name, v))
        .transpose()
        .map(|v| v.unwrap_or(default))
}

fn rows_batch(values: std::ops::Range<i64>, ts_micros: impl Fn(i64) -> i64) -> Result<RecordBatch> {
    let ts: TimestampMicrosecondArray = values.clone().map(&ts_micros).collect::<Vec<_>>().into();
    let ts = ts.with_timezone("UTC");
    let vals: Int64Array = values.collect::<Vec<_>>().into();
    Ok(RecordBatch::try_new(
        rate_schema(),
        vec![Arc::new(ts), Arc::new(vals)],
    )?)
}

/// The source's start time: kept in its checkpoint folder (`sources/<n>/0`)
/// so a restarted query continues the same sequence without gaps or repeats.
pub(super) fn start_time(ctx: &SourceContext) -> Result<i64> {
    let Some(dir) = &ctx.metadata_dir else {
        return Ok(now_ms());
    };
    let path = dir.join("0");
    if path.exists() {
        let lines = crate::checkpoint::log::read_entries(&path)?;
        let first = lines
            .first()
            .ok_or_else(|| crate::checkpoint::log::corrupt(&path, "it has no start time"))?;
        return crate::checkpoint::log::parse_json(&path, first)?
            .get("startTimeMs")
            .and_then(|v| v.as_i64())
            .ok_or_else(|| crate::checkpoint::log::corrupt(&path, "it has no \"startTimeMs\""));
    }
    let start = now_ms();
    crate::checkpoint::log::write_entries(
        &path,
        &[serde_json::json!({ "startTimeMs": start }).to_string()],
        ctx.fsync,
    )?;
    Ok(start)
}

/// Options of `format("rate")` (option keys lower-cased).
#[derive(Debug)]
pub struct RateFactory {
    rows_per_second: u64,
    ramp_up_secs: u64,
    num_partitions: u64,
}

impl RateFactory {
    /// Validate the options as Spark does.
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        let rows_per_second = option_u64(options, "rowsPerSecond", 1)?;
        if rows_per_second == 0 {
            return Err(Error::illegal_argument(
                "Invalid value '0'. The option 'rowsPerSecond' must be positive",
            ));
        }
        let ramp_up_secs = match options.get("rampuptime") {
            Some(v) => crate::engine::trigger::parse_duration_ms(v)? as u64 / 1000,
            None => 0,
        };
        let num_partitions = option_u64(options, "numPartitions", 1)?;
        Ok(RateFactory {
            rows_per_second,
            ramp_up_secs,
            num_partitions,
        })
    }

    /// Rows generated in the first `secs` seconds (ramp-up grows linearly).
    fn rows_until(&self, secs: i64) -> i64 {
        let rps = self.rows_per_second as i64;
        let ramp = self.ramp_up_secs as i64;
        if secs <= 0 {
            return 0;
        }
        if ramp == 0 {
            return secs * rps;
        }
        let ramped = secs.min(ramp);
        // Spark ramps linearly: second s (1-based) of the ramp emits s * rps / ramp rows.
        let mut total = 0;
        for s in 1..=ramped {
            total += s * rps / ramp;
        }
        total + (secs - ramped).max(0) * rps
    }
}

impl SourceFactory for RateFactory {
    fn schema(&self) -> SchemaRef {
        rate_schema()
    }

    fn supports_real_time(&self) -> bool {
        true
    }

    fn create(&self, ctx: &SourceContext) -> Result<Box<dyn Source>> {
        if ctx.real_time && self.ramp_up_secs > 0 {
            return Err(Error::illegal_argument(
                "The rate source's rampUpTime is not supported in the real-time and continuous modes",
            ));
        }
        Ok(Box::new(RateSource {
            real_time: ctx.real_time,
            factory: RateFactory {
                rows_per_second: self.rows_per_second,
                ramp_up_secs: self.ramp_up_secs,
                num_partitions: self.num_partitions,
            },
            start_ms: start_time(ctx)?,
            cap: None,
        }))
    }
}

struct RateSource {
    factory: RateFactory,
    /// Offsets in ms (`{"elapsedMs": n}`): rows are released as their time
    /// comes, not a second at a time.
    real_time: bool,
    start_ms: i64,
    cap: Option<i64>,
}

impl Source for RateSource {
    fn description(&self) -> String {
        format!(
            "RateStreamV2[rowsPerSecond={}, rampUpTimeSeconds={}, numPartitions={}",
            self.factory.rows_per_second, self.factory.ramp_up_secs, self.factory.num_partitions
        )
    }

    fn schema(&self) -> SchemaRef {
        rate_schema()
    }

    /// The offset is whole seconds since the query started (ms in the
    /// real-time modes).
    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        if self.real_time {
            let ms = now_ms() - self.start_ms;
            return Ok((ms > 0).then(|| serde_json::json!({ "elapsedMs": ms })));
        }
        let mut secs = (now_ms() - self.start_ms) / 1000;
        if let Some(cap) = self.cap {
            secs = secs.min(cap);
        }
        // 0 at the start, as Spark's: a new query runs batch 0 at once (with
        // no rows), so processAllAvailable returns after a batch, not before
        Ok(Some(Offset::from(secs.max(0))))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        if let Some(to_ms) = end.get("elapsedMs").and_then(|v| v.as_i64()) {
            let from_ms = start
                .and_then(|o| o.get("elapsedMs"))
                .and_then(|v| v.as_i64())
                .unwrap_or(0);
            // row v is due at v / rowsPerSecond seconds after the start
            let rps = self.factory.rows_per_second as i64;
            let (first, last) = (from_ms * rps / 1000, to_ms * rps / 1000);
            let base_us = self.start_ms * 1000;
            let batch = rows_batch(first..last, |v| base_us + v * 1_000_000 / rps.max(1))?;
            let num_rows = batch.num_rows() as u64;
            return Ok(BatchInput {
                provider: Arc::new(MemTable::try_new(rate_schema(), vec![vec![batch]])?),
                num_rows,
            });
        }
        let from_sec = start.and_then(|o| o.as_i64()).unwrap_or(0);
        let to_sec = end.as_i64().unwrap_or(from_sec);
        let mut batches = Vec::new();
        let mut num_rows = 0u64;
        for sec in from_sec..to_sec {
            let first = self.factory.rows_until(sec);
            let last = self.factory.rows_until(sec + 1);
            let n = (last - first).max(1);
            let base_ms = self.start_ms + sec * 1000;
            let batch = rows_batch(first..last, |v| (base_ms + (v - first) * 1000 / n) * 1000)?;
            num_rows += batch.num_rows() as u64;
            batches.push(batch);
        }
        Ok(BatchInput {
            provider: Arc::new(MemTable::try_new(rate_schema(), vec![batches])?),
            num_rows,
        })
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        self.cap = Some((now_ms() - self.start_ms) / 1000);
        Ok(())
    }

    /// The next whole second since the start (the next millisecond in the
    /// real-time modes).
    fn next_due(&self) -> Option<std::time::Duration> {
        if self.cap.is_some() {
            return None;
        }
        let elapsed = now_ms() - self.start_ms;
        let step = if self.real_time { 1 } else { 1000 };
        let next = (elapsed.div_euclid(step) + 1) * step;
        Some(super::until_ms(self.start_ms + next))
    }
}

/// Options of `format("rate-micro-batch")`: a fixed number of rows per batch,
/// with event time advancing by a fixed step, so runs are reproducible.
#[derive(Debug, Clone)]
pub struct RateMicroBatchFactory {
    rows_per_batch: u64,
    num_partitions: u64,
    start_timestamp: i64,
    advance_ms: i64,
}

impl RateMicroBatchFactory {
    /// Validate the options as Spark does (`rowsPerBatch` is required).
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        let rows_per_batch = options
            .get("rowsperbatch")
            .ok_or_else(|| {
                Error::illegal_argument(
                    "Invalid value for option 'rowsPerBatch': it must be set to a positive number",
                )
            })
            .and_then(|v| parse_u64_option("rowsPerBatch", v))?;
        if rows_per_batch == 0 {
            return Err(Error::illegal_argument(
                "Invalid value '0'. The option 'rowsPerBatch' must be positive",
            ));
        }
        Ok(RateMicroBatchFactory {
            rows_per_batch,
            num_partitions: option_u64(options, "numPartitions", 1)?,
            start_timestamp: option_u64(options, "startTimestamp", 0)? as i64,
            advance_ms: option_u64(options, "advanceMillisPerBatch", 1000)? as i64,
        })
    }
}

impl SourceFactory for RateMicroBatchFactory {
    fn class_name(&self) -> &'static str {
        "RatePerMicroBatchStream"
    }

    fn schema(&self) -> SchemaRef {
        rate_schema()
    }

    fn create(&self, _ctx: &SourceContext) -> Result<Box<dyn Source>> {
        Ok(Box::new(RateMicroBatchSource {
            opts: self.clone(),
            next: 0,
            cap: None,
        }))
    }
}

struct RateMicroBatchSource {
    opts: RateMicroBatchFactory,
    /// Offset the next `latest_offset` call reports (one batch ahead).
    next: i64,
    cap: Option<i64>,
}

impl Source for RateMicroBatchSource {
    fn description(&self) -> String {
        format!(
            "RatePerMicroBatchStream[rowsPerBatch={}, numPartitions={}, startTimestamp={}, advanceMsPerBatch={}]",
            self.opts.rows_per_batch, self.opts.num_partitions, self.opts.start_timestamp, self.opts.advance_ms
        )
    }

    fn schema(&self) -> SchemaRef {
        rate_schema()
    }

    /// Always one more batch of data, unless capped by availableNow.
    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let mut off = self.next + 1;
        if let Some(cap) = self.cap {
            off = off.min(cap);
        }
        Ok((off > 0).then(|| Offset::from(off)))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let from = start.and_then(|o| o.as_i64()).unwrap_or(0);
        let to = end.as_i64().unwrap_or(from);
        let rpb = self.opts.rows_per_batch as i64;
        let mut batches = Vec::new();
        for b in from..to {
            let ts = (self.opts.start_timestamp + b * self.opts.advance_ms) * 1000;
            batches.push(rows_batch(b * rpb..(b + 1) * rpb, |_| ts)?);
        }
        let num_rows = ((to - from).max(0) * rpb) as u64;
        Ok(BatchInput {
            provider: Arc::new(MemTable::try_new(rate_schema(), vec![batches])?),
            num_rows,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        self.next = end.as_i64().unwrap_or(self.next);
        Ok(())
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.next = committed.and_then(|o| o.as_i64()).unwrap_or(0);
        Ok(())
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        self.cap = Some(self.next + 1);
        Ok(())
    }
}
