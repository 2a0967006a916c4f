"""A streaming aggregation's window column, used as a user does: its fields
selected, cast or aliased. Each case gives what PySpark gives on the same
files (these run on both engines)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from conftest import write_json
from sparklet.sql import DataFrame, SparkSession
from sparklet.sql import functions as F

pytestmark = pytest.mark.usefixtures("state_provider")


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


def stream(spark: SparkSession, folder: Path, seconds: list[int]) -> DataFrame:
    """One JSON file per event time, read as a stream."""
    for i, s in enumerate(seconds):
        write_json(folder, f"{i}.json", [{"ts": t(s).isoformat(), "k": "a"}])
    return spark.readStream.schema("ts TIMESTAMP, k STRING").json(str(folder))


def complete(spark: SparkSession, df: DataFrame, name: str) -> list[tuple]:
    q = df.writeStream.format("memory").queryName(name).outputMode("complete").start()
    q.processAllAvailable()
    q.stop()
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect())


def seconds(value: dt.datetime | int) -> int:
    """A window bound as seconds from t(0) (a timestamp, or epoch seconds from a cast)."""
    if isinstance(value, int):
        return value - int(t(0).replace(tzinfo=dt.UTC).timestamp())
    return int((value.replace(tzinfo=None) - t(0)).total_seconds())


SLIDING = [(-5, 5, 1), (0, 10, 2), (5, 15, 2), (10, 20, 1)]


@pytest.mark.parametrize("cast", [False, True], ids=["timestamps", "cast to long"])
def test_selected_sliding_window_bounds_are_the_windows_not_the_panes(
    spark: SparkSession, tmp_path: Path, cast: bool
) -> None:
    agg = (
        stream(spark, tmp_path, [1, 6, 12])
        .groupBy(F.window("ts", "10 seconds", "5 seconds"))
        .agg(F.count("*").alias("cnt"))
    )
    start, end = F.col("window.start"), F.col("window.end")
    if cast:
        start, end = start.cast("long"), end.cast("long")
    rows = complete(spark, agg.select(start, end, "cnt"), f"sliding_selected_{int(cast)}")
    assert [(seconds(s), seconds(e), n) for s, e, n in rows] == SLIDING
    # the whole struct gives the same windows
    whole = complete(spark, agg.select("window", "cnt"), f"sliding_whole_{int(cast)}")
    assert [(seconds(w.start), seconds(w.end), n) for w, n in whole] == SLIDING


def test_an_aliased_window_is_the_event_time_key_in_append_mode(spark: SparkSession, tmp_path: Path) -> None:
    df = stream(spark, tmp_path, [1, 6, 12])
    q = (
        df.withWatermark("ts", "1 second")
        .groupBy(F.window(F.col("ts"), "10 seconds").alias("w"), "k")
        .count()
        .writeStream.format("memory")
        .queryName("aliased_window")
        .outputMode("append")
        .start()
    )
    q.processAllAvailable()
    q.stop()
    out = spark.sql("SELECT * FROM aliased_window")
    assert out.columns == ["w", "k", "count"]
    # the watermark (12 s - 1 s) has passed [0, 10) only
    assert [(seconds(r.w.start), seconds(r.w.end), r.k, r["count"]) for r in out.collect()] == [(0, 10, "a", 2)]


def test_an_aliased_sliding_window_counts_whole_windows(spark: SparkSession, tmp_path: Path) -> None:
    agg = (
        stream(spark, tmp_path, [1, 6, 12])
        .groupBy(F.window("ts", "10 seconds", "5 seconds").alias("w"))
        .agg(F.count("*").alias("cnt"))
    )
    rows = complete(spark, agg.select(F.col("w.start"), F.col("w.end"), "cnt"), "aliased_sliding")
    assert [(seconds(s), seconds(e), n) for s, e, n in rows] == SLIDING
