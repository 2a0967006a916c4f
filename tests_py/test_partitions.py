"""Spark's partitions of a batch DataFrame, as ``spark_partition_id()``
and ``df.rdd`` report them: hash, range, by-id and coalesced partitioning
(the same on both engines: pytest --engine=pyspark)."""

from __future__ import annotations

import pytest

from sparklet.sql import SparkSession
from sparklet.sql import functions as F


@pytest.fixture
def keyed(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame([(k, f"n{k}") for k in range(12)], "k INT, s STRING")


def ids(df) -> list[tuple]:  # noqa: ANN001
    return [tuple(r) for r in df.select("k", F.spark_partition_id().alias("p")).orderBy("k").collect()]


def test_hash_partitions_are_sparks(keyed) -> None:  # noqa: ANN001
    # Spark's HashPartitioning: murmur3 of the key (seed 42), pmod n
    assert [p for _, p in ids(keyed.repartition(4, "k"))] == [3, 3, 2, 3, 2, 2, 1, 3, 3, 1, 2, 3]
    assert [p for _, p in ids(keyed.repartition(3, "s", "k"))] == [1, 1, 1, 0, 1, 1, 1, 2, 1, 2, 0, 0]
    assert keyed.repartition(4, "k").rdd.getNumPartitions() == 4


def test_range_and_by_id_partitions(spark: SparkSession, keyed) -> None:  # noqa: ANN001
    assert [p for _, p in ids(keyed.repartitionByRange(3, F.col("k").desc()))] == [2] * 4 + [1] * 4 + [0] * 4
    dupes = spark.createDataFrame([(1,), (1,), (1,), (2,), (3,)], "a INT").repartitionByRange(2, "a")
    # equal keys share a partition
    assert [tuple(r) for r in dupes.select("a", F.spark_partition_id()).collect()] == [
        (1, 0),
        (1, 0),
        (1, 0),
        (2, 1),
        (3, 1),
    ]
    # the id column modulo n (non-negative)
    assert [p for _, p in ids(keyed.repartitionById(3, F.col("k") - 5))] == [1, 2, 0] * 4


def test_coalesce_and_ranges_of_range(spark: SparkSession) -> None:
    df = spark.range(0, 10, 1, 3)
    assert df.coalesce(5).rdd.getNumPartitions() == 3
    assert [r.p for r in df.coalesce(1).select(F.spark_partition_id().alias("p")).distinct().collect()] == [0]
    assert [r.id for r in df.where(F.spark_partition_id() == 1).collect()] == [3, 4, 5]
    assert df.select(F.spark_partition_id()).columns == ["SPARK_PARTITION_ID()"]
    assert [r.p for r in df.withColumn("p", F.spark_partition_id() + 1).collect()] == [1] * 3 + [2] * 3 + [3] * 4
    rows = spark.sql("SELECT spark_partition_id() AS p, id FROM range(0, 4, 1, 2)").collect()
    assert [tuple(r) for r in rows] == [(0, 0), (0, 1), (1, 2), (1, 3)]


def test_even_repartition_fills_every_partition(keyed) -> None:  # noqa: ANN001
    counts = keyed.repartition(4).groupBy(F.spark_partition_id().alias("p")).count()
    assert sorted(r.p for r in counts.collect()) == [0, 1, 2, 3]


def test_writer_writes_a_file_per_partition(keyed, tmp_path) -> None:  # noqa: ANN001
    keyed.repartition(3, "k").write.parquet(str(tmp_path / "three"))
    keyed.coalesce(1).write.parquet(str(tmp_path / "one"))
    assert len(list((tmp_path / "three").glob("part-*"))) == 3
    assert len(list((tmp_path / "one").glob("part-*"))) == 1


def test_actions_read_partitions_in_order(spark: SparkSession) -> None:
    ranged = spark.createDataFrame([(14, "Tom"), (23, "Alice"), (16, "Bob")], ["age", "name"])
    ranged = ranged.repartitionByRange(2, "age")
    both = spark.range(0, 3, 1, 1).union(spark.range(10, 13, 1, 1))
    for _ in range(5):
        # a limit (show, head) takes the partitions in order, as Spark's
        assert [r.age for r in ranged.limit(3).collect()] == [14, 16, 23]
        assert [r.id for r in both.limit(6).collect()] == [0, 1, 2, 10, 11, 12]
        assert [r.id for r in both.collect()] == [0, 1, 2, 10, 11, 12]
