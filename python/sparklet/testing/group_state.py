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

    Each :meth:`test` call is what one micro-batch does for one key: the
    function gets the key, the key's rows as pandas DataFrames and its
    :class:`~sparklet.sql.streaming.state.GroupState`, and what it yields
    is returned as rows. sparklet's own (PySpark has no such tester); the
    function it tests runs unchanged on both engines.

    Parameters
    ----------
    func : callable
        The function given to ``applyInPandasWithState``:
        ``func(key, pdfs, state)`` yielding pandas DataFrames.
    inputStructType : StructType or str
        The schema of the rows passed to :meth:`test`.
    outputStructType : StructType or str
        The schema of the rows the function yields.
    stateStructType : StructType or str
        The schema of the state.
    timeoutConf : str, default "NoTimeout"
        ``"NoTimeout"``, ``"ProcessingTimeTimeout"`` or ``"EventTimeTimeout"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sparklet.testing import GroupStateTester
    >>> def sessions(key, pdfs, state):
    ...     if state.hasTimedOut:
    ...         yield pd.DataFrame({"user": [key[0]], "events": [state.get[0]], "closed": [True]})
    ...         state.remove()
    ...         return
    ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
    ...     state.update((n,))
    ...     state.setTimeoutDuration(60_000)
    ...     yield pd.DataFrame({"user": [key[0]], "events": [n], "closed": [False]})
    >>> tester = GroupStateTester(sessions, "user STRING", "user STRING, events LONG, closed BOOLEAN",
    ...                           "n LONG", "ProcessingTimeTimeout")
    >>> tester.test(("a",), [("a",), ("a",)])
    [Row(user='a', events=2, closed=False)]
    >>> tester.advanceProcessingTime(61_000)
    >>> tester.fireTimeouts()
    [Row(user='a', events=2, closed=True)]
    >>> tester.peekState(("a",)) is None
    True
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
        """Set the processing time the next calls see.

        Parameters
        ----------
        ms : int
            Milliseconds since the epoch: ``state.getCurrentProcessingTimeMs()``
            and the base of ``setTimeoutDuration``.

        Examples
        --------
        >>> from sparklet.testing import GroupStateTester
        >>> def when(key, pdfs, state):
        ...     yield pd.DataFrame({"k": [key[0]], "now": [state.getCurrentProcessingTimeMs()]})
        >>> import pandas as pd
        >>> tester = GroupStateTester(when, "k STRING", "k STRING, now LONG", "n LONG")
        >>> tester.setProcessingTime(5_000)
        >>> tester.test(("a",), [("a",)])
        [Row(k='a', now=5000)]
        """
        self._now_ms = ms

    def advanceProcessingTime(self, ms: int) -> None:
        """Move the processing time forward.

        Parameters
        ----------
        ms : int
            Milliseconds to move.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG",
        ...                           "ProcessingTimeTimeout")
        >>> tester.setState(("a",), (3,), timeoutMs=1_000)
        >>> tester.fireTimeouts()  # the time (0) has not passed the timeout
        []
        >>> tester.advanceProcessingTime(1_001)
        >>> tester.fireTimeouts()
        [Row(user='a', events=3)]
        """
        self._now_ms += ms

    def setWatermark(self, ms: int | None) -> None:
        """Set the event-time watermark the next calls see.

        Parameters
        ----------
        ms : int or None
            The watermark in milliseconds since the epoch, or None for none
            yet: ``state.getCurrentWatermarkMs()``, and what event-time
            timeouts are checked against.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG",
        ...                           "EventTimeTimeout")
        >>> tester.setState(("a",), (3,), timeoutMs=10_000)
        >>> tester.setWatermark(9_000)
        >>> tester.fireTimeouts()
        []
        >>> tester.setWatermark(10_001)
        >>> tester.fireTimeouts()
        [Row(user='a', events=3)]
        """
        self._watermark_ms = ms

    def peekState(self, key: tuple[Any, ...]) -> Row | None:
        """The key's state.

        Parameters
        ----------
        key : tuple
            The grouping key, one value per grouping column.

        Returns
        -------
        Row or None
            The state, with the state schema's field names; None when the
            key has none (never set, or removed).

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG")
        >>> tester.test(("a",), [("a",), ("a",)])
        [Row(user='a', events=2)]
        >>> tester.peekState(("a",))
        Row(n=2)
        >>> tester.peekState(("b",)) is None
        True
        """
        return self._states.get(tuple(key), (None, None))[0]

    def peekTimeout(self, key: tuple[Any, ...]) -> int | None:
        """The key's timeout.

        Parameters
        ----------
        key : tuple
            The grouping key.

        Returns
        -------
        int or None
            When the key times out, in milliseconds since the epoch; None
            when it has no timeout set.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def touch(key, pdfs, state):
        ...     state.update((1,))
        ...     state.setTimeoutDuration(60_000)
        ...     yield pd.DataFrame({"k": [key[0]]})
        >>> tester = GroupStateTester(touch, "k STRING", "k STRING", "n LONG", "ProcessingTimeTimeout")
        >>> tester.setProcessingTime(1_000)
        >>> _ = tester.test(("a",), [("a",)])
        >>> tester.peekTimeout(("a",))
        61000
        """
        return self._states.get(tuple(key), (None, None))[1]

    def setState(self, key: tuple[Any, ...], value: tuple[Any, ...] | None, timeoutMs: int | None = None) -> None:
        """Set the key's state (and timeout) as if an earlier batch had.

        Parameters
        ----------
        key : tuple
            The grouping key.
        value : tuple or None
            The state's values, in the state schema's order; None for no
            state.
        timeoutMs : int, optional
            The key's timeout, in milliseconds since the epoch.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG")
        >>> tester.setState(("a",), (10,))
        >>> tester.test(("a",), [("a",)])
        [Row(user='a', events=11)]
        """
        row = None if value is None else Row._from_pairs(self._state_fields, list(value))
        self._states[tuple(key)] = (row, timeoutMs)

    def test(self, key: tuple[Any, ...], rows: list[tuple[Any, ...]] | Any) -> list[Row]:
        """Call the function for one key, as a micro-batch with rows for it does.

        Parameters
        ----------
        key : tuple
            The grouping key.
        rows : list of tuple or pandas.DataFrame
            The key's rows in this batch, in the input schema.

        Returns
        -------
        list of Row
            What the function yielded, in the output schema.

        Raises
        ------
        Exception
            Whatever the function raises, and the errors a query would
            raise for misuse of the state (such as setting a timeout the
            ``timeoutConf`` does not allow).

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG")
        >>> tester.test(("a",), [("a",)])
        [Row(user='a', events=1)]
        >>> tester.test(("a",), pd.DataFrame({"user": ["a", "a"]}))
        [Row(user='a', events=3)]
        """
        import pandas as pd

        pdf = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=self._input.names)
        return self._call(tuple(key), pdf, timed_out=False)

    def fireTimeouts(self) -> list[Row]:
        """Call the function for every key whose timeout has passed.

        As a micro-batch without rows for those keys does: each is called
        with no rows and ``state.hasTimedOut`` true, where the processing
        time (``ProcessingTimeTimeout``) or the watermark
        (``EventTimeTimeout``) is beyond its timeout.

        Returns
        -------
        list of Row
            What the calls yielded; empty without a timeout configuration.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import GroupStateTester
        >>> def count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> tester = GroupStateTester(count, "user STRING", "user STRING, events LONG", "n LONG",
        ...                           "ProcessingTimeTimeout")
        >>> tester.setState(("a",), (4,), timeoutMs=500)
        >>> tester.setState(("b",), (7,), timeoutMs=5_000)
        >>> tester.setProcessingTime(1_000)
        >>> tester.fireTimeouts()
        [Row(user='a', events=4)]
        """
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
