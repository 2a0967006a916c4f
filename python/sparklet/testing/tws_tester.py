"""Unit-testing a :class:`~sparklet.sql.streaming.StatefulProcessor` without a query.

:class:`TwsTester` has PySpark's ``TwsTester`` API (``testInPandas``,
``advanceProcessingTime``, ``advanceWatermark``, ``set/peekValueState`` and
the list and map equivalents) and runs the processor on sparklet's own state
classes, so state, timers and TTL behave as in a query: a timer fires once
the time is strictly beyond it, as Spark's engine fires them (PySpark's
tester fires at equality), and TTL is honoured (PySpark's tester ignores it).
"""

from __future__ import annotations

from typing import Any

from sparklet.errors import PySparkValueError
from sparklet.sql.streaming.stateful_processor import (
    ExpiredTimerInfo,
    ListState,
    MapState,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
    ValueState,
    _KeyState,
    _Var,
)

__all__ = ["TwsTester"]


def _as_key(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


class TwsTester:
    """Runs a processor key by key with simulated processing time and watermark.

    Parameters
    ----------
    processor : StatefulProcessor
        The processor under test (its ``init`` runs once, here).
    initialStatePandas : list of (key, pandas.DataFrame), optional
        Rows for ``handleInitialState`` per key.
    timeMode : str
        ``"None"``, ``"ProcessingTime"`` or ``"EventTime"``.
    eventTimeColumnName : str, optional
        In EventTime mode, the input column with event times (ms, or
        datetimes): rows behind the watermark are dropped, and the watermark
        follows the largest one less ``watermarkDelayMs``.
    watermarkDelayMs : int
        The watermark's delay behind the largest event time.
    """

    def __init__(
        self,
        processor: StatefulProcessor,
        initialStatePandas: list[tuple[Any, Any]] | None = None,
        timeMode: str = "None",
        eventTimeColumnName: str | None = None,
        watermarkDelayMs: int = 0,
    ) -> None:
        self._mode = timeMode.lower()
        if self._mode not in ("none", "processingtime", "eventtime"):
            raise PySparkValueError(f"Unknown time mode '{timeMode}'", "INVALID_TIME_MODE")
        if self._mode == "eventtime" and not eventTimeColumnName:
            raise PySparkValueError("eventTimeColumnName is required when timeMode is EventTime", "ARGUMENT_REQUIRED")
        self._processor = processor
        self._column = eventTimeColumnName
        self._delay = watermarkDelayMs
        self._handle = StatefulProcessorHandle(self._mode, 0, 0 if self._mode == "eventtime" else None)
        self._keys: dict[tuple, _KeyState] = {}
        processor.init(self._handle)
        for key, pdf in initialStatePandas or []:
            k = _as_key(key)
            self._run(k, lambda k=k, pdf=pdf: processor.handleInitialState(k, pdf, self._timer_values()))

    # ---- running the processor ---------------------------------------
    def _timer_values(self) -> TimerValues:
        return TimerValues(self._handle._now, self._handle._wm)

    def _run(self, key: tuple, call: Any) -> list[Any]:
        """Call a handler for ``key``; what it yields, as a list."""
        return self._as_key(key, lambda: list(call() or []))

    def _as_key(self, key: tuple, fn: Any) -> Any:
        """Run ``fn`` with ``key``'s state current (a key left with nothing is dropped)."""
        ks = self._keys.setdefault(key, _KeyState())
        self._handle._key_state = ks
        try:
            return fn()
        finally:
            self._handle._key_state = None
            if not ks.values and not ks.timers:
                self._keys.pop(key, None)

    def _expired(self) -> list[Any]:
        threshold = {"processingtime": self._handle._now, "eventtime": self._handle._wm}.get(self._mode)
        if threshold is None:
            return []
        due = sorted((t, k) for k, ks in self._keys.items() for t in ks.timers if t < threshold)
        out: list[Any] = []
        for t, key in due:
            self._keys[key].timers.discard(t)
            info = ExpiredTimerInfo(t)
            out.extend(
                self._run(key, lambda k=key, i=info: self._processor.handleExpiredTimer(k, self._timer_values(), i))
            )
        return out

    @staticmethod
    def _frame(parts: list[Any]) -> Any:
        import pandas as pd

        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    def _event_ms(self, pdf: Any) -> Any:
        import pandas as pd

        col = pdf[self._column]
        if pd.api.types.is_datetime64_any_dtype(col):
            return (col.astype("datetime64[ms]").astype("int64")).rename(None)
        return col

    def testInPandas(self, key: Any, input: Any) -> Any:  # noqa: A002 (PySpark's name)
        """Call ``handleInputRows`` for ``key`` with ``input`` (a pandas
        DataFrame; in EventTime mode without its late rows); in EventTime
        mode then move the watermark and fire the timers it passed. Returns
        everything emitted, as one DataFrame."""
        k = _as_key(key)
        rows = input
        if self._mode == "eventtime":
            rows = input[self._event_ms(input) > self._handle._wm].reset_index(drop=True)
        # a key whose rows are all late gets no call (the engine drops them before grouping)
        out = (
            self._run(k, lambda: self._processor.handleInputRows(k, iter([rows]), self._timer_values()))
            if len(rows)
            else []
        )
        if self._mode == "eventtime" and len(input):
            self._handle._wm = max(self._handle._wm, int(self._event_ms(input).max()) - self._delay)
            out.extend(self._expired())
        return self._frame(out)

    def advanceProcessingTimeInPandas(self, durationMs: int) -> Any:
        """Move processing time forward; fire the timers it passed."""
        if self._mode != "processingtime":
            raise PySparkValueError("advanceProcessingTime needs timeMode ProcessingTime", "UNSUPPORTED_OPERATION")
        self._handle._now += durationMs
        return self._frame(self._expired())

    def advanceWatermarkInPandas(self, durationMs: int) -> Any:
        """Move the watermark forward; fire the timers it passed."""
        if self._mode != "eventtime":
            raise PySparkValueError("advanceWatermark needs timeMode EventTime", "UNSUPPORTED_OPERATION")
        self._handle._wm += durationMs
        return self._frame(self._expired())

    def setProcessingTime(self, ms: int) -> None:
        """Set processing time (it decides TTL expiry in every mode) without firing timers."""
        self._handle._now = ms

    # ---- looking at and setting state --------------------------------
    def _var(self, name: str, kind: str) -> _Var:
        var = self._handle._vars.get(name)
        if var is None or var.kind != kind:
            raise PySparkValueError(f"The processor declares no {kind} state '{name}'", "STATE_NOT_EXISTS")
        return var

    def _with_key(self, key: Any, state: Any, fn: Any) -> Any:
        return self._as_key(_as_key(key), lambda: fn(state))

    def setValueState(self, stateName: str, key: Any, value: tuple) -> None:
        """Set a value state of ``key``."""
        state = ValueState(self._handle, self._var(stateName, "value"))
        self._with_key(key, state, lambda s: s.update(value))

    def peekValueState(self, stateName: str, key: Any) -> tuple | None:
        """A value state of ``key`` (None when unset or expired)."""
        state = ValueState(self._handle, self._var(stateName, "value"))
        return self._with_key(key, state, lambda s: s.get())

    def setListState(self, stateName: str, key: Any, value: list[tuple]) -> None:
        """Set a list state of ``key``."""
        state = ListState(self._handle, self._var(stateName, "list"))
        self._with_key(key, state, lambda s: s.put(value))

    def peekListState(self, stateName: str, key: Any) -> list[tuple]:
        """A list state of ``key``."""
        state = ListState(self._handle, self._var(stateName, "list"))
        return self._with_key(key, state, lambda s: list(s.get()))

    def setMapState(self, stateName: str, key: Any, value: dict) -> None:
        """Set a map state of ``key`` (user key tuple -> value tuple)."""
        state = MapState(self._handle, self._var(stateName, "map"))

        def put(s: MapState) -> None:
            s.clear()
            for k, v in value.items():
                s.updateValue(k, v)

        self._with_key(key, state, put)

    def peekMapState(self, stateName: str, key: Any) -> dict:
        """A map state of ``key``."""
        state = MapState(self._handle, self._var(stateName, "map"))
        return self._with_key(key, state, lambda s: {tuple(k): v for k, v in s.iterator()})

    def deleteState(self, stateName: str, key: Any) -> None:
        """Clear a state variable of ``key``."""
        var = self._handle._vars.get(stateName)
        if var is None:
            raise PySparkValueError(f"The processor declares no state '{stateName}'", "STATE_NOT_EXISTS")
        self._with_key(key, ValueState(self._handle, var), lambda s: s.clear())
