"""Stateless DataFrame operations on batch DataFrames."""

from __future__ import annotations

import pytest

from sparklet.errors import AnalysisException, PySparkValueError
from sparklet.sql import DataFrame, Row, SparkSession
from sparklet.sql import functions as F


@pytest.fixture
def people(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        [(1, "ann", 31, "NL"), (2, "bob", 17, "DE"), (3, "cy", None, "NL")],
        "id INT, name STRING, age INT, country STRING",
    )


def test_select_filter_with_column(people: DataFrame) -> None:
    out = (
        people.where(F.col("age") >= 18)
        .withColumn("age_next", F.col("age") + 1)
        .select("name", "age_next", (F.col("id") * 10).alias("id10"))
        .collect()
    )
    assert out == [Row(name="ann", age_next=32, id10=10)]


def test_filter_with_sql_string_and_select_expr(people: DataFrame) -> None:
    assert [r.name for r in people.filter("age IS NULL OR age < 18").orderBy("id").collect()] == ["bob", "cy"]
    out = people.selectExpr("upper(name) AS up", "id * 2 AS twice").orderBy("twice").collect()
    assert out[0] == Row(up="ANN", twice=2)


def test_rename_drop_columns_dtypes(people: DataFrame) -> None:
    df = people.withColumnRenamed("name", "who").drop("age", "no_such_column")
    assert df.columns == ["id", "who", "country"]
    assert people.withColumnRenamed("missing", "x").columns == people.columns
    assert people.dtypes[2] == ("age", "int")


def test_unknown_column_names_it_and_lists_the_others(people: DataFrame) -> None:
    with pytest.raises(AnalysisException) as e:
        people.select("nme")
    assert e.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    assert "`nme`" in str(e.value) and "`name`" in str(e.value)
    with pytest.raises(AnalysisException):
        people.filter("agee > 3")
    with pytest.raises(AnalysisException):
        people["nope"]


def test_union_and_union_by_name(spark: SparkSession) -> None:
    a = spark.createDataFrame([(1, "x")], "id INT, v STRING")
    b = spark.createDataFrame([("y", 2)], "v STRING, id INT")
    assert a.unionByName(b).orderBy("id").collect() == [Row(id=1, v="x"), Row(id=2, v="y")]
    c = spark.createDataFrame([(3, "z")], "n INT, w STRING")
    assert a.union(c).columns == ["id", "v"] and a.union(c).count() == 2
    with pytest.raises(AnalysisException, match="NUM_COLUMNS_MISMATCH"):
        a.union(spark.createDataFrame([(1,)], "id INT"))


def test_alias_qualifies_columns(people: DataFrame) -> None:
    out = people.alias("p").select(F.col("p.name")).orderBy("name").collect()
    assert [r.name for r in out] == ["ann", "bob", "cy"]


def test_cast_and_limit_and_order(people: DataFrame) -> None:
    out = people.select(F.col("id").cast("string").alias("s")).orderBy(F.col("s").desc()).limit(2).collect()
    assert [r.s for r in out] == ["3", "2"]


def test_group_by_on_batches(people: DataFrame) -> None:
    out = people.groupBy("country").agg(F.count("*").alias("n"), F.max("age").alias("oldest")).orderBy("country")
    assert out.collect() == [Row(country="DE", n=1, oldest=17), Row(country="NL", n=2, oldest=31)]


def test_show_and_print_schema(people: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    people.orderBy("id").show(2)
    out = capsys.readouterr().out
    assert out.splitlines()[:4] == [
        "+---+----+---+-------+",
        "| id|name|age|country|",
        "+---+----+---+-------+",
        "|  1| ann| 31|     NL|",
    ]
    assert "only showing top 2 rows" in out
    people.printSchema()
    assert " |-- age: integer (nullable = true)" in capsys.readouterr().out


@pytest.mark.sparklet_only(reason="the plan text is DataFusion's")
def test_explain_prints_the_plan_that_runs(people: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    grouped = people.where("age > 20").groupBy("country").count()
    grouped.explain()
    out = capsys.readouterr().out
    # PySpark's default: the physical plan only
    assert out.startswith("== Physical Plan ==") and "AggregateExec" in out and "Logical" not in out
    grouped.explain(True)
    out = capsys.readouterr().out
    sections = ["== Parsed Logical Plan ==", "== Optimized Logical Plan ==", "== Physical Plan =="]
    assert [out.index(s) for s in sections] == sorted(out.index(s) for s in sections)


def test_to_pandas_and_arrow(people: DataFrame) -> None:
    pdf = people.orderBy("id").toPandas()
    assert list(pdf["name"]) == ["ann", "bob", "cy"]
    table = people.toArrow()
    assert table.num_rows == 3 and table.schema.names == ["id", "name", "age", "country"]
    assert people.first() == Row(id=1, name="ann", age=31, country="NL")


def test_column_in_boolean_context_is_an_error(people: DataFrame) -> None:
    with pytest.raises(PySparkValueError, match="CANNOT_CONVERT_COLUMN_INTO_BOOL"):
        bool(F.col("a") > 1)


def test_unaliased_expressions_are_named_as_spark_names_them(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2), (1, 3)], "k INT, v INT")
    aggs = df.groupBy("k").agg(F.sum("v"), F.count("*"), F.avg(F.col("v") + 1), F.max(F.length(F.lit("x"))))
    assert aggs.columns == ["k", "sum(v)", "count(1)", "avg((v + 1))", "max(length(x))"]
    assert aggs.collect()[0]["sum(v)"] == 5
    projected = df.select(F.col("v") + 1, F.upper(F.lit("a")), (F.col("v") * 2).cast("string"), F.col("v") == 2)
    assert projected.columns == ["(v + 1)", "upper(a)", "CAST((v * 2) AS STRING)", "(v = 2)"]
    # a select of aggregates is one aggregate over the whole DataFrame
    assert df.select(F.min("v"), (F.max("v") - F.min("v")).alias("span")).collect() == [Row(**{"min(v)": 2, "span": 1})]


