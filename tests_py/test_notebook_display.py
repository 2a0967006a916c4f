"""How DataFrames and queries show themselves in Jupyter (their HTML)."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import step
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

pytestmark = pytest.mark.sparklet_only(reason="sparklet's notebook display (docs/differences.md: Jupyter)")


def test_a_batch_dataframe_is_an_escaped_html_table(spark: SparkSession) -> None:
    df = spark.createDataFrame([(i, "<b>x</b>" if i == 0 else None) for i in range(25)], "id INT, note STRING")
    page = df._repr_html_()
    assert "<th>id</th><th>note</th>" in page
    assert "<td>0</td><td>&lt;b&gt;x&lt;/b&gt;</td>" in page and "<b>x</b>" not in page
    assert "<td>1</td><td>NULL</td>" in page
    assert page.count("<tr>") == 21  # the header and 20 rows
    assert "only showing top 20 rows" in page
    small = spark.createDataFrame([(1, "a")], "id INT, note STRING")._repr_html_()
    assert "only showing" not in small


def test_cells_are_shown_as_show_prints_them(spark: SparkSession) -> None:
    t0 = dt.datetime(2024, 1, 1)
    df = spark.createDataFrame(
        [(t0, (1, "x"), [1, 2], {"a": 1}, "a long piece of text, longer than twenty")],
        "ts TIMESTAMP, s STRUCT<a:INT,b:STRING>, arr ARRAY<INT>, m MAP<STRING,INT>, t STRING",
    )
    page = df._repr_html_()
    cells = (
        "<td>2024-01-01 00:00:00</td><td>{1, x}</td><td>[1, 2]</td><td>{a -&gt; 1}</td><td>a long piece of t...</td>"
    )
    assert cells in page
    assert "|2024-01-01 00:00:00|{1, x}|[1, 2]|{a -> 1}|a long piece of t...|" in df._show_string()
    windows = df.select(F.window("ts", "1 second").alias("w"))
    spark.conf.set("spark.sql.repl.eagerEval.truncate", "0")
    try:
        assert "<td>{2024-01-01 00:00:00, 2024-01-01 00:00:01}</td>" in windows._repr_html_()
    finally:
        spark.conf.unset("spark.sql.repl.eagerEval.truncate")


def test_a_streaming_dataframe_is_described_not_run(spark: SparkSession) -> None:
    page = MemoryStream(spark, "id INT").toDF()._repr_html_()
    assert "streaming DataFrame[id: int]" in page and "writeStream" in page


def test_a_query_card_shows_its_state(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "ts TIMESTAMP, k STRING")
    q = (
        ms.toDF()
        .withWatermark("ts", "1 second")
        .groupBy("k")
        .agg(F.count("*").alias("n"))
        .writeStream.outputMode("update")
        .format("memory")
        .queryName("carded")
        .start()
    )
    t0 = dt.datetime(2024, 1, 1)
    step(q, ms, [(t0, "a"), (t0, "b")])
    step(q, ms, [(t0 + dt.timedelta(seconds=5), "a")])
    card = q._repr_html_()
    assert "StreamingQuery carded" in card and "active" in card
    assert f"<td>{q.lastProgress['batchId']}</td>" in card
    assert "<th style='text-align:left'>state rows</th><td>2</td>" in card
    assert "2024-01-01T00:00:04.000Z" in card  # the watermark
    assert "<svg" in card  # recent processing rates
    q.stop()
    assert "stopped" in q._repr_html_()


def test_the_card_shows_the_rates_of_the_last_batch_with_data(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "ts TIMESTAMP, k STRING")
    windowed = ms.toDF().withWatermark("ts", "1 second").groupBy(F.window("ts", "1 second"), "k").count()
    q = windowed.writeStream.outputMode("append").format("memory").queryName("rates").start()
    t0 = dt.datetime(2024, 1, 1)
    step(q, ms, [(t0, "a"), (t0, "b")])
    step(q, ms, [(t0 + dt.timedelta(seconds=5), "a")])
    try:
        # the watermark moved: a batch without data ran after the last one with data
        assert q.lastProgress["numInputRows"] == 0
        data = [p for p in q.recentProgress if p["numInputRows"] > 0][-1]
        card = q._repr_html_()
        assert (
            f"<th style='text-align:left'>processed rows/s</th><td>{data['processedRowsPerSecond']:,.1f}</td>" in card
        )
        assert data["processedRowsPerSecond"] > 0
    finally:
        q.stop()
