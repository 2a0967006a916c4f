"""``StreamingQueryListener``, as :mod:`pyspark.sql.streaming.listener`.

The engine posts each query's events (started, progress, idle, terminated)
in order to a subscription; one daemon thread per session takes them (the
GIL released while it waits) and calls the session's listeners. A listener
that raises is logged under ``sparklet`` and the others still run; the
query never waits for a listener.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from abc import ABC, abstractmethod
from typing import Any

from sparklet.sql.streaming.progress import (
    SinkProgress,
    SourceProgress,
    StateOperatorProgress,
    StreamingQueryProgress,
)

__all__ = [
    "QueryIdleEvent",
    "QueryProgressEvent",
    "QueryStartedEvent",
    "QueryTerminatedEvent",
    "SinkProgress",
    "SourceProgress",
    "StateOperatorProgress",
    "StreamingQueryListener",
    "StreamingQueryProgress",
]

log = logging.getLogger("sparklet")


class QueryStartedEvent:
    """A query started (``onQueryStarted``)."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, name: str | None, timestamp: str, jobTags: set[str]) -> None:
        self.id = id
        self.runId = runId
        self.name = name
        self.timestamp = timestamp
        self.jobTags = jobTags

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> QueryStartedEvent:
        """From Spark's event JSON."""
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j["name"], j["timestamp"], set(j.get("jobTags") or []))


class QueryProgressEvent:
    """A batch ran (``onQueryProgress``): its ``progress``."""

    def __init__(self, progress: StreamingQueryProgress) -> None:
        self.progress = progress

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> QueryProgressEvent:
        """From Spark's event JSON."""
        return cls(StreamingQueryProgress.fromJson(j["progress"]))


class QueryIdleEvent:
    """A trigger found no new data (``onQueryIdle``)."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, timestamp: str) -> None:
        self.id = id
        self.runId = runId
        self.timestamp = timestamp

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> QueryIdleEvent:
        """From Spark's event JSON."""
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j["timestamp"])


class QueryTerminatedEvent:
    """A query ended (``onQueryTerminated``); ``exception`` is its error, if any."""

    def __init__(
        self, id: uuid.UUID, runId: uuid.UUID, exception: str | None, errorClassOnException: str | None
    ) -> None:
        self.id = id
        self.runId = runId
        self.exception = exception
        self.errorClassOnException = errorClassOnException

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> QueryTerminatedEvent:
        """From Spark's event JSON."""
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j.get("exception"), j.get("errorClassOnException"))


