"""SparkSession: builder, conf, createDataFrame, SQL, views."""

from __future__ import annotations

import datetime
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sparklet.errors import AnalysisException, PySparkTypeError, PySparkValueError, SparkNoSuchElementException
from sparklet.sql import Row, SparkSession
from sparklet.sql.types import LongType, StringType


def test_builder_returns_the_active_session_with_config(spark: SparkSession) -> None:
    s = SparkSession.builder.appName("again").master("local[2]").config("spark.sql.shuffle.partitions", 4).getOrCreate()
    assert s is spark
    assert s.conf.get("spark.sql.shuffle.partitions") == "4"
    assert s.conf.get("spark.app.name") == "again"
    assert s.version == "4.3.0"  # the PySpark release whose API sparklet follows
    assert s.sparkContext.version == "4.3.0"
    assert SparkSession.getActiveSession() is spark


def test_conf_get_set_unset(spark: SparkSession) -> None:
    spark.conf.set("my.key", True)
    assert spark.conf.get("my.key") == "true"
    spark.conf.unset("my.key")
    assert spark.conf.get("my.key", None) is None
    assert spark.conf.get("spark.sql.streaming.numRecentProgressUpdates") == "100"
    with pytest.raises(SparkNoSuchElementException, match="SQL_CONF_NOT_FOUND"):
        spark.conf.get("no.such.key")


def test_conf_get_of_spark_s_own_unset_settings_is_their_default(spark: SparkSession) -> None:
    assert spark.conf.get("spark.sql.execution.arrow.pyspark.enabled") == "true"
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"
    assert spark.conf.get("spark.sql.streaming.stopTimeout") == "0ms"
    assert spark.conf.get("spark.sql.streaming.checkpointLocation") is None  # no default
    assert spark.conf.get("spark.sql.ansi.enabled", "false") == "false"  # a given default wins


def test_create_dataframe_takes_tuples_lists_and_dicts_as_struct_values(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(1, (2, "x")), (2, [3, "y"]), (3, {"b": 4, "c": "z"}), (4, None)], "a INT, s STRUCT<b: INT, c: STRING>"
    )
    assert [(r.a, None if r.s is None else (r.s.b, r.s.c)) for r in df.collect()] == [
        (1, (2, "x")),
        (2, (3, "y")),
        (3, (4, "z")),
        (4, None),
    ]


