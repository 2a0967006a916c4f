"""Stream-stream joins: rows on either side in any order, watermarks, outer rows, state."""

from __future__ import annotations

import datetime as dt
import logging
import random
import string
from pathlib import Path

import pytest

from conftest import conf_set, dicts, op
from sparklet.errors import AnalysisException, StreamingQueryException
from sparklet.sql import DataFrame, SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

# every test runs on both state store providers
pytestmark = pytest.mark.usefixtures("state_provider")

IMPRESSIONS = "adId INT, impTime TIMESTAMP"
CLICKS = "clickAdId INT, clickTime TIMESTAMP"


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


def sec(v: dt.datetime | None) -> int | None:
    return None if v is None else int((v.replace(tzinfo=None) - t(0)).total_seconds())


class Out:
    """foreachBatch target: (adId, impTime s, clickAdId, clickTime s) rows per batch id."""

    def __init__(self) -> None:
        self.by_batch: dict[int, list[tuple]] = {}

    def __call__(self, table, batch_id: int) -> None:  # noqa: ANN001
        rows = [
            (r.get("adId"), sec(r.get("impTime")), r.get("clickAdId"), sec(r.get("clickTime"))) for r in dicts(table)
        ]
        self.by_batch[batch_id] = sorted(rows, key=repr)

    def all(self) -> list[tuple]:
        return sorted((r for rows in self.by_batch.values() for r in rows), key=repr)


class Streams:
    def __init__(self, spark: SparkSession) -> None:
        self.imp = MemoryStream(spark, IMPRESSIONS)
        self.clk = MemoryStream(spark, CLICKS)

    def watermarked(self, delay: str = "10 seconds") -> tuple[DataFrame, DataFrame]:
        return (
            self.imp.toDF().withWatermark("impTime", delay),
            self.clk.toDF().withWatermark("clickTime", delay),
        )


def run(q, streams: Streams, imp: list | None = None, clk: list | None = None) -> None:  # noqa: ANN001
    if imp:
        streams.imp.addData(imp)
    if clk:
        streams.clk.addData(clk)
    q.processAllAvailable()


RANGE = "clickAdId = adId AND clickTime >= impTime AND clickTime <= impTime + interval 20 seconds"


def start_left_outer(s: Streams, out: Out, tmp_path: Path):  # noqa: ANN201
    """The watermarked left outer join over RANGE, checkpointed in ``tmp_path``."""
    imp, clk = s.watermarked()
    return (
        imp.join(clk, F.expr(RANGE), "leftOuter")
        .writeStream.foreachBatch(out)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )


def test_inner_join_matches_rows_arriving_in_any_order(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    joined = s.imp.toDF().join(s.clk.toDF(), F.col("adId") == F.col("clickAdId"))
    q = joined.writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(1)), (2, t(2))])
    run(q, s, clk=[(1, t(5))])  # the impression came first
    run(q, s, clk=[(3, t(6))])
    run(q, s, imp=[(3, t(7))])  # the click came first
    run(q, s, imp=[(4, t(8))], clk=[(4, t(9))])  # both in one batch
    assert out.all() == [(1, 1, 1, 5), (3, 7, 3, 6), (4, 8, 4, 9)]
    assert op(q)["operatorName"] == "symmetricHashJoin"
    assert op(q)["numRowsTotal"] == 7  # no watermark: every row stays
    q.stop()


@pytest.mark.sparklet_only(reason="sparklet's own warning (Spark logs nothing for it)")
def test_an_unbounded_join_warns_through_python_logging(spark: SparkSession, caplog: pytest.LogCaptureFixture) -> None:
    s = Streams(spark)
    joined = s.imp.toDF().join(s.clk.toDF(), F.col("adId") == F.col("clickAdId"))
    with caplog.at_level(logging.WARNING, logger="sparklet"):
        joined.writeStream.foreachBatch(Out()).start().stop()
    warned = [r for r in caplog.records if "grows without bound" in r.getMessage()]
    # the engine's warning, under the "sparklet" logger, where users configure it
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert warned[0].name.startswith("sparklet.")
    caplog.clear()
    previous = logging.getLevelName(logging.getLogger("sparklet").level)
    try:
        spark.sparkContext.setLogLevel("ERROR")  # the engine sees the new level
        joined.writeStream.foreachBatch(Out()).start().stop()
        assert not [r for r in caplog.records if "grows without bound" in r.getMessage()]
    finally:
        spark.sparkContext.setLogLevel(previous)


