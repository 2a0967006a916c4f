"""Per-key state for ``applyInPandasWithState``, as :mod:`pyspark.sql.streaming.state`.

The engine groups a micro-batch's rows by key, reads each key's state and
finds the keys whose state timed out, then makes one call into Python per
batch (:func:`_run_groups`), which calls the user's function once per key
with a :class:`GroupState`. State is stored in Arrow's row format in the
state store (never pickled), so it survives restarts and is readable with
``spark.read.format("statestore")``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import gc
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa

from sparklet.errors import PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql.types import Row, StructType

__all__ = ["GroupState", "GroupStateTimeout"]


class GroupStateTimeout:
    """When a key's state times out (``timeoutConf`` of ``applyInPandasWithState``).

    Examples
    --------
    >>> from sparklet.sql.streaming.state import GroupStateTimeout
    >>> GroupStateTimeout.NoTimeout, GroupStateTimeout.ProcessingTimeTimeout, GroupStateTimeout.EventTimeTimeout
    ('NoTimeout', 'ProcessingTimeTimeout', 'EventTimeTimeout')
    """

    NoTimeout: str = "NoTimeout"
    ProcessingTimeTimeout: str = "ProcessingTimeTimeout"
    EventTimeTimeout: str = "EventTimeTimeout"


class GroupState:
    """The state of one key, handed to the function of ``applyInPandasWithState``.

    A new object per call: a timeout set in an earlier call is not kept
    unless set again (Spark's rule). The engine builds it; the examples of
    its members build one as the engine does for a key without state.

    Examples
    --------
    >>> import pandas as pd
    >>> from sparklet.sql.streaming.state import GroupStateTimeout
    >>> from sparklet.testing import MemoryStream
    >>> stream = MemoryStream(spark, "user STRING")
    >>> def count(key, pdfs, state):
    ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
    ...     state.update((n,))
    ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
    >>> counts = stream.toDF().groupBy("user").applyInPandasWithState(
    ...     count, "user STRING, events LONG", "n LONG", "update", GroupStateTimeout.NoTimeout)
    >>> q = counts.writeStream.format("memory").queryName("gs_counts").outputMode("update").start()
    >>> _ = stream.addData([("a",), ("a",), ("b",)])
    >>> q.processAllAvailable()
    >>> spark.table("gs_counts").orderBy("user").show()
    +----+------+
    |user|events|
    +----+------+
    |   a|     2|
    |   b|     1|
    +----+------+
    <BLANKLINE>
    >>> q.stop()
    """

    NO_TIMESTAMP: int = -1

    def __init__(
        self,
        value: Row | None,
        *,
        fields: list[str],
        timeout_conf: str,
        has_timed_out: bool,
        old_timeout_ms: int | None,
        batch_processing_time_ms: int,
        watermark_ms: int | None,
    ) -> None:
        self._value = value
        self._fields = fields
        self._timeout_conf = timeout_conf
        self._has_timed_out = has_timed_out
        self._old_timeout_ms = old_timeout_ms
        self._now_ms = batch_processing_time_ms
        self._watermark_ms = watermark_ms
        self._timeout_ms: int | None = None
        self._updated = False
        self._removed = False

    @property
    def exists(self) -> bool:
        """Whether the key has a state.

        Returns
        -------
        bool
            True once ``update`` has set one (in this call or an earlier one)

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.exists
        False
        >>> state.update((1,))
        >>> state.exists
        True
        """
        return self._value is not None

    @property
    def get(self) -> Row:
        """The state, as a Row of the state schema's fields.

        Returns
        -------
        Row
            the state

        Raises
        ------
        PySparkValueError
            ``STATE_NOT_EXISTS`` when the key has no state

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.update((3,))
        >>> state.get
        Row(n=3)
        >>> state.get[0]
        3
        """
        if self._value is None:
            raise PySparkValueError("State is either not defined or has already been removed", "STATE_NOT_EXISTS")
        return self._value

    @property
    def getOption(self) -> Row | None:
        """The state, or None when the key has none.

        Returns
        -------
        Row or None
            the state

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.getOption is None
        True
        >>> state.update((3,))
        >>> state.getOption
        Row(n=3)
        """
        return self._value

    def update(self, newValue: tuple[Any, ...] | list[Any] | Row) -> None:
        """Set the key's state, kept for its next call.

        Parameters
        ----------
        newValue : tuple, list or Row
            one value per field of the state schema

        Raises
        ------
        PySparkTypeError
            ``CANNOT_BE_NONE`` for None (use ``remove``)
        PySparkValueError
            ``STATE_SCHEMA_MISMATCH`` when the number of values is not the schema's

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.update((5,))
        >>> state.get
        Row(n=5)
        """
        if newValue is None:
            raise PySparkTypeError("'None' is not a valid state value", "CANNOT_BE_NONE")
        values = tuple(newValue)
        if len(values) != len(self._fields):
            raise PySparkValueError(
                f"The state has {len(self._fields)} fields ({', '.join(self._fields)}); "
                f"update() was given {len(values)} values",
                "STATE_SCHEMA_MISMATCH",
            )
        self._value = Row._from_pairs(self._fields, list(values))
        self._updated = True
        self._removed = False

    def remove(self) -> None:
        """Remove the key's state.

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.update((5,))
        >>> state.remove()
        >>> state.exists
        False
        """
        self._value = None
        self._removed = True
        self._updated = False

    @property
    def hasTimedOut(self) -> bool:
        """Whether this call is for a key whose state timed out (it gets no rows then).

        Returns
        -------
        bool
            True in the call a timeout makes

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.hasTimedOut
        False
        """
        return self._has_timed_out

    @property
    def oldTimeoutTimestamp(self) -> int:
        """The timeout (ms) the state had before this call.

        Returns
        -------
        int
            the timeout, or ``GroupState.NO_TIMESTAMP`` (-1) when none was set

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.oldTimeoutTimestamp
        -1
        """
        return self.NO_TIMESTAMP if self._old_timeout_ms is None else self._old_timeout_ms

    def setTimeoutDuration(self, durationMs: int) -> None:
        """Time the state out ``durationMs`` after this batch's processing time
        (with ``GroupStateTimeout.ProcessingTimeTimeout``).

        Parameters
        ----------
        durationMs : int
            milliseconds, more than 0

        Raises
        ------
        PySparkTypeError
            ``NOT_INT`` for anything but an int
        PySparkRuntimeError
            ``CANNOT_SET_TIMEOUT_DURATION`` without processing-time timeouts
        PySparkValueError
            ``VALUE_NOT_POSITIVE`` for 0 or less

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.setTimeoutDuration(30_000)  # times out after 90 000 ms of processing time
        >>> state.setTimeoutDuration(0)
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.PySparkValueError: Timeout duration must be positive
        """
        if isinstance(durationMs, str) or not isinstance(durationMs, int):
            raise not_expected_type("durationMs", "int", durationMs)
        if self._timeout_conf != GroupStateTimeout.ProcessingTimeTimeout:
            raise PySparkRuntimeError(
                "Cannot set timeout duration without enabling processing time timeout in applyInPandasWithState",
                "CANNOT_SET_TIMEOUT_DURATION",
            )
        if durationMs <= 0:
            raise PySparkValueError("Timeout duration must be positive", "VALUE_NOT_POSITIVE")
        self._timeout_ms = self._now_ms + durationMs

    def setTimeoutTimestamp(self, timestampMs: int | datetime.datetime) -> None:
        """Time the state out once the event-time watermark passes ``timestampMs``
        (with ``GroupStateTimeout.EventTimeTimeout``).

        Parameters
        ----------
        timestampMs : int or datetime.datetime
            milliseconds since the epoch (or a datetime, UTC when naive)

        Raises
        ------
        PySparkRuntimeError
            ``CANNOT_SET_TIMEOUT_TIMESTAMP`` without event-time timeouts
        PySparkValueError
            ``INVALID_TIMEOUT_TIMESTAMP`` for a time before the current watermark

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="EventTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=10_000)
        >>> state.setTimeoutTimestamp(20_000)
        >>> state.setTimeoutTimestamp(5_000)
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.PySparkValueError: Timeout timestamp (5000) cannot be earlier than the current watermark (10000)
        """
        if self._timeout_conf != GroupStateTimeout.EventTimeTimeout:
            raise PySparkRuntimeError(
                "Cannot set timeout timestamp without enabling event time timeout in applyInPandasWithState",
                "CANNOT_SET_TIMEOUT_TIMESTAMP",
            )
        if isinstance(timestampMs, datetime.datetime):
            ts = timestampMs if timestampMs.tzinfo else timestampMs.replace(tzinfo=datetime.UTC)
            timestampMs = int(ts.timestamp() * 1000)
        if not isinstance(timestampMs, int) or timestampMs <= 0:
            raise PySparkValueError("Timeout timestamp must be positive", "VALUE_NOT_POSITIVE")
        if self._watermark_ms is not None and timestampMs < self._watermark_ms:
            raise PySparkValueError(
                f"Timeout timestamp ({timestampMs}) cannot be earlier than the current watermark ({self._watermark_ms})",
                "INVALID_TIMEOUT_TIMESTAMP",
            )
        self._timeout_ms = timestampMs

    def getCurrentWatermarkMs(self) -> int:
        """The event-time watermark (ms) of this batch.

        Returns
        -------
        int
            the watermark

        Raises
        ------
        PySparkValueError
            ``NO_WATERMARK`` when the query has no watermark

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="EventTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=10_000)
        >>> state.getCurrentWatermarkMs()
        10000
        """
        if self._watermark_ms is None:
            raise PySparkValueError(
                "Cannot get event time watermark timestamp without setting watermark before applyInPandasWithState",
                "NO_WATERMARK",
            )
        return self._watermark_ms

    def getCurrentProcessingTimeMs(self) -> int:
        """This batch's processing time (ms since the epoch).

        Returns
        -------
        int
            the batch's processing time

        Examples
        --------
        >>> from sparklet.sql.streaming import GroupState
        >>> state = GroupState(None, fields=["n"], timeout_conf="ProcessingTimeTimeout", has_timed_out=False,
        ...                    old_timeout_ms=None, batch_processing_time_ms=60_000, watermark_ms=None)
        >>> state.getCurrentProcessingTimeMs()
        60000
        """
        return self._now_ms

    def __str__(self) -> str:
        return f"GroupState({self._value})"


class _Output:
    """The pandas DataFrames the function returns, joined into one table at
    the end (one concat and one conversion cost far less than one per
    DataFrame). Columns are matched by name when all are there, else by
    position, as in PySpark."""

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.names = list(schema.names)
        self.frames: list[Any] = []

    def add(self, pdf: Any) -> None:
        labels = list(pdf.columns)
        if len(labels) != len(self.names):
            raise PySparkRuntimeError(
                f"Number of columns of the returned pandas.DataFrame doesn't match the specified schema. "
                f"Expected: {len(self.names)} Actual: {len(labels)}",
                "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
            )
        if labels != self.names and set(labels) != set(self.names):
            pdf = pdf.set_axis(self.names, axis=1)
        self.frames.append(pdf)

    def table(self) -> pa.Table:
        if not self.frames:
            return self.schema.empty_table()
        import pandas as pd

        rows = pd.concat(self.frames, ignore_index=True)[self.names]
        return pa.Table.from_pandas(rows, schema=self.schema, preserve_index=False)


def _group_rows(pdf: Any, start: int, end: int) -> Any:
    """Rows ``start..end`` of the batch's DataFrame, indexed from 0 as PySpark
    hands them (a new index costs half of what ``reset_index`` does)."""
    import pandas as pd

    rows = pdf.iloc[start:end]
    rows.index = pd.RangeIndex(end - start)
    return rows


@contextlib.contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Python's cycle collector paused while a batch's calls run: pandas
    allocates enough per call to set it off every few calls, and each pass
    walks every DataFrame gathered so far (a fifth of a batch's time). It
    runs again, over whatever the batch left, once the batch is done."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _call_group(
    func: Callable[[tuple[Any, ...], Iterator[Any], GroupState], Iterator[Any]],
    key: tuple[Any, ...],
    rows: Any,
    state: GroupState,
    out: _Output,
) -> bool:
    """Call ``func`` for one key (``rows``: its pandas DataFrame, empty for
    a timeout call), gather what it yields; return whether the state or its
    timeout changed (and must be written back)."""
    pdfs = iter([rows]) if len(rows) else iter([])
    result = func(key, pdfs, state)
    for r in result if result is not None else ():
        out.add(r)
    return state._updated or state._removed or state._timeout_ms != state._old_timeout_ms


@dataclasses.dataclass
class _Batch:
    """A micro-batch's groups as the engine hands them over (in this order)."""

    batch_id: int
    #: the input rows, group by group: group ``i`` is rows ``offsets[i]..offsets[i + 1]``
    data: pa.Table
    offsets: list[int]
    #: one row per group: its key columns
    keys: pa.Table
    #: one row per group: ``state``, ``timeoutTimestamp``, maybe ``ttlExpiry``, ``timedOut``
    states: pa.Table
    watermark_ms: int | None
    processing_time_ms: int


def _run_groups(
    func: Callable[[tuple[Any, ...], Iterator[Any], GroupState], Iterator[Any]],
    state_type: StructType,
    output_schema: pa.Schema,
    timeout_conf: str,
    time_zone: str,
    *engine: Any,
) -> tuple[pa.Table, pa.Table, None]:
    """One micro-batch (``engine``: a :class:`_Batch`'s fields): call
    ``func`` for every group; return the rows it emitted and each group's new
    state, timeout and whether it changed (and no new keys)."""
    from sparklet.sql._convert import _py_value, table_to_pandas, table_to_rows

    b = _Batch(*engine)
    states, offsets = b.states, b.offsets
    watermark_ms, processing_time_ms = b.watermark_ms, b.processing_time_ms
    pdf = table_to_pandas(b.data, time_zone)
    key_rows = table_to_rows(b.keys)
    fields = state_type.names
    stored = states.column("state").to_pylist()
    timeouts = states.column("timeoutTimestamp").to_pylist()
    timed_out = states.column("timedOut").to_pylist()
    out = _Output(output_schema)
    new_states: list[dict[str, Any] | None] = []
    new_timeouts: list[int | None] = []
    changed: list[bool] = []
    with _no_gc_pauses():
        for g, key in enumerate(key_rows):
            value = _py_value(stored[g], state_type) if stored[g] is not None else None
            state = GroupState(
                value,
                fields=fields,
                timeout_conf=timeout_conf,
                has_timed_out=bool(timed_out[g]),
                old_timeout_ms=timeouts[g],
                batch_processing_time_ms=processing_time_ms,
                watermark_ms=watermark_ms,
            )
            rows = _group_rows(pdf, offsets[g], offsets[g + 1])
            changed.append(_call_group(func, tuple(key), rows, state, out))
            final = state.getOption
            new_states.append(None if final is None else dict(zip(fields, final)))
            new_timeouts.append(state._timeout_ms)
        output = out.table()
    struct = states.schema.field("state").type
    result_states = pa.table(
        {
            "state": pa.array(new_states, type=struct),
            "timeoutTimestamp": pa.array(new_timeouts, type=pa.int64()),
            "changed": pa.array(changed, type=pa.bool_()),
        }
    )
    return output, result_states, None
