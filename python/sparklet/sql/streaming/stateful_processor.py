"""``transformWithState`` / ``transformWithStateInPandas``: a
:class:`StatefulProcessor` with value, list and map state (optionally with
a TTL) and timers, as :mod:`pyspark.sql.streaming.stateful_processor`.

The state classes here work on one grouping key's state at a time (the
handle's current key); :mod:`sparklet.sql.streaming.processor_runner` runs
a micro-batch's keys through the processor and stores their state. State
values come back as PySpark returns them: plain tuples (nested structs
too), not Rows.
"""

from __future__ import annotations

import datetime
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from sparklet.errors import PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.sql.types import ArrayType, DataType, MapType, StructType, TimestampType, to_struct_type

__all__ = [
    "ExpiredTimerInfo",
    "ListState",
    "MapState",
    "StatefulProcessor",
    "StatefulProcessorHandle",
    "TimerValues",
    "ValueState",
]

TIMERS = "__timers"


class TimerValues:
    """The batch's processing time and watermark, as a processor's calls see them."""

    def __init__(self, currentProcessingTimeInMs: int = -1, currentWatermarkInMs: int = -1) -> None:
        self._now = currentProcessingTimeInMs
        self._wm = currentWatermarkInMs

    def getCurrentProcessingTimeInMs(self) -> int:
        """The batch's processing time (ms; -1 in time mode None)."""
        return self._now

    def getCurrentWatermarkInMs(self) -> int:
        """The event-time watermark (ms; -1 in time mode None)."""
        return self._wm


class ExpiredTimerInfo:
    """The timer a ``handleExpiredTimer`` call is for."""

    def __init__(self, expiryTimeInMs: int = -1) -> None:
        self._expiry = expiryTimeInMs

    def getExpiryTimeInMs(self) -> int:
        """When the timer was set to fire (ms)."""
        return self._expiry


def _internal(value: Any, dtype: DataType) -> Any:
    """``value`` as PySpark's state store hands it back: structs as tuples,
    maps as dicts, timestamps naive (UTC), pandas' scalars as Python's."""
    if value is None:
        return None
    if isinstance(dtype, StructType):
        items = value.values() if isinstance(value, dict) else value
        return tuple(_internal(v, f.dataType) for v, f in zip(items, dtype.fields))
    if isinstance(dtype, ArrayType):
        return [_internal(v, dtype.elementType) for v in value]
    if isinstance(dtype, MapType):
        pairs = value.items() if isinstance(value, dict) else value
        return {_internal(k, dtype.keyType): _internal(v, dtype.valueType) for k, v in pairs}
    if isinstance(dtype, TimestampType) and isinstance(value, datetime.datetime):
        if hasattr(value, "to_pydatetime"):  # a pandas Timestamp
            value = value.to_pydatetime()
        return value.astimezone(datetime.UTC).replace(tzinfo=None) if value.tzinfo is not None else value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):  # a numpy scalar
        return value.item()
    return value


@dataclass
class _Var:
    """A declared state variable: its kind, schemas and TTL."""

    name: str
    kind: str  # "value", "list" or "map"
    schema: StructType
    key_schema: StructType | None = None
    ttl_ms: int | None = None

    def arrow_type(self) -> pa.DataType:
        value = pa.struct(list(self.schema._to_arrow_schema()))
        expires = pa.field("expiresAt", pa.int64())
        if self.kind == "value":
            return pa.struct([pa.field("value", value), expires])
        if self.kind == "list":
            return pa.list_(pa.struct([pa.field("value", value), expires]))
        key = pa.struct(list(self.key_schema._to_arrow_schema()))  # type: ignore[union-attr]
        return pa.list_(pa.struct([pa.field("key", key), pa.field("value", value), expires]))


@dataclass
class _KeyState:
    """One grouping key's state while its calls run: values as internal
    tuples with their TTL expiry, and timers."""

    values: dict[str, Any] = field(default_factory=dict)
    timers: set[int] = field(default_factory=set)
    dirty: bool = False


