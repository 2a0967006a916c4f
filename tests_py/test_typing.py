"""What an IDE and a type checker see in a user's script: concrete types
for the session's entry points, readers, writers and rows (mypy over a
script of ``assert_type`` checks; a wrong type fails it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sparklet_only(reason="type-checks sparklet's own annotations (PySpark ships its own)")

SCRIPT = """
from typing import assert_type

from sparklet.core.context import SparkContext
from sparklet.sql import Column, DataFrame, Row, SparkSession, functions as F
from sparklet.sql.readwriter import DataFrameReader, DataFrameWriter
from sparklet.sql.streaming.query import StreamingQuery, StreamingQueryManager
from sparklet.sql.streaming.readwriter import DataStreamReader, DataStreamWriter
from sparklet.sql.udf import UDFRegistration

spark = SparkSession.builder.appName("typed").getOrCreate()
assert_type(spark, SparkSession)
assert_type(spark.readStream, DataStreamReader)
assert_type(spark.readStream.schema("a INT"), DataStreamReader)
assert_type(spark.read, DataFrameReader)
assert_type(spark.streams, StreamingQueryManager)
assert_type(spark.udf, UDFRegistration)
assert_type(spark.sparkContext, SparkContext)
df = spark.range(3)
assert_type(df, DataFrame)
assert_type(df.head(), Row | None)
assert_type(df.head(2), list[Row])
assert_type(df.collect(), list[Row])
assert_type(df.write, DataFrameWriter)
assert_type(df.writeStream, DataStreamWriter)
assert_type(F.upper("a"), Column)
assert_type(F.sum("a"), Column)
assert_type(F.window("ts", "1 minute"), Column)
assert_type(spark.readStream.format("rate").load().writeStream.format("noop").start(), StreamingQuery)
"""


def test_a_typed_script_sees_concrete_types(tmp_path: Path) -> None:
    script = tmp_path / "typed_script.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
