"""Running a :class:`~sparklet.sql.streaming.StatefulProcessor` over a
micro-batch, as Spark's ``TransformWithStateInPandasExec`` (pandas) and
``TransformWithStateInPySparkExec`` (rows) do.

The engine keeps one stored value per grouping key: a struct with a field
per state variable the processor declares in ``init`` (a value, a list of
values, or a list of map entries, each value with its TTL expiry) and the
key's timers, in Arrow's row format (never pickled). Besides the struct it
stores the key's earliest timer and earliest TTL expiry, the two times it
needs to know when to call the processor for a key without rows. Each
micro-batch makes one call into Python (:func:`run_processor`), which runs
the processor key by key against those structs and returns them changed,
with the counts Spark reports in the progress's ``customMetrics``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from sparklet.sql.streaming.state import _Batch, _group_rows, _no_gc_pauses, _Output
from sparklet.sql.streaming.stateful_processor import (
    TIMERS,
    ExpiredTimerInfo,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
    _alive,
    _internal,
    _KeyState,
    _Var,
)
from sparklet.sql.types import StructType

#: the key of the states table's schema metadata that carries the batch's counts
METRICS_KEY = b"sparklet.metrics"


@dataclass
class Options:
    """How a query runs its processor (fixed when the query is defined)."""

    time_mode: str  # "none", "processingtime" or "eventtime"
    rows: bool  # the row-based transformWithState (else pandas)
    output: StructType
    time_zone: str
    #: pandas input in DataFrames of at most this many rows (``maxRecordsPerBatch``)
    max_records: int
    #: ... and about this many bytes (``maxBytesPerBatch``)
    max_bytes: int
    #: the initial state: its rows grouped by key (first batch only)
    initial: dict[tuple[Any, ...], Any] | None = None


def declared(processor: StatefulProcessor, time_mode: str) -> StatefulProcessorHandle:
    """The handle ``processor.init`` declared its state variables with
    (``close`` follows, as PySpark's driver calls both to learn the state's
    schema)."""
    handle = StatefulProcessorHandle(time_mode, in_query=False)
    processor.init(handle)
    processor.close()
    return handle


#: Spark's names of the time modes and output modes, in operatorProperties
_TIME_MODES = {"none": "NoTime", "processingtime": "ProcessingTime", "eventtime": "EventTime"}
_OUTPUT_MODES = {"append": "Append", "update": "Update", "complete": "Complete"}
_TIMERS = {"processingtime": "$procTimers_keyToTimestamp", "eventtime": "$eventTimers_keyToTimestamp"}


def operator_properties(handle: StatefulProcessorHandle, time_mode: str, output_mode: str) -> str:
    """Spark's ``operatorProperties`` of the operator (the state-metadata
    reader's column): its modes and every variable ``init`` declared."""
    kinds = {"value": "ValueState", "list": "ListState", "map": "MapState"}
    variables = [
        {"stateName": v.name, "stateVariableType": kinds[v.kind], "ttlEnabled": v.ttl_ms is not None}
        for v in handle._declarations
    ]
    if time_mode in _TIMERS:
        variables.append({"stateName": _TIMERS[time_mode], "stateVariableType": "TimerState", "ttlEnabled": False})
    properties = {
        "timeMode": _TIME_MODES[time_mode],
        "outputMode": _OUTPUT_MODES[output_mode.lower()],
        "stateVariables": variables,
    }
    return json.dumps(properties, separators=(",", ":"))


def state_type(variables: dict[str, _Var]) -> StructType:
    """The stored struct's fields (for the engine): a field per variable, then the timers."""
    from sparklet.sql.types import from_arrow_type

    fields = [pa.field(v.name, v.arrow_type()) for v in variables.values()]
    fields.append(pa.field(TIMERS, pa.list_(pa.int64())))
    return from_arrow_type(pa.struct(fields))  # type: ignore[return-value]


