"""Event-time windows and withWatermark on batch DataFrames (streams: test_streaming_aggregation.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sparklet.errors import AnalysisException, IllegalArgumentException, PySparkTypeError
from sparklet.sql import DataFrame, SparkSession
from sparklet.sql import functions as F


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


@pytest.fixture
def events(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(t(s), "a" if s < 10 else "b") for s in [1, 4, 7, 12, 16]], "ts TIMESTAMP, k STRING")


def test_tumbling_window_groups_by_start_and_end(events: DataFrame) -> None:
    out = events.groupBy(F.window("ts", "10 seconds")).count().orderBy("window").collect()
    assert [(r.window.start, r.window.end, r["count"]) for r in out] == [(t(0), t(10), 3), (t(10), t(20), 2)]
    assert events.groupBy(F.window("ts", "10 seconds")).count().columns == ["window", "count"]


def test_sliding_window_puts_a_row_in_every_window_containing_it(events: DataFrame) -> None:
    out = events.groupBy(F.window("ts", "10 seconds", "5 seconds"), "k").agg(F.count("*").alias("n"))
    rows = sorted((r.window.start, r.k, r.n) for r in out.collect())
    assert rows == [(t(-5), "a", 2), (t(0), "a", 3), (t(5), "a", 1), (t(5), "b", 1), (t(10), "b", 2), (t(15), "b", 1)]


def test_rows_without_a_time_have_no_window(spark: SparkSession) -> None:
    # Spark filters null times out below any window(): no null-window group
    df = spark.createDataFrame([(t(1), "a"), (None, "a"), (t(12), "b")], "ts TIMESTAMP, k STRING")
    tumbling = df.groupBy(F.window("ts", "10 seconds")).count().orderBy("window").collect()
    assert [(r.window.start, r["count"]) for r in tumbling] == [(t(0), 1), (t(10), 1)]
    sliding = df.groupBy(F.window("ts", "10 seconds", "5 seconds")).count().collect()
    assert sorted((r.window.start, r["count"]) for r in sliding) == [(t(-5), 1), (t(0), 1), (t(5), 1), (t(10), 1)]
    assert [r.k for r in df.select("k", F.window("ts", "10 seconds")).collect()] == ["a", "b"]
    assert df.count() == 3  # only what reads a window loses the row


def test_window_start_time_and_window_time(events: DataFrame) -> None:
    out = events.groupBy(F.window("ts", "10 seconds", startTime="3 seconds")).count().orderBy("window").collect()
    assert [(r.window.start, r["count"]) for r in out] == [(t(-7), 1), (t(3), 3), (t(13), 1)]
    (row,) = events.limit(1).select(F.window_time(F.window("ts", "10 seconds"))).collect()
    assert row["window_time(window)"] == t(10) - dt.timedelta(microseconds=1)


def test_with_watermark_is_a_no_op_on_batches_and_checks_streams(events: DataFrame, tmp_path: Path) -> None:
    assert events.withWatermark("ts", "10 seconds").count() == 5
    # on a batch Spark drops it unchecked: another type, even a missing column
    assert events.withWatermark("k", "10 seconds").count() == 5
    assert events.withWatermark("nope", "10 seconds").count() == 5
    for delay in ("soon", "10s", "5 ms"):  # Spark's interval strings: whole unit names
        with pytest.raises(AnalysisException, match="CANNOT_PARSE_INTERVAL"):
            events.withWatermark("ts", delay)
    with pytest.raises(IllegalArgumentException, match=r"delay threshold \(-5 seconds\) should not be negative"):
        events.withWatermark("ts", "-5 seconds")
    assert events.withWatermark("ts", "1 month").count() == 5
    stream = events.sparkSession.readStream.schema("ts TIMESTAMP, k STRING").json(str(tmp_path))
    with pytest.raises(AnalysisException) as err:
        stream.withWatermark("k", "10 seconds")
    assert err.value.getCondition() == "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"
    with pytest.raises(AnalysisException, match="nope"):
        stream.withWatermark("nope", "10 seconds")


def test_bad_window_arguments(events: DataFrame) -> None:
    with pytest.raises(PySparkTypeError):
        F.window("ts", 10)  # type: ignore[arg-type]
    with pytest.raises(AnalysisException) as err:
        events.groupBy(F.window("ts", "5 seconds", "10 seconds")).count().collect()
    assert err.value.getCondition() == "DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION"
    assert "The `slide_duration`(10000000L) must be <= the `window_duration`(5000000L)" in str(err.value)


def test_show_renders_structs_and_arrays_as_spark(events: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    events.limit(1).select(F.window("ts", "10 seconds"), F.split(F.lit("a b"), " ").alias("parts")).show(truncate=False)
    out = capsys.readouterr().out.splitlines()
    assert out[3] == "|{2024-01-01 00:00:00, 2024-01-01 00:00:10}|[a, b]|"
