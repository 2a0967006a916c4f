"""Streaming aggregation: watermarks, windows, output modes, state across restarts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from conftest import PROVIDER_CLASSES, conf_set, dicts, op, step
from sparklet.errors import AnalysisException, IllegalArgumentException, StreamingQueryException
from sparklet.sql import DataFrame, SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

# every test runs on both state store providers
pytestmark = pytest.mark.usefixtures("state_provider")


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


SCHEMA = "ts TIMESTAMP, k STRING, v INT"


def windowed(ms: MemoryStream, size: str = "10 seconds", slide: str | None = None) -> DataFrame:
    return (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .groupBy(F.window("ts", size, slide), "k")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )


class Collector:
    """foreachBatch target: rows per batch as (window start second, k, n, total)."""

    def __init__(self) -> None:
        self.batches: list[tuple[int, list[tuple]]] = []

    def __call__(self, table, batch_id: int) -> None:  # noqa: ANN001
        rows = []
        for r in dicts(table):
            start = r["window"]["start"].replace(tzinfo=None) if "window" in r else None
            rows.append(((start - t(0)).total_seconds() if start else None, r["k"], r.get("n"), r.get("total")))
        self.batches.append((batch_id, sorted(rows, key=lambda r: (r[0] or 0.0, r[1]))))

    def rows(self) -> list[tuple]:
        return [row for _, rows in self.batches for row in rows]


def test_append_emits_each_window_once_when_the_watermark_passes(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = windowed(ms).writeStream.outputMode("append").foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (t(3), "a", 2), (t(12), "b", 5)])
    assert out.rows() == []  # watermark 0: nothing can close yet
    step(q, ms, [(t(25), "a", 1)])  # watermark -> 15: window [0,10) closes
    assert out.rows() == [(0.0, "a", 2, 3)]
    step(q, ms, [(t(2), "a", 100)])  # late for the closed window: dropped
    step(q, ms, [(t(45), "a", 1)])  # watermark -> 35
    assert out.rows() == [(0.0, "a", 2, 3), (10.0, "b", 1, 5), (20.0, "a", 1, 1)]
    dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"])
    assert dropped == 1
    # the no-data batch that closed the windows is its own batch, as in Spark
    assert [n for n, rows in out.batches if rows][-1] == out.batches[-1][0]


def test_update_emits_changed_rows_and_evicts_silently(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = windowed(ms).writeStream.outputMode("update").foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (t(12), "b", 5)])
    step(q, ms, [(t(3), "a", 2)])
    assert out.batches[0][1] == [(0.0, "a", 1, 1), (10.0, "b", 1, 5)]
    changed = [rows for _, rows in out.batches if rows][-1]
    assert changed == [(0.0, "a", 2, 3)]
    step(q, ms, [(t(40), "c", 1)])  # watermark 30: [0,10) and [10,20) evicted, not re-emitted
    assert out.rows()[-1] == (40.0, "c", 1, 1)
    assert q.lastProgress["stateOperators"][0]["numRowsTotal"] == 1


def test_complete_emits_the_whole_table_every_batch(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = (
        ms.toDF()
        .groupBy("k")
        .agg(F.count("*").alias("n"), F.max("v").alias("top"))
        .writeStream.outputMode("complete")
        .format("memory")
        .queryName("complete_out")
        .start()
    )
    step(q, ms, [(t(1), "a", 1), (t(2), "b", 7)])
    step(q, ms, [(t(3), "a", 4)])
    assert sorted(tuple(r) for r in spark.table("complete_out").collect()) == [("a", 2, 4), ("b", 1, 7)]


def test_sliding_windows_count_each_row_in_every_window(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = windowed(ms, "10 seconds", "5 seconds").writeStream.outputMode("append").foreachBatch(out).start()
    step(q, ms, [(t(7), "a", 1), (t(12), "a", 2)])
    step(q, ms, [(t(40), "a", 0)])  # watermark 30 closes the windows ending at 10, 15 and 20
    assert out.rows() == [(0.0, "a", 1, 1), (5.0, "a", 2, 3), (10.0, "a", 1, 2)]


LATE_ROWS = "the lateRowsTable option is sparklet's (docs/differences.md)"
OWN_METRICS = "figures of sparklet's own state stores (Spark's JVM stores count and size otherwise)"


def late_for_one_sliding_window(spark: SparkSession, **options: str):  # noqa: ANN201
    """A row late for one of its sliding windows, and one late for all: the query."""
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = windowed(ms, "10 seconds", "5 seconds").writeStream.outputMode("update").options(**options)
    q = q.foreachBatch(out).start()
    step(q, ms, [(t(27), "a", 1)])  # watermark -> 17
    out.batches.clear()
    step(q, ms, [(t(12), "b", 5), (t(3), "b", 7)])  # t(12): [5,15) closed, [10,20) open; t(3): all closed
    assert out.rows() == [(10.0, "b", 1, 5)]
    return q


def test_a_row_late_for_one_sliding_window_still_counts_in_the_next(spark: SparkSession) -> None:
    q = late_for_one_sliding_window(spark)
    assert q.lastProgress["stateOperators"][0]["numRowsDroppedByWatermark"] == 3
    q.stop()


@pytest.mark.sparklet_only(reason=LATE_ROWS)
def test_late_rows_of_sliding_windows_are_kept_per_window(spark: SparkSession) -> None:
    q = late_for_one_sliding_window(spark, lateRowsTable="late_sliding")
    late = sorted((r.window.start, r.v) for r in spark.table("late_sliding").collect())
    assert late == [(t(-5), 7), (t(0), 7), (t(5), 5)]
    q.stop()


@pytest.mark.parametrize(
    ("size", "slide", "start"), [("10 seconds", "4 seconds", None), ("9 seconds", "3 seconds", "1 second")]
)
def test_streaming_sliding_windows_equal_the_batch_result(
    spark: SparkSession, size: str, slide: str, start: str | None
) -> None:
    rows = [
        (t(s), k, s) for s, k in [(0, "a"), (3, "a"), (4, "b"), (9, "a"), (13, "b"), (17, "a"), (22, "a"), (23, "b")]
    ]
    ms = MemoryStream(spark, SCHEMA)
    agg = (
        ms.toDF()
        .groupBy(F.window("ts", size, slide, start), "k")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )
    q = agg.writeStream.outputMode("complete").format("memory").queryName("sliding_complete").start()
    for part in (rows[:3], rows[3:6], rows[6:]):
        step(q, ms, part)
    q.stop()
    batch = spark.createDataFrame(rows, SCHEMA)
    expected = batch.groupBy(F.window("ts", size, slide, start), "k").agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )

    def key(r):  # noqa: ANN001, ANN202
        return (r.window.start, r.window.end, r.k, r.n, r.total)

    assert sorted(map(key, spark.table("sliding_complete").collect())) == sorted(map(key, expected.collect()))


def test_sliding_windows_in_append_mode_merge_a_windows_rows_across_panes_and_batches(spark: SparkSession) -> None:
    # several rows of one window and key in each batch, in different panes
    # of it (slices of 2 s): every aggregate, single-column states and
    # two-column ones (avg), comes out as the batch query computes it
    rows = [
        (t(s), k, v)
        for s, k, v in [(0, "a", 4), (1, "a", 6), (3, "a", 1), (5, "b", 2), (7, "a", 9), (8, "b", 3)]
        + [(9, "a", 5), (11, "a", 2), (12, "b", 8), (14, "a", 7), (15, "b", 1), (19, "a", 3)]
        + [(21, "a", 6), (24, "b", 4), (26, "a", 5), (60, "c", 0)]
    ]

    def agg(df: DataFrame) -> DataFrame:
        return df.groupBy(F.window("ts", "10 seconds", "4 seconds"), "k").agg(
            F.count("*").alias("n"), F.sum("v").alias("total"), F.avg("v").alias("mean"), F.max("v").alias("top")
        )

    ms = MemoryStream(spark, SCHEMA)
    out: list[tuple] = []

    def collect(table, batch_id: int) -> None:  # noqa: ANN001
        out.extend((r["window"]["start"], r["k"], r["n"], r["total"], r["mean"], r["top"]) for r in dicts(table))

    q = agg(ms.toDF().withWatermark("ts", "10 seconds")).writeStream.outputMode("append").foreachBatch(collect).start()
    for part in (rows[:6], rows[6:12], rows[12:]):
        step(q, ms, part)
    q.stop()
    # t(60) moved the watermark to 50: every window but c's is closed
    expected = [
        (r.window.start, r.k, r.n, r.total, r.mean, r.top)
        for r in agg(spark.createDataFrame(rows[:-1], SCHEMA)).collect()
    ]
    assert len(expected) > 10
    key = lambda r: (r[0].replace(tzinfo=None), r[1])  # noqa: E731
    assert sorted((key(r), r[2:]) for r in out) == sorted((key(r), r[2:]) for r in expected)


def test_state_continues_after_restart(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()

    def start():  # noqa: ANN202
        return (
            windowed(ms)
            .writeStream.outputMode("update")
            .foreachBatch(out)
            .option("checkpointLocation", str(tmp_path))
            .start()
        )

    q = start()
    step(q, ms, [(t(1), "a", 1)])
    q.stop()
    q = start()
    step(q, ms, [(t(2), "a", 10)])
    q.stop()
    assert out.rows()[-1] == (0.0, "a", 2, 11)  # the first run's count survived the restart
    assert sorted((tmp_path / "state" / "0").iterdir())  # state files on disk


def test_no_data_batches_can_be_disabled(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "false")
    try:
        ms = MemoryStream(spark, SCHEMA)
        out = Collector()
        q = windowed(ms).writeStream.outputMode("append").foreachBatch(out).start()
        step(q, ms, [(t(1), "a", 1)])
        step(q, ms, [(t(30), "a", 1)])  # watermark moves to 20, but no batch runs until data arrives
        assert out.rows() == []
        step(q, ms, [(t(31), "a", 1)])
        assert out.rows() == [(0.0, "a", 1, 1)]
    finally:
        spark.conf.unset("spark.sql.streaming.noDataMicroBatches.enabled")


def test_progress_reports_event_time_and_state(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = windowed(ms).writeStream.outputMode("update").format("noop").start()
    step(q, ms, [(t(1), "a", 1), (t(3), "b", 1)])
    p = next(p for p in q.recentProgress if p["numInputRows"])  # after any idle progress
    assert p["eventTime"] == {
        "min": "2024-01-01T00:00:01.000Z",
        "max": "2024-01-01T00:00:03.000Z",
        "avg": "2024-01-01T00:00:02.000Z",
        "watermark": "1970-01-01T00:00:00.000Z",
    }
    op = p["stateOperators"][0]
    assert op["operatorName"] == "stateStoreSave" and op["numRowsTotal"] == 2 and op["numRowsUpdated"] == 2
    for key in [
        "numRowsRemoved",
        "numRowsDroppedByWatermark",
        "memoryUsedBytes",
        "commitTimeMs",
        "numShufflePartitions",
        "numStateStoreInstances",
        "customMetrics",
    ]:
        assert key in op
    assert op["memoryUsedBytes"] > 0
    q.stop()


@pytest.mark.sparklet_only(reason=OWN_METRICS)
def test_progress_reports_the_state_stores_custom_metrics(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = windowed(ms).writeStream.outputMode("update").format("noop").start()
    step(q, ms, [(t(1), "a", 1), (t(3), "b", 1)])
    op = next(p for p in q.recentProgress if p["numInputRows"])["stateOperators"][0]
    custom = op["customMetrics"]
    assert custom["stateOnCurrentVersionSizeBytes"] == op["memoryUsedBytes"]
    assert custom["loadedMapCacheMissCount"] == 0  # a fresh query loads nothing from disk
    parts = op["numShufflePartitions"]
    assert custom["loadedMapCacheHitCount"] == parts
    assert [custom[f"SnapshotLastUploaded.partition_{i}_default"] for i in range(parts)] == [-1] * parts
    step(q, ms, [(t(4), "a", 1)])
    # each batch (no-data batches too) finds the previous version in memory
    batches = len([p for p in q.recentProgress if p["stateOperators"]])  # not the idle progresses
    assert q.lastProgress["stateOperators"][0]["customMetrics"]["loadedMapCacheHitCount"] == batches * parts
    q.stop()


@pytest.mark.sparklet_only(reason=OWN_METRICS)
def test_rocksdb_state_reports_rocksdb_metrics(spark: SparkSession, state_provider: str) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = windowed(ms).writeStream.outputMode("update").format("noop").start()
    step(q, ms, [(t(1), "a", 1), (t(3), "b", 1), (t(4), "b", 1)])
    custom = next(p for p in q.recentProgress if p["stateOperators"])["stateOperators"][0]["customMetrics"]
    step(q, ms, [(t(2), "a", 1)])  # updates a's window
    again = q.lastProgress["stateOperators"][0]["customMetrics"]
    q.stop()
    if state_provider == "rocksdb":
        # two keys (a's and b's window) written by the batch's commit; keys
        # never written are not read (the store's filter rules them out)
        assert custom["rocksdbPutCount"] == 2
        assert custom["rocksdbGetCount"] == 0
        assert again["rocksdbGetCount"] == 1 and again["rocksdbPutCount"] == 1
        for name in ["rocksdbCommitFileSyncLatencyMs", "rocksdbCommitWriteBatchLatency", "rocksdbSstFileSize"]:
            assert custom[name] >= 0
    else:
        assert not [k for k in custom if k.startswith("rocksdb")]


@pytest.mark.sparklet_only(reason=OWN_METRICS)
def test_state_memory_follows_puts_and_evictions(spark: SparkSession, state_provider: str) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = windowed(ms).writeStream.outputMode("update").format("noop").start()
    step(q, ms, [(t(1), "a", 1), (t(3), "b", 1), (t(12), "a", 1)])
    three = q.lastProgress["stateOperators"][0]["memoryUsedBytes"]
    assert three > 0
    step(q, ms, [(t(2), "a", 5)])  # an update: same keys
    updated = q.lastProgress["stateOperators"][0]["memoryUsedBytes"]
    step(q, ms, [(t(40), "c", 1)])  # watermark 30: the three windows before 30 go
    op = q.lastProgress["stateOperators"][0]
    assert op["numRowsTotal"] == 1
    if state_provider == "hdfs":
        # in memory: an update keeps the size, an eviction frees
        assert updated == three and 0 < op["memoryUsedBytes"] < three
    else:
        # RocksDB's memtable keeps each write (and deletes as tombstones)
        # until a flush, in arena blocks: it never shrinks before one
        assert updated >= three and op["memoryUsedBytes"] >= updated
    q.stop()


def test_bounded_rocksdb_memory_is_reported_within_its_bound(spark: SparkSession) -> None:
    prefix = "spark.sql.streaming.stateStore.rocksdb."
    conf = {
        "spark.sql.streaming.stateStore.providerClass": PROVIDER_CLASSES["rocksdb"],
        prefix + "boundedMemoryUsage": "true",
        prefix + "maxMemoryUsageMB": "64",
    }
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        ms = MemoryStream(spark, SCHEMA)
        q = windowed(ms).writeStream.outputMode("update").format("noop").start()
        step(q, ms, [(t(i), f"k{i}", i) for i in range(200)])
        used = op(q)["memoryUsedBytes"]
        # the partitions' shares of the one bounded cache (memtables in it)
        assert 0 < used <= 64 << 20
    finally:
        for k in conf:
            spark.conf.unset(k)


def test_analysis_errors_at_start(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    counts = ms.toDF().groupBy("k").count()
    with pytest.raises(
        AnalysisException,
        match="Invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark",
    ):
        counts.writeStream.outputMode("append").format("noop").start()
    with pytest.raises(AnalysisException, match="Sorting is not supported"):
        counts.orderBy("k").writeStream.outputMode("update").format("noop").start()
    counts.orderBy("k").writeStream.outputMode("complete").format("noop").start().stop()
    with pytest.raises(
        AnalysisException, match="Detected pattern of possible 'correctness' issue due to global watermark"
    ):
        counts.groupBy("count").agg(F.count("*").alias("c")).writeStream.outputMode("complete").format("noop").start()


def rescaled_run(spark: SparkSession, start, ms: MemoryStream, first: list, partitions: int, then: list) -> None:  # noqa: ANN001
    """Run ``first`` through ``start()``, then restart with ``partitions`` shuffle partitions and run ``then``."""
    q = start()
    ms.addData(first)
    q.processAllAvailable()
    q.stop()
    with conf_set(spark, "spark.sql.shuffle.partitions", str(partitions)):
        q = start()
        ms.addData(then)
        q.processAllAvailable()
        q.stop()


@pytest.mark.sparklet_only(
    reason="sparklet repartitions state to a changed spark.sql.shuffle.partitions (Spark keeps the checkpoint's; docs/differences.md)"
)
def test_changed_shuffle_partitions_repartition_the_state(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list[dict] = []

    def start():  # noqa: ANN202
        counts = ms.toDF().groupBy("k").agg(F.sum("v").alias("s"))
        return (
            counts.writeStream.outputMode("complete")
            .foreachBatch(lambda tbl, _: got.append({r["k"]: r["s"] for r in dicts(tbl)}))
            .option("checkpointLocation", str(tmp_path))
            .start()
        )

    rescaled_run(spark, start, ms, [(t(1), k, 1) for k in "abcdefgh"], 3, [(t(2), k, 10) for k in "aceg"])
    # every key kept its running sum through the rescale
    assert got[-1] == {k: 11 if k in "aceg" else 1 for k in "abcdefgh"}
    meta = spark.read.format("state-metadata").load(str(tmp_path)).collect()
    assert meta[0]["numPartitions"] == 3
    parts = {r["key"]["k"]: r["partition_id"] for r in spark.read.format("statestore").load(str(tmp_path)).collect()}
    assert set(parts) == set("abcdefgh") and set(parts.values()) <= {0, 1, 2}


def test_session_windows_survive_a_rescale(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list[list] = []

    def start():  # noqa: ANN202
        sessions = (
            ms.toDF()
            .withWatermark("ts", "1 hour")
            .groupBy(F.session_window("ts", "10 seconds"), "k")
            .agg(F.sum("v").alias("s"))
        )
        return (
            sessions.writeStream.outputMode("complete")
            .foreachBatch(lambda tbl, _: got.append(sorted((r["k"], r["s"]) for r in dicts(tbl))))
            .option("checkpointLocation", str(tmp_path))
            .start()
        )

    # the second batch extends each key's session
    rescaled_run(spark, start, ms, [(t(1), k, 1) for k in "abcdef"], 5, [(t(5), k, 2) for k in "abcdef"])
    assert [b for b in got if b][-1] == [(k, 3) for k in "abcdef"]


def test_every_aggregate_function_streams(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    aggs = (
        ms.toDF()
        .groupBy("k")
        .agg(
            F.count("v").alias("count"),
            F.approx_count_distinct("v").alias("approx"),
            F.sum("v").alias("sum"),
            F.avg("v").alias("avg"),
            F.min("v").alias("min"),
            F.max("v").alias("max"),
            F.first("v").alias("first"),
            F.last("v").alias("last"),
            F.collect_list("v").alias("list"),
            F.collect_set("v").alias("set"),
            F.stddev("v").alias("stddev"),
            F.variance("v").alias("variance"),
        )
    )
    q = aggs.writeStream.outputMode("complete").format("memory").queryName("all_aggs").start()
    step(q, ms, [(t(1), "a", 1), (t(2), "a", 2)])
    step(q, ms, [(t(3), "a", 2), (t(4), "a", 7)])  # merged into the state of the first batch
    (row,) = spark.table("all_aggs").collect()
    assert (row["count"], row.approx, row["sum"], row.avg, row["min"], row["max"]) == (
        4,
        3,
        12,
        3.0,
        1,
        7,
    )
    assert (row.first, row.last) == (1, 7)
    assert sorted(row.list) == [1, 2, 2, 7] and sorted(row.set) == [1, 2, 7]
    assert row.variance == pytest.approx(7.333333, rel=1e-5) and row.stddev == pytest.approx(7.333333**0.5, rel=1e-5)
    distinct = ms.toDF().groupBy("k").agg(F.countDistinct("v"))
    with pytest.raises(AnalysisException, match="Distinct aggregations are not supported on streaming DataFrames"):
        distinct.writeStream.outputMode("complete").format("noop").start()


def test_update_mode_emits_merged_values_of_every_aggregate_kind(spark: SparkSession) -> None:
    # sums merge a batch's keys together; first, last and collect_list key by key
    ms = MemoryStream(spark, SCHEMA)
    got: list[list[tuple]] = []
    aggs = ms.toDF().groupBy("k").agg(F.sum("v").alias("s"), F.last("v").alias("l"), F.collect_list("v").alias("c"))
    q = (
        aggs.writeStream.outputMode("update")
        .foreachBatch(lambda tb, i: got.append(sorted((r["k"], r["s"], r["l"], sorted(r["c"])) for r in dicts(tb))))
        .start()
    )
    step(q, ms, [(t(1), "a", 1), (t(2), "a", 2), (t(3), "b", 5)])
    step(q, ms, [(t(4), "a", 4), (t(5), "c", 6), (t(6), "a", 8)])
    assert [b for b in got if b] == [
        [("a", 3, 2, [1, 2]), ("b", 5, 5, [5])],
        [("a", 15, 8, [1, 2, 4, 8]), ("c", 6, 6, [6])],
    ]


@pytest.mark.parametrize("policy,expected", [("min", "1970-01-01T00:00:11.000Z"), ("max", "1970-01-01T00:00:40.000Z")])
def test_multiple_watermark_policy(spark: SparkSession, policy: str, expected: str) -> None:
    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", policy)
    try:
        a, b = MemoryStream(spark, SCHEMA), MemoryStream(spark, SCHEMA)
        both = a.toDF().withWatermark("ts", "10 seconds").union(b.toDF().withWatermark("ts", "10 seconds"))
        q = both.groupBy(F.window("ts", "10 seconds")).count().writeStream.outputMode("update").format("noop").start()
        a.addData([(dt.datetime(1970, 1, 1, 0, 0, 20), "x", 1)])
        b.addData([(dt.datetime(1970, 1, 1, 0, 0, 50), "y", 1)])
        q.processAllAvailable()
        a.addData([(dt.datetime(1970, 1, 1, 0, 0, 21), "x", 1)])
        q.processAllAvailable()
        assert q.lastProgress["eventTime"]["watermark"] == expected
    finally:
        spark.conf.unset("spark.sql.streaming.multipleWatermarkPolicy")


@pytest.mark.sparklet_only(reason=LATE_ROWS)
def test_late_rows_are_kept_in_a_table_when_asked(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = windowed(ms).writeStream.outputMode("update").format("noop").option("lateRowsTable", "late_rows").start()
    step(q, ms, [(t(1), "a", 1)])
    step(q, ms, [(t(30), "a", 1)])  # watermark 20
    step(q, ms, [(t(2), "a", 99), (t(31), "b", 1)])  # t(2) is late
    late = spark.table("late_rows").collect()
    assert len(late) == 1
    dropping = [
        p["batchId"]
        for p in q.recentProgress
        if p["stateOperators"] and p["stateOperators"][0]["numRowsDroppedByWatermark"]
    ]
    assert [late[0].batchId] == dropping
    assert late[0].window.start == t(0) and late[0].k == "a"
    assert (
        sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"]) == 1
    )


def sessions(ms: MemoryStream, gap) -> DataFrame:  # noqa: ANN001
    return (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .groupBy(F.session_window("ts", gap), "k")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )


def session_rows(table) -> list[tuple]:  # noqa: ANN001
    out = []
    for r in dicts(table):
        w = r["session_window"]
        out.append(
            (
                (w["start"].replace(tzinfo=None) - t(0)).seconds,
                (w["end"].replace(tzinfo=None) - t(0)).seconds,
                r["k"],
                r["n"],
                r["total"],
            )
        )
    return sorted(out)


def test_session_windows_merge_rows_closer_than_the_gap(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list = []
    q = (
        sessions(ms, "5 seconds")
        .writeStream.outputMode("complete")
        .foreachBatch(lambda tb, i: got.append(session_rows(tb)))
        .start()
    )
    step(q, ms, [(t(1), "a", 1), (t(3), "a", 2), (t(12), "b", 5)])
    assert got[0] == [(1, 8, "a", 2, 3), (12, 17, "b", 1, 5)]
    step(q, ms, [(t(6), "a", 4)])  # extends a's session to [1, 11)
    assert got[-1] == [(1, 11, "a", 3, 7), (12, 17, "b", 1, 5)]
    step(q, ms, [(t(4), "b", 1), (t(16), "b", 1)])  # [4, 9) stands alone; [16, 21) merges into [12, 21)
    assert got[-1] == [(1, 11, "a", 3, 7), (4, 9, "b", 1, 1), (12, 21, "b", 2, 6)]


def test_session_windows_in_append_mode_close_with_the_watermark(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list = []
    q = (
        sessions(ms, "5 seconds")
        .writeStream.outputMode("append")
        .foreachBatch(lambda tb, i: got.extend(session_rows(tb)))
        .start()
    )
    step(q, ms, [(t(1), "a", 1), (t(4), "a", 1)])
    assert got == []
    step(q, ms, [(t(30), "a", 1)])  # watermark 20: [1, 9) closes
    assert got == [(1, 9, "a", 2, 2)]


def test_session_gap_per_row(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    gap = F.when(F.col("k") == "slow", "20 seconds").otherwise("2 seconds")
    got: list = []
    q = (
        sessions(ms, gap)
        .writeStream.outputMode("complete")
        .foreachBatch(lambda tb, i: got.append(session_rows(tb)))
        .start()
    )
    step(q, ms, [(t(0), "slow", 1), (t(15), "slow", 1), (t(0), "fast", 1), (t(5), "fast", 1)])
    assert got[-1] == [(0, 2, "fast", 1, 1), (0, 35, "slow", 2, 2), (5, 7, "fast", 1, 1)]


def test_session_windows_on_batch_dataframes(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(t(1), "a", 1), (t(3), "a", 2), (t(12), "b", 5), (t(6), "a", 4), (t(20), "a", 1), (t(13), "b", 1)], SCHEMA
    )
    out = df.groupBy(F.session_window("ts", "5 seconds"), "k").agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    assert out.columns == ["session_window", "k", "n", "total"]
    rows = sorted((r.session_window.start, r.session_window.end, r.k, r.n, r.total) for r in out.collect())
    assert rows == [(t(1), t(11), "a", 3, 7), (t(12), t(18), "b", 2, 6), (t(20), t(25), "a", 1, 1)]
    gap = F.when(F.col("k") == "b", "1 second").otherwise("10 seconds")
    per_row = sorted(
        (r.session_window.start, r.k, r["count"])
        for r in df.groupBy(F.session_window("ts", gap), "k").count().collect()
    )
    # sessions that touch ([12, 13) and [13, 14)) are one, as in Spark
    assert per_row == [(t(1), "a", 3), (t(12), "b", 2), (t(20), "a", 1)]


def test_sessions_survive_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list = []

    def start():  # noqa: ANN202
        return (
            sessions(ms, "5 seconds")
            .writeStream.outputMode("complete")
            .foreachBatch(lambda tb, i: got.append(session_rows(tb)))
            .option("checkpointLocation", str(tmp_path))
            .start()
        )

    q = start()
    step(q, ms, [(t(1), "a", 1)])
    q.stop()
    q = start()
    step(q, ms, [(t(4), "a", 2)])
    q.stop()
    assert [rows for rows in got if rows][-1] == [(1, 9, "a", 2, 3)]


@pytest.mark.sparklet_only(
    reason="sparklet takes short provider names and checks them at start (Spark: when the state opens)"
)
def test_state_store_provider_names(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    counts = ms.toDF().groupBy("k").count()
    try:
        for name in [
            "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
            "rocksdb",
        ]:
            spark.conf.set("spark.sql.streaming.stateStore.providerClass", name)
            counts.writeStream.outputMode("complete").format("noop").start().stop()
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", "com.example.NoSuchProvider")
        with pytest.raises(IllegalArgumentException, match="Unknown state store provider 'com.example.NoSuchProvider'"):
            counts.writeStream.outputMode("complete").format("noop").start()
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.providerClass")


@pytest.mark.sparklet_only(
    reason="sparklet checks the state's layout at restart (Spark 4.3 does not; docs/differences.md)"
)
def test_a_changed_stateful_operator_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    ms.addData([(t(1), "a", 1)])
    grouped = ms.toDF().groupBy("k")
    q = (
        grouped.agg(F.sum("v"))
        .writeStream.outputMode("update")
        .format("noop")
        .option("checkpointLocation", str(tmp_path))
        .start()
    )
    q.processAllAvailable()
    q.stop()
    changed = grouped.agg(F.collect_list("v")).writeStream.outputMode("update").format("noop")
    with pytest.raises(StreamingQueryException, match="stateful operator changed") as e:
        changed.option("checkpointLocation", str(tmp_path)).start()
    assert e.value.getCondition() == "CHECKPOINT_INCOMPATIBLE"


def test_rows_without_a_time_leave_no_state(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = windowed(ms).writeStream.outputMode("append").foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (None, "a", 2), (t(3), "b", 1)])
    assert op(q)["numRowsTotal"] == 2  # a's and b's [0, 10) windows, none for the null time
    step(q, ms, [(t(40), "a", 1)])  # watermark -> 30: both close
    assert sorted(out.rows()) == [(0.0, "a", 1, 1), (0.0, "b", 1, 1)]
    assert op(q)["numRowsTotal"] == 1
    q.stop()


@pytest.mark.sparklet_only(reason="reads and edits sparklet's state layout files")
def test_state_from_before_the_event_time_index_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    import pyarrow as pa

    ms = MemoryStream(spark, SCHEMA)
    ms.addData([(t(1), "a", 1)])
    writer = windowed(ms).writeStream.outputMode("update").format("noop").option("checkpointLocation", str(tmp_path))
    q = writer.start()
    q.processAllAvailable()
    q.stop()
    # the layout an earlier sparklet recorded: keys without the time index
    layout = tmp_path / "state" / "0" / "_metadata" / "layout-default.arrow"
    schema = pa.ipc.open_file(layout.read_bytes()).schema
    old = schema.with_metadata({k: v for k, v in schema.metadata.items() if k not in (b"time", b"timeLeads")})
    with pa.OSFile(str(layout), "wb") as f, pa.ipc.new_file(f, old):
        pass
    with pytest.raises(StreamingQueryException, match="earlier version of sparklet") as e:
        writer.start()
    assert e.value.getCondition() == "CHECKPOINT_INCOMPATIBLE"


def test_many_keys_merge_in_parallel_partitions(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = (
        ms.toDF()
        .groupBy("k")
        .agg(F.sum("v").alias("s"))
        .writeStream.outputMode("complete")
        .format("memory")
        .queryName("many_keys")
        .start()
    )
    step(q, ms, [(t(i), f"key{i % 1000}", 1) for i in range(3000)])
    step(q, ms, [(t(i), f"key{i % 1000}", 2) for i in range(1000)])
    rows = spark.table("many_keys").collect()
    assert len(rows) == 1000 and {r.s for r in rows} == {5}
    op = q.lastProgress["stateOperators"][0]
    assert op["numRowsTotal"] == 1000 and op["numRowsUpdated"] == 1000 and op["numStateStoreInstances"] == 4


# rows of several keys over batches: out of order, some late for one of
# their windows (10 s every 4 s: 2 s panes, a row in 2 or 3 windows)
SLIDING_BATCHES = [
    [(t(1), "a", 1), (t(3), "a", 2), (t(7), "b", 3), (t(12), "a", 4)],
    [(t(5), "b", 5), (t(20), "c", 6), (t(21), "a", 7), (t(13), "a", 8)],
    [(t(9), "a", 9), (t(40), "b", 10), (t(26), "c", 11)],
    [(t(45), "a", 12), (t(33), "a", 13)],
]


def state_figures(progress: dict) -> tuple:
    """A progress's batch, input rows and its aggregation's state row counts."""
    agg = progress["stateOperators"][0]
    fields = ("numRowsTotal", "numRowsUpdated", "numRowsRemoved", "numRowsDroppedByWatermark")
    return (progress["batchId"], progress["numInputRows"], *(agg[f] for f in fields))


def sliding_query(ms: MemoryStream, mode: str, out: Collector, ckpt: str | None = None):  # noqa: ANN201
    """A 10 s / 4 s window count and sum of ``ms`` into ``out``, started."""
    writer = windowed(ms, "10 seconds", "4 seconds").writeStream.outputMode(mode).foreachBatch(out)
    if ckpt:
        writer = writer.option("checkpointLocation", ckpt)
    return writer.start()


def sliding_progress(spark: SparkSession, mode: str, batches: list[list[tuple]] = SLIDING_BATCHES):  # noqa: ANN201
    """Run ``batches`` through the sliding query: the rows each batch
    emitted and each progress's state figures."""
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    q = sliding_query(ms, mode, out)
    for rows in batches:
        step(q, ms, rows)
    figures = [state_figures(p) for p in q.recentProgress if p["stateOperators"]]
    q.stop()
    return out.batches, figures


