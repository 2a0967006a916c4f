"""The DataFrame methods a PySpark job's batch code uses: missing values,
statistics, set operations, multi-level groupings and pivots, reshaping,
persistence, case-insensitive names (the same on both engines: pytest
--engine=pyspark)."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from sparklet.errors import AnalysisException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F


@pytest.fixture
def people(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame(
        [("Alice", 2, 1.5), ("Bob", 5, None), ("12", None, float("nan"))], "name STRING, age INT, h DOUBLE"
    )


def test_fill_drop_replace(people) -> None:  # noqa: ANN001
    filled = people.na.fill(3).collect()
    assert [(r.age, r.h) for r in filled] == [(2, 1.5), (5, 3.0), (3, 3.0)]
    assert [r.name for r in people.fillna({"name": "x", "age": 1}).collect()] == ["Alice", "Bob", "12"]
    assert [r.name for r in people.dropna().collect()] == ["Alice"]
    assert [r.name for r in people.dropna(thresh=2).collect()] == ["Alice", "Bob"]
    assert [r.age for r in people.replace(2, 9).collect()] == [9, 5, None]
    assert [r.name for r in people.na.replace(["Alice", "Bob"], ["A", "B"], "name").collect()] == ["A", "B", "12"]


def test_describe_and_summary_as_spark_formats_them(people) -> None:  # noqa: ANN001
    described = {r.summary: (r.name, r.age) for r in people.describe().collect()}
    assert described == {
        "count": ("3", "2"),
        "mean": ("12.0", "3.5"),
        "stddev": (None, "2.1213203435596424"),
        "min": ("12", "2"),
        "max": ("Bob", "5"),
    }
    summary = people.select("age").summary("count", "50%", "max").collect()
    assert [(r.summary, r.age) for r in summary] == [("count", "2"), ("50%", "2"), ("max", "5")]


def test_statistics(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 12), (10, 1), (19, 8)], ["c1", "c2"])
    assert math.isclose(df.corr("c1", "c2"), -0.3592106040535498)
    assert df.cov("c1", "c2") == -18.0
    assert df.approxQuantile("c1", [0.0, 0.5, 1.0], 0.05) == [1.0, 10.0, 19.0]
    tab = spark.createDataFrame([(1, 11), (1, 11), (3, 10)], ["a", "b"]).crosstab("a", "b")
    assert tab.columns == ["a_b", "10", "11"]
    assert sorted(tuple(r) for r in tab.collect()) == [("1", 0, 2), ("3", 1, 0)]


def test_set_operations_match_columns_by_position_and_count_copies(spark: SparkSession) -> None:
    a = spark.createDataFrame([("a", 1), ("a", 1), ("a", 1), ("a", 2), ("b", 3), ("c", 4)], ["C1", "C2"])
    b = spark.createDataFrame([("a", 1), ("b", 3)], ["x", "y"])
    assert sorted(tuple(r) for r in a.exceptAll(b).collect()) == [("a", 1), ("a", 1), ("a", 2), ("c", 4)]
    assert sorted(tuple(r) for r in a.subtract(b).collect()) == [("a", 2), ("c", 4)]
    assert sorted(tuple(r) for r in a.intersectAll(a.limit(2)).collect()) == [("a", 1), ("a", 1)]
    assert sorted(tuple(r) for r in a.intersect(b).collect()) == [("a", 1), ("b", 3)]
    assert a.exceptAll(b).columns == ["C1", "C2"]


def test_cube_rollup_and_pivot(spark: SparkSession) -> None:
    df = spark.createDataFrame([("Alice", 2), ("Bob", 5)], ["name", "age"])
    cube = df.cube("name", "age").count().orderBy("name", "age").collect()
    assert [tuple(r) for r in cube][:3] == [(None, None, 2), (None, 2, 1), (None, 5, 1)]
    assert len(cube) == 7
    assert len(df.rollup(1, 2).count().collect()) == 5
    sales = spark.createDataFrame(
        [("dotNET", 2012, 10000), ("Java", 2012, 20000), ("dotNET", 2012, 5000), ("dotNET", 2013, 48000)],
        ["course", "year", "earnings"],
    )
    pivoted = sales.groupBy("year").pivot("course").sum("earnings").orderBy("year")
    assert pivoted.columns == ["year", "Java", "dotNET"]
    assert [tuple(r) for r in pivoted.collect()] == [(2012, 20000, 15000), (2013, None, 48000)]
    counted = sales.groupBy("year").pivot("course", ["Java"]).count().orderBy("year").collect()
    assert [tuple(r) for r in counted] == [(2012, 1), (2013, None)]  # no row of the value: null, even for count


def test_reshaping(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 11, 1.1), (2, 12, 1.2)], ["id", "int", "double"])
    long = df.unpivot("id", ["int", "double"], "var", "val")
    assert [tuple(r) for r in long.collect()] == [
        (1, "int", 11.0),
        (1, "double", 1.1),
        (2, "int", 12.0),
        (2, "double", 1.2),
    ]
    assert df.toDF("a", "b", "c").columns == ["a", "b", "c"]
    assert df.select(df.colRegex("`(id)?+.+`")).columns == ["int", "double"]
    assert df.transform(lambda d, n: d.limit(n), 1).count() == 1
    assert [r.id for r in df.tail(1)] == [2]


def test_persist_computes_once_and_reports_its_level(spark: SparkSession) -> None:
    from sparklet import StorageLevel

    df = spark.range(5)
    assert df.storageLevel == StorageLevel.NONE
    df.cache()
    assert df.is_cached and df.storageLevel == StorageLevel.MEMORY_AND_DISK_DESER
    assert df.count() == 5 and df.filter("id > 2").count() == 2
    df.unpersist()
    assert not df.is_cached and df.storageLevel == StorageLevel.NONE
    assert df.localCheckpoint().collect() == df.collect()


def test_sample_sizes(spark: SparkSession) -> None:
    df = spark.range(1000)
    assert df.sample(1.0).count() == 1000
    assert 350 < df.sample(fraction=0.5, seed=3).count() < 650
    a, b = df.randomSplit([1.0, 3.0], seed=7)
    assert a.count() + b.count() == 1000 and a.intersect(b).count() == 0


def test_column_names_resolve_without_regard_to_case(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 3)], ["Name", "age"])
    assert df.select("NAME", "Age").columns == ["NAME", "Age"]
    assert df.filter("name = 1").count() == 1 and df.filter(F.col("nAme") == 1).count() == 1
    assert df.groupBy("NAME").count().columns == ["NAME", "count"]
    with pytest.raises(AnalysisException, match="AMBIGUOUS_REFERENCE"):
        spark.createDataFrame([(1, 2)], ["a", "A"]).select("a").collect()


@pytest.mark.sparklet_only(reason="PySpark 4.3's classic DataFrame has no Arrow PyCapsule stream")
def test_arrow_stream_interface(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a")], "id INT, s STRING")
    assert pa.table(df).to_pylist() == [{"id": 1, "s": "a"}]


def test_sql_with_python_values_and_dataframes(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 4), (2, 4), (3, 6)], ["A", "B"])
    got = spark.sql("SELECT {df.A}, {df[B]} FROM {df} WHERE A IN {xs}", df=df, xs=(1, 3))
    assert sorted(tuple(r) for r in got.collect()) == [(1, 4), (3, 6)]
    got = spark.sql("SELECT * FROM {df} WHERE B > :low AND A < ?".replace("?", ":high"), {"low": 4, "high": 9}, df=df)
    assert [tuple(r) for r in got.collect()] == [(3, 6)]
    assert spark.sql("SELECT ? + ?", args=[1, 2]).collect()[0][0] == 3


def test_rows_dicts_and_empty_frames(spark: SparkSession) -> None:
    from sparklet.sql import Row

    person = Row("name", "age")
    assert spark.createDataFrame([person("Alice", 1)]).columns == ["name", "age"]
    assert spark.createDataFrame([{"name": "Alice", "age": 1}]).columns == ["age", "name"]  # keys sorted
    empty = spark.createDataFrame([], "name STRING, age INT")
    assert empty.count() == 0 and empty.columns == ["name", "age"]


def test_string_functions_take_numbers_dates_and_booleans_as_text(spark: SparkSession) -> None:
    import datetime as dt

    df = spark.createDataFrame([(14, True, dt.date(2024, 1, 2))], "age INT, b BOOLEAN, d DATE")
    out = df.select(F.upper("age"), F.lower(df.b), F.lpad("age", 5, "0"), F.upper("d"))
    assert out.columns == ["upper(age)", "lower(b)", "lpad(age, 5, 0)", "upper(d)"]
    assert tuple(out.first()) == ("14", "true", "00014", "2024-01-02")
    assert df.filter(F.upper("age") == "14").count() == 1


def test_item_access_is_named_and_checked_as_spark_does(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [([1, 2], {"key": "value"}, {"b": 1})], "l array<int>, d map<string,string>, s struct<b:int>"
    )
    out = df.select(df.l.getItem(0), df.d.getItem("key"), df.l[1], df.s.b, df.s["b"].alias("b2"), F.upper(df.d.key))
    assert out.columns == ["l[0]", "d[key]", "l[1]", "s.b", "b2", "upper(d[key])"]
    assert tuple(out.first()) == (1, "value", 2, 1, 1, "VALUE")
    # a slice is a substring, as PySpark's Column.__getitem__ makes it
    text = spark.createDataFrame([("abcdef",)], ["t"])
    assert text.select(text.t[2:3]).first()[0] == "bcd"
    # ANSI mode (Spark 4's default): an index out of bounds is an error
    with pytest.raises(Exception, match="INVALID_ARRAY_INDEX"):
        df.select(df.l[5]).collect()


def test_field_metadata_travels_with_the_column(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2, "Alice")], ["age", "name"])
    assert df.select(df.age.alias("a", metadata={"max": 99})).schema["a"].metadata == {"max": 99}
    tagged = df.withMetadata("name", {"comment": "given name"})
    assert tagged.schema["name"].metadata == {"comment": "given name"}
    assert tagged.columns == ["age", "name"] and tagged.first().name == "Alice"


def test_with_field_then_select_the_new_field(spark: SparkSession) -> None:
    df = spark.createDataFrame([((1, 2),)], "a struct<b:int,c:int>")
    added = df.withColumn("a", df["a"].withField("d", F.lit(4)))
    assert added.select("a.d").first()[0] == 4
    assert added.select("a.b", "a.d").columns == ["b", "d"]


def test_udf_results_are_cast_to_the_declared_type(spark: SparkSession) -> None:
    as_text = F.udf(lambda x: x + 3, "string")
    flag = F.udf(lambda x: x == 0, "string")
    as_int = F.udf(lambda x: "7", "int")
    row = spark.range(1).select(as_text("id").alias("t"), flag("id").alias("f"), as_int("id").alias("i")).first()
    assert tuple(row) == ("3", "true", 7)


def test_show_and_print_schema_end_with_a_blank_line(spark: SparkSession, capsys: pytest.CaptureFixture) -> None:
    spark.range(1).show()
    spark.range(1).printSchema()
    out = capsys.readouterr().out
    assert out == "+---+\n| id|\n+---+\n|  0|\n+---+\n\nroot\n |-- id: long (nullable = false)\n\n"


def test_transpose_and_zip_with_index(spark: SparkSession) -> None:
    df = spark.createDataFrame([("b", 1, 2.5), ("a", 3, 4.0), (None, 5, 6.0)], "id string, x int, y double")
    t = df.transpose()
    assert t.columns == ["key", "a", "b"]
    assert [tuple(r) for r in t.collect()] == [("x", 3.0, 1.0), ("y", 4.0, 2.5)]
    indexed = df.zipWithIndex("pos")
    assert indexed.columns == ["id", "x", "y", "pos"]
    assert [(r.id, r.pos) for r in indexed.collect()] == [("b", 0), ("a", 1), (None, 2)]


def test_table_valued_functions(spark: SparkSession) -> None:
    arr = F.array(F.lit(1), F.lit(2))
    assert [tuple(r) for r in spark.tvf.explode(arr).collect()] == [(1,), (2,)]
    assert spark.tvf.explode(arr).columns == ["col"]
    assert [tuple(r) for r in spark.tvf.posexplode(arr).collect()] == [(0, 1), (1, 2)]
    assert [r.id for r in spark.tvf.range(1, 7, 2).collect()] == [1, 3, 5]
    stacked = spark.tvf.stack(F.lit(2), F.lit("a"), F.lit(1), F.lit("b"), F.lit(2))
    assert stacked.columns == ["col0", "col1"] and [tuple(r) for r in stacked.collect()] == [("a", 1), ("b", 2)]


def test_zip_side_by_side_and_its_error(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2, 3), (4, 5, 6)], ["a", "b", "c"])
    zipped = df.select("a").zip(df.select((df.b + 1).alias("b1")))
    assert [tuple(r) for r in zipped.collect()] == [(1, 3), (4, 6)]
    assert zipped.columns == ["a", "b1"]
    with pytest.raises(AnalysisException, match="ZIP_PLANS_NOT_MERGEABLE"):
        df.select("a").zip(df.where("a > 1").select("b")).collect()


def test_nearest_by_join_ranks_each_left_row(spark: SparkSession) -> None:
    users = spark.createDataFrame([(1, 10.0), (2, 20.0), (3, 30.0)], ["user_id", "score"])
    products = spark.createDataFrame([("A", 11.0), ("B", 22.0), ("C", 5.0)], ["product", "pscore"])
    near = users.nearestByJoin(products, F.abs(users.score - products.pscore), 2, "exact", "distance")
    assert near.columns == ["user_id", "score", "product", "pscore"]
    assert [(r.user_id, r.product) for r in near.orderBy("user_id", "product").collect()] == [
        (1, "A"),
        (1, "C"),
        (2, "A"),
        (2, "B"),
        (3, "A"),
        (3, "B"),
    ]
    alone = users.nearestByJoin(
        products.limit(0), F.abs(users.score - products.pscore), 1, "exact", "distance", joinType="leftouter"
    )
    assert sorted((r.user_id, r.product) for r in alone.collect()) == [(1, None), (2, None), (3, None)]
    for args, kind in [
        ((0, "exact", "distance"), "NUM_RESULTS_OUT_OF_RANGE"),
        ((1, "bad", "distance"), "UNSUPPORTED_MODE"),
    ]:
        with pytest.raises(AnalysisException, match=kind):
            users.nearestByJoin(products, F.abs(users.score - products.pscore), *args).collect()
