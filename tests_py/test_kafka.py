"""Kafka source and sink against a real Kafka-protocol broker (tansu), started
by ``tools/with_kafka.sh`` around the test run (``make py-test``); its address
is in ``SPARKLET_KAFKA_BOOTSTRAP``. Messages are produced and read back with
the confluent-kafka client."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from sparklet.errors import IllegalArgumentException, SparkRuntimeException, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

pytestmark = pytest.mark.sparklet_only(
    reason="PySpark's pip package has no Kafka connector (spark-sql-kafka comes from Maven, out of reach here)"
)


@pytest.fixture(scope="module")
def bootstrap() -> str:
    servers = os.environ.get("SPARKLET_KAFKA_BOOTSTRAP")
    if not servers:
        pytest.fail(
            "no Kafka broker: run the tests through tools/with_kafka.sh "
            "(`make py-test` does), which starts one and sets SPARKLET_KAFKA_BOOTSTRAP"
        )
    return servers


def new_topic(bootstrap: str, partitions: int = 1) -> str:
    """A topic of its own for a test (the broker never deletes one safely)."""
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
        f.result(timeout=30)
    return name


def produce(bootstrap: str, topic: str, records: list[dict]) -> None:
    p = Producer({"bootstrap.servers": bootstrap})
    for r in records:
        p.produce(topic, **r)
    assert p.flush(30) == 0


def consume_all(bootstrap: str, topic: str, partitions: int = 1) -> list:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex, "enable.auto.commit": False})
    ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(partitions)}
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out, deadline = [], time.time() + 30
    while sum(1 for m in out) < sum(ends.values()) and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            out.append(m)
    c.close()
    return out


def kafka_stream(spark: SparkSession, bootstrap: str, **options: str):
    r = spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    for k, v in options.items():
        r = r.option(k, v)
    return r.load()


class Batches:
    """foreachBatch target keeping each batch's rows."""

    def __init__(self) -> None:
        self.batches: list[list[dict]] = []

    def __call__(self, table, batch_id: int) -> None:
        self.batches.append(table.to_pylist())

    def rows(self) -> list[dict]:
        return [r for b in self.batches for r in b]


def test_every_message_once_across_restarts_and_rate_limited_batches(
    spark: SparkSession, bootstrap: str, tmp_path: Path
) -> None:
    topic = new_topic(bootstrap, partitions=3)
    produce(bootstrap, topic, [{"value": f"m{i}", "partition": i % 3} for i in range(30)])
    ckpt = str(tmp_path / "ckpt")

    def start(sink: Batches):
        df = kafka_stream(spark, bootstrap, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="7")
        return (
            df.select(F.col("value").cast("string").alias("v"), "partition", "offset")
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", ckpt)
            .start()
        )

    first = Batches()
    q = start(first)
    q.processAllAvailable()
    assert [len(b) for b in first.batches if b] == [7, 7, 7, 7, 2]
    progress = q.lastProgress["sources"][0]
    assert progress["description"] == f"KafkaV2[Subscribe[{topic}]]"
    assert json.loads(progress["endOffset"]) == {topic: {"0": 10, "1": 10, "2": 10}}
    # Spark's Kafka metrics: the last batch caught up with every partition
    assert progress["metrics"] == {
        "avgOffsetsBehindLatest": "0.0",
        "maxOffsetsBehindLatest": "0",
        "minOffsetsBehindLatest": "0",
    }
    first_batch = next(p for p in q.recentProgress if p["numInputRows"])["sources"][0]
    assert first_batch["metrics"]["maxOffsetsBehindLatest"] == "8"  # 10 per partition, 7 taken (3, 2, 2)
    q.stop()
    assert sorted(r["v"] for r in first.rows()) == sorted(f"m{i}" for i in range(30))

    produce(bootstrap, topic, [{"value": f"m{i}", "partition": i % 3} for i in range(30, 50)])
    second = Batches()
    q = start(second)
    q.processAllAvailable()
    q.stop()
    seen = [r["v"] for r in first.rows() + second.rows()]
    assert sorted(seen) == sorted(f"m{i}" for i in range(50))  # each once
    assert all(len(b) <= 7 for b in second.batches)