# What PySpark 4.3 emits for SLIDING_BATCHES, batch by batch (window
# start second, k, count, sum): no-data batches close what the watermark
# passed
SLIDING_APPEND = [
    (0, []),
    (1, [(-8.0, "a", 1, 1)]),
    (2, []),
    (3, [(-4.0, "a", 2, 3), (-4.0, "b", 1, 5), (0.0, "a", 2, 3), (0.0, "b", 2, 8)]),
    (4, []),
    (
        5,
        [(4.0, "a", 3, 21), (4.0, "b", 2, 8), (8.0, "a", 3, 21), (12.0, "a", 3, 19), (12.0, "c", 1, 6)]
        + [(16.0, "a", 1, 7), (16.0, "c", 1, 6), (20.0, "a", 1, 7), (20.0, "c", 2, 17)],
    ),
    (6, []),
    (7, [(24.0, "a", 1, 13), (24.0, "c", 1, 11)]),
]
SLIDING_UPDATE = [
    (
        0,
        [(-8.0, "a", 1, 1), (-4.0, "a", 2, 3), (0.0, "a", 2, 3), (0.0, "b", 1, 3), (4.0, "a", 1, 4)]
        + [(4.0, "b", 1, 3), (8.0, "a", 1, 4), (12.0, "a", 1, 4)],
    ),
    (1, []),
    (
        2,
        [(-4.0, "b", 1, 5), (0.0, "b", 2, 8), (4.0, "a", 2, 12), (4.0, "b", 2, 8), (8.0, "a", 2, 12)]
        + [(12.0, "a", 3, 19), (12.0, "c", 1, 6), (16.0, "a", 1, 7), (16.0, "c", 1, 6), (20.0, "a", 1, 7)]
        + [(20.0, "c", 1, 6)],
    ),
    (3, []),
    (
        4,
        [(4.0, "a", 3, 21), (8.0, "a", 3, 21), (20.0, "c", 2, 17), (24.0, "c", 1, 11), (32.0, "b", 1, 10)]
        + [(36.0, "b", 1, 10), (40.0, "b", 1, 10)],
    ),
    (5, []),
    (
        6,
        [(24.0, "a", 1, 13), (28.0, "a", 1, 13), (32.0, "a", 1, 13), (36.0, "a", 1, 12), (40.0, "a", 1, 12)]
        + [(44.0, "a", 1, 12)],
    ),
    (7, []),
]
# (batch, input rows, numRowsTotal, numRowsUpdated, numRowsRemoved,
# numRowsDroppedByWatermark): the windows Spark's state holds, in both modes
SLIDING_FIGURES = [
    (0, 4, 8, 8, 0, 0),
    (1, 0, 7, 0, 1, 0),
    (2, 4, 13, 11, 0, 0),
    (3, 0, 9, 0, 4, 0),
    (4, 3, 13, 7, 0, 1),
    (5, 0, 4, 0, 9, 0),
    (6, 2, 10, 6, 0, 0),
    (7, 0, 8, 0, 2, 0),
]


