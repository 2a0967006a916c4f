"""The local RDD and SparkContext a DStream job or a ``df.rdd`` idiom uses:
slicing, keyed operations, joins, actions and their errors, the same on
both engines (pytest --engine=pyspark)."""

from __future__ import annotations

import pytest

from sparklet.sql import Row, SparkSession


def test_parallelize_slices_as_spark(spark: SparkSession) -> None:
    sc = spark.sparkContext
    rdd = sc.parallelize(range(10), 3)
    assert rdd.getNumPartitions() == 3
    assert rdd.glom().collect() == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    assert sc.parallelize(range(10), 3).coalesce(2).glom().collect() == [[0, 1, 2], [3, 4, 5, 6, 7, 8, 9]]
    assert sc.parallelize([1, 2], 2).union(sc.parallelize([3], 1)).getNumPartitions() == 3
    assert sc.range(1, 7, 2, 1).collect() == [1, 3, 5]


def test_word_count_and_keyed_operations(spark: SparkSession) -> None:
    sc = spark.sparkContext
    lines = sc.parallelize(["a b", "b c", "a"], 2)
    counts = lines.flatMap(str.split).map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b)
    assert sorted(counts.collect()) == [("a", 2), ("b", 2), ("c", 1)]
    pairs = sc.parallelize([(i % 3, i) for i in range(7)], 2)
    # integer keys hash as Spark's portable_hash: key % partitions
    assert pairs.reduceByKey(lambda a, b: a + b).glom().collect() == [[(0, 9), (2, 7)], [(1, 5)]]
    assert sorted(pairs.groupByKey().mapValues(sorted).collect()) == [(0, [0, 3, 6]), (1, [1, 4]), (2, [2, 5])]
    assert sorted(pairs.aggregateByKey(0, lambda a, v: a + 1, lambda a, b: a + b).collect()) == [
        (0, 3),
        (1, 2),
        (2, 2),
    ]
    assert dict(pairs.countByKey()) == {0: 3, 1: 2, 2: 2}
    assert sorted(sc.parallelize([1, 1, 2, 3, 3], 2).distinct().collect()) == [1, 2, 3]
    assert sc.parallelize([3, 1, 2], 2).sortBy(lambda x: -x).collect() == [3, 2, 1]
    assert sc.parallelize([("b", 1), ("a", 2)], 1).sortByKey().keys().collect() == ["a", "b"]


def test_joins(spark: SparkSession) -> None:
    sc = spark.sparkContext
    left = sc.parallelize([(1, "a"), (2, "b")], 2)
    right = sc.parallelize([(1, "x"), (1, "y"), (3, "z")], 2)
    assert sorted(left.join(right).collect()) == [(1, ("a", "x")), (1, ("a", "y"))]
    assert left.leftOuterJoin(sc.parallelize([(1, "x")], 2)).collect() == [(1, ("a", "x")), (2, ("b", None))]
    assert sorted(left.fullOuterJoin(right).collect(), key=str) == sorted(
        [(1, ("a", "x")), (1, ("a", "y")), (2, ("b", None)), (3, (None, "z"))], key=str
    )


def test_actions_and_their_errors(spark: SparkSession) -> None:
    sc = spark.sparkContext
    nums = sc.parallelize([5, 1, 4], 2)
    assert (nums.count(), nums.first(), nums.take(2), nums.reduce(lambda a, b: a + b)) == (3, 5, [5, 1], 10)
    assert (nums.max(), nums.min(), nums.sum(), nums.top(2), nums.takeOrdered(2)) == (5, 1, 10, [5, 4], [1, 4])
    assert nums.zipWithIndex().collect() == [(5, 0), (1, 1), (4, 2)]
    assert not nums.isEmpty() and sc.parallelize([], 1).isEmpty()
    with pytest.raises(ValueError, match="RDD is empty"):
        sc.parallelize([], 1).first()
    with pytest.raises(ValueError, match="empty RDD"):
        sc.parallelize([], 2).reduce(lambda a, b: a + b)


def test_text_file_and_save(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("x y\nz\n")
    lines = spark.sparkContext.textFile(str(tmp_path / "in"))
    assert lines.collect() == ["x y", "z"]
    out = tmp_path / "out"
    lines.map(str.upper).saveAsTextFile(str(out))
    assert (out / "_SUCCESS").exists()
    assert sorted(p.name for p in out.glob("part-*"))[0] == "part-00000"
    assert spark.sparkContext.textFile(str(out)).collect() == ["X Y", "Z"]


def test_dataframe_rdd_and_back(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, None), (2, "b")], "a INT, b STRING")
    assert df.rdd.map(lambda r: r.a * 10).collect() == [10, 20]
    assert df.repartition(4).rdd.getNumPartitions() == 4
    assert spark.range(0, 10, 1, 3).rdd.glom().map(len).collect() == [3, 3, 4]
    assert not df.rdd.isEmpty() and df.filter("a > 5").rdd.isEmpty()
    with pytest.warns(UserWarning, match="toJSON will be changed"):
        assert df.toJSON().collect() == ['{"a":1}', '{"a":2,"b":"b"}']
    back = spark.sparkContext.parallelize([Row(k=1, v="x")], 1).toDF()
    assert back.collect() == [Row(k=1, v="x")]
    assert spark.sparkContext.parallelize([(1, "x")], 1).toDF(["k", "v"]).columns == ["k", "v"]


@pytest.mark.sparklet_only(reason="PySpark has these methods; sparklet's local RDD names the ones it leaves out")
def test_absent_methods_say_so(spark: SparkSession) -> None:
    from sparklet.errors import PySparkNotImplementedError

    rdd = spark.sparkContext.parallelize([1], 1)
    with pytest.raises(PySparkNotImplementedError, match=r"RDD\.pipe is not supported"):
        rdd.pipe("cat")
    assert not hasattr(rdd, "no_such_method")
