"""Shared fixtures: one session for the test run; queries stopped after each test."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sparklet.sql import SparkSession
from sparklet.testing import MemoryStream


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    s = SparkSession.builder.appName("tests").getOrCreate()
    yield s
    s.stop()


PROVIDER = "spark.sql.streaming.stateStore.providerClass"
# Spark's class names (sparklet also takes "hdfs" and "rocksdb"), so that the
# tests run on PySpark too (pytest --engine=pyspark)
PROVIDER_CLASSES = {
    "hdfs": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
}


@pytest.fixture(params=["hdfs", "rocksdb"])
def state_provider(request: pytest.FixtureRequest, spark: SparkSession) -> Iterator[str]:
    """Run a stateful test once on each state store provider."""
    spark.conf.set(PROVIDER, PROVIDER_CLASSES[request.param])
    yield request.param
    spark.conf.unset(PROVIDER)


@pytest.fixture(autouse=True)
def _stop_queries(spark: SparkSession) -> Iterator[None]:
    yield
    for q in spark.streams.active:
        q.stop()
    spark.streams.resetTerminated()


@contextmanager
def conf_set(spark: SparkSession, key: str, value: str) -> Iterator[None]:
    """``key`` set to ``value`` for the block, then as it was (PySpark's
    unset falls back to Spark's default, not to the session's setting)."""
    before = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def write_json(folder: Path, name: str, rows: list[dict]) -> Path:
    """Write JSON lines atomically (as a well-behaved producer does)."""
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    target = folder / name
    tmp.rename(target)
    return target


@pytest.fixture()
def short_batches(spark: SparkSession) -> Iterator[None]:
    """Allow real-time batches shorter than Spark's 5 s minimum."""
    key = "spark.sql.streaming.realTimeMode.minBatchDuration"
    spark.conf.set(key, "100")
    yield
    spark.conf.unset(key)


@pytest.fixture()
def memory_sink_in_real_time(spark: SparkSession) -> Iterator[None]:
    """Let real-time mode write to the memory sink, which Spark's allowlist
    leaves out (``spark.sql.streaming.realTimeMode.allowlistCheck``)."""
    key = "spark.sql.streaming.realTimeMode.allowlistCheck"
    spark.conf.set(key, "false")
    yield
    spark.conf.unset(key)


def log_entries(ckpt: Path, log: str) -> list[int]:
    """The batch ids a checkpoint's ``offsets`` or ``commits`` log holds."""
    folder = ckpt / log
    return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit()) if folder.exists() else []


def step(q, ms: MemoryStream, rows: list) -> None:  # noqa: ANN001
    """Add rows to a memory stream and wait until the query processed them."""
    ms.addData(rows)
    q.processAllAvailable()


def add_and_wait(ms: MemoryStream, rows: list, out: Batches, batches: int) -> None:
    """Add rows and wait until ``out`` holds ``batches`` batches: for queries
    that never go idle in Spark (a processor in processing time runs a batch
    on every trigger, so ``processAllAvailable`` would not return there)."""
    ms.addData(rows)
    wait_until(lambda: len(out.batches) >= batches)


def op(q) -> dict:  # noqa: ANN001
    """The last progress's first stateful operator entry."""
    return q.lastProgress["stateOperators"][0]


def dicts(batch) -> list[dict]:  # noqa: ANN001
    """A foreachBatch batch's rows as dicts: sparklet hands a pyarrow.Table,
    PySpark a DataFrame (pytest --engine=pyspark)."""
    if hasattr(batch, "to_pylist"):
        return batch.to_pylist()
    # PySpark's rows hold naive datetimes in the session's zone (UTC here);
    # the Arrow table's are UTC-aware
    utc = dt.UTC

    def aware(v: object) -> object:
        return v.replace(tzinfo=utc) if isinstance(v, dt.datetime) and v.tzinfo is None else v

    return [{k: aware(v) for k, v in r.asDict().items()} for r in batch.collect()]


class Batches:
    """foreachBatch target: each non-empty batch's rows as sorted tuples."""

    def __init__(self) -> None:
        self.batches: list[list[tuple]] = []

    def __call__(self, table, batch_id: int) -> None:  # noqa: ANN001
        rows = dicts(table)
        if rows:
            self.batches.append(sorted(tuple(r.values()) for r in rows))


def wait_until(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Wait (bounded) for something a query does on its own, such as a
    batch a timer runs; the test's assertions follow."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


SPARK_CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local Spark Connect server (PySpark's), stopped by its PID; one for
    the run (it takes seconds to start)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    port = free_port()
    log = tmp_path_factory.mktemp("connect") / "server.log"
    command = [
        str(home / "bin" / "spark-submit"),
        "--master",
        "local[2]",
        "--class",
        SPARK_CONNECT_SERVER,
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
