//! `format("kafka")`: records of Kafka topics, with Spark's options, columns
//! and offsets. The consumer is assigned partitions directly (no consumer
//! group does the assignment): a batch's offsets are ranges per partition,
//! written to the offset log, so a restart re-reads exactly the ranges of
//! the batch it did not commit and then goes on.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{
    ArrayRef, BinaryBuilder, Int32Builder, Int64Builder, ListBuilder, RecordBatch, StringBuilder,
    StructBuilder, TimestampMicrosecondBuilder,
};
use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use datafusion::datasource::MemTable;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{Offset as KafkaOffset, Timestamp, TopicPartitionList};
use regex::Regex;

use super::{
    parse_bool_option, parse_u64_option, Backlog, BatchInput, Offset, Source, SourceContext,
    SourceFactory,
};
use crate::error::{Error, Result};

/// Next offset to read per topic and partition, as Spark writes them:
/// `{"topic":{"0":23}}`.
pub type Offsets = BTreeMap<String, BTreeMap<i32, i64>>;

/// (earliest, latest) offsets per (topic, partition).
type Marks = BTreeMap<(String, i32), (i64, i64)>;

/// Client options a user may not set (Spark's list): sparklet manages them.
const UNSUPPORTED: [(&str, &str); 5] = [
    (
        "auto.offset.reset",
        "Set the source option 'startingOffsets' instead.",
    ),
    (
        "key.deserializer",
        "Keys are always read as bytes; cast the column.",
    ),
    (
        "value.deserializer",
        "Values are always read as bytes; cast the column.",
    ),
    (
        "enable.auto.commit",
        "Offsets are kept in the checkpoint, not committed to Kafka.",
    ),
    ("interceptor.classes", "Interceptors are not supported."),
];

/// Options of `kafka.` the Java client reads that librdkafka does not know:
/// sparklet reads the timeout itself, the others are dropped.
const JAVA_ONLY: [&str; 2] = ["default.api.timeout.ms", "request.timeout.ms"];

/// Which partitions are read.
#[derive(Debug, Clone)]
enum Topics {
    Subscribe(Vec<String>),
    Pattern(Regex),
    Assign(BTreeMap<String, Vec<i32>>),
}

impl Topics {
    fn describe(&self) -> String {
        match self {
            Topics::Subscribe(t) => format!("Subscribe[{}]", t.join(",")),
            Topics::Pattern(p) => format!("SubscribePattern[{}]", p.as_str()),
            Topics::Assign(a) => {
                let parts: Vec<String> = a
                    .iter()
                    .flat_map(|(t, ps)| ps.iter().map(move |p| format!("{t}-{p}")))
                    .collect();
                format!("Assign[{}]", parts.join(", "))
            }
        }
    }
}

/// Where reading starts or ends.
#[derive(Debug, Clone)]
enum Bound {
    Earliest,
    Latest,
    /// Per partition: an offset, -2 for earliest, -1 for latest.
    At(Offsets),
}

/// The options of a Kafka source or batch read, checked.
#[derive(Debug, Clone)]
pub struct KafkaOptions {
    /// librdkafka properties (the `kafka.` options without the prefix).
    pub client: Vec<(String, String)>,
    topics: Topics,
    starting: Bound,
    ending: Bound,
    max_per_trigger: Option<u64>,
    min_per_trigger: Option<u64>,
    max_trigger_delay: Duration,
    fail_on_data_loss: bool,
    include_headers: bool,
    /// Bound on each call to the broker (metadata, offsets, a batch's read).
    pub timeout: Duration,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::illegal_argument(message.into())
}

/// The `kafka.` options as librdkafka properties, and the timeout
/// (`kafka.default.api.timeout.ms`, 60 s by default as in the Java client).
pub fn client_options(
    options: &HashMap<String, String>,
) -> Result<(Vec<(String, String)>, Duration)> {
    if !options.contains_key("kafka.bootstrap.servers") {
        return Err(invalid(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer",
        ));
    }
    let mut client = Vec::new();
    let mut timeout = Duration::from_secs(60);
    for (k, v) in options {
        let Some(name) = k.strip_prefix("kafka.") else {
            continue;
        };
        if let Some((_, why)) = UNSUPPORTED.iter().find(|(n, _)| *n == name) {
            return Err(invalid(format!(
                "Kafka option '{name}' is not supported. {why}"
            )));
        }
        if name == "default.api.timeout.ms" {
            timeout = Duration::from_millis(parse_u64_option(k, v)?);
        }
        if !JAVA_ONLY.contains(&name) {
            client.push((name.to_string(), v.clone()));
        }
    }
    Ok((client, timeout))
}

