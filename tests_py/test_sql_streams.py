"""SQL over streaming views: Spark's window functions as SQL users write
them, and Flink-style window table functions (TUMBLE, HOP, CUMULATE), each
giving per batch what the DataFrame API gives."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import dicts
from sparklet.errors import AnalysisException, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def t(sec: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=sec)


BATCHES = [
    [(t(1), "a"), (t(3), "b"), (t(12), "a")],
    [(t(14), "a"), (t(2), "b"), (t(27), "b")],  # t(2) is not late: its windows end after the watermark (2 s)
    [(t(45), "a")],
]


def run_per_batch(ms: MemoryStream, df, name: str, mode: str) -> list:  # noqa: ANN001
    """The rows each batch emitted (foreachBatch), sorted."""
    seen: list = []

    def gather(tbl, batch_id: int) -> None:  # noqa: ANN001
        rows = sorted(tuple(r.values()) for r in dicts(tbl))
        seen.append(rows)

    q = df.writeStream.outputMode(mode).foreachBatch(gather).queryName(name).start()
    for rows in BATCHES:
        ms.addData(rows)
        q.processAllAvailable()
    q.stop()
    return seen


TABLE_FUNCTIONS = "window table functions (TUMBLE, HOP, CUMULATE, SESSION) and cumulate_window are sparklet's (Flink's; Spark has none)"


@pytest.fixture()
def clicks(spark: SparkSession) -> MemoryStream:
    ms = MemoryStream(spark, "ts TIMESTAMP, page STRING")
    ms.toDF().withWatermark("ts", "10 seconds").createOrReplaceTempView("clicks")
    return ms


@pytest.mark.parametrize("mode", ["append", "update"])
def test_group_by_window_in_sql_equals_the_dataframe_api(spark: SparkSession, mode: str) -> None:
    api_stream = MemoryStream(spark, "ts TIMESTAMP, page STRING")
    api = (
        api_stream.toDF()
        .withWatermark("ts", "10 seconds")
        .groupBy(F.window("ts", "10 seconds"), "page")
        .agg(F.count("*").alias("n"))
        .select(F.col("window.start").alias("start"), "page", "n")
    )
    sql_stream = MemoryStream(spark, "ts TIMESTAMP, page STRING")
    sql_stream.toDF().withWatermark("ts", "10 seconds").createOrReplaceTempView("clicks_sql")
    by_sql = spark.sql(
        "WITH w AS (SELECT window(ts, '10 seconds') AS win, page, count(*) AS n "
        "FROM clicks_sql GROUP BY window(ts, '10 seconds'), page) "
        "SELECT win.start AS start, page, n FROM w"
    )
    assert by_sql.isStreaming
    expected = run_per_batch(api_stream, api, f"w_api_{mode}", mode)
    got = run_per_batch(sql_stream, by_sql, f"w_sql_{mode}", mode)
    assert got == expected
    assert any(got)  # something was emitted


def test_window_with_a_text_duration_and_window_time(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql(
        "SELECT window_time(w) AS wt, n FROM "
        "(SELECT window(ts, '10 seconds') AS w, count(*) AS n FROM clicks GROUP BY window(ts, '10 seconds'))"
    )
    got = run_per_batch(clicks, df, "wt_sql", "append")
    # windows close as the watermark passes them: [0,10) after batch 1, [10,20) and [20,30) after batch 2
    flat = [r for batch in got for r in batch]
    assert flat == [(t(10) - dt.timedelta(microseconds=1), 3), (t(20) - dt.timedelta(microseconds=1), 2),
                    (t(30) - dt.timedelta(microseconds=1), 1)]  # fmt: skip


def test_a_global_session_window_in_sql_fails_the_query(spark: SparkSession, clicks: MemoryStream) -> None:
    # Spark runs session windows per key only: with no other key its first batch fails
    df = spark.sql(
        "SELECT s.start AS start, s.end AS end, n FROM (SELECT session_window(ts, '5 seconds') AS s, "
        "count(*) AS n FROM clicks GROUP BY session_window(ts, '5 seconds'))"
    )
    q = df.writeStream.outputMode("append").format("noop").start()
    clicks.addData(BATCHES[0])
    with pytest.raises(StreamingQueryException, match="Global aggregation with session window"):
        q.processAllAvailable()


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
@pytest.mark.parametrize("mode", ["append", "update"])
def test_tumble_table_function_equals_window(spark: SparkSession, clicks: MemoryStream, mode: str) -> None:
    df = spark.sql(
        "SELECT window_start, window_end, page, count(*) AS n "
        "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end, page"
    )
    got = run_per_batch(clicks, df, f"tumble_{mode}", mode)
    flat = sorted(r for batch in got for r in batch)
    if mode == "append":  # each window once, when the watermark (max ts - 10 s) passes its end
        assert flat == [(t(0), t(10), "a", 1), (t(0), t(10), "b", 2), (t(10), t(20), "a", 2), (t(20), t(30), "b", 1)]
    else:  # each update as it happens
        assert (t(0), t(10), "b", 2) in flat and (t(40), t(50), "a", 1) in flat


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_hop_table_function_puts_rows_in_each_sliding_window(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql(
        "SELECT window_start, window_end, count(*) AS n "
        "FROM HOP(TABLE clicks, DESCRIPTOR(ts), '5 seconds', '10 seconds') GROUP BY window_start, window_end"
    )
    got = run_per_batch(clicks, df, "hop", "append")
    flat = sorted(r for batch in got for r in batch)
    assert flat[:3] == [(t(-5), t(5), 3), (t(0), t(10), 3), (t(5), t(15), 2)]


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_cumulate_table_function_grows_windows_by_a_step(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql(
        "SELECT window_start, window_end, count(*) AS n "
        "FROM CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND) "
        "GROUP BY window_start, window_end"
    )
    got = run_per_batch(clicks, df, "cumulate", "append")
    flat = sorted(r for batch in got for r in batch)
    # period [0, 20): [0,5) has 1, 2, 3; [0,10) the same; [0,15) adds 12, 14; [0,20) the same
    assert flat[:4] == [(t(0), t(5), 3), (t(0), t(10), 3), (t(0), t(15), 5), (t(0), t(20), 5)]


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_cumulate_window_in_the_dataframe_api_matches_sql(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "ts TIMESTAMP, page STRING")
    df = (
        ms.toDF()
        .withWatermark("ts", "10 seconds")
        .groupBy(F.cumulate_window("ts", "5 seconds", "20 seconds"))
        .agg(F.count("*").alias("n"))
        .select("window.start", "window.end", "n")
    )
    got = run_per_batch(ms, df, "cumulate_api", "append")
    flat = sorted(r for batch in got for r in batch)
    assert flat[:4] == [(t(0), t(5), 3), (t(0), t(10), 3), (t(0), t(15), 5), (t(0), t(20), 5)]


def test_sliding_window_in_sql_puts_rows_in_each_window(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql(
        "SELECT w.start AS start, w.end AS end, n FROM (SELECT window(ts, '10 seconds', '5 seconds') AS w, "
        "count(*) AS n FROM clicks GROUP BY 1)"
    )
    got = run_per_batch(clicks, df, "sliding_sql", "append")
    flat = sorted(r for batch in got for r in batch)
    # the same windows as HOP's, and as F.window(ts, "10 seconds", "5 seconds")
    assert flat[:3] == [(t(-5), t(5), 3), (t(0), t(10), 3), (t(5), t(15), 2)]


def test_sliding_window_in_sql_on_a_batch_table(spark: SparkSession) -> None:
    spark.createDataFrame([(t(1),), (t(3),), (t(7),)], "ts TIMESTAMP").createOrReplaceTempView("sliding_batch")
    rows = spark.sql(
        "SELECT window(ts, '10 seconds', '5 seconds') AS w, count(*) AS n FROM sliding_batch GROUP BY 1 ORDER BY 1"
    ).collect()
    assert [(r.w.start.second, r.n) for r in rows] == [(55, 2), (0, 3), (5, 1)]


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_bad_table_function_call_is_an_analysis_error(spark: SparkSession, clicks: MemoryStream) -> None:
    with pytest.raises(AnalysisException, match="DESCRIPTOR"):
        spark.sql("SELECT * FROM TUMBLE(TABLE clicks, ts, '10 seconds')")


@pytest.mark.sparklet_only(
    reason="explain() of an unstarted stream: Spark 4.3 raises 'Queries with streaming sources must be executed "
    "with writeStream.start()'; sparklet prints the plan the query will run"
)
def test_explain_shows_the_stateful_operators_of_a_stream(
    spark: SparkSession, clicks: MemoryStream, capsys: pytest.CaptureFixture[str]
) -> None:
    df = spark.sql("SELECT window(ts, '10 seconds') AS w, count(*) AS n FROM clicks GROUP BY window(ts, '10 seconds')")
    df.explain()
    shown = capsys.readouterr().out
    assert "StateStoreSave" in shown and "EventTimeWatermark: ts, delay=10000ms" in shown
    assert "== Physical Plan ==" in shown and "StateStoreSaveExec" in shown
    # nothing was started to explain it
    assert not spark.streams.active


@pytest.mark.sparklet_only(
    reason="SQL EXPLAIN over a stream: Spark's plan rows hold the error 'Queries with streaming sources must be "
    "executed with writeStream.start()'; sparklet shows the plan the query will run"
)
def test_sql_explain_of_a_stream_shows_its_plan(spark: SparkSession, clicks: MemoryStream) -> None:
    [row] = spark.sql("EXPLAIN SELECT page FROM clicks WHERE page <> 'x' GROUP BY page").collect()
    assert "StateStoreSaveExec" in row.plan and "EventTimeWatermarkExec" in row.plan
    assert not spark.streams.active


def test_timestamps_cast_to_strings_read_as_in_spark(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql("SELECT CAST(ts AS STRING) AS text, page FROM clicks")
    api = clicks.toDF().select(F.col("ts").cast("string").alias("text"), "page")
    q1 = df.writeStream.format("memory").queryName("cast_sql").start()
    q2 = api.writeStream.format("memory").queryName("cast_api").start()
    clicks.addData([(t(1.5), "a"), (t(2), "b")])
    q1.processAllAvailable()
    q2.processAllAvailable()
    expected = [("2024-01-01 00:00:01.5", "a"), ("2024-01-01 00:00:02", "b")]
    assert [tuple(r) for r in spark.table("cast_sql").orderBy("text").collect()] == expected
    assert [tuple(r) for r in spark.table("cast_api").orderBy("text").collect()] == expected


def test_spark_sql_functions_datafusion_lacks_work_on_a_stream(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "ts TIMESTAMP, n INT, s STRING")
    ms.toDF().createOrReplaceTempView("fn_stream")
    df = spark.sql(
        "SELECT year(ts) AS y, month(ts) AS mo, dayofmonth(ts) AS d, hour(ts) AS h, minute(ts) AS mi, "
        "second(ts) AS sec, date_add(ts, 1) AS tomorrow, date_sub(ts, 1) AS yesterday, "
        'nvl(s, "none") AS s2, if(n > 1, "big", "small") AS size FROM fn_stream'
    )
    q = df.writeStream.format("memory").queryName("fn_out").start()
    ms.addData([(T0 + dt.timedelta(days=59, hours=7, minutes=8, seconds=9), 2, None)])
    q.processAllAvailable()
    [row] = spark.table("fn_out").collect()
    assert tuple(row) == (2024, 2, 29, 7, 8, 9, dt.date(2024, 3, 1), dt.date(2024, 2, 28), "none", "big")


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
@pytest.mark.parametrize("mode", ["append", "complete"])
def test_session_table_function_merges_sessions_per_key(spark: SparkSession, clicks: MemoryStream, mode: str) -> None:
    df = spark.sql(
        "SELECT window_start, window_end, page, count(*) AS n "
        "FROM SESSION(TABLE clicks PARTITION BY page, DESCRIPTOR(ts), INTERVAL '5' SECOND) "
        "GROUP BY window_start, window_end, page"
    )
    got = run_per_batch(clicks, df, f"session_tvf_{mode}", mode)
    flat = sorted(r for batch in got for r in batch)
    if mode == "append":
        # a: 1 | 12, 14 | 45 (open: the watermark is 35); b: 2, 3 | 27
        assert flat == [(t(1), t(6), "a", 1), (t(2), t(8), "b", 2), (t(12), t(19), "a", 2), (t(27), t(32), "b", 1)]
    else:
        assert (t(2), t(8), "b", 2) in flat and (t(45), t(50), "a", 1) in flat


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_session_table_function_on_a_batch_table(spark: SparkSession) -> None:
    spark.createDataFrame(
        [(t(1), "a"), (t(3), "a"), (t(20), "a")], "ts TIMESTAMP, page STRING"
    ).createOrReplaceTempView("clicks_batch")
    rows = spark.sql(
        "SELECT window_start, window_end, count(*) AS n "
        "FROM SESSION(TABLE clicks_batch, DESCRIPTOR(ts), '5 seconds') GROUP BY window_start, window_end "
        "ORDER BY window_start"
    ).collect()
    naive = [(t(1), t(8), 2), (t(20), t(25), 1)]
    assert [tuple(r) for r in rows] == [(a.replace(tzinfo=None), b.replace(tzinfo=None), n) for a, b, n in naive]


def test_sql_join_of_a_streaming_and_a_static_view(spark: SparkSession, clicks: MemoryStream) -> None:
    spark.createDataFrame([("a", "home"), ("b", "cart")], "page STRING, title STRING").createOrReplaceTempView("pages")
    df = spark.sql(
        "SELECT c.page, p.title, count(*) AS n FROM clicks c JOIN pages p ON c.page = p.page GROUP BY c.page, p.title"
    )
    assert df.isStreaming
    got = [b for b in run_per_batch(clicks, df, "sql_join", "update") if b]  # batches with updates
    assert got[0] == [("a", "home", 2), ("b", "cart", 1)]
    assert got[1] == [("a", "home", 3), ("b", "cart", 3)]


@pytest.mark.sparklet_only(reason=TABLE_FUNCTIONS)
def test_cumulate_in_update_mode_reports_each_growing_window(spark: SparkSession, clicks: MemoryStream) -> None:
    df = spark.sql(
        "SELECT window_start, window_end, count(*) AS n "
        "FROM CUMULATE(TABLE clicks, DESCRIPTOR(ts), '10 seconds', '20 seconds') GROUP BY window_start, window_end"
    )
    got = run_per_batch(clicks, df, "cumulate_update", "update")
    # batch 1: 1, 3 in [0,10) and [0,20); 12 in [0,20)
    assert got[0] == [(t(0), t(10), 2), (t(0), t(20), 3)]


def test_timestamps_cast_to_numbers_are_epoch_seconds_as_in_spark(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.datetime(2024, 1, 1, 0, 0, 1, 500000, tzinfo=dt.UTC),)], "ts TIMESTAMP")
    [row] = df.select(
        F.col("ts").cast("long").alias("l"), F.col("ts").cast("int").alias("i"), F.col("ts").cast("double").alias("d")
    ).collect()
    assert (row["l"], row["i"], row["d"]) == (1704067201, 1704067201, 1704067201.5)
    df.createOrReplaceTempView("one_ts")
    [row] = spark.sql("SELECT CAST(ts AS BIGINT) AS l FROM one_ts").collect()
    assert row["l"] == 1704067201
