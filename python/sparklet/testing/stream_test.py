"""``testStream``: Spark's Scala stream-test DSL, for Python.

A test is a list of actions run in order against one streaming query, which
restarts from the same checkpoint after :class:`StopStream`::

    ms = MemoryStream(spark, "word STRING")
    testStream(
        ms.toDF().groupBy("word").count(), "update",
        AddData(ms, [("a",), ("b",), ("a",)]),
        CheckLastBatch(("a", 2), ("b", 1)),
        StopStream(),
        AddData(ms, [("a",)]),
        StartStream(),
        CheckNewAnswer(("a", 3)),
    )

With ``StartStream(trigger={"processingTime": "10 seconds"}, clock=clock)``
and a :class:`ManualClock`, triggers fire when :class:`AdvanceManualClock`
moves the clock, so processing-time behaviour is tested without sleeping.
Answers are compared as multisets of rows (order ignored) unless
``ordered=True``; each row is a tuple (or a :class:`~sparklet.sql.Row`),
with values as ``collect()`` gives them: a struct (a window too) as a Row
or tuple, an array as a list, a map as a dict, timestamps naive.

The same test runs on PySpark (``pytest --engine=pyspark``), where the
query's batches are DataFrames; a manual clock is sparklet's alone.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparklet import _native

if TYPE_CHECKING:
    # types only: the DSL also runs on PySpark (pytest --engine=pyspark), whose
    # DataFrames, queries and MemoryStream stand-in it is then handed
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.streaming.query import StreamingQuery
    from sparklet.testing.memory_stream import MemoryStream

__all__ = [
    "AddData",
    "AdvanceManualClock",
    "AssertOnQuery",
    "CheckAnswer",
    "CheckLastBatch",
    "CheckNewAnswer",
    "ExpectFailure",
    "ManualClock",
    "StartStream",
    "StopStream",
    "testStream",
]


class ManualClock:
    """A clock that moves only when told: the trigger clock of a query
    started by :class:`StartStream` with ``clock=``.

    A processing-time trigger then fires when :class:`AdvanceManualClock`
    (or :meth:`advance`) moves the clock past it, so a test of
    processing-time behaviour never sleeps. sparklet's own: PySpark has no
    manual clock.

    Parameters
    ----------
    start_ms : int, default 0
        The clock's time at the start, in milliseconds since the epoch.

    Examples
    --------
    >>> from sparklet.testing import ManualClock
    >>> clock = ManualClock(1_000)
    >>> clock.advance(500)
    >>> clock.now_ms
    1500
    """

    def __init__(self, start_ms: int = 0) -> None:
        self._native = _native.ManualClock(start_ms)

    def advance(self, ms: int) -> None:
        """Move the clock forward, waking a query that waits on it.

        Parameters
        ----------
        ms : int
            Milliseconds to move.

        Examples
        --------
        >>> from sparklet.testing import ManualClock
        >>> clock = ManualClock()
        >>> clock.advance(10_000)
        >>> clock.now_ms
        10000
        """
        self._native.advance(ms)

    @property
    def now_ms(self) -> int:
        """The clock's time.

        Returns
        -------
        int
            Milliseconds since the epoch.

        Examples
        --------
        >>> from sparklet.testing import ManualClock
        >>> ManualClock(42).now_ms
        42
        """
        return self._native.now_ms()


@dataclass
class AddData:
    """Action: add ``rows`` to ``stream`` (one offset, as ``stream.addData``).

    Parameters
    ----------
    stream : MemoryStream
        The stream the query reads.
    rows : sequence
        The rows, as ``MemoryStream.addData`` takes them.

    Examples
    --------
    >>> from sparklet.testing import AddData, CheckAnswer, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "n INT")
    >>> testStream(ms.toDF(), "append", AddData(ms, [(1,), (2,)]), CheckAnswer((1,), (2,)))
    """

    stream: MemoryStream
    rows: Sequence[Any]


@dataclass
class StartStream:
    """Action: start the query, or restart it from the test's checkpoint.

    ``testStream`` starts the query itself unless its first action is a
    ``StartStream``.

    Parameters
    ----------
    trigger : dict, optional
        The trigger, as ``writeStream.trigger`` takes it as keywords, such
        as ``{"processingTime": "1 second"}``; by default as fast as
        possible.
    clock : ManualClock, optional
        The clock processing-time triggers follow (sparklet only); the first
        trigger runs before the next action.

    Examples
    --------
    >>> from sparklet.testing import (AddData, AdvanceManualClock, CheckNewAnswer,
    ...     ManualClock, MemoryStream, StartStream, testStream)
    >>> ms = MemoryStream(spark, "n INT")
    >>> clock = ManualClock()
    >>> testStream(
    ...     ms.toDF(), "append",
    ...     StartStream(trigger={"processingTime": "10 seconds"}, clock=clock),
    ...     AddData(ms, [(1,)]),
    ...     CheckNewAnswer(),  # no trigger has fired since the row came
    ...     AdvanceManualClock(10_000),
    ...     CheckNewAnswer((1,)),
    ... )
    """

    trigger: dict[str, Any] = field(default_factory=dict)
    clock: ManualClock | None = None


@dataclass
class StopStream:
    """Action: stop the query; its checkpoint stays for the next :class:`StartStream`.

    Examples
    --------
    >>> from sparklet.testing import (AddData, CheckLastBatch, MemoryStream,
    ...     StartStream, StopStream, testStream)
    >>> ms = MemoryStream(spark, "word STRING")
    >>> testStream(
    ...     ms.toDF().groupBy("word").count(), "update",
    ...     AddData(ms, [("a",), ("a",)]),
    ...     CheckLastBatch(("a", 2)),
    ...     StopStream(),
    ...     AddData(ms, [("a",)]),
    ...     StartStream(),
    ...     CheckLastBatch(("a", 3)),  # the count survived the restart
    ... )
    """


@dataclass
class AdvanceManualClock:
    """Action: advance the running query's :class:`ManualClock`, then wait
    until every trigger that became due has run.

    Parameters
    ----------
    ms : int
        Milliseconds to move the clock.

    Examples
    --------
    >>> from sparklet.testing import (AddData, AdvanceManualClock, AssertOnQuery,
    ...     ManualClock, MemoryStream, StartStream, testStream)
    >>> ms = MemoryStream(spark, "n INT")
    >>> testStream(
    ...     ms.toDF(), "append",
    ...     StartStream(trigger={"processingTime": "1 second"}, clock=ManualClock()),
    ...     AddData(ms, [(1,)]),
    ...     AdvanceManualClock(1_000),
    ...     AssertOnQuery(lambda q: q.lastProgress["numInputRows"] == 1),
    ... )
    """

    ms: int


def _rows(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in rows]


def _hashable(value: Any) -> Any:
    """``value`` compared by what it holds: rows and lists as tuples, maps
    as their sorted items (so rows with struct, array and map values count)."""
    if isinstance(value, (tuple, list)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return ("<map>", tuple(sorted(((_hashable(k), _hashable(v)) for k, v in value.items()), key=repr)))
    return value


class CheckAnswer:
    """Action: everything the sink holds equals ``rows``.

    The query first processes all the data its sources hold. In append and
    update mode the sink holds every row emitted so far; in complete mode,
    the last batch's. Rows compare as a multiset unless ``ordered``.

    Parameters
    ----------
    *rows : tuple or Row
        The expected rows, values as ``collect()`` gives them (a struct as
        a tuple or Row, an array as a list, a map as a dict).
    ordered : bool, default False
        Compare in order.

    Examples
    --------
    >>> from sparklet.testing import AddData, CheckAnswer, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "n INT")
    >>> testStream(
    ...     ms.toDF().selectExpr("n * 10 AS m"), "append",
    ...     AddData(ms, [(1,)]),
    ...     AddData(ms, [(2,)]),
    ...     CheckAnswer((20,), (10,)),
    ... )
    """

    def __init__(self, *rows: Any, ordered: bool = False) -> None:
        self.rows, self.ordered = rows, ordered

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.rows))}, ordered={self.ordered})"


class CheckNewAnswer(CheckAnswer):
    """Action: the rows the sink received since the previous check equal ``rows``.

    Parameters and comparison as :class:`CheckAnswer`; no rows means that
    nothing new may have arrived.

    Examples
    --------
    >>> from sparklet.testing import AddData, CheckNewAnswer, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "n INT")
    >>> testStream(
    ...     ms.toDF(), "append",
    ...     AddData(ms, [(1,)]), CheckNewAnswer((1,)),
    ...     AddData(ms, [(2,)]), CheckNewAnswer((2,)),
    ...     CheckNewAnswer(),
    ... )
    """


class CheckLastBatch(CheckAnswer):
    """Action: the last micro-batch that emitted rows emitted exactly ``rows``.

    Parameters and comparison as :class:`CheckAnswer`.

    Examples
    --------
    >>> from sparklet.testing import AddData, CheckLastBatch, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "word STRING")
    >>> testStream(
    ...     ms.toDF().groupBy("word").count(), "update",
    ...     AddData(ms, [("a",), ("b",)]), CheckLastBatch(("a", 1), ("b", 1)),
    ...     AddData(ms, [("a",)]), CheckLastBatch(("a", 2)),
    ... )
    """


@dataclass
class AssertOnQuery:
    """Action: ``condition(query)`` is true for the running query.

    Parameters
    ----------
    condition : callable
        Takes the :class:`~sparklet.sql.streaming.StreamingQuery`, returns
        a bool.
    message : str, optional
        What the condition checks, shown when it is false.

    Examples
    --------
    >>> from sparklet.testing import AddData, AssertOnQuery, CheckAnswer, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "n INT")
    >>> testStream(
    ...     ms.toDF(), "append",
    ...     AddData(ms, [(1,), (2,)]),
    ...     CheckAnswer((1,), (2,)),
    ...     AssertOnQuery(lambda q: q.lastProgress["numInputRows"] == 2, "two rows read"),
    ... )
    """

    condition: Callable[[StreamingQuery], bool]
    message: str = ""


@dataclass
class ExpectFailure:
    """Action: the query fails, with an error of a class and a message expected.

    Parameters
    ----------
    error : type, default Exception
        The exception class of the failure (or of its cause: a query's
        failure is raised as ``StreamingQueryException``).
    match : str, optional
        Text the failure's message contains.

    Examples
    --------
    >>> from sparklet.testing import AddData, ExpectFailure, MemoryStream, testStream
    >>> from sparklet.errors import StreamingQueryException
    >>> ms = MemoryStream(spark, "n INT")
    >>> bad = ms.toDF().selectExpr("assert_true(n > 0) AS ok")
    >>> testStream(
    ...     bad, "append",
    ...     AddData(ms, [(-1,)]),
    ...     ExpectFailure(StreamingQueryException, "USER_RAISED_EXCEPTION"),
    ... )
    """

    error: type[BaseException] = Exception
    match: str = ""


class _Run:
    """The query under test and what its sink received."""

    def __init__(self, df: DataFrame, output_mode: str) -> None:
        self.df, self.mode = df, output_mode
        self.checkpoint = tempfile.mkdtemp(prefix="sparklet-teststream-")
        self.batches: list[list[tuple[Any, ...]]] = []
        self.checked = 0  # rows of `all_rows` already checked
        self.query: StreamingQuery | None = None
        self.clock: ManualClock | None = None

    def sink(self, batch: Any, batch_id: int) -> None:
        """A batch's rows as ``collect()`` gives them (sparklet hands a
        pyarrow Table, PySpark a DataFrame)."""
        if isinstance(batch, pa.Table):
            from sparklet.sql._convert import table_to_rows

            self.batches.append([tuple(r) for r in table_to_rows(batch)])
        else:
            self.batches.append([tuple(r) for r in batch.collect()])

    def all_rows(self) -> list[tuple[Any, ...]]:
        if self.mode == "complete":
            return next((b for b in reversed(self.batches) if b), [])
        return [r for b in self.batches for r in b]

    def start(self, action: StartStream) -> None:
        if self.query is not None and self.query.isActive:
            raise AssertionError("StartStream: the query is already running")
        w = self.df.writeStream.outputMode(self.mode).foreachBatch(self.sink)
        w = w.option("checkpointLocation", self.checkpoint)
        if action.trigger:
            w = w.trigger(**action.trigger)
        self.clock = action.clock
        if action.clock is not None:
            if not hasattr(w, "_clock"):
                raise AssertionError("StartStream(clock=...): a manual clock is sparklet's; PySpark has none")
            w._clock = action.clock._native
        self.query = w.start()
        if action.clock is not None:
            # the first trigger (at the clock's time) is done before the next action
            _await_next_trigger(self.query, action.clock)

    def running(self, what: str) -> StreamingQuery:
        if self.query is None or not self.query.isActive:
            raise AssertionError(f"{what}: the query is not running")
        return self.query

    def settle(self) -> None:
        """Process what the sources hold (unless a manual clock holds the trigger)."""
        q = self.running("check")
        if self.clock is None:
            q.processAllAvailable()


def _await_next_trigger(q: StreamingQuery, clock: ManualClock) -> None:
    """As Spark's ``isStreamWaitingAt``: return once the query waits for a
    trigger after the clock's time (every trigger due has run)."""
    deadline = time.monotonic() + 60
    while q.isActive:
        waiting = q._native.waiting_until_ms()
        if waiting is not None and waiting > clock.now_ms:
            return
        if time.monotonic() > deadline:
            raise AssertionError("the query did not reach its next trigger within 60 s")
        time.sleep(0.001)