class StreamingQueryListener(ABC):
    """Receives the events of a session's streaming queries; register with
    ``spark.streams.addListener``. Events arrive on a thread of their own, in
    order: started, then progress (or idle) per trigger, then terminated.

    Examples
    --------
    >>> import threading
    >>> from sparklet.sql.streaming import StreamingQueryListener
    >>> from sparklet.testing import MemoryStream
    >>> class Recorder(StreamingQueryListener):
    ...     def __init__(self):
    ...         self.seen, self.done = [], threading.Event()
    ...     def onQueryStarted(self, event):
    ...         pass
    ...     def onQueryProgress(self, event):
    ...         self.seen.append(event.progress.numInputRows)
    ...     def onQueryIdle(self, event):
    ...         pass
    ...     def onQueryTerminated(self, event):
    ...         self.done.set()
    >>> listener = Recorder()
    >>> spark.streams.addListener(listener)
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = stream.toDF().writeStream.format("noop").queryName("onqueryprogress_demo").start()
    >>> _ = stream.addData([(1,), (2,), (3,)])
    >>> q.processAllAvailable()
    >>> q.stop()
    >>> listener.done.wait(30)
    True
    >>> spark.streams.removeListener(listener)
    >>> sum(listener.seen)
    3
    """

    @abstractmethod
    def onQueryStarted(self, event: QueryStartedEvent) -> None:
        """A query started.

        Parameters
        ----------
        event : QueryStartedEvent
            the query's ``id``, ``runId``, ``name`` and ``timestamp``

        Examples
        --------
        >>> import threading
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> from sparklet.testing import MemoryStream
        >>> class Recorder(StreamingQueryListener):
        ...     def __init__(self):
        ...         self.seen, self.done = [], threading.Event()
        ...     def onQueryStarted(self, event):
        ...         self.seen.append(event.name)
        ...     def onQueryProgress(self, event):
        ...         pass
        ...     def onQueryIdle(self, event):
        ...         pass
        ...     def onQueryTerminated(self, event):
        ...         self.done.set()
        >>> listener = Recorder()
        >>> spark.streams.addListener(listener)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("noop").queryName("onquerystarted_demo").start()
        >>> _ = stream.addData([(1,), (2,), (3,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> listener.done.wait(30)
        True
        >>> spark.streams.removeListener(listener)
        >>> listener.seen
        ['onquerystarted_demo']
        """

    @abstractmethod
    def onQueryProgress(self, event: QueryProgressEvent) -> None:
        """A trigger ran a batch.

        Parameters
        ----------
        event : QueryProgressEvent
            its ``progress``: the batch's StreamingQueryProgress

        Examples
        --------
        >>> import threading
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> from sparklet.testing import MemoryStream
        >>> class Recorder(StreamingQueryListener):
        ...     def __init__(self):
        ...         self.seen, self.done = [], threading.Event()
        ...     def onQueryStarted(self, event):
        ...         pass
        ...     def onQueryProgress(self, event):
        ...         self.seen.append(event.progress.numInputRows)
        ...     def onQueryIdle(self, event):
        ...         pass
        ...     def onQueryTerminated(self, event):
        ...         self.done.set()
        >>> listener = Recorder()
        >>> spark.streams.addListener(listener)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("noop").queryName("onqueryprogress_demo").start()
        >>> _ = stream.addData([(1,), (2,), (3,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> listener.done.wait(30)
        True
        >>> spark.streams.removeListener(listener)
        >>> sum(listener.seen)
        3
        """

    def onQueryIdle(self, event: QueryIdleEvent) -> None:  # noqa: B027 (optional, as in PySpark)
        """A trigger found no new data (optional to override).

        Parameters
        ----------
        event : QueryIdleEvent
            the query's ``id``, ``runId`` and the ``timestamp``

        Examples
        --------
        >>> import threading
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> from sparklet.testing import MemoryStream
        >>> class Recorder(StreamingQueryListener):
        ...     def __init__(self):
        ...         self.seen, self.done = [], threading.Event()
        ...     def onQueryStarted(self, event):
        ...         pass
        ...     def onQueryProgress(self, event):
        ...         pass
        ...     def onQueryIdle(self, event):
        ...         self.seen.append(event.id)
        ...     def onQueryTerminated(self, event):
        ...         self.done.set()
        >>> listener = Recorder()
        >>> spark.streams.addListener(listener)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("noop").queryName("onqueryidle_demo").start()
        >>> _ = stream.addData([(1,), (2,), (3,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> listener.done.wait(30)
        True
        >>> spark.streams.removeListener(listener)
        >>> all(str(i) == str(q.id) for i in listener.seen)
        True
        """

    @abstractmethod
    def onQueryTerminated(self, event: QueryTerminatedEvent) -> None:
        """A query ended, stopped or failed.

        Parameters
        ----------
        event : QueryTerminatedEvent
            the query's ``id``, ``runId``, and the ``exception`` (None after ``stop``)

        Examples
        --------
        >>> import threading
        >>> from sparklet.sql.streaming import StreamingQueryListener
        >>> from sparklet.testing import MemoryStream
        >>> class Recorder(StreamingQueryListener):
        ...     def __init__(self):
        ...         self.seen, self.done = [], threading.Event()
        ...     def onQueryStarted(self, event):
        ...         pass
        ...     def onQueryProgress(self, event):
        ...         pass
        ...     def onQueryIdle(self, event):
        ...         pass
        ...     def onQueryTerminated(self, event):
        ...         self.seen.append(event.exception); self.done.set()
        >>> listener = Recorder()
        >>> spark.streams.addListener(listener)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("noop").queryName("onqueryterminated_demo").start()
        >>> _ = stream.addData([(1,), (2,), (3,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> listener.done.wait(30)
        True
        >>> spark.streams.removeListener(listener)
        >>> listener.seen
        [None]
        """


_HANDLERS: dict[str, tuple[str, Any]] = {
    "QueryStartedEvent": ("onQueryStarted", QueryStartedEvent),
    "QueryProgressEvent": ("onQueryProgress", QueryProgressEvent),
    "QueryIdleEvent": ("onQueryIdle", QueryIdleEvent),
    "QueryTerminatedEvent": ("onQueryTerminated", QueryTerminatedEvent),
}


class _Bus:
    """A session's listeners and the thread that delivers events to them."""

    def __init__(self, native_session: Any) -> None:
        self._native = native_session
        self._listeners: list[StreamingQueryListener] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, listener: StreamingQueryListener) -> None:
        with self._lock:
            self._listeners.append(listener)
            if self._thread is None:
                receiver = self._native.subscribe_events()
                self._thread = threading.Thread(
                    target=self._deliver, args=(receiver,), name="sparklet-listener-bus", daemon=True
                )
                self._thread.start()

    def remove(self, listener: StreamingQueryListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _deliver(self, receiver: Any) -> None:
        while True:
            text = receiver.next(200)
            if text is None:
                continue
            event = json.loads(text)
            method, cls = _HANDLERS[event["event"]]
            with self._lock:
                listeners = list(self._listeners)
            for listener in listeners:
                try:
                    getattr(listener, method)(cls.fromJson(event))
                except Exception:
                    log.exception("StreamingQueryListener %r failed in %s", listener, method)
