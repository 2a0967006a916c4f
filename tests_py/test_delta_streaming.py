"""Streams into and out of Delta tables on disk, checked with the
``deltalake`` package (delta-rs) as the second reader and writer: the sink's
one commit per batch with the query's transaction (a replayed batch is not
written twice), complete mode, ``toTable``; the source's snapshot then
commits, read limits, starting points, restarts from the offsets, answers
to deletes and updates, the change data feed and a schema change."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from sparklet.errors import AnalysisException, StreamingQueryException
from sparklet.sql import SparkSession

pytestmark = pytest.mark.sparklet_only(reason="PySpark needs the delta-spark jars for format('delta')")


def put(folder: Path, name: str, rows: list[dict]) -> None:
    """Write one JSON-lines file (written aside, then moved in whole)."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(folder / name)


def run_available_now(df, ckpt: Path, path: Path | None = None, **kw) -> None:  # noqa: ANN001
    writer = df.writeStream.format("delta").option("checkpointLocation", str(ckpt)).trigger(availableNow=True)
    for k, v in kw.items():
        writer = writer.option(k, v) if k != "outputMode" else writer.outputMode(v)
    q = writer.start(str(path)) if path is not None else writer.start()
    q.awaitTermination()


def txns(path: Path) -> list[tuple[str, int]]:
    """The (appId, version) of each commit's `txn` action, in version order."""
    out = []
    for log in sorted((path / "_delta_log").glob("*.json")):
        for line in log.read_text().splitlines():
            action = json.loads(line)
            if "txn" in action:
                out.append((action["txn"]["appId"], action["txn"]["version"]))
    return out


