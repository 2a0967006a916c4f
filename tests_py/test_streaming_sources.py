"""Streaming sources: files, rate, rate-micro-batch, MemoryStream."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import dicts, write_json
from sparklet.errors import AnalysisException, IllegalArgumentException, StreamingQueryException
from sparklet.sql import Row, SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream


def collect_batches(df, **trigger):  # noqa: ANN001, ANN003, ANN201
    seen: list[tuple[int, list]] = []
    writer = df.writeStream.foreachBatch(lambda t, i: seen.append((i, dicts(t))))
    if trigger:
        writer = writer.trigger(**trigger)
    q = writer.start()
    return q, seen


def test_json_directory_stream_picks_up_new_files(spark: SparkSession, tmp_path: Path) -> None:
    write_json(tmp_path, "1.json", [{"id": 1, "v": "a"}])
    df = spark.readStream.schema("id INT, v STRING").json(str(tmp_path))
    assert df.isStreaming
    q = df.writeStream.format("memory").queryName("json_stream").start()
    q.processAllAvailable()
    write_json(tmp_path, "2.json", [{"id": 2, "v": "b"}, {"id": 3, "v": "c"}])
    q.processAllAvailable()
    assert [r.id for r in spark.table("json_stream").orderBy("id").collect()] == [1, 2, 3]
    assert q.lastProgress["sources"][0]["description"].startswith("FileStreamSource[file:")
    assert json.loads(q.lastProgress["sources"][0]["endOffset"]) == {"logOffset": 1}


def test_max_files_per_trigger_and_latest_first(spark: SparkSession, tmp_path: Path) -> None:
    for i in range(4):
        write_json(tmp_path, f"{i}.json", [{"id": i}])
        time.sleep(0.02)
    df = spark.readStream.schema("id INT").option("maxFilesPerTrigger", 2).json(str(tmp_path))
    q, seen = collect_batches(df, availableNow=True)
    q.awaitTermination(30)
    assert [sorted(r["id"] for r in rows) for _, rows in seen] == [[0, 1], [2, 3]]
    latest = spark.readStream.schema("id INT").options(maxFilesPerTrigger=1, latestFirst=True).json(str(tmp_path))
    q2, seen2 = collect_batches(latest, availableNow=True)
    q2.awaitTermination(30)
    assert [rows[0]["id"] for _, rows in seen2] == [3, 2, 1, 0]


@pytest.mark.parametrize("limit", ["maxFilesPerTrigger", "maxBytesPerTrigger"])
def test_trigger_once_takes_every_file_whatever_the_read_limit(spark: SparkSession, tmp_path: Path, limit: str) -> None:
    for i in range(3):
        write_json(tmp_path, f"{i}.json", [{"id": i}])
    df = spark.readStream.schema("id INT").option(limit, 1).json(str(tmp_path))
    q, seen = collect_batches(df, once=True)
    q.awaitTermination(30)
    assert [sorted(r["id"] for r in rows) for _, rows in seen] == [[0, 1, 2]]


@pytest.mark.sparklet_only(
    reason="Spark reads a file listed mid-write as it then is (often empty) and never again; sparklet leaves a just-created empty file for a later trigger (docs/differences.md)"
)
def test_a_file_listed_while_its_producer_writes_it_is_read_whole(spark: SparkSession, tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.touch()  # created, not yet written: what a listing can see of open() then write()
    q = spark.readStream.schema("v INT").json(str(tmp_path)).writeStream.format("memory").queryName("mid_write").start()
    q.processAllAvailable()
    target.write_text('{"v": 1}\n')
    q.processAllAvailable()
    assert [r.v for r in spark.table("mid_write").collect()] == [1]


def test_a_text_stream_s_column_is_named_by_its_schema(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\ny\n")
    df = spark.readStream.format("text").schema("data STRING").load(str(tmp_path))
    assert df.columns == ["data"]
    assert spark.readStream.text(str(tmp_path)).columns == ["value"]
    q = df.writeStream.format("memory").queryName("named_text").start()
    q.processAllAvailable()
    q.stop()
    assert sorted(r.data for r in spark.table("named_text").collect()) == ["x", "y"]


def test_max_bytes_glob_filter_and_recursive_lookup(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_json(tmp_path, "a.json", [{"id": 1}])
    write_json(tmp_path, "b.txt", [{"id": 2}])
    write_json(tmp_path / "sub", "c.json", [{"id": 3}])
    flat = spark.readStream.schema("id INT").option("pathGlobFilter", "*.json").json(str(tmp_path))
    q, seen = collect_batches(flat, availableNow=True)
    q.awaitTermination(30)
    assert sorted(r["id"] for _, rows in seen for r in rows) == [1]
    deep = spark.readStream.schema("id INT").options(
        recursiveFileLookup=True, pathGlobFilter="*.json", maxBytesPerTrigger=1
    )
    q2, seen2 = collect_batches(deep.json(str(tmp_path)), availableNow=True)
    q2.awaitTermination(30)
    assert len(seen2) == 2 and sorted(r["id"] for _, rows in seen2 for r in rows) == [1, 3]


def test_csv_text_parquet_streams(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "a.csv").write_text("id,name\n1,ann\nx,bob\n")
    csv = (
        spark.readStream.schema("id INT, name STRING, _corrupt_record STRING")
        .option("header", True)
        .csv(str(tmp_path / "csv"))
    )
    q, seen = collect_batches(csv, once=True)
    q.awaitTermination(30)
    assert seen[0][1] == [
        {"id": 1, "name": "ann", "_corrupt_record": None},
        {"id": None, "name": "bob", "_corrupt_record": "x,bob"},
    ]
    (tmp_path / "txt").mkdir()
    (tmp_path / "txt" / "a.txt").write_text("hello\nworld\n")
    q2, seen2 = collect_batches(spark.readStream.text(str(tmp_path / "txt")), once=True)
    q2.awaitTermination(30)
    assert seen2[0][1] == [{"value": "hello"}, {"value": "world"}]
    (tmp_path / "pq").mkdir()
    pq.write_table(pa.table({"id": pa.array([5, 6], pa.int32()), "extra": ["a", "b"]}), tmp_path / "pq" / "p.parquet")
    q3, seen3 = collect_batches(spark.readStream.schema("id INT").parquet(str(tmp_path / "pq")), once=True)
    q3.awaitTermination(30)
    assert seen3[0][1] == [{"id": 5}, {"id": 6}]


def test_file_stream_needs_a_schema_and_an_existing_path(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(IllegalArgumentException, match="Schema must be specified"):
        spark.readStream.json(str(tmp_path))
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND"):
        spark.readStream.schema("a INT").json(str(tmp_path / "missing"))
    # sparklet refuses it when the reader is made, Spark when the query starts (docs/differences.md)
    with pytest.raises(
        (IllegalArgumentException, StreamingQueryException),
        match="Invalid value 'lots' for option 'maxFilesPerTrigger', must be a positive integer",
    ):
        df = spark.readStream.schema("a INT").option("maxFilesPerTrigger", "lots").json(str(tmp_path))
        df.writeStream.format("noop").start().processAllAvailable()


def test_rate_micro_batch_is_deterministic(spark: SparkSession) -> None:
    df = (
        spark.readStream.format("rate-micro-batch")
        .options(rowsPerBatch=3, startTimestamp=1000, advanceMillisPerBatch=500)
        .load()
    )
    assert df.columns == ["timestamp", "value"]
    q, seen = collect_batches(df)
    deadline = time.time() + 20
    while len(seen) < 2 and time.time() < deadline:
        time.sleep(0.01)
    q.stop()
    # a batch's rows come from several partitions: their order is not fixed
    assert sorted(r["value"] for r in seen[0][1]) == [0, 1, 2]
    assert sorted(r["value"] for r in seen[1][1]) == [3, 4, 5]
    ts = seen[1][1][0]["timestamp"]
    assert ts.timestamp() == 1.5
    with pytest.raises(IllegalArgumentException, match="rowsPerBatch"):
        spark.readStream.format("rate-micro-batch").load()


def test_rate_source_generates_rows_per_second(spark: SparkSession) -> None:
    df = spark.readStream.format("rate").option("rowsPerSecond", 50).load()
    q = df.writeStream.format("memory").queryName("rate_rows").start()
    deadline = time.time() + 20
    while spark.table("rate_rows").count() < 50 and time.time() < deadline:
        time.sleep(0.05)
    q.stop()
    values = sorted(r.value for r in spark.table("rate_rows").collect())
    assert values[:50] == list(range(50))
    with pytest.raises(IllegalArgumentException, match="rowsPerSecond"):
        spark.readStream.format("rate").option("rowsPerSecond", 0).load()


def test_process_all_available_on_a_new_rate_stream_waits_for_batch_0(spark: SparkSession) -> None:
    # a new rate stream's offset is 0 at once, so batch 0 runs (with whatever
    # rows are due) before processAllAvailable can return, as in Spark
    df = spark.readStream.format("rate").option("rowsPerSecond", 10).load()
    q = df.writeStream.format("memory").queryName("rate_first").start()
    try:
        q.processAllAvailable()
        assert [p["batchId"] for p in q.recentProgress][:1] == [0]
        assert q.recentProgress[0]["sources"][0]["startOffset"] == "null"  # from no offset
    finally:
        q.stop()


def test_memory_stream_accepts_rows_pandas_and_arrow(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    q = ms.toDF().withColumn("len", F.length("word")).writeStream.format("memory").queryName("ms_out").start()
    assert ms.addData([(1, "a")]) == 0
    assert ms.addData(pd.DataFrame({"id": [2], "word": ["bb"]})) == 1
    assert ms.addData(pa.table({"id": pa.array([3], pa.int32()), "word": ["ccc"]})) == 2
    ms.addData(Row(id=4, word="dddd"))
    q.processAllAvailable()
    assert spark.table("ms_out").orderBy("id").collect() == [
        Row(id=1, word="a", len=1),
        Row(id=2, word="bb", len=2),
        Row(id=3, word="ccc", len=3),
        Row(id=4, word="dddd", len=4),
    ]


def test_partition_folders_become_columns_of_a_file_stream(spark: SparkSession, tmp_path: Path) -> None:
    source = tmp_path / "in"
    for p, ids in (("a", [1, 2]), ("b", [3])):
        (source / f"p={p}").mkdir(parents=True)
        (source / f"p={p}" / "x.json").write_text("".join(json.dumps({"id": i}) + "\n" for i in ids))
    stream = spark.readStream.schema("id LONG").json(str(source))
    assert stream.columns == ["id", "p"]
    q = (
        stream.writeStream.format("memory")
        .queryName("partitioned_stream")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    rows = sorted(tuple(r) for r in spark.table("partitioned_stream").collect())
    assert rows == [(1, "a"), (2, "a"), (3, "b")]
