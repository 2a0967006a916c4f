"""Sinks, triggers, the StreamingQuery handle and spark.streams."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid

import pyarrow as pa
import pytest

from conftest import dicts, wait_until
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream


@pytest.mark.sparklet_only(reason="foreachBatch hands a pyarrow.Table (PySpark: a DataFrame; docs/differences.md)")
def test_foreach_batch_gets_a_pyarrow_table_and_batch_ids(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    got: list[tuple[int, pa.Table]] = []
    q = (
        ms.toDF()
        .select((F.col("id") * 2).alias("twice"))
        .writeStream.foreachBatch(lambda t, i: got.append((i, t)))
        .start()
    )
    ms.addData([(1,), (2,)])
    q.processAllAvailable()
    ms.addData([(3,)])
    q.processAllAvailable()
    assert [i for i, _ in got] == [0, 1]
    assert isinstance(got[0][1], pa.Table)
    assert got[0][1].column("twice").to_pylist() == [2, 4]
    assert got[1][1].to_pandas()["twice"].tolist() == [6]


@pytest.mark.sparklet_only(reason="Spark's console sink prints from the JVM, outside Python's sys.stdout")
def test_console_sink_prints_batches(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    q = ms.toDF().writeStream.format("console").option("numRows", 1).start()
    ms.addData([(1, "a" * 30), (2, "b")])
    q.processAllAvailable()
    q.stop()
    out = capsys.readouterr().out
    assert "Batch: 0" in out
    assert "aaaaaaaaaaaaaaaaa..." in out  # truncated to 20 characters
    assert "only showing top 1 row" in out


def test_noop_sink_counts_rows(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.format("noop").start()
    ms.addData([(i,) for i in range(10)])
    q.processAllAvailable()
    assert q.lastProgress["sink"]["numOutputRows"] == 10


def test_noop_sink_counts_rows_of_a_stateful_batch_it_never_holds(spark: SparkSession) -> None:
    # a batch of several record batches through a deduplication: the rows
    # reach the noop sink's count as they are computed, none kept
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().dropDuplicates(["id"]).writeStream.format("noop").start()
    try:
        ms.addData([(i % 100_000,) for i in range(150_000)])
        q.processAllAvailable()
        assert q.lastProgress["sink"]["numOutputRows"] == 100_000
        assert q.lastProgress["stateOperators"][0]["numRowsTotal"] == 100_000
        ms.addData([(i,) for i in range(99_990, 100_010)])
        q.processAllAvailable()
        assert q.lastProgress["sink"]["numOutputRows"] == 10
        assert q.lastProgress["stateOperators"][0]["numRowsTotal"] == 100_010
    finally:
        q.stop()


def test_trigger_once_and_available_now_stop_by_themselves(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    ms.addData([(1,)])
    ms.addData([(2,)])
    q = ms.toDF().writeStream.format("memory").queryName("once_out").trigger(once=True).start()
    assert q.awaitTermination(20) is True
    assert not q.isActive
    assert spark.table("once_out").count() == 2
    assert len([p for p in q.recentProgress if p["numInputRows"] > 0]) == 1


def test_processing_time_trigger_spaces_batches(spark: SparkSession) -> None:
    df = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 1).load()
    q = df.writeStream.format("noop").trigger(processingTime="200 milliseconds").start()
    time.sleep(1.1)
    q.stop()
    n = len([p for p in q.recentProgress if p["numInputRows"] > 0])
    assert 3 <= n <= 7, n
    assert q.status["message"] == "Stopped"


def test_a_query_without_data_reports_its_first_idle_progress_at_once(spark: SparkSession) -> None:
    # Spark reports the first trigger that finds no data at once, then one
    # idle progress per spark.sql.streaming.noDataProgressEventInterval (10 s)
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().groupBy("id").count().writeStream.outputMode("update").format("noop").start()
    try:
        wait_until(lambda: q.lastProgress is not None, timeout=60)
        p = q.lastProgress
        assert (p["batchId"], p["numInputRows"], p["stateOperators"]) == (0, 0, [])
        assert len(q.recentProgress) == 1
    finally:
        q.stop()


def test_query_identity_status_and_progress_fields(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.format("memory").queryName("progress_q").start()
    assert uuid.UUID(q.id) and uuid.UUID(q.runId) and q.id != q.runId
    assert q.name == "progress_q" and q.isActive
    ms.addData([(1,), (2,), (3,)])
    q.processAllAvailable()
    p = q.lastProgress
    for key in [
        "id",
        "runId",
        "name",
        "timestamp",
        "batchId",
        "batchDuration",
        "numInputRows",
        "inputRowsPerSecond",
        "processedRowsPerSecond",
        "durationMs",
        "stateOperators",
        "sources",
        "sink",
    ]:
        assert key in p, key
    # as in PySpark 4: UUIDs as attributes, their strings by key
    assert (
        p.id == uuid.UUID(q.id)
        and p["id"] == q.id
        and p["runId"] == q.runId
        and p["batchId"] == 0
        and p["numInputRows"] == 3
    )
    assert set(p["durationMs"]) >= {
        "latestOffset",
        "getBatch",
        "queryPlanning",
        "addBatch",
        "walCommit",
        "commitOffsets",
        "triggerExecution",
    }
    # a source's offsets are JSON text (PySpark's SourceProgress)
    assert p["sources"][0]["startOffset"] == "null" and isinstance(p["sources"][0]["endOffset"], str)
    assert p["sink"] == {"description": "MemorySink", "numOutputRows": 3, "metrics": {}}
    assert p.eventTime == {} and p.observedMetrics == {}  # empty, not missing
    assert json.loads(p.json)["batchId"] == 0 and "\n" in p.prettyJson
    assert p["timestamp"].endswith("Z") and "T" in p["timestamp"]
    status = q.status
    assert set(status) == {"message", "isDataAvailable", "isTriggerActive"}
    assert status["message"] == "Waiting for data to arrive" and status["isTriggerActive"] is False
    assert [r["batchId"] for r in q.recentProgress if r["numInputRows"]] == [0]  # and idle ones before it
    q.stop()
    assert not q.isActive and q.exception() is None


@pytest.mark.sparklet_only(reason="MemoryStream is sparklet's (PySpark's stand-in is a file source)")
def test_a_memory_stream_in_progress(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.format("memory").queryName("ms_progress").start()
    ms.addData([(1,)])
    q.processAllAvailable()
    source = q.lastProgress["sources"][0]
    assert (source["description"], source["startOffset"], source["endOffset"]) == ("MemoryStream[id]", "null", "0")
    q.stop()


def test_a_memory_table_is_readable_from_start_while_batches_land(spark: SparkSession) -> None:
    rate = spark.readStream.format("rate").option("rowsPerSecond", 1000).load()
    q = rate.writeStream.format("memory").queryName("rate_polled").trigger(processingTime="10 milliseconds").start()
    counts = []
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and (len(counts) < 20 or counts[-1] == 0):
        counts.append(spark.table("rate_polled").count())  # never "not found" mid-batch
    q.stop()
    assert counts == sorted(counts) and counts[-1] > 0


def test_recent_progress_is_bounded_by_conf(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.streaming.numRecentProgressUpdates", 2)
    try:
        ms = MemoryStream(spark, "id INT")
        q = ms.toDF().writeStream.format("noop").start()
        for i in range(4):
            ms.addData([(i,)])
            q.processAllAvailable()
        # Spark keeps one fewer than the setting
        assert [p["batchId"] for p in q.recentProgress] == [3]
    finally:
        spark.conf.unset("spark.sql.streaming.numRecentProgressUpdates")


def test_stream_manager_active_get_and_await_any(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    q1 = ms.toDF().writeStream.format("noop").queryName("m1").start()
    q2 = ms.toDF().writeStream.format("noop").queryName("m2").start()
    assert {q.name for q in spark.streams.active} == {"m1", "m2"}
    assert spark.streams.get(q1.id).name == "m1"
    assert spark.streams.awaitAnyTermination(0.2) is False
    q1.stop()
    assert spark.streams.awaitAnyTermination(5) is True
    assert [q.name for q in spark.streams.active] == ["m2"]
    spark.streams.resetTerminated()
    assert spark.streams.awaitAnyTermination(0.1) is False
    q2.stop()
    assert spark.streams.get(q2.id) is None


def test_explain_prints_the_plan(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().where("id > 1").writeStream.format("noop").start()
    q.explain()
    assert capsys.readouterr().out == "No physical plan. Waiting for data.\n"
    ms.addData([(1,), (2,)])
    q.processAllAvailable()
    q.explain()
    out = capsys.readouterr().out
    assert "Physical Plan" in out and re.search(r"id[#@]\d+ > 1", out)
    # as Spark: the logical plans only when extended
    assert out.startswith("== Physical Plan ==") and "Logical Plan" not in out
    q.explain(extended=True)
    assert "== Optimized Logical Plan ==" in capsys.readouterr().out
    q.stop()


def test_sql_over_a_streaming_temp_view(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    ms.toDF().createOrReplaceTempView("words_stream")
    df = spark.sql("SELECT id * 10 AS id10, upper(word) AS w FROM words_stream WHERE id > 1")
    assert df.isStreaming
    q = df.withColumns({"n": F.length("w"), "one": F.lit(1)}).writeStream.format("memory").queryName("sql_out").start()
    ms.addData([(1, "a"), (2, "bb")])
    q.processAllAvailable()
    assert [tuple(r) for r in spark.table("sql_out").collect()] == [(20, "BB", 2, 1)]


def test_a_pipeline_that_never_touches_pandas_does_not_import_it(tmp_path) -> None:  # noqa: ANN001
    # importing pandas costs about 0.4 s: a query's first batch must not pay it
    import pyarrow.parquet as pq

    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"id": [1, 2, 3]}), tmp_path / "in" / "part-0.parquet")
    script = f"""
