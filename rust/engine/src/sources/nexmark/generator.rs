//! The Nexmark event generator, after the reference generator (Apache
//! Beam's `NexmarkGenerator`, as Flink's Nexmark suite uses it): event
//! number n is a person, an auction or a bid by the proportions 1:3:46;
//! auctions are sold by recent people (a hot quarter of sellers), bids go
//! to recent auctions (hot auctions take half) from recent people (hot
//! bidders a quarter); prices are log-uniform; each event carries an
//! `extra` string that brings it to the average size of its kind.
//!
//! Every event is a pure function of its number and the seed (its own
//! random stream), so any range of events can be generated again, in any
//! order, and two runs with the same options produce the same events.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanBufferBuilder, Int32Builder, Int64Builder, RecordBatch, StringBuilder,
    StructArray, TimestampMillisecondBuilder,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use crate::error::Result;

/// Event kinds, as the `event_type` column holds them (Flink's Nexmark):
/// a new person,
pub const PERSON: i32 = 0;
/// a new auction,
pub const AUCTION: i32 = 1;
/// a bid on an auction.
pub const BID: i32 = 2;

const FIRST_PERSON_ID: i64 = 1000;
const FIRST_AUCTION_ID: i64 = 1000;
const FIRST_CATEGORY_ID: i64 = 10;
const NUM_CATEGORIES: u64 = 5;
/// Hot sellers, auctions and bidders are the ids divisible by these.
const HOT_SELLER_RATIO: i64 = 100;
const HOT_AUCTION_RATIO: i64 = 100;
const HOT_BIDDER_RATIO: i64 = 100;
/// How far ahead of the newest person/auction a random id may reach.
const PERSON_ID_LEAD: u64 = 10;
const AUCTION_ID_LEAD: u64 = 10;
const MIN_STRING_LENGTH: u64 = 3;
const CHANNELS: u64 = 10_000;
const HOT_CHANNELS: [&str; 4] = ["Google", "Facebook", "Baidu", "Apple"];
const HOT_URLS: [&str; 4] = [
    "https://www.nexmark.com/goog/item.htm?query=1",
    "https://www.nexmark.com/face/item.htm?query=1",
    "https://www.nexmark.com/baid/item.htm?query=1",
    "https://www.nexmark.com/appl/item.htm?query=1",
];
const FIRST_NAMES: [&str; 11] = [
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter",
];
const LAST_NAMES: [&str; 9] = [
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris",
];
const US_STATES: [&str; 6] = ["AZ", "CA", "ID", "OR", "WA", "WY"];
const US_CITIES: [&str; 10] = [
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne",
];

/// The generator's settings (the reference generator's names and defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Mixed into every event's random stream.
    pub seed: u64,
    /// Event time of event 0 (ms since the epoch).
    pub base_time_ms: i64,
    /// Events per second of event time.
    pub events_per_second: u64,
    /// Events are emitted in groups of this size in shuffled time order.
    pub out_of_order_group_size: u64,
    /// Persons, auctions and bids per `total` events (1:3:46).
    pub person_proportion: u64,
    /// See `person_proportion`.
    pub auction_proportion: u64,
    /// See `person_proportion`.
    pub bid_proportion: u64,
    /// One bid in this many goes to any recent auction; the rest to hot ones.
    pub hot_auction_ratio: u64,
    /// One auction in this many is sold by any recent person; the rest by hot sellers.
    pub hot_sellers_ratio: u64,
    /// One bid in this many is by any recent person; the rest by hot bidders.
    pub hot_bidders_ratio: u64,
    /// How many of the newest persons sell and bid.
    pub num_active_people: u64,
    /// How many of the newest auctions take bids.
    pub num_in_flight_auctions: u64,
    /// Average size of a person event in bytes (`extra` pads to it).
    pub avg_person_byte_size: u64,
    /// Average size of an auction event in bytes.
    pub avg_auction_byte_size: u64,
    /// Average size of a bid event in bytes.
    pub avg_bid_byte_size: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 0,
            base_time_ms: 1_704_067_200_000, // 2024-01-01T00:00:00Z
            events_per_second: 10_000,
            out_of_order_group_size: 1,
            person_proportion: 1,
            auction_proportion: 3,
            bid_proportion: 46,
            hot_auction_ratio: 2,
            hot_sellers_ratio: 4,
            hot_bidders_ratio: 4,
            num_active_people: 1000,
            num_in_flight_auctions: 100,
            avg_person_byte_size: 200,
            avg_auction_byte_size: 500,
            avg_bid_byte_size: 100,
        }
    }
}

impl Config {
    fn total_proportion(&self) -> u64 {
        self.person_proportion + self.auction_proportion + self.bid_proportion
    }

