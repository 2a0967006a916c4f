"""Unit-testing an ``applyInPandasWithState`` function without a query.

:class:`GroupStateTester` calls the function as the engine does (same
:class:`~sparklet.sql.streaming.state.GroupState`, same rules for updates,
removals and timeouts) on rows you hand it, with a processing time and a
watermark you set, and lets you look at and set each key's state::

    tester = GroupStateTester(sessions, "user STRING, ts TIMESTAMP",
                              "user STRING, events LONG, closed BOOLEAN",
                              "n LONG, last LONG", "EventTimeTimeout")
    tester.test(("a",), [("a", t0), ("a", t1)])
    tester.setWatermark(t1_ms + 60_000)
    tester.fireTimeouts()            # -> [Row(user='a', events=2, closed=True)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sparklet.sql.streaming.state import GroupState, GroupStateTimeout, _call_group, _Output
from sparklet.sql.types import Row, StructType, to_struct_type

__all__ = ["GroupStateTester"]


class GroupStateTester:
    """Runs an ``applyInPandasWithState`` function key by key, with state kept in memory.

    Parameters mirror ``applyInPandasWithState``, plus ``inputStructType``:
    the schema of the rows passed to :meth:`test`.
    """

    def __init__(
        self,
        func: Callable[[tuple[Any, ...], Iterator[Any], GroupState], Iterator[Any]],
        inputStructType: StructType | str,
        outputStructType: StructType | str,
        stateStructType: StructType | str,
        timeoutConf: str = GroupStateTimeout.NoTimeout,
    ) -> None:
        self._func = func
        self._input = to_struct_type(inputStructType)
        self._output = to_struct_type(outputStructType)
        self._state_fields = to_struct_type(stateStructType).names
        self._timeout_conf = timeoutConf
        self._states: dict[tuple[Any, ...], tuple[Row | None, int | None]] = {}
        self._now_ms = 0
        self._watermark_ms: int | None = None

    def setProcessingTime(self, ms: int) -> None:
        """Set the processing time (ms) the next calls see."""
        self._now_ms = ms

    def advanceProcessingTime(self, ms: int) -> None:
        """Move the processing time forward by ``ms``."""
        self._now_ms += ms

    def setWatermark(self, ms: int | None) -> None:
        """Set the event-time watermark (ms) the next calls see."""
        self._watermark_ms = ms

    def peekState(self, key: tuple[Any, ...]) -> Row | None:
        """The key's state (None when it has none)."""
        return self._states.get(tuple(key), (None, None))[0]

    def peekTimeout(self, key: tuple[Any, ...]) -> int | None:
        """The key's timeout (ms), or None."""
        return self._states.get(tuple(key), (None, None))[1]

    def setState(self, key: tuple[Any, ...], value: tuple[Any, ...] | None, timeoutMs: int | None = None) -> None:
        """Set the key's state (and timeout) as if an earlier batch had."""
        row = None if value is None else Row._from_pairs(self._state_fields, list(value))
        self._states[tuple(key)] = (row, timeoutMs)

    def test(self, key: tuple[Any, ...], rows: list[tuple[Any, ...]] | Any) -> list[Row]:
        """Call the function for ``key`` with ``rows`` (tuples of the input
        schema, or a pandas DataFrame); return the rows it emitted."""
        import pandas as pd

        pdf = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=self._input.names)
        return self._call(tuple(key), pdf, timed_out=False)

    def fireTimeouts(self) -> list[Row]:
        """Call the function for every key whose timeout has passed (the
        processing time or the watermark is beyond it), as a batch without
        rows for those keys does; return the rows emitted."""
        threshold = self._threshold()
        if threshold is None:
            return []
        due = [k for k, (_, t) in self._states.items() if t is not None and t < threshold]
        out: list[Row] = []
        for key in due:
            out.extend(self._call(key, self._empty(), timed_out=True))
        return out

    def _threshold(self) -> int | None:
        if self._timeout_conf == GroupStateTimeout.ProcessingTimeTimeout:
            return self._now_ms
        if self._timeout_conf == GroupStateTimeout.EventTimeTimeout:
            return self._watermark_ms
        return None

    def _empty(self) -> Any:
        import pandas as pd

        return pd.DataFrame(columns=self._input.names)

    def _call(self, key: tuple[Any, ...], pdf: Any, timed_out: bool) -> list[Row]:
        from sparklet.sql._convert import table_to_rows

        value, old_timeout = self._states.get(key, (None, None))
        state = GroupState(
            value,
            fields=self._state_fields,
            timeout_conf=self._timeout_conf,
            has_timed_out=timed_out,
            old_timeout_ms=old_timeout,
            batch_processing_time_ms=self._now_ms,
            watermark_ms=self._watermark_ms,
        )
        out = _Output(self._output._to_arrow_schema())
        if _call_group(self._func, key, pdf, state, out):
            if state.getOption is None and state._timeout_ms is None:
                self._states.pop(key, None)
            else:
                self._states[key] = (state.getOption, state._timeout_ms)
        return table_to_rows(out.table())
