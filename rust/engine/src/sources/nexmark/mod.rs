//! `format("nexmark")`: the Nexmark benchmark's event stream (persons,
//! auctions and bids), generated deterministically ([`generator`]).
//!
//! The offset is the number of events emitted. Events are a pure function
//! of their number, so a batch re-run after a restart regenerates exactly
//! its events and nothing is kept in the checkpoint. With `realTime` the
//! events are released as the wall clock reaches their event time (event
//! 0 at the query's first start, kept in the checkpoint), for latency
//! measurements; otherwise each trigger takes the next
//! `maxEventsPerTrigger` events at once.

pub mod generator;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::datasource::MemTable;

use super::{BatchInput, Offset, Source, SourceContext, SourceFactory};
use crate::error::{Error, Result};
use generator::Config;

/// Events per record batch of a micro-batch.
const CHUNK_EVENTS: u64 = 65_536;

/// The options of `format("nexmark")` (keys lower-cased).
#[derive(Debug, Clone)]
pub struct NexmarkFactory {
    config: Config,
    /// Events in the stream (0: unbounded).
    num_events: u64,
    max_per_trigger: u64,
    real_time: bool,
}

use super::rate::option_u64 as option;

fn positive(options: &HashMap<String, String>, name: &str, default: u64) -> Result<u64> {
    let v = option(options, name, default)?;
    if v == 0 {
        return Err(Error::illegal_argument(format!(
            "Invalid value '0'. The option '{name}' must be positive"
        )));
    }
    Ok(v)
}

impl NexmarkFactory {
    /// The options, checked; an unknown option is an error naming it (a
    /// misspelt knob would otherwise measure the defaults silently).
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        const KNOWN: &[&str] = &[
            "numEvents",
            "eventsPerSecond",
            "maxEventsPerTrigger",
            "realTime",
            "seed",
            "baseTime",
            "outOfOrderGroupSize",
            "personProportion",
            "auctionProportion",
            "bidProportion",
            "hotAuctionRatio",
            "hotSellersRatio",
            "hotBiddersRatio",
            "numActivePeople",
            "numInFlightAuctions",
            "avgPersonByteSize",
            "avgAuctionByteSize",
            "avgBidByteSize",
        ];
        if let Some(unknown) = options
            .keys()
            .find(|k| *k != "path" && !KNOWN.iter().any(|n| n.eq_ignore_ascii_case(k)))
        {
            return Err(Error::illegal_argument(format!(
                "Unknown option '{unknown}' of the nexmark source; it takes {}",
                KNOWN.join(", ")
            )));
        }
        let d = Config::default();
        let config = Config {
            seed: option(options, "seed", d.seed)?,
            base_time_ms: option(options, "baseTime", d.base_time_ms as u64)? as i64,
            events_per_second: positive(options, "eventsPerSecond", d.events_per_second)?,
            out_of_order_group_size: positive(
                options,
                "outOfOrderGroupSize",
                d.out_of_order_group_size,
            )?,
            person_proportion: positive(options, "personProportion", d.person_proportion)?,
            auction_proportion: positive(options, "auctionProportion", d.auction_proportion)?,
            bid_proportion: positive(options, "bidProportion", d.bid_proportion)?,
            hot_auction_ratio: positive(options, "hotAuctionRatio", d.hot_auction_ratio)?,
            hot_sellers_ratio: positive(options, "hotSellersRatio", d.hot_sellers_ratio)?,
            hot_bidders_ratio: positive(options, "hotBiddersRatio", d.hot_bidders_ratio)?,
            num_active_people: positive(options, "numActivePeople", d.num_active_people)?,
            num_in_flight_auctions: positive(
                options,
                "numInFlightAuctions",
                d.num_in_flight_auctions,
            )?,
            avg_person_byte_size: option(options, "avgPersonByteSize", d.avg_person_byte_size)?,
            avg_auction_byte_size: option(options, "avgAuctionByteSize", d.avg_auction_byte_size)?,
            avg_bid_byte_size: option(options, "avgBidByteSize", d.avg_bid_byte_size)?,
        };
        let real_time = match options
            .get("realtime")
            .map(|v| v.trim().to_ascii_lowercase())
        {
            None => false,
            Some(v) if v == "true" => true,
            Some(v) if v == "false" => false,
            Some(v) => {
                return Err(Error::illegal_argument(format!(
                    "Invalid value '{v}' for option 'realTime': it must be true or false"
                )))
            }
        };
        Ok(NexmarkFactory {
            config,
            num_events: option(options, "numEvents", 0)?,
            max_per_trigger: positive(options, "maxEventsPerTrigger", 1_000_000)?,
            real_time,
        })
    }

    /// Every event of a bounded stream (`spark.read.format("nexmark")`).
    pub fn read_all(&self) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        if self.num_events == 0 {
            return Err(Error::illegal_argument(
                "A batch read of the nexmark source needs option 'numEvents' (the stream is unbounded without it)",
            ));
        }
        Ok((
            generator::schema(),
            chunks(&self.config, 0, self.num_events)?,
        ))
    }
}