def test_create_dataframe_from_tuples_with_ddl(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a"), (2, None)], "id INT, name STRING")
    assert df.dtypes == [("id", "int"), ("name", "string")]
    assert df.collect() == [Row(id=1, name="a"), Row(id=2, name=None)]
    assert not df.isStreaming


def test_create_dataframe_infers_types_like_pyspark(spark: SparkSession) -> None:
    ts = datetime.datetime(2026, 11, 29, 10, 0, 0)
    df = spark.createDataFrame([Row(n=1, x=1.5, s="a", b=True, t=ts)])
    assert df.dtypes == [("n", "bigint"), ("x", "double"), ("s", "string"), ("b", "boolean"), ("t", "timestamp")]
    assert df.collect()[0].t == ts
    df2 = spark.createDataFrame([{"k": "a", "v": 1}, {"k": "b", "v": 2}])
    assert df2.columns == ["k", "v"]
    df3 = spark.createDataFrame([(1, "x")], ["num", "letter"])
    assert df3.schema["num"].dataType == LongType() and df3.schema["letter"].dataType == StringType()


def test_create_dataframe_from_pandas_and_arrow(spark: SparkSession) -> None:
    pdf = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    assert spark.createDataFrame(pdf).count() == 3
    assert spark.createDataFrame(pdf, "a INT, b STRING").dtypes == [("a", "int"), ("b", "string")]
    table = pa.table({"v": [1.0, 2.0]})
    df = spark.createDataFrame(table)
    assert df.toArrow().column("v").to_pylist() == [1.0, 2.0]
    out = df.toPandas()
    assert list(out["v"]) == [1.0, 2.0]


def test_create_dataframe_rejects_values_of_the_wrong_type(spark: SparkSession) -> None:
    with pytest.raises(PySparkTypeError, match="field id"):
        spark.createDataFrame([("not a number",)], "id INT")
    with pytest.raises(PySparkValueError, match="CANNOT_DETERMINE_TYPE"):
        spark.createDataFrame([(None,)])


def test_sql_over_temp_views_and_table(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id INT, name STRING").createOrReplaceTempView("people")
    out = spark.sql("SELECT name FROM people WHERE id >= 2 ORDER BY id").collect()
    assert [r.name for r in out] == ["b", "c"]
    assert spark.table("people").count() == 3
    assert spark.catalog.tableExists("people")
    assert spark.catalog.dropTempView("people") is True
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table("people")


def test_range(spark: SparkSession) -> None:
    assert [r.id for r in spark.range(3).collect()] == [0, 1, 2]
    assert [r.id for r in spark.range(2, 8, 3).collect()] == [2, 5]


def test_binary_values_collect_as_bytes(spark: SparkSession) -> None:
    (row,) = spark.createDataFrame([(b"hi", [b"x"])], "b BINARY, a ARRAY<BINARY>").collect()
    assert type(row.b) is bytes and row.b == b"hi" and type(row.a[0]) is bytes


def test_collect_gives_each_type_its_python_value_and_nulls_as_none(spark: SparkSession) -> None:
    """Columns are converted whole (numpy for numbers, strings and times, a
    struct field by field): values, nulls and nested structs as PySpark's rows."""
    values = {
        "l": "CAST(9223372036854775807 AS BIGINT)",
        "f": "CAST(1.1 AS FLOAT)",
        "nan": "CAST('NaN' AS DOUBLE)",
        "b": "true",
        "s": "'é😀'",
        "bin": "X'00FF'",
        "d": "DATE'2024-02-29'",
        "ts": "TIMESTAMP'1969-12-31 23:59:59.999999'",
        "st": "named_struct('t', TIMESTAMP'2024-02-29 12:34:56.5', 'n', named_struct('v', CAST(NULL AS INT)))",
        "m": "map('k', 1)",
        "a": "array(1, NULL)",
    }
    # each column null in the second row
    columns = ", ".join(f"CASE WHEN id = 1 THEN {v} END AS {k}" for k, v in values.items())
    rows = spark.sql(f"SELECT id, {columns} FROM VALUES (1), (2) AS t(id) ORDER BY id").collect()
    first, second = rows
    assert first.l == 9223372036854775807 and type(first.l) is int
    assert first.f == 1.100000023841858 and math.isnan(first.nan)
    assert first.b is True and first.s == "é😀" and first.bin == b"\x00\xff"
    assert first.d == datetime.date(2024, 2, 29)
    assert first.ts == datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert first.st == Row(t=datetime.datetime(2024, 2, 29, 12, 34, 56, 500000), n=Row(v=None))
    assert first.st.t.tzinfo is None and first.st.n.v is None
    assert first.m == {"k": 1} and first.a == [1, None]
    assert list(second) == [2] + [None] * 11


def test_global_temp_views_are_seen_by_every_session_temp_views_by_one(spark: SparkSession) -> None:
    """As in Spark, a global temporary view belongs to the application (every
    session reads it as global_temp.name), a temporary view to its session."""
    spark.range(3).createOrReplaceGlobalTempView("shared_ids")
    spark.range(2).createOrReplaceTempView("own_ids")
    other = spark.newSession()
    assert other.table("global_temp.shared_ids").count() == 3
    assert other.sql("SELECT count(*) AS n FROM global_temp.shared_ids").first().n == 3
    with pytest.raises(AnalysisException):
        other.table("own_ids")
    assert spark.catalog.dropGlobalTempView("shared_ids")
    with pytest.raises(AnalysisException):
        other.table("global_temp.shared_ids")


def test_is_local_only_for_rows_held_as_they_are(spark: SparkSession) -> None:
    """isLocal as Spark answers it: pandas and Arrow data and a catalog
    statement's result are local relations; a list's rows (which Spark
    distributes) and anything computed are not."""
    local = spark.createDataFrame(pd.DataFrame({"n": [1, 2]}))
    assert local.isLocal()
    assert spark.createDataFrame(pa.table({"n": [1]})).isLocal()
    assert spark.sql("SHOW TABLES").isLocal()
    assert not local.filter("n > 1").isLocal()
    assert not spark.createDataFrame([(1,)], "n INT").isLocal()
    assert not spark.range(3).isLocal()


@pytest.mark.sparklet_only(reason="sparklet's foreachBatch hands a pyarrow Table; PySpark's a DataFrame")
def test_a_foreach_batch_callback_wrapping_its_batch_leaves_pandas_unimported(tmp_path: Path) -> None:
    # the callback's createDataFrame must not pay pandas' import (~0.4 s)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"n": 1}\n{"n": 2}\n{"n": 3}\n')
    code = f"""
import sys
from sparklet.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
sums = []
def each(batch, batch_id):
    sums.append(spark.createDataFrame(batch).agg({{"n": "sum"}}).collect()[0][0])
q = (spark.readStream.schema("n BIGINT").json({str(tmp_path / "in")!r}).writeStream
     .foreachBatch(each).option("checkpointLocation", {str(tmp_path / "ckpt")!r})
     .trigger(availableNow=True).start())
q.awaitTermination()
print(sums, "pandas" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[6]", "False"]
