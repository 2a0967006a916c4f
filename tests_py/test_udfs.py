"""Python UDFs on streams and batches: F.udf, F.pandas_udf (scalar and
grouped aggregate), spark.udf.register in SQL, mapInPandas and mapInArrow,
and what a failing function does."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from conftest import step
from sparklet.errors import PythonException, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.sql.types import IntegerType
from sparklet.testing import MemoryStream


def memory_query(df, name: str, mode: str = "append"):  # noqa: ANN001, ANN201
    return df.writeStream.outputMode(mode).format("memory").queryName(name).start()


def rows(spark: SparkSession, table: str, *order: str) -> list[tuple]:
    return [tuple(r) for r in spark.table(table).orderBy(*order).collect()]


def test_row_wise_udf_on_a_stream_sees_python_values_and_nulls(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, name STRING")

    @F.udf("string")
    def greet(name: str | None, n: int) -> str:
        return f"{name or 'nobody'}#{n}"

    shout = F.udf(lambda s: None if s is None else s.upper())  # default return type: string
    q = memory_query(ms.toDF().select("id", greet("name", "id").alias("g"), shout("name").alias("s")), "udf_rows")
    step(q, ms, [(1, "ann"), (2, None)])
    step(q, ms, [(3, "bo")])
    assert rows(spark, "udf_rows", "id") == [(1, "ann#1", "ANN"), (2, "nobody#2", None), (3, "bo#3", "BO")]


def test_pandas_udf_gets_series_and_a_struct_as_a_dataframe(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "a INT, b DOUBLE")

    @F.pandas_udf("double")
    def weighted(a: pd.Series, b: pd.Series) -> pd.Series:
        assert isinstance(a, pd.Series) and len(a) == len(b)
        return a * b

    @F.pandas_udf("long")
    def width(s: pd.DataFrame) -> pd.Series:
        return s["a"] * 10 + s.shape[1]  # the struct's fields are the frame's columns

    q = memory_query(
        ms.toDF().select("a", weighted("a", "b").alias("w"), width(F.struct("a", "b")).alias("n")), "udf_pd"
    )
    step(q, ms, [(1, 0.5), (2, 2.0), (3, None)])
    assert rows(spark, "udf_pd", "a") == [(1, 0.5, 12), (2, 4.0, 22), (3, None, 32)]


def test_grouped_aggregate_pandas_udf_in_a_batch_aggregation(spark: SparkSession) -> None:
    @F.pandas_udf("double")
    def median(v: pd.Series) -> float:
        return float(v.median())

    batch = spark.createDataFrame([("a", 1), ("a", 5), ("b", 2)], "k STRING, v INT")
    assert [tuple(r) for r in batch.groupBy("k").agg(median("v").alias("m")).orderBy("k").collect()] == [
        ("a", 3.0),
        ("b", 2.0),
    ]


@pytest.mark.sparklet_only(
    reason="Spark refuses grouped-aggregate pandas UDFs in streaming aggregations (its planner: 'Streaming "
    "aggregation doesn't support group aggregate pandas UDF'); sparklet keeps each group's values in state"
)
def test_grouped_aggregate_pandas_udf_in_a_streaming_aggregation(spark: SparkSession, state_provider: str) -> None:
    @F.pandas_udf("double")
    def median(v: pd.Series) -> float:
        return float(v.median())

    ms = MemoryStream(spark, "k STRING, v INT")
    q = memory_query(ms.toDF().groupBy("k").agg(median("v").alias("m")), "udaf_stream", "complete")
    step(q, ms, [("a", 1), ("a", 5), ("b", 2)])
    step(q, ms, [("a", 9), ("a", 10)])  # the state holds a's values: median of 1, 5, 9, 10
    assert rows(spark, "udaf_stream", "k") == [("a", 7.0), ("b", 2.0)]


def test_registered_udf_in_sql_over_a_streaming_view_equals_the_dataframe_api(spark: SparkSession) -> None:
    plus = spark.udf.register("plus_ten", lambda x: x + 10, IntegerType())
    ms = MemoryStream(spark, "id INT")
    ms.toDF().createOrReplaceTempView("udf_ids")
    by_sql = spark.sql("SELECT id, plus_ten(id) AS p FROM udf_ids WHERE plus_ten(id) > 11")
    by_api = ms.toDF().select("id", plus("id").alias("p")).where("p > 11")
    assert by_sql.isStreaming
    q1, q2 = memory_query(by_sql, "udf_sql"), memory_query(by_api, "udf_api")
    ms.addData([(1,), (2,), (3,)])
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert rows(spark, "udf_sql", "id") == rows(spark, "udf_api", "id") == [(2, 12), (3, 13)]


def test_map_in_pandas_and_arrow_on_a_stream_change_rows_and_columns(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")

    def long_words(frames):  # noqa: ANN001, ANN202
        for pdf in frames:
            kept = pdf[pdf.word.str.len() > 2]
            yield pd.DataFrame({"word": kept.word.str.upper(), "n": kept.word.str.len()})

    def doubled(batches):  # noqa: ANN001, ANN202
        for b in batches:
            yield pa.record_batch({"id": pa.concat_arrays([b["id"], b["id"]])})

    q1 = memory_query(ms.toDF().mapInPandas(long_words, "word STRING, n LONG"), "map_pd")
    q2 = memory_query(ms.toDF().mapInArrow(doubled, "id INT"), "map_arrow")
    ms.addData([(1, "ab"), (2, "abc"), (3, "abcd")])
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert rows(spark, "map_pd", "word") == [("ABC", 3), ("ABCD", 4)]
    assert rows(spark, "map_arrow", "id") == [(1,), (1,), (2,), (2,), (3,), (3,)]


def test_a_failing_udf_stops_the_query_with_its_traceback(spark: SparkSession) -> None:
    def parse(s: str) -> int:
        return int(s)  # fails on "x"

    ms = MemoryStream(spark, "s STRING")
    q = ms.toDF().select(F.udf(parse, "int")("s")).writeStream.format("noop").start()
    ms.addData([("1",), ("x",)])
    with pytest.raises(StreamingQueryException) as e:
        q.processAllAvailable()
    text = str(e.value)
    assert "ValueError: invalid literal for int() with base 10: 'x'" in text
    assert "in parse" in text and "return int(s)" in text
    assert not q.isActive


def test_a_batch_action_raises_a_python_exception_with_the_udf_s_traceback(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,), (0,)], "d INT")
    with pytest.raises(PythonException) as err:
        df.select(F.udf(lambda d: 1 // d, "int")("d")).collect()
    assert err.value.getCondition() == "PYTHON_EXCEPTION"
    text = str(err.value)
    assert text.startswith("An exception was thrown from the Python worker:\nTraceback (most recent call last):")
    assert "ZeroDivisionError: integer division or modulo by zero" in text


def test_pandas_udf_returning_the_wrong_length_is_named(spark: SparkSession) -> None:
    @F.pandas_udf("long")
    def doubled(v: pd.Series) -> pd.Series:
        return pd.concat([v, v])

    df = spark.createDataFrame([(1,)], "v LONG")  # one row: one batch however the rows are split
    with pytest.raises(
        PythonException,
        match=r"RESULT_ROWS_MISMATCH\] The number of output rows \(2\) must match the number of input rows \(1\)",
    ):
        df.select(doubled("v")).collect()


def test_map_in_pandas_with_columns_other_than_declared_is_an_error(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,)], "v INT")
    with pytest.raises(PythonException, match=r"RESULT_COLUMN_NAMES_MISMATCH\] .* Missing: v\. Unexpected: v2\."):
        df.mapInPandas(lambda frames: (f.rename(columns={"v": "v2"}) for f in frames), "v INT").collect()


def test_a_udf_gets_values_as_collect_gives_them(spark: SparkSession) -> None:
    """Timestamps naive, structs as Rows, maps as dicts, arrays as lists (as PySpark's UDFs get them)."""
    import datetime as dt

    df = spark.sql(
        "SELECT timestamp'2024-01-01 12:00:00' AS ts, named_struct('a', 1, 'b', 'x') AS s, "
        "map('k', 2) AS m, array(timestamp'2024-01-02 00:00:00') AS a"
    )

    @F.udf("string")
    def kinds(ts, s, m, a):  # noqa: ANN001, ANN202
        return "|".join(
            [
                f"{ts.isoformat()} aware={ts.tzinfo is not None}",
                f"{type(s).__name__} a={s.a} b={s['b']}",
                f"{type(m).__name__} {sorted(m.items())}",
                f"{type(a).__name__} {a[0].isoformat()} aware={a[0].tzinfo is not None}",
            ]
        )

    assert df.select(kinds("ts", "s", "m", "a").alias("k")).first().k == (
        "2024-01-01T12:00:00 aware=False|Row a=1 b=x|dict [('k', 2)]|list 2024-01-02T00:00:00 aware=False"
    )
    assert df.first().ts == dt.datetime(2024, 1, 1, 12, 0)


def test_a_udf_takes_named_arguments_and_is_named_as_called(spark: SparkSession) -> None:
    @F.udf(returnType="int")
    def calc(a, b):  # noqa: ANN001, ANN202
        return a + 10 * b

    out = spark.range(2).select(calc(b=F.col("id") * 10, a=F.col("id")), calc(F.col("id"), b=F.lit(1)).alias("x"))
    assert out.columns == ["calc(b => (id * 10), a => id)", "x"]
    assert [tuple(r) for r in out.collect()] == [(0, 10), (101, 11)]
