"""StreamingQueryListener: events, their order and content, and a bus that never blocks a query."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from conftest import wait_until
from sparklet.sql import SparkSession
from sparklet.sql.streaming import StreamingQueryListener
from sparklet.testing import MemoryStream


class Recorder(StreamingQueryListener):
    """Every event, as (kind, details)."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def onQueryStarted(self, event: Any) -> None:  # noqa: ANN401
        # ids are UUIDs on events, as in PySpark; q.id is their string
        self.events.append(("started", str(event.id), str(event.runId), event.name, event.timestamp))

    def onQueryProgress(self, event: Any) -> None:  # noqa: ANN401
        p = event.progress
        self.events.append(("progress", str(p.id), p.batchId, p.numInputRows))

    def onQueryIdle(self, event: Any) -> None:  # noqa: ANN401
        self.events.append(("idle", str(event.id)))

    def onQueryTerminated(self, event: Any) -> None:  # noqa: ANN401
        self.events.append(("terminated", str(event.id), event.exception, event.errorClassOnException))

    def kinds(self) -> list[str]:
        return [e[0] for e in self.events]


@pytest.fixture
def recorder(spark: SparkSession) -> Any:  # noqa: ANN401
    r = Recorder()
    spark.streams.addListener(r)
    yield r
    spark.streams.removeListener(r)


def test_events_arrive_in_order_with_the_query_s_ids_and_progress(spark: SparkSession, recorder: Recorder) -> None:
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.format("noop").queryName("listened").start()
    for rows in ([(1,), (2,)], [(3,)]):
        ms.addData(rows)
        q.processAllAvailable()
    q.stop()
    wait_until(lambda: "terminated" in recorder.kinds())
    mine = [e for e in recorder.events if e[1] == q.id]
    kinds = [e[0] for e in mine]
    # an idle progress may come before the data (the first trigger without data reports at once)
    assert kinds[0] == "started" and kinds[-1] == "terminated" and set(kinds[1:-1]) <= {"progress", "idle"}
    _, _, run_id, name, timestamp = mine[0]
    assert run_id == q.runId and name == "listened" and timestamp.endswith("Z")
    assert [e[2:] for e in mine if e[0] == "progress" and e[3]] == [(0, 2), (1, 1)]
    assert [p["batchId"] for p in q.recentProgress if p["numInputRows"]] == [0, 1]
    assert mine[-1][2:] == (None, None)


def test_a_failed_query_s_terminated_event_carries_its_error(spark: SparkSession, recorder: Recorder) -> None:
    ms = MemoryStream(spark, "id INT")

    def fail(batch: Any, batch_id: int) -> None:  # noqa: ANN401
        raise ValueError("listener sees this")

    q = ms.toDF().writeStream.foreachBatch(fail).start()
    ms.addData([(1,)])
    wait_until(lambda: any(e[0] == "terminated" and e[1] == q.id for e in recorder.events))
    (ended,) = [e for e in recorder.events if e[0] == "terminated" and e[1] == q.id]
    # the cause's text (with the traceback), and Spark's condition for a foreachBatch error
    assert "ValueError: listener sees this" in ended[2]
    assert ended[3] == "FOREACH_BATCH_USER_FUNCTION_ERROR"


def test_idle_triggers_post_idle_events(spark: SparkSession, recorder: Recorder) -> None:
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "50")
    try:
        q = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
    finally:
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    wait_until(lambda: sum(e == ("idle", q.id) for e in recorder.events) >= 2)
    q.stop()
    assert sum(e == ("idle", q.id) for e in recorder.events) >= 2
    assert not [e for e in recorder.events if e[0] == "progress" and e[1] == q.id]  # idle is not progress


def test_a_failing_listener_is_logged_and_neither_the_query_nor_other_listeners_notice(
    spark: SparkSession, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken(Recorder):
        def onQueryProgress(self, event: Any) -> None:  # noqa: ANN401
            raise RuntimeError("listener bug")

    broken = Broken()
    spark.streams.addListener(broken)
    try:
        with caplog.at_level(logging.ERROR, logger="sparklet"):
            ms = MemoryStream(spark, "id INT")
            q = ms.toDF().writeStream.format("noop").start()
            ms.addData([(1,)])
            q.processAllAvailable()
            ms.addData([(2,)])
            q.processAllAvailable()
            q.stop()
            wait_until(lambda: any(e[0] == "terminated" and e[1] == q.id for e in broken.events))
        assert q.exception() is None
        assert [e[2] for e in recorder.events if e[0] == "progress" and e[1] == q.id] == [0, 1]
        assert sum("listener bug" in r.exc_text for r in caplog.records if r.exc_text) == 2
    finally:
        spark.streams.removeListener(broken)


def test_a_slow_listener_does_not_hold_up_the_query(spark: SparkSession) -> None:
    release = threading.Event()
    seen: list[int] = []

    class Slow(Recorder):
        def onQueryProgress(self, event: Any) -> None:  # noqa: ANN401
            seen.append(event.progress.batchId)
            release.wait(30)

    slow = Slow()
    spark.streams.addListener(slow)
    try:
        ms = MemoryStream(spark, "id INT")
        q = ms.toDF().writeStream.format("noop").start()
        for i in range(3):
            ms.addData([(i,)])
            q.processAllAvailable()
        # three batches done while the listener is still inside the first
        assert q.lastProgress["batchId"] == 2 and seen == [0]
        release.set()
        wait_until(lambda: seen == [0, 1, 2])
        assert seen == [0, 1, 2]
        q.stop()
    finally:
        release.set()
        spark.streams.removeListener(slow)


def test_a_removed_listener_gets_nothing_more(spark: SparkSession) -> None:
    r = Recorder()
    spark.streams.addListener(r)
    spark.streams.removeListener(r)
    probe = Recorder()  # events are delivered asynchronously: wait for q's last
    spark.streams.addListener(probe)
    q = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
    q.stop()
    wait_until(lambda: "terminated" in probe.kinds())
    spark.streams.removeListener(probe)
    other = Recorder()  # a listener added after sees later queries only
    spark.streams.addListener(other)
    try:
        q2 = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
        q2.stop()
        wait_until(lambda: "terminated" in other.kinds())
        assert r.events == [] and {e[1] for e in other.events} == {q2.id}
    finally:
        spark.streams.removeListener(other)
