""":class:`StreamingContext`: PySpark's legacy (DStream) streaming entry point.

A scheduler thread runs a batch every ``batchDuration`` seconds: each
output operation's DStream computes its RDD for the batch time, and the
operation runs on it. With a checkpoint directory, the last batch time,
the files read and the version of each ``updateStateByKey`` state (held in
the engine's state store, under ``state/`` there) are written there after
each batch, so
:meth:`StreamingContext.getOrCreate` resumes after a restart (output
operations are at least once, as Spark documents)."""

from __future__ import annotations

import os
import pickle
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sparklet.core.context import SparkContext
from sparklet.core.rdd import RDD
from sparklet.streaming.dstream import DStream, _Source

__all__ = ["StreamingContext"]

_ACTIVE: "StreamingContext | None" = None
_LOCK = threading.Lock()
#: The file in the checkpoint directory holding what a restart resumes from.
STATE_FILE = "sparklet-dstream-checkpoint"


class StreamingContext:
    """Runs DStreams over ``sparkContext`` in batches of ``batchDuration`` seconds."""

    def __init__(self, sparkContext: Any, batchDuration: float | None = None) -> None:
        import warnings

        warnings.warn(
            "DStream is deprecated as of Spark 3.4.0. Migrate to Structured Streaming.", FutureWarning, stacklevel=2
        )
        if batchDuration is None:
            raise ValueError("batchDuration is required")
        self._sc: SparkContext = sparkContext
        self._batch_ms = int(round(batchDuration * 1000))
        self._streams: list[DStream[Any]] = []
        self._outputs: list[tuple[DStream[Any], Callable[[int, RDD[Any]], None]]] = []
        self._stateful: list[Any] = []
        # each textFileStream's files read so far (kept in the checkpoint)
        self._file_sets: list[set[str]] = []
        self._checkpoint: str | None = None
        self._remember_ms = 0
        self._zero_ms = 0
        self._state = "INITIALIZED"
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._receivers: list[Callable[[], None]] = []
        self._resume: dict[str, Any] | None = None

    # ---- the graph ----------------------------------------------------------------

    def _register(self, stream: DStream[Any]) -> None:
        if self._state != "INITIALIZED":
            raise ValueError(
                "Adding new inputs, transformations, and output operations after starting a context is not supported"
            )
        self._streams.append(stream)

    def _require_checkpoint(self) -> None:
        if self._checkpoint is None:
            raise ValueError(
                "The checkpoint directory has not been set. Please set it by StreamingContext.checkpoint()."
            )

    @property
    def sparkContext(self) -> Any:
        """The SparkContext the streams run on."""
        return self._sc

    def remember(self, duration: int) -> None:
        """Keep each stream's RDDs for ``duration`` seconds at least."""
        self._remember_ms = int(duration * 1000)

    def checkpoint(self, directory: str) -> None:
        """Where batch times and ``updateStateByKey`` state are kept."""
        os.makedirs(directory, exist_ok=True)
        self._checkpoint = directory

    # ---- inputs --------------------------------------------------------------------

    def queueStream(self, rdds: Iterable[Any], oneAtATime: bool = True, default: Any = None) -> DStream[Any]:
        """A stream of the RDDs (or lists) in ``rdds``: one per batch, or all
        in the first; then ``default`` (or nothing) each batch."""
        pending = [r if isinstance(r, RDD) else self._sc.parallelize(r) for r in rdds]
        fallback = default if default is None or isinstance(default, RDD) else self._sc.parallelize(default)

        def produce(_t: int) -> RDD[Any]:
            if not pending:
                return fallback if fallback is not None else self._sc.parallelize([], 1)
            if oneAtATime:
                return pending.pop(0)
            out = pending.pop(0)
            while pending:
                out = out.union(pending.pop(0))
            return out

        return _Source(self, produce)

    def textFileStream(self, directory: str) -> DStream[str]:
        """Lines of the files that appear in ``directory`` after the start
        (files already there are left alone, as Spark's)."""
        seen: set[str] = set()
        self._file_sets.append(seen)
        started = {"done": False}

        def listing() -> list[str]:
            return sorted(
                str(p) for p in Path(directory).iterdir() if p.is_file() and not p.name.startswith((".", "_"))
            )

        def produce(_t: int) -> RDD[str]:
            if not started["done"]:
                started["done"] = True
                if self._resume is None:
                    seen.update(listing())
            new = [f for f in listing() if f not in seen]
            seen.update(new)
            lines = [line for f in new for line in Path(f).read_text().splitlines()]
            return self._sc.parallelize(lines, max(1, len(new)))

        return _Source(self, produce)

    def socketTextStream(self, hostname: str, port: int, storageLevel: Any = None) -> DStream[str]:
        """Lines received from a TCP server (connected at start; lines are
        not kept through a restart, as Spark's receiver without a WAL)."""
        lines: queue.Queue[str] = queue.Queue()

        def receive() -> None:
            with socket.create_connection((hostname, port)) as conn:
                conn.settimeout(0.2)
                buffer = b""
                while not self._stop_event.is_set():
                    try:
                        chunk = conn.recv(65536)
                    except TimeoutError:
                        continue
                    if not chunk:
                        break
                    buffer += chunk
                    *complete, buffer = buffer.split(b"\n")
                    for line in complete:
                        lines.put(line.decode("utf-8"))

        def start() -> None:
            threading.Thread(target=receive, name="dstream-socket-receiver", daemon=True).start()

        def produce(_t: int) -> RDD[str]:
            got = []
            while not lines.empty():
                got.append(lines.get_nowait())
            return self._sc.parallelize(got, 1)

        self._receivers.append(start)
        return _Source(self, produce)

    def transform(self, dstreams: list[DStream[Any]], transformFunc: Callable[..., RDD[Any]]) -> DStream[Any]:
        """Each batch's RDDs of ``dstreams`` through ``transformFunc(rdds)``
        or ``transformFunc(time, rdds)``."""
        from sparklet.streaming.dstream import _arity, _time

        two = _arity(transformFunc) == 2

        def produce(t: int) -> RDD[Any]:
            rdds = [d._rdd_at(t) or self._sc.parallelize([], 1) for d in dstreams]
            return transformFunc(_time(t), rdds) if two else transformFunc(rdds)

        stream = _Source(self, produce)
        stream._parents = list(dstreams)
        return stream

    def union(self, *dstreams: DStream[Any]) -> DStream[Any]:
        """The elements of every stream, batch by batch."""
        if not dstreams:
            raise ValueError("should have at least one DStream to union")
        out = dstreams[0]
        for d in dstreams[1:]:
            out = out.union(d)
        return out

    # ---- running ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the batches (every ``batchDuration`` from now)."""
        global _ACTIVE
        if self._state == "ACTIVE":
            raise ValueError("StreamingContext has already been started")
        if self._state == "STOPPED":
            raise ValueError("StreamingContext has already been stopped")
        if not self._outputs:
            raise ValueError("No output operations registered, so nothing to execute")
        with _LOCK:
            if _ACTIVE is not None and _ACTIVE is not self:
                raise ValueError("Only one StreamingContext may be started in this JVM")
            _ACTIVE = self
        now = int(time.time() * 1000)
        first = (now // self._batch_ms + 1) * self._batch_ms
        if self._resume is not None:
            self._zero_ms = self._resume["zero_ms"]
            first = max(first, self._resume["last_ms"] + self._batch_ms)
        else:
            self._zero_ms = first - self._batch_ms
        self._state = "ACTIVE"
        for start in self._receivers:
            start()
        self._thread = threading.Thread(target=self._run, args=(first,), name="dstream-job-generator", daemon=True)
        self._thread.start()

    def _run(self, first: int) -> None:
        t = first
        try:
            while not self._stop_event.is_set():
                wait = t / 1000 - time.time()
                if wait > 0 and self._stop_event.wait(wait):
                    break
                self._batch(t)
                t += self._batch_ms
        except BaseException as e:  # noqa: BLE001 - it ends the context; awaitTermination raises it
            self._error = e
            self._stop_event.set()

    def _batch(self, t: int) -> None:
        for stream, action in self._outputs:
            rdd = stream._rdd_at(t)
            if rdd is not None:
                action(t, rdd)
        for stream in self._streams:
            stream._forget(t)
        if self._checkpoint is not None:
            saved = {
                "zero_ms": self._zero_ms,
                "last_ms": t,
                "state_versions": [s._version() for s in self._stateful],
                "files": [sorted(f) for f in self._file_sets],
            }
            tmp = Path(self._checkpoint) / f".{STATE_FILE}.tmp"
            tmp.write_bytes(pickle.dumps(saved))
            os.replace(tmp, Path(self._checkpoint) / STATE_FILE)

    def awaitTermination(self, timeout: float | None = None) -> None:
        """Wait until the context stops (or ``timeout`` seconds); raise the
        error that stopped it, if one did."""
        self.awaitTerminationOrTimeout(timeout)

    def awaitTerminationOrTimeout(self, timeout: float | None) -> bool:
        """Wait as :meth:`awaitTermination`; True if the context stopped."""
        stopped = self._stop_event.wait(timeout)
        if self._error is not None:
            raise self._error
        return stopped

    def stop(self, stopSparkContext: bool = True, stopGraceFully: bool = False) -> None:
        """Stop the batches (after the running one); ``stopSparkContext``
        also stops the session."""
        global _ACTIVE
        self._stop_event.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._state = "STOPPED"
        with _LOCK:
            if _ACTIVE is self:
                _ACTIVE = None
        if stopSparkContext:
            self._sc.stop()

    @classmethod
    def getActive(cls) -> "StreamingContext | None":
        """The started context, if any."""
        return _ACTIVE

    @classmethod
    def getActiveOrCreate(
        cls, checkpointPath: str | None, setupFunc: Callable[[], "StreamingContext"]
    ) -> "StreamingContext":
        """The started context, or one from the checkpoint or ``setupFunc``."""
        if _ACTIVE is not None:
            return _ACTIVE
        if checkpointPath is not None:
            return cls.getOrCreate(checkpointPath, setupFunc)
        return setupFunc()

    @classmethod
    def getOrCreate(cls, checkpointPath: str, setupFunc: Callable[[], "StreamingContext"]) -> "StreamingContext":
        """A context resuming from ``checkpointPath`` if it holds one (the
        graph built again by ``setupFunc``, the batch times and
        ``updateStateByKey`` state restored), else ``setupFunc()``."""
        saved_file = Path(checkpointPath) / STATE_FILE
        ssc = setupFunc()
        if not isinstance(ssc, StreamingContext):
            raise TypeError(f"setupFunc should return a StreamingContext, got {type(ssc).__name__}")
        if ssc._checkpoint is None:
            ssc.checkpoint(checkpointPath)
        if saved_file.exists():
            saved = pickle.loads(saved_file.read_bytes())
            if len(saved.get("state_versions", ())) != len(ssc._stateful):
                raise ValueError(
                    f"The checkpoint in {checkpointPath} holds the state of "
                    f"{len(saved.get('state_versions', ()))} updateStateByKey streams, the graph setupFunc "
                    f"builds has {len(ssc._stateful)}: it cannot resume from it"
                )
            ssc._resume = saved
            for files, read in zip(ssc._file_sets, saved["files"]):
                files.update(read)
        return ssc
