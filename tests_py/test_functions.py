"""Functions streaming ETL uses most, with Spark's semantics."""

from __future__ import annotations

import datetime

import pytest

from conftest import conf_set
from sparklet.sql import DataFrame, Row, SparkSession
from sparklet.sql import functions as F


@pytest.fixture
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        [
            (1, "  Ann ", "a,b,c", "2026-11-29 10:30:05", '{"user": {"id": 7}, "tags": ["x"]}'),
            (2, None, "d", "29/11/2026", "not json"),
        ],
        "id INT, name STRING, csv STRING, when_s STRING, js STRING",
    )


def one(df: DataFrame, *cols: F.Column) -> list:  # type: ignore[name-defined]
    return [tuple(r) for r in df.orderBy("id").select(*cols).collect()]


def test_lit_when_coalesce_and_arithmetic(df: DataFrame) -> None:
    out = one(
        df,
        F.when(F.col("id") == 1, "one").when(F.col("id") == 2, "two").otherwise("many").alias("w"),
        F.coalesce(F.col("name"), F.lit("?")).alias("c"),
        (F.col("id") / 2).alias("half"),
        (F.col("id") % 2).alias("mod"),
        (-F.col("id")).alias("neg"),
    )
    assert out == [("one", "  Ann ", 0.5, 1, -1), ("two", "?", 1.0, 0, -2)]


def test_comparisons_boolean_logic_null_checks(df: DataFrame) -> None:
    out = one(
        df,
        ((F.col("id") > 1) & F.col("name").isNull()).alias("a"),
        ((F.col("id") == 1) | ~F.col("name").isNotNull()).alias("b"),
        F.col("id").isin(2, 3).alias("c"),
        F.col("csv").like("a%").alias("d"),
        F.col("csv").rlike("^[a-c,]+$").alias("e"),
        F.col("id").between(0, 1).alias("f"),
    )
    assert out == [(False, True, False, True, True, True), (True, True, True, False, False, False)]


def test_string_functions(df: DataFrame) -> None:
    out = one(
        df,
        F.upper(F.trim("name")).alias("u"),
        F.lower("name").alias("l"),
        F.length("csv").alias("n"),
        F.concat(F.col("csv"), F.lit("!")).alias("c"),
        F.concat(F.col("name"), F.lit("!")).alias("null_in"),
        F.concat_ws("-", F.col("name"), F.col("csv")).alias("ws"),
        F.substring("csv", 1, 3).alias("sub"),
        F.split("csv", ",").alias("parts"),
    )
    assert out[0] == ("ANN", "  ann ", 5, "a,b,c!", "  Ann !", "  Ann -a,b,c", "a,b", ["a", "b", "c"])
    assert out[1] == (None, None, 1, "d!", None, "d", "d", ["d"])


def test_regexp_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([("order-123-x",), ("none",)], "s STRING")
    out = df.select(
        F.regexp_extract("s", r"order-(\d+)", 1).alias("n"),
        F.regexp_replace("s", r"\d", "#").alias("r"),
        F.ltrim(F.lit("  x")).alias("t"),
    ).collect()
    assert [tuple(r) for r in out] == [("123", "order-###-x", "x"), ("", "none", "x")]


def test_time_functions(spark: SparkSession, df: DataFrame) -> None:
    # text a pattern does not fit gives null with ANSI off (Spark 4's ANSI
    # default fails the query; sparklet gives null either way: docs/differences.md)
    with conf_set(spark, "spark.sql.ansi.enabled", "false"):
        out = time_columns(df)
    ts = datetime.datetime(2026, 11, 29, 10, 30, 5)
    assert out[0] == (
        ts,
        None,
        datetime.date(2026, 11, 29),
        "2026/11/29 10:30",
        1795948205,
        "1970-01-01 00:00:00",
        datetime.datetime(2026, 11, 29, 10, 0),
    )
    assert out[1][1] == datetime.datetime(2026, 11, 29) and out[1][0] is None
    now = F.current_timestamp()
    (row,) = df.limit(1).select(now.alias("now")).collect()
    assert abs((datetime.datetime.utcnow() - row.now).total_seconds()) < 60


def time_columns(df: DataFrame) -> list:
    return one(
        df,
        F.to_timestamp("when_s").alias("ts"),
        F.to_timestamp("when_s", "dd/MM/yyyy").alias("ts2"),
        F.to_date("when_s").alias("d"),
        F.date_format(F.to_timestamp("when_s"), "yyyy/MM/dd HH:mm").alias("f"),
        F.unix_timestamp("when_s").alias("u"),
        F.from_unixtime(F.lit(0)).alias("e"),
        F.date_trunc("hour", F.to_timestamp("when_s")).alias("h"),
    )


def test_json_functions(df: DataFrame) -> None:
    out = one(
        df,
        F.get_json_object("js", "$.user.id").alias("uid"),
        F.from_json("js", "user STRUCT<id: INT>, tags ARRAY<STRING>").alias("parsed"),
    )
    assert out[0][0] == "7"
    assert out[0][1] == Row(user=Row(id=7), tags=["x"])
    assert out[1] == (None, Row(user=None, tags=None))  # not a record: a struct of nulls, as in Spark
    structs = df.orderBy("id").select(F.to_json(F.struct("id", "csv")).alias("j")).collect()
    assert structs[0].j == '{"id":1,"csv":"a,b,c"}'


def test_explode_and_expr(df: DataFrame) -> None:
    out = df.orderBy("id").select("id", F.explode(F.split("csv", ",")).alias("part")).collect()
    assert [tuple(r) for r in out] == [(1, "a"), (1, "b"), (1, "c"), (2, "d")]
    out2 = df.withColumn("x", F.expr("id * 10 + 1")).select("x").orderBy("x").collect()
    assert [r.x for r in out2] == [11, 21]


def test_from_json_of_text_that_is_not_a_record(spark: SparkSession) -> None:
    # null and blank text give a null struct; any other non-record a struct of nulls
    texts = [None, "", "  ", "5", "[1]", "null", '[{"a": 1}]', "{}", '{"a": 2} trailing']
    df = spark.createDataFrame(list(enumerate(texts)), "i INT, js STRING")
    out = [r.p for r in df.orderBy("i").select(F.from_json("js", "a INT").alias("p")).collect()]
    nulls = Row(a=None)
    assert out == [None, None, None, nulls, nulls, nulls, nulls, nulls, Row(a=2)]
