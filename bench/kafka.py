"""Kafka -> windowed aggregation -> Kafka throughput against a real broker.

Produces ``--events`` records (a page name each, with event timestamps
spread over ``--seconds`` of event time) to a fresh input topic with the
confluent-kafka client, then runs, with ``availableNow`` and a checkpoint:

    readStream.format("kafka") -> count per (10 s window, page) -> writeStream.format("kafka")

in batches of ``--max-offsets`` offsets, and prints events/s of the query
(start to end; the window counts read back from the output topic are checked
against counts made while producing). For reference, in the same run: the
rate at which confluent-kafka (librdkafka, C) consumes the same topic, which
is the broker's ceiling, and sparklet's Kafka -> noop read. Needs a broker:
``tools/with_kafka.sh python bench/kafka.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from collections import Counter

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from sparklet.sql import SparkSession
from sparklet.sql import functions as F

PAGES = [f"/page/{i}" for i in range(100)]


def make_topic(bootstrap: str, partitions: int) -> str:
    name = f"bench-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
        f.result(timeout=60)
    return name


def produce(bootstrap: str, topic: str, events: int, seconds: int, partitions: int) -> Counter:
    """Write the events; return the expected count per (window start ms, page)."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000})
    expected: Counter = Counter()
    base = 1_700_000_000_000
    for i in range(events):
        page = PAGES[(i * 7919) % len(PAGES)]
        ts = base + (i * seconds * 1000) // events
        expected[(ts // 10_000 * 10_000, page)] += 1
        while True:
            try:
                p.produce(topic, value=page.encode(), partition=i % partitions, timestamp=ts)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(120) == 0
    return expected


def consume_rate(bootstrap: str, topic: str, partitions: int, events: int) -> float:
    """Events/s of a bare confluent-kafka consumer reading the whole topic."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex, "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    t0, got = time.perf_counter(), 0
    while got < events:
        got += sum(1 for m in c.consume(10_000, 1.0) if not m.error())
    rate = events / (time.perf_counter() - t0)
    c.close()
    return rate


def read_counts(bootstrap: str, topic: str, partitions: int) -> Counter:
    """The output topic's records (``window_start_ms,page,count``), last per key."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex})
    ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=60)[1] for p in range(partitions)}
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    latest: dict = {}
    seen, deadline = 0, time.time() + 120
    while seen < sum(ends.values()) and time.time() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        seen += 1
        start, page, n = m.value().decode().split(",")
        latest[(int(start), page)] = int(n)  # update mode: the last is the total
    c.close()
    return Counter(latest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    # the test broker (tansu, debug build, SQLite) serves about 10-20K records/s
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--seconds", type=int, default=600, help="event time the events span")
    ap.add_argument("--partitions", type=int, default=4)
    # 0: no cap, one batch. The test broker answers a fetch with every record
    # after its offset (not a partition's max bytes), so each capped batch
    # costs a read of the rest of the topic; cap batches on a real Kafka
    ap.add_argument("--max-offsets", type=int, default=0)
    args = ap.parse_args()
    bootstrap = os.environ.get("SPARKLET_KAFKA_BOOTSTRAP")
    if not bootstrap:
        raise SystemExit("no broker: run as tools/with_kafka.sh python bench/kafka.py")

    src = make_topic(bootstrap, args.partitions)
    out = make_topic(bootstrap, args.partitions)
    t0 = time.perf_counter()
    expected = produce(bootstrap, src, args.events, args.seconds, args.partitions)
    print(f"produced {args.events:,} events in {time.perf_counter() - t0:.1f} s (confluent-kafka)")
    ceiling = consume_rate(bootstrap, src, args.partitions, args.events)

    spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "4").getOrCreate()

    def source():
        return (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", src)
            .option("startingOffsets", "earliest")
            .options(**({"maxOffsetsPerTrigger": str(args.max_offsets)} if args.max_offsets else {}))
            .load()
        )

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        q = (
            source()
            .writeStream.format("noop")
            .option("checkpointLocation", f"{tmp}/read")
            .trigger(availableNow=True)
            .start()
        )
        q.awaitTermination()
        read_s = time.perf_counter() - t0

        counts = (
            source()
            .withWatermark("timestamp", "10 seconds")
            .groupBy(F.window("timestamp", "10 seconds"), F.col("value").cast("string").alias("page"))
            .count()
            .select(
                # keyed by window and page: a key's updates land in one partition, in order
                F.concat_ws(",", F.col("window.start").cast("string"), "page").alias("key"),
                F.concat_ws(
                    ",",
                    (F.col("window.start").cast("long") * 1000).cast("string"),
                    "page",
                    F.col("count").cast("string"),
                ).alias("value"),
            )
        )
        t0 = time.perf_counter()
        q = (
            counts.writeStream.format("kafka")
            .outputMode("update")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", out)
            .option("checkpointLocation", f"{tmp}/agg")
            .trigger(availableNow=True)
            .start()
        )
        q.awaitTermination()
        agg_s = time.perf_counter() - t0
        batches = sum(1 for p in q.recentProgress if p["numInputRows"])
        # the engine's share: aggregating, checkpointing state and writing to
        # the sink (addBatch), without fetching from the broker (getBatch)
        engine_s = sum(p["durationMs"].get("addBatch", 0) for p in q.recentProgress) / 1000

    got = read_counts(bootstrap, out, args.partitions)
    if got != expected:
        wrong = [(k, got.get(k), v) for k, v in expected.items() if got.get(k) != v]
        raise SystemExit(
            f"{len(wrong)} of {len(expected)} window counts differ, e.g. {wrong[:3]}; read {list(got.items())[:3]}"
        )
    n = args.events
    print(f"confluent-kafka consumer (the broker's ceiling): {ceiling:>10,.0f} events/s")
    print(
        f"Kafka -> noop                                  : {n / read_s:>10,.0f} events/s "
        f"({read_s:.2f} s, {n / read_s / ceiling:.2f}x the ceiling)"
    )
    print(
        f"Kafka -> 10 s windows per page -> Kafka        : {n / agg_s:>10,.0f} events/s "
        f"({agg_s:.2f} s, {n / agg_s / ceiling:.2f}x the ceiling, {batches} batches, "
        f"{len(got):,} window counts checked)"
    )
    print(
        f"  of which aggregating and writing to Kafka    : {n / max(engine_s, 1e-9):>10,.0f} events/s "
        f"({engine_s:.2f} s; the rest is fetching from the broker)"
    )


if __name__ == "__main__":
    main()
