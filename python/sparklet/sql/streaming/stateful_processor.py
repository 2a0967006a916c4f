"""``transformWithStateInPandas``: a :class:`StatefulProcessor` with value,
list and map state (optionally with a TTL) and timers, as
:mod:`pyspark.sql.streaming.stateful_processor`.

The engine keeps one stored value per grouping key: a struct with a field
per state variable the processor declares in ``init`` (a value, a list of
values, or a list of map entries, each value with its TTL expiry) and the
key's timers, in Arrow's row format (never pickled). Besides the struct it
stores the key's earliest timer and earliest TTL expiry, the two times it
needs to know when to call the processor for a key without rows. Each
micro-batch makes one call into Python (:func:`_run_processor`), which runs
the processor key by key against those structs and returns them changed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from sparklet.errors import PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.sql.streaming.state import _Batch, _group_rows, _no_gc_pauses, _Output
from sparklet.sql.types import Row, StructType, to_struct_type

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

    def __init__(self, processing_time_ms: int, watermark_ms: int | None) -> None:
        self._now = processing_time_ms
        self._wm = watermark_ms

    def getCurrentProcessingTimeInMs(self) -> int:
        """The batch's processing time (ms)."""
        return self._now

    def getCurrentWatermarkInMs(self) -> int:
        """The event-time watermark (ms; -1 without one)."""
        return -1 if self._wm is None else self._wm


class ExpiredTimerInfo:
    """The timer a ``handleExpiredTimer`` call is for."""

    def __init__(self, expiry_ms: int) -> None:
        self._expiry = expiry_ms

    def getExpiryTimeInMs(self) -> int:
        """When the timer was set to fire (ms)."""
        return self._expiry


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
    """One grouping key's state while its calls run."""

    values: dict[str, Any] = field(default_factory=dict)
    timers: set[int] = field(default_factory=set)
    dirty: bool = False


def _tuple(value: Any, schema: StructType, what: str) -> tuple:
    if value is None:
        raise PySparkTypeError(f"'None' is not a valid {what}", "CANNOT_BE_NONE")
    values = tuple(value)
    if len(values) != len(schema.names):
        raise PySparkValueError(
            f"The {what} has {len(schema.names)} fields ({', '.join(schema.names)}); got {len(values)} values",
            "STATE_SCHEMA_MISMATCH",
        )
    return values


def _alive(expires: int | None, now: int) -> bool:
    """Whether a value with TTL expiry ``expires`` (ms) is still there at ``now``."""
    return expires is None or expires > now


class _State:
    """What the state types share: their handle and variable."""

    def __init__(self, handle: StatefulProcessorHandle, var: _Var) -> None:
        self._handle = handle
        self._var = var

    def _key(self) -> _KeyState:
        return self._handle._current()

    def _live(self) -> Any:
        """The variable's entries for the current key, without those whose TTL passed."""
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

    def _set(self, value: Any) -> None:
        ks = self._key()
        if value is None or (isinstance(value, (list, dict)) and not value):
            ks.values.pop(self._var.name, None)
        else:
            ks.values[self._var.name] = value
        ks.dirty = True

    def _row(self, value: Any) -> Row:
        return Row._from_pairs(self._var.schema.names, list(_tuple(value, self._var.schema, "state value")))

    def _expiry(self) -> int | None:
        ttl = self._var.ttl_ms
        return None if ttl is None else self._handle._now + ttl

    def clear(self) -> None:
        """Remove the variable's state for the current key."""
        self._set(None)


class ValueState(_State):
    """One value per key."""

    def exists(self) -> bool:
        """Whether the key has a value."""
        return self._live() is not None

    def get(self) -> Row | None:
        """The value, or None."""
        entry = self._live()
        return None if entry is None else entry[0]

    def update(self, newValue: tuple) -> None:
        """Set the value."""
        self._set((self._row(newValue), self._expiry()))