@pytest.mark.parametrize(("mode", "emitted"), [("append", SLIDING_APPEND), ("update", SLIDING_UPDATE)])
def test_sliding_windows_count_their_windows_as_the_states_rows(
    spark: SparkSession, mode: str, emitted: list[tuple]
) -> None:
    # sparklet keeps a sliding window's panes, Spark its windows: the rows
    # and the progress's state figures are Spark's all the same
    batches, figures = sliding_progress(spark, mode)
    assert batches == emitted
    assert figures == SLIDING_FIGURES


@pytest.mark.parametrize("mode", ["append", "update"])
def test_sliding_windows_resume_mid_stream_as_if_never_stopped(spark: SparkSession, tmp_path: Path, mode: str) -> None:
    uninterrupted, figures = sliding_progress(spark, mode)
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    resumed: list[tuple] = []
    for part in (SLIDING_BATCHES[:2], SLIDING_BATCHES[2:]):
        q = sliding_query(ms, mode, out, str(tmp_path))
        for rows in part:
            step(q, ms, rows)
        resumed = [state_figures(p) for p in q.recentProgress if p["stateOperators"]]
        q.stop()
    assert out.batches == uninterrupted
    # the state's window count after the restart too
    assert resumed == figures[-len(resumed) :] and len(resumed) == 4


