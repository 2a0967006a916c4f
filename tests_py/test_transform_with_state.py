"""transformWithState (rows) and what PySpark 4.3's processors do beyond the
basics of test_stateful_processor.py: batch DataFrames, deleted state
variables, timers while they fire, chunked pandas input, the provider Spark
requires, progress counts and the state reader's views."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from conftest import PROVIDER, PROVIDER_CLASSES, Batches, add_and_wait, conf_set, dicts, op, step
from sparklet.errors import StreamingQueryException
from sparklet.sql import Row, SparkSession
from sparklet.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from sparklet.sql.streaming.stateful_processor import ExpiredTimerInfo, TimerValues
from sparklet.testing import MemoryStream


@pytest.fixture(autouse=True)
def rocksdb(spark: SparkSession) -> Iterator[None]:
    """Spark runs processors on its RocksDB provider only (a test below shows the refusal)."""
    spark.conf.set(PROVIDER, PROVIDER_CLASSES["rocksdb"])
    yield
    spark.conf.unset(PROVIDER)


def per_user(ms: MemoryStream, processor: StatefulProcessor, schema: str, sink=None, ckpt=None, mode="None"):  # noqa: ANN001, ANN201
    """Start ``processor`` (row-based, update mode) per user of ``ms``'s
    rows into ``sink`` (a foreachBatch function), checkpointed in ``ckpt``."""
    w = (
        ms.toDF()
        .groupBy("user")
        .transformWithState(processor, schema, "Update", mode)
        .writeStream.outputMode("update")
        .foreachBatch(sink if sink is not None else Batches())
    )
    return (w if ckpt is None else w.option("checkpointLocation", str(ckpt))).start()


class RowTally(StatefulProcessor):
    """Row-based: a count (value), the values seen (list) and a count per value (map)."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("count", "n LONG")
        self.seen = handle.getListState("seen", "v INT")
        self.per_value = handle.getMapState("perValue", "v INT", "c LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        n = self.count.get()[0] if self.count.exists() else 0
        for row in rows:
            n += 1
            self.seen.appendValue((row.v,))
            c = self.per_value.getValue((row.v,))
            self.per_value.updateValue((row.v,), ((c[0] if c else 0) + 1,))
        self.count.update((n,))
        # state comes back as plain tuples, as PySpark's does
        assert type(self.count.get()) is tuple
        seen = sorted(v for (v,) in self.seen.get())
        yield Row(user=key[0], n=n, seen=str(seen), distinct=len(list(self.per_value.keys())))


def test_row_based_state_survives_a_restart_and_reads_back(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()

    def start():  # noqa: ANN202
        # timeMode is case-insensitive
        return per_user(
            ms, RowTally(), "user STRING, n LONG, seen STRING, distinct INT", out, tmp_path / "ckpt", "NONE"
        )

    q = start()
    step(q, ms, [("a", 1), ("b", 2), ("a", 1)])
    q.stop()
    q = start()
    step(q, ms, [("a", 3), ("c", 2)])
    assert out.batches == [[("a", 2, "[1, 1]", 1), ("b", 1, "[2]", 1)], [("a", 3, "[1, 1, 3]", 2), ("c", 1, "[2]", 1)]]
    state = op(q)
    assert state["operatorName"] == "transformWithStateInPySparkExec"
    # Spark's state rows: a count and a list per key (3 + 3), a row per map entry (4)
    assert state["numRowsTotal"] == 10
    # every task (one per partition) declares the three variables
    custom, tasks = state["customMetrics"], state["numShufflePartitions"]
    assert [custom[f"num{k}StateVars"] for k in ("Value", "List", "Map")] == [tasks, tasks, tasks]
    assert custom["numDeletedStateVars"] == 0 and custom["numValueStateWithTTLVars"] == 0
    q.stop()

    def read(**options: str) -> list[dict]:
        df = spark.read.format("statestore").options(**options).load(str(tmp_path / "ckpt"))
        return sorted((r.asDict(recursive=True) for r in df.drop("partition_id").collect()), key=str)

    assert read(stateVarName="count") == [
        {"key": {"user": u}, "value": {"n": n}} for u, n in (("a", 3), ("b", 1), ("c", 1))
    ]
    assert read(stateVarName="seen") == sorted(
        ({"key": {"user": u}, "list_element": {"v": v}} for u, v in (("a", 1), ("a", 1), ("a", 3), ("b", 2), ("c", 2))),
        key=str,
    )
    assert read(stateVarName="perValue") == sorted(
        (
            {"key": {"user": u}, "user_map_key": {"v": k}, "user_map_value": {"c": c}}
            for u, k, c in (("a", 1, 2), ("a", 3, 1), ("b", 2, 1), ("c", 2, 1))
        ),
        key=str,
    )


def ms_of(sec: int) -> int:
    return int((dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=sec)).timestamp() * 1000)


class Alarms(StatefulProcessor):
    """Event time: a timer a second after each row and one at 1970-01-12,
    behind every watermark but the first; reports the timers it sees."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.rows = handle.getValueState("rows", "n LONG")
        self.temp = handle.getValueState("tempState", "v INT")
        handle.deleteIfExists("tempState")

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        rows = list(rows)
        self.rows.update(((self.rows.get() or (0,))[0] + len(rows),))
        for r in rows:
            self.handle.registerTimer(int(r.ts.replace(tzinfo=dt.UTC).timestamp() * 1000) + 1000)
        self.handle.registerTimer(10**9)
        yield Row(
            key=key[0], at=-1, wm=timerValues.getCurrentWatermarkInMs(), timers=len(list(self.handle.listTimers()))
        )

    def handleExpiredTimer(
        self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[Row]:
        timers = sorted(self.handle.listTimers())
        # the timer that fires is still listed while its handler runs
        assert expiredTimerInfo.getExpiryTimeInMs() == timers[0]
        yield Row(
            key=key[0],
            at=expiredTimerInfo.getExpiryTimeInMs(),
            wm=timerValues.getCurrentWatermarkInMs(),
            timers=len(timers),
        )


def test_event_time_timers_fire_in_order_once_the_watermark_passes_them(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, ts TIMESTAMP")
    out: dict[int, list[tuple]] = {}

    def sink(table, batch_id: int) -> None:  # noqa: ANN001
        out[batch_id] = sorted(tuple(r.values()) for r in dicts(table))

    q = (
        ms.toDF()
        .withWatermark("ts", "5 seconds")
        .groupBy("user")
        .transformWithState(Alarms(), "key STRING, at LONG, wm LONG, timers INT", "Append", "EventTime")
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    t = dt.datetime(2024, 1, 1)
    step(q, ms, [("a", t), ("a", t + dt.timedelta(seconds=3))])
    first = op(q)["customMetrics"]
    step(q, ms, [("b", t + dt.timedelta(seconds=20))])
    q.stop()
    assert out == {
        # batch 0 sees watermark 0; its rows' timers: 1 s and 4 s, and 1970's
        0: [("a", -1, 0, 3)],
        # the watermark moved to -2 s: a no-data batch fires 1970's timer
        1: [("a", 10**9, ms_of(-2), 3)],
        # b's 1970 timer is already behind the watermark: it fires in b's own batch
        2: [("b", -1, ms_of(-2), 2), ("b", 10**9, ms_of(-2), 2)],
        # the watermark at 15 s: a's two timers, in time order
        3: [("a", ms_of(1), ms_of(15), 2), ("a", ms_of(4), ms_of(15), 1)],
    }
    assert (first["numRegisteredTimers"], first["numDeletedTimers"]) == (0, 1)
    assert first["numDeletedStateVars"] == op(q)["numShufflePartitions"]
    timers = spark.read.format("statestore").option("readRegisteredTimers", "true").load(str(tmp_path / "ckpt"))
    assert [(r["key"]["user"], r["expiration_timestamp_ms"]) for r in timers.collect()] == [("b", ms_of(21))]


class UsesDeleted(StatefulProcessor):
    """Deletes its variables in init, then uses them."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.value = handle.getValueState("v", "n INT")
        self.list = handle.getListState("l", "n INT")
        self.map = handle.getMapState("m", "k INT", "n INT")
        for name in ("v", "l", "m"):
            handle.deleteIfExists(name)

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        def outcome(call) -> str:  # noqa: ANN001
            try:
                return repr(call())
            except Exception as e:  # noqa: BLE001 - the error is the result
                return f"{type(e).__name__}: {e}"

        yield Row(
            value=outcome(self.value.exists),
            update=outcome(lambda: self.value.update((1,))),
            list=outcome(lambda: list(self.list.get())),
            map=outcome(lambda: self.map.getValue((1,))),
            keys=outcome(lambda: list(self.map.keys())),
        )


def test_a_deleted_state_variable_raises_pysparks_errors(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()
    schema = "value STRING, update STRING, list STRING, map STRING, keys STRING"
    q = per_user(ms, UsesDeleted(), schema, out)
    step(q, ms, [("a", 1)])
    assert out.batches == [
        [
            (
                "PySparkRuntimeError: Error checking value state exists: Value state v is not initialized.",
                "PySparkRuntimeError: Error updating value state: Value state v is not initialized.",
                "[]",  # a deleted list or map iterates nothing
                "PySparkRuntimeError: Error getting value: Map state m is not initialized.",
                "[]",
            )
        ]
    ]


class Sizes(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        pass

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        yield pd.DataFrame({"key": [key[0]], "sizes": [str([len(p) for p in rows])]})


def test_a_keys_pandas_rows_come_in_dataframes_of_max_records_per_batch(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    out = Batches()
    with conf_set(spark, "spark.sql.execution.arrow.maxRecordsPerBatch", "2"):
        q = (
            ms.toDF()
            .groupBy("user")
            .transformWithStateInPandas(Sizes(), "key STRING, sizes STRING", "Update", "None")
            .writeStream.outputMode("update")
            .foreachBatch(out)
            .start()
        )
        step(q, ms, [("a", i) for i in range(5)] + [("b", 1)])
    assert out.batches == [[("a", "[2, 2, 1]"), ("b", "[1]")]]


class Count(StatefulProcessor):
    """Rows per key, started from an initial count; shows the times it sees."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("c", "n LONG")

    def handleInitialState(self, key: tuple, initialState: Row, timerValues: TimerValues) -> None:
        # one call per initial Row
        self.count.update(((self.count.get() or (0,))[0] + initialState.start,))

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        n = (self.count.get() or (0,))[0] + len(list(rows))
        now = timerValues.getCurrentProcessingTimeInMs()
        yield Row(key=key[0], n=n, wm=timerValues.getCurrentWatermarkInMs(), now=now if now < 0 else 1)


class PandasCount(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        pass

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        yield pd.DataFrame({"key": [key[0]], "n": [sum(len(p) for p in rows)]})


def test_on_a_batch_dataframe_the_processor_runs_once_without_state(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1), ("a", 2), ("b", 3)], "user STRING, v INT")
    schema = "key STRING, n LONG, wm LONG, now LONG"
    rows = df.groupBy("user").transformWithState(Count(), schema, "Append", "None")
    assert not rows.isStreaming
    assert sorted(rows.collect()) == [Row(key="a", n=2, wm=-1, now=-1), Row(key="b", n=1, wm=-1, now=-1)]
    # in processing time the processor sees the time
    timed = df.groupBy("user").transformWithState(Count(), schema, "Append", "ProcessingTime")
    assert sorted(r.now for r in timed.collect()) == [1, 1]
    initial = spark.createDataFrame([("a", 10), ("a", 5), ("z", 5)], "user STRING, start LONG").groupBy("user")
    seeded = df.groupBy("user").transformWithState(Count(), schema, "Append", "None", initialState=initial)
    assert sorted((r.key, r.n) for r in seeded.collect()) == [("a", 17), ("b", 1)]
    pandas = df.groupBy("user").transformWithStateInPandas(PandasCount(), "key STRING, n LONG", "Append", "None")
    assert sorted(pandas.collect()) == [Row(key="a", n=2), Row(key="b", n=1)]


def test_the_hdfs_backed_provider_is_refused(spark: SparkSession) -> None:
    spark.conf.set(PROVIDER, PROVIDER_CLASSES["hdfs"])
    ms = MemoryStream(spark, "user STRING, v INT")
    with pytest.raises(StreamingQueryException, match="STORE_BACKEND_NOT_SUPPORTED_FOR_TWS") as e:
        q = per_user(ms, RowTally(), "user STRING, n LONG, seen STRING, distinct INT", lambda b, i: None)
        step(q, ms, [("a", 1)])
    assert "Please use RocksDBStateStoreProvider" in str(e.value)


class Echo(StatefulProcessor):
    """Emits each row's event time (or 1970 for user 'late'), for a window count after it."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        pass

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        for r in rows:
            yield Row(user=r.user, outTs=dt.datetime(1970, 1, 1) if r.user == "late" else r.ts)


def test_event_time_column_carries_the_watermark_to_a_window_after_it(spark: SparkSession, tmp_path: Path) -> None:
    from sparklet.sql import functions as F

    ms = MemoryStream(spark, "user STRING, ts TIMESTAMP")
    out = Batches()
    q = (
        ms.toDF()
        .withWatermark("ts", "5 seconds")
        .groupBy("user")
        .transformWithState(Echo(), "user STRING, outTs TIMESTAMP", "Append", "None", eventTimeColumnName="outTs")
        .groupBy(F.window("outTs", "10 seconds"))
        .count()
        .writeStream.outputMode("append")
        .foreachBatch(out)
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    t = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    for rows in ([("a", t), ("b", t + dt.timedelta(seconds=3))], [("c", t + dt.timedelta(seconds=25))]):
        step(q, ms, rows)
    # the watermark (20 s) closed the first window
    assert [(w["start"].second, w["end"].second, n) for w, n in out.batches[0]] == [(0, 10, 2)]
    # a row behind the watermark is refused: operators after it would miscount
    with pytest.raises(StreamingQueryException, match="EMITTING_ROWS_OLDER_THAN_WATERMARK_NOT_ALLOWED"):
        step(q, ms, [("late", t + dt.timedelta(seconds=40))])


def test_state_metadata_shows_the_processors_properties(spark: SparkSession, tmp_path: Path) -> None:
    import json

    ms = MemoryStream(spark, "user STRING, ts TIMESTAMP")
    q = (
        ms.toDF()
        .withWatermark("ts", "5 seconds")
        .groupBy("user")
        .transformWithState(Alarms(), "key STRING, at LONG, wm LONG, timers INT", "Append", "EventTime")
        # a foreachBatch that reads its batch (Spark fails one that does not: its state is never committed)
        .writeStream.foreachBatch(Batches())
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    step(q, ms, [("a", dt.datetime(2024, 1, 1))])
    q.stop()
    [meta] = spark.read.format("state-metadata").load(str(tmp_path / "ckpt")).collect()
    assert meta.operatorName == "transformWithStateInPySparkExec"
    properties = json.loads(meta.operatorProperties)
    assert (properties["timeMode"], properties["outputMode"]) == ("EventTime", "Append")
    # each variable as declared (a deleted one too), and the timers; in no set order
    assert sorted(properties["stateVariables"], key=lambda v: v["stateName"]) == [
        {"stateName": "$eventTimers_keyToTimestamp", "stateVariableType": "TimerState", "ttlEnabled": False},
        {"stateName": "rows", "stateVariableType": "ValueState", "ttlEnabled": False},
        {"stateName": "tempState", "stateVariableType": "ValueState", "ttlEnabled": False},
    ]


class DownTimeDetector(StatefulProcessor):
    """The programming guide's example (pandas): each key's last event time;
    a timer 5 s (processing time) after the key's rows, then every 10 s,
    reports how long the key has been silent."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.last_seen = handle.getValueState("last_seen", "value TIMESTAMP")

    def handleExpiredTimer(
        self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[pd.DataFrame]:
        now = timerValues.getCurrentProcessingTimeInMs()
        (last,) = self.last_seen.get()  # a naive datetime (UTC here)
        self.handle.registerTimer(now + 10_000)
        yield pd.DataFrame({"id": key, "timeValues": [str(now - int(last.replace(tzinfo=dt.UTC).timestamp() * 1000))]})

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        latest = max(pdf["ts"].max() for pdf in rows)
        for timer in self.handle.listTimers():
            self.handle.deleteTimer(timer)
        self.last_seen.update((latest.to_pydatetime(),))
        self.handle.registerTimer(timerValues.getCurrentProcessingTimeInMs() + 5000)
        yield pd.DataFrame({"id": key, "timeValues": [str(timerValues.getCurrentProcessingTimeInMs())]})


def test_the_programming_guides_down_time_detector(spark: SparkSession) -> None:
    import time

    ms = MemoryStream(spark, "key STRING, ts TIMESTAMP")
    out = Batches()
    q = (
        ms.toDF()
        .groupBy("key")
        .transformWithStateInPandas(
            statefulProcessor=DownTimeDetector(),
            outputStructType="id STRING, timeValues STRING",
            outputMode="Update",
            timeMode="ProcessingTime",
        )
        .writeStream.outputMode("update")
        .foreachBatch(out)
        .start()
    )
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    t0 = time.time() * 1000
    add_and_wait(ms, [("sensor", now - dt.timedelta(seconds=60)), ("sensor", now - dt.timedelta(seconds=30))], out, 2)
    q.stop()
    seen = [row for batch in out.batches for row in batch]
    assert seen[0][0] == "sensor" and int(seen[0][1]) >= t0 - 1000
    # 5 s after the rows: silent for about 35 s since the last event
    assert seen[1][0] == "sensor" and 34_000 <= int(seen[1][1]) <= 40_000


class TtlWithoutTime(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.last = handle.getValueState("last", "v INT", ttlDurationMs=1000)

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        yield Row(key=key[0])


def test_a_ttl_needs_processing_time(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    q = per_user(ms, TtlWithoutTime(), "key STRING")
    with pytest.raises(StreamingQueryException, match="STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL") as e:
        step(q, ms, [("a", 1)])
    assert "Cannot use TTL for state=last in timeMode=NoTime" in str(e.value)


class Twice(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        handle.getValueState("count", "n LONG")
        handle.getValueState("count", "n INT")

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        yield Row(key=key[0])


def test_a_state_variable_declared_twice_fails_the_query(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    q = per_user(ms, Twice(), "key STRING")
    # Spark's message names its crashed Python runner (its log, the variable)
    names = "Error initializing value state: Value state count already exists|driver worker exited unexpectedly"
    with pytest.raises(StreamingQueryException, match=names):
        step(q, ms, [("a", 1)])


class WriteOrClear(StatefulProcessor):
    """Writes a value, a list element and a map entry per row; a negative v clears them all."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("c", "n LONG")
        self.items = handle.getListState("l", "v INT")
        self.seen = handle.getMapState("m", "k INT", "c LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        rows = list(rows)
        if rows[0].v < 0:
            self.count.clear()
            self.items.clear()
            self.seen.clear()
        else:
            self.count.update((len(rows),))
            for r in rows:
                self.items.appendValue((r.v,))
                self.seen.updateValue((r.v,), (1,))
        yield Row(key=key[0])


def test_progress_counts_state_rows_written_and_removed(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    q = per_user(ms, WriteOrClear(), "key STRING")
    counts = []
    for rows in ([("a", 1), ("a", 2), ("b", 3)], [("a", 4)], [("b", -1)]):
        step(q, ms, rows)
        counts.append((op(q)["numRowsTotal"], op(q)["numRowsUpdated"], op(q)["numRowsRemoved"]))
    # a row per write (a's value, one list element, one map entry); b's three rows cleared
    assert counts[1:] == [(8, 3, 0), (5, 0, 3)]
    assert counts[0][0] == 7


def test_change_feed_of_a_state_variable(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "user STRING, v INT")
    # Spark's RocksDB provider keeps a change feed only with changelog checkpointing
    with conf_set(spark, "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true"):
        q = per_user(ms, WriteOrClear(), "key STRING", ckpt=tmp_path / "ckpt")
        for rows in ([("a", 1), ("a", 2), ("b", 3)], [("a", 4)], [("b", -1)]):
            step(q, ms, rows)
        q.stop()

    def feed(var: str) -> list[tuple]:
        reader = spark.read.format("statestore").option("readChangeFeed", "true").option("changeStartBatchId", 0)
        df = reader.option("stateVarName", var).load(str(tmp_path / "ckpt")).drop("partition_id")
        return sorted((tuple(r.asDict(recursive=True).values()) for r in df.collect()), key=str)

    a, b = {"user": "a"}, {"user": "b"}
    assert feed("l") == sorted(
        [
            (0, "append", a, {"v": 1}),
            (0, "append", a, {"v": 2}),
            (0, "append", b, {"v": 3}),
            (1, "append", a, {"v": 4}),
            (2, "delete", b, None),
        ],
        key=str,
    )
    assert feed("m") == sorted(
        [
            (0, "update", a, {"k": 1}, {"c": 1}),
            (0, "update", a, {"k": 2}, {"c": 1}),
            (0, "update", b, {"k": 3}, {"c": 1}),
            (1, "update", a, {"k": 4}, {"c": 1}),
            (2, "delete", b, {"k": 3}, None),
        ],
        key=str,
    )
    assert feed("c") == sorted(
        [(0, "update", a, {"n": 2}), (0, "update", b, {"n": 1}), (1, "update", a, {"n": 1}), (2, "delete", b, None)],
        key=str,
    )
