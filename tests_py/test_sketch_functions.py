"""Sketch functions (HyperLogLog, theta, tuple, KLL): sketches built by
aggregates and read by functions, with Spark's values and column names on
both engines (pytest --engine=pyspark), and aggregates that stream."""

from __future__ import annotations

import pytest

from sparklet.sql import SparkSession
from sparklet.sql import functions as F


@pytest.fixture(scope="module")
def events(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame(
        [(1, "a", 10.0), (2, "b", 20.0), (2, "b", 30.0), (3, "", 5.0), (None, None, None)],
        "id INT, name STRING, v DOUBLE",
    )


def test_hll_counts_distinct_values_and_unions(events) -> None:  # noqa: ANN001
    """Null and empty strings are not values (as Spark's update skips them);
    the default lgConfigK shows in the name."""
    df = events.agg(F.hll_sketch_agg("id").alias("ids"), F.hll_sketch_agg("name", 10).alias("names"))
    out = df.select(
        F.hll_sketch_estimate("ids"),
        F.hll_sketch_estimate("names"),
        F.hll_sketch_estimate(F.hll_union("ids", "ids")),
    )
    assert out.columns == [
        "hll_sketch_estimate(ids)",
        "hll_sketch_estimate(names)",
        "hll_sketch_estimate(hll_union(ids, ids, false))",
    ]
    assert tuple(out.first()) == (3, 2, 3)
    assert events.agg(F.hll_sketch_agg("id")).columns == ["hll_sketch_agg(id, 12)"]


def test_hll_union_agg_refuses_different_lg_config_k(spark: SparkSession) -> None:
    one = spark.range(5).agg(F.hll_sketch_agg("id", 10).alias("s"))
    two = spark.range(3, 9).agg(F.hll_sketch_agg("id", 12).alias("s"))
    both = one.union(two)
    with pytest.raises(Exception, match="HLL_UNION_DIFFERENT_LG_K|different lgConfigK"):
        both.agg(F.hll_union_agg("s")).collect()
    estimate = both.agg(F.hll_sketch_estimate(F.hll_union_agg("s", True))).first()[0]
    assert estimate == 9


def test_theta_set_operations(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1.0, 3), (2.0, 4), (3.0, 5), (4.5, 6)], "a DOUBLE, b INT").agg(
        F.theta_sketch_agg("a").alias("a"), F.theta_sketch_agg("b").alias("b")
    )
    out = df.select(
        F.theta_sketch_estimate(F.theta_union("a", "b")),
        F.theta_sketch_estimate(F.theta_intersection("a", "b")),
        F.theta_sketch_estimate(F.theta_difference("a", "b")),
    )
    assert out.columns == [
        "theta_sketch_estimate(theta_union(a, b, 12))",
        "theta_sketch_estimate(theta_intersection(a, b))",
        "theta_sketch_estimate(theta_difference(a, b))",
    ]
    # a double is hashed as a double: 3.0 is not the integer 3
    assert tuple(out.first()) == (8, 0, 4)


def test_kll_quantiles_ranks_and_merges(spark: SparkSession) -> None:
    df = spark.createDataFrame([(float(i),) for i in range(1, 101)], "v DOUBLE")
    sketch = df.agg(F.kll_sketch_agg_double("v").alias("s"))
    out = sketch.select(
        F.kll_sketch_get_n_double("s"),
        F.kll_sketch_get_quantile_double("s", F.lit(0.5)),
        F.kll_sketch_get_rank_double("s", F.lit(25.0)),
        F.kll_sketch_get_n_double(F.kll_sketch_merge_double("s", "s")),
    )
    assert out.columns == [
        "kll_sketch_get_n_double(s)",
        "kll_sketch_get_quantile_double(s, 0.5)",
        "kll_sketch_get_rank_double(s, 25.0)",
        "kll_sketch_get_n_double(kll_sketch_merge_double(s, s))",
    ]
    assert tuple(out.first()) == (100, 50.0, 0.25, 200)
    longs = spark.range(1, 6).agg(F.kll_sketch_agg_bigint("id").alias("s"))
    assert longs.select(F.kll_sketch_get_quantile_bigint("s", F.lit(1.0))).first()[0] == 5
    assert "kll" in longs.select(F.kll_sketch_to_string_bigint("s")).first()[0].lower()


