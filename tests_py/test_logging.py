"""What the engine logs, through Python's ``logging``: loggers under
``sparklet.engine``, INFO lines for a query's start, each batch, state the
watermark evicted, checkpoint clean-up and the stop, and ``setLogLevel``
deciding what reaches a handler (printing to stderr when nothing else is
configured, as Spark's console log does)."""

from __future__ import annotations

import datetime as dt
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import step, wait_until
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

pytestmark = pytest.mark.sparklet_only(reason="sparklet's engine log lines (PySpark's go to log4j in the JVM)")


def test_info_lines_follow_a_query(spark: SparkSession, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    previous = logging.getLogger("sparklet").level
    spark.conf.set("spark.sql.streaming.minBatchesToRetain", "2")
    spark.sparkContext.setLogLevel("INFO")
    try:
        with caplog.at_level(logging.INFO, logger="sparklet"):
            ms = MemoryStream(spark, "ts TIMESTAMP, k STRING")
            counts = ms.toDF().withWatermark("ts", "1 second").groupBy(F.window("ts", "1 second"), "k").count()
            q = (
                counts.writeStream.outputMode("append")
                .format("memory")
                .queryName("logged")
                .option("checkpointLocation", str(tmp_path / "ckpt"))
                .start()
            )
            t0 = dt.datetime(2024, 1, 1)
            for i in range(12):
                step(q, ms, [(t0 + dt.timedelta(seconds=5 * i), "a")])
            wait_until(lambda: any(r.name == "sparklet.engine.checkpoint" for r in caplog.records))
            q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.minBatchesToRetain")
        spark.sparkContext.setLogLevel(logging.getLevelName(previous) if previous else "WARN")
    lines = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert not [n for n, _, _ in lines if n.startswith("sparklet.sparklet_engine")]
    query = [m for n, level, m in lines if n == "sparklet.engine.query" and level == "INFO"]
    assert query[0].startswith(f"query logged started (id {q.id}")
    assert any(m.startswith("query logged batch 0 planned, run and committed: 1 input rows in") for m in query)
    assert any("watermark 2024-01-01T00:00:04.000Z" in m for m in query)
    assert query[-1] == f"query {q.id} stopped (runId {q.runId})"
    evicted = [m for n, _, m in lines if n == "sparklet.engine.state"]
    assert any("state rows evicted by operator 0" in m for m in evicted)
    cleaned = [m for n, _, m in lines if n == "sparklet.engine.checkpoint"]
    assert "offsets and commits entries before batch" in cleaned[0] and str(tmp_path / "ckpt") in cleaned[0]


def test_set_log_level_info_prints_to_stderr_when_logging_is_not_configured(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "1.txt").write_text("a line\n")
    script = (
        "from sparklet.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "spark.sparkContext.setLogLevel('INFO')\n"
        "q = spark.readStream.text('in').writeStream.format('noop').trigger(availableNow=True).start()\n"
        "q.awaitTermination()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert " INFO sparklet.engine.query: query " in done.stderr and " started (id " in done.stderr
    quiet = subprocess.run(
        [sys.executable, "-c", script.replace("setLogLevel('INFO')", "setLogLevel('WARN')")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert "INFO" not in quiet.stderr
