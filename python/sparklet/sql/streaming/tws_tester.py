"""Unit-testing a :class:`~sparklet.sql.streaming.StatefulProcessor` without a
query: :class:`TwsTester`, PySpark 4.2's ``pyspark.sql.streaming.TwsTester``.

As PySpark's, it runs the processor one key at a time against state held in
dicts (values kept as given, no schema applied, TTL ignored), with a
processing time and a watermark the test sets; a timer fires once the time
reaches it (a query fires it only once time is past it). A query runs the
same processor with sparklet's engine (:mod:`.processor_runner`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sparklet.errors import IllegalArgumentException, PySparkAssertionError, PySparkValueError
from sparklet.sql.streaming.stateful_processor import (
    ExpiredTimerInfo,
    ListState,
    MapState,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
    ValueState,
)
from sparklet.sql.types import Row, StructType

__all__ = ["TwsTester"]


class _KeyedValue(ValueState):
    """A value per grouping key."""

    def __init__(self, handle: _TesterHandle) -> None:
        self.handle = handle
        self.state: dict[Any, tuple[Any, ...]] = {}

    def exists(self) -> bool:
        return self.get() is not None

    def get(self) -> tuple[Any, ...] | None:
        return self.state.get(self.handle.grouping_key)

    def update(self, newValue: tuple[Any, ...]) -> None:
        self.state[self.handle.grouping_key] = newValue

    def clear(self) -> None:
        self.state.pop(self.handle.grouping_key, None)


class _KeyedList(ListState):
    """A list per grouping key."""

    def __init__(self, handle: _TesterHandle) -> None:
        self.handle = handle
        self.state: dict[Any, list[tuple[Any, ...]]] = {}

    def exists(self) -> bool:
        return self.handle.grouping_key in self.state

    def get(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.state.get(self.handle.grouping_key, []))

    def put(self, newState: list[tuple[Any, ...]]) -> None:
        self.state[self.handle.grouping_key] = newState

    def appendValue(self, newState: tuple[Any, ...]) -> None:
        self.state.setdefault(self.handle.grouping_key, []).append(newState)

    def appendList(self, newState: list[tuple[Any, ...]]) -> None:
        self.state.setdefault(self.handle.grouping_key, []).extend(newState)

    def clear(self) -> None:
        self.state.pop(self.handle.grouping_key, None)


class _KeyedMap(MapState):
    """A map per grouping key."""

    def __init__(self, handle: _TesterHandle) -> None:
        self.handle = handle
        self.state: dict[Any, dict[tuple[Any, ...], tuple[Any, ...]]] = {}

    def _map(self) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        return self.state.get(self.handle.grouping_key, {})

    def exists(self) -> bool:
        return self.handle.grouping_key in self.state

    def getValue(self, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
        return self._map().get(key)

    def containsKey(self, key: tuple[Any, ...]) -> bool:
        return key in self._map()

    def updateValue(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:
        self.state.setdefault(self.handle.grouping_key, {})[key] = value

    def iterator(self) -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        return iter(list(self._map().items()))

    def keys(self) -> Iterator[tuple[Any, ...]]:
        return iter(list(self._map()))

    def values(self) -> Iterator[tuple[Any, ...]]:
        return iter(list(self._map().values()))

    def removeKey(self, key: tuple[Any, ...]) -> None:
        self._map().pop(key, None)

    def clear(self) -> None:
        self.state.pop(self.handle.grouping_key, None)


class _TesterHandle(StatefulProcessorHandle):
    """The handle a :class:`TwsTester` gives the processor: state in dicts
    keyed by the current grouping key, timers per key."""

    def __init__(self, timeMode: str = "None") -> None:
        self.grouping_key: Any = None
        self.value_states: dict[str, _KeyedValue] = {}
        self.list_states: dict[str, _KeyedList] = {}
        self.map_states: dict[str, _KeyedMap] = {}
        self._timeMode = timeMode.lower()
        self._timers: dict[Any, set[int]] = {}
        self._currentWatermarkMs = 0

    def setGroupingKey(self, key: Any) -> None:
        """The key later state calls are for."""
        self.grouping_key = key

    def setWatermark(self, watermarkMs: int) -> None:
        """The watermark timers are checked against when registered."""
        self._currentWatermarkMs = watermarkMs

    def getValueState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ValueState:
        return self.value_states.setdefault(stateName, _KeyedValue(self))

    def getListState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ListState:
        return self.list_states.setdefault(stateName, _KeyedList(self))

    def getMapState(
        self,
        stateName: str,
        userKeySchema: StructType | str,
        valueSchema: StructType | str,
        ttlDurationMs: int | None = None,
    ) -> MapState:
        return self.map_states.setdefault(stateName, _KeyedMap(self))

    def _timers_allowed(self) -> None:  # type: ignore[override]
        if self._timeMode == "none":
            raise PySparkValueError(
                "[UNSUPPORTED_OPERATION] Timers with TimeMode.None is not supported.",
                "UNSUPPORTED_OPERATION",
            )

    def registerTimer(self, expiryTimestampMs: int) -> None:
        self._timers_allowed()
        if self._timeMode == "eventtime" and expiryTimestampMs <= self._currentWatermarkMs:
            raise IllegalArgumentException(
                f"Cannot register timer with expiry {expiryTimestampMs} ms "
                f"which is not later than the current watermark {self._currentWatermarkMs} ms."
            )
        self._timers.setdefault(self.grouping_key, set()).add(expiryTimestampMs)

    def deleteTimer(self, expiryTimestampMs: int) -> None:
        self._timers_allowed()
        timers = self._timers.get(self.grouping_key)
        if timers is not None:
            timers.discard(expiryTimestampMs)
            if not timers:
                del self._timers[self.grouping_key]

    def listTimers(self) -> Iterator[int]:
        self._timers_allowed()
        return iter(sorted(self._timers.get(self.grouping_key, ())))

    def deleteIfExists(self, stateName: str) -> None:
        for states in (self.value_states, self.list_states, self.map_states):
            states.pop(stateName, None)

    def deleteState(self, stateName: str) -> None:
        """Clear ``stateName`` for the current key."""
        for states in (self.value_states, self.list_states, self.map_states):
            if stateName in states:
                states[stateName].clear()
                return
        raise PySparkAssertionError(
            "[STATE_NOT_EXISTS] State is either not defined or has already been removed.", "STATE_NOT_EXISTS"
        )


def _frames(parts: list[Any]) -> Any:
    import pandas as pd

    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


class TwsTester:
    """Runs a :class:`StatefulProcessor` key by key with a simulated
    processing time and watermark, to unit-test its logic.

    Parameters
    ----------
    processor : StatefulProcessor
        The processor under test (``init`` runs once, here).
    initialStateRow : list of (key, Row), optional
        Initial state of a row-based processor, one ``handleInitialState`` call each.
    initialStatePandas : list of (key, pandas.DataFrame), optional
        Initial state of a pandas processor.
    timeMode : str
        ``"None"``, ``"ProcessingTime"`` or ``"EventTime"`` (any case).
    outputMode : str
        The query's output mode (kept for the processor's information).
    eventTimeExtractor : callable, optional
        In EventTime mode (required there): a row's event time in ms; rows
        at or behind the watermark are dropped before the processor sees them.

    Raises
    ------
    PySparkValueError
        ``ARGUMENT_REQUIRED`` in EventTime mode without an
        ``eventTimeExtractor``.

    Examples
    --------
    >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
    >>> class Counter(StatefulProcessor):
    ...     def init(self, handle):
    ...         self.count = handle.getValueState("count", "n LONG")
    ...     def handleInputRows(self, key, rows, timerValues):
    ...         n = (self.count.get() or (0,))[0] + len(list(rows))
    ...         self.count.update((n,))
    ...         yield Row(user=key[0], events=n)
    >>> tester = TwsTester(Counter())
    >>> tester.test("a", [Row(page="x"), Row(page="y")])
    [Row(user='a', events=2)]
    >>> tester.test("a", [Row(page="z")])
    [Row(user='a', events=3)]
    >>> tester.peekValueState("count", "a")
    (3,)
    """

    def __init__(
        self,
        processor: StatefulProcessor,
        initialStateRow: list[tuple[Any, Row]] | None = None,
        initialStatePandas: list[tuple[Any, Any]] | None = None,
        timeMode: str = "None",
        outputMode: str = "Append",
        eventTimeExtractor: Callable[[Any], int] | None = None,
    ) -> None:
        self.processor = processor
        self._timeMode = timeMode.lower()
        self._outputMode = outputMode
        self._eventTimeExtractor = eventTimeExtractor
        self._usingPandas = initialStatePandas is not None
        self._currentProcessingTimeMs = 0
        self._currentWatermarkMs = 0
        self.handle = _TesterHandle(timeMode)
        assert self._timeMode in ("none", "eventtime", "processingtime")
        if self._timeMode == "eventtime" and eventTimeExtractor is None:
            raise PySparkValueError(
                "[ARGUMENT_REQUIRED] Argument `eventTimeExtractor` is required when timeMode is EventTime.",
                "ARGUMENT_REQUIRED",
            )
        processor.init(self.handle)
        if initialStateRow is not None:
            assert initialStatePandas is None, "Cannot specify both Row and Pandas initial states."
        for key, initial in initialStateRow or initialStatePandas or []:
            self.handle.setGroupingKey(key)
            processor.handleInitialState((key,), initial, self._timer_values())

    def _timer_values(self) -> TimerValues:
        if self._timeMode == "none":
            return TimerValues(-1, -1)
        wm = self._currentWatermarkMs if self._timeMode == "eventtime" else -1
        return TimerValues(self._currentProcessingTimeMs, wm)

    def test(self, key: Any, input: list[Row]) -> list[Row]:  # noqa: A002 (PySpark's name)
        """Run ``handleInputRows`` for one key, as a micro-batch with rows for it does.

        In EventTime mode, rows whose event time is at or behind the
        watermark set by :meth:`setWatermark` are dropped first, as a query
        drops late rows; the watermark does not move by itself.

        Parameters
        ----------
        key : Any
            The grouping key (the processor sees it as a one-value tuple).
        input : list of Row
            The key's rows in this batch.

        Returns
        -------
        list of Row
            What the processor yielded.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Counter(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> tester = TwsTester(Counter())
        >>> tester.test("a", [Row(page="x")])
        [Row(user='a', events=1)]
        >>> tester.test("b", [Row(page="x"), Row(page="x")])
        [Row(user='b', events=2)]
        """
        self._usingPandas = False
        self.handle.setGroupingKey(key)
        rows = input
        if self._timeMode == "eventtime" and self._eventTimeExtractor is not None:
            rows = [r for r in input if self._eventTimeExtractor(r) > self._currentWatermarkMs]
        return list(self.processor.handleInputRows((key,), iter(rows), self._timer_values()))

    def testInPandas(self, key: Any, input: Any) -> Any:  # noqa: A002 (PySpark's name)
        """:meth:`test` for a pandas processor (``transformWithStateInPandas``).

        Parameters
        ----------
        key : Any
            The grouping key.
        input : pandas.DataFrame
            The key's rows in this batch.

        Returns
        -------
        pandas.DataFrame
            What the processor yielded, as one DataFrame (empty when it
            yielded none).

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Total(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.total = handle.getValueState("total", "amount DOUBLE")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         total = (self.total.get() or (0.0,))[0] + sum(df["amount"].sum() for df in rows)
        ...         self.total.update((total,))
        ...         yield pd.DataFrame({"user": [key[0]], "total": [total]})
        >>> tester = TwsTester(Total(), initialStatePandas=[])
        >>> tester.testInPandas("a", pd.DataFrame({"amount": [1.5, 2.0]}))
          user  total
        0    a    3.5
        """
        self._usingPandas = True
        self.handle.setGroupingKey(key)
        rows = input
        if self._timeMode == "eventtime" and self._eventTimeExtractor is not None:
            extract = self._eventTimeExtractor
            late = input.apply(lambda r: extract(r) > self._currentWatermarkMs, axis=1) if len(input) else []
            rows = input[late].reset_index(drop=True) if len(input) else input
        return _frames(list(self.processor.handleInputRows((key,), iter([rows]), self._timer_values())))

    # ---- state ---------------------------------------------------------
    def _states(self, kind: dict[str, Any], stateName: str) -> Any:
        assert stateName in kind, f"State {stateName} has not been initialized."
        return kind[stateName]

    def updateValueState(self, stateName: str, key: Any, value: tuple[Any, ...]) -> None:
        """Set a key's value state, as if an earlier batch had.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.
        value : tuple
            The value.

        Raises
        ------
        AssertionError
            The processor has no state of that name.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Counter(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> tester = TwsTester(Counter())
        >>> tester.updateValueState("count", "a", (10,))
        >>> tester.test("a", [Row(page="x")])
        [Row(user='a', events=11)]
        """
        self._states(self.handle.value_states, stateName).state[key] = value

    def peekValueState(self, stateName: str, key: Any) -> tuple[Any, ...] | None:
        """A key's value state, without changing it.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.

        Returns
        -------
        tuple or None
            The value, or None when the key has none.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Counter(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> tester = TwsTester(Counter())
        >>> _ = tester.test("a", [Row(page="x")])
        >>> tester.peekValueState("count", "a")
        (1,)
        >>> tester.peekValueState("count", "b") is None
        True
        """
        state = self._states(self.handle.value_states, stateName)
        self.handle.setGroupingKey(key)
        value: tuple[Any, ...] | None = state.get()
        return value

    def updateListState(self, stateName: str, key: Any, value: list[tuple[Any, ...]]) -> None:
        """Set a key's list state, as if an earlier batch had.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.
        value : list of tuple
            The list's values.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Seen(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.pages = handle.getListState("pages", "page STRING")
        ...         self.visits = handle.getMapState("visits", "page STRING", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.pages.appendValue((r.page,))
        ...             n = (self.visits.getValue((r.page,)) or (0,))[0]
        ...             self.visits.updateValue((r.page,), (n + 1,))
        ...         return iter([])
        >>> tester = TwsTester(Seen())
        >>> tester.updateListState("pages", "a", [("home",)])
        >>> tester.test("a", [Row(page="cart")])
        []
        >>> tester.peekListState("pages", "a")
        [('home',), ('cart',)]
        """
        self._states(self.handle.list_states, stateName).state[key] = value

    def peekListState(self, stateName: str, key: Any) -> list[tuple[Any, ...]]:
        """A key's list state, without changing it.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.

        Returns
        -------
        list of tuple
            The list's values (empty when the key has none).

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Seen(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.pages = handle.getListState("pages", "page STRING")
        ...         self.visits = handle.getMapState("visits", "page STRING", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.pages.appendValue((r.page,))
        ...             n = (self.visits.getValue((r.page,)) or (0,))[0]
        ...             self.visits.updateValue((r.page,), (n + 1,))
        ...         return iter([])
        >>> tester = TwsTester(Seen())
        >>> tester.test("a", [Row(page="home"), Row(page="cart")])
        []
        >>> tester.peekListState("pages", "a")
        [('home',), ('cart',)]
        >>> tester.peekListState("pages", "b")
        []
        """
        state = self._states(self.handle.list_states, stateName)
        self.handle.setGroupingKey(key)
        return list(state.get())

    def updateMapState(self, stateName: str, key: Any, value: dict[str, Any]) -> None:
        """Set a key's map state, as if an earlier batch had.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.
        value : dict
            The map, user key tuples to value tuples.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Seen(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.pages = handle.getListState("pages", "page STRING")
        ...         self.visits = handle.getMapState("visits", "page STRING", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.pages.appendValue((r.page,))
        ...             n = (self.visits.getValue((r.page,)) or (0,))[0]
        ...             self.visits.updateValue((r.page,), (n + 1,))
        ...         return iter([])
        >>> tester = TwsTester(Seen())
        >>> tester.updateMapState("visits", "a", {("home",): (4,)})
        >>> tester.test("a", [Row(page="home")])
        []
        >>> tester.peekMapState("visits", "a")
        {('home',): (5,)}
        """
        self._states(self.handle.map_states, stateName).state[key] = dict(value)

    def peekMapState(self, stateName: str, key: Any) -> dict[str, Any]:
        """A key's map state, without changing it.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.

        Returns
        -------
        dict
            User key tuples to value tuples (empty when the key has none).

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Seen(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.pages = handle.getListState("pages", "page STRING")
        ...         self.visits = handle.getMapState("visits", "page STRING", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.pages.appendValue((r.page,))
        ...             n = (self.visits.getValue((r.page,)) or (0,))[0]
        ...             self.visits.updateValue((r.page,), (n + 1,))
        ...         return iter([])
        >>> tester = TwsTester(Seen())
        >>> tester.test("a", [Row(page="home"), Row(page="home"), Row(page="cart")])
        []
        >>> tester.peekMapState("visits", "a")
        {('home',): (2,), ('cart',): (1,)}
        """
        state = self._states(self.handle.map_states, stateName)
        self.handle.setGroupingKey(key)
        return dict(state.iterator())

    def deleteState(self, stateName: str, key: Any) -> None:
        """Clear one of a key's states.

        Parameters
        ----------
        stateName : str
            The name the processor's ``init`` gave the state.
        key : Any
            The grouping key.

        Raises
        ------
        PySparkAssertionError
            ``STATE_NOT_EXISTS`` when the processor has no state of that
            name.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Counter(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> tester = TwsTester(Counter())
        >>> _ = tester.test("a", [Row(page="x")])
        >>> tester.deleteState("count", "a")
        >>> tester.peekValueState("count", "a") is None
        True
        """
        self.handle.setGroupingKey(key)
        self.handle.deleteState(stateName)

    # ---- time ----------------------------------------------------------
    def _fire(self, threshold: int) -> Any:
        """Call ``handleExpiredTimer`` for each timer at or before ``threshold``."""
        out: list[Any] = []
        for key in list(self.handle._timers):
            self.handle.setGroupingKey(key)
            for expiry in [t for t in sorted(self.handle._timers.get(key, ())) if t <= threshold]:
                info = ExpiredTimerInfo(expiry)
                out.extend(self.processor.handleExpiredTimer((key,), self._timer_values(), info))
                self.handle.deleteTimer(expiry)
        return _frames(out) if self._usingPandas else out

    def setProcessingTime(self, currentTimeMs: int) -> Any:
        """Move the processing time forward and fire the timers it reached.

        Each timer at or before the new time runs ``handleExpiredTimer``
        once for its key, then is deleted.

        Parameters
        ----------
        currentTimeMs : int
            The new processing time, in milliseconds since the epoch; later
            than the current one.

        Returns
        -------
        list of Row or pandas.DataFrame
            What the timers' calls yielded (one DataFrame for a pandas
            processor).

        Raises
        ------
        PySparkValueError
            ``UNSUPPORTED_OPERATION`` unless ``timeMode`` is ProcessingTime.
        IllegalArgumentException
            The time does not move forward.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Idle(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.handle = handle
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for t in self.handle.listTimers():
        ...             self.handle.deleteTimer(t)
        ...         self.handle.registerTimer(timerValues.getCurrentProcessingTimeInMs() + 60_000)
        ...         return iter([])
        ...     def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        ...         yield Row(user=key[0], idle_since=expiredTimerInfo.getExpiryTimeInMs() - 60_000)
        >>> tester = TwsTester(Idle(), timeMode="ProcessingTime")
        >>> tester.test("a", [Row(page="x")])
        []
        >>> tester.setProcessingTime(30_000)
        []
        >>> tester.setProcessingTime(60_000)
        [Row(user='a', idle_since=0)]
        """
        if self._timeMode != "processingtime":
            raise PySparkValueError(
                "[UNSUPPORTED_OPERATION] setProcessingTime with TimeMode other than ProcessingTime is not supported.",
                "UNSUPPORTED_OPERATION",
            )
        if currentTimeMs <= self._currentProcessingTimeMs:
            raise IllegalArgumentException(
                f"Processing time must move forward. Current: {self._currentProcessingTimeMs} ms, "
                f"provided: {currentTimeMs} ms."
            )
        self._currentProcessingTimeMs = currentTimeMs
        return self._fire(currentTimeMs)

    def setWatermark(self, currentWatermarkMs: int) -> Any:
        """Move the watermark forward and fire the event-time timers it reached.

        Parameters
        ----------
        currentWatermarkMs : int
            The new watermark, in milliseconds since the epoch; later than
            the current one. Rows at or behind it are dropped by later
            :meth:`test` calls.

        Returns
        -------
        list of Row or pandas.DataFrame
            What the timers' ``handleExpiredTimer`` calls yielded.

        Raises
        ------
        PySparkValueError
            ``UNSUPPORTED_OPERATION`` unless ``timeMode`` is EventTime.
        IllegalArgumentException
            The watermark does not move forward.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Latest(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.handle = handle
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.handle.registerTimer(r.ts + 10_000)
        ...             yield Row(user=key[0], ts=r.ts)
        ...     def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        ...         yield Row(user=key[0], ts=-1)
        >>> tester = TwsTester(Latest(), timeMode="EventTime", eventTimeExtractor=lambda r: r.ts)
        >>> tester.test("a", [Row(ts=5_000)])
        [Row(user='a', ts=5000)]
        >>> tester.setWatermark(15_000)
        [Row(user='a', ts=-1)]
        >>> tester.test("a", [Row(ts=12_000), Row(ts=20_000)])  # 12000 is late
        [Row(user='a', ts=20000)]
        """
        if self._timeMode != "eventtime":
            raise PySparkValueError(
                "[UNSUPPORTED_OPERATION] setWatermark with TimeMode other than EventTime is not supported.",
                "UNSUPPORTED_OPERATION",
            )
        if currentWatermarkMs <= self._currentWatermarkMs:
            raise IllegalArgumentException(
                f"Watermark must move forward. Current: {self._currentWatermarkMs} ms, "
                f"provided: {currentWatermarkMs} ms."
            )
        self._currentWatermarkMs = currentWatermarkMs
        self.handle.setWatermark(currentWatermarkMs)
        return self._fire(currentWatermarkMs)