def test_inner_join_with_a_time_range_evicts_state(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    q = imp.join(clk, F.expr(RANGE)).writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(30))])  # 30 s is outside the 20 s range
    run(q, s, clk=[(2, t(15))])
    assert out.all() == [(2, 1, 2, 15)]
    before = op(q)["numRowsTotal"]
    run(q, s, imp=[(9, t(100))], clk=[(9, t(101))])  # watermark -> 90: everything older can go
    assert out.all() == [(2, 1, 2, 15), (9, 100, 9, 101)]
    assert op(q)["numRowsTotal"] < before
    assert op(q)["numRowsRemoved"] > 0
    q.stop()


def test_left_outer_join_emits_unmatched_rows_when_the_watermark_passes(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    q = imp.join(clk, F.expr(RANGE), "leftOuter").writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(3))])
    assert out.all() == [(1, 0, 1, 3)]  # 2 may still get a click within 20 s
    # the watermark is the minimum of both sides' (multipleWatermarkPolicy min)
    run(q, s, imp=[(3, t(40))], clk=[(3, t(45))])  # watermark -> 30: impression 2 can no longer match
    assert (2, 1, None, None) in out.all()
    assert (1, 0, None, None) not in out.all()  # matched rows never come out padded
    dropped_before = sum(
        p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"]
    )
    run(q, s, clk=[(2, t(5))])  # behind the watermark: dropped
    dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"])
    assert dropped == dropped_before + 1
    assert out.all() == sorted([(1, 0, 1, 3), (2, 1, None, None), (3, 40, 3, 45)], key=repr)
    q.stop()


def test_right_and_full_outer_joins(spark: SparkSession) -> None:
    for how, expected in [
        ("right", [(1, 0, 1, 3), (None, None, 5, 2)]),
        ("full", [(1, 0, 1, 3), (2, 1, None, None), (None, None, 5, 2)]),
    ]:
        s = Streams(spark)
        out = Out()
        imp, clk = s.watermarked()
        q = imp.join(clk, F.expr(RANGE), how).writeStream.foreachBatch(out).start()
        run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(3)), (5, t(2))])
        run(q, s, imp=[(7, t(60))], clk=[(7, t(61))])  # watermark -> 50: the rest can go
        assert [r for r in out.all() if r[0] != 7] == sorted(expected, key=repr), how
        q.stop()


def test_left_semi_join_emits_each_left_row_once(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    q = imp.join(clk, F.expr(RANGE), "left_semi").writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(0)), (2, t(1))])
    run(q, s, clk=[(1, t(3)), (1, t(4))])  # two clicks: impression 1 comes out once
    run(q, s, clk=[(1, t(5))])
    assert out.all() == [(1, 0, None, None)]
    assert all(set(rows) <= {(1, 0, None, None)} for rows in out.by_batch.values())
    q.stop()


