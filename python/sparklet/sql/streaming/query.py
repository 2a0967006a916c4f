"""Running queries: :class:`StreamingQuery`, :class:`StreamingQueryManager`
and the progress/status objects, as in :mod:`pyspark.sql.streaming`."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from sparklet import _native
from sparklet.errors import PySparkValueError, StreamingQueryException
from sparklet.sql.streaming.progress import StreamingQueryProgress

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

__all__ = ["StreamingQuery", "StreamingQueryManager", "StreamingQueryProgress", "StreamingQueryStatus"]


class StreamingQueryStatus(dict):  # type: ignore[type-arg]
    """What a query is doing now (``q.status``): ``message``,
    ``isDataAvailable`` and ``isTriggerActive``, by key or as attributes.

    Examples
    --------
    >>> from sparklet.testing import MemoryStream
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = stream.toDF().writeStream.format("noop").start()
    >>> _ = stream.addData([(1,)])
    >>> q.processAllAvailable()
    >>> sorted(q.status)
    ['isDataAvailable', 'isTriggerActive', 'message']
    >>> q.stop()
    >>> q.status["message"]
    'Stopped'
    """

    def __getattr__(self, item: str) -> Any:
        try:
            return self[item]
        except KeyError:
            raise AttributeError(item) from None


def _timeout_ms(timeout: float | None) -> int | None:
    if timeout is None:
        return None
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout < 0:
        raise PySparkValueError(
            f"[VALUE_NOT_POSITIVE] Value for `timeout` must be positive, got '{timeout}'.", "VALUE_NOT_POSITIVE"
        )
    return int(timeout * 1000)


STOP_TIMEOUT = "spark.sql.streaming.stopTimeout"


def _stop_timeout_ms(session: "SparkSession") -> int | None:
    """``spark.sql.streaming.stopTimeout`` in ms (None: no limit)."""
    value = str(session.conf.get(STOP_TIMEOUT, "0")).strip()
    ms = int(value) if value.isdigit() else int(_native.parse_interval_ms(value))
    return ms if ms > 0 else None


def _stop_timed_out(id: str, run_id: str, timeout_ms: int | None) -> str:  # noqa: A002 - Spark's word
    return (
        f"Stream Execution thread for stream [id = {id}, runId = {run_id}] failed to stop within "
        f"{timeout_ms} milliseconds (specified by {STOP_TIMEOUT}). A foreachBatch, foreach or listener "
        "callback is still running; the query stops once it returns."
    )


class StreamingQuery:
    """A handle on a query started with ``writeStream.start()``.

    Use it to watch the query (:attr:`status`, :attr:`lastProgress`,
    :attr:`recentProgress`), wait for it (:meth:`awaitTermination`,
    :meth:`processAllAvailable`) and stop it (:meth:`stop`).

    Examples
    --------
    >>> from sparklet.testing import MemoryStream
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = stream.toDF().writeStream.format("memory").queryName("handle").start()
    >>> q.isActive
    True
    >>> q.stop()
    """

    def __init__(self, native: Any, session: "SparkSession") -> None:
        self._native = native
        self._session = session
        # live displays (progress bar, notebook card) following this query
        self._displays: list[threading.Thread] = []

    def _settle_displays(self) -> None:
        """Once the query ended: let its live displays draw their last state."""
        for t in self._displays:
            t.join(timeout=2.0)

    @property
    def id(self) -> str:
        """The query's id: the same across restarts from its checkpoint.

        Returns
        -------
        str
            A UUID.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> len(q.id)
        36
        >>> q.stop()
        """
        return str(self._native.id())

    @property
    def runId(self) -> str:
        """The id of this run: a new one at each start or restart.

        Returns
        -------
        str
            A UUID.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.runId != q.id
        True
        >>> q.stop()
        """
        return str(self._native.run_id())

    @property
    def name(self) -> str | None:
        """The name given with ``queryName``.

        Returns
        -------
        str or None
            The name, or None when none was given.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.name is None
        True
        >>> q.stop()
        """
        name: str | None = self._native.name()
        return name

    @property
    def isActive(self) -> bool:
        """Whether the query is running.

        Returns
        -------
        bool
            False once it stopped, failed or (with a ``once`` or
            ``availableNow`` trigger) finished.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.isActive
        True
        >>> q.stop()
        >>> q.isActive
        False
        """
        return bool(self._native.is_active())

    @property
    def status(self) -> StreamingQueryStatus:
        """What the query is doing now.

        Returns
        -------
        StreamingQueryStatus
            ``message``, ``isDataAvailable`` and ``isTriggerActive``, as Spark's.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("status_doc").start()
        >>> q.processAllAvailable()
        >>> sorted(q.status.keys())
        ['isDataAvailable', 'isTriggerActive', 'message']
        >>> q.stop()
        """
        return StreamingQueryStatus(json.loads(self._native.status_json()))

    @property
    def lastProgress(self) -> StreamingQueryProgress | None:
        """The progress of the latest micro-batch.

        Returns
        -------
        StreamingQueryProgress or None
            Spark's progress report (``batchId``, ``numInputRows``, rates,
            ``durationMs``, ``stateOperators``, ``sources``, ``sink`` ...); None
            before the first batch.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("last_progress_doc").start()
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> q.lastProgress["numInputRows"]
        2
        >>> q.stop()
        """
        p = self._native.last_progress_json()
        return StreamingQueryProgress.fromJson(json.loads(p)) if p is not None else None

    @property
    def recentProgress(self) -> list[StreamingQueryProgress]:
        """The progress of recent micro-batches.

        Returns
        -------
        list of StreamingQueryProgress
            Oldest first; at most ``spark.sql.streaming.numRecentProgressUpdates``
            (100).

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("recent_progress_doc").start()
        >>> _ = stream.addData([(1,)])
        >>> q.processAllAvailable()
        >>> _ = stream.addData([(2,), (3,)])
        >>> q.processAllAvailable()
        >>> [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]
        [1, 2]
        >>> q.stop()
        """
        return [StreamingQueryProgress.fromJson(json.loads(p)) for p in self._native.recent_progress_json()]

    def awaitTermination(self, timeout: float | None = None) -> bool | None:
        """Wait for the query to end.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most; without one, wait as long as it runs.

        Returns
        -------
        bool or None
            With a timeout, whether the query ended; without one, None.

        Raises
        ------
        StreamingQueryException
            When the query failed (its cause in ``cause``).

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.awaitTermination(0.1)
        False
        >>> q.stop()
        >>> q.awaitTermination(0.1)
        True
        """
        ms = _timeout_ms(timeout)
        try:
            ended = self._native.await_termination(ms)
        finally:
            if not self.isActive:
                self._settle_displays()
        return bool(ended) if timeout is not None else None

    def processAllAvailable(self) -> None:
        """Wait until every row the sources hold now has been processed.

        Meant for tests: with a source that keeps producing (``rate``), it
        returns once what was there when it was called is done.

        Raises
        ------
        StreamingQueryException
            When the query fails meanwhile.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("process_all_doc").start()
        >>> _ = stream.addData([(1,)])
        >>> q.processAllAvailable()
        >>> spark.table("process_all_doc").count()
        1
        >>> q.stop()
        """
        self._native.process_all_available(None)

    def stop(self) -> None:
        """Stop the query and wait for its thread to finish.

        The batch running finishes first; with a checkpoint, a restart continues
        after the last committed batch.

        Raises
        ------
        TimeoutError
            With ``spark.sql.streaming.stopTimeout`` set (ms, or a duration such
            as ``"5s"``; 0, the default, waits as long as it takes), when the
            query's thread is still busy at the end of it (a ``foreachBatch``
            that does not return); the query stops at its next step.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.stop()
        >>> q.isActive
        False
        """
        timeout = _stop_timeout_ms(self._session)
        if not self._native.stop(timeout):
            raise TimeoutError(_stop_timed_out(self.id, self.runId, timeout))
        self._settle_displays()

    def exception(self) -> StreamingQueryException | None:
        """Why the query failed.

        Returns
        -------
        StreamingQueryException or None
            The error that stopped it; None while it runs or after a clean stop.

        Examples
        --------
        >>> def fail(batch, batch_id): raise ValueError("bad batch")
        >>> q = spark.readStream.format("rate").load().writeStream.foreachBatch(fail).start()
        >>> q.awaitTermination(30)
        Traceback (most recent call last):
        ...
        sparklet.errors.exceptions.StreamingQueryException: ...
        >>> "bad batch" in str(q.exception())
        True
        """
        error: StreamingQueryException | None = self._native.exception()
        return error

    def explain(self, extended: bool = False) -> None:
        """Print the plan of the query's latest batch.

        Parameters
        ----------
        extended : bool, default False
            Also the logical plans.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("explain_doc").start()
        >>> _ = stream.addData([(1,)])
        >>> q.processAllAvailable()
        >>> q.explain()  # doctest: +ELLIPSIS
        == Physical Plan ==
        ...
        >>> q.explain(extended=True)  # doctest: +ELLIPSIS
        == ...Logical Plan ==
        ...
        == Physical Plan ==
        ...
        >>> q.stop()
        """
        if not any(p["numInputRows"] for p in self.recentProgress):
            print("No physical plan. Waiting for data.")
            return
        plan: str = self._native.explain()
        physical = plan.find("== Physical Plan ==")
        # as Spark: the logical plans only when extended
        print(plan if extended or physical < 0 else plan[physical:])

    def __repr__(self) -> str:
        return f"<StreamingQuery id={self.id} name={self.name} active={self.isActive}>"

    def _ipython_display_(self) -> None:
        """Jupyter: the query's card, redrawn while the query runs."""
        from sparklet.sql._live import show_card

        shown = show_card(self)
        if shown is not None:
            self._displays.append(shown)

    def _repr_html_(self) -> str:
        """Jupyter: a card with status, last batch, rates, watermark, state rows and recent rates."""
        from sparklet.sql._html import query_card_html

        return query_card_html(self)