def _decode(stored: dict[str, Any] | None, variables: dict[str, _Var], now: int) -> tuple[_KeyState, int]:
    """A key's stored struct as Python state, and how many values had
    outlived their TTL (dropped; the key is then dirty)."""
    ks = _KeyState()
    if stored is None:
        return ks, 0
    expired = 0
    for name, var in variables.items():
        raw = stored.get(name)
        if raw is None:
            continue

        def live(expires: int | None, var: _Var = var) -> bool:
            return var.ttl_ms is None or _alive(expires, now)

        def value(v: dict[str, Any], var: _Var = var) -> tuple[Any, ...]:
            internal: tuple[Any, ...] = _internal(v, var.schema)
            return internal

        if var.kind == "value":
            if live(raw["expiresAt"]):
                ks.values[name] = (value(raw["value"]), raw["expiresAt"])
            else:
                expired += 1
        elif var.kind == "list":
            items = [(value(e["value"]), e["expiresAt"]) for e in raw if live(e["expiresAt"])]
            expired += len(raw) - len(items)
            if items:
                ks.values[name] = items
        else:
            entries = {
                _internal(e["key"], var.key_schema): (value(e["value"]), e["expiresAt"])  # type: ignore[arg-type]
                for e in raw
                if live(e["expiresAt"])
            }
            expired += len(raw) - len(entries)
            if entries:
                ks.values[name] = entries
    ks.timers = set(stored.get(TIMERS) or [])
    ks.dirty = expired > 0
    return ks, expired


def _struct(values: tuple[Any, ...], schema: StructType) -> dict[str, Any]:
    """An internal tuple as the dict pyarrow builds a struct from."""
    from sparklet.sql._convert import _to_arrow_value

    struct: dict[str, Any] = _to_arrow_value(values, schema)
    return struct


def _encode(ks: _KeyState, variables: dict[str, _Var]) -> tuple[dict[str, Any] | None, int | None, int | None]:
    """A key's state as the stored struct, its earliest timer and earliest TTL expiry."""
    out: dict[str, Any] = {}
    expiries: list[int] = []
    for name, var in variables.items():
        value = ks.values.get(name)
        if value is None:
            out[name] = None
            continue
        schema = var.schema
        if var.kind == "value":
            v, e = value
            out[name] = {"value": _struct(v, schema), "expiresAt": e}
            expiries.append(e)
        elif var.kind == "list":
            out[name] = [{"value": _struct(v, schema), "expiresAt": e} for v, e in value]
            expiries.extend(e for _, e in value)
        else:
            key_schema = var.key_schema
            out[name] = [
                {"key": _struct(k, key_schema), "value": _struct(v, schema), "expiresAt": e}  # type: ignore[arg-type]
                for k, (v, e) in value.items()
            ]
            expiries.extend(e for v, e in value.values())
    out[TIMERS] = sorted(ks.timers) or None
    if not ks.values and not ks.timers:
        return None, None, None
    live = [e for e in expiries if e is not None]
    return out, min(ks.timers) if ks.timers else None, min(live) if live else None