def test_a_cast_of_a_column_keeps_the_column_s_name(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "2")], "value INT, s STRING")
    out = df.select(
        F.col("value").cast("string"),
        F.col("s").cast("int"),
        (F.col("value") + 1).cast("string"),
        F.upper(F.col("value").cast("string")),
        F.lit(1).cast("string"),
    )
    assert out.columns == [
        "value",
        "s",
        "CAST((value + 1) AS STRING)",
        "upper(CAST(value AS STRING))",
        "CAST(1 AS STRING)",
    ]
    assert df.selectExpr("CAST(value AS STRING)").columns == ["value"]
    assert df.groupBy(F.col("value").cast("string")).count().columns == ["value", "count"]


def test_to_json_writes_timestamps_as_spark_does(spark: SparkSession) -> None:
    import datetime as dt

    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        df = spark.createDataFrame(
            [(dt.datetime(2024, 1, 1, 0, 0, 20, 123456), dt.datetime(2024, 1, 1, 0, 0, 20))],
            "ts TIMESTAMP, n TIMESTAMP_NTZ",
        )
        (row,) = df.select(F.to_json(F.struct("ts", "n")).alias("j")).collect()
        assert row.j == '{"ts":"2024-01-01T00:00:20.123Z","n":"2024-01-01T00:00:20.000"}'
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


def test_a_number_cast_to_a_timestamp_is_seconds_since_the_epoch(spark: SparkSession) -> None:
    from decimal import Decimal

    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        df = spark.createDataFrame([(60.732, 5, Decimal("1.25"), -0.5)], "d DOUBLE, i INT, m DECIMAL(5,2), n DOUBLE")
        out = df.select(*[F.col(c).cast("timestamp").cast("string").alias(c) for c in df.columns]).collect()[0]
        assert (out.d, out.i, out.m, out.n) == (
            "1970-01-01 00:01:00.732",
            "1970-01-01 00:00:05",
            "1970-01-01 00:00:01.25",
            "1969-12-31 23:59:59.5",
        )
        sql = spark.sql("SELECT CAST(1.5 AS TIMESTAMP) AS t").selectExpr("CAST(t AS STRING) AS t").collect()[0].t
        assert sql == "1970-01-01 00:00:01.5"
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


def test_select_expr_takes_an_alias_without_as(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a")], "v INT, s STRING")
    out = df.selectExpr("CAST(v AS STRING) t", "v + 1 w", "upper(s) AS u", "s")
    assert out.columns == ["t", "w", "u", "s"]
    assert tuple(out.collect()[0]) == ("1", 2, "A", "a")


def test_a_condition_guards_what_its_and_or_or_would_otherwise_fail_on(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    # Spark evaluates the right side of AND / OR only where the left side
    # does not decide: `b != 0 AND a / b > 1` never divides by zero (ANSI)
    rows = [(1, 0), (4, 2), (1, 1), (9, 0), (None, 0)]
    df = spark.createDataFrame(rows, "a INT, b INT")
    df.write.parquet(str(tmp_path / "ab"))
    for frame in (df, spark.read.parquet(str(tmp_path / "ab"))):
        guarded = frame.where((F.col("b") != 0) & (F.col("a") / F.col("b") > 1))
        assert [tuple(r) for r in guarded.collect()] == [(4, 2)]
        either = frame.where("b = 0 OR a / b > 1").orderBy("a", "b")
        assert [tuple(r) for r in either.collect()] == [(None, 0), (1, 0), (4, 2), (9, 0)]
        flags = frame.select("a", F.expr("b <> 0 AND a / b >= 1").alias("ok")).orderBy("a", "b")
        assert [tuple(r) for r in flags.collect()] == [(None, False), (1, False), (1, True), (4, True), (9, False)]
    # where the left side is true the right side runs, and fails
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        df.where("a > 0 AND a / b > 1").collect()


def test_sql_text_in_expr_divides_as_spark_does_at_any_depth(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2), (3, 0)], "a INT, b INT")
    out = df.select(
        F.expr("abs(a / nullif(b, 0))").alias("r"),
        F.expr("CASE WHEN b = 0 THEN NULL ELSE a / b END").alias("c"),
        F.expr("IF(b != 0, a / b, NULL)").alias("i"),
        F.expr("IF(b = 0, NULL, a / b)").alias("j"),
    )
    assert out.schema.simpleString() == "struct<r:double,c:double,i:double,j:double>"
    assert [tuple(r) for r in out.collect()] == [(0.5, 0.5, 0.5, 0.5), (None, None, None, None)]
    halves = df.where("b != 0").withColumn("q", F.expr("a / b"))
    assert [tuple(r) for r in halves.collect()] == [(1, 2, 0.5)]


