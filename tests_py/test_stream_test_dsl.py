"""``sparklet.testing.testStream``: Spark's stream-test DSL in Python,
deterministic under a manual clock."""

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

pytestmark = pytest.mark.sparklet_only(reason="sparklet's testStream DSL (PySpark has no Python counterpart)")


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