def test_window_equality_join(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    # a side keeps one event-time column: the window, not the time it is of
    left = imp.select("adId", F.window("impTime", "10 seconds").alias("window")).alias("l")
    right = clk.select("clickAdId", F.window("clickTime", "10 seconds").alias("window")).alias("r")
    cond = (F.col("adId") == F.col("clickAdId")) & (F.col("l.window") == F.col("r.window"))
    q = (
        left.join(right, cond, "left")
        .select(
            "adId", F.col("l.window.start").alias("impTime"), "clickAdId", F.col("r.window.start").alias("clickTime")
        )
        .writeStream.foreachBatch(out)
        .start()
    )
    run(q, s, imp=[(1, t(1)), (2, t(2))], clk=[(1, t(8)), (2, t(12))])  # click 2 is in the next window
    run(q, s, imp=[(3, t(40))], clk=[(4, t(40))])  # watermark -> 30: the [0, 10) window closes
    assert [r for r in out.all() if r[0] in (1, 2)] == sorted([(1, 0, 1, 0), (2, 0, None, None)], key=repr)
    q.stop()


def test_a_side_with_two_event_time_columns_fails_the_query(spark: SparkSession) -> None:
    s = Streams(spark)
    imp, clk = s.watermarked()
    left = imp.select("adId", "impTime", F.window("impTime", "10 seconds").alias("window"))
    right = clk.select("clickAdId", F.window("clickTime", "10 seconds").alias("cw"))
    joined = left.join(right, (F.col("adId") == F.col("clickAdId")) & (F.col("window") == F.col("cw")))
    q = joined.writeStream.format("noop").start()
    s.imp.addData([(1, t(1))])
    s.clk.addData([(1, t(2))])
    with pytest.raises(StreamingQueryException, match="MULTIPLE_EVENT_TIME_COLUMNS.*event time columns: \\(impTime"):
        q.processAllAvailable()
    q.stop()


def test_a_join_on_aliased_windows_lets_state_go(spark: SparkSession) -> None:
    # Nexmark q8's shape: windows under names of their own are join keys,
    # and the watermark closes them as it would a column named `window`
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    left = imp.select("adId", F.window("impTime", "10 seconds").alias("iw"))
    right = clk.select("clickAdId", F.window("clickTime", "10 seconds").alias("cw"))
    joined = left.join(right, (F.col("adId") == F.col("clickAdId")) & (F.col("iw") == F.col("cw")))
    starts = joined.select(
        "adId", F.col("iw.start").alias("impTime"), "clickAdId", F.col("cw.start").alias("clickTime")
    )
    q = starts.writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(1)), (2, t(2))], clk=[(1, t(8)), (2, t(12))])
    assert op(q)["numRowsTotal"] == 4
    run(q, s, imp=[(3, t(40))], clk=[(3, t(41))])  # watermark -> 30: the [0, 10) and [10, 20) windows close
    run(q, s)
    assert out.all() == [(1, 0, 1, 0), (3, 40, 3, 40)]
    assert op(q)["numRowsTotal"] == 2
    q.stop()


def test_window_equality_using_join(spark: SparkSession) -> None:
    s = Streams(spark)
    imp, clk = s.watermarked()
    left = imp.select(F.col("adId").alias("id"), F.window("impTime", "10 seconds").alias("window"))
    clicked = (F.col("clickAdId") * 10).alias("ref")
    right = clk.select(F.col("clickAdId").alias("id"), clicked, F.window("clickTime", "10 seconds").alias("window"))
    joined = left.join(right, ["id", "window"], "left")
    assert joined.columns == ["id", "window", "ref"]
    rows: list[tuple] = []
    q = joined.writeStream.foreachBatch(lambda tbl, _: rows.extend((r["id"], r["ref"]) for r in dicts(tbl))).start()
    run(q, s, imp=[(1, t(1)), (2, t(2))], clk=[(1, t(8)), (2, t(12))])
    run(q, s, imp=[(3, t(40))], clk=[(4, t(40))])
    assert sorted((r for r in rows if r[0] in (1, 2)), key=repr) == [(1, 10), (2, None)]
    q.stop()


def test_outer_join_without_watermark_is_an_analysis_error(spark: SparkSession) -> None:
    s = Streams(spark)
    joined = s.imp.toDF().join(s.clk.toDF(), F.col("adId") == F.col("clickAdId"), "left")
    with pytest.raises(AnalysisException, match="LeftOuter join between two streaming"):
        joined.writeStream.format("noop").start()