class StreamingQueryManager:
    """``spark.streams``: the session's streaming queries.

    Examples
    --------
    >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
    >>> [x.id for x in spark.streams.active] == [q.id]
    True
    >>> q.stop()
    """

    def __init__(self, session: "SparkSession") -> None:
        self._session = session

    @property
    def active(self) -> list[StreamingQuery]:
        """The queries running now.

        Returns
        -------
        list of StreamingQuery
            In the order they started.

        Examples
        --------
        >>> spark.streams.active
        []
        """
        return [StreamingQuery(q, self._session) for q in self._session._native.active_queries()]

    def get(self, id: str) -> StreamingQuery | None:  # noqa: A002 - PySpark's name
        """A running query by its id.

        Parameters
        ----------
        id : str
            The query's ``id``.

        Returns
        -------
        StreamingQuery or None
            None when no active query has it.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> spark.streams.get(q.id).id == q.id
        True
        >>> q.stop()
        >>> spark.streams.get(q.id) is None
        True
        """
        q = self._session._native.get_query(id)
        return StreamingQuery(q, self._session) if q is not None else None

    def awaitAnyTermination(self, timeout: float | None = None) -> bool | None:
        """Wait until any query of the session ends.

        Queries that ended before count until :meth:`resetTerminated`.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most.

        Returns
        -------
        bool or None
            With a timeout, whether a query ended; without one, None.

        Raises
        ------
        StreamingQueryException
            When the query that ended had failed.

        Examples
        --------
        >>> spark.streams.resetTerminated()
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> spark.streams.awaitAnyTermination(0.1)
        False
        >>> q.stop()
        >>> spark.streams.awaitAnyTermination(0.1)
        True
        """
        ended = self._session._native.await_any_termination(_timeout_ms(timeout))
        return bool(ended) if timeout is not None else None

    def resetTerminated(self) -> None:
        """Forget the queries that ended, so :meth:`awaitAnyTermination` waits for
        the next one.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.stop()
        >>> spark.streams.resetTerminated()
        >>> spark.streams.awaitAnyTermination(0.1)
        False
        """
        self._session._native.reset_terminated()

    def addListener(self, listener: Any) -> None:
        """Deliver the session's query events to a listener.

        Events arrive in order, on a thread of their own: a slow or failing
        listener does not hold up the queries.

        Parameters
        ----------
        listener : StreamingQueryListener
            An object with ``onQueryStarted``, ``onQueryProgress``,
            ``onQueryIdle`` and ``onQueryTerminated``.

        Examples
        --------
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> class Ends(StreamingQueryListener):
        ...     ended = []
        ...     def onQueryStarted(self, event): pass
        ...     def onQueryProgress(self, event): pass
        ...     def onQueryIdle(self, event): pass
        ...     def onQueryTerminated(self, event): self.ended.append(str(event.id))
        >>> listener = Ends()
        >>> spark.streams.addListener(listener)
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.stop()
        >>> import time; time.sleep(0.5)
        >>> listener.ended == [q.id]
        True
        >>> spark.streams.removeListener(listener)
        """
        self._session._listener_bus().add(listener)

    def removeListener(self, listener: Any) -> None:
        """Stop delivering events to a listener added with :meth:`addListener`.

        Parameters
        ----------
        listener : StreamingQueryListener
            The object that was added.

        Examples
        --------
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> class Quiet(StreamingQueryListener):
        ...     def onQueryStarted(self, event): pass
        ...     def onQueryProgress(self, event): pass
        ...     def onQueryTerminated(self, event): pass
        >>> listener = Quiet()
        >>> spark.streams.addListener(listener)
        >>> spark.streams.removeListener(listener)
        """
        self._session._listener_bus().remove(listener)