    /// The event number emitted at position `n` (out of order within groups).
    fn adjusted(&self, n: u64) -> u64 {
        let g = self.out_of_order_group_size.max(1);
        (n / g) * g + (n * 953) % g
    }

    /// Event time (ms) of event number `n`.
    pub fn timestamp_ms(&self, n: u64) -> i64 {
        self.base_time_ms + (n as u128 * 1000 / self.events_per_second.max(1) as u128) as i64
    }

    fn last_base0_person_id(&self, id: u64) -> i64 {
        let total = self.total_proportion();
        let (epoch, offset) = (id / total, (id % total).min(self.person_proportion - 1));
        (epoch * self.person_proportion + offset) as i64
    }

    fn last_base0_auction_id(&self, id: u64) -> i64 {
        let total = self.total_proportion();
        let (mut epoch, mut offset) = ((id / total) as i64, id % total);
        if offset < self.person_proportion {
            epoch -= 1;
            offset = self.auction_proportion - 1;
        } else if offset >= self.person_proportion + self.auction_proportion {
            offset = self.auction_proportion - 1;
        } else {
            offset -= self.person_proportion;
        }
        epoch * self.auction_proportion as i64 + offset as i64
    }

    fn next_base0_person_id(&self, id: u64, r: &mut Rng) -> i64 {
        let people = self.last_base0_person_id(id) + 1;
        let active = people.min(self.num_active_people as i64);
        people - active + r.below(active as u64 + PERSON_ID_LEAD) as i64
    }

    fn next_base0_auction_id(&self, id: u64, r: &mut Rng) -> i64 {
        let max = self.last_base0_auction_id(id).max(0);
        let min = (max - self.num_in_flight_auctions as i64).max(0);
        min + r.below((max - min) as u64 + 1 + AUCTION_ID_LEAD) as i64
    }

    /// How long an auction runs: up to twice the time until the auction
    /// `numInFlightAuctions` later starts.
    fn auction_length_ms(&self, n: u64, timestamp: i64, r: &mut Rng) -> i64 {
        let ahead =
            self.num_in_flight_auctions * self.total_proportion() / self.auction_proportion.max(1);
        let horizon = self.timestamp_ms(n + ahead) - timestamp;
        1 + r.below((horizon * 2).max(1) as u64) as i64
    }
}

/// SplitMix64: a small, fast generator, seeded per event.
struct Rng(u64);

impl Rng {
    fn for_event(seed: u64, id: u64) -> Rng {
        // the start hashed: neighbouring events' streams must not overlap
        let mut r = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ id);
        r.0 = r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n.max(1) as u128) >> 64) as u64
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A log-uniform price in cents, 1 to 1,000,000 dollars.
    fn price(&mut self) -> i64 {
        (10f64.powf(self.unit() * 6.0) * 100.0).round() as i64
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len() as u64) as usize]
    }

    /// Letters with a `special` character about one in 13, trimmed; 3 to
    /// `max_len` long before trimming (the reference's `nextString`).
    fn string_into(&mut self, out: &mut String, max_len: u64, special: char) {
        let len = MIN_STRING_LENGTH + self.below(max_len - MIN_STRING_LENGTH);
        let start = out.len();
        for _ in 0..len {
            let v = self.next();
            out.push(if v.is_multiple_of(13) {
                special
            } else {
                (b'a' + ((v >> 8) % 26) as u8) as char
            });
        }
        let trimmed = out[start..].trim().len();
        if trimmed != len as usize {
            let s = out[start..].trim().to_string();
            out.truncate(start);
            out.push_str(&s);
        }
    }

    /// `len` letters, eight from each draw.
    fn letters_into(&mut self, out: &mut String, len: usize) {
        let mut left = len;
        while left > 0 {
            let v = self.next();
            for i in 0..left.min(8) {
                out.push((b'a' + ((v >> (i * 8)) as u8 % 26)) as char);
            }
            left -= left.min(8);
        }
    }

    /// Padding that brings an event of `current` bytes to about `average`
    /// (within 20%), as the reference's `nextExtra`.
    fn extra_into(&mut self, out: &mut String, current: usize, average: u64) {
        let average = average as usize;
        if current > average {
            return;
        }
        let desired = average - current;
        let delta = (desired as f64 * 0.2).round() as usize;
        let len = desired - delta + self.below((2 * delta).max(1) as u64) as usize;
        self.letters_into(out, len);
    }
}