def test_join_state_survives_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    s = Streams(spark)
    out = Out()

    q = start_left_outer(s, out, tmp_path)
    run(q, s, imp=[(1, t(0)), (2, t(1))])
    q.stop()
    q = start_left_outer(s, out, tmp_path)
    run(q, s, clk=[(1, t(5))])  # matches the impression stored before the restart
    run(q, s, imp=[(3, t(60))], clk=[(3, t(61))])  # impression 2 expires unmatched
    assert (1, 0, 1, 5) in out.all() and (2, 1, None, None) in out.all()
    q.stop()


def test_large_batches_join_like_a_nested_loop(spark: SparkSession, tmp_path: Path) -> None:
    # batches this large update the state partitions side by side
    s = Streams(spark)
    out = Out()

    # two batches of 10000 rows a side, the second after the first's
    # watermark; eviction visits thousands of keys a side
    imps = [[(i % 5000, t(base + i % 50)) for i in range(10_000)] for base in (0, 50)]
    clks = [[(j % 6000, t(base + 5 + j % 45)) for j in range(10_000)] for base in (0, 50)]
    q = start_left_outer(s, out, tmp_path)
    run(q, s, imp=imps[0], clk=clks[0])
    q.stop()
    q = start_left_outer(s, out, tmp_path)
    run(q, s, imp=imps[1], clk=clks[1])
    run(q, s, imp=[(-1, t(1000))], clk=[(-1, t(1001))])  # the watermark passes everything
    q.stop()
    assert out.all() == left_outer_by_nested_loop(imps[0] + imps[1], clks[0] + clks[1])


def left_outer_by_nested_loop(imps: list[tuple], clks: list[tuple]) -> list[tuple]:
    """What the left outer join over RANGE outputs for all these rows, and
    the (-1, 1000) and (-1, 1001) rows that move the watermark past them."""
    clicks: dict = {}
    for ad, ts in clks:
        clicks.setdefault(ad, []).append(ts)
    expected = [(-1, 1000, -1, 1001)]
    for ad, ts in imps:
        hits = [c for c in clicks.get(ad, []) if ts <= c <= ts + dt.timedelta(seconds=20)]
        expected += [(ad, sec(ts), ad, sec(c)) for c in hits] or [(ad, sec(ts), None, None)]
    return sorted(expected, key=repr)


def test_a_batch_of_many_input_batches_joins_each_pair_once(spark: SparkSession, tmp_path: Path) -> None:
    # a side's rows join in chunks as its input is read: three inputs of
    # 10000 rows a side in one micro-batch; clicks in the last chunk match
    # impressions of the first, and impressions in the last chunk match
    # clicks of every chunk (stored during this batch)
    s = Streams(spark)
    out = Out()
    imps = [(i % 7000, t(i % 50)) for i in range(30_000)]
    clks = [(j % 8000, t(5 + j % 45)) for j in range(30_000)]
    for part in range(3):
        s.imp.addData(imps[part * 10_000 : (part + 1) * 10_000])
        s.clk.addData(clks[part * 10_000 : (part + 1) * 10_000])
    q = start_left_outer(s, out, tmp_path)
    q.processAllAvailable()
    run(q, s, imp=[(-1, t(1000))], clk=[(-1, t(1001))])  # the watermark passes everything
    assert q.recentProgress[0]["numInputRows"] == 60_000
    q.stop()
    assert out.all() == left_outer_by_nested_loop(imps, clks)


def test_a_failing_join_input_fails_its_batch_and_a_restart_joins_it_once(spark: SparkSession, tmp_path: Path) -> None:
    # one side's input fails while both are read: the batch stores nothing,
    # the query stops with the cause, and a restart runs the batch again
    s = Streams(spark)
    out = Out()

    def start(failing: bool):  # noqa: ANN202
        # a new UDF each run: PySpark pickles a UDF's function (and what it reads) once
        @F.udf("int")
        def checked(ad: int) -> int:
            if failing and ad == 99:
                raise ValueError("bad click 99")
            return ad

        imp, clk = s.watermarked()
        clk = clk.withColumn("clickAdId", checked("clickAdId"))
        return (
            imp.join(clk, F.expr(RANGE), "leftOuter")
            .writeStream.foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start(failing=True)
    run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(3))])
    s.imp.addData([(99, t(4))])
    s.clk.addData([(2, t(5)), (99, t(6))])
    with pytest.raises(StreamingQueryException):
        q.processAllAvailable()
    assert "bad click 99" in str(q.exception()) and not q.isActive
    q = start(failing=False)
    q.processAllAvailable()
    run(q, s, imp=[(-1, t(1000))], clk=[(-1, t(1001))])  # the watermark passes everything
    q.stop()
    assert out.all() == sorted([(1, 0, 1, 3), (2, 1, 2, 5), (99, 4, 99, 6), (-1, 1000, -1, 1001)], key=repr)


