"""transformWithStateInPandas: state variables, timers, TTL, initial state, restarts and errors."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from conftest import PROVIDER, PROVIDER_CLASSES, Batches, add_and_wait, op, step, wait_until
from sparklet.errors import AnalysisException, PySparkValueError, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from sparklet.sql.streaming.stateful_processor import ExpiredTimerInfo, TimerValues
from sparklet.testing import MemoryStream


@pytest.fixture(autouse=True)
def rocksdb(spark: SparkSession) -> Iterator[None]:
    """Spark runs processors on its RocksDB provider only (see test_transform_with_state.py)."""
    spark.conf.set(PROVIDER, PROVIDER_CLASSES["rocksdb"])
    yield
    spark.conf.unset(PROVIDER)


EVENTS = "user STRING, v INT"


class Tally(StatefulProcessor):
    """A count (value), the values seen (list) and a count per value (map)."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("count", "n LONG")
        self.seen = handle.getListState("seen", "v INT")
        self.per_value = handle.getMapState("perValue", "v INT", "c LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        n = self.count.get()[0] if self.count.exists() else 0
        for pdf in rows:
            n += len(pdf)
            for v in pdf["v"].tolist():
                self.seen.appendValue((v,))
                c = self.per_value.getValue((v,))
                self.per_value.updateValue((v,), ((c[0] if c else 0) + 1,))
        self.count.update((n,))
        seen = [r[0] for r in self.seen.get()]
        top = max(self.per_value.iterator(), key=lambda kv: (kv[1][0], kv[0][0]))
        yield pd.DataFrame({"user": [key[0]], "n": [n], "seen": [str(seen)], "top": [top[0][0]]})


TALLY = "user STRING, n LONG, seen STRING, top INT"


def tally(ms: MemoryStream, out: Batches, ckpt: Path | None = None):  # noqa: ANN201
    w = (
        ms.toDF()
        .groupBy("user")
        .transformWithStateInPandas(Tally(), TALLY, "update", "None")
        .writeStream.outputMode("update")
        .foreachBatch(out)
    )
    if ckpt is not None:
        w = w.option("checkpointLocation", str(ckpt))
    return w.start()


def test_value_list_and_map_state_across_batches_and_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = tally(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 1), ("b", 2), ("a", 1)])
    # Spark's count of state rows: a value (a, b), a list (a, b), map entries (a:1, b:2)
    assert op(q)["operatorName"] == "transformWithStateInPandasExec" and op(q)["numRowsTotal"] == 6
    q.stop()
    q = tally(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 3), ("a", 3), ("a", 3), ("c", 2)])
    assert out.batches == [
        [("a", 2, "[1, 1]", 1), ("b", 1, "[2]", 2)],
        [("a", 5, "[1, 1, 3, 3, 3]", 3), ("c", 1, "[2]", 2)],
    ]
    # each state variable is readable
    reader = spark.read.format("statestore").option("stateVarName", "count")
    state = reader.load(str(tmp_path / "ckpt")).collect()
    assert {r["key"]["user"]: r["value"]["n"] for r in state} == {"a": 5, "b": 1, "c": 1}


