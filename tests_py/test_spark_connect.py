"""``SparkSession.builder.remote()``: the same script runs on Apache Spark
through Spark Connect by changing its builder line.

The test starts PySpark's own Spark Connect server (a JVM: PySpark with its
jars and Java are test dependencies) on 127.0.0.1, runs one script twice,
on sparklet and through ``.remote(...)``, checks both results, and stops the
server by its PID."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import write_json

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local Spark Connect server (PySpark's), stopped by its PID."""
    import pyspark

    home = Path(pyspark.__file__).parent
    port = free_port()
    log = tmp_path_factory.mktemp("connect") / "server.log"
    command = [
        str(home / "bin" / "spark-submit"),
        "--master",
        "local[2]",
        "--class",
        SERVER_CLASS,
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",
        "spark-internal",
    ]
    env = {**os.environ, "SPARK_HOME": str(home), "PYSPARK_PYTHON": sys.executable}
    with open(log, "wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            if server.poll() is not None:
                pytest.fail(f"the Spark Connect server exited ({server.returncode}):\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the Spark Connect server did not listen within 180 s:\n{log.read_text()[-3000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.25)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


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
