"""``SparkContext``: the application's settings and the entry to local RDDs."""

from __future__ import annotations

import glob
import logging
import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from sparklet import _native
from sparklet.core.rdd import RDD, _slices
from sparklet.errors import PySparkNotImplementedError

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

T = TypeVar("T")

__all__ = ["Broadcast", "SparkContext"]


class Broadcast:
    """A value shared with every task (here: the value itself)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def unpersist(self, blocking: bool = False) -> None:
        """Nothing to release in one process."""

    def destroy(self, blocking: bool = False) -> None:
        """Nothing to release in one process."""


class Accumulator:
    """A value tasks add to and the driver reads."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def add(self, term: Any) -> None:
        """Add ``term``."""
        self.value += term

    def __iadd__(self, term: Any) -> "Accumulator":
        self.add(term)
        return self

    def __repr__(self) -> str:
        return f"Accumulator<value={self.value}>"


class SparkContext:
    """The application: its settings, and local RDDs (``parallelize``, ``textFile``)."""

    _started = time.time()

    def __init__(self, session: "SparkSession") -> None:
        self._session = session

    @classmethod
    def getOrCreate(cls, conf: Any = None) -> "SparkContext":
        """The active session's context (a session is made if none is)."""
        from sparklet.sql.session import SparkSession

        return SparkSession.builder.getOrCreate().sparkContext

    def __repr__(self) -> str:
        return f"<SparkContext master={self.master} appName={self.appName}>"

    @property
    def appName(self) -> str:
        """The application name."""
        return self._session.conf.get("spark.app.name", "sparklet") or "sparklet"

    @property
    def master(self) -> str:
        """The master URL given to the builder (informational)."""
        return self._session.conf.get("spark.master", "local[*]") or "local[*]"

    @property
    def applicationId(self) -> str:
        """An id of this application."""
        return f"local-{int(self._started * 1000)}"

    @property
    def startTime(self) -> int:
        """When the application started (epoch milliseconds)."""
        return int(self._started * 1000)

    @property
    def version(self) -> str:
        """The Spark version the API follows."""
        return self._session.version

    @property
    def uiWebUrl(self) -> str | None:
        """The web UI's address, when ``spark.ui.enabled`` is true (else None).

        The UI lists active and completed streaming queries with charts of
        their recent progress; it binds to 127.0.0.1 unless
        ``spark.driver.bindAddress`` is set.
        """
        return self._session._native.ui_web_url()

    @property
    def defaultParallelism(self) -> int:
        """Cores used to run queries (and the partitions of a ``parallelize``)."""
        return os.cpu_count() or 1

    @property
    def defaultMinPartitions(self) -> int:
        """The least partitions of a ``textFile``."""
        return min(self.defaultParallelism, 2)

    def sparkUser(self) -> str:
        """The user running the application."""
        import getpass

        return getpass.getuser()

    def setLogLevel(self, logLevel: str) -> None:
        """Set the level of sparklet's loggers (``WARN``, ``INFO``, ``DEBUG``...).

        As Spark's console logging does, the lines then reach stderr: where
        Python's ``logging`` is not configured (no handler on ``sparklet`` or
        the root logger), a handler printing ``time level logger: message``
        is added to ``sparklet``; a configured ``logging`` is left as it is.

        Parameters
        ----------
        logLevel : str
            ``ALL``, ``DEBUG``, ``INFO``, ``WARN``, ``ERROR``, ``FATAL`` or ``OFF``.
        """
        level = {"WARN": "WARNING", "ALL": "DEBUG", "OFF": "CRITICAL", "FATAL": "CRITICAL", "TRACE": "DEBUG"}.get(
            logLevel.upper(), logLevel.upper()
        )
        logger = logging.getLogger("sparklet")
        logger.setLevel(level)
        if not logger.handlers and not logging.getLogger().handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(
                logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%y/%m/%d %H:%M:%S")
            )
            logger.addHandler(handler)
        _native.reset_log_levels()

    # ---- RDDs ------------------------------------------------------------
    def parallelize(self, c: Iterable[T], numSlices: int | None = None) -> RDD[T]:
        """The elements of ``c`` in ``numSlices`` partitions (default:
        ``defaultParallelism``), sliced as Spark slices them."""
        items = list(c)
        n = numSlices or self.defaultParallelism
        return RDD(self, lambda: _slices(items, n), n)

    def range(self, start: int, end: int | None = None, step: int = 1, numSlices: int | None = None) -> RDD[int]:
        """``range(start, end, step)`` as an RDD (one argument: ``range(0, start)``)."""
        if end is None:
            start, end = 0, start
        return self.parallelize(range(start, end, step), numSlices)

    def emptyRDD(self) -> RDD[Any]:
        """An RDD without partitions."""
        return RDD(self, lambda: [], 0)

    def textFile(self, name: str, minPartitions: int | None = None, use_unicode: bool = True) -> RDD[str]:
        """The lines of a file, a folder's files or a glob (comma-separated
        paths allowed), one partition per file."""
        files: list[str] = []
        for path in name.split(","):
            matches = sorted(glob.glob(path)) or [path]
            for m in matches:
                if os.path.isdir(m):
                    files.extend(os.path.join(m, f) for f in sorted(os.listdir(m)) if not f.startswith((".", "_")))
                elif os.path.exists(m):
                    files.append(m)
                else:
                    from sparklet.errors import AnalysisException

                    raise AnalysisException(f"[PATH_NOT_FOUND] Path does not exist: {m}.", "PATH_NOT_FOUND")

        def read() -> list[list[str]]:
            parts = []
            for f in files:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    parts.append(fh.read().splitlines())
            return parts

        return RDD(self, read, len(files))

    def wholeTextFiles(self, path: str, minPartitions: int | None = None, use_unicode: bool = True) -> RDD[Any]:
        """``(path, contents)`` of each file of a folder."""
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if not f.startswith((".", "_")))

        def read() -> list[list[Any]]:
            out = []
            for f in files:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    out.append([("file:" + os.path.abspath(f), fh.read())])
            return out

        return RDD(self, read, len(files))

    def union(self, rdds: list[RDD[Any]]) -> RDD[Any]:
        """The partitions of all of ``rdds``."""
        out = rdds[0]
        for r in rdds[1:]:
            out = out.union(r)
        return out

    def broadcast(self, value: T) -> Broadcast:
        """``value`` shared with every task."""
        return Broadcast(value)

    def accumulator(self, value: Any, accum_param: Any = None) -> Accumulator:
        """A value tasks add to."""
        return Accumulator(value)

    def setCheckpointDir(self, dirName: str) -> None:
        """Where RDD checkpoints would go (kept for ``getCheckpointDir``)."""
        self._session.conf.set("spark.checkpoint.dir", dirName)

    def getCheckpointDir(self) -> str | None:
        """The folder given to :meth:`setCheckpointDir`."""
        return self._session.conf.get("spark.checkpoint.dir", None)

    def setJobDescription(self, value: str) -> None:
        """Describe the jobs that follow (shown nowhere in one process)."""
        self.setLocalProperty("spark.job.description", value)

    def setJobGroup(self, groupId: str, description: str, interruptOnCancel: bool = False) -> None:
        """Group the jobs that follow."""
        self.setLocalProperty("spark.jobGroup.id", groupId)

    def setLocalProperty(self, key: str, value: str) -> None:
        """Set a thread-local property."""
        self._session.conf.set(key, value)

    def getLocalProperty(self, key: str) -> str | None:
        """A property set by :meth:`setLocalProperty`."""
        return self._session.conf.get(key, None)

    def getConf(self) -> Any:
        """The session's settings (``get``, ``set``, ``getAll``)."""
        return self._session.conf

    def stop(self) -> None:
        """Stop the session."""
        self._session.stop()

    def __getattr__(self, name: str) -> Any:
        if name in _ABSENT:
            raise PySparkNotImplementedError(
                f"[NOT_IMPLEMENTED] SparkContext.{name} is not supported by sparklet.", "NOT_IMPLEMENTED"
            )
        raise AttributeError(f"'SparkContext' object has no attribute '{name}'")


#: PySpark's SparkContext methods sparklet does not have.
_ABSENT = frozenset(
    "addArchive addFile addJobTag addPyFile binaryFiles binaryRecords cancelAllJobs cancelJobGroup "
    "cancelJobsWithTag clearJobTags dump_profiles getJobTags hadoopFile hadoopRDD listArchives listFiles "
    "newAPIHadoopFile newAPIHadoopRDD pickleFile removeJobTag resources runJob sequenceFile "
    "setInterruptOnCancel setSystemProperty show_profiles statusTracker".split()
)