/// A librdkafka configuration of `client` (names the property it rejects).
pub fn config(client: &[(String, String)]) -> ClientConfig {
    let mut c = ClientConfig::new();
    for (k, v) in client {
        c.set(k, v);
    }
    c
}

fn parse_offsets(name: &str, text: &str) -> Result<Offsets> {
    serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "Option '{name}' must be 'earliest', 'latest' or JSON such as \
             {{\"topicA\":{{\"0\":23,\"1\":-1}}}}: {e} in {text}"
        ))
    })
}

fn parse_bound(name: &str, value: Option<&String>, default: Bound) -> Result<Bound> {
    match value.map(|v| v.trim()) {
        None => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("earliest") => Ok(Bound::Earliest),
        Some(v) if v.eq_ignore_ascii_case("latest") => Ok(Bound::Latest),
        Some(v) => Ok(Bound::At(parse_offsets(name, v)?)),
    }
}

impl KafkaOptions {
    /// Check `options` (keys lower-cased) for a stream (`batch` false) or a
    /// batch read.
    pub fn new(options: &HashMap<String, String>, batch: bool) -> Result<Self> {
        let (client, timeout) = client_options(options)?;
        let given: Vec<&str> = ["subscribe", "subscribepattern", "assign"]
            .into_iter()
            .filter(|k| options.contains_key(*k))
            .collect();
        if given.len() != 1 {
            return Err(invalid(format!(
                "One of the options 'subscribe', 'subscribePattern' or 'assign' must be specified \
                 for a Kafka source (got {}).",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(", ")
                }
            )));
        }
        let topics = match given[0] {
            "subscribe" => {
                let t: Vec<String> = options["subscribe"]
                    .split(',')
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect();
                if t.is_empty() {
                    return Err(invalid("No topics to subscribe to in option 'subscribe'"));
                }
                Topics::Subscribe(t)
            }
            "subscribepattern" => {
                let p = &options["subscribepattern"];
                let re = Regex::new(&format!("^(?:{p})$")).map_err(|e| {
                    invalid(format!(
                        "Option 'subscribePattern' is not a valid pattern: {e}"
                    ))
                })?;
                Topics::Pattern(re)
            }
            _ => {
                let text = &options["assign"];
                let a: BTreeMap<String, Vec<i32>> = serde_json::from_str(text).map_err(|e| {
                    invalid(format!(
                        "Option 'assign' must be JSON such as {{\"topicA\":[0,1]}}: {e} in {text}"
                    ))
                })?;
                Topics::Assign(a)
            }
        };
        let starting = parse_bound(
            "startingOffsets",
            options.get("startingoffsets"),
            if batch {
                Bound::Earliest
            } else {
                Bound::Latest
            },
        )?;
        if batch && matches!(starting, Bound::Latest) {
            return Err(invalid(
                "Starting offset can't be latest for batch queries on Kafka",
            ));
        }
        let ending = parse_bound("endingOffsets", options.get("endingoffsets"), Bound::Latest)?;
        if !batch && options.contains_key("endingoffsets") {
            return Err(invalid("Ending offset not valid in streaming queries"));
        }
        if batch && matches!(ending, Bound::Earliest) {
            return Err(invalid(
                "Ending offset can't be earliest for batch queries on Kafka",
            ));
        }
        let u64_option = |k: &str, name: &str| {
            options
                .get(k)
                .map(|v| parse_u64_option(name, v))
                .transpose()
        };
        let max_trigger_delay = match options.get("maxtriggerdelay") {
            Some(v) => Duration::from_millis(
                crate::engine::trigger::parse_duration_ms(v)
                    .ok()
                    .and_then(|ms| u64::try_from(ms).ok())
                    .ok_or_else(|| {
                        invalid(format!(
                            "Option 'maxTriggerDelay' must be a duration such as '15m', got '{v}'"
                        ))
                    })?,
            ),
            None => Duration::from_secs(15 * 60),
        };
        Ok(KafkaOptions {
            client,
            topics,
            starting,
            ending,
            max_per_trigger: u64_option("maxoffsetspertrigger", "maxOffsetsPerTrigger")?,
            min_per_trigger: u64_option("minoffsetspertrigger", "minOffsetsPerTrigger")?,
            max_trigger_delay,
            fail_on_data_loss: match options.get("failondataloss") {
                Some(v) => parse_bool_option("failOnDataLoss", v)?,
                None => true,
            },
            include_headers: match options.get("includeheaders") {
                Some(v) => parse_bool_option("includeHeaders", v)?,
                None => false,
            },
            timeout,
        })
    }
}