/// The schema of generated events: one row per event, its kind in
/// `event_type` and its fields in the struct of that kind (the others null),
/// as Flink's Nexmark source (`datagen`) has it.
pub fn schema() -> SchemaRef {
    let ts = || DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    let person = Fields::from(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("emailAddress", DataType::Utf8, true),
        Field::new("creditCard", DataType::Utf8, true),
        Field::new("city", DataType::Utf8, true),
        Field::new("state", DataType::Utf8, true),
        Field::new("dateTime", ts(), true),
        Field::new("extra", DataType::Utf8, true),
    ]);
    let auction = Fields::from(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("itemName", DataType::Utf8, true),
        Field::new("description", DataType::Utf8, true),
        Field::new("initialBid", DataType::Int64, true),
        Field::new("reserve", DataType::Int64, true),
        Field::new("dateTime", ts(), true),
        Field::new("expires", ts(), true),
        Field::new("seller", DataType::Int64, true),
        Field::new("category", DataType::Int64, true),
        Field::new("extra", DataType::Utf8, true),
    ]);
    let bid = Fields::from(vec![
        Field::new("auction", DataType::Int64, true),
        Field::new("bidder", DataType::Int64, true),
        Field::new("price", DataType::Int64, true),
        Field::new("channel", DataType::Utf8, true),
        Field::new("url", DataType::Utf8, true),
        Field::new("dateTime", ts(), true),
        Field::new("extra", DataType::Utf8, true),
    ]);
    Arc::new(Schema::new(vec![
        Field::new("event_type", DataType::Int32, false),
        Field::new("person", DataType::Struct(person), true),
        Field::new("auction", DataType::Struct(auction), true),
        Field::new("bid", DataType::Struct(bid), true),
        Field::new("dateTime", ts(), false),
    ]))
}

/// Column builders of one kind's struct, with its validity.
struct Kind {
    ints: Vec<Int64Builder>,
    strings: Vec<StringBuilder>,
    times: Vec<TimestampMillisecondBuilder>,
    valid: BooleanBufferBuilder,
}

impl Kind {
    fn new(ints: usize, strings: usize, times: usize, rows: usize) -> Kind {
        Kind {
            ints: (0..ints)
                .map(|_| Int64Builder::with_capacity(rows))
                .collect(),
            strings: (0..strings).map(|_| StringBuilder::new()).collect(),
            times: (0..times)
                .map(|_| TimestampMillisecondBuilder::with_capacity(rows))
                .collect(),
            valid: BooleanBufferBuilder::new(rows),
        }
    }

    /// A row of another kind: null here.
    fn skip(&mut self) {
        self.ints.iter_mut().for_each(|b| b.append_null());
        self.strings.iter_mut().for_each(|b| b.append_null());
        self.times.iter_mut().for_each(|b| b.append_null());
        self.valid.append(false);
    }

    /// Finish as a struct with `fields`, taking columns in the order
    /// `order` names them (`i`: ints, `s`: strings, `t`: times).
    fn finish(mut self, fields: &Fields, order: &str) -> Result<ArrayRef> {
        let (mut i, mut s, mut t) = (0, 0, 0);
        let mut columns: Vec<ArrayRef> = Vec::new();
        for c in order.chars() {
            match c {
                'i' => {
                    columns.push(Arc::new(self.ints[i].finish()));
                    i += 1;
                }
                's' => {
                    columns.push(Arc::new(self.strings[s].finish()));
                    s += 1;
                }
                _ => {
                    columns.push(Arc::new(self.times[t].finish().with_timezone("UTC")));
                    t += 1;
                }
            }
        }
        let valid = NullBuffer::new(self.valid.finish());
        Ok(Arc::new(StructArray::try_new(
            fields.clone(),
            columns,
            Some(valid),
        )?))
    }
}

