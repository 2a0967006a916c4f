//! `writeStream.format("kafka")` and `df.write.format("kafka")`: each row a
//! record, from Spark's columns `topic`, `key`, `value`, `headers`,
//! `partition`. At-least-once, as Spark's sink: a batch is sent, then
//! flushed until every record is acknowledged, before it commits; a crash
//! between the two sends the batch again (docs/kafka.md shows how a
//! consumer drops the repeats).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, Int32Array, ListArray, RecordBatch, StringArray,
    StructArray,
};
use arrow::compute::cast;
use arrow::datatypes::DataType;
use parking_lot::Mutex;
use rdkafka::error::KafkaError;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::ClientContext;

use super::{Sink, SinkBatch};
use crate::error::{Error, Result};
use crate::sources::kafka::{client_options, config};

/// Keeps the first failed delivery of a batch.
#[derive(Default)]
struct Deliveries {
    failed: Mutex<Option<String>>,
}

impl ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((e, m)) = result {
            use rdkafka::message::Message;
            let mut failed = self.failed.lock();
            if failed.is_none() {
                *failed = Some(format!(
                    "a record to {}-{} was not delivered: {e}",
                    m.topic(),
                    m.partition()
                ));
            }
        }
    }
}

/// A producer writing rows as records.
pub struct KafkaWriter {
    producer: ThreadedProducer<Deliveries>,
    topic: Option<String>,
    timeout: Duration,
    servers: String,
}

/// A row's column, by Spark's name, as the type the sink needs.
fn column(b: &RecordBatch, name: &str) -> Option<ArrayRef> {
    let i = b
        .schema()
        .fields()
        .iter()
        .position(|f| f.name().eq_ignore_ascii_case(name))?;
    Some(Arc::clone(b.column(i)))
}

fn bytes_column(b: &RecordBatch, name: &str) -> Result<Option<BinaryArray>> {
    let Some(c) = column(b, name) else {
        return Ok(None);
    };
    match c.data_type() {
        DataType::Binary
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::LargeBinary
        | DataType::Utf8View
        | DataType::BinaryView
        | DataType::Null => {
            let c = cast(&c, &DataType::Binary)?;
            Ok(Some(c.as_binary::<i32>().clone()))
        }
        other => Err(Error::analysis(
            "KAFKA_INVALID_COLUMN",
            format!("{name} attribute type must be a string or binary, found {other}"),
        )),
    }
}