def _chunk_rows(data: pa.Table, max_records: int, max_bytes: int) -> int:
    """How many rows PySpark puts in each pandas DataFrame of a key's rows:
    at most ``max_records`` (``maxRecordsPerBatch``), and about ``max_bytes``
    (``maxBytesPerBatch``) at the batch's average row size."""
    size = max_records if max_records > 0 else max(1, data.num_rows)
    if max_bytes > 0 and data.num_rows:
        per_row = max(1, data.nbytes // data.num_rows)
        size = max(1, min(size, max_bytes // per_row))
    return size


def _chunks(pdf: Any, size: int) -> Iterator[Any]:
    """A key's pandas rows in DataFrames of at most ``size`` rows."""
    n = len(pdf)
    if n <= size:
        yield pdf
        return
    for start in range(0, n, size):
        yield _group_rows(pdf, start, min(n, start + size))


class _RowOutput:
    """The Rows a row-based processor yields, made one table at the end."""

    def __init__(self, schema: StructType) -> None:
        self.schema = schema
        self.rows: list[Any] = []

    def add(self, row: Any) -> None:
        self.rows.append(row)

    def table(self) -> pa.Table:
        from sparklet.sql._convert import rows_to_table

        return rows_to_table(self.rows, self.schema)


def _metrics(handle: StatefulProcessorHandle, ms: dict[str, int]) -> dict[str, Any]:
    """The batch's ``customMetrics`` as one task counts them (the engine
    multiplies the variable counts by the partitions, as Spark's tasks each
    run ``init``)."""
    kinds = {"value": "Value", "list": "List", "map": "Map"}
    out = {f"num{k}StateVars": 0 for k in kinds.values()}
    out |= {f"num{k}StateWithTTLVars": 0 for k in kinds.values()}
    for var in handle._declarations:
        out[f"num{kinds[var.kind]}StateVars"] += 1
        if var.ttl_ms is not None:
            out[f"num{kinds[var.kind]}StateWithTTLVars"] += 1
    out["numDeletedStateVars"] = len(handle._deletions)
    counts = handle._counts
    out["numRegisteredTimers"] = counts.registered_timers
    out["numDeletedTimers"] = counts.deleted_timers
    # Spark's Python runner fires timers without counting them here
    out["numExpiredTimers"] = 0
    out["numValuesRemovedDueToTTLExpiry"] = counts.ttl_removed
    # the operator's own numRowsUpdated and numRowsRemoved (the engine moves them)
    out["numRowsUpdated"] = counts.rows_updated
    out["numRowsRemoved"] = counts.rows_removed
    return out | ms


def run_processor(
    processor: StatefulProcessor, variables: dict[str, _Var], opts: Options, *engine: Any
) -> tuple[pa.Table, pa.Table, pa.Table | None]:
    """One micro-batch (``engine``: a ``_Batch``'s fields), as Spark runs it:
    ``init``; the initial state (first batch); each key's rows; the timers
    that fired, in time order; ``close``. Returns the rows emitted, each
    key's state with its earliest timer and TTL expiry (the batch's counts
    in the schema's metadata), and the keys that only the initial state
    gave a state."""
    from sparklet.sql._convert import table_to_pandas, table_to_rows

    b = _Batch(*engine)
    mode = opts.time_mode
    now = b.processing_time_ms
    if mode == "none":
        seen_now, seen_wm = -1, -1
    else:
        # before the first watermark, Spark's event-time processors see 0
        seen_now = now
        seen_wm = b.watermark_ms if b.watermark_ms is not None else (0 if mode == "eventtime" else -1)
    handle = StatefulProcessorHandle(mode, now, seen_wm)
    processor.init(handle)
    timer_values = TimerValues(seen_now, seen_wm)
    key_rows = [tuple(k) for k in table_to_rows(b.keys)]
    stored = b.states.column("state").to_pylist()
    decoded = [_decode(s, variables, now) for s in stored]
    key_states = [ks for ks, _ in decoded]
    handle._counts.ttl_removed = sum(n for _, n in decoded)
    index = {k: i for i, k in enumerate(key_rows)}
    out: Any = _RowOutput(opts.output) if opts.rows else _Output(opts.output._to_arrow_schema())
    new_keys: list[tuple[Any, ...]] = []
    timings = {"initialStateProcessingTimeMs": 0, "timerProcessingTimeMs": 0}

    def run(ks: _KeyState, call: Any) -> None:
        handle._key_state = ks
        try:
            for r in call() or ():
                out.add(r)
        finally:
            handle._key_state = None

    with _no_gc_pauses():
        if opts.initial is not None and b.batch_id == 0:
            t0 = time.perf_counter()
            for key, initial in opts.initial.items():
                if key not in index:
                    index[key] = len(key_rows)
                    key_rows.append(key)
                    key_states.append(_KeyState())
                    new_keys.append(key)
                for part in initial:
                    run(key_states[index[key]], lambda k=key, p=part: processor.handleInitialState(k, p, timer_values))
            timings["initialStateProcessingTimeMs"] = int((time.perf_counter() - t0) * 1000)
        if opts.rows:
            all_rows = table_to_rows(b.data)
        else:
            pdf = table_to_pandas(b.data, opts.time_zone)
            chunk = _chunk_rows(b.data, opts.max_records, opts.max_bytes)
        offsets = b.offsets
        for g in range(len(offsets) - 1):
            start, end = offsets[g], offsets[g + 1]
            if end > start:
                if opts.rows:
                    rows: Iterator[Any] = iter(all_rows[start:end])
                else:
                    rows = _chunks(_group_rows(pdf, start, end), chunk)
                run(key_states[g], lambda k=key_rows[g], r=rows: processor.handleInputRows(k, r, timer_values))
        threshold = {"processingtime": now, "eventtime": b.watermark_ms}.get(mode)
        if threshold is not None:
            t0 = time.perf_counter()
            due = sorted((t, i) for i, ks in enumerate(key_states) for t in ks.timers if t < threshold)
            for t, i in due:
                ks = key_states[i]
                if t not in ks.timers:  # deleted by an earlier handler
                    continue
                info = ExpiredTimerInfo(t)
                # the timer is listed while its handler runs, and deleted after
                run(ks, lambda k=key_rows[i], x=info: processor.handleExpiredTimer(k, timer_values, x))
                ks.timers.discard(t)
                ks.dirty = True
                handle._counts.deleted_timers += 1
            timings["timerProcessingTimeMs"] = int((time.perf_counter() - t0) * 1000)
        processor.close()
        output = out.table()
    encoded = [_encode(ks, variables) for ks in key_states]
    struct = b.states.schema.field("state").type
    metrics = _metrics(handle, timings)
    result = pa.table(
        {
            "state": pa.array([e[0] for e in encoded], type=struct),
            "timeoutTimestamp": pa.array([e[1] for e in encoded], type=pa.int64()),
            "ttlExpiry": pa.array([e[2] for e in encoded], type=pa.int64()),
            "changed": pa.array([ks.dirty for ks in key_states], type=pa.bool_()),
        }
    ).replace_schema_metadata({METRICS_KEY: json.dumps(metrics).encode()})
    extra = None
    if new_keys:
        extra = pa.table({name: [k[i] for k in new_keys] for i, name in enumerate(b.keys.column_names)})
        extra = extra.cast(b.keys.schema)
    return output, result, extra


def run_on_batch(
    processor: StatefulProcessor, variables: dict[str, _Var], opts: Options, keys: list[str], table: pa.Table
) -> pa.Table:
    """A batch DataFrame's rows (``table``, all of them) through the
    processor as one micro-batch with no state before or after it."""
    import datetime

    data, offsets, key_table = _sort_by_keys(table, keys)
    struct = state_type(variables)._to_arrow_schema()
    n = key_table.num_rows
    states = pa.table(
        {
            "state": pa.nulls(n, type=pa.struct(list(struct))),
            "timeoutTimestamp": pa.nulls(n, type=pa.int64()),
            "ttlExpiry": pa.nulls(n, type=pa.int64()),
            "timedOut": pa.array([False] * n),
        }
    )
    now_ms = int(datetime.datetime.now(datetime.UTC).timestamp() * 1000)
    batch = _Batch(0, data, offsets, key_table, states, None, now_ms)
    output, _, _ = run_processor(processor, variables, opts, *vars(batch).values())
    return output


def _sort_by_keys(table: pa.Table, keys: list[str]) -> tuple[pa.Table, list[int], pa.Table]:
    """``table`` sorted by ``keys``, where each key's rows start (one more
    entry than keys), and one row per key of its key columns."""
    data = table.sort_by([(k, "ascending") for k in keys]) if table.num_rows else table
    tuples = list(zip(*(data.column(k).to_pylist() for k in keys))) if keys else [()] * data.num_rows
    starts = [i for i in range(len(tuples)) if i == 0 or tuples[i] != tuples[i - 1]]
    key_table = data.select(keys).take(pa.array(starts, type=pa.int64()))
    return data, [*starts, data.num_rows], key_table