/// Events at positions `from..to` of the stream, as one record batch.
pub fn generate(config: &Config, from: u64, to: u64) -> Result<RecordBatch> {
    let rows = to.saturating_sub(from) as usize;
    let mut kinds = Int32Builder::with_capacity(rows);
    let mut times = TimestampMillisecondBuilder::with_capacity(rows);
    // person: id | name email creditCard city state extra | dateTime
    let mut person = Kind::new(1, 6, 1, rows);
    // auction: id initialBid reserve seller category | itemName description extra | dateTime expires
    let mut auction = Kind::new(5, 3, 2, rows);
    // bid: auction bidder price | channel url extra | dateTime
    let mut bid = Kind::new(3, 3, 1, rows);
    let mut text = String::with_capacity(256);
    for n in from..to {
        let number = config.adjusted(n);
        let ts = config.timestamp_ms(number);
        let mut r = Rng::for_event(config.seed, number);
        let kind = match number % config.total_proportion() {
            x if x < config.person_proportion => PERSON,
            x if x < config.person_proportion + config.auction_proportion => AUCTION,
            _ => BID,
        };
        kinds.append_value(kind);
        times.append_value(ts);
        match kind {
            PERSON => {
                auction.skip();
                bid.skip();
                let p = &mut person;
                p.ints[0].append_value(config.last_base0_person_id(number) + FIRST_PERSON_ID);
                text.clear();
                text.push_str(r.pick(&FIRST_NAMES));
                text.push(' ');
                text.push_str(r.pick(&LAST_NAMES));
                let mut size = 8 + text.len();
                p.strings[0].append_value(&text);
                text.clear();
                r.string_into(&mut text, 7, ' ');
                text.push('@');
                r.string_into(&mut text, 5, ' ');
                text.push_str(".com");
                size += text.len();
                p.strings[1].append_value(&text);
                let card = format!(
                    "{:04} {:04} {:04} {:04}",
                    r.below(10_000),
                    r.below(10_000),
                    r.below(10_000),
                    r.below(10_000)
                );
                size += card.len();
                p.strings[2].append_value(&card);
                let (city, state) = (r.pick(&US_CITIES), r.pick(&US_STATES));
                size += city.len() + state.len();
                p.strings[3].append_value(city);
                p.strings[4].append_value(state);
                text.clear();
                r.extra_into(&mut text, size, config.avg_person_byte_size);
                p.strings[5].append_value(&text);
                p.times[0].append_value(ts);
                p.valid.append(true);
            }
            AUCTION => {
                person.skip();
                bid.skip();
                let a = &mut auction;
                let seller = if r.below(config.hot_sellers_ratio) > 0 {
                    (config.last_base0_person_id(number) / HOT_SELLER_RATIO) * HOT_SELLER_RATIO
                } else {
                    config.next_base0_person_id(number, &mut r)
                };
                let initial = r.price();
                let expires = ts + config.auction_length_ms(number, ts, &mut r);
                a.ints[0].append_value(config.last_base0_auction_id(number) + FIRST_AUCTION_ID);
                a.ints[1].append_value(initial);
                a.ints[2].append_value(initial + r.price());
                a.ints[3].append_value(seller + FIRST_PERSON_ID);
                a.ints[4].append_value(FIRST_CATEGORY_ID + r.below(NUM_CATEGORIES) as i64);
                text.clear();
                r.string_into(&mut text, 20, ' ');
                let mut size = 8 + text.len() + 8 + 8 + 8 + 8 + 8 + 8;
                a.strings[0].append_value(&text);
                text.clear();
                r.string_into(&mut text, 100, ' ');
                size += text.len();
                a.strings[1].append_value(&text);
                text.clear();
                r.extra_into(&mut text, size, config.avg_auction_byte_size);
                a.strings[2].append_value(&text);
                a.times[0].append_value(ts);
                a.times[1].append_value(expires);
                a.valid.append(true);
            }
            _ => {
                person.skip();
                auction.skip();
                let b = &mut bid;
                let auction_id = if r.below(config.hot_auction_ratio) > 0 {
                    (config.last_base0_auction_id(number) / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO
                } else {
                    config.next_base0_auction_id(number, &mut r)
                };
                let bidder = if r.below(config.hot_bidders_ratio) > 0 {
                    (config.last_base0_person_id(number) / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1
                } else {
                    config.next_base0_person_id(number, &mut r)
                };
                b.ints[0].append_value(auction_id + FIRST_AUCTION_ID);
                b.ints[1].append_value(bidder + FIRST_PERSON_ID);
                b.ints[2].append_value(r.price());
                let mut size = 8 + 8 + 8 + 8;
                if r.below(2) > 0 {
                    let i = r.below(HOT_CHANNELS.len() as u64) as usize;
                    b.strings[0].append_value(HOT_CHANNELS[i]);
                    b.strings[1].append_value(HOT_URLS[i]);
                    size += HOT_CHANNELS[i].len() + HOT_URLS[i].len();
                } else {
                    let c = r.below(CHANNELS) as u32;
                    text.clear();
                    text.push_str("channel-");
                    text.push_str(&c.to_string());
                    b.strings[0].append_value(&text);
                    size += text.len();
                    text.clear();
                    text.push_str("https://www.nexmark.com/item.htm?query=1&channel_id=");
                    text.push_str(&c.reverse_bits().to_string());
                    b.strings[1].append_value(&text);
                    size += text.len();
                }
                text.clear();
                r.extra_into(&mut text, size, config.avg_bid_byte_size);
                b.strings[2].append_value(&text);
                b.times[0].append_value(ts);
                b.valid.append(true);
            }
        }
    }
    let schema = schema();
    let field = |i: usize| match schema.field(i).data_type() {
        DataType::Struct(f) => f.clone(),
        _ => Fields::empty(),
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(kinds.finish()),
        person.finish(&field(1), "isssssts")?,
        auction.finish(&field(2), "issiittiis")?,
        bid.finish(&field(3), "iiissts")?,
        Arc::new(times.finish().with_timezone("UTC")),
    ];
    Ok(RecordBatch::try_new(schema, columns)?)
}
