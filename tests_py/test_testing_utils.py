"""sparklet.testing: assertDataFrameEqual / assertSchemaEqual as in
pyspark.testing, and the pytest plugin's fixture and query cleanup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from sparklet.errors import PySparkAssertionError
from sparklet.sql import Row, SparkSession
from sparklet.sql.types import IntegerType, LongType, StringType, StructField, StructType
from sparklet.testing import assertDataFrameEqual, assertSchemaEqual


def test_equal_rows_in_any_order_with_float_tolerance(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a", 0.1 + 0.2), (2, "b", None)], "id INT, s STRING, x DOUBLE")
    assertDataFrameEqual(df, [Row(id=2, s="b", x=None), Row(id=1, s="a", x=0.3)])
    assertDataFrameEqual(df, spark.createDataFrame([(2, "b", None), (1, "a", 0.3)], "id INT, s STRING, x DOUBLE"))


@pytest.mark.sparklet_only(
    reason="PySpark 4.3 fails on its own here (AttributeError: PandasOnSparkTestUtils has no assertAlmostEqual)"
)
def test_a_pandas_dataframe_is_compared_with_float_tolerance(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a", 0.1 + 0.2), (2, "b", None)], "id INT, s STRING, x DOUBLE")
    assertDataFrameEqual(df, pd.DataFrame({"id": [1, 2], "s": ["a", "b"], "x": [0.3, None]}))


def test_a_pandas_result_is_compared_with_pandas_only(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1.0)], "k STRING, v DOUBLE")
    assertDataFrameEqual(df.toPandas(), pd.DataFrame({"k": ["a"], "v": [1.0 + 1e-9]}))
    two = pd.DataFrame({"k": ["a", "b"], "v": [1.0, 2.0]})
    with pytest.raises(PySparkAssertionError) as in_order:  # pandas rows compare in order
        assertDataFrameEqual(two, two.iloc[::-1].reset_index(drop=True))
    assert in_order.value.getCondition() == "DIFFERENT_PANDAS_DATAFRAME"
    with pytest.raises(PySparkAssertionError) as raised:
        assertDataFrameEqual(df.toPandas(), [Row(k="a", v=1.0)])
    assert raised.value.getCondition() == "INVALID_TYPE_DF_EQUALITY_ARG"


def test_different_rows_are_shown(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, s STRING")
    with pytest.raises(PySparkAssertionError, match=r"DIFFERENT_ROWS\] Results do not match: \( 50.00000 % \)") as e:
        assertDataFrameEqual(df, [Row(id=1, s="a"), Row(id=2, s="c")])
    assert "Row(id=2, s='b')" in str(e.value) and "Row(id=2, s='c')" in str(e.value)
    assert e.value.getCondition() == "DIFFERENT_ROWS"
    with pytest.warns(FutureWarning, match="use getCondition instead"):
        assert e.value.getErrorClass() == "DIFFERENT_ROWS"
    with pytest.raises(PySparkAssertionError, match="DIFFERENT_ROWS"):
        assertDataFrameEqual(df, [Row(id=2, s="b"), Row(id=1, s="a")], checkRowOrder=True)
    with pytest.raises(AssertionError):  # a plain assertion failure to pytest
        assertDataFrameEqual(df, [Row(id=1, s="a")])


def test_dataframes_must_share_a_schema_unless_types_are_ignored(spark: SparkSession) -> None:
    ints = spark.createDataFrame([(1,)], "v INT")
    longs = spark.createDataFrame([(1,)], "v BIGINT")
    with pytest.raises(PySparkAssertionError, match="DIFFERENT_SCHEMA"):
        assertDataFrameEqual(ints, longs)
    assertDataFrameEqual(ints, longs, ignoreColumnType=True)


def test_schemas_compared_with_pysparks_options() -> None:
    a = StructType([StructField("id", IntegerType(), False), StructField("s", StringType())])
    b = StructType([StructField("s", StringType()), StructField("id", IntegerType(), True)])
    assertSchemaEqual(a, b, ignoreColumnOrder=True)
    with pytest.raises(PySparkAssertionError, match="DIFFERENT_SCHEMA"):
        assertSchemaEqual(a, b)
    with pytest.raises(PySparkAssertionError, match="DIFFERENT_SCHEMA"):
        assertSchemaEqual(a, b, ignoreColumnOrder=True, ignoreNullable=False)
    with pytest.raises(PySparkAssertionError, match="DIFFERENT_SCHEMA"):
        assertSchemaEqual(a, StructType([StructField("id", LongType()), StructField("s", StringType())]))


PLUGIN_TESTS = """
from sparklet.testing import MemoryStream


def test_leaves_a_query_running(spark):
    ms = MemoryStream(spark, "v INT")
    ms.toDF().writeStream.format("noop").queryName("left_running").start()
    assert [q.name for q in spark.streams.active] == ["left_running"]


def test_starts_clean(spark):
    assert spark.streams.active == []
"""


def test_pytest_plugin_gives_a_spark_fixture_and_stops_left_queries(tmp_path: Path) -> None:
    (tmp_path / "test_pipeline.py").write_text(PLUGIN_TESTS)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_pipeline.py")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout
