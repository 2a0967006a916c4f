"""``SparkSession.builder.remote()``: the same script runs on Apache Spark
through Spark Connect by changing its builder line.

The test starts PySpark's own Spark Connect server (a JVM: PySpark with its
jars and Java are test dependencies) on 127.0.0.1, runs one script twice,
on sparklet and through ``.remote(...)``, checks both results, and stops the
server by its PID."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import write_json

# a user's script; only the builder line differs between the two runs
SCRIPT = """
import json, sys
from sparklet.sql import SparkSession, functions as F
from sparklet.sql.types import StringType, StructField, StructType, TimestampType

spark = SparkSession.builder{remote}.appName("clicks").config("spark.sql.session.timeZone", "UTC").getOrCreate()
schema = StructType([StructField("ts", TimestampType()), StructField("page", StringType())])
q = (
    spark.readStream.schema(schema).json(sys.argv[1])
    .withWatermark("ts", "10 seconds")
    .groupBy(F.window("ts", "1 minute"), "page").count()
    .writeStream.outputMode("complete").format("memory").queryName("clicks")
    .option("checkpointLocation", sys.argv[2])
    .trigger(availableNow=True)
    .start()
)
q.awaitTermination()
rows = spark.table("clicks").select(F.col("window.start").cast("string").alias("start"), "page", "count").collect()
print(json.dumps({{"engine": type(spark).__module__, "rows": sorted([r.start, r.page, r["count"]] for r in rows)}}))
spark.stop()
"""


def run_script(tmp_path: Path, name: str, remote: str, inputs: Path) -> dict:
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPT.format(remote=remote))
    done = subprocess.run(
        [sys.executable, str(script), str(inputs), str(tmp_path / f"ckpt-{name}")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_same_script_runs_on_spark_through_remote(tmp_path: Path, connect_url: str) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    write_json(
        inputs,
        "a.json",
        [
            {"ts": "2024-01-01T00:00:05Z", "page": "home"},
            {"ts": "2024-01-01T00:00:30Z", "page": "home"},
            {"ts": "2024-01-01T00:00:40Z", "page": "cart"},
        ],
    )
    write_json(
        inputs,
        "b.json",
        [{"ts": "2024-01-01T00:01:10Z", "page": "home"}, {"ts": "2024-01-01T00:01:20Z", "page": "home"}],
    )
    expected = [
        ["2024-01-01 00:00:00", "cart", 1],
        ["2024-01-01 00:00:00", "home", 2],
        ["2024-01-01 00:01:00", "home", 2],
    ]
    local = run_script(tmp_path, "local", "", inputs)
    remote = run_script(tmp_path, "remote", f".remote({connect_url!r})", inputs)
    assert local == {"engine": "sparklet.sql.session", "rows": expected}
    # PySpark's Spark Connect session ran it, with the same answer
    assert remote["engine"].startswith("pyspark.sql.connect"), remote
    assert remote["rows"] == expected


def test_remote_without_pyspark_names_the_extra_to_install(tmp_path: Path) -> None:
    # an interpreter where PySpark cannot be imported
    blocker = tmp_path / "pyspark"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('no PySpark here')\n")
    code = (
        "from sparklet.sql import SparkSession\n"
        "try:\n"
        "    SparkSession.builder.remote('sc://127.0.0.1:1').getOrCreate()\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)}
    )
    assert "pip install 'sparklet[connect]'" in done.stdout, done.stdout + done.stderr
    assert "sc://127.0.0.1:1" in done.stdout