impl KafkaWriter {
    /// A producer for `options` (keys lower-cased): `kafka.*` client
    /// options, and `topic` (which overrides a `topic` column).
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        let (client, timeout) = client_options(options)?;
        let servers = options
            .get("kafka.bootstrap.servers")
            .cloned()
            .unwrap_or_default();
        let mut c = config(&client);
        if !client.iter().any(|(k, _)| k == "message.timeout.ms") {
            c.set("message.timeout.ms", timeout.as_millis().to_string());
        }
        let producer: ThreadedProducer<Deliveries> =
            c.create_with_context(Deliveries::default()).map_err(|e| {
                Error::illegal_argument(format!("Cannot create a Kafka producer: {e}"))
            })?;
        Ok(KafkaWriter {
            producer,
            topic: options.get("topic").cloned(),
            timeout,
            servers,
        })
    }

    fn fail(&self, what: impl std::fmt::Display) -> Error {
        Error::Input {
            condition: "KAFKA_BROKER_ERROR".into(),
            message: format!("Kafka sink (brokers {}): {what}", self.servers),
        }
    }

    /// Send every row of `batches`, then wait until all are acknowledged.
    pub fn write(&self, batches: &[RecordBatch]) -> Result<()> {
        for b in batches {
            self.send_batch(b)?;
        }
        self.producer
            .flush(self.timeout)
            .map_err(|e| self.fail(format!("records not acknowledged in time: {e}")))?;
        if let Some(e) = self.producer.context().failed.lock().take() {
            return Err(self.fail(e));
        }
        Ok(())
    }

    fn send_batch(&self, b: &RecordBatch) -> Result<()> {
        let values = bytes_column(b, "value")?.ok_or_else(|| {
            Error::analysis(
                "KAFKA_INVALID_COLUMN",
                "Required attribute 'value' not found",
            )
        })?;
        let keys = bytes_column(b, "key")?;
        let topics =
            match (&self.topic, column(b, "topic")) {
                (Some(_), _) => None,
                (None, Some(c)) => Some(cast(&c, &DataType::Utf8)?.as_string::<i32>().clone()),
                (None, None) => return Err(Error::analysis(
                    "KAFKA_INVALID_COLUMN",
                    "topic option required when no 'topic' attribute is present. Use the topic \
                     option for setting a topic.",
                )),
            };
        let partitions: Option<Int32Array> = column(b, "partition")
            .map(|c| cast(&c, &DataType::Int32).map(|c| c.as_primitive().clone()))
            .transpose()?;
        let headers: Option<ListArray> = match column(b, "headers") {
            None => None,
            Some(c) => match c.data_type() {
                DataType::List(_) => Some(c.as_list::<i32>().clone()),
                other => {
                    return Err(Error::analysis(
                        "KAFKA_INVALID_COLUMN",
                        format!(
                            "headers attribute type must be array<struct<key:string,value:binary>>, found {other}"
                        ),
                    ))
                }
            },
        };
        for row in 0..b.num_rows() {
            let topic: &str = match (&self.topic, &topics) {
                (Some(t), _) => t,
                (None, Some(ts)) if ts.is_valid(row) => ts.value(row),
                _ => {
                    return Err(Error::analysis(
                        "KAFKA_INVALID_COLUMN",
                        format!("row {row} has a null topic"),
                    ))
                }
            };
            let mut record: BaseRecord<'_, [u8], [u8], ()> = BaseRecord::to(topic);
            if values.is_valid(row) {
                record = record.payload(values.value(row));
            }
            if let Some(k) = keys.as_ref().filter(|k| k.is_valid(row)) {
                record = record.key(k.value(row));
            }
            if let Some(p) = partitions.as_ref().filter(|p| p.is_valid(row)) {
                record = record.partition(p.value(row));
            }
            if let Some(h) = headers.as_ref().filter(|h| h.is_valid(row)) {
                record = record.headers(row_headers(&h.value(row))?);
            }
            self.send(record)?;
        }
        Ok(())
    }

    /// Send, waiting for room in the producer's queue when it is full.
    fn send<'a>(&self, mut record: BaseRecord<'a, [u8], [u8], ()>) -> Result<()> {
        let deadline = std::time::Instant::now() + self.timeout;
        loop {
            match self.producer.send(record) {
                Ok(()) => return Ok(()),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r))
                    if std::time::Instant::now() < deadline =>
                {
                    record = r;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err((e, r)) => {
                    return Err(self.fail(format!("cannot send a record to {}: {e}", r.topic)))
                }
            }
        }
    }
}

/// One row's headers: a list of (key string, value binary) structs.
fn row_headers(list: &ArrayRef) -> Result<OwnedHeaders> {
    let bad = || {
        Error::analysis(
            "KAFKA_INVALID_COLUMN",
            "headers attribute type must be array<struct<key:string,value:binary>>",
        )
    };
    let s: &StructArray = list.as_struct_opt().ok_or_else(bad)?;
    if s.num_columns() != 2 {
        return Err(bad());
    }
    let k = cast(s.column(0), &DataType::Utf8)?;
    let k: &StringArray = k.as_string();
    let v = cast(s.column(1), &DataType::Binary)?;
    let v: &BinaryArray = v.as_binary();
    let mut out = OwnedHeaders::new_with_capacity(s.len());
    for i in 0..s.len() {
        out = out.insert(Header {
            key: if k.is_valid(i) { k.value(i) } else { "" },
            value: v.is_valid(i).then(|| v.value(i)),
        });
    }
    Ok(out)
}

/// The streaming sink: a [`KafkaWriter`] per query.
pub struct KafkaSink {
    writer: KafkaWriter,
}

impl KafkaSink {
    /// Check the options and create the producer.
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        Ok(KafkaSink {
            writer: KafkaWriter::new(options)?,
        })
    }
}

impl Sink for KafkaSink {
    fn description(&self) -> String {
        "org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@sparklet".into()
    }

    fn add_batch(&mut self, _batch_id: i64, data: SinkBatch) -> Result<()> {
        self.writer.write(&data.batches)
    }
    fn supports_real_time(&self) -> bool {
        true
    }
    fn supports_async_progress(&self) -> bool {
        true
    }
}