@dataclass
class _Counts:
    """What Spark counts of a processor's state calls (progress ``customMetrics``)."""

    registered_timers: int = 0
    deleted_timers: int = 0
    ttl_removed: int = 0
    rows_updated: int = 0
    rows_removed: int = 0


def _tuple(value: Any, schema: StructType, what: str) -> tuple[Any, ...]:
    if value is None:
        raise PySparkTypeError(f"'None' is not a valid {what}", "CANNOT_BE_NONE")
    values = tuple(value)
    if len(values) != len(schema.names):
        raise PySparkValueError(
            f"The {what} has {len(schema.names)} fields ({', '.join(schema.names)}); got {len(values)} values",
            "STATE_SCHEMA_MISMATCH",
        )
    internal: tuple[Any, ...] = _internal(values, schema)
    return internal


def _alive(expires: int | None, now: int) -> bool:
    """Whether a value with TTL expiry ``expires`` (ms) is still there at ``now``."""
    return expires is None or expires > now


#: PySpark's message prefix per state kind and operation, when the
#: variable was deleted with ``deleteIfExists``
_ERRORS = {
    ("value", "exists"): "Error checking value state exists",
    ("value", "get"): "Error getting value state",
    ("value", "update"): "Error updating value state",
    ("value", "clear"): "Error clearing value state",
    ("list", "exists"): "Error checking value state exists",
    ("list", "update"): "Error updating value state",
    ("list", "clear"): "Error clearing value state",
    ("map", "exists"): "Error checking map state exists",
    ("map", "get"): "Error getting value",
    ("map", "contains"): "Error checking if map state contains key",
    ("map", "update"): "Error updating map state value",
    ("map", "remove"): "Error removing key from map state",
    ("map", "clear"): "Error clearing map state",
}


class _State:
    """What the state types share: their handle and variable."""

    def __init__(self, handle: StatefulProcessorHandle, var: _Var) -> None:
        self._handle = handle
        self._var = var

    def _declared(self, op: str) -> bool:
        """Whether the variable is still declared; a deleted one raises
        PySpark's error for ``op`` (reads of a list or map iterate nothing)."""
        if self._handle._vars.get(self._var.name) is self._var:
            return True
        prefix = _ERRORS.get((self._var.kind, op))
        if prefix is None:
            return False
        raise PySparkRuntimeError(f"{prefix}: {self._var.kind.capitalize()} state {self._var.name} is not initialized.")

    def _key(self) -> _KeyState:
        return self._handle._current()

    def _live(self, op: str) -> Any:
        """The variable's entries for the current key, without those whose TTL passed."""
        if not self._declared(op):
            return None
        entry = self._key().values.get(self._var.name)
        if entry is None or self._var.ttl_ms is None:
            return entry
        now = self._handle._now

        def alive(expires: int | None) -> bool:
            return _alive(expires, now)

        if self._var.kind == "value":
            return entry if alive(entry[1]) else None
        if self._var.kind == "list":
            return [e for e in entry if alive(e[1])]
        return {k: e for k, e in entry.items() if alive(e[1])}

    def _set(self, value: Any, op: str = "update") -> None:
        self._declared(op)
        ks = self._key()
        # Spark's counts of state rows written and removed: a row per write,
        # and per value, list or map entry removed
        before = ks.values.get(self._var.name)
        counts = self._handle._counts
        if op == "update":
            counts.rows_updated += 1
        elif before is not None:
            rows_before = len(before) if self._var.kind == "map" else 1
            rows_after = len(value) if self._var.kind == "map" and value else 0
            counts.rows_removed += rows_before - rows_after
        if value is None or (isinstance(value, (list, dict)) and not value):
            ks.values.pop(self._var.name, None)
        else:
            ks.values[self._var.name] = value
        ks.dirty = True

    def _value(self, value: Any) -> tuple[Any, ...]:
        return _tuple(value, self._var.schema, "state value")

    def _expiry(self) -> int | None:
        ttl = self._var.ttl_ms
        return None if ttl is None else self._handle._now + ttl

    def clear(self) -> None:
        """Remove the variable's state for the current key."""
        self._set(None, "clear")