def _same(expected: Sequence[Any], actual: list[tuple[Any, ...]], ordered: bool) -> bool:
    exp, got = _hashable(_rows(expected)), _hashable(actual)
    return exp == got if ordered else Counter(exp) == Counter(got)


def testStream(df: DataFrame, outputMode: str = "append", *actions: Any) -> None:  # noqa: N802
    """Run Spark's stream-test DSL: ``actions``, in order, against one query.

    The query over ``df`` writes to a sink that keeps every batch, with a
    checkpoint of the test's own (so :class:`StopStream` then
    :class:`StartStream` is a restart). It starts at once, as in Spark,
    unless the first action is a ``StartStream``; it is stopped at the end.

    Parameters
    ----------
    df : DataFrame
        A streaming DataFrame, typically over a :class:`MemoryStream`.
    outputMode : str, default "append"
        ``"append"``, ``"update"`` or ``"complete"``.
    *actions
        :class:`AddData`, :class:`StartStream`, :class:`StopStream`,
        :class:`AdvanceManualClock`, :class:`CheckAnswer`,
        :class:`CheckNewAnswer`, :class:`CheckLastBatch`,
        :class:`AssertOnQuery`, :class:`ExpectFailure`.

    Raises
    ------
    AssertionError
        An action failed: the message names it, with its position, what
        differed, and the sink's batches so far.

    Examples
    --------
    >>> from sparklet.testing import AddData, CheckAnswer, CheckLastBatch, MemoryStream, testStream
    >>> ms = MemoryStream(spark, "word STRING")
    >>> counts = ms.toDF().groupBy("word").count()
    >>> testStream(counts, "complete", AddData(ms, [("a",), ("b",), ("a",)]), CheckLastBatch(("a", 2), ("b", 1)))
    >>> words = MemoryStream(spark, "word STRING")
    >>> testStream(words.toDF(), "append", AddData(words, [("a",)]), CheckAnswer(("b",)))
    Traceback (most recent call last):
        ...
    AssertionError: testStream action 2 (CheckAnswer(('b',), ordered=False)) failed: sink rows [('a',)] != expected [('b',)]
    batches so far: [[('a',)]]
    """
    run = _Run(df, outputMode)
    steps = list(actions)
    if not steps or not isinstance(steps[0], StartStream):
        steps.insert(0, StartStream())
    try:
        for n, action in enumerate(steps):
            try:
                _apply(run, action)
            except AssertionError as e:
                raise AssertionError(
                    f"testStream action {n} ({action!r}) failed: {e}\nbatches so far: {run.batches}"
                ) from None
    finally:
        if run.query is not None and run.query.isActive:
            run.query.stop()


