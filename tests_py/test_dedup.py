"""dropDuplicates / dropDuplicatesWithinWatermark on batches and streams."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from conftest import dicts, op, step, write_json
from sparklet.errors import AnalysisException, PySparkTypeError
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

# every test runs on both state store providers
pytestmark = pytest.mark.usefixtures("state_provider")

SCHEMA = "ts TIMESTAMP, user STRING, v INT"


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


class Rows:
    """foreachBatch target: (user, v) rows per batch with rows (no-data batches left out)."""

    def __init__(self) -> None:
        self.batches: list[list[tuple]] = []

    def __call__(self, table, batch_id: int) -> None:  # noqa: ANN001
        if rows := dicts(table):
            self.batches.append(sorted((r["user"], r["v"]) for r in rows))

    def all(self) -> list[tuple]:
        return [r for b in self.batches for r in b]


def test_batch_drop_duplicates(spark: SparkSession) -> None:
    df = spark.createDataFrame([(t(1), "a", 1), (t(1), "a", 1), (t(2), "a", 2), (t(3), "b", 2)], SCHEMA)
    assert df.dropDuplicates().count() == 3
    assert df.distinct().count() == 3
    assert sorted(r.user for r in df.dropDuplicates(["user"]).collect()) == ["a", "b"]
    assert df.drop_duplicates(["v"]).count() == 2
    with pytest.raises(AnalysisException, match='"nope"'):
        df.dropDuplicates(["nope"])
    # PySpark 4's error class and message
    with pytest.raises(
        PySparkTypeError, match=r"\[NOT_EXPECTED_TYPE\] Argument `subset` should be list or tuple, got str"
    ):
        df.dropDuplicates("user")  # type: ignore[arg-type]
    with pytest.raises(PySparkTypeError, match="should be str, got int"):
        df.dropDuplicates(["user", 1])  # type: ignore[list-item]


def test_stream_dedup_without_watermark_remembers_every_key(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = ms.toDF().dropDuplicates(["user"]).writeStream.foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (t(2), "a", 2), (t(3), "b", 3)])
    step(q, ms, [(t(4), "a", 4), (t(5), "c", 5)])
    assert out.batches == [[("a", 1), ("b", 3)], [("c", 5)]]
    s = op(q)
    assert s["operatorName"] == "dedupe"
    assert s["numRowsTotal"] == 3 and s["numRowsUpdated"] == 1 and s["numRowsRemoved"] == 0
    q.stop()


def test_stream_distinct_is_dedup_on_all_columns(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = ms.toDF().distinct().writeStream.foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (t(1), "a", 1)])
    step(q, ms, [(t(1), "a", 1), (t(1), "a", 2)])
    assert out.all() == [("a", 1), ("a", 2)]
    q.stop()


def test_dedup_on_the_event_time_evicts_with_the_watermark(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = ms.toDF().withWatermark("ts", "10 seconds").dropDuplicates(["user", "ts"]).writeStream.foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1), (t(1), "a", 2), (t(5), "b", 3)])
    assert out.batches == [[("a", 1), ("b", 3)]]
    assert op(q)["numRowsTotal"] == 2
    step(q, ms, [(t(30), "c", 4)])  # watermark -> 20: keys at 1 s and 5 s can go
    assert op(q)["numRowsTotal"] == 1 and op(q)["numRowsRemoved"] == 2
    step(q, ms, [(t(1), "a", 9), (t(31), "d", 5)])  # t(1) is behind the watermark: dropped
    assert out.all() == [("a", 1), ("b", 3), ("c", 4), ("d", 5)]
    dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"])
    assert dropped == 1
    q.stop()


def test_a_batch_that_moves_the_watermark_still_drops_duplicates_of_keys_it_evicts(
    spark: SparkSession, tmp_path: Path
) -> None:
    # two files, a batch each: the second runs with the watermark the first
    # set (20 s) for eviction but the one before it (none) for late rows, so
    # its rows at or below 20 s still meet the keys it evicts at its end
    src = tmp_path / "in"
    src.mkdir()
    write_json(
        src,
        "0.json",
        [{"ts": "2024-01-01T00:00:10Z", "user": "a", "v": 1}, {"ts": "2024-01-01T00:00:30Z", "user": "b", "v": 2}],
    )
    os.utime(src / "0.json", (1_700_000_000, 1_700_000_000))
    second = [("00:10", "a", 9), ("00:15", "c", 3), ("00:15", "c", 4), ("00:40", "d", 5), ("00:40", "d", 6)]
    write_json(src, "1.json", [{"ts": f"2024-01-01T00:{ts}Z", "user": u, "v": v} for ts, u, v in second])
    out = Rows()
    q = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(src))
        .withWatermark("ts", "10 seconds")
        .dropDuplicates(["user", "ts"])
        .writeStream.foreachBatch(out)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    assert q.awaitTermination(60)
    # a at 10 s is in the state: dropped; c at 15 s is new (its second row a
    # duplicate), stored and evicted by the same batch; d is new and stays
    assert out.batches == [[("a", 1), ("b", 2)], [("c", 3), ("d", 5)]]
    second_batch = next(p for p in q.recentProgress if p["batchId"] == 1)["stateOperators"][0]
    counts = {
        k: second_batch[k] for k in ("numRowsTotal", "numRowsUpdated", "numRowsRemoved", "numRowsDroppedByWatermark")
    }
    assert counts == {"numRowsTotal": 2, "numRowsUpdated": 2, "numRowsRemoved": 2, "numRowsDroppedByWatermark": 0}


def test_drop_duplicates_within_watermark(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .dropDuplicatesWithinWatermark(["user"])
        .writeStream.foreachBatch(out)
        .start()
    )
    step(q, ms, [(t(5), "a", 1)])  # kept until the watermark passes 5 + 10 = 15
    step(q, ms, [(t(12), "a", 2), (t(20), "b", 3)])  # a duplicate within the delay; watermark -> 10
    assert out.all() == [("a", 1), ("b", 3)]
    step(q, ms, [(t(40), "c", 4)])  # watermark -> 30: both keys expire
    step(q, ms, [(t(35), "a", 5)])  # a again, after its key expired: a new row
    assert out.all() == [("a", 1), ("b", 3), ("c", 4), ("a", 5)]
    assert q.lastProgress["stateOperators"][0]["operatorName"] == "dedupeWithinWatermark"
    q.stop()


def test_within_watermark_needs_a_watermark(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    with pytest.raises(AnalysisException, match="without watermark"):
        ms.toDF().dropDuplicatesWithinWatermark(["user"]).writeStream.format("noop").start()


def users_once(ms: MemoryStream, out: Rows, ckpt: Path):  # noqa: ANN201
    """Start the first row of each user into `out`, checkpointed at `ckpt`."""
    return (
        ms.toDF().dropDuplicates(["user"]).writeStream.foreachBatch(out).option("checkpointLocation", str(ckpt)).start()
    )


def test_dedup_state_survives_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()

    def start():  # noqa: ANN202
        return users_once(ms, out, tmp_path / "ckpt")

    q = start()
    step(q, ms, [(t(1), "a", 1), (t(2), "b", 2)])
    q.stop()
    q = start()
    step(q, ms, [(t(3), "a", 3), (t(4), "c", 4)])
    assert out.all() == [("a", 1), ("b", 2), ("c", 4)]
    assert op(q)["numRowsTotal"] == 3
    q.stop()


def test_evicted_keys_stay_evicted_and_live_keys_stay_remembered_after_a_restart(
    spark: SparkSession, tmp_path: Path
) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .withWatermark("ts", "10 seconds")
            .dropDuplicates(["user", "ts"])
            .writeStream.foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    step(q, ms, [(t(1), "a", 1), (t(5), "b", 2), (t(30), "c", 3)])
    step(q, ms, [(t(31), "d", 4)])  # the watermark (20 s) evicts a and b
    assert op(q)["numRowsTotal"] == 2
    assert sum(p["stateOperators"][0]["numRowsRemoved"] for p in q.recentProgress if p["stateOperators"]) == 2
    q.stop()
    q = start()
    step(q, ms, [(t(30), "c", 5), (t(25), "b", 6), (t(32), "e", 7)])
    # c is still remembered; b at 25 s is a new key; the evicted ones are gone
    assert out.all() == [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("b", 6), ("e", 7)]
    assert op(q)["numRowsTotal"] == 4
    q.stop()


@pytest.mark.sparklet_only(reason="a checkpoint's state read by the other provider is beyond Spark")
def test_state_restarts_on_the_other_provider(spark: SparkSession, tmp_path: Path, state_provider: str) -> None:
    # each provider reads the other's checkpoint files (beyond Spark, which
    # keeps the checkpoint's provider): switching is a restart like any other
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    other = "rocksdb" if state_provider == "hdfs" else "hdfs"

    def start():  # noqa: ANN202
        return users_once(ms, out, tmp_path / "ckpt")

    spark.conf.set("spark.sql.streaming.stateStore.minDeltasForSnapshot", "2")
    try:
        q = start()
        for i in range(3):  # a snapshot at version 2, a delta after it
            step(q, ms, [(t(i), f"u{i}", i), (t(i), f"u{i}", -1)])
        q.stop()
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", other)
        q = start()
        step(q, ms, [(t(5), "u1", 5), (t(6), "u3", 6), (t(7), "u2", 7)])
        assert op(q)["numRowsTotal"] == 4
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.minDeltasForSnapshot")
    assert out.all() == [("u0", 0), ("u1", 1), ("u2", 2), ("u3", 6)]
    # the first provider's snapshot (RocksDB's is a folder of its own files)
    snapshot = "2.rocksdb" if state_provider == "rocksdb" else "2.snapshot"
    assert (tmp_path / "ckpt" / "state" / "0" / "0" / snapshot).exists()


def test_large_batches_keep_the_first_row_of_each_key(spark: SparkSession, tmp_path: Path) -> None:
    # batches this large update the state partitions side by side
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .withWatermark("ts", "1 hour")
            .dropDuplicates(["user", "ts"])
            .writeStream.foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    def rows(start: int, n: int) -> list:
        # every key twice in the batch; keys repeat across batches
        return [(t(i % 600), f"u{i % 7000}", i) for i in range(start, start + n) for _ in (0, 1)]

    q = start()
    step(q, ms, rows(0, 10_000))
    q.stop()
    q = start()
    step(q, ms, rows(5_000, 10_000))
    q.stop()
    first: dict = {}
    for ts, user, v in rows(0, 10_000) + rows(5_000, 10_000):
        first.setdefault((ts, user), (user, v))
    assert sorted(out.all()) == sorted(first.values())
    assert len(out.all()) == len(first)


def test_aggregation_over_a_dedup(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    agg = (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .dropDuplicates(["user", "ts"])
        .groupBy(F.window("ts", "10 seconds"))
        .agg(F.count("*").alias("n"))
    )
    q = agg.writeStream.outputMode("complete").format("memory").queryName("dedup_counts").start()
    step(q, ms, [(t(1), "a", 1), (t(1), "a", 1), (t(2), "b", 1)])
    step(q, ms, [(t(2), "b", 7), (t(12), "a", 1)])
    rows = sorted((r.window.start, r.n) for r in spark.table("dedup_counts").collect())
    assert rows == [(t(0), 2), (t(10), 1)]
    names = [s["operatorName"] for s in q.lastProgress["stateOperators"]]
    assert names == ["stateStoreSave", "dedupe"]  # Spark numbers operators top down
    q.stop()


def test_stream_limit_counts_rows_across_batches_and_restarts(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .limit(3)
            .writeStream.foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    step(q, ms, [(t(1), "a", 1), (t(2), "b", 2)])
    q.stop()
    q = start()
    step(q, ms, [(t(3), "c", 3), (t(4), "d", 4)])
    step(q, ms, [(t(5), "e", 5)])
    assert out.all() == [("a", 1), ("b", 2), ("c", 3)]
    assert q.lastProgress["stateOperators"][0]["operatorName"] == "globalLimit"
    q.stop()


def test_limit_in_complete_mode_applies_to_each_result(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    top = ms.toDF().groupBy("user").agg(F.sum("v").alias("total")).orderBy(F.col("total").desc()).limit(2)
    q = top.writeStream.outputMode("complete").format("memory").queryName("top_users").start()
    step(q, ms, [(t(1), "a", 1), (t(2), "b", 5), (t(3), "c", 3)])
    assert [(r.user, r.total) for r in spark.table("top_users").collect()] == [("b", 5), ("c", 3)]
    step(q, ms, [(t(4), "a", 9)])
    assert [(r.user, r.total) for r in spark.table("top_users").collect()] == [("a", 10), ("b", 5)]
    q.stop()


def test_limit_in_update_mode_is_an_analysis_error(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    with pytest.raises(AnalysisException, match="Update output mode"):
        ms.toDF().limit(2).writeStream.outputMode("update").format("noop").start()


def test_nulls_in_keys_are_equal_for_dedup(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = ms.toDF().dropDuplicates(["user"]).writeStream.foreachBatch(out).start()
    step(q, ms, [(t(1), None, 1), (t(2), None, 2)])
    step(q, ms, [(t(3), None, 3), (t(4), "a", 4)])
    assert out.all() == [(None, 1), ("a", 4)]
    q.stop()


def test_limit_zero_emits_nothing(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SCHEMA)
    out = Rows()
    q = ms.toDF().limit(0).writeStream.foreachBatch(out).start()
    step(q, ms, [(t(1), "a", 1)])
    assert out.all() == []
    q.stop()


@pytest.mark.sparklet_only(reason="the plan text is DataFusion's")
def test_explain_shows_the_stateful_operators(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    ms = MemoryStream(spark, SCHEMA)
    counts = ms.toDF().withWatermark("ts", "10 seconds").dropDuplicates(["user", "ts"]).groupBy("user").count()
    q = counts.writeStream.outputMode("update").format("noop").start()
    step(q, ms, [(t(5), "a", 1)])
    q.explain()
    plan = capsys.readouterr().out
    assert "StateStoreSaveExec" in plan and "StreamingDeduplicateExec" in plan and "EventTimeWatermarkExec" in plan
    q.stop()


@pytest.mark.sparklet_only(reason="the plan text is DataFusion's")
def test_a_dedup_reads_only_its_keys_its_event_time_and_what_follows_reads(
    spark: SparkSession, capsys: pytest.CaptureFixture[str]
) -> None:
    ms = MemoryStream(spark, SCHEMA)
    users = ms.toDF().withWatermark("ts", "10 seconds").dropDuplicatesWithinWatermark(["user"]).select("user")
    seen: list[str] = []
    q = users.writeStream.foreachBatch(lambda tb, _: seen.extend(r["user"] for r in dicts(tb))).start()
    step(q, ms, [(t(5), "a", 1), (t(6), "a", 2)])
    step(q, ms, [(t(40), "b", 3)])  # watermark -> 30: a's key expires, by `ts`, read by no one after
    step(q, ms, [(t(35), "a", 4)])
    assert seen == ["a", "b", "a"]
    q.explain(extended=True)
    # `v` is never read: not decoded, not carried through the dedup
    assert "projection=[ts, user]" in capsys.readouterr().out
    q.stop()


@pytest.mark.sparklet_only(
    reason="sparklet's error condition for a changed or damaged checkpoint (Spark fails with its own)"
)
def test_another_stateful_operator_on_the_same_checkpoint_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    from sparklet.errors import StreamingQueryException

    ms = MemoryStream(spark, SCHEMA)
    ms.addData([(t(1), "a", 1)])
    ckpt = str(tmp_path / "ckpt")
    q = ms.toDF().dropDuplicates(["user"]).writeStream.format("noop").option("checkpointLocation", ckpt).start()
    q.processAllAvailable()
    q.stop()
    metadata = (tmp_path / "ckpt" / "state" / "0" / "_metadata" / "metadata").read_text().splitlines()
    assert metadata[0] == "v1" and '"operatorName":"dedupe"' in metadata[1]
    limited = ms.toDF().limit(5).writeStream.format("noop").option("checkpointLocation", ckpt)
    with pytest.raises(StreamingQueryException, match="stateful operator changed") as e:
        limited.start()
    assert e.value.getCondition() == "CHECKPOINT_INCOMPATIBLE"