class Reminder(StatefulProcessor):
    """Emits 'active' on rows and 'idle' from a timer 300 ms (processing time) later."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.rows = handle.getValueState("rows", "n LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        for t in self.handle.listTimers():  # a new row moves the reminder
            self.handle.deleteTimer(t)
        self.handle.registerTimer(timerValues.getCurrentProcessingTimeInMs() + 300)
        self.rows.update((sum(len(p) for p in rows),))
        yield pd.DataFrame({"user": [key[0]], "status": ["active"]})

    def handleExpiredTimer(self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo) -> Iterator:
        assert expiredTimerInfo.getExpiryTimeInMs() <= timerValues.getCurrentProcessingTimeInMs()
        self.rows.clear()
        yield pd.DataFrame({"user": [key[0]], "status": ["idle"]})


def test_processing_time_timers_fire_without_new_data(spark: SparkSession) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = (
        ms.toDF()
        .groupBy("user")
        .transformWithStateInPandas(Reminder(), "user STRING, status STRING", "update", "ProcessingTime")
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .start()
    )
    add_and_wait(ms, [("a", 1), ("b", 1)], out, 1)
    # the timers' batch: its output, then its progress (published after the sink)
    wait_until(lambda: len(out.batches) == 2 and op(q)["numRowsTotal"] == 0)
    assert out.batches == [[("a", "active"), ("b", "active")], [("a", "idle"), ("b", "idle")]]
    # the timers and the cleared state are gone: nothing is left for the keys
    assert op(q)["numRowsTotal"] == 0


class Sessions(StatefulProcessor):
    """Events per user, closed by an event-time timer 10 s after the last one."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.session = handle.getValueState("session", "n LONG, last LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        n, last = self.session.get() or (0, 0)
        for pdf in rows:
            n += len(pdf)
            last = max(last, int(pdf["ts"].max().timestamp() * 1000))
        for t in self.handle.listTimers():
            self.handle.deleteTimer(t)
        self.handle.registerTimer(last + 10_000)
        self.session.update((n, last))
        return iter([])

    def handleExpiredTimer(self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo) -> Iterator:
        n, _ = self.session.get()
        self.session.clear()
        yield pd.DataFrame({"user": [key[0]], "events": [n]})


def t(sec: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=sec)


