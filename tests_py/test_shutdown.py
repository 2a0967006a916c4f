"""Stopping never hangs for good on a callback that does not return:
``q.stop()`` honours ``spark.sql.streaming.stopTimeout``, interpreter exit
waits a bounded time, and a listener that never returns neither blocks the
query nor holds its events without bound (sparklet-only: how PySpark
reports a stop timeout is the JVM's ``TimeoutException``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import conf_set
from sparklet.sql import SparkSession
from sparklet.sql.streaming import StreamingQueryListener

pytestmark = pytest.mark.sparklet_only(reason="how PySpark reports a stop timeout is the JVM's TimeoutException")

STOP_TIMEOUT = "spark.sql.streaming.stopTimeout"


@pytest.fixture()
def stop_timeout(spark: SparkSession) -> Iterator[None]:
    with conf_set(spark, STOP_TIMEOUT, "300"):
        yield


@pytest.mark.usefixtures("stop_timeout")
def test_stop_of_a_query_whose_callback_blocks_times_out_and_the_query_ends_later(spark: SparkSession) -> None:
    entered, release = threading.Event(), threading.Event()

    def blocked(table, batch_id: int) -> None:  # noqa: ANN001
        entered.set()
        release.wait(60)

    q = spark.readStream.format("rate").option("rowsPerSecond", 10).load().writeStream.foreachBatch(blocked).start()
    assert entered.wait(30)
    t = time.monotonic()
    with pytest.raises(
        TimeoutError, match=r"failed to stop within 300 milliseconds \(specified by spark.sql.streaming.stopTimeout\)"
    ):
        q.stop()
    assert time.monotonic() - t < 5
    assert q.isActive  # still in the callback
    release.set()
    assert q.awaitTermination(30)  # it stops at its next step
    assert not q.isActive


EXITING = textwrap.dedent(
    """
    import threading, time
    from sparklet.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    entered = threading.Event()
    def busy(table, batch_id):
        entered.set()
        time.sleep(600)
    q = spark.readStream.format("rate").load().writeStream.foreachBatch(busy).start()
    entered.wait(30)
    print("busy", flush=True)
    # the script ends here, with the callback still running
    """
)


def test_the_interpreter_exits_while_a_callback_is_busy(tmp_path: Path) -> None:
    t = time.monotonic()
    out = subprocess.run([sys.executable, "-c", EXITING], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "busy"
    assert time.monotonic() - t < 60  # bounded: the exit waits 10 s for the query, not for the callback
    assert "Fatal Python error" not in out.stderr


def test_a_listener_that_never_returns_does_not_hold_up_the_query(spark: SparkSession) -> None:
    release = threading.Event()
    calls: list[int] = []

    class Stuck(StreamingQueryListener):
        def onQueryStarted(self, event) -> None:  # noqa: ANN001
            pass

        def onQueryProgress(self, event) -> None:  # noqa: ANN001
            calls.append(event.progress.batchId)
            release.wait(60)

        def onQueryIdle(self, event) -> None:  # noqa: ANN001
            pass

        def onQueryTerminated(self, event) -> None:  # noqa: ANN001
            pass

    listener = Stuck()
    spark.streams.addListener(listener)
    try:
        q = (
            spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", 10)
            .load()
            .writeStream.format("noop")
            .trigger(processingTime="10 milliseconds")
            .start()
        )
        deadline = time.monotonic() + 30
        while (q.lastProgress is None or q.lastProgress["batchId"] < 20) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert q.lastProgress["batchId"] >= 20  # batches go on while the listener is stuck in the first
        assert calls == [calls[0]]
        q.stop()
    finally:
        release.set()
        spark.streams.removeListener(listener)


DAEMON_STOP = textwrap.dedent(
    """
    import threading, time
    from sparklet.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    def slow(table, batch_id):
        time.sleep(0.3)
    q = spark.readStream.format("rate").load().writeStream.foreachBatch(slow).start()
    q.processAllAvailable()
    threading.Thread(target=q.stop, daemon=True).start()
    time.sleep(0.05)
    print("exiting", flush=True)
    # the main thread ends while the daemon thread waits in stop()
    """
)


def test_the_interpreter_exits_cleanly_while_a_daemon_thread_waits_in_stop() -> None:
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", DAEMON_STOP], capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "exiting"
        assert "Fatal Python error" not in out.stderr, out.stderr[-2000:]
        assert out.returncode == 0, out.stderr[-2000:]
