"""Spark SQL's type names and aliases in SQL text, with Spark's defaults
(these run on both engines)."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from sparklet.sql import SparkSession

NAMES = [
    ("long", "bigint", 1),
    ("bigint", "bigint", 1),
    ("short", "smallint", 1),
    ("byte", "tinyint", 1),
    ("integer", "int", 1),
    ("real", "float", 1.0),
    ("string", "string", "1"),
    ("decimal", "decimal(10,0)", decimal.Decimal(1)),
    ("numeric", "decimal(10,0)", decimal.Decimal(1)),
    ("dec(5,2)", "decimal(5,2)", decimal.Decimal("1.00")),
    ("decimal(5,2)", "decimal(5,2)", decimal.Decimal("1.00")),
    ("binary", "binary", bytearray(b"1")),
]


@pytest.mark.parametrize(("name", "simple", "value"), NAMES, ids=[n for n, _, _ in NAMES])
def test_a_spark_type_name_casts_as_spark_does(spark: SparkSession, name: str, simple: str, value: object) -> None:
    df = spark.sql(f"SELECT CAST('1' AS {name}) AS x")
    assert df.schema.fields[0].dataType.simpleString() == simple
    assert df.collect()[0].x == value


def test_timestamp_is_the_session_zone_s_timestamp_and_ntz_is_local(spark: SparkSession) -> None:
    df = spark.sql(
        "SELECT CAST('2024-01-01 00:00:00' AS timestamp) AS a, CAST('2024-01-01 00:00:00' AS timestamp_ltz) AS b, "
        "CAST('2024-01-01 00:00:00' AS timestamp_ntz) AS c"
    )
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["timestamp", "timestamp", "timestamp_ntz"]
    assert df.collect()[0].c == dt.datetime(2024, 1, 1)


def test_nested_types_take_the_aliases(spark: SparkSession) -> None:
    df = spark.sql("SELECT CAST(NULL AS array<long>) AS a, CAST(NULL AS struct<x: short>) AS s")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["array<bigint>", "struct<x:smallint>"]