@pytest.mark.sparklet_only(
    reason="sparklet repartitions state to a changed spark.sql.shuffle.partitions (Spark keeps the checkpoint's; docs/differences.md)"
)
def test_changed_shuffle_partitions_keep_each_groups_panes_together(spark: SparkSession, tmp_path: Path) -> None:
    first, then = SLIDING_BATCHES[0] + SLIDING_BATCHES[1], SLIDING_BATCHES[2] + SLIDING_BATCHES[3]
    uninterrupted, _ = sliding_progress(spark, "append", [first, then])
    ms = MemoryStream(spark, SCHEMA)
    out = Collector()
    rescaled_run(spark, lambda: sliding_query(ms, "append", out, str(tmp_path)), ms, first, 3, then)
    assert out.rows() == [row for _, rows in uninterrupted for row in rows]
    assert len(out.rows()) == 16


@pytest.mark.parametrize("mode", ["append", "update"])
def test_a_sliding_window_without_other_keys_holds_each_row_in_every_window(spark: SparkSession, mode: str) -> None:
    ms = MemoryStream(spark, SCHEMA)
    got: list[tuple] = []

    def collect(table, batch_id: int) -> None:  # noqa: ANN001
        for r in dicts(table):
            start = (r["window"]["start"].replace(tzinfo=None) - t(0)).total_seconds()
            got.append((batch_id, start, r["n"], r["total"]))

    agg = (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .groupBy(F.window("ts", "10 seconds", "5 seconds"))
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )
    q = agg.writeStream.outputMode(mode).foreachBatch(collect).start()
    step(q, ms, [(t(1), "a", 1), (t(7), "b", 2), (t(12), "a", 3)])
    step(q, ms, [(t(40), "a", 4)])  # watermark 30: the windows ending by then close
    if mode == "append":
        assert sorted(got) == [(3, -5.0, 1, 1), (3, 0.0, 2, 3), (3, 5.0, 2, 5), (3, 10.0, 1, 3)]
    else:
        assert sorted(got) == [
            (0, -5.0, 1, 1),
            (0, 0.0, 2, 3),
            (0, 5.0, 2, 5),
            (0, 10.0, 1, 3),
            (2, 35.0, 1, 4),
            (2, 40.0, 1, 4),
        ]
    assert (op(q)["numRowsTotal"], op(q)["numRowsRemoved"]) == (2, 4)
    q.stop()