/// Spark's columns of a Kafka source.
pub fn schema(include_headers: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("key", DataType::Binary, true),
        Field::new("value", DataType::Binary, true),
        Field::new("topic", DataType::Utf8, true),
        Field::new("partition", DataType::Int32, true),
        Field::new("offset", DataType::Int64, true),
        Field::new(
            "timestamp",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("timestampType", DataType::Int32, true),
    ];
    if include_headers {
        fields.push(Field::new(
            "headers",
            DataType::List(Arc::new(Field::new("element", header_type(), true))),
            true,
        ));
    }
    Arc::new(Schema::new(fields))
}

fn header_fields() -> Fields {
    Fields::from(vec![
        Field::new("key", DataType::Utf8, true),
        Field::new("value", DataType::Binary, true),
    ])
}

fn header_type() -> DataType {
    DataType::Struct(header_fields())
}

/// A consumer of the source's cluster with the source's client options.
struct Client {
    consumer: BaseConsumer,
    options: Arc<KafkaOptions>,
}

impl Client {
    fn new(options: Arc<KafkaOptions>) -> Result<Self> {
        let mut c = config(&options.client);
        if !options.client.iter().any(|(k, _)| k == "group.id") {
            c.set(
                "group.id",
                format!("spark-kafka-source-{}", uuid::Uuid::new_v4()),
            );
        }
        c.set("enable.auto.commit", "false");
        c.set("enable.partition.eof", "false");
        c.set("auto.offset.reset", "error");
        // a fetch waiting for records that are not there holds the broker
        // connection (and the offset look-ups queued behind it): a batch
        // reads ranges that exist, so waiting gains nothing
        if !options.client.iter().any(|(k, _)| k == "fetch.wait.max.ms") {
            c.set("fetch.wait.max.ms", "10");
        }
        let consumer: BaseConsumer = c
            .create()
            .map_err(|e| invalid(format!("Cannot create a Kafka consumer: {e}")))?;
        Ok(Client { consumer, options })
    }

    fn broker_error(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::Input {
            condition: "KAFKA_BROKER_ERROR".into(),
            message: format!(
                "Kafka: {what} failed within {} ms (brokers {}): {e}",
                self.options.timeout.as_millis(),
                self.servers()
            ),
        }
    }

    fn servers(&self) -> &str {
        self.options
            .client
            .iter()
            .find(|(k, _)| k == "bootstrap.servers")
            .map_or("", |(_, v)| v.as_str())
    }