def test_watermarks_follow_renamed_columns(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    imp = imp.withColumnRenamed("impTime", "shown")
    cond = F.expr("clickAdId = adId AND clickTime >= shown AND clickTime <= shown + interval 20 seconds")
    q = imp.join(clk, cond, "left").withColumnRenamed("shown", "impTime").writeStream.foreachBatch(out).start()
    run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(3))])
    run(q, s, imp=[(3, t(40))], clk=[(3, t(45))])  # watermark -> 30: impression 2 expires
    assert (2, 1, None, None) in out.all()
    q.stop()


def test_a_join_stores_only_the_columns_read_after_it(spark: SparkSession, tmp_path: Path) -> None:
    """SQL joins whole rows, then selects: the columns nobody reads are pruned
    below the join (as Spark prunes them), so its state holds only what the
    query reads, and a watermarked column still drops late rows."""
    # payloads that do not compress away in the state files
    rng = random.Random(7)
    payloads = ["".join(rng.choices(string.ascii_letters, k=20_000)) for _ in range(21)]
    queries = {
        "narrow": "SELECT adId, clickTime FROM imp JOIN clk ON adId = clickAdId",
        "wide": "SELECT adId, clickTime, payload FROM imp JOIN clk ON adId = clickAdId",
    }
    stored, rows = {}, {}
    for name, sql in queries.items():
        imp, clk = MemoryStream(spark, "adId INT, impTime TIMESTAMP, payload STRING"), MemoryStream(spark, CLICKS)
        imp.toDF().withWatermark("impTime", "10 seconds").createOrReplaceTempView("imp")
        clk.toDF().createOrReplaceTempView("clk")
        got: list[dict] = []
        ckpt = tmp_path / name
        q = (
            spark.sql(sql)
            .writeStream.foreachBatch(lambda tb, _, got=got: got.extend(dicts(tb)))
            .option("checkpointLocation", str(ckpt))
            .start()
        )
        imp.addData([(i, t(100 + i), payloads[i]) for i in range(20)])
        clk.addData([(1, t(101)), (2, t(102))])
        q.processAllAvailable()
        imp.addData([(30, t(200), payloads[20])])  # watermark -> 190
        q.processAllAvailable()
        clk.addData([(99, t(201))])  # late rows are those behind the batch before's
        q.processAllAvailable()
        # behind the watermark, but the state has no watermark condition
        # (none in the keys, no time range): kept, and it joins
        imp.addData([(31, t(150), "late")])
        q.processAllAvailable()
        clk.addData([(31, t(300))])
        q.processAllAvailable()
        assert op(q)["numRowsDroppedByWatermark"] == 0
        q.stop()
        stored[name] = sum(f.stat().st_size for f in (ckpt / "state").rglob("*") if f.is_file())
        rows[name] = sorted((r["adId"], sec(r["clickTime"])) for r in got)
    assert rows["narrow"] == rows["wide"] == [(1, 101), (2, 102), (31, 300)]
    # 21 impressions of 20 KB are in the wide query's state files only (before
    # the pruning, both stored them; the stores' own files are the same size)
    assert stored["wide"] - stored["narrow"] > 300_000