testStream.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _apply(run: _Run, action: Any) -> None:
    if isinstance(action, AddData):
        action.stream.addData(list(action.rows))
    elif isinstance(action, StartStream):
        run.start(action)
    elif isinstance(action, StopStream):
        run.running("StopStream").stop()
    elif isinstance(action, AdvanceManualClock):
        q = run.running("AdvanceManualClock")
        if run.clock is None:
            raise AssertionError("AdvanceManualClock: the query was started without a manual clock")
        run.clock.advance(action.ms)
        _await_next_trigger(q, run.clock)
    elif isinstance(action, CheckLastBatch):
        run.settle()
        last: list[Any] = next((b for b in reversed(run.batches) if b), [])
        if not _same(action.rows, last, action.ordered):
            raise AssertionError(f"last batch {last} != expected {_rows(action.rows)}")
        run.checked = len(run.all_rows())
    elif isinstance(action, CheckNewAnswer):
        run.settle()
        rows = run.all_rows()
        new = rows[run.checked :] if run.mode != "complete" else rows
        if not _same(action.rows, new, action.ordered):
            raise AssertionError(f"new rows {new} != expected {_rows(action.rows)}")
        run.checked = len(rows)
    elif isinstance(action, CheckAnswer):
        run.settle()
        rows = run.all_rows()
        if not _same(action.rows, rows, action.ordered):
            raise AssertionError(f"sink rows {rows} != expected {_rows(action.rows)}")
        run.checked = len(rows)
    elif isinstance(action, AssertOnQuery):
        if not action.condition(run.running("AssertOnQuery")):
            raise AssertionError(f"condition false: {action.message or action.condition}")
    elif isinstance(action, ExpectFailure):
        failing = run.query
        if failing is None:
            raise AssertionError("ExpectFailure: no query was started")
        try:
            failing.awaitTermination(60)
        except Exception as e:  # the query's failure, raised as StreamingQueryException
            cause = e.__cause__ or e
            if not isinstance(cause, action.error) and not isinstance(e, action.error):
                raise AssertionError(
                    f"failed with {type(cause).__name__}, expected {action.error.__name__}: {e}"
                ) from e
            if action.match not in str(e):
                raise AssertionError(f"failure {e} does not contain {action.match!r}") from e
            return
        raise AssertionError("the query did not fail")
    else:
        raise AssertionError(f"unknown testStream action {action!r}")
