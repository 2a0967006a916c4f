"""Asynchronous progress tracking (``asyncProgressTrackingEnabled``): the
offsets and commit logs are written off the batch's path, at most once per
``asyncProgressTrackingCheckpointIntervalMs``; restarts resume from what was
logged; Spark's restrictions."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import log_entries, step
from sparklet.errors import IllegalArgumentException
from sparklet.sql import SparkSession
from sparklet.testing import MemoryStream


def memory_query(ms: MemoryStream, ckpt: Path, interval_ms: int, name: str):  # noqa: ANN201
    return (
        ms.toDF()
        .writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(ckpt))
        .option("asyncProgressTrackingEnabled", "true")
        .option("asyncProgressTrackingCheckpointIntervalMs", str(interval_ms))
        .start()
    )


def test_every_batch_is_logged_with_a_zero_interval(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    q = memory_query(ms, tmp_path / "ck", 0, "async_zero")
    for i in range(4):
        step(q, ms, [(i,)])
    q.stop()
    assert log_entries(tmp_path / "ck", "offsets") == [0, 1, 2, 3]
    assert log_entries(tmp_path / "ck", "commits") == [0, 1, 2, 3]
    assert sorted(r.id for r in spark.table("async_zero").collect()) == [0, 1, 2, 3]


def test_batches_within_the_interval_are_not_logged(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    ck = tmp_path / "ck"
    q = memory_query(ms, ck, 60_000, "async_within")
    for i in range(4):
        step(q, ms, [(i,)])
    # batch 0 was logged; 1, 2 and 3 fell within the minute
    deadline = time.time() + 5
    while log_entries(ck, "commits") != [0] and time.time() < deadline:
        time.sleep(0.02)
    assert log_entries(ck, "offsets") == [0]
    assert log_entries(ck, "commits") == [0]
    assert sorted(r.id for r in spark.table("async_within").collect()) == [0, 1, 2, 3]
    q.stop()


GRACEFUL_STOP = "a graceful stop logs the last batch (Spark leaves it out and replays it; docs/differences.md)"


@pytest.mark.sparklet_only(reason=GRACEFUL_STOP)
def test_a_graceful_stop_logs_the_last_batch_and_a_restart_continues(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    ck = tmp_path / "ck"
    q = memory_query(ms, ck, 60_000, "async_interval")
    for i in range(4):
        step(q, ms, [(i,)])
    q.stop()
    # a graceful stop logs the last batch: a restart goes on after it
    assert log_entries(ck, "offsets") == [0, 3]
    assert log_entries(ck, "commits") == [0, 3]
    q = memory_query(ms, ck, 60_000, "async_interval")
    ms.addData([(4,)])
    q.processAllAvailable()
    assert [r.id for r in spark.table("async_interval").collect()] == [4]
    assert q.lastProgress["batchId"] == 4
    q.stop()


@pytest.mark.sparklet_only(reason=GRACEFUL_STOP)
def test_a_crash_replays_from_the_last_logged_commit(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    ck = tmp_path / "ck"
    q = memory_query(ms, ck, 60_000, "async_crash")
    for i in range(3):
        step(q, ms, [(i,)])
    q.stop()
    assert log_entries(ck, "offsets") == [0, 2]
    # as if the process died before batch 2's commit reached the disk
    (ck / "commits" / "2").unlink()
    q = memory_query(ms, ck, 60_000, "async_crash")
    q.processAllAvailable()
    # batch 2 runs again from batch 0's offsets: rows 1 and 2 (at-least-once)
    assert sorted(r.id for r in spark.table("async_crash").collect()) == [1, 2]
    q.stop()
    assert log_entries(ck, "commits") == [0, 2]


@pytest.mark.parametrize(
    ("configure", "message"),
    [
        (lambda w: w.format("noop").trigger(once=True), "Async progress tracking cannot be used with Once trigger"),
        (
            lambda w: w.format("noop").trigger(availableNow=True),
            "Async progress tracking cannot be used with AvailableNow trigger",
        ),
        (lambda w: w.foreachBatch(lambda t, i: None), "Sink ForeachBatchSink does not support async progress tracking"),
    ],
)
def test_what_asynchronous_progress_tracking_refuses(spark: SparkSession, configure, message: str) -> None:  # noqa: ANN001
    ms = MemoryStream(spark, "id INT")
    writer = ms.toDF().writeStream.option("asyncProgressTrackingEnabled", "true")
    with pytest.raises(IllegalArgumentException, match=message):
        configure(writer).start()


@pytest.mark.sparklet_only(reason="refused at start() (Spark: when the first batch runs; docs/differences.md)")
def test_stateful_queries_are_refused(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    with pytest.raises(IllegalArgumentException, match="Stateful streaming queries does not support async progress"):
        (
            ms.toDF()
            .groupBy("id")
            .count()
            .writeStream.format("memory")
            .queryName("async_stateful")
            .outputMode("update")
            .option("asyncProgressTrackingEnabled", "true")
            .start()
        )


def test_bad_option_values_name_the_option(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    with pytest.raises(IllegalArgumentException, match='For input string: "soon"'):
        (
            ms.toDF()
            .writeStream.format("noop")
            .option("asyncProgressTrackingEnabled", "true")
            .option("asyncProgressTrackingCheckpointIntervalMs", "soon")
            .start()
        )


@pytest.mark.sparklet_only(reason="real-time mode over a memory source (Spark 4.3: Kafka only; docs/differences.md)")
def test_real_time_mode_logs_in_the_background_with_a_zero_interval(
    spark: SparkSession, tmp_path: Path, short_batches: None, memory_sink_in_real_time: None
) -> None:
    from sparklet.errors import AnalysisException

    ms = MemoryStream(spark, "id INT")
    writer = (
        ms.toDF()
        .writeStream.format("memory")
        .queryName("async_rt")
        .outputMode("update")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .option("asyncProgressTrackingEnabled", "true")
        .trigger(realTime="200 milliseconds")
    )
    with pytest.raises(AnalysisException, match="ASYNC_PROGRESS_TRACKING_CHECKPOINTING_INTERVAL_NON_ZERO"):
        writer.start()
    q = writer.option("asyncProgressTrackingCheckpointIntervalMs", "0").start()
    step(q, ms, [(1,), (2,)])
    q.stop()
    assert log_entries(tmp_path / "ck", "offsets") == [0]
    assert log_entries(tmp_path / "ck", "commits") == [0]
    assert sorted(r.id for r in spark.table("async_rt").collect()) == [1, 2]