@pytest.mark.sparklet_only(
    reason="sparklet checks the stored rows' columns at restart (Spark 4.3 does not; docs/differences.md)"
)
def test_a_join_reading_other_columns_refuses_its_old_state(spark: SparkSession, tmp_path: Path) -> None:
    """A side stores the columns read after the join: restarted reading
    others, the stored rows would be misread, so the checkpoint is refused."""
    imp, clk = MemoryStream(spark, "adId INT, impTime TIMESTAMP, payload STRING"), MemoryStream(spark, CLICKS)
    joined = imp.toDF().join(clk.toDF(), F.col("adId") == F.col("clickAdId"))

    def start(df: DataFrame):  # noqa: ANN202
        return df.writeStream.format("noop").option("checkpointLocation", str(tmp_path)).start()

    q = start(joined.select("adId", "clickTime"))
    imp.addData([(1, t(1), "p")])
    q.processAllAvailable()
    q.stop()
    with pytest.raises(StreamingQueryException, match=r"holds rows of \[adId: Int32\] but the query now stores") as e:
        start(joined.select("adId", "payload", "clickTime"))
    assert e.value.getCondition() == "CHECKPOINT_INCOMPATIBLE"
    # the same columns as before resume
    q = start(joined.select("clickTime", "adId"))
    clk.addData([(1, t(2))])
    q.processAllAvailable()
    assert op(q)["numRowsTotal"] == 2
    q.stop()


def test_union_of_streams_combines_their_watermarks(spark: SparkSession) -> None:
    a = MemoryStream(spark, IMPRESSIONS)
    b = MemoryStream(spark, IMPRESSIONS)
    both = a.toDF().withWatermark("impTime", "10 seconds").union(b.toDF().withWatermark("impTime", "20 seconds"))
    q = both.groupBy(F.window("impTime", "10 seconds")).count().writeStream.outputMode("append").format("noop").start()
    a.addData([(1, t(100))])
    b.addData([(2, t(100))])
    q.processAllAvailable()
    a.addData([(1, t(101))])  # the slower watermark (b: 100 - 20) holds the combined one back
    q.processAllAvailable()
    assert q.lastProgress["eventTime"]["watermark"] == "2024-01-01T00:01:20.000Z"
    q.stop()


def test_chained_window_aggregations_in_append_mode(spark: SparkSession) -> None:
    ms = MemoryStream(spark, IMPRESSIONS)
    per_10s = (
        ms.toDF()
        .withWatermark("impTime", "5 seconds")
        .groupBy(F.window("impTime", "10 seconds"), "adId")
        .agg(F.count("*").alias("n"))
    )
    per_minute = per_10s.groupBy(F.window(F.window_time("window"), "1 minute")).agg(
        F.sum("n").alias("n"), F.count("*").alias("windows")
    )
    out: list[tuple] = []
    q = (
        per_minute.writeStream.outputMode("append")
        .foreachBatch(lambda tbl, _: out.extend((sec(r["window"]["start"]), r["n"], r["windows"]) for r in dicts(tbl)))
        .start()
    )
    ms.addData([(1, t(1)), (1, t(2)), (2, t(15)), (1, t(59))])
    q.processAllAvailable()
    assert out == []  # nothing closed yet
    ms.addData([(3, t(70))])  # watermark -> 65: the 10 s windows up to 60 close, then the minute [0, 60)
    q.processAllAvailable()
    assert out == [(0, 4, 3)]
    names = [o["operatorName"] for o in q.lastProgress["stateOperators"]]
    assert names == ["stateStoreSave", "stateStoreSave"]
    q.stop()