def test_event_time_timers_fire_when_the_watermark_passes(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, ts TIMESTAMP")
    out = Batches()

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .withWatermark("ts", "5 seconds")
            .groupBy("user")
            .transformWithStateInPandas(Sessions(), "user STRING, events LONG", "append", "EventTime")
            .writeStream.foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    # the watermark moves to 15 s: a's timer (13 s) fires in the batch after
    step(q, ms, [("a", t(0)), ("a", t(3)), ("b", t(20))])
    assert out.batches == [[("a", 2)]]
    q.stop()
    q = start()  # b's timer (30 s) is in the checkpoint
    step(q, ms, [("c", t(30))])  # watermark 25 s: not yet
    assert out.batches == [[("a", 2)]]
    step(q, ms, [("c", t(50))])  # 45 s: b fires; c's timer moved from 40 s to 60 s
    assert out.batches == [[("a", 2)], [("b", 1)]]
    assert op(q)["numRowsTotal"] == 1


class Remember(StatefulProcessor):
    """Keeps the last value per user for 10 s of processing time (Spark's
    batches of a Python processor come seconds apart)."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.last = handle.getValueState("last", "v INT", ttlDurationMs=10_000)

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        before = self.last.get()
        pdf = pd.concat(list(rows))
        self.last.update((int(pdf["v"].iloc[-1]),))
        yield pd.DataFrame({"user": [key[0]], "before": [None if before is None else before[0]]})


def test_ttl_expires_state_in_processing_time(spark: SparkSession) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = (
        ms.toDF()
        .groupBy("user")
        .transformWithStateInPandas(Remember(), "user STRING, before INT", "update", "ProcessingTime")
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .start()
    )
    add_and_wait(ms, [("a", 1), ("b", 2)], out, 1)
    add_and_wait(ms, [("a", 3)], out, 2)  # within the TTL: a remembers 1
    time.sleep(10.5)  # a (updated in the second batch) and b expire
    add_and_wait(ms, [("a", 4)], out, 3)
    assert out.batches == [[("a", None), ("b", None)], [("a", 1)], [("a", None)]]
    # b's expired state is dropped, though b had no rows
    wait_until(lambda: op(q)["numRowsTotal"] == 1)
    assert op(q)["numRowsTotal"] == 1


class Seeded(StatefulProcessor):
    """A running total that the initial state can start."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.total = handle.getValueState("total", "s LONG")

    def handleInitialState(self, key: tuple, initialState: pd.DataFrame, timerValues: TimerValues) -> None:
        self.total.update((int(initialState["start"].sum()),))

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        s = (self.total.get() or (0,))[0] + sum(int(p["v"].sum()) for p in rows)
        self.total.update((s,))
        yield pd.DataFrame({"user": [key[0]], "total": [s]})


def test_initial_state_seeds_the_first_batch_only(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    initial = spark.createDataFrame([("a", 100), ("z", 7), ("z", 3)], "user STRING, start LONG").groupBy("user")

    def start():  # noqa: ANN202
        return (
            ms.toDF()
            .groupBy("user")
            .transformWithStateInPandas(Seeded(), "user STRING, total LONG", "update", "None", initialState=initial)
            .writeStream.outputMode("update")
            .foreachBatch(out)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )

    q = start()
    step(q, ms, [("a", 1), ("b", 2)])
    assert op(q)["numRowsTotal"] == 3  # z has a state from the initial rows alone
    q.stop()
    q = start()  # not seeded again on restart
    step(q, ms, [("a", 1), ("z", 5)])
    assert out.batches == [[("a", 101), ("b", 2)], [("a", 102), ("z", 15)]]


class TimerWithoutTime(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        self.handle.registerTimer(1)
        return iter([])


@pytest.mark.sparklet_only(reason="sparklet names the processor's misuse (Spark: its Python runner fails to start)")
def test_errors_name_what_is_wrong(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, EVENTS)
    grouped = ms.toDF().groupBy("user")
    q = (
        grouped.transformWithStateInPandas(TimerWithoutTime(), "user STRING", "update", "None")
        .writeStream.outputMode("update")
        .foreachBatch(lambda b, i: None)
        .start()
    )
    ms.addData([("a", 1)])
    with pytest.raises(StreamingQueryException, match="Cannot use timers with time mode None"):
        q.awaitTermination(30)
    with pytest.raises(AnalysisException, match="Watermark must be specified"):
        grouped.transformWithStateInPandas(
            Sessions(), "user STRING, events LONG", "update", "EventTime"
        ).writeStream.outputMode("update").foreachBatch(lambda b, i: None).start()
    with pytest.raises(PySparkValueError, match="time mode"):
        grouped.transformWithStateInPandas(Tally(), TALLY, "update", "Sometimes")

    class BadTtl(Tally):
        def init(self, handle: StatefulProcessorHandle) -> None:
            handle.getValueState("x", "n LONG", ttlDurationMs=0)

    with pytest.raises(PySparkValueError, match="TTL duration"):
        grouped.transformWithStateInPandas(BadTtl(), TALLY, "update", "None")


def restart_with(ms: MemoryStream, processor: StatefulProcessor, out: Batches, ckpt: Path) -> None:
    """Restart the tally query with another processor; run a batch."""
    q = (
        ms.toDF()
        .groupBy("user")
        .transformWithStateInPandas(processor, TALLY, "update", "None")
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .option("checkpointLocation", str(ckpt))
        .start()
    )
    step(q, ms, [("a", 2)])


def test_a_state_variable_of_another_type_is_refused_at_restart(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = tally(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 1)])
    q.stop()

    class Narrowed(Tally):
        def init(self, handle: StatefulProcessorHandle) -> None:
            self.count = handle.getValueState("count", "n INT")  # was "n LONG"
            self.seen = handle.getListState("seen", "v INT")
            self.per_value = handle.getMapState("perValue", "v INT", "c LONG")

    with pytest.raises(StreamingQueryException, match="STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE") as e:
        restart_with(ms, Narrowed(), out, tmp_path / "ckpt")
    assert "Provided value schema does not match existing state value schema" in str(e.value)


def test_a_restart_may_rename_value_fields_and_add_variables(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = tally(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 1)])
    q.stop()

    class Renamed(Tally):
        def init(self, handle: StatefulProcessorHandle) -> None:
            self.count = handle.getValueState("count", "total LONG")  # was "n LONG": same by position
            self.seen = handle.getListState("seen", "v INT")
            self.per_value = handle.getMapState("perValue", "v INT", "c LONG")
            self.extra = handle.getValueState("extra", "x STRING")  # a new variable starts empty

    restart_with(ms, Renamed(), out, tmp_path / "ckpt")
    assert out.batches[-1] == [("a", 2, "[1, 2]", 2)]


class Profile(StatefulProcessor):
    """One value state of the given schema per user, its fields set by name;
    emits what it held before the batch."""

    def __init__(self, schema: str) -> None:
        self.schema = schema
        self.names = [f.split()[0] for f in schema.split(",")]

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.profile = handle.getValueState("profile", self.schema)

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        before = self.profile.get() if self.profile.exists() else None
        vs = [v for pdf in rows for v in pdf["v"].tolist()]
        known = dict(zip(self.names, before or ()))
        values = {"n": (known.get("n") or 0) + len(vs), "last": vs[-1]}
        self.profile.update(tuple(values.get(name) for name in self.names))
        yield pd.DataFrame({"user": [key[0]], "before": [repr(before)]})


def profile(ms: MemoryStream, schema: str, out: Batches, ckpt: Path):  # noqa: ANN201
    return (
        ms.toDF()
        .groupBy("user")
        .transformWithStateInPandas(Profile(schema), "user STRING, before STRING", "update", "None")
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .option("checkpointLocation", str(ckpt))
        .start()
    )


@pytest.mark.parametrize("snapshot_every", [1, 10])
def test_avro_encoded_state_evolves_by_field_name(spark: SparkSession, tmp_path: Path, snapshot_every: int) -> None:
    ckpt = tmp_path / "ckpt"
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    # state written as snapshots (RocksDB's files) or as changes only
    spark.conf.set("spark.sql.streaming.stateStore.minDeltasForSnapshot", snapshot_every)
    spark.conf.set("spark.sql.streaming.stateStore.encodingFormat", "avro")
    try:
        q = profile(ms, "n LONG, last INT", out, ckpt)
        step(q, ms, [("a", 1), ("a", 2)])
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.encodingFormat")
        spark.conf.unset("spark.sql.streaming.stateStore.minDeltasForSnapshot")
    # the checkpoint keeps the encoding it started with
    # reordered, `last` widened to LONG, `note` added (reads null)
    q = profile(ms, "last LONG, note STRING, n LONG", out, ckpt)
    step(q, ms, [("a", 5)])
    q.stop()
    # fields removed
    q = profile(ms, "n LONG", out, ckpt)
    step(q, ms, [("a", 7)])
    q.stop()
    assert out.batches == [[("a", "None")], [("a", "(2, None, 2)")], [("a", "(3,)")]]
    state = spark.read.format("statestore").option("stateVarName", "profile").load(str(ckpt)).collect()
    assert [(r["key"]["user"], r["value"]["n"]) for r in state] == [("a", 4)]
    # narrowing cannot read what was written
    with pytest.raises(StreamingQueryException, match="STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION") as e:
        q = profile(ms, "n INT", out, ckpt)
        step(q, ms, [("a", 9)])
    assert "Schema evolution is not possible new value_schema=StructType(StructField(n,IntegerType,true))" in str(
        e.value
    )


def test_unsaferow_state_refuses_reordered_fields(spark: SparkSession, tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ms = MemoryStream(spark, EVENTS)
    out = Batches()
    q = profile(ms, "n LONG, last INT", out, ckpt)
    step(q, ms, [("a", 1)])
    q.stop()
    with pytest.raises(StreamingQueryException, match="STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"):
        q = profile(ms, "last INT, n LONG", out, ckpt)
        step(q, ms, [("a", 2)])


FIXTURE = Path(__file__).parent / "fixtures" / "tws-checkpoint-6f7f0d7"


@pytest.mark.sparklet_only(reason="restarts a checkpoint an earlier sparklet (commit 6f7f0d7) wrote")
def test_a_checkpoint_of_an_earlier_sparklet_restarts(spark: SparkSession, tmp_path: Path) -> None:
    import shutil

    # its one batch: a twice (v 1, 1), b once (v 2); the Tally processor, RocksDB
    shutil.copytree(FIXTURE, tmp_path / "ckpt")
    ms = MemoryStream(spark, EVENTS)
    ms.addData([("a", 1), ("b", 2), ("a", 1)])  # offset 0: the checkpoint's batch, not run again
    out = Batches()
    q = tally(ms, out, tmp_path / "ckpt")
    step(q, ms, [("a", 3), ("c", 2)])
    assert out.batches == [[("a", 3, "[1, 1, 3]", 1), ("c", 1, "[2]", 2)]]
    state = spark.read.format("statestore").option("stateVarName", "perValue").load(str(tmp_path / "ckpt"))
    assert sorted((r["key"]["user"], r["user_map_key"]["v"], r["user_map_value"]["c"]) for r in state.collect()) == [
        ("a", 1, 2),
        ("a", 3, 1),
        ("b", 2, 1),
        ("c", 2, 1),
    ]