def test_columns_headers_and_batch_reads(spark: SparkSession, bootstrap: str) -> None:
    topic = new_topic(bootstrap, partitions=2)
    produce(
        bootstrap,
        topic,
        [
            {"key": b"k1", "value": b"v1", "partition": 0, "timestamp": 1_700_000_000_123, "headers": [("h", b"x")]},
            {"key": None, "value": b"v2", "partition": 1, "timestamp": 1_700_000_001_000},
            {"key": b"k3", "value": b"v3", "partition": 0, "timestamp": 1_700_000_002_000},
        ],
    )
    df = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("includeHeaders", "true")
        .load()
    )
    assert df.columns == ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers"]
    rows = sorted(df.collect(), key=lambda r: (r["partition"], r["offset"]))
    assert [(r["key"], r["value"], r["partition"], r["offset"]) for r in rows] == [
        (b"k1", b"v1", 0, 0),
        (b"k3", b"v3", 0, 1),
        (None, b"v2", 1, 0),
    ]
    assert rows[0]["topic"] == topic
    assert rows[0]["timestampType"] == 0
    assert rows[0]["timestamp"].timestamp() == pytest.approx(1_700_000_000.123)
    assert [(h["key"], h["value"]) for h in rows[0]["headers"]] == [("h", b"x")]
    assert rows[2]["headers"] == []

    # endingOffsets as JSON: partition 0 up to (not including) offset 1
    part = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", f'{{"{topic}": [0, 1]}}')
        .option("startingOffsets", f'{{"{topic}": {{"0": -2, "1": -2}}}}')
        .option("endingOffsets", f'{{"{topic}": {{"0": 1, "1": -1}}}}')
        .load()
    )
    assert sorted(r["value"] for r in part.collect()) == [b"v1", b"v2"]


def test_starting_offsets_latest_reads_only_new_messages(spark: SparkSession, bootstrap: str, tmp_path: Path) -> None:
    topic = new_topic(bootstrap)
    produce(bootstrap, topic, [{"value": b"old"}])
    sink = Batches()
    q = (
        kafka_stream(spark, bootstrap, subscribe=topic)
        .select(F.col("value").cast("string").alias("v"))
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    q.processAllAvailable()
    produce(bootstrap, topic, [{"value": b"new"}])
    q.processAllAvailable()
    q.stop()
    assert [r["v"] for r in sink.rows()] == ["new"]


def test_subscribe_pattern_reads_matching_topics(spark: SparkSession, bootstrap: str) -> None:
    prefix = f"p{uuid.uuid4().hex[:6]}"
    a, b = f"{prefix}-a", f"{prefix}-b"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(a, 1, 1), NewTopic(b, 1, 1)]).values():
        f.result(timeout=30)
    produce(bootstrap, a, [{"value": b"1"}])
    produce(bootstrap, b, [{"value": b"2"}])
    df = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribePattern", f"{prefix}-.*")
        .load()
    )
    assert sorted((r["topic"], r["value"]) for r in df.collect()) == [(a, b"1"), (b, b"2")]