def test_order_by_sql_expressions_sorts_by_them(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "b"), (3, "a"), (2, "c")], "n INT, s STRING")
    assert [r.n for r in df.orderBy(F.expr("n / 2").desc()).collect()] == [3, 2, 1]
    assert [r.n for r in df.sort(F.expr("upper(s)")).collect()] == [3, 1, 2]
    assert [r.n for r in df.orderBy(F.desc(F.expr("n % 3"))).collect()] == [2, 1, 3]


def test_a_filter_reads_a_column_the_select_before_it_left_out(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2), (3, 0)], "a INT, b INT")
    tens = df.select((F.col("a") * 10).alias("t"))
    kept = tens.where("b != 0")
    assert kept.columns == ["t"]
    assert [tuple(r) for r in kept.collect()] == [(10,)]
    assert [tuple(r) for r in tens.filter(df.b == 0).collect()] == [(30,)]
    # a column found nowhere is still an error that names it
    with pytest.raises(AnalysisException, match="nope"):
        tens.where("nope > 1").collect()


def test_select_expr_expands_stars_and_names_struct_fields_as_spark(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "x")], "a INT, g STRING")
    assert df.selectExpr("*", "a + 1 AS a1").columns == ["a", "g", "a1"]
    both = df.selectExpr("struct(a, g) AS s", "struct(upper(g), a) AS t")
    assert both.schema.simpleString() == "struct<s:struct<a:int,g:string>,t:struct<col1:string,a:int>>"
    assert both.selectExpr("s.*").columns == ["a", "g"]
    assert df.selectExpr("struct(a, g)").columns == ["struct(a, g)"]


def test_first_and_last_after_order_by_read_the_rows_in_that_order(spark: SparkSession) -> None:
    # Spark hands a group's rows to first/last as sorted (one partition)
    df = spark.createDataFrame(
        [("a", 3, "x"), ("a", 1, "y"), ("b", 2, "z"), ("a", 2, None), ("b", 1, "w")], "k STRING, t INT, v STRING"
    )
    out = (
        df.orderBy("t")
        .groupBy("k")
        .agg(F.first("v").alias("f"), F.last("v").alias("l"), F.first("v", True).alias("fi"))
        .orderBy("k")
    )
    assert [tuple(r) for r in out.collect()] == [("a", "y", "x", "y"), ("b", "w", "z", "w")]
    latest = df.orderBy(F.col("t").desc()).where("k = 'a'").groupBy("k").agg(F.first("v"), F.last("v"))
    assert [tuple(r) for r in latest.collect()] == [("a", "x", "y")]


def test_collect_list_after_order_by_lists_the_rows_in_that_order(spark: SparkSession) -> None:
    # Spark hands a group's rows to collect_list as sorted; nulls are skipped
    df = spark.createDataFrame(
        [("a", 3, "x"), ("a", 1, "y"), ("b", 2, "z"), ("a", 2, None), ("b", 1, "w"), ("a", 4, "u")],
        "k STRING, t INT, v STRING",
    )
    out = df.orderBy("t").groupBy("k").agg(F.collect_list("v").alias("vs"), F.count("v").alias("n")).orderBy("k")
    assert [tuple(r) for r in out.collect()] == [("a", ["y", "x", "u"], 3), ("b", ["w", "z"], 2)]
    newest_first = df.orderBy(F.col("t").desc()).where("k = 'a'").groupBy("k").agg(F.collect_list("v"))
    assert newest_first.columns == ["k", "collect_list(v)"]
    assert [tuple(r) for r in newest_first.collect()] == [("a", ["u", "x", "y"])]


def test_substr_counts_positions_as_spark(spark: SparkSession) -> None:
    # a position of 0 is the first character; a negative one counts from the end
    df = spark.createDataFrame([("abcdef", -2), ("héllo", 2)], "s STRING, p INT")
    out = df.selectExpr("substr(s, 0, 2)", "substr(s, -3)", "substring(s, p, 2)", "substring(s FROM 2 FOR 3)")
    assert out.columns[:2] == ["substr(s, 0, 2)", "substr(s, -3, 2147483647)"]
    assert [tuple(r) for r in out.collect()] == [("ab", "def", "ef", "bcd"), ("hé", "llo", "él", "éll")]
    assert [tuple(r) for r in df.select(F.substring("s", -3, 2), F.col("s").substr(0, 1)).collect()] == [
        ("de", "a"),
        ("ll", "h"),
    ]
