"""Reading a query's state: ``format("statestore")`` and ``format("state-metadata")``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from conftest import conf_set
from sparklet.errors import IllegalArgumentException, SparkRuntimeException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

# every test runs on both state store providers
pytestmark = pytest.mark.usefixtures("state_provider")

SCHEMA = "ts TIMESTAMP, k STRING, v INT"


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


def counted(spark: SparkSession, ckpt: Path) -> None:
    """Two batches of a sum and count per key, checkpointed in ``ckpt``."""
    ms = MemoryStream(spark, SCHEMA)
    q = (
        ms.toDF()
        .groupBy("k")
        .agg(F.sum("v").alias("s"), F.count("*").alias("n"))
        .writeStream.outputMode("complete")
        .format("noop")
        .option("checkpointLocation", str(ckpt))
        .start()
    )
    ms.addData([(t(0), "a", 1), (t(0), "b", 2)])
    q.processAllAvailable()
    ms.addData([(t(0), "a", 5)])
    q.processAllAvailable()
    q.stop()


def by_key(rows: list) -> dict:
    # the value holds the aggregates' buffers, named as Spark names them
    assert all(r["value"].asDict().keys() == {"sum", "count"} for r in rows)
    return {r["key"]["k"]: (r["value"][0], r["value"][1]) for r in rows}


def test_aggregation_state_by_key_at_the_last_and_an_older_batch(spark: SparkSession, tmp_path: Path) -> None:
    counted(spark, tmp_path / "c")
    state = spark.read.format("statestore").load(str(tmp_path / "c"))
    assert state.columns == ["key", "value", "partition_id"]
    rows = state.collect()
    assert by_key(rows) == {"a": (6, 2), "b": (2, 1)}
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    assert all(0 <= r["partition_id"] < partitions for r in rows)
    older = spark.read.format("statestore").option("batchId", 0).load(str(tmp_path / "c"))
    assert by_key(older.collect()) == {"a": (1, 1), "b": (2, 1)}
    # and from pandas, as in a notebook
    pdf = state.toPandas()
    assert sorted(pdf["key"].map(lambda k: k["k"])) == ["a", "b"]


def test_state_metadata_lists_each_operator_and_its_batches(spark: SparkSession, tmp_path: Path) -> None:
    counted(spark, tmp_path / "c")
    meta = spark.read.format("state-metadata").load(str(tmp_path / "c")).collect()
    assert [(m["operatorId"], m["operatorName"], m["stateStoreName"]) for m in meta] == [
        (0, "stateStoreSave", "default")
    ]
    assert meta[0]["numPartitions"] == int(spark.conf.get("spark.sql.shuffle.partitions"))
    assert (meta[0]["minBatchId"], meta[0]["maxBatchId"]) == (0, 1)


def test_dedup_state_keys_carry_their_event_time(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SCHEMA)
    q = (
        ms.toDF()
        .withWatermark("ts", "1 hour")
        .dropDuplicates(["k", "ts"])
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "c"))
        .start()
    )
    ms.addData([(t(1), "a", 1), (t(1), "a", 2), (t(2), "b", 3)])
    q.processAllAvailable()
    q.stop()
    keys = sorted(
        (r["key"]["ts"], r["key"]["k"]) for r in spark.read.format("statestore").load(str(tmp_path / "c")).collect()
    )
    assert keys == [(t(1), "a"), (t(2), "b")]


def test_a_join_side_reads_as_its_stored_rows(spark: SparkSession, tmp_path: Path) -> None:
    imp = MemoryStream(spark, "adId INT, impTime TIMESTAMP")
    clk = MemoryStream(spark, "clickAdId INT, clickTime TIMESTAMP")
    q = (
        imp.toDF()
        .join(clk.toDF(), F.col("adId") == F.col("clickAdId"))
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "c"))
        .start()
    )
    imp.addData([(1, t(1)), (2, t(2))])
    clk.addData([(1, t(3))])
    q.processAllAvailable()
    q.stop()
    left = spark.read.format("statestore").option("joinSide", "left").load(str(tmp_path / "c")).collect()
    # each stored row: its join key (Spark names its fields field0...), the row, its partition
    assert sorted((r["key"]["field0"], r["value"]["adId"], r["value"]["impTime"]) for r in left) == [
        (1, 1, t(1)),
        (2, 2, t(2)),
    ]
    right = spark.read.format("statestore").option("joinSide", "right").load(str(tmp_path / "c")).collect()
    assert [(r["value"]["clickAdId"], r["value"]["clickTime"]) for r in right] == [(1, t(3))]
    with pytest.raises(SparkRuntimeException) as err:
        spark.read.format("statestore").load(str(tmp_path / "c")).collect()
    assert err.value.getCondition() == "STDS_FAILED_TO_READ_STATE_SCHEMA"


def test_reading_state_where_there_is_none_is_a_clear_error(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(SparkRuntimeException) as err:
        spark.read.format("statestore").load(str(tmp_path))
    assert err.value.getCondition() == "STDS_COMMITTED_BATCH_UNAVAILABLE"
    counted(spark, tmp_path / "c")
    with pytest.raises(IllegalArgumentException, match='For input string: "last"'):
        spark.read.format("statestore").option("batchId", "last").load(str(tmp_path / "c"))


def changed_windows(spark: SparkSession, ckpt: Path) -> None:
    """A count per 10 s window whose first window is counted twice, then evicted."""
    ms = MemoryStream(spark, SCHEMA)
    q = (
        ms.toDF()
        .withWatermark("ts", "5 seconds")
        .groupBy(F.window("ts", "10 seconds"))
        .count()
        .writeStream.outputMode("append")
        .format("noop")
        .option("checkpointLocation", str(ckpt))
        .start()
    )
    for rows in ([(t(1), "a", 1), (t(2), "b", 1)], [(t(3), "a", 1)], [(t(30), "c", 1)]):
        ms.addData(rows)
        q.processAllAvailable()
    q.stop()


def test_change_feed_lists_each_batchs_updates_and_deletes(spark: SparkSession, tmp_path: Path) -> None:
    # Spark's RocksDB provider keeps a change feed only with changelog checkpointing
    with conf_set(spark, "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true"):
        changed_windows(spark, tmp_path / "c")
    feed = spark.read.format("statestore").option("readChangeFeed", "true").option("changeStartBatchId", 0)
    df = feed.load(str(tmp_path / "c"))
    assert df.columns == ["batch_id", "change_type", "key", "value", "partition_id"]
    changes = sorted(
        (r["batch_id"], r["change_type"], r["key"]["window"]["start"].second, r["value"] and r["value"]["count"])
        for r in df.collect()
    )
    # the first window counted twice, then evicted once the watermark (25 s) passed it
    first = [c[1:] for c in changes if c[2] == 0]
    assert first == [("update", 0, 2), ("update", 0, 3), ("delete", 0, None)]
    assert [c[0] for c in changes if c[2] == 0] == sorted(c[0] for c in changes if c[2] == 0)
    # one batch only: the one that counted the first window's third row
    second = [c[0] for c in changes if c[2] == 0][1]
    one = feed.option("changeStartBatchId", second).option("changeEndBatchId", second).load(str(tmp_path / "c"))
    assert [(r["batch_id"], r["change_type"], r["value"]["count"]) for r in one.collect()] == [(second, "update", 3)]
    with pytest.raises(SparkRuntimeException, match="STDS_REQUIRED_OPTION_UNSPECIFIED"):
        spark.read.format("statestore").option("readChangeFeed", "true").load(str(tmp_path / "c")).collect()
    [meta] = spark.read.format("state-metadata").load(str(tmp_path / "c")).collect()
    assert meta["operatorProperties"] is None  # only processors have them
    meta_schema = spark.read.format("state-metadata").load(str(tmp_path / "c")).schema
    assert meta_schema["operatorId"].dataType.simpleString() == "bigint"
