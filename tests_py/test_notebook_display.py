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
    assert "<td>1</td><td>null</td>" in page
    assert page.count("<tr>") == 21  # the header and 20 rows
    assert "only showing top 20 rows" in page
    small = spark.createDataFrame([(1, "a")], "id INT, note STRING")._repr_html_()
    assert "only showing" not in small


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