def test_kll_rank_out_of_range_is_an_error(spark: SparkSession) -> None:
    sketch = spark.range(3).agg(F.kll_sketch_agg_bigint("id").alias("s"))
    with pytest.raises(Exception, match="(?i)rank|quantile"):
        sketch.select(F.kll_sketch_get_quantile_bigint("s", F.lit(1.5))).collect()


def test_tuple_sketches_summarize_by_mode(events) -> None:  # noqa: ANN001
    df = events.agg(
        F.tuple_sketch_agg_double("id", "v").alias("sum"),
        F.tuple_sketch_agg_double("id", "v", 12, "max").alias("max"),
        F.tuple_sketch_agg_integer("name", F.col("v").cast("int"), 12, "min").alias("min"),
    )
    out = df.select(
        F.tuple_sketch_estimate_double("sum"),
        F.tuple_sketch_summary_double("sum"),
        F.tuple_sketch_summary_double("max", "max"),
        F.tuple_sketch_summary_integer("min", "sum"),
        F.tuple_sketch_theta_double("sum"),
    )
    assert out.columns == [
        "tuple_sketch_estimate_double(sum)",
        "tuple_sketch_summary_double(sum, sum)",
        "tuple_sketch_summary_double(max, max)",
        "tuple_sketch_summary_integer(min, sum)",
        "tuple_sketch_theta_double(sum)",
    ]
    # sums per key 10, 50, 5; maxima 10, 30, 5 (the largest 30); minima per name a: 10, b: 20
    assert tuple(out.first()) == (3.0, 65.0, 30.0, 30, 1.0)


def test_tuple_with_theta_sketches(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 1.0, 1), (2, 2.0, 2), (3, 3.0, 4)], "k INT, v DOUBLE, t INT").agg(
        F.tuple_sketch_agg_double("k", "v").alias("tuple"), F.theta_sketch_agg("t").alias("theta")
    )
    out = df.select(
        F.tuple_sketch_estimate_double(F.tuple_union_theta_double("tuple", "theta")),
        F.tuple_sketch_summary_double(F.tuple_intersection_theta_double("tuple", "theta")),
        F.tuple_sketch_summary_double(F.tuple_difference_theta_double("tuple", "theta")),
    )
    assert out.columns[0] == "tuple_sketch_estimate_double(tuple_union_theta_double(tuple, theta, 12, sum))"
    assert tuple(out.first()) == (4.0, 3.0, 3.0)


def test_sketches_in_sql_text(spark: SparkSession) -> None:
    spark.createDataFrame([(1,), (2,), (2,)], "x INT").createOrReplaceTempView("sketched")
    out = spark.sql(
        "SELECT hll_sketch_estimate(hll_sketch_agg(x)), theta_sketch_estimate(theta_sketch_agg(x, 10)) FROM sketched"
    )
    assert out.columns == [
        "hll_sketch_estimate(hll_sketch_agg(x, 12))",
        "theta_sketch_estimate(theta_sketch_agg(x, 10))",
    ]
    assert tuple(out.first()) == (2, 2)


@pytest.mark.usefixtures("state_provider")
def test_sketch_aggregates_stream_and_survive_a_restart(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    """A sketch aggregate's partial state is the sketch: it merges across
    micro-batches and a restart from the checkpoint."""
    from test_function_library import totals_after_a_restart

    ((key, distinct, theta, median, total),) = totals_after_a_restart(
        spark,
        tmp_path,
        "k STRING, x INT, y DOUBLE",
        [
            F.hll_sketch_estimate(F.hll_sketch_agg("x")).alias("distinct"),
            F.theta_sketch_estimate(F.theta_sketch_agg("x")).alias("theta"),
            F.kll_sketch_get_quantile_double(F.kll_sketch_agg_double("y"), F.lit(0.5)).alias("median"),
            F.tuple_sketch_summary_double(F.tuple_sketch_agg_double("x", "y")).alias("total"),
        ],
        [("a", 1, 1.0), ("a", 2, 2.0), ("a", 2, 3.0)],
        [("a", 3, 4.0), ("a", 1, 5.0)],
    )
    assert (key, distinct, theta, median, total) == ("a", 3, 3, 3.0, 15.0)