def collect(spark: SparkSession, df, ckpt: Path) -> list[list[dict]]:  # noqa: ANN001
    """Each batch's rows (sorted by ``k``) of an ``availableNow`` run."""
    batches: list[list[dict]] = []
    q = (
        df.writeStream.foreachBatch(lambda t, _: batches.append(sorted(t.to_pylist(), key=lambda r: r["k"])))
        .option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    return batches


@pytest.fixture
def table_name(spark: SparkSession) -> Iterator[str]:
    name = f"d_{uuid.uuid4().hex[:8]}"
    yield name
    spark.sql(f"DROP TABLE IF EXISTS {name}")


# ---- the sink ----------------------------------------------------------------------------


def test_each_batch_is_one_commit_carrying_the_query_and_batch(spark: SparkSession, tmp_path: Path) -> None:
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    put(src, "0.json", [{"k": 1, "v": "a"}, {"k": 2, "v": "b"}])
    stream = spark.readStream.schema("k LONG, v STRING").json(str(src))
    run_available_now(stream, ckpt, out)
    put(src, "1.json", [{"k": 3, "v": "c"}])
    run_available_now(stream, ckpt, out)
    table = DeltaTable(str(out))
    assert table.version() == 1
    assert sorted(table.to_pyarrow_table().column("k").to_pylist()) == [1, 2, 3]
    query_id = json.loads((ckpt / "metadata").read_text())["id"]
    assert txns(out) == [(query_id, 0), (query_id, 1)]
    # and sparklet reads it back
    assert sorted(r.k for r in spark.read.format("delta").load(str(out)).collect()) == [1, 2, 3]


def test_a_batch_replayed_after_a_crash_is_not_written_twice(spark: SparkSession, tmp_path: Path) -> None:
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    put(src, "0.json", [{"k": 1}])
    stream = spark.readStream.schema("k LONG").json(str(src))
    run_available_now(stream, ckpt, out)
    put(src, "1.json", [{"k": 2}])
    run_available_now(stream, ckpt, out)
    # a crash after the Delta commit, before the checkpoint's: batch 1 runs again
    (ckpt / "commits" / "1").unlink()
    run_available_now(stream, ckpt, out)
    assert sorted(DeltaTable(str(out)).to_pyarrow_table().column("k").to_pylist()) == [1, 2]
    assert DeltaTable(str(out)).version() == 1
    assert (ckpt / "commits" / "1").exists()


def test_a_large_batch_is_one_streaming_update_commit_of_several_files(spark: SparkSession, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    src.mkdir()
    rows = 200_000
    for i in range(2):
        ids = pa.array(range(i * rows, (i + 1) * rows), pa.int64())
        pq.write_table(pa.table({"k": ids, "v": pa.compute.cast(ids, pa.string())}), src / f"{i}.parquet")
    stream = spark.readStream.schema("k LONG, v STRING").option("maxFilesPerTrigger", 1).parquet(str(src))
    run_available_now(stream, ckpt, out)
    table = DeltaTable(str(out))
    assert table.version() == 1
    got = table.to_pyarrow_table()
    assert got.num_rows == 2 * rows
    assert pa.compute.sum(got.column("k")).as_py() == sum(range(2 * rows))
    # delta-spark's record of a streaming batch: its query, epoch and metrics
    query_id = json.loads((ckpt / "metadata").read_text())["id"]
    latest = table.history(1)[0]
    assert latest["operation"] == "STREAMING UPDATE"
    assert latest["operationParameters"] == {"outputMode": "Append", "queryId": query_id, "epochId": "1"}
    adds = [
        json.loads(line)["add"]
        for line in (out / "_delta_log" / f"{1:020}.json").read_text().splitlines()
        if '"add"' in line
    ]
    metrics = latest["operationMetrics"]
    assert metrics["numOutputRows"] == str(rows) and metrics["numAddedFiles"] == str(len(adds))
    assert metrics["numOutputBytes"] == str(sum(a["size"] for a in adds))
    # each file's stats count its rows and bound its keys
    stats = [json.loads(a["stats"]) for a in adds]
    assert sum(s["numRecords"] for s in stats) == rows
    assert min(s["minValues"]["k"] for s in stats) == rows and max(s["maxValues"]["k"] for s in stats) == 2 * rows - 1
    assert spark.read.format("delta").load(str(out)).where("k >= 200000").count() == rows


def test_complete_mode_replaces_the_table_each_batch(spark: SparkSession, tmp_path: Path) -> None:
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    put(src, "0.json", [{"k": 1, "v": "a"}, {"k": 2, "v": "a"}])
    stream = spark.readStream.schema("k LONG, v STRING").json(str(src))
    counts = stream.groupBy("v").count()
    run_available_now(counts, ckpt, out, outputMode="complete")
    put(src, "1.json", [{"k": 3, "v": "a"}, {"k": 4, "v": "b"}])
    run_available_now(counts, ckpt, out, outputMode="complete")
    got = sorted(tuple(r) for r in spark.read.format("delta").load(str(out)).collect())
    assert got == [("a", 3), ("b", 1)]
    assert [h["operationParameters"]["mode"] for h in DeltaTable(str(out)).history()][:1] == ["Overwrite"]


def test_update_mode_and_a_missing_checkpoint_are_refused(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    stream = spark.readStream.schema("k LONG").json(str(tmp_path / "in"))
    with pytest.raises(AnalysisException, match="does not support Update output mode"):
        stream.groupBy("k").count().writeStream.format("delta").outputMode("update").option(
            "checkpointLocation", str(tmp_path / "c")
        ).start(str(tmp_path / "out"))
    with pytest.raises(AnalysisException, match="checkpointLocation must be specified"):
        stream.writeStream.format("delta").start(str(tmp_path / "out"))


def test_partitioned_stream_and_schema_mismatch(spark: SparkSession, tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    put(src, "0.json", [{"k": 1, "p": "x"}, {"k": 2, "p": "y"}])
    stream = spark.readStream.schema("k LONG, p STRING").json(str(src))
    q = (
        stream.writeStream.format("delta")
        .partitionBy("p")
        .option("checkpointLocation", str(tmp_path / "c"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    q.awaitTermination()
    assert DeltaTable(str(out)).metadata().partition_columns == ["p"]
    assert {d.name for d in out.iterdir() if d.is_dir() and not d.name.startswith("_")} == {"p=x", "p=y"}
    # another stream with another column: Delta's schema check, unless mergeSchema
    other = spark.readStream.schema("k LONG, p STRING, extra STRING").json(str(src))
    q = (
        other.writeStream.format("delta")
        .partitionBy("p")
        .option("checkpointLocation", str(tmp_path / "c2"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    with pytest.raises(StreamingQueryException, match=r"(?s)DELTA_METADATA_MISMATCH.*mergeSchema"):
        q.awaitTermination()
    q = (
        other.writeStream.format("delta")
        .partitionBy("p")
        .option("mergeSchema", "true")
        .option("checkpointLocation", str(tmp_path / "c3"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    q.awaitTermination()
    assert "extra" in DeltaTable(str(out)).schema().to_arrow().names


def test_to_table_makes_a_delta_table_that_sql_and_streams_read(
    spark: SparkSession, tmp_path: Path, table_name: str
) -> None:
    src = tmp_path / "in"
    put(src, "0.json", [{"k": 1}, {"k": 2}])
    stream = spark.readStream.schema("k LONG").json(str(src))
    q = (
        stream.writeStream.format("delta")
        .option("checkpointLocation", str(tmp_path / "c"))
        .trigger(availableNow=True)
        .toTable(table_name)
    )
    q.awaitTermination()
    assert sorted(r.k for r in spark.table(table_name).collect()) == [1, 2]
    detail = spark.sql(f"DESCRIBE EXTENDED {table_name}").collect()
    assert ("Provider", "delta") in [(r.col_name, r.data_type) for r in detail]
    # a second query streams out of the table: the two chained through Delta
    chained = collect(spark, spark.readStream.table(table_name), tmp_path / "c2")
    assert chained == [[{"k": 1}, {"k": 2}]]


# ---- the source --------------------------------------------------------------------------


def test_snapshot_then_new_commits_with_max_files_and_restart(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    for k in (1, 2, 3):
        write_deltalake(t, pa.table({"k": pa.array([k], pa.int64())}), mode="append")
    stream = spark.readStream.format("delta").option("maxFilesPerTrigger", 2).load(t)
    assert stream.schema.simpleString() == "struct<k:bigint>"
    assert collect(spark, stream, tmp_path / "c") == [[{"k": 1}, {"k": 2}], [{"k": 3}]]
    write_deltalake(t, pa.table({"k": pa.array([4, 5], pa.int64())}), mode="append")
    # the restart resumes after version 2: only the new commit
    assert collect(spark, stream, tmp_path / "c") == [[{"k": 4}, {"k": 5}]]
    offset = json.loads((tmp_path / "c" / "offsets" / "2").read_text().splitlines()[-1])
    assert offset == {
        "sourceVersion": 1,
        "reservoirId": DeltaTable(t).metadata().id,
        "reservoirVersion": 4,
        "index": -1,
        "isStartingVersion": False,
    }


def test_max_bytes_per_trigger_and_trigger_once(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    for k in (1, 2, 3):
        write_deltalake(t, pa.table({"k": pa.array([k], pa.int64())}), mode="append")
    small = spark.readStream.format("delta").option("maxBytesPerTrigger", "1b").load(t)
    assert [len(b) for b in collect(spark, small, tmp_path / "c")] == [1, 1, 1]
    got: list[int] = []
    q = (
        spark.readStream.format("delta")
        .option("maxFilesPerTrigger", 1)
        .load(t)
        .writeStream.foreachBatch(lambda b, _: got.append(b.num_rows))
        .trigger(once=True)
        .start()
    )
    q.awaitTermination()
    assert got == [3]  # Trigger.Once takes everything, whatever the limits


def test_starting_version_timestamp_and_latest(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    write_deltalake(t, pa.table({"k": pa.array([1], pa.int64())}))
    time.sleep(0.05)
    between = time.time()
    time.sleep(0.05)
    write_deltalake(t, pa.table({"k": pa.array([2], pa.int64())}), mode="append")
    from_v1 = spark.readStream.format("delta").option("startingVersion", 1).load(t)
    assert collect(spark, from_v1, tmp_path / "a") == [[{"k": 2}]]
    import datetime as dt

    ts = dt.datetime.fromtimestamp(between, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    from_ts = spark.readStream.format("delta").option("startingTimestamp", ts).load(t)
    assert collect(spark, from_ts, tmp_path / "b") == [[{"k": 2}]]
    # "latest": only what is committed after the query started
    seen: list[int] = []
    q = (
        spark.readStream.format("delta")
        .option("startingVersion", "latest")
        .load(t)
        .writeStream.foreachBatch(lambda b, _: seen.extend(b.column("k").to_pylist()))
        .trigger(processingTime="50 milliseconds")
        .start()
    )
    try:
        q.processAllAvailable()
        write_deltalake(t, pa.table({"k": pa.array([3], pa.int64())}), mode="append")
        deadline = time.time() + 30
        while not seen and time.time() < deadline:
            time.sleep(0.05)
    finally:
        q.stop()
    assert seen == [3]
    with pytest.raises(AnalysisException, match="DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET"):
        spark.readStream.format("delta").option("startingVersion", 0).option("startingTimestamp", ts).load(t)


def test_deletes_and_updates_fail_the_stream_unless_told(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    write_deltalake(t, pa.table({"k": pa.array([1], pa.int64())}))
    write_deltalake(t, pa.table({"k": pa.array([2, 3], pa.int64())}), mode="append")
    stream = spark.readStream.format("delta").load(t)
    collect(spark, stream, tmp_path / "c")
    DeltaTable(t).delete("k = 1")  # removes a whole file: a delete-only commit
    write_deltalake(t, pa.table({"k": pa.array([4], pa.int64())}), mode="append")
    with pytest.raises(StreamingQueryException, match=r"DELTA_SOURCE_IGNORE_DELETE.*version 2"):
        collect(spark, stream, tmp_path / "c")
    ignoring = spark.readStream.format("delta").option("ignoreDeletes", "true").load(t)
    assert collect(spark, ignoring, tmp_path / "c") == [[{"k": 4}]]
    DeltaTable(t).update(predicate="k = 2", updates={"k": "20"})  # rewrites a file: a change
    write_deltalake(t, pa.table({"k": pa.array([5], pa.int64())}), mode="append")
    with pytest.raises(StreamingQueryException, match="DELTA_SOURCE_TABLE_IGNORE_CHANGES"):
        collect(spark, ignoring, tmp_path / "c")
    skipping = spark.readStream.format("delta").option("skipChangeCommits", "true").load(t)
    assert collect(spark, skipping, tmp_path / "c") == [[{"k": 5}]]


def test_change_data_feed(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    write_deltalake(
        t,
        pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}),
        configuration={"delta.enableChangeDataFeed": "true"},
    )
    DeltaTable(t).update(predicate="k = 1", updates={"v": "'z'"})
    DeltaTable(t).delete("k = 2")
    feed = spark.readStream.format("delta").option("readChangeFeed", "true").option("startingVersion", 0).load(t)
    assert feed.columns == ["k", "v", "_change_type", "_commit_version", "_commit_timestamp"]
    rows = [r for batch in collect(spark, feed, tmp_path / "c") for r in batch]
    got = sorted((r["_commit_version"], r["k"], r["v"], r["_change_type"]) for r in rows)
    assert got == [
        (0, 1, "a", "insert"),
        (0, 2, "b", "insert"),
        (1, 1, "a", "update_preimage"),
        (1, 1, "z", "update_postimage"),
        (2, 2, "b", "delete"),
    ]
    plain = str(tmp_path / "plain")
    write_deltalake(plain, pa.table({"k": pa.array([1], pa.int64())}))
    with pytest.raises(AnalysisException, match="DELTA_MISSING_CHANGE_DATA"):
        spark.readStream.format("delta").option("readChangeFeed", "true").load(plain)


def test_schema_change_under_a_running_stream(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    write_deltalake(t, pa.table({"k": pa.array([1], pa.int64())}))
    stream = spark.readStream.format("delta").load(t)
    collect(spark, stream, tmp_path / "c")
    write_deltalake(t, pa.table({"k": pa.array([2], pa.int64()), "w": ["n"]}), mode="append", schema_mode="merge")
    with pytest.raises(StreamingQueryException, match=r"DELTA_SCHEMA_CHANGED_WITH_VERSION.*version 1"):
        collect(spark, stream, tmp_path / "c")
    # a restart reads the new schema
    assert collect(spark, spark.readStream.format("delta").load(t), tmp_path / "c") == [[{"k": 2, "w": "n"}]]


def test_bad_tables_and_lost_logs(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(AnalysisException, match=r"DELTA_MISSING_DELTA_TABLE.*nope"):
        spark.readStream.format("delta").load(str(tmp_path / "nope"))
    t = tmp_path / "t"
    for k in range(3):
        write_deltalake(str(t), pa.table({"k": pa.array([k], pa.int64())}), mode="append")
    DeltaTable(str(t)).create_checkpoint()
    (t / "_delta_log" / f"{0:020}.json").unlink()  # as log retention removes it
    old = spark.readStream.format("delta").option("startingVersion", 0).load(str(t))
    with pytest.raises(StreamingQueryException, match=r"DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE.*version 0"):
        collect(spark, old, tmp_path / "c")
    # a checkpoint of another table with the same path
    collect(spark, spark.readStream.format("delta").load(str(t)), tmp_path / "c2")
    shutil.rmtree(t)
    write_deltalake(str(t), pa.table({"k": pa.array([9], pa.int64())}))
    with pytest.raises(AnalysisException, match="DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE"):
        collect(spark, spark.readStream.format("delta").load(str(t)), tmp_path / "c2")


def test_change_data_feed_read_as_a_batch(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    write_deltalake(
        t, pa.table({"k": pa.array([1, 2], pa.int64())}), configuration={"delta.enableChangeDataFeed": "true"}
    )
    DeltaTable(t).update(predicate="k = 1", updates={"k": "10"})
    DeltaTable(t).delete("k = 2")

    def reader():  # noqa: ANN202 - a fresh reader (options accumulate on one)
        return spark.read.format("delta").option("readChangeFeed", "true")

    one = reader().option("startingVersion", 1).option("endingVersion", 1).load(t)
    assert sorted((r.k, r._change_type, r._commit_version) for r in one.collect()) == [
        (1, "update_preimage", 1),
        (10, "update_postimage", 1),
    ]
    assert reader().option("startingVersion", 0).load(t).count() == 5
    with pytest.raises(AnalysisException, match="DELTA_NO_START_FOR_CDC_READ"):
        spark.read.format("delta").option("readChangeFeed", "true").load(t).count()
