"""TwsTester (PySpark 4.2's ``pyspark.sql.streaming.TwsTester``): a processor's
logic tested key by key, with the time and watermark the test sets."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

from sparklet.errors import IllegalArgumentException, PySparkAssertionError, PySparkValueError
from sparklet.sql import Row
from sparklet.sql.streaming import StatefulProcessor, StatefulProcessorHandle, TwsTester
from sparklet.sql.streaming.stateful_processor import ExpiredTimerInfo, TimerValues


class Counter(StatefulProcessor):
    """Rows per key (row-based), from an initial count; a reminder timer 100 ms on."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.count = handle.getValueState("count", "n LONG")
        self.values = handle.getListState("values", "v STRING")
        self.per_value = handle.getMapState("perValue", "v STRING", "c LONG")

    def handleInitialState(self, key: tuple, initialState: Row, timerValues: TimerValues) -> None:
        self.count.update((initialState.start,))

    def handleInputRows(self, key: tuple, rows: Iterator[Row], timerValues: TimerValues) -> Iterator[Row]:
        n = (self.count.get() or (0,))[0]
        for r in rows:
            n += 1
            self.values.appendValue((r.value,))
            c = self.per_value.getValue((r.value,))
            self.per_value.updateValue((r.value,), ((c[0] if c else 0) + 1,))
        self.count.update((n,))
        if timerValues.getCurrentProcessingTimeInMs() >= 0:
            self.handle.registerTimer(timerValues.getCurrentProcessingTimeInMs() + 100)
        yield Row(key=key[0], count=n)

    def handleExpiredTimer(
        self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[Row]:
        yield Row(key=key[0], count=-expiredTimerInfo.getExpiryTimeInMs())


class PandasCounter(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("count", "n LONG")

    def handleInputRows(self, key: tuple, rows: Iterator[pd.DataFrame], timerValues: TimerValues) -> Iterator:
        n = (self.count.get() or (0,))[0] + sum(len(p) for p in rows)
        self.count.update((n,))
        yield pd.DataFrame({"key": [key[0]], "count": [n]})


def test_rows_state_and_initial_state() -> None:
    tester = TwsTester(Counter(), initialStateRow=[("k1", Row(start=10))])
    assert tester.test("k1", [Row(value="a"), Row(value="b"), Row(value="a")]) == [Row(key="k1", count=13)]
    assert tester.peekValueState("count", "k1") == (13,)
    assert tester.peekListState("values", "k1") == [("a",), ("b",), ("a",)]
    assert tester.peekMapState("perValue", "k1") == {("a",): (2,), ("b",): (1,)}
    tester.updateValueState("count", "k2", (5,))
    assert tester.test("k2", [Row(value="z")]) == [Row(key="k2", count=6)]
    tester.deleteState("count", "k2")
    assert tester.peekValueState("count", "k2") is None and tester.peekListState("values", "k9") == []
    # an empty input still calls the processor
    assert tester.test("k3", []) == [Row(key="k3", count=0)]


def test_pandas_processor_and_an_empty_input() -> None:
    tester = TwsTester(PandasCounter())
    out = tester.testInPandas("k", pd.DataFrame({"value": ["a", "b"]}))
    assert out.to_dict("records") == [{"key": "k", "count": 2}]
    empty = tester.testInPandas("k", pd.DataFrame({"value": []}))
    assert empty.to_dict("records") == [{"key": "k", "count": 2}]


def test_unknown_state_names_fail_as_pysparks_do() -> None:
    tester = TwsTester(PandasCounter())
    with pytest.raises(AssertionError, match="State nope has not been initialized"):
        tester.peekValueState("nope", "k")
    with pytest.raises(PySparkAssertionError) as e:
        tester.deleteState("nope", "k")
    assert e.value.getCondition() == "STATE_NOT_EXISTS"


def test_processing_time_timers_fire_when_the_time_reaches_them() -> None:
    tester = TwsTester(Counter(), timeMode="ProcessingTime")
    tester.setProcessingTime(1000)
    assert tester.test("k", [Row(value="a")]) == [Row(key="k", count=1)]
    assert tester.setProcessingTime(1099) == []
    assert tester.setProcessingTime(1100) == [Row(key="k", count=-1100)]
    with pytest.raises(IllegalArgumentException, match="Processing time must move forward"):
        tester.setProcessingTime(1100)
    with pytest.raises(PySparkValueError) as e:
        tester.setWatermark(5)
    assert e.value.getCondition() == "UNSUPPORTED_OPERATION"


def test_event_time_needs_an_extractor_and_drops_late_rows() -> None:
    with pytest.raises(PySparkValueError) as e:
        TwsTester(PandasCounter(), timeMode="EventTime")
    assert e.value.getCondition() == "ARGUMENT_REQUIRED"
    tester = TwsTester(Counter(), timeMode="EventTime", eventTimeExtractor=lambda r: r.ts)
    tester.setWatermark(50)
    # the row at the watermark is late; the timer lands at processing time 0 + 100
    assert tester.test("k", [Row(value="a", ts=50), Row(value="b", ts=51)]) == [Row(key="k", count=1)]
    assert tester.setWatermark(100) == [Row(key="k", count=-100)]