def test_batches_of_one_window_and_of_several_aggregate_as_the_batch_query(spark: SparkSession, tmp_path: Path) -> None:
    # time-ordered rows in row groups of 500 over 10 s windows of 1,400
    # rows: most row groups lie in one window (aggregated without hashing),
    # some straddle two; per key too, where a group holds one key or two
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp_path / "in"
    src.mkdir()
    start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    for f in range(3):
        rows = range(f * 7000, (f + 1) * 7000)
        table = pa.table(
            {
                "ts": pa.array(
                    [start + dt.timedelta(milliseconds=i * 1000 // 140) for i in rows], pa.timestamp("us", "UTC")
                ),
                "k": [f"k{(i // 2500) % 2}" for i in rows],
                "v": [float(i % 97) / 8 for i in rows],
            }
        )
        pq.write_table(table, src / f"part-{f}.parquet", row_group_size=500)
    schema = "ts TIMESTAMP, k STRING, v DOUBLE"

    def aggregate(df: DataFrame, keys: list) -> DataFrame:
        return df.groupBy(F.window("ts", "10 seconds"), *keys).agg(
            F.count("*").alias("n"),
            F.sum("v").alias("s"),
            F.avg("v").alias("a"),
            F.min("v").alias("lo"),
            F.max("v").alias("hi"),
        )

    def rows(collected: list) -> list[tuple]:
        return sorted(
            (
                r["window"]["start"].replace(tzinfo=None),
                r["k"] if "k" in r else None,
                r["n"],
                r["s"],
                r["a"],
                r["lo"],
                r["hi"],
            )
            for r in collected
        )

    for keys, name in (([], "windows_only"), (["k"], "windows_and_keys")):
        stream = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(src))
        q = (
            aggregate(stream.withWatermark("ts", "1 second"), keys)
            .writeStream.outputMode("complete")
            .format("memory")
            .queryName(name)
            .start()
        )
        q.processAllAvailable()
        q.stop()
        got = rows([r.asDict(recursive=True) for r in spark.table(name).collect()])
        want = rows(
            [r.asDict(recursive=True) for r in aggregate(spark.read.schema(schema).parquet(str(src)), keys).collect()]
        )
        assert len(got) == len(want) == (23 if keys else 15)
        for g, w in zip(got, want):
            assert g[:4] == w[:4] and g[5:] == w[5:]
            assert g[4] == pytest.approx(w[4], rel=1e-12) and g[3] == pytest.approx(w[3], rel=1e-12)