class ValueState(_State):
    """One value per key."""

    def exists(self) -> bool:
        """Whether the key has a value."""
        return self._live("exists") is not None

    def get(self) -> tuple[Any, ...] | None:
        """The value, or None."""
        entry = self._live("get")
        return None if entry is None else entry[0]

    def update(self, newValue: tuple[Any, ...]) -> None:
        """Set the value."""
        self._declared("update")
        self._set((self._value(newValue), self._expiry()))


class ListState(_State):
    """A list of values per key."""

    def exists(self) -> bool:
        """Whether the key has any values."""
        return bool(self._live("exists"))

    def get(self) -> Iterator[tuple[Any, ...]]:
        """The values, in order."""
        return iter([v for v, _ in self._live("get") or []])

    def put(self, newState: list[tuple[Any, ...]]) -> None:
        """Replace the values."""
        self._declared("update")
        self._set([(self._value(v), self._expiry()) for v in newState])

    def appendValue(self, newState: tuple[Any, ...]) -> None:
        """Add a value at the end."""
        self._set([*(self._live("update") or []), (self._value(newState), self._expiry())])

    def appendList(self, newState: list[tuple[Any, ...]]) -> None:
        """Add values at the end."""
        self._set([*(self._live("update") or []), *[(self._value(v), self._expiry()) for v in newState]])