    /// The partitions to read now: their topics' current partitions.
    fn partitions(&self) -> Result<Vec<(String, i32)>> {
        let metadata = self
            .consumer
            .fetch_metadata(None, self.options.timeout)
            .map_err(|e| self.broker_error("reading the cluster's metadata", e))?;
        let known: BTreeMap<&str, Vec<i32>> = metadata
            .topics()
            .iter()
            .filter(|t| t.error().is_none())
            .map(|t| (t.name(), t.partitions().iter().map(|p| p.id()).collect()))
            .collect();
        let missing = |t: &str| {
            Error::illegal_argument(format!(
                "Kafka topic '{t}' does not exist on {} (create it first, or use \
                 'subscribePattern' to pick topics up as they appear)",
                self.servers()
            ))
        };
        let mut out = Vec::new();
        match &self.options.topics {
            Topics::Subscribe(topics) => {
                for t in topics {
                    let ps = known.get(t.as_str()).ok_or_else(|| missing(t))?;
                    out.extend(ps.iter().map(|p| (t.clone(), *p)));
                }
            }
            Topics::Pattern(re) => {
                for (t, ps) in &known {
                    if re.is_match(t) {
                        out.extend(ps.iter().map(|p| (t.to_string(), *p)));
                    }
                }
            }
            Topics::Assign(a) => {
                for (t, ps) in a {
                    let have = known.get(t.as_str()).ok_or_else(|| missing(t))?;
                    for p in ps {
                        if !have.contains(p) {
                            return Err(Error::illegal_argument(format!(
                                "Kafka topic '{t}' has no partition {p} (it has {have:?})"
                            )));
                        }
                        out.push((t.clone(), *p));
                    }
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// (earliest, latest) offsets of a partition.
    fn watermarks(&self, topic: &str, partition: i32) -> Result<(i64, i64)> {
        self.consumer
            .fetch_watermarks(topic, partition, self.options.timeout)
            .map_err(|e| self.broker_error(&format!("reading offsets of {topic}-{partition}"), e))
    }

    /// Every partition's (earliest, latest).
    fn all_watermarks(&self, parts: &[(String, i32)]) -> Result<Marks> {
        parts
            .iter()
            .map(|(t, p)| Ok(((t.clone(), *p), self.watermarks(t, *p)?)))
            .collect()
    }

    /// `bound` resolved to offsets of `parts` (a partition `bound` leaves
    /// out: `default`).
    fn resolve(&self, bound: &Bound, parts: &[(String, i32)], marks: &Marks) -> Result<Offsets> {
        let mut out = Offsets::new();
        for (t, p) in parts {
            let (low, high) = marks[&(t.clone(), *p)];
            let at = match bound {
                Bound::Earliest => low,
                Bound::Latest => high,
                Bound::At(o) => match o.get(t).map(|ps| ps.get(p)) {
                    Some(Some(-2)) => low,
                    Some(Some(-1)) => high,
                    Some(Some(n)) => *n,
                    Some(None) => {
                        return Err(invalid(format!(
                            "Offsets given for topic '{t}' leave out its partition {p}: \
                             every partition of the topic needs one"
                        )))
                    }
                    None => low,
                },
            };
            out.entry(t.clone()).or_default().insert(*p, at);
        }
        if let Bound::At(o) = bound {
            for (t, ps) in o {
                for p in ps.keys() {
                    if !parts.contains(&(t.clone(), *p)) {
                        return Err(invalid(format!(
                            "Offsets were given for {t}-{p}, which is not among the partitions read"
                        )));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Records of each partition from `start` (or its earliest) to `end`
    /// (exclusive), as Spark's columns.
    /// `known`: (earliest, latest) of partitions just asked for (the
    /// trigger's own look-up), so a batch does not ask again.
    fn read(&self, start: &Offsets, end: &Offsets, known: &Marks) -> Result<Vec<RecordBatch>> {
        let marks = |t: &String, p: i32| match known.get(&(t.clone(), p)) {
            Some(m) => Ok(*m),
            None => self.watermarks(t, p),
        };
        let mut ranges: BTreeMap<(String, i32), (i64, i64)> = BTreeMap::new();
        for (t, ps) in end {
            for (p, e) in ps {
                let s = match start.get(t).and_then(|m| m.get(p)) {
                    Some(s) => *s,
                    None => {
                        // a partition new since the batch before: from its start
                        let (low, _) = marks(t, *p)?;
                        if low != 0 {
                            self.data_loss(&format!(
                                "Added partition {t}-{p} starts from {low} instead of 0"
                            ))?;
                        }
                        low
                    }
                };
                if s > *e {
                    self.data_loss(&format!(
                        "Partition {t}-{p}'s offset was changed from {s} to {e}"
                    ))?;
                }
                if s < *e {
                    ranges.insert((t.clone(), *p), (s, *e));
                }
            }
        }
        for (t, ps) in start {
            for p in ps.keys() {
                if end.get(t).and_then(|m| m.get(p)).is_none() {
                    self.data_loss(&format!("Partition {t}-{p} was deleted"))?;
                }
            }
        }
        // offsets no longer on the broker: data loss
        for ((t, p), (s, e)) in ranges.iter_mut() {
            let (low, high) = marks(t, *p)?;
            if *s < low {
                self.data_loss(&format!(
                    "Cannot fetch offset {s} of {t}-{p}: the earliest available is {low}"
                ))?;
                *s = low.min(*e);
            }
            if high < *e {
                self.data_loss(&format!(
                    "Offsets of {t}-{p} up to {e} were expected but the latest is {high} \
                     (was the topic deleted and recreated?)"
                ))?;
                *e = high.max(*s);
            }
        }
        ranges.retain(|_, (s, e)| s < e);
        let mut out = Batches::new(self.options.include_headers);
        if ranges.is_empty() {
            return out.finish();
        }
        let mut tpl = TopicPartitionList::new();
        for ((t, p), (s, _)) in &ranges {
            tpl.add_partition_offset(t, *p, KafkaOffset::Offset(*s))
                .map_err(|e| self.broker_error("assigning partitions", e))?;
        }
        self.consumer
            .assign(&tpl)
            .map_err(|e| self.broker_error("assigning partitions", e))?;
        // a partition paused at the end of the last batch stays paused
        // through a new assignment: resume them all
        self.consumer
            .resume(&tpl)
            .map_err(|e| self.broker_error("resuming partitions", e))?;
        let deadline = Instant::now() + self.options.timeout;
        // per partition: its range and the next offset expected; found by a
        // scan (a batch reads few partitions), so no key is built per record
        let mut reading: Vec<Reading> = ranges
            .into_iter()
            .map(|((topic, partition), (start, end))| Reading {
                topic,
                partition,
                start,
                end,
                next: start,
            })
            .collect();
        let mut open = reading.len();
        while open > 0 {
            if Instant::now() > deadline {
                let _ = self.consumer.unassign();
                let behind: Vec<String> = reading
                    .iter()
                    .filter(|r| !r.done())
                    .map(|r| {
                        format!(
                            "{}-{} [{}, {}) read to {}",
                            r.topic, r.partition, r.start, r.end, r.next
                        )
                    })
                    .collect();
                return Err(self.broker_error(
                    "reading a batch's records",
                    format!(
                        "{open} partition(s) did not reach their end offsets: {}",
                        behind.join(", ")
                    ),
                ));
            }
            match self.consumer.poll(Duration::from_millis(100)) {
                None => {
                    // offsets with no record (transaction markers, compaction)
                    if let Ok(pos) = self.consumer.position() {
                        for el in pos.elements() {
                            let (KafkaOffset::Offset(o), Some(r)) =
                                (el.offset(), find(&mut reading, el.topic(), el.partition()))
                            else {
                                continue;
                            };
                            if o >= r.end && !r.done() {
                                r.next = r.end;
                                open -= 1;
                            }
                        }
                    }
                }
                Some(Err(e)) => {
                    let _ = self.consumer.unassign();
                    return Err(self.broker_error("reading records", e));
                }
                Some(Ok(m)) => {
                    let Some(r) = find(&mut reading, m.topic(), m.partition()) else {
                        continue;
                    };
                    if m.offset() < r.next || r.done() {
                        continue;
                    }
                    if m.offset() < r.end {
                        out.push(&m);
                    }
                    r.next = m.offset() + 1;
                    if r.done() {
                        open -= 1;
                        // fetch no further for it while the others finish
                        let mut done = TopicPartitionList::new();
                        done.add_partition(&r.topic, r.partition);
                        let _ = self.consumer.pause(&done);
                    }
                }
            }
        }
        let _ = self.consumer.unassign();
        out.finish()
    }

    /// Spark's `failOnDataLoss`: an error, or a warning and go on.
    fn data_loss(&self, what: &str) -> Result<()> {
        let message = format!(
            "{what}. Some data may have been lost because they are not available in Kafka any \
             more; either the data was aged out by Kafka or the topic may have been deleted \
             before all the data in the topic was processed. If you don't want your streaming \
             query to fail on such cases, set the source option \"failOnDataLoss\" to \"false\"."
        );
        if self.options.fail_on_data_loss {
            Err(Error::Input {
                condition: "KAFKA_DATA_LOSS".into(),
                message,
            })
        } else {
            log::warn!("{message}");
            Ok(())
        }
    }
}

/// A partition's range being read, and the next offset expected.
struct Reading {
    topic: String,
    partition: i32,
    start: i64,
    end: i64,
    next: i64,
}

impl Reading {
    fn done(&self) -> bool {
        self.next >= self.end
    }
}

fn find<'a>(reading: &'a mut [Reading], topic: &str, partition: i32) -> Option<&'a mut Reading> {
    reading
        .iter_mut()
        .find(|r| r.partition == partition && r.topic == topic)
}

/// Record batches of Kafka records being built.
struct Batches {
    keys: BinaryBuilder,
    values: BinaryBuilder,
    topics: StringBuilder,
    partitions: Int32Builder,
    offsets: Int64Builder,
    timestamps: TimestampMicrosecondBuilder,
    types: Int32Builder,
    headers: Option<ListBuilder<StructBuilder>>,
}

impl Batches {
    fn new(include_headers: bool) -> Self {
        Batches {
            keys: BinaryBuilder::new(),
            values: BinaryBuilder::new(),
            topics: StringBuilder::new(),
            partitions: Int32Builder::new(),
            offsets: Int64Builder::new(),
            timestamps: TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            types: Int32Builder::new(),
            headers: include_headers.then(|| {
                ListBuilder::new(StructBuilder::from_fields(header_fields(), 0))
                    .with_field(Arc::new(Field::new("element", header_type(), true)))
            }),
        }
    }

    fn push<M: Message>(&mut self, m: &M) {
        self.keys.append_option(m.key());
        self.values.append_option(m.payload());
        self.topics.append_value(m.topic());
        self.partitions.append_value(m.partition());
        self.offsets.append_value(m.offset());
        let (ts, kind) = match m.timestamp() {
            Timestamp::NotAvailable => (None, -1),
            Timestamp::CreateTime(t) => (Some(t), 0),
            Timestamp::LogAppendTime(t) => (Some(t), 1),
        };
        self.timestamps.append_option(ts.map(|t| t * 1000));
        self.types.append_value(kind);
        if let Some(list) = &mut self.headers {
            if let Some(hs) = m.headers() {
                let entries = list.values();
                for h in hs.iter() {
                    if let Some(b) = entries.field_builder::<StringBuilder>(0) {
                        b.append_value(h.key);
                    }
                    if let Some(b) = entries.field_builder::<BinaryBuilder>(1) {
                        b.append_option(h.value);
                    }
                    entries.append(true);
                }
            }
            list.append(true);
        }
    }

    fn finish(mut self) -> Result<Vec<RecordBatch>> {
        let mut cols: Vec<ArrayRef> = vec![
            Arc::new(self.keys.finish()),
            Arc::new(self.values.finish()),
            Arc::new(self.topics.finish()),
            Arc::new(self.partitions.finish()),
            Arc::new(self.offsets.finish()),
            Arc::new(self.timestamps.finish()),
            Arc::new(self.types.finish()),
        ];
        let include_headers = self.headers.is_some();
        if let Some(h) = &mut self.headers {
            cols.push(Arc::new(h.finish()));
        }
        Ok(vec![RecordBatch::try_new(schema(include_headers), cols)?])
    }
}

/// A batch read (`spark.read.format("kafka")`): the records between the
/// starting and ending offsets.
pub fn read_batch(options: &HashMap<String, String>) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let options = Arc::new(KafkaOptions::new(options, true)?);
    let client = Client::new(Arc::clone(&options))?;
    let parts = client.partitions()?;
    let marks = client.all_watermarks(&parts)?;
    let start = client.resolve(&options.starting, &parts, &marks)?;
    let end = client.resolve(&options.ending, &parts, &marks)?;
    let batches = client.read(&start, &end, &marks)?;
    Ok((schema(options.include_headers), batches))
}

/// `spark.readStream.format("kafka")`.
#[derive(Debug)]
pub struct KafkaFactory {
    options: Arc<KafkaOptions>,
}

impl KafkaFactory {
    /// Check the options (keys lower-cased).
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        Ok(KafkaFactory {
            options: Arc::new(KafkaOptions::new(options, false)?),
        })
    }
}

impl SourceFactory for KafkaFactory {
    fn supports_real_time(&self) -> bool {
        true
    }

    fn schema(&self) -> SchemaRef {
        schema(self.options.include_headers)
    }

    fn create(&self, ctx: &SourceContext) -> Result<Box<dyn Source>> {
        let client = Client::new(Arc::clone(&self.options))?;
        // fail at start on an unreachable cluster or a missing topic
        client.partitions()?;
        Ok(Box::new(KafkaSource {
            client,
            initial_file: ctx.metadata_dir.as_ref().map(|d| d.join("0")),
            fsync: ctx.fsync,
            current: None,
            last_batch_at: Instant::now(),
            cap: None,
            taken: 0,
            marks: Marks::new(),
            all_available: false,
        }))
    }
}

struct KafkaSource {
    client: Client,
    /// Where the offsets the query started from are kept (Spark's
    /// `sources/<n>/0`), so that a restart before the first batch commits
    /// starts from the same place.
    initial_file: Option<PathBuf>,
    /// Whether its writes are fsynced.
    fsync: bool,
    /// The end of the last batch planned (where the next starts).
    current: Option<Offsets>,
    /// When the last batch was planned (`maxTriggerDelay`).
    last_batch_at: Instant,
    /// `availableNow`: the latest offsets when it started.
    cap: Option<Offsets>,
    /// Offsets taken since `availableNow` started, and its total.
    taken: u64,
    /// Each partition's (earliest, latest) at the last trigger: the batch's
    /// read checks its range against them, the metrics its lag.
    marks: Marks,
    /// With `Trigger.Once`: `minOffsetsPerTrigger` and `maxOffsetsPerTrigger` ignored.
    all_available: bool,
}

fn to_offset(o: &Offsets) -> Result<Offset> {
    serde_json::to_value(o).map_err(|e| Error::Internal(format!("Kafka offsets as JSON: {e}")))
}

fn from_offset(o: &Offset) -> Result<Offsets> {
    serde_json::from_value(o.clone()).map_err(|e| Error::Checkpoint {
        condition: "CHECKPOINT_FILE_CORRUPT".into(),
        message: format!(
            "A Kafka offset in the checkpoint is not of the form {{\"topic\":{{\"0\":23}}}}: {e}: {o}"
        ),
    })
}

fn count(start: &Offsets, end: &Offsets) -> u64 {
    end.iter()
        .flat_map(|(t, ps)| {
            ps.iter().map(move |(p, e)| {
                let s = start.get(t).and_then(|m| m.get(p)).copied().unwrap_or(0);
                (e - s).max(0) as u64
            })
        })
        .sum()
}

impl KafkaSource {
    /// The offsets the query started from: read from the checkpoint, or
    /// resolved now and written there.
    fn initial(&mut self) -> Result<Offsets> {
        if let Some(f) = &self.initial_file {
            if let Ok(text) = std::fs::read_to_string(f) {
                let json = text.lines().skip(1).collect::<Vec<_>>().join("\n");
                return parse_offsets("the checkpoint's initial offsets", &json).map_err(|e| {
                    Error::Checkpoint {
                        condition: "CHECKPOINT_FILE_CORRUPT".into(),
                        message: format!("{} is corrupt: {e}", f.display()),
                    }
                });
            }
        }
        let parts = self.client.partitions()?;
        let marks = self.client.all_watermarks(&parts)?;
        let offsets = self
            .client
            .resolve(&self.client.options.starting, &parts, &marks)?;
        if let Some(f) = &self.initial_file {
            if let Some(dir) = f.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::io(dir.display().to_string(), e))?;
            }
            let text = format!("v1\n{}", to_offset(&offsets)?);
            crate::checkpoint::log::write_atomic_with(f, self.fsync, |out| {
                use std::io::Write;
                out.write_all(text.as_bytes())
                    .map_err(|e| Error::io(f.display().to_string(), e))
            })?;
        }
        Ok(offsets)
    }

    /// `maxOffsetsPerTrigger`: split the limit over the partitions by how
    /// far each is behind, as Spark does.
    fn rate_limit(start: &Offsets, latest: &Offsets, limit: u64) -> Offsets {
        let behind = count(start, latest);
        if behind <= limit {
            return latest.clone();
        }
        let mut out = Offsets::new();
        let mut left = limit;
        for (t, ps) in latest {
            for (p, e) in ps {
                let s = start.get(t).and_then(|m| m.get(p)).copied().unwrap_or(0);
                let lag = (e - s).max(0) as u64;
                let share = ((lag as f64 / behind as f64) * limit as f64).floor() as u64;
                let take = share.min(left).min(lag);
                left -= take;
                // a partition below its start stays there (data loss, found on reading)
                let at = if *e < s { *e } else { s + take as i64 };
                out.entry(t.clone()).or_default().insert(*p, at);
            }
        }
        // what flooring left over goes to the partitions still behind
        for (t, ps) in out.iter_mut() {
            for (p, at) in ps.iter_mut() {
                if left == 0 {
                    break;
                }
                let e = latest[t][p];
                let more = ((e - *at).max(0) as u64).min(left);
                *at += more as i64;
                left -= more;
            }
        }
        out
    }
}

impl Source for KafkaSource {
    fn description(&self) -> String {
        format!("KafkaV2[{}]", self.client.options.topics.describe())
    }

    fn schema(&self) -> SchemaRef {
        schema(self.client.options.include_headers)
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let start = match &self.current {
            Some(c) => c.clone(),
            None => {
                let i = self.initial()?;
                self.current = Some(i.clone());
                i
            }
        };
        let parts = self.client.partitions()?;
        self.marks = self.client.all_watermarks(&parts)?;
        let mut latest = Offsets::new();
        for ((t, p), (_, high)) in &self.marks {
            let mut at = *high;
            if let Some(cap) = &self.cap {
                // availableNow: nothing past what existed when it started
                at = cap
                    .get(t)
                    .and_then(|m| m.get(p))
                    .copied()
                    .unwrap_or(at)
                    .min(at);
            }
            latest.entry(t.clone()).or_default().insert(*p, at);
        }
        let o = &self.client.options;
        if let Some(min) = o.min_per_trigger.filter(|_| !self.all_available) {
            let waited = self.last_batch_at.elapsed() >= o.max_trigger_delay;
            if count(&start, &latest) < min && !waited {
                return Ok(Some(to_offset(&start)?));
            }
        }
        if let Some(max) = o.max_per_trigger.filter(|_| !self.all_available) {
            latest = Self::rate_limit(&start, &latest, max);
        }
        if latest != start {
            self.last_batch_at = Instant::now();
        }
        if latest.is_empty() {
            return Ok(None);
        }
        self.current = Some(latest.clone());
        Ok(Some(to_offset(&latest)?))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let start = match start {
            Some(s) => from_offset(s)?,
            None => self.initial()?,
        };
        let end = from_offset(end)?;
        let batches = self.client.read(&start, &end, &self.marks)?;
        // the next batch starts where this one ends (also after a batch
        // re-run on restart)
        let current = self.current.get_or_insert_with(Offsets::new);
        for (t, ps) in &end {
            current.entry(t.clone()).or_default().extend(ps);
        }
        if self.cap.is_some() {
            self.taken += count(&start, &end);
        }
        let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let table = MemTable::try_new(self.schema(), vec![batches])?;
        Ok(BatchInput {
            provider: Arc::new(table),
            num_rows,
        })
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.current = committed.map(from_offset).transpose()?;
        Ok(())
    }

    fn ignore_read_limits(&mut self) {
        let o = &self.client.options;
        if o.min_per_trigger.is_some() || o.max_per_trigger.is_some() {
            log::warn!(
                "The read limit of {} (minOffsetsPerTrigger / maxOffsetsPerTrigger) is ignored when Trigger.Once is used.",
                self.description()
            );
        }
        self.all_available = true;
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        let parts = self.client.partitions()?;
        let marks = self.client.all_watermarks(&parts)?;
        self.cap = Some(
            marks
                .iter()
                .fold(Offsets::new(), |mut o, ((t, p), (_, high))| {
                    o.entry(t.clone()).or_default().insert(*p, *high);
                    o
                }),
        );
        self.taken = 0;
        Ok(())
    }

    /// Spark's: how far the batch's end is behind each partition's latest.
    fn metrics(&self, end: Option<&Offset>) -> BTreeMap<String, String> {
        let Some(end) = end.and_then(|e| from_offset(e).ok()) else {
            return BTreeMap::new();
        };
        let behind: Vec<i64> = self
            .marks
            .iter()
            .map(|((t, p), (_, high))| {
                let at = end.get(t).and_then(|m| m.get(p)).copied().unwrap_or(0);
                (high - at).max(0)
            })
            .collect();
        if behind.is_empty() {
            return BTreeMap::new();
        }
        let avg = behind.iter().sum::<i64>() as f64 / behind.len() as f64;
        BTreeMap::from([
            ("avgOffsetsBehindLatest".into(), format!("{avg:?}")),
            (
                "maxOffsetsBehindLatest".into(),
                behind.iter().max().copied().unwrap_or(0).to_string(),
            ),
            (
                "minOffsetsBehindLatest".into(),
                behind.iter().min().copied().unwrap_or(0).to_string(),
            ),
        ])
    }

    fn backlog(&self) -> Option<Backlog> {
        let cap = self.cap.as_ref()?;
        let start = self.current.as_ref()?;
        Some(Backlog {
            done: self.taken,
            total: self.taken + count(start, cap),
            unit: "offsets",
        })
    }
}
