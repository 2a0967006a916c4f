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
    """``message``, ``isDataAvailable``, ``isTriggerActive``."""

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
    """A handle on a query started with ``writeStream.start()``."""

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
        """The query id (kept across restarts from a checkpoint)."""
        return str(self._native.id())

    @property
    def runId(self) -> str:
        """The id of this run."""
        return str(self._native.run_id())

    @property
    def name(self) -> str | None:
        """The query name, or ``None``."""
        name: str | None = self._native.name()
        return name

    @property
    def isActive(self) -> bool:
        """Whether the query is running."""
        return bool(self._native.is_active())

    @property
    def status(self) -> StreamingQueryStatus:
        """What the query is doing now."""
        return StreamingQueryStatus(json.loads(self._native.status_json()))

    @property
    def lastProgress(self) -> StreamingQueryProgress | None:
        """The latest progress, or ``None`` before the first."""
        p = self._native.last_progress_json()
        return StreamingQueryProgress.fromJson(json.loads(p)) if p is not None else None

    @property
    def recentProgress(self) -> list[StreamingQueryProgress]:
        """Recent progress updates, oldest first."""
        return [StreamingQueryProgress.fromJson(json.loads(p)) for p in self._native.recent_progress_json()]

    def awaitTermination(self, timeout: float | None = None) -> bool | None:
        """Wait for the query to end (``timeout`` in seconds).

        Returns whether it ended when a timeout is given; raises
        :class:`StreamingQueryException` if the query failed.
        """
        ms = _timeout_ms(timeout)
        try:
            ended = self._native.await_termination(ms)
        finally:
            if not self.isActive:
                self._settle_displays()
        return bool(ended) if timeout is not None else None

    def processAllAvailable(self) -> None:
        """Block until all data available now has been processed (for tests)."""
        self._native.process_all_available(None)

    def stop(self) -> None:
        """Stop the query and wait for its thread to finish.

        With ``spark.sql.streaming.stopTimeout`` set (ms, or a duration
        such as ``"5s"``; 0, the default, waits as long as it takes), a
        query whose thread is still busy when it is up (a ``foreachBatch``
        that does not return) raises :class:`TimeoutError`; the query stops
        at its next step.
        """
        timeout = _stop_timeout_ms(self._session)
        if not self._native.stop(timeout):
            raise TimeoutError(_stop_timed_out(self.id, self.runId, timeout))
        self._settle_displays()

    def exception(self) -> StreamingQueryException | None:
        """The exception that stopped the query, or ``None``."""
        error: StreamingQueryException | None = self._native.exception()
        return error

    def explain(self, extended: bool = False) -> None:
        """Print the plan of the query's last batch (as Spark: none before
        the first batch with data has run)."""
        if not any(p["numInputRows"] for p in self.recentProgress):
            print("No physical plan. Waiting for data.")
            return
        print(self._native.explain())

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
    """``spark.streams``: the session's queries."""

    def __init__(self, session: "SparkSession") -> None:
        self._session = session

    @property
    def active(self) -> list[StreamingQuery]:
        """Running queries."""
        return [StreamingQuery(q, self._session) for q in self._session._native.active_queries()]

    def get(self, id: str) -> StreamingQuery | None:  # noqa: A002 - PySpark's name
        """A running query by id, or ``None``."""
        q = self._session._native.get_query(id)
        return StreamingQuery(q, self._session) if q is not None else None

    def awaitAnyTermination(self, timeout: float | None = None) -> bool | None:
        """Wait until any query ends (since the last ``resetTerminated``)."""
        ended = self._session._native.await_any_termination(_timeout_ms(timeout))
        return bool(ended) if timeout is not None else None

    def resetTerminated(self) -> None:
        """Forget ended queries so ``awaitAnyTermination`` waits for new ones."""
        self._session._native.reset_terminated()

    def addListener(self, listener: Any) -> None:
        """Deliver this session's query events to ``listener`` (a
        :class:`~sparklet.sql.streaming.listener.StreamingQueryListener`),
        asynchronously and in order."""
        self._session._listener_bus().add(listener)

    def removeListener(self, listener: Any) -> None:
        """Stop delivering events to ``listener``."""
        self._session._listener_bus().remove(listener)