/// Events `from..to` as record batches of `CHUNK_EVENTS`.
fn chunks(config: &Config, from: u64, to: u64) -> Result<Vec<RecordBatch>> {
    (from..to)
        .step_by(CHUNK_EVENTS as usize)
        .map(|start| generator::generate(config, start, (start + CHUNK_EVENTS).min(to)))
        .collect()
}

impl SourceFactory for NexmarkFactory {
    fn supports_real_time(&self) -> bool {
        true
    }

    fn schema(&self) -> SchemaRef {
        generator::schema()
    }

    fn create(&self, ctx: &SourceContext) -> Result<Box<dyn Source>> {
        let mut factory = self.clone();
        if self.real_time {
            // event 0 happens when the query first started
            factory.config.base_time_ms = super::rate::start_time(ctx)?;
        }
        Ok(Box::new(NexmarkSource {
            factory,
            next: 0,
            cap: None,
        }))
    }
}

struct NexmarkSource {
    factory: NexmarkFactory,
    /// Events committed so far.
    next: u64,
    /// `availableNow`: the events present when it started.
    cap: Option<u64>,
}

impl NexmarkSource {
    /// Events the stream has now: all of a bounded stream, or (real time)
    /// those whose event time has come.
    fn available(&self) -> u64 {
        let f = &self.factory;
        let mut n = if f.real_time {
            let elapsed = (crate::engine::clock::Clock::System.now_ms() - f.config.base_time_ms)
                .max(0) as u128;
            // every event whose (whole-ms) event time is at or before now:
            // event n's is floor(n * 1000 / rate), so n < (elapsed + 1) * rate / 1000
            ((elapsed + 1) * f.config.events_per_second as u128).div_ceil(1000) as u64
        } else {
            u64::MAX
        };
        if f.num_events > 0 {
            n = n.min(f.num_events);
        }
        n
    }
}

impl Source for NexmarkSource {
    fn description(&self) -> String {
        let f = &self.factory;
        format!(
            "NexmarkSource[numEvents={}, eventsPerSecond={}, seed={}, realTime={}]",
            f.num_events, f.config.events_per_second, f.config.seed, f.real_time
        )
    }

    fn schema(&self) -> SchemaRef {
        generator::schema()
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let mut end = self.available();
        if !self.factory.real_time {
            end = end.min(self.next.saturating_add(self.factory.max_per_trigger));
        }
        if let Some(cap) = self.cap {
            end = end.min(cap);
        }
        Ok((end > 0).then(|| Offset::from(end)))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let from = start.and_then(Offset::as_u64).unwrap_or(0);
        let to = end.as_u64().unwrap_or(from).max(from);
        let batches = chunks(&self.factory.config, from, to)?;
        Ok(BatchInput {
            provider: Arc::new(MemTable::try_new(generator::schema(), vec![batches])?),
            num_rows: to - from,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        self.next = end.as_u64().unwrap_or(self.next);
        Ok(())
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.next = committed.and_then(Offset::as_u64).unwrap_or(0);
        Ok(())
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        let available = self.available();
        // an unbounded stream without real time: the next trigger's worth
        self.cap = Some(if available == u64::MAX {
            self.next + self.factory.max_per_trigger
        } else {
            available
        });
        Ok(())
    }

    /// In real time, the event time of the first event not yet available.
    fn next_due(&self) -> Option<std::time::Duration> {
        let f = &self.factory;
        let next = self.available();
        let more = f.num_events == 0 || next < f.num_events;
        (f.real_time && more && self.cap.is_none())
            .then(|| super::until_ms(f.config.timestamp_ms(next)))
    }

    fn backlog(&self) -> Option<super::Backlog> {
        self.cap.map(|cap| super::Backlog {
            done: self.next.min(cap),
            total: cap,
            unit: "events",
        })
    }
}