def test_available_now_stops_at_what_existed(spark: SparkSession, bootstrap: str, tmp_path: Path) -> None:
    topic = new_topic(bootstrap)
    produce(bootstrap, topic, [{"value": str(i).encode()} for i in range(10)])
    sink = Batches()
    q = (
        kafka_stream(spark, bootstrap, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="4")
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination(60)
    assert not q.isActive
    assert [len(b) for b in sink.batches if b] == [4, 4, 2]


def test_trigger_once_takes_every_offset_whatever_the_read_limits(
    spark: SparkSession, bootstrap: str, tmp_path: Path
) -> None:
    topic = new_topic(bootstrap)
    produce(bootstrap, topic, [{"value": str(i).encode()} for i in range(10)])
    sink = Batches()
    limits = {"maxOffsetsPerTrigger": "4", "minOffsetsPerTrigger": "100", "maxTriggerDelay": "1h"}
    q = (
        kafka_stream(spark, bootstrap, subscribe=topic, startingOffsets="earliest", **limits)
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(once=True)
        .start()
    )
    q.awaitTermination(60)
    assert [len(b) for b in sink.batches if b] == [10]


def test_stream_written_to_a_topic_reads_back(spark: SparkSession, bootstrap: str, tmp_path: Path) -> None:
    topic = new_topic(bootstrap, partitions=2)
    ms = MemoryStream(spark, "k STRING, v STRING")
    q = (
        ms.toDF()
        .select(F.col("k").alias("key"), F.col("v").alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", topic)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    ms.addData([("a", "1"), ("b", "2")])
    q.processAllAvailable()
    ms.addData([("c", "3")])
    q.processAllAvailable()
    q.stop()
    got = consume_all(bootstrap, topic, partitions=2)
    assert sorted((m.key(), m.value()) for m in got) == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]


def test_batch_write_with_topic_partition_and_header_columns(spark: SparkSession, bootstrap: str) -> None:
    t1, t2 = new_topic(bootstrap, partitions=2), new_topic(bootstrap)
    df = spark.createDataFrame(
        [(t1, "x", 1, "h1"), (t2, "y", 0, "h2")], "topic STRING, value STRING, partition INT, hv STRING"
    ).select(
        "topic",
        "value",
        "partition",
        F.array(F.struct(F.lit("batch").alias("key"), F.col("hv").cast("binary").alias("value"))).alias("headers"),
    )
    df.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).save()
    (m1,) = consume_all(bootstrap, t1, partitions=2)
    (m2,) = consume_all(bootstrap, t2)
    assert (m1.value(), m1.partition(), m1.headers()) == (b"x", 1, [("batch", b"h1")])
    assert (m2.value(), m2.partition(), m2.headers()) == (b"y", 0, [("batch", b"h2")])


def test_sink_needs_a_value_column_and_a_topic(spark: SparkSession, bootstrap: str) -> None:
    from sparklet.errors import AnalysisException

    df = spark.createDataFrame([("a",)], "v STRING")
    with pytest.raises(AnalysisException, match="Required attribute 'value' not found"):
        df.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic", "x").save()
    df = spark.createDataFrame([("a",)], "value STRING")
    with pytest.raises(AnalysisException, match="topic option required"):
        df.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).save()


def test_bad_options_and_missing_topics_fail_at_start(spark: SparkSession, bootstrap: str) -> None:
    with pytest.raises(IllegalArgumentException, match="'auto.offset.reset' is not supported"):
        kafka_stream(spark, bootstrap, subscribe="x", **{"kafka.auto.offset.reset": "earliest"})
    with pytest.raises(IllegalArgumentException, match="Ending offset not valid in streaming queries"):
        kafka_stream(spark, bootstrap, subscribe="x", endingOffsets="latest")
    with pytest.raises(IllegalArgumentException, match="'subscribe', 'subscribePattern' or 'assign'"):
        kafka_stream(spark, bootstrap)
    missing = f"missing-{uuid.uuid4().hex[:8]}"
    df = kafka_stream(spark, bootstrap, subscribe=missing)
    with pytest.raises(IllegalArgumentException, match=f"topic '{missing}' does not exist"):
        df.writeStream.format("noop").start()
    df = kafka_stream(spark, bootstrap, subscribe=missing, **{"kafka.no.such.setting": "1"})
    with pytest.raises(IllegalArgumentException, match="no.such.setting"):
        df.writeStream.format("noop").start()


def test_unreachable_broker_is_an_error_not_a_hang(spark: SparkSession) -> None:
    df = kafka_stream(spark, "127.0.0.1:1", subscribe="x", **{"kafka.default.api.timeout.ms": "1500"})
    t0 = time.monotonic()
    with pytest.raises(SparkRuntimeException, match=r"KAFKA_BROKER_ERROR.*within 1500 ms \(brokers 127.0.0.1:1\)"):
        df.writeStream.format("noop").start()
    assert time.monotonic() - t0 < 30


def test_batch_id_headers_let_a_consumer_drop_a_replayed_batch(spark: SparkSession, bootstrap: str) -> None:
    """The at-least-once recipe of docs/kafka.md: a batch sent twice (as after
    a crash before its commit) is applied once by a consumer that tracks the
    last (batch, seq) per partition."""
    import pyarrow as pa

    topic = new_topic(bootstrap)

    def to_kafka(table: pa.Table, batch_id: int) -> None:
        table = table.append_column("seq", pa.array(range(table.num_rows), pa.int64()))

        def tag(k, v):
            return F.struct(F.lit(k).alias("key"), v.cast("string").cast("binary").alias("value"))

        (
            spark.createDataFrame(table)
            .select("value", F.array(tag("batch", F.lit(batch_id)), tag("seq", F.col("seq"))).alias("headers"))
            .write.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("kafka.enable.idempotence", "true")
            .option("topic", topic)
            .save()
        )

    to_kafka(pa.table({"value": ["a", "b"]}), 0)
    to_kafka(pa.table({"value": ["a", "b"]}), 0)  # the replay
    to_kafka(pa.table({"value": ["c"]}), 1)
    applied, last = [], {}
    for m in consume_all(bootstrap, topic):
        h = {k: int(v) for k, v in m.headers()}
        at = (h["batch"], h["seq"])
        if at <= last.get(m.partition(), (-1, -1)):
            continue
        last[m.partition()] = at
        applied.append(m.value())
    assert applied == [b"a", b"b", b"c"]


