"""Real-time mode (``trigger(realTime=...)``, Spark 4.1) and continuous
processing (``trigger(continuous=...)``): records are processed as they
arrive inside long-running batches whose length is the checkpoint interval;
results equal the micro-batch run's; restarts; Spark's restrictions."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import log_entries, step
from sparklet.errors import AnalysisException, IllegalArgumentException, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

#: Why most tests here run on sparklet only: Spark 4.3 runs real-time mode
#: over Kafka only (PySpark here has no Kafka connector), and continuous
#: mode over rate and Kafka, not over the file source PySpark's
#: MemoryStream stand-in is.
REAL_TIME_SOURCES = "real-time mode over a memory, rate or socket source (Spark 4.3: Kafka only; docs/differences.md)"
KAFKA = "PySpark's pip package has no Kafka connector (spark-sql-kafka comes from Maven, out of reach here)"
CONTINUOUS_MEMORY = "continuous mode over a MemoryStream (PySpark's stand-in is a file source, which it refuses)"


def latest_per_key(rows: list, key: str) -> dict:
    """The last update of each key (update mode emits a group every time it changes)."""
    out: dict = {}
    for r in rows:
        out[r[key]] = r.asDict() if hasattr(r, "asDict") else dict(r)
    return out


def memory_rows(spark: SparkSession, schema: str, build, chunks: list, trigger: dict, name: str) -> list:  # noqa: ANN001
    """Feed ``chunks`` to a memory stream through ``build(df)`` into a memory
    table under ``trigger`` (update mode), one chunk at a time; its rows."""
    ms = MemoryStream(spark, schema)
    q = build(ms.toDF()).writeStream.format("memory").queryName(name).outputMode("update").trigger(**trigger).start()
    for chunk in chunks:
        step(q, ms, chunk)
    rows = spark.table(name).collect()
    q.stop()
    return rows


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_rows_reach_the_sink_before_the_batch_ends(
    spark: SparkSession, tmp_path: Path, memory_sink_in_real_time: None
) -> None:
    ms = MemoryStream(spark, "id INT, v STRING")
    q = (
        ms.toDF()
        .where("id % 2 = 0")
        .select("id", F.upper("v").alias("v"))
        .writeStream.format("memory")
        .queryName("rt_stateless")
        .outputMode("update")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(realTime="5 minutes")
        .start()
    )
    ms.addData([(1, "a"), (2, "b"), (4, "c")])
    q.processAllAvailable()
    assert sorted(tuple(r) for r in spark.table("rt_stateless").collect()) == [(2, "B"), (4, "C")]
    ms.addData([(6, "d")])
    q.processAllAvailable()
    assert sorted(r.id for r in spark.table("rt_stateless").collect()) == [2, 4, 6]
    # still inside the first five-minute batch: nothing checkpointed yet
    assert log_entries(tmp_path / "ck", "commits") == []
    assert q.lastProgress is None
    q.stop()
    # stopping ends the batch: its offsets and commit are written
    assert log_entries(tmp_path / "ck", "offsets") == [0]
    assert log_entries(tmp_path / "ck", "commits") == [0]


def run_counts(spark: SparkSession, data: list[list[tuple]], trigger: dict, name: str) -> dict:
    def counts(df):  # noqa: ANN001, ANN202
        return df.groupBy("k").agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top"))

    return latest_per_key(memory_rows(spark, "k STRING, v INT", counts, data, trigger, name), "k")


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_a_stateful_aggregation_ends_where_the_micro_batch_run_does(
    spark: SparkSession, short_batches: None, memory_sink_in_real_time: None
) -> None:
    data = [[(f"k{i % 7}", i) for i in range(j * 50, j * 50 + 50)] for j in range(6)]
    micro = run_counts(spark, data, {"processingTime": "0 seconds"}, "agg_micro")
    real_time = run_counts(spark, data, {"realTime": "200 milliseconds"}, "agg_rt")
    assert real_time == micro
    assert sum(r["n"] for r in micro.values()) == 300


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_a_restart_continues_the_state_of_the_log_entries(
    spark: SparkSession, tmp_path: Path, short_batches: None, memory_sink_in_real_time: None
) -> None:
    ms = MemoryStream(spark, "k STRING")

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .groupBy("k")
            .count()
            .writeStream.format("memory")
            .queryName("rt_restart")
            .outputMode("update")
            .option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(realTime="300 milliseconds")
            .start()
        )

    q = start()
    ms.addData([("a",), ("a",), ("b",)])
    q.processAllAvailable()
    time.sleep(0.5)  # let a batch end and commit
    ms.addData([("a",)])
    q.processAllAvailable()
    q.stop()
    assert log_entries(tmp_path / "ck", "commits")
    q = start()
    ms.addData([("a",), ("c",)])
    q.processAllAvailable()
    counts = {r.k: r["count"] for r in spark.table("rt_restart").collect()}
    assert counts == {"a": 4, "c": 1}
    q.stop()


class FailOnce:
    """A foreach writer that fails at a given row the first time it sees it."""

    def __init__(self, poison: str) -> None:
        self.poison, self.failed, self.rows, self.opened = poison, False, [], []

    def open(self, partition_id: int, epoch_id: int) -> bool:
        self.opened.append(epoch_id)
        return True

    def process(self, row) -> None:  # noqa: ANN001
        if row.k == self.poison and not self.failed:
            self.failed = True
            raise ValueError("sink down")
        self.rows.append((row.k, row["count"]))

    def close(self, error) -> None:  # noqa: ANN001
        pass


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_a_failed_batch_runs_again_from_the_committed_state(
    spark: SparkSession, tmp_path: Path, short_batches: None, memory_sink_in_real_time: None
) -> None:
    ms = MemoryStream(spark, "k STRING")
    writer = FailOnce("boom")

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .groupBy("k")
            .count()
            .writeStream.foreach(writer)
            .outputMode("update")
            .option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(realTime="300 milliseconds")
            .start()
        )

    q = start()
    ms.addData([("a",), ("a",)])
    q.processAllAvailable()
    time.sleep(0.5)  # batch 0 (a: 2) commits
    ms.addData([("a",)])
    q.processAllAvailable()
    ms.addData([("boom",)])
    with pytest.raises(StreamingQueryException, match="sink down"):
        q.awaitTermination(10)
    failed_batch = writer.opened[-1]
    assert failed_batch >= 1
    # the failed batch was not logged: the restart runs it again from the
    # committed state, so "a" counts 3, not 4
    q = start()
    q.processAllAvailable()
    q.stop()
    last = dict(writer.rows)
    assert last == {"a": 3, "boom": 1}
    assert writer.opened.count(failed_batch) == 2  # the same epoch again (at-least-once)


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_progress_and_listener_events_per_long_running_batch(
    spark: SparkSession, short_batches: None, memory_sink_in_real_time: None
) -> None:
    from sparklet.sql.streaming import StreamingQueryListener

    events = []

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event) -> None:  # noqa: ANN001
            pass

        def onQueryProgress(self, event) -> None:  # noqa: ANN001
            events.append(event.progress)

        def onQueryIdle(self, event) -> None:  # noqa: ANN001
            pass

        def onQueryTerminated(self, event) -> None:  # noqa: ANN001
            pass

    listener = Listener()
    spark.streams.addListener(listener)
    try:
        ms = MemoryStream(spark, "id INT")
        q = (
            ms.toDF()
            .writeStream.format("memory")
            .queryName("rt_progress")
            .outputMode("update")
            .trigger(realTime="200 milliseconds")
            .start()
        )
        ms.addData([(i,) for i in range(5)])
        q.processAllAvailable()
        ms.addData([(i,) for i in range(5, 8)])
        q.processAllAvailable()
        deadline = time.time() + 10
        while q.lastProgress is None and time.time() < deadline:
            time.sleep(0.05)
        q.stop()
    finally:
        spark.streams.removeListener(listener)
    progress = [p for p in q.recentProgress if p["numInputRows"] > 0]
    assert sum(p["numInputRows"] for p in progress) == 8
    assert progress[0]["batchId"] == 0
    assert progress[0]["sink"]["numOutputRows"] == progress[0]["numInputRows"]
    assert {"addBatch", "triggerExecution"} <= set(progress[0]["durationMs"])
    deadline = time.time() + 5
    while len([e for e in events if e["id"] == q.id]) < len(progress) and time.time() < deadline:
        time.sleep(0.05)
    # the bus is session-wide: events of earlier tests' queries may still arrive
    mine = [e["batchId"] for e in events if e["id"] == q.id and e["numInputRows"] > 0]
    assert mine == [p["batchId"] for p in progress]


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_the_rate_source_releases_rows_as_their_time_comes(spark: SparkSession, short_batches: None) -> None:
    seen: list[tuple[float, object]] = []

    def record(row) -> None:  # noqa: ANN001
        seen.append((time.time(), row.timestamp))

    q = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 200)
        .load()
        .writeStream.foreach(record)
        .outputMode("update")
        .trigger(realTime="200 milliseconds")
        .start()
    )
    deadline = time.time() + 10
    while len(seen) < 150 and time.time() < deadline:
        time.sleep(0.05)
    q.stop()
    assert len(seen) >= 150
    # a second's rows arrive through the second, not in one lump at its end
    lags = sorted(arrived - ts.timestamp() for arrived, ts in seen[50:150])
    assert lags[len(lags) // 2] < 0.25


@pytest.mark.sparklet_only(reason=CONTINUOUS_MEMORY)
def test_continuous_map_query_equals_the_micro_batch_run(spark: SparkSession) -> None:
    def run(trigger: dict, name: str) -> list:
        def mapped(df):  # noqa: ANN001, ANN202
            return df.where("id > 1").select((F.col("id") * 10).alias("x"), F.concat("v", F.lit("!")).alias("v"))

        chunks = [[(1, "a"), (2, "b")], [(3, "c")], [(4, "d"), (5, "e")]]
        return sorted(tuple(r) for r in memory_rows(spark, "id INT, v STRING", mapped, chunks, trigger, name))

    continuous = run({"continuous": "1 second"}, "cont_map")
    assert continuous == run({"processingTime": "0 seconds"}, "micro_map")
    assert continuous == [(20, "b!"), (30, "c!"), (40, "d!"), (50, "e!")]


@pytest.mark.sparklet_only(reason=CONTINUOUS_MEMORY)
def test_continuous_restart_resumes_after_the_checkpointed_epoch(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    got: list[int] = []

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .writeStream.foreach(lambda r: got.append(r.id))
            .option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(continuous="200 milliseconds")
            .start()
        )

    q = start()
    ms.addData([(1,), (2,)])
    q.processAllAvailable()
    q.stop()
    q = start()
    ms.addData([(3,)])
    q.processAllAvailable()
    q.stop()
    assert got == [1, 2, 3]


@pytest.mark.sparklet_only(reason=KAFKA)
def test_kafka_in_real_time_mode(spark: SparkSession, short_batches: None, memory_sink_in_real_time: None) -> None:
    servers = os.environ.get("SPARKLET_KAFKA_BOOTSTRAP")
    if not servers:
        pytest.fail("no Kafka broker: run the tests through tools/with_kafka.sh")
    from test_kafka import new_topic, produce

    topic = new_topic(servers)
    q = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .select(F.col("value").cast("string").alias("v"))
        .groupBy("v")
        .count()
        .writeStream.format("memory")
        .queryName("rt_kafka")
        .outputMode("update")
        .trigger(realTime="200 milliseconds")
        .start()
    )
    produce(servers, topic, [{"value": v.encode()} for v in ["x", "y", "x"]])
    deadline = time.time() + 20
    counts: dict = {}
    while counts != {"x": 2, "y": 1} and time.time() < deadline:
        q.processAllAvailable()
        counts = {k: r["count"] for k, r in latest_per_key(spark.table("rt_kafka").collect(), "v").items()}
    q.stop()
    assert counts == {"x": 2, "y": 1}


class Discard:
    """A ``foreach`` writer that drops the rows (a sink real-time mode allows)."""

    def open(self, partition_id: int, epoch_id: int) -> bool:
        return True

    def process(self, row) -> None:  # noqa: ANN001
        pass

    def close(self, error) -> None:  # noqa: ANN001
        pass


@pytest.mark.parametrize(
    ("build", "condition", "message"),
    [
        (
            lambda df: df.writeStream.foreach(Discard()).outputMode("append").trigger(realTime="5 minutes"),
            "STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED",
            "The output mode Append is not supported",
        ),
        (
            lambda df: df.writeStream.foreach(Discard()).outputMode("update").trigger(realTime="1 second"),
            "INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL",
            "1000 ms. This is less than the 5000 ms minimum",
        ),
        (
            lambda df: (
                df.writeStream.foreachBatch(lambda t, i: None).outputMode("update").trigger(realTime="5 minutes")
            ),
            "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
            "The sink(s): org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink is not in the sink allowlist",
        ),
        (
            # the sink is checked first: an append-mode query into memory is refused for its sink
            lambda df: df.writeStream.format("memory").queryName("refused").trigger(realTime="5 minutes"),
            "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
            "The sink(s): org.apache.spark.sql.execution.streaming.sources.MemorySink is not in the sink allowlist",
        ),
        (
            lambda df: df.groupBy("id").count().writeStream.foreach(Discard()).trigger(continuous="1 second"),
            "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
            "Invalid streaming output mode: append.",
        ),
        (
            lambda df: (
                df.select("id", F.current_timestamp()).writeStream.foreach(Discard()).trigger(continuous="1 second")
            ),
            "_LEGACY_ERROR_TEMP_3102",
            "Continuous processing does not support current time operations.",
        ),
        (
            lambda df: df.writeStream.foreachBatch(lambda t, i: None).trigger(continuous="1 second"),
            "_LEGACY_ERROR_TEMP_1195",
            "'foreachBatch' is not supported with continuous trigger.",
        ),
    ],
)
def test_what_the_low_latency_modes_refuse(spark: SparkSession, build, condition: str, message: str) -> None:  # noqa: ANN001
    df = spark.readStream.format("rate").load().selectExpr("CAST(value AS INT) AS id", "CAST(value AS STRING) AS v")
    with pytest.raises((AnalysisException, IllegalArgumentException)) as err:
        build(df).start()
    assert err.value.getCondition() == condition
    assert message in str(err.value)


@pytest.mark.sparklet_only(reason="refused at start() (Spark: when the first batch runs; docs/differences.md)")
def test_what_real_time_mode_refuses_at_start(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT, v STRING")
    other = MemoryStream(spark, "id INT, w STRING").toDF()
    joined = ms.toDF().join(other, "id").writeStream.foreach(Discard()).outputMode("update")
    with pytest.raises(IllegalArgumentException) as err:
        joined.trigger(realTime="5 minutes").start()
    assert err.value.getCondition() == "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST"
    assert "StreamingSymmetricHashJoin is not in the operator allowlist" in str(err.value)
    files = spark.readStream.schema("id INT").json(str(tmp_path))
    with pytest.raises(AnalysisException, match="The input stream FileStreamSource is not supported in Real-time Mode"):
        files.writeStream.foreach(Discard()).outputMode("update").trigger(realTime="5 minutes").start()


def test_continuous_mode_refuses_file_sources(spark: SparkSession, tmp_path: Path) -> None:
    files = spark.readStream.schema("id INT").json(str(tmp_path))
    with pytest.raises(AnalysisException, match="Continuous processing does not support StreamingRelation operations"):
        files.writeStream.format("noop").trigger(continuous="1 second").start()


CHILD = """
import json, sys
from sparklet.sql import SparkSession, functions as F