class ListState(_State):
    """A list of values per key."""

    def exists(self) -> bool:
        """Whether the key has any values."""
        return bool(self._live())

    def get(self) -> Iterator[Row]:
        """The values, in order."""
        return iter([v for v, _ in self._live() or []])

    def put(self, newState: list[tuple]) -> None:
        """Replace the values."""
        self._set([(self._row(v), self._expiry()) for v in newState])

    def appendValue(self, newState: tuple) -> None:
        """Add a value at the end."""
        self._set([*(self._live() or []), (self._row(newState), self._expiry())])

    def appendList(self, newState: list[tuple]) -> None:
        """Add values at the end."""
        self._set([*(self._live() or []), *[(self._row(v), self._expiry()) for v in newState]])


class MapState(_State):
    """A map from user keys to values, per grouping key."""

    def _user_key(self, key: tuple) -> tuple:
        return _tuple(key, self._var.key_schema, "map key")  # type: ignore[arg-type]

    def _entries(self) -> dict[tuple, tuple[Row, int | None]]:
        return self._live() or {}

    def exists(self) -> bool:
        """Whether the map has any entries."""
        return bool(self._entries())

    def getValue(self, key: tuple) -> Row | None:
        """The value of ``key``, or None."""
        entry = self._entries().get(self._user_key(key))
        return None if entry is None else entry[0]

    def containsKey(self, key: tuple) -> bool:
        """Whether ``key`` has a value."""
        return self._user_key(key) in self._entries()

    def updateValue(self, key: tuple, value: tuple) -> None:
        """Set ``key``'s value."""
        self._set({**self._entries(), self._user_key(key): (self._row(value), self._expiry())})

    def iterator(self) -> Iterator[tuple[Row, Row]]:
        """(key, value) pairs."""
        names = self._var.key_schema.names  # type: ignore[union-attr]
        return iter([(Row._from_pairs(names, list(k)), v) for k, (v, _) in self._entries().items()])

    def keys(self) -> Iterator[Row]:
        """The keys."""
        return iter([k for k, _ in self.iterator()])

    def values(self) -> Iterator[Row]:
        """The values."""
        return iter([v for _, v in self.iterator()])

    def removeKey(self, key: tuple) -> None:
        """Remove ``key``."""
        entries = dict(self._entries())
        entries.pop(self._user_key(key), None)
        self._set(entries)


class StatefulProcessorHandle:
    """What a :class:`StatefulProcessor` declares its state and timers with."""

    def __init__(self, time_mode: str, now_ms: int = 0, watermark_ms: int | None = None) -> None:
        self._time_mode = time_mode
        self._now = now_ms
        self._wm = watermark_ms
        self._vars: dict[str, _Var] = {}
        self._key_state: _KeyState | None = None

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
        self._vars[var.name] = var

    def getValueState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ValueState:
        """A value per key of ``schema``, expiring ``ttlDurationMs`` after each update."""
        var = _Var(stateName, "value", to_struct_type(schema), ttl_ms=ttlDurationMs)
        self._declare(var)
        return ValueState(self, var)

    def getListState(self, stateName: str, schema: StructType | str, ttlDurationMs: int | None = None) -> ListState:
        """A list of values of ``schema`` per key."""
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
        """A map per key from ``userKeySchema`` keys to ``valueSchema`` values."""
        var = _Var(stateName, "map", to_struct_type(valueSchema), to_struct_type(userKeySchema), ttlDurationMs)
        self._declare(var)
        return MapState(self, var)

    def deleteIfExists(self, stateName: str) -> None:
        """Forget a state variable declared earlier in ``init``."""
        self._vars.pop(stateName, None)

    def _timers_allowed(self) -> _KeyState:
        if self._time_mode == "none":
            raise PySparkRuntimeError(
                "Cannot use timers with time mode None: use timeMode='ProcessingTime' or 'EventTime'",
                "STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_TIME_MODE",
            )
        return self._current()

    def registerTimer(self, expiryTimestampMs: int) -> None:
        """Call ``handleExpiredTimer`` for the current key once time passes ``expiryTimestampMs``."""
        ks = self._timers_allowed()
        ks.timers.add(int(expiryTimestampMs))
        ks.dirty = True

    def deleteTimer(self, expiryTimestampMs: int) -> None:
        """Drop a timer of the current key."""
        ks = self._timers_allowed()
        ks.timers.discard(int(expiryTimestampMs))
        ks.dirty = True

    def listTimers(self) -> Iterator[int]:
        """The current key's timers."""
        return iter(sorted(self._timers_allowed().timers))