class MapState(_State):
    """A map from user keys to values, per grouping key."""

    def _user_key(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        return _tuple(key, self._var.key_schema, "map key")  # type: ignore[arg-type]

    def _entries(self, op: str) -> dict[tuple[Any, ...], tuple[tuple[Any, ...], int | None]]:
        return self._live(op) or {}

    def exists(self) -> bool:
        """Whether the map has any entries."""
        return bool(self._entries("exists"))

    def getValue(self, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The value of ``key``, or None."""
        entry = self._entries("get").get(self._user_key(key))
        return None if entry is None else entry[0]

    def containsKey(self, key: tuple[Any, ...]) -> bool:
        """Whether ``key`` has a value."""
        return self._user_key(key) in self._entries("contains")

    def updateValue(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:
        """Set ``key``'s value."""
        entries = self._entries("update")
        self._set({**entries, self._user_key(key): (self._value(value), self._expiry())})

    def iterator(self) -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        """(key, value) pairs."""
        return iter([(k, v) for k, (v, _) in self._entries("iterate").items()])

    def keys(self) -> Iterator[tuple[Any, ...]]:
        """The keys."""
        return iter([k for k, _ in self.iterator()])

    def values(self) -> Iterator[tuple[Any, ...]]:
        """The values."""
        return iter([v for _, v in self.iterator()])

    def removeKey(self, key: tuple[Any, ...]) -> None:
        """Remove ``key``."""
        entries = dict(self._entries("remove"))
        entries.pop(self._user_key(key), None)
        self._set(entries, "remove")


class StatefulProcessorHandle:
    """What a ``StatefulProcessor``'s ``init`` gets: it makes the state
    variables (value, list and map state, each kept per key and
    checkpointed) and, with a time mode, the current key's timers.

    Examples
    --------
    >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
    >>> class PerPage(StatefulProcessor):
    ...     def init(self, handle):
    ...         self.views = handle.getMapState("views", "page STRING", "n LONG")
    ...     def handleInputRows(self, key, rows, timerValues):
    ...         for r in rows:
    ...             n = (self.views.getValue((r.page,)) or (0,))[0]
    ...             self.views.updateValue((r.page,), (n + 1,))
    ...         yield Row(user=key[0], pages=sorted(k[0] for k in self.views.keys()))
    >>> tester = TwsTester(PerPage())
    >>> tester.test("a", [Row(page="x"), Row(page="y"), Row(page="x")])
    [Row(user='a', pages=['x', 'y'])]
    """

    def __init__(self, time_mode: str, now_ms: int = -1, watermark_ms: int = -1, in_query: bool = True) -> None:
        self._time_mode = time_mode
        #: a batch's handle (False: the one that learns the variables when the query is defined)
        self._in_query = in_query
        self._now = now_ms
        self._wm = watermark_ms
        self._vars: dict[str, _Var] = {}
        #: state variables declared and deleted (``deleteIfExists``), in order
        self._declarations: list[_Var] = []
        self._deletions: list[str] = []
        self._key_state: _KeyState | None = None
        self._counts = _Counts()

    def _current(self) -> _KeyState:
        if self._key_state is None:
            raise PySparkRuntimeError(
                "State can only be used in handleInputRows, handleExpiredTimer and handleInitialState, "
                "where there is a grouping key",
                "STATE_STORE_NO_GROUPING_KEY",
            )
        return self._key_state

    def _declare(self, var: _Var) -> None:
        if var.ttl_ms is not None and (not isinstance(var.ttl_ms, int) or var.ttl_ms <= 0):
            raise PySparkValueError(
                f"TTL duration for state '{var.name}' must be a positive number of ms, got {var.ttl_ms}",
                "STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE",
            )
        if var.name == TIMERS:
            raise PySparkValueError(f"'{TIMERS}' is a reserved state name", "STATE_NAME_RESERVED")
        if var.name in self._vars and self._in_query:
            raise PySparkRuntimeError(
                f"Error initializing {var.kind} state: {var.kind.capitalize()} state {var.name} already exists"
            )
        if var.ttl_ms is not None and self._time_mode == "none" and self._in_query:
            # Spark's state server refuses it when a batch's init runs
            raise PySparkRuntimeError(
                f"Error initializing {var.kind} state: [STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL] "
                f"Cannot use TTL for state={var.name} in timeMode=NoTime, use TimeMode.ProcessingTime() instead. "
                "SQLSTATE: 42802",
                "STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL",
            )
        self._vars[var.name] = var
        self._declarations.append(var)

    def getValueState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ValueState:
        """A value per key.

        Parameters
        ----------
        stateName : str
            the variable's name, unique in the processor
        schema : StructType or str
            the value's schema (a DDL string such as ``"n LONG"``)
        ttlDurationMs : int, optional
            expire a key's value this long after its last update

        Returns
        -------
        ValueState
            ``get``, ``update``, ``exists`` and ``clear`` for the current key

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
        """
        var = _Var(stateName, "value", to_struct_type(schema), ttl_ms=ttlDurationMs)
        self._declare(var)
        return ValueState(self, var)

    def getListState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ListState:
        """A list of values per key.

        Parameters
        ----------
        stateName : str
            the variable's name, unique in the processor
        schema : StructType or str
            the elements' schema
        ttlDurationMs : int, optional
            expire each element this long after it was added

        Returns
        -------
        ListState
            ``get``, ``put``, ``appendValue``, ``appendList``, ``exists`` and ``clear``

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Pages(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.pages = handle.getListState("pages", "page STRING")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             self.pages.appendValue((r.page,))
        ...         yield Row(user=key[0], pages=[p[0] for p in self.pages.get()])
        >>> tester = TwsTester(Pages())
        >>> tester.test("a", [Row(page="x")])
        [Row(user='a', pages=['x'])]
        >>> tester.test("a", [Row(page="y")])
        [Row(user='a', pages=['x', 'y'])]
        """
        var = _Var(stateName, "list", to_struct_type(schema), ttl_ms=ttlDurationMs)
        self._declare(var)
        return ListState(self, var)

    def getMapState(
        self,
        stateName: str,
        userKeySchema: StructType | str,
        valueSchema: StructType | str,
        ttlDurationMs: int | None = None,
    ) -> MapState:
        """A map per key, from user keys to values.

        Parameters
        ----------
        stateName : str
            the variable's name, unique in the processor
        userKeySchema : StructType or str
            the map keys' schema
        valueSchema : StructType or str
            the map values' schema
        ttlDurationMs : int, optional
            expire each entry this long after its last update

        Returns
        -------
        MapState
            ``getValue``, ``containsKey``, ``updateValue``, ``iterator``, ``keys``,
            ``values``, ``removeKey``, ``exists`` and ``clear``

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class PerPage(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.views = handle.getMapState("views", "page STRING", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         for r in rows:
        ...             n = (self.views.getValue((r.page,)) or (0,))[0]
        ...             self.views.updateValue((r.page,), (n + 1,))
        ...         yield Row(user=key[0], pages=sorted(k[0] for k in self.views.keys()))
        >>> tester = TwsTester(PerPage())
        >>> tester.test("a", [Row(page="x"), Row(page="y"), Row(page="x")])
        [Row(user='a', pages=['x', 'y'])]
        """
        var = _Var(stateName, "map", to_struct_type(valueSchema), to_struct_type(userKeySchema), ttlDurationMs)
        self._declare(var)
        return MapState(self, var)

    def deleteIfExists(self, stateName: str) -> None:
        """Delete a state variable and its values for every key; using it
        afterwards is an error.

        Parameters
        ----------
        stateName : str
            the variable's name

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Fresh(StatefulProcessor):
        ...     def init(self, handle):
        ...         handle.deleteIfExists("old_count")  # a variable an earlier version kept
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> TwsTester(Fresh()).test("a", [Row(page="x")])
        [Row(user='a', events=1)]
        """
        self._vars.pop(stateName, None)
        self._deletions.append(stateName)

    def _timers_allowed(self) -> _KeyState:
        if self._time_mode == "none":
            raise PySparkRuntimeError(
                "Cannot use timers with time mode None: use timeMode='ProcessingTime' or 'EventTime'",
                "STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_TIME_MODE",
            )
        return self._current()

    def registerTimer(self, expiryTimestampMs: int) -> None:
        """Call ``handleExpiredTimer`` for the current key once time passes
        ``expiryTimestampMs`` (processing time or the watermark, by the time mode).

        Parameters
        ----------
        expiryTimestampMs : int
            when, in ms since the epoch

        Raises
        ------
        PySparkRuntimeError
            with time mode None

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
        >>> tester.test("a", [Row(page="y")])  # moves the timer to 90 000
        []
        >>> tester.setProcessingTime(60_000)
        []
        >>> tester.setProcessingTime(90_000)
        [Row(user='a', idle_since=30000)]
        """
        ks = self._timers_allowed()
        ks.timers.add(int(expiryTimestampMs))
        ks.dirty = True
        self._counts.registered_timers += 1

    def deleteTimer(self, expiryTimestampMs: int) -> None:
        """Drop a timer of the current key.

        Parameters
        ----------
        expiryTimestampMs : int
            the timer's time, as registered

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
        >>> tester.test("a", [Row(page="y")])  # moves the timer to 90 000
        []
        >>> tester.setProcessingTime(60_000)
        []
        >>> tester.setProcessingTime(90_000)
        [Row(user='a', idle_since=30000)]
        """
        ks = self._timers_allowed()
        ks.timers.discard(int(expiryTimestampMs))
        ks.dirty = True
        self._counts.deleted_timers += 1

    def listTimers(self) -> Iterator[int]:
        """The current key's timers (in ``handleExpiredTimer``, the one firing too).

        Returns
        -------
        iterator of int
            their times, in ms, earliest first

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
        >>> tester.test("a", [Row(page="y")])  # moves the timer to 90 000
        []
        >>> tester.setProcessingTime(60_000)
        []
        >>> tester.setProcessingTime(90_000)
        [Row(user='a', idle_since=30000)]
        """
        return iter(sorted(self._timers_allowed().timers))


class StatefulProcessor(ABC):
    """Per-key logic of ``transformWithState`` (rows) and ``transformWithStateInPandas``.

    Subclass it: ``init`` declares the state variables, ``handleInputRows``
    turns a key's rows of a batch into output rows, and (with timers)
    ``handleExpiredTimer`` answers a timer that fired. ``TwsTester`` runs one
    without a query.

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
    """

    @abstractmethod
    def init(self, handle: StatefulProcessorHandle) -> None:
        """Declare the state variables (called before each micro-batch).

        Parameters
        ----------
        handle : StatefulProcessorHandle
            the handle that makes state variables and timers

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
        """

    @abstractmethod
    def handleInputRows(self, key: tuple[Any, ...], rows: Iterator[Any], timerValues: TimerValues) -> Iterator[Any]:
        """Handle a key's rows of this batch; yield the output.

        Parameters
        ----------
        key : tuple
            the grouping key's values
        rows : iterator
            the key's rows of this batch (Rows; pandas DataFrames with ``transformWithStateInPandas``)
        timerValues : TimerValues
            the batch's processing time and watermark (``getCurrentProcessingTimeInMs``, ``getCurrentWatermarkInMs``)

        Returns
        -------
        iterator
            Rows (or pandas DataFrames) of the output schema

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
        """

    def handleExpiredTimer(
        self, key: tuple[Any, ...], timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[Any]:
        """Handle a timer of ``key`` that fired; yield output as ``handleInputRows`` does.

        Parameters
        ----------
        key : tuple
            the grouping key's values
        timerValues : TimerValues
            the batch's processing time and watermark (``getCurrentProcessingTimeInMs``, ``getCurrentWatermarkInMs``)
        expiredTimerInfo : ExpiredTimerInfo
            the timer (``getExpiryTimeInMs``)

        Returns
        -------
        iterator
            Rows (or pandas DataFrames) of the output schema; none by default

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
        >>> tester.test("a", [Row(page="y")])  # moves the timer to 90 000
        []
        >>> tester.setProcessingTime(60_000)
        []
        >>> tester.setProcessingTime(90_000)
        [Row(user='a', idle_since=30000)]
        """
        return iter([])

    def handleInitialState(self, key: tuple[Any, ...], initialState: Any, timerValues: TimerValues) -> None:  # noqa: B027
        """Set ``key``'s state from the query's initial state (first batch only):
        a call per Row, or per pandas DataFrame of the key's rows.

        Parameters
        ----------
        key : tuple
            the grouping key's values
        initialState : Row or pandas.DataFrame
            the key's initial state
        timerValues : TimerValues
            the batch's processing time and watermark (``getCurrentProcessingTimeInMs``, ``getCurrentWatermarkInMs``)

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor, TwsTester
        >>> class Counter(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.count = handle.getValueState("count", "n LONG")
        ...     def handleInitialState(self, key, initialState, timerValues):
        ...         self.count.update((initialState.n,))
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.count.get() or (0,))[0] + len(list(rows))
        ...         self.count.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> tester = TwsTester(Counter(), initialStateRow=[("a", Row(n=10))])
        >>> tester.test("a", [Row(page="x")])
        [Row(user='a', events=11)]
        """

    def close(self) -> None:  # noqa: B027 (optional, as in PySpark)
        """Called after each micro-batch: release what ``init`` opened.

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
        ...     def close(self):
        ...         pass  # release what init opened (connections, files)
        >>> TwsTester(Counter()).test("a", [Row(page="x")])
        [Row(user='a', events=1)]
        """