import sys
from sparklet.sql import SparkSession, functions as F
spark = SparkSession.builder.getOrCreate()
got = []
q = (spark.readStream.schema("id BIGINT").parquet({str(tmp_path / "in")!r})
     .select((F.col("id") + 1).alias("n"))
     .writeStream.foreachBatch(lambda t, i: got.append(t.num_rows))
     .trigger(availableNow=True).start())
q.awaitTermination()
assert got == [3], got
print("pandas" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_progress_durations_add_up_and_rates_follow_rows_and_times(spark: SparkSession) -> None:
    import datetime as dt

    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().groupBy("id").count().writeStream.outputMode("update").format("noop").start()
    for b in range(3):
        ms.addData([(i,) for i in range(100 * (b + 1))])
        q.processAllAvailable()
    batches = [p for p in q.recentProgress if p["numInputRows"]]
    assert [p["numInputRows"] for p in batches] == [100, 200, 300]
    for p in batches:
        d = p["durationMs"]
        parts = ["latestOffset", "getBatch", "queryPlanning", "addBatch", "walCommit", "commitOffsets"]
        # the phases lie within the trigger (each rounded down to a ms)
        assert all(d[k] >= 0 for k in parts)
        assert sum(d[k] for k in parts) <= d["triggerExecution"] + len(parts)
        # the batch's whole span: the trigger and the little around it (Spark: a few ms)
        assert d["triggerExecution"] - 1 <= p["batchDuration"] <= d["triggerExecution"] + 20
        # processed rate: the batch's rows over its processing time
        seconds = max(d["triggerExecution"], 1) / 1000
        assert p["processedRowsPerSecond"] == pytest.approx(p["numInputRows"] / seconds, rel=0.05)
        [source] = p["sources"]
        assert source["numInputRows"] == p["numInputRows"]
        assert source["processedRowsPerSecond"] == pytest.approx(p["processedRowsPerSecond"])
    # input rate: the rows over the time since the previous trigger started;
    # Spark's idle loop runs empty triggers in between (sparklet's waits), so
    # the time is at most the gap since the previous batch (docs/monitoring.md)
    compared = 0
    for prev, p in zip(batches, batches[1:]):
        start = dt.datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00"))
        before = dt.datetime.fromisoformat(prev["timestamp"].replace("Z", "+00:00"))
        gap = (start - before).total_seconds()
        if gap > 0:
            assert p["inputRowsPerSecond"] >= p["numInputRows"] / gap * 0.95
            compared += 1
    assert compared >= 1


def test_each_batch_plans_its_own_current_timestamp(spark: SparkSession) -> None:
    # batches skip the optimizer when they can; not when an expression
    # depends on when it is planned: each batch has its own time
    ms = MemoryStream(spark, "id INT")
    times: list = []
    q = (
        ms.toDF()
        .select("id", F.current_timestamp().alias("at"))
        .writeStream.foreachBatch(lambda tbl, _: times.extend(r["at"] for r in dicts(tbl)))
        .start()
    )
    ms.addData([(1,)])
    q.processAllAvailable()
    time.sleep(0.05)  # so that the next batch's time is another
    ms.addData([(2,)])
    q.processAllAvailable()
    q.stop()
    assert len(times) == 2 and times[1] > times[0]


def test_batches_planned_once_still_filter_and_project_each_batch(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    got: list = []
    q = (
        ms.toDF()
        .where(F.col("id") % 2 == 0)
        .select((F.col("id") * 10).alias("x"), F.upper("word").alias("w"))
        .writeStream.foreachBatch(lambda tbl, i: got.append((i, dicts(tbl))))
        .start()
    )
    for rows in ([(1, "a"), (2, "b")], [(3, "c")], [(4, "d"), (6, "e")]):
        ms.addData(rows)
        q.processAllAvailable()
    q.stop()
    assert [rows for _, rows in got if rows] == [
        [{"x": 20, "w": "B"}],
        [{"x": 40, "w": "D"}, {"x": 60, "w": "E"}],
    ]
