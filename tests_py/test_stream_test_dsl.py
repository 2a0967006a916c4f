"""``sparklet.testing.testStream``: Spark's stream-test DSL in Python,
deterministic under a manual clock. The tests without a manual clock run
on PySpark's queries too (pytest --engine=pyspark)."""

from __future__ import annotations

import pytest

from sparklet.errors import StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import (
    AddData,
    AdvanceManualClock,
    AssertOnQuery,
    CheckAnswer,
    CheckLastBatch,
    CheckNewAnswer,
    ExpectFailure,
    ManualClock,
    MemoryStream,
    StartStream,
    StopStream,
    testStream,
)

MANUAL_CLOCK = "a manual trigger clock is sparklet's (PySpark's is internal to Spark's Scala tests)"


def test_aggregation_restarts_from_its_checkpoint(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "word STRING")
    testStream(
        ms.toDF().groupBy("word").count(),
        "update",
        AddData(ms, [("a",), ("b",), ("a",)]),
        CheckLastBatch(("a", 2), ("b", 1)),
        StopStream(),
        AddData(ms, [("a",)]),
        StartStream(),
        CheckNewAnswer(("a", 3)),
        AssertOnQuery(lambda q: q.lastProgress["numInputRows"] == 1, "one new row"),
    )


def test_append_answers_accumulate_and_new_answers_do_not(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "n INT")
    testStream(
        ms.toDF().where("n % 2 = 0"),
        "append",
        AddData(ms, [(1,), (2,)]),
        CheckAnswer((2,)),
        AddData(ms, [(4,), (5,), (6,)]),
        CheckNewAnswer((4,), (6,)),
        CheckAnswer((2,), (4,), (6,)),
        CheckAnswer((6,), (4,), (2,)),  # order does not matter...
    )
    with pytest.raises(AssertionError, match=r"action 2 \(CheckAnswer.*ordered=True"):
        testStream(ms.toDF(), "append", AddData(ms, [(1,)]), CheckAnswer((2,), (1,), ordered=True))


@pytest.mark.sparklet_only(reason=MANUAL_CLOCK)
def test_a_manual_clock_drives_processing_time_triggers(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "n INT")
    clock = ManualClock()
    testStream(
        ms.toDF(),
        "append",
        StartStream(trigger={"processingTime": "10 seconds"}, clock=clock),
        AddData(ms, [(1,)]),
        AdvanceManualClock(9_999),
        CheckAnswer(),  # the trigger is due at 10 s: nothing ran yet
        AdvanceManualClock(1),
        CheckAnswer((1,)),
        AssertOnQuery(lambda q: q.lastProgress["timestamp"] == "1970-01-01T00:00:10.000Z", "batch at 10 s"),
        AddData(ms, [(2,)]),
        AdvanceManualClock(10_000),
        CheckNewAnswer((2,)),
        AssertOnQuery(lambda q: q.lastProgress["timestamp"] == "1970-01-01T00:00:20.000Z", "batch at 20 s"),
    )


def test_window_struct_array_and_map_values_are_compared(spark: SparkSession) -> None:
    import datetime as dt

    from sparklet.sql import Row

    ms = MemoryStream(spark, "ts TIMESTAMP, tags ARRAY<STRING>, attrs MAP<STRING,INT>")
    t0 = dt.datetime(2024, 1, 1, 0, 0, 0)
    counts = (
        ms.toDF()
        .withWatermark("ts", "1 minute")
        .groupBy(F.window("ts", "1 minute"))
        .agg(F.count("*").alias("n"), F.max("tags").alias("tags"), F.first("attrs").alias("attrs"))
    )
    testStream(
        counts,
        "update",
        AddData(ms, [(t0, ["a", "b"], {"x": 1}), (t0 + dt.timedelta(seconds=30), ["c"], {"x": 1})]),
        # a window as a Row or as a (start, end) tuple; timestamps naive, as collect() gives them
        CheckLastBatch((Row(start=t0, end=t0 + dt.timedelta(minutes=1)), 2, ["c"], {"x": 1})),
        AddData(ms, [(t0 + dt.timedelta(minutes=1), ["d"], {"y": 2})]),
        CheckNewAnswer(((t0 + dt.timedelta(minutes=1), t0 + dt.timedelta(minutes=2)), 1, ["d"], {"y": 2})),
    )


def test_expect_failure_sees_the_user_error(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "n INT")

    @F.udf("int")
    def boom(n: int) -> int:
        raise ValueError(f"bad value {n}")

    testStream(
        ms.toDF().select(boom("n")),
        "append",
        AddData(ms, [(7,)]),
        ExpectFailure(StreamingQueryException, match="bad value 7"),
    )


@pytest.mark.sparklet_only(reason=MANUAL_CLOCK)
def test_processing_time_timeouts_follow_the_manual_clock(spark: SparkSession) -> None:
    from collections.abc import Iterator

    import pandas as pd

    from sparklet.sql.streaming.state import GroupState

    ms = MemoryStream(spark, "user STRING")

    def idle(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
        if state.hasTimedOut:
            state.remove()
            yield pd.DataFrame({"user": [key[0]], "status": ["idle"]})
            return
        state.update((sum(len(p) for p in pdfs),))
        state.setTimeoutDuration(60_000)  # a minute of processing time, no waiting
        yield pd.DataFrame({"user": [key[0]], "status": ["active"]})

    df = (
        ms.toDF()
        .groupBy("user")
        .applyInPandasWithState(idle, "user STRING, status STRING", "rows LONG", "update", "ProcessingTimeTimeout")
    )
    clock = ManualClock()
    testStream(
        df,
        "update",
        StartStream(trigger={"processingTime": "1 second"}, clock=clock),
        AddData(ms, [("a",)]),
        AdvanceManualClock(1_000),
        CheckNewAnswer(("a", "active")),
        AdvanceManualClock(59_000),
        CheckNewAnswer(),
        AdvanceManualClock(1_000),  # 61 s: the timeout's time, not yet past it (as Spark)
        CheckNewAnswer(),
        AdvanceManualClock(1_000),
        CheckNewAnswer(("a", "idle")),
        AssertOnQuery(lambda q: q.lastProgress["stateOperators"][0]["numRowsTotal"] == 0, "state removed"),
    )