class StatefulProcessor(ABC):
    """Per-key logic of ``transformWithStateInPandas``."""

    @abstractmethod
    def init(self, handle: StatefulProcessorHandle) -> None:
        """Declare state variables (each micro-batch starts with it)."""

    @abstractmethod
    def handleInputRows(self, key: tuple, rows: Iterator[Any], timerValues: TimerValues) -> Iterator[Any]:
        """Handle a key's rows of this batch; yield pandas DataFrames of the output schema."""

    def handleExpiredTimer(
        self, key: tuple, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[Any]:
        """Handle a timer of ``key`` that fired; yield pandas DataFrames."""
        return iter([])

    def handleInitialState(self, key: tuple, initialState: Any, timerValues: TimerValues) -> None:  # noqa: B027
        """Set ``key``'s state from its rows of the ``initialState`` DataFrame (first batch only)."""

    def close(self) -> None:  # noqa: B027 (optional, as in PySpark)
        """Called after each micro-batch."""


def declared(processor: StatefulProcessor, time_mode: str) -> dict[str, _Var]:
    """The state variables ``processor.init`` declares."""
    handle = StatefulProcessorHandle(time_mode)
    processor.init(handle)
    return dict(handle._vars)


def state_type(variables: dict[str, _Var]) -> StructType:
    """The stored struct's fields (for the engine): a field per variable, then the timers."""
    from sparklet.sql.types import from_arrow_type

    fields = [pa.field(v.name, v.arrow_type()) for v in variables.values()]
    fields.append(pa.field(TIMERS, pa.list_(pa.int64())))
    return from_arrow_type(pa.struct(fields))  # type: ignore[return-value]


def _decode(stored: dict | None, variables: dict[str, _Var], now: int) -> _KeyState:
    """A key's stored struct as Python state; TTL-expired entries dropped (the key is then dirty)."""
    from sparklet.sql._convert import _py_value

    ks = _KeyState()
    if stored is None:
        return ks
    for name, var in variables.items():
        raw = stored.get(name)
        if raw is None:
            continue

        def live(expires: int | None, var: _Var = var) -> bool:
            return var.ttl_ms is None or _alive(expires, now)

        def row(v: dict, var: _Var = var) -> Row:
            return _py_value(v, var.schema)

        if var.kind == "value":
            if live(raw["expiresAt"]):
                ks.values[name] = (row(raw["value"]), raw["expiresAt"])
            else:
                ks.dirty = True
        elif var.kind == "list":
            items = [(row(e["value"]), e["expiresAt"]) for e in raw if live(e["expiresAt"])]
            ks.dirty |= len(items) != len(raw)
            if items:
                ks.values[name] = items
        else:
            key_schema = var.key_schema
            entries = {
                tuple(_py_value(e["key"], key_schema)): (row(e["value"]), e["expiresAt"])  # type: ignore[arg-type]
                for e in raw
                if live(e["expiresAt"])
            }
            ks.dirty |= len(entries) != len(raw)
            if entries:
                ks.values[name] = entries
    ks.timers = set(stored.get(TIMERS) or [])
    return ks


def _encode(ks: _KeyState, variables: dict[str, _Var]) -> tuple[dict | None, int | None, int | None]:
    """A key's state as the stored struct, its earliest timer and earliest TTL expiry."""
    out: dict[str, Any] = {}
    expiries: list[int] = []
    for name, var in variables.items():
        value = ks.values.get(name)
        if value is None:
            out[name] = None
            continue
        names = var.schema.names
        if var.kind == "value":
            v, e = value
            out[name] = {"value": dict(zip(names, v)), "expiresAt": e}
            expiries.append(e)
        elif var.kind == "list":
            out[name] = [{"value": dict(zip(names, v)), "expiresAt": e} for v, e in value]
            expiries.extend(e for _, e in value)
        else:
            key_names = var.key_schema.names  # type: ignore[union-attr]
            out[name] = [
                {"key": dict(zip(key_names, k)), "value": dict(zip(names, v)), "expiresAt": e}
                for k, (v, e) in value.items()
            ]
            expiries.extend(e for v, e in value.values())
    out[TIMERS] = sorted(ks.timers) or None
    if not ks.values and not ks.timers:
        return None, None, None
    live = [e for e in expiries if e is not None]
    return out, min(ks.timers) if ks.timers else None, min(live) if live else None


def _run_processor(
    processor: StatefulProcessor,
    variables: dict[str, _Var],
    output_schema: pa.Schema,
    time_mode: str,
    initial: tuple[Any, list[str]] | None,
    time_zone: str,
    *engine: Any,
) -> tuple[pa.Table, pa.Table, pa.Table | None]:
    """One micro-batch (``engine``: a ``_Batch``'s fields), as Spark's
    ``TransformWithStateInPandasExec`` runs it:
    ``init``; the initial state (first batch); each key's rows; the timers
    that fired, in time order; ``close``. Returns the rows emitted, each
    key's state with its earliest timer and TTL expiry, and the keys that
    only the initial state gave a state."""
    from sparklet.sql._convert import table_to_pandas, table_to_rows

    b = _Batch(*engine)
    batch_id, data, offsets, keys, states = b.batch_id, b.data, b.offsets, b.keys, b.states
    watermark_ms, processing_time_ms = b.watermark_ms, b.processing_time_ms
    handle = StatefulProcessorHandle(time_mode, processing_time_ms, watermark_ms)
    processor.init(handle)
    timer_values = TimerValues(processing_time_ms, watermark_ms)
    key_rows = [tuple(k) for k in table_to_rows(keys)]
    stored = states.column("state").to_pylist()
    key_states = [_decode(s, variables, processing_time_ms) for s in stored]
    index = {k: i for i, k in enumerate(key_rows)}
    out = _Output(output_schema)
    new_keys: list[tuple] = []

    def run(ks: _KeyState, call: Any) -> None:
        handle._key_state = ks
        try:
            for r in call() or ():
                out.add(r)
        finally:
            handle._key_state = None

    with _no_gc_pauses():
        if initial is not None and batch_id == 0:
            pdf, key_names = initial
            for key, rows in pdf.groupby(key_names, sort=True, dropna=False):
                key = key if isinstance(key, tuple) else (key,)
                if key not in index:
                    index[key] = len(key_rows)
                    key_rows.append(key)
                    key_states.append(_KeyState())
                    new_keys.append(key)
                rows = rows.reset_index(drop=True)
                run(key_states[index[key]], lambda k=key, r=rows: processor.handleInitialState(k, r, timer_values))
        pdf = table_to_pandas(data, time_zone)
        for g in range(len(offsets) - 1):
            if offsets[g + 1] > offsets[g]:
                rows = _group_rows(pdf, offsets[g], offsets[g + 1])
                key = key_rows[g]
                run(key_states[g], lambda k=key, r=rows: processor.handleInputRows(k, iter([r]), timer_values))
        threshold = {"processingtime": processing_time_ms, "eventtime": watermark_ms}.get(time_mode)
        if threshold is not None:
            due = sorted((t, i) for i, ks in enumerate(key_states) for t in ks.timers if t < threshold)
            for t, i in due:
                ks = key_states[i]
                ks.timers.discard(t)
                ks.dirty = True
                info = ExpiredTimerInfo(t)
                run(ks, lambda k=key_rows[i], x=info: processor.handleExpiredTimer(k, timer_values, x))
        processor.close()
    encoded = [_encode(ks, variables) for ks in key_states]
    struct = states.schema.field("state").type
    result = pa.table(
        {
            "state": pa.array([e[0] for e in encoded], type=struct),
            "timeoutTimestamp": pa.array([e[1] for e in encoded], type=pa.int64()),
            "ttlExpiry": pa.array([e[2] for e in encoded], type=pa.int64()),
            "changed": pa.array([ks.dirty for ks in key_states], type=pa.bool_()),
        }
    )
    extra = None
    if new_keys:
        extra = pa.table({name: [k[i] for k in new_keys] for i, name in enumerate(keys.column_names)})
        extra = extra.cast(keys.schema)
    return out.table(), result, extra