servers, topic, ckpt, out = sys.argv[1:5]
spark = SparkSession.builder.config("spark.sql.streaming.realTimeMode.minBatchDuration", "100").getOrCreate()
counts = (
    spark.readStream.format("kafka").option("kafka.bootstrap.servers", servers).option("subscribe", topic)
    .option("startingOffsets", "earliest").load()
    .select(F.col("value").cast("string").alias("k")).groupBy("k").count()
)
sink = open(out, "a")

def write(row):
    sink.write(json.dumps([row.k, row["count"]]) + "\\n")
    sink.flush()

q = (counts.writeStream.outputMode("update").option("checkpointLocation", ckpt).foreach(write)
     .trigger(realTime="300 milliseconds").start())
q.awaitTermination()
"""


@pytest.mark.sparklet_only(reason=KAFKA)
def test_counts_are_exactly_once_through_kills(tmp_path: Path) -> None:
    """SIGKILL a real-time aggregation over Kafka at random moments: the
    state restarts from the last committed long-running batch every time,
    so the final counts equal what was produced (none lost, none twice)."""
    import json
    import random
    import signal
    import subprocess
    import sys

    servers = os.environ.get("SPARKLET_KAFKA_BOOTSTRAP")
    if not servers:
        pytest.fail("no Kafka broker: run the tests through tools/with_kafka.sh")
    from test_kafka import new_topic, produce

    topic = new_topic(servers)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = tmp_path / "out.jsonl"
    rng = random.Random(7)
    produced: dict[str, int] = {}

    def start() -> subprocess.Popen:
        args = [sys.executable, str(script), servers, topic, str(tmp_path / "ck"), str(out)]
        return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def send(keys: list[str]) -> None:
        produce(servers, topic, [{"value": k.encode()} for k in keys])
        for k in keys:
            produced[k] = produced.get(k, 0) + 1

    for _ in range(6):
        send([f"k{rng.randrange(5)}" for _ in range(40)])
        child = start()
        time.sleep(rng.uniform(0.6, 2.0))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, err.decode()
    # the last run: one more message per key, so every key reports its total
    out.write_text("")
    send([f"k{i}" for i in range(5)])
    child = start()
    latest: dict[str, int] = {}
    deadline = time.time() + 60
    while latest != produced and time.time() < deadline and child.poll() is None:
        time.sleep(0.1)
        for line in out.read_text().splitlines():
            k, n = json.loads(line)
            latest[k] = n
    child.kill()
    _, err = child.communicate()
    assert latest == produced, err.decode()[-2000:]


@pytest.mark.sparklet_only(reason=REAL_TIME_SOURCES)
def test_deduplication_ends_where_the_micro_batch_run_does(
    spark: SparkSession, short_batches: None, memory_sink_in_real_time: None
) -> None:
    def run(trigger: dict, name: str) -> list:
        chunks = [[("a", 1), ("b", 2), ("a", 3)], [("b", 4), ("c", 5)], [("c", 6), ("d", 7)]]
        rows = memory_rows(spark, "k STRING, v INT", lambda df: df.dropDuplicates(["k"]), chunks, trigger, name)
        return sorted(tuple(r) for r in rows)

    real_time = run({"realTime": "200 milliseconds"}, "dedup_rt")
    assert real_time == run({"processingTime": "0 seconds"}, "dedup_micro")
    assert real_time == [("a", 1), ("b", 2), ("c", 5), ("d", 7)]