def test_grouping_by_a_sliding_window_keeps_its_windows(spark: SparkSession) -> None:
    # Nexmark q5's shape: per sliding window the busiest ad. The second
    # aggregation groups by the first one's window value: its rows are those
    # windows, not windows made again from them
    ms = MemoryStream(spark, IMPRESSIONS)
    per_ad = (
        ms.toDF()
        .withWatermark("impTime", "0 seconds")
        .groupBy(F.window("impTime", "10 seconds", "5 seconds"), "adId")
        .agg(F.count("*").alias("n"))
    )
    busiest = per_ad.groupBy("window").agg(F.max("n").alias("top"), F.count("*").alias("ads"))
    out: list[tuple] = []
    q = (
        busiest.writeStream.outputMode("append")
        .foreachBatch(lambda tbl, _: out.extend((sec(r["window"]["start"]), r["top"], r["ads"]) for r in dicts(tbl)))
        .start()
    )
    ms.addData([(1, t(1)), (1, t(2)), (2, t(6)), (1, t(7))])
    q.processAllAvailable()
    ms.addData([(3, t(30))])  # watermark -> 30: every window up to [15, 25) closes
    q.processAllAvailable()
    # [-5, 5): ad 1 twice; [0, 10): ad 1 three times, ad 2 once; [5, 15): ads 1 and 2 once
    assert sorted(out) == [(-5, 2, 1), (0, 3, 2), (5, 1, 2)]
    q.stop()


def test_aggregation_over_a_stream_stream_join(spark: SparkSession) -> None:
    s = Streams(spark)
    imp, clk = s.watermarked()
    joined = imp.join(clk, F.expr(RANGE))
    counts = joined.groupBy(F.window("clickTime", "10 seconds")).agg(F.count("*").alias("clicks"))
    out: list[tuple] = []
    q = (
        counts.writeStream.outputMode("append")
        .foreachBatch(lambda tbl, _: out.extend((sec(r["window"]["start"]), r["clicks"]) for r in dicts(tbl)))
        .start()
    )
    run(q, s, imp=[(1, t(0)), (2, t(1))], clk=[(1, t(3)), (2, t(4))])
    # the join's output watermark trails the query's by its 20 s range (and
    # a millisecond, the bound not being strict): at 30 it is just under 10
    run(q, s, imp=[(9, t(40))], clk=[(9, t(41))])
    assert out == []
    run(q, s, imp=[(10, t(45))], clk=[(10, t(46))])  # watermark -> 35: [0, 10) closes
    assert out == [(0, 2)]
    assert [o["operatorName"] for o in q.lastProgress["stateOperators"]] == ["stateStoreSave", "symmetricHashJoin"]
    q.stop()


def test_chained_aggregations_need_append_mode(spark: SparkSession) -> None:
    ms = MemoryStream(spark, IMPRESSIONS)
    inner = ms.toDF().withWatermark("impTime", "5 seconds").groupBy(F.window("impTime", "10 seconds")).count()
    outer = inner.groupBy(F.window(F.window_time("window"), "1 minute")).count()
    with pytest.raises(
        AnalysisException, match="Detected pattern of possible 'correctness' issue due to global watermark"
    ):
        outer.writeStream.outputMode("update").format("noop").start()


def test_null_keys_never_match_but_outer_rows_still_come_out(spark: SparkSession) -> None:
    s = Streams(spark)
    out = Out()
    imp, clk = s.watermarked()
    q = imp.join(clk, F.expr(RANGE), "left").writeStream.foreachBatch(out).start()
    run(q, s, imp=[(None, t(0)), (1, t(0))], clk=[(None, t(2)), (1, t(2))])
    run(q, s, imp=[(5, t(60))], clk=[(5, t(61))])  # watermark -> 50: the null-keyed impression expires
    rows = [r for r in out.all() if r[0] != 5]
    assert rows == sorted([(1, 0, 1, 2), (None, 0, None, None)], key=repr)
    q.stop()


def test_a_join_keeps_its_state_through_changed_shuffle_partitions(spark: SparkSession, tmp_path: Path) -> None:
    s = Streams(spark)
    out = Out()
    q = start_left_outer(s, out, tmp_path)
    run(q, s, imp=[(i, t(i)) for i in range(20)])
    q.stop()
    with conf_set(spark, "spark.sql.shuffle.partitions", "3"):
        q = start_left_outer(s, out, tmp_path)
        # clicks for every stored impression match after the rescale
        run(q, s, clk=[(i, t(i + 5)) for i in range(20)])
        q.stop()
    assert sorted(r for r in out.all() if r[2] is not None) == [(i, i, i, i + 5) for i in range(20)]
