"""applyInPandasWithState: per-key Python state, timeouts, restarts and errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from conftest import Batches, op, step, wait_until
from sparklet.errors import AnalysisException, PySparkRuntimeError, PySparkValueError, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql.streaming.state import GroupState, GroupStateTimeout
from sparklet.testing import MemoryStream

# every test runs on both state store providers
pytestmark = pytest.mark.usefixtures("state_provider")


def running_count(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    (n,) = state.get if state.exists else (0,)
    for pdf in pdfs:
        n += len(pdf)
    state.update((n,))
    yield pd.DataFrame({"user": [key[0]], "n": [n]})


def counts(ms: MemoryStream, out: Batches, ckpt: Path | None = None):  # noqa: ANN201
    w = (
        ms.toDF()
        .groupBy("user")
        .applyInPandasWithState(running_count, "user STRING, n LONG", "n LONG", "update", GroupStateTimeout.NoTimeout)
        .writeStream.outputMode("update")
        .foreachBatch(out)
    )
    if ckpt is not None:
        w = w.option("checkpointLocation", str(ckpt))
    return w.start()


def test_running_count_per_key_across_batches(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()
    q = counts(ms, out)
    step(q, ms, [("a", 1), ("b", 2), ("a", 3)])
    step(q, ms, [("a", 4), ("c", 5)])
    assert out.batches == [[("a", 2), ("b", 1)], [("a", 3), ("c", 1)]]
    assert op(q)["operatorName"] == "applyInPandasWithState"
    assert op(q)["numRowsTotal"] == 3 and op(q)["numRowsUpdated"] == 2


def test_state_survives_a_restart_mid_stream(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()
    q = counts(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 1), ("b", 2)])
    q.stop()
    q = counts(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 3), ("b", 4), ("b", 5)])
    assert out.batches == [[("a", 1), ("b", 1)], [("a", 2), ("b", 3)]]
    # the state is readable as Spark's format v2 lays it out
    state = spark.read.format("statestore").load(str(tmp_path / "ckpt")).collect()
    assert {r["key"]["user"]: r["value"]["groupState"]["n"] for r in state} == {"a": 2, "b": 3}
    assert all(r["value"]["timeoutTimestamp"] is None for r in state)


def test_removed_state_starts_again(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()

    def until_three(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
        n = (state.getOption or (0,))[0] + sum(len(p) for p in pdfs)
        if n >= 3:
            state.remove()
            assert not state.exists
        else:
            state.update([n])
        yield pd.DataFrame({"user": [key[0]], "n": [n]})

    q = (
        ms.toDF()
        .groupBy("user")
        .applyInPandasWithState(until_three, "user STRING, n LONG", "n LONG", "append", GroupStateTimeout.NoTimeout)
        .writeStream.foreachBatch(out)
        .start()
    )
    step(q, ms, [("a", 1), ("a", 2), ("b", 1)])
    step(q, ms, [("a", 3)])
    assert op(q)["numRowsTotal"] == 1 and op(q)["numRowsRemoved"] == 1
    step(q, ms, [("a", 4)])
    assert out.batches == [[("a", 2), ("b", 1)], [("a", 3)], [("a", 1)]]


SESSION = "user STRING, ts TIMESTAMP"


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


def sessions(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    """Events per user until 10 s of event time pass without one."""
    if state.hasTimedOut:
        (n, last) = state.get
        state.remove()
        yield pd.DataFrame({"user": [key[0]], "events": [n], "closed": [True]})
        return
    n, last = state.getOption or (0, 0)
    for pdf in pdfs:
        n += len(pdf)
        last = max(last, int(pdf["ts"].max().timestamp() * 1000))
    state.update((n, last))
    state.setTimeoutTimestamp(last + 10_000)
    yield pd.DataFrame({"user": [key[0]], "events": [n], "closed": [False]})


def test_event_time_timeout_closes_sessions_when_the_watermark_passes(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, SESSION)
    out = Batches()

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .withWatermark("ts", "5 seconds")
            .groupBy("user")
            .applyInPandasWithState(
                sessions,
                "user STRING, events LONG, closed BOOLEAN",
                "n LONG, last LONG",
                "update",
                GroupStateTimeout.EventTimeTimeout,
            )
            .writeStream.outputMode("update")
            .foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    step(q, ms, [("a", t(0)), ("a", t(3)), ("b", t(4))])
    assert out.batches == [[("a", 2, False), ("b", 1, False)]]
    # c's batch moves the watermark to 25 s; the batch after it (without
    # data, as in Spark) closes a (timeout 13 s) and b (14 s)
    step(q, ms, [("c", t(30))])
    assert out.batches[1:] == [[("c", 1, False)], [("a", 2, True), ("b", 1, True)]]
    assert op(q)["numRowsTotal"] == 1
    q.stop()
    # after a restart, c's timeout (40 s) is still there; a late row for a is dropped
    q = start()
    step(q, ms, [("a", t(1)), ("d", t(50))])
    assert out.batches[3:] == [[("d", 1, False)], [("c", 1, True)]]
    dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in q.recentProgress if p["stateOperators"])
    assert dropped == 1


def test_processing_time_timeout_fires_without_new_data(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()

    def idle(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
        if state.hasTimedOut:
            state.remove()
            yield pd.DataFrame({"user": [key[0]], "status": ["idle"]})
            return
        rows = sum(len(p) for p in pdfs)
        state.update((rows,))
        state.setTimeoutDuration(300)
        yield pd.DataFrame({"user": [key[0]], "status": ["active"]})

    q = (
        ms.toDF()
        .groupBy("user")
        .applyInPandasWithState(idle, "user STRING, status STRING", "rows LONG", "update", "ProcessingTimeTimeout")
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .start()
    )
    step(q, ms, [("a", 1)])
    assert out.batches == [[("a", "active")]]
    # the timeout's batch: its output, then its progress (published after the sink)
    wait_until(lambda: len(out.batches) == 2 and op(q)["numRowsTotal"] == 0)
    assert out.batches == [[("a", "active")], [("a", "idle")]]
    assert op(q)["numRowsTotal"] == 0 and op(q)["numRowsRemoved"] == 1


def test_an_exception_in_the_function_stops_the_query_and_keeps_the_state(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()
    fail = {"on": True}

    def fragile(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
        rows = pd.concat(list(pdfs))
        if fail["on"] and (rows["v"] < 0).any():
            raise ValueError(f"negative value for {key[0]}")
        yield from running_count(key, iter([rows]), state)

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .groupBy("user")
            .applyInPandasWithState(fragile, "user STRING, n LONG", "n LONG", "update", GroupStateTimeout.NoTimeout)
            .writeStream.outputMode("update")
            .foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    step(q, ms, [("a", 1)])
    ms.addData([("a", -1)])
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(30)
    assert "ValueError: negative value for a" in str(e.value) and "fragile" in str(e.value)
    # the failed batch left no state behind: a restart runs it again
    fail["on"] = False
    q = start()
    q.processAllAvailable()
    assert out.batches == [[("a", 1)], [("a", 2)]]


@pytest.mark.sparklet_only(reason="Spark reports the function's error only as 'Exception thrown in awaitResult'")
def test_timeout_calls_that_do_not_match_the_timeout_conf_fail(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")

    def wrong(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
        state.setTimeoutDuration(1000)
        yield pd.DataFrame({"user": [key[0]]})

    q = (
        ms.toDF()
        .groupBy("user")
        .applyInPandasWithState(wrong, "user STRING", "n LONG", "update", GroupStateTimeout.NoTimeout)
        .writeStream.outputMode("update")
        .foreachBatch(lambda t, i: None)
        .start()
    )
    ms.addData([("a", 1)])
    with pytest.raises(StreamingQueryException, match="Cannot set timeout duration without enabling processing time"):
        q.awaitTermination(30)


@pytest.mark.sparklet_only(reason="builds sparklet's GroupState directly (PySpark's takes other arguments)")
def test_group_state_checks_its_arguments() -> None:
    def state(conf: str, wm: int | None = None) -> GroupState:
        return GroupState(
            None,
            fields=["n"],
            timeout_conf=conf,
            has_timed_out=False,
            old_timeout_ms=None,
            batch_processing_time_ms=1_000,
            watermark_ms=wm,
        )

    s = state(GroupStateTimeout.ProcessingTimeTimeout)
    with pytest.raises(PySparkValueError, match="not defined"):
        s.get  # noqa: B018
    with pytest.raises(PySparkValueError, match="positive"):
        s.setTimeoutDuration(0)
    with pytest.raises(PySparkValueError, match="1 fields"):
        s.update((1, 2))
    with pytest.raises(PySparkRuntimeError, match="event time timeout"):
        s.setTimeoutTimestamp(5_000)
    with pytest.raises(PySparkValueError, match="without setting watermark"):
        s.getCurrentWatermarkMs()
    e = state(GroupStateTimeout.EventTimeTimeout, wm=10_000)
    with pytest.raises(PySparkValueError, match="earlier than the current watermark"):
        e.setTimeoutTimestamp(9_999)
    e.setTimeoutTimestamp(dt.datetime(1970, 1, 1, 0, 0, 11))
    assert e.getCurrentWatermarkMs() == 10_000 and e.getCurrentProcessingTimeMs() == 1_000


def test_event_time_timeout_needs_a_watermark_and_arguments_are_checked(spark: SparkSession) -> None:
    ms = MemoryStream(spark, SESSION)
    grouped = ms.toDF().groupBy("user")
    df = grouped.applyInPandasWithState(sessions, "user STRING", "n LONG, last LONG", "update", "EventTimeTimeout")
    with pytest.raises(AnalysisException, match="Watermark must be specified"):
        df.writeStream.outputMode("update").foreachBatch(lambda t, i: None).start()
    with pytest.raises(PySparkValueError, match="output mode"):
        grouped.applyInPandasWithState(sessions, "user STRING", "n LONG", "complete", "NoTimeout")
    with pytest.raises(AnalysisException, match="Unknown timeout conf"):
        grouped.applyInPandasWithState(sessions, "user STRING", "n LONG", "update", "Sometimes")


@pytest.mark.sparklet_only(reason="sparklet.testing.GroupStateTester (PySpark has no counterpart)")
def test_the_tester_runs_a_function_key_by_key_with_timeouts() -> None:
    from sparklet.testing import GroupStateTester

    tester = GroupStateTester(
        sessions,
        SESSION,
        "user STRING, events LONG, closed BOOLEAN",
        "n LONG, last LONG",
        GroupStateTimeout.EventTimeTimeout,
    )
    assert tester.test(("a",), [("a", t(0)), ("a", t(3))]) == [("a", 2, False)]
    last = int((t(3) - dt.datetime(1970, 1, 1)).total_seconds() * 1000)
    assert tester.peekState(("a",)) == (2, last) and tester.peekTimeout(("a",)) == last + 10_000
    tester.setState(("b",), (5, 0), timeoutMs=last + 20_000)
    tester.setWatermark(last + 15_000)  # past a's timeout, not b's
    assert tester.fireTimeouts() == [("a", 2, True)]
    assert tester.peekState(("a",)) is None and tester.peekState(("b",)) == (5, 0)
    # the tester enforces GroupState's rules as a query does
    tester.setWatermark(last + 60_000)
    with pytest.raises(PySparkValueError, match="earlier than the current watermark"):
        tester.test(("c",), [("c", t(1))])