def test_offsets_past_the_end_are_data_loss_unless_allowed(spark: SparkSession, bootstrap: str, tmp_path: Path) -> None:
    """A partition whose offsets went back (as a recreated topic's do): the
    query fails naming the partition; with failOnDataLoss=false it goes on
    from the partition's end."""
    topic = new_topic(bootstrap)
    produce(bootstrap, topic, [{"value": f"m{i}".encode()} for i in range(5)])
    past = f'{{"{topic}": {{"0": 100}}}}'
    q = (
        kafka_stream(spark, bootstrap, subscribe=topic, startingOffsets=past)
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "strict"))
        .start()
    )
    with pytest.raises(StreamingQueryException, match=rf"{topic}-0's offset was changed from 100 to 5.*failOnDataLoss"):
        q.awaitTermination(60)

    sink = Batches()
    q = (
        kafka_stream(spark, bootstrap, subscribe=topic, startingOffsets=past, failOnDataLoss="false")
        .select(F.col("value").cast("string").alias("v"))
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "lenient"))
        .start()
    )
    q.processAllAvailable()
    produce(bootstrap, topic, [{"value": b"after"}])
    q.processAllAvailable()
    q.stop()
    assert [r["v"] for r in sink.rows()] == ["after"]


def test_subscribe_pattern_picks_up_a_topic_created_while_running(
    spark: SparkSession, bootstrap: str, tmp_path: Path
) -> None:
    prefix = f"n{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(f"{prefix}-1", 1, 1)]).values():
        f.result(timeout=30)
    produce(bootstrap, f"{prefix}-1", [{"value": b"first"}])
    sink = Batches()
    q = (
        kafka_stream(spark, bootstrap, subscribePattern=f"{prefix}-.*", startingOffsets="earliest")
        .select("topic", F.col("value").cast("string").alias("v"))
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    q.processAllAvailable()
    for f in admin.create_topics([NewTopic(f"{prefix}-2", 2, 1)]).values():
        f.result(timeout=30)
    produce(bootstrap, f"{prefix}-2", [{"value": b"a", "partition": 0}, {"value": b"b", "partition": 1}])
    q.processAllAvailable()
    q.stop()
    # the new topic's partitions are read from their start
    assert sorted((r["topic"], r["v"]) for r in sink.rows()) == [
        (f"{prefix}-1", "first"),
        (f"{prefix}-2", "a"),
        (f"{prefix}-2", "b"),
    ]


def test_min_offsets_per_trigger_waits_for_enough_data_or_the_delay(
    spark: SparkSession, bootstrap: str, tmp_path: Path
) -> None:
    topic = new_topic(bootstrap)
    produce(bootstrap, topic, [{"value": b"x"} for _ in range(3)])
    sink = Batches()
    q = (
        kafka_stream(
            spark,
            bootstrap,
            subscribe=topic,
            startingOffsets="earliest",
            minOffsetsPerTrigger="5",
            maxTriggerDelay="6 seconds",
        )
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    q.processAllAvailable()
    assert sink.rows() == []  # 3 < 5, and the delay has not passed
    produce(bootstrap, topic, [{"value": b"y"} for _ in range(2)])
    deadline = time.time() + 30
    while not sink.rows() and time.time() < deadline:
        time.sleep(0.05)
    assert [len(b) for b in sink.batches if b][0] == 5  # enough now: one batch of 5
    produce(bootstrap, topic, [{"value": b"z"}])
    deadline = time.time() + 30
    while len(sink.rows()) < 6 and time.time() < deadline:
        time.sleep(0.05)
    q.stop()
    assert len(sink.rows()) == 6  # 1 < 5, released by maxTriggerDelay
