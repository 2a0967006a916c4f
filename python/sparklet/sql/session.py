"""The entry point: :class:`SparkSession` (as :class:`pyspark.sql.SparkSession`)."""

from __future__ import annotations

import atexit
import logging
import threading
from typing import TYPE_CHECKING, Any, ClassVar

from sparklet import _native
from sparklet.core.context import SparkContext
from sparklet.errors import PySparkRuntimeError, PySparkTypeError
from sparklet.sql import _remote
from sparklet.sql._convert import to_table
from sparklet.sql.catalog import Catalog
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.readwriter import DataFrameReader
from sparklet.sql.types import StructType, to_struct_type

if TYPE_CHECKING:
    from sparklet.sql.datasource import DataSourceRegistration
    from sparklet.sql.streaming.query import StreamingQueryManager
    from sparklet.sql.streaming.readwriter import DataStreamReader
    from sparklet.sql.udf import UDFRegistration

__all__ = ["SparkSession", "RuntimeConfig", "Catalog", "SparkContext"]

#: The Spark API version sparklet follows (what ``spark.version`` reports).
SPARK_VERSION = "4.3.0"

_NOT_SET = object()


class classproperty(property):  # noqa: N801 - PySpark's name, as its module has it
    """A read-only property of a class (``SparkSession.builder``): its getter
    runs with the class on each access."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self.fget(owner)  # type: ignore[misc]


#: How long interpreter exit waits for each query to stop when
#: ``spark.sql.streaming.stopTimeout`` sets no limit, ms: a callback that
#: does not return must not keep the interpreter from exiting.
EXIT_STOP_TIMEOUT_MS = 10_000


#: every engine session made, whose failed queries' temporary checkpoints
#: go at exit
_NATIVE_SESSIONS: list[Any] = []


def _stop_active_session() -> None:
    """At interpreter exit, stop running queries before Python finalizes, so no
    engine thread calls into a half-torn-down interpreter (waiting for each
    at most ``stopTimeout`` or :data:`EXIT_STOP_TIMEOUT_MS`); then remove the
    temporary checkpoints failed queries kept (Spark does at JVM exit)."""
    s = SparkSession._active
    if s is not None:
        from sparklet.sql.streaming.query import _stop_timeout_ms

        busy = s._native.stop(_stop_timeout_ms(s) or EXIT_STOP_TIMEOUT_MS)
        for query_id in busy:
            logging.getLogger("sparklet").warning("query %s was still running a callback at exit", query_id)
    # from here on the interpreter is torn down: engine threads still
    # running log nothing to it
    _native.interpreter_exiting()
    for native in _NATIVE_SESSIONS:
        native.remove_failed_temporary_checkpoints()


atexit.register(_stop_active_session)


class RuntimeConfig:
    """``spark.conf``: get and set Spark configuration keys."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def get(self, key: str, default: Any = _NOT_SET) -> str | None:
        """The value of ``key``: ``default`` if unset, else Spark's default for
        its own settings; ``SQL_CONF_NOT_FOUND`` for an unknown unset key."""
        from sparklet.sql._conf_defaults import SPARK_DEFAULTS

        v: str | None = self._native.conf_get(key)
        if v is not None:
            return v
        if default is _NOT_SET and key in SPARK_DEFAULTS:
            return SPARK_DEFAULTS[key]
        if default is _NOT_SET:
            from sparklet.errors import SparkNoSuchElementException

            raise SparkNoSuchElementException(
                f'[SQL_CONF_NOT_FOUND] The SQL config "{key}" cannot be found. Please verify that the config exists.',
                "SQL_CONF_NOT_FOUND",
            )
        given: str | None = default
        return given

    def set(self, key: str, value: str | int | bool) -> None:
        """Set ``key``."""
        self._native.conf_set(key, str(value).lower() if isinstance(value, bool) else str(value))

    def unset(self, key: str) -> None:
        """Reset ``key`` to its default."""
        self._native.conf_unset(key)

    def isModifiable(self, key: str) -> bool:
        """Whether ``key`` can be changed at runtime (always, in sparklet)."""
        return True

    @property
    def getAll(self) -> dict[str, str]:
        """All settings."""
        return dict(self._native.conf_all())


class SparkSession:
    """A sparklet session: read data, run SQL, start streaming queries.

    Examples
    --------
    >>> from sparklet.sql import SparkSession
    >>> spark = SparkSession.builder.appName("doc").getOrCreate()
    >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").collect()
    [Row(id=1, name='a')]
    """

    _active: "SparkSession" | None = None
    _lock = threading.RLock()

    class Builder:
        """Builds or returns the active session (``SparkSession.builder``)."""

        def __init__(self) -> None:
            self._conf: dict[str, str] = {}
            self._remote: str | None = None

        def appName(self, name: str) -> "SparkSession.Builder":
            """Set ``spark.app.name``."""
            return self.config("spark.app.name", name)

        def master(self, master: str) -> "SparkSession.Builder":
            """Set ``spark.master`` (sparklet always runs in this process)."""
            return self.config("spark.master", master)

        def config(
            self,
            key: str | None = None,
            value: Any = None,
            conf: Any = None,
            *,
            map: dict[str, Any] | None = None,  # noqa: A002 - PySpark's name
        ) -> "SparkSession.Builder":
            """Set configuration keys."""
            if key is not None:
                self._conf[key] = str(value).lower() if isinstance(value, bool) else str(value)
            for k, v in (map or {}).items():
                self._conf[k] = str(v).lower() if isinstance(v, bool) else str(v)
            if conf is not None and hasattr(conf, "getAll"):
                for k, v in conf.getAll():
                    self._conf[k] = v
            return self

        def remote(self, url: str) -> "SparkSession.Builder":
            """Run on a Spark cluster through Spark Connect (``sc://host:port``):
            ``getOrCreate()`` then returns a session of PySpark's Spark Connect
            client (``pip install 'sparklet[connect]'``) with these settings,
            and sparklet's functions and types build PySpark's, so the same
            script runs on Spark by changing this line."""
            self._remote = url
            return self

        def enableHiveSupport(self) -> "SparkSession.Builder":
            """Accepted for compatibility; sparklet has no Hive metastore."""
            return self

        def getOrCreate(self) -> "SparkSession":
            """The active session (with these settings applied), or a new one."""
            if self._remote is not None:
                # PySpark's Connect session, typed as ours: the same API
                remote: SparkSession = _remote.connect(self._remote, self._conf)
                return remote
            with SparkSession._lock:
                s = SparkSession._active
                if s is None:
                    s = SparkSession(list(self._conf.items()))
                    SparkSession._active = s
                else:
                    for k, v in self._conf.items():
                        s.conf.set(k, v)
                return s

        def create(self) -> "SparkSession":
            """A new session, even if one is active."""
            if self._remote is not None:
                # PySpark's Connect session, typed as ours: the same API
                remote: SparkSession = _remote.connect(self._remote, self._conf)
                return remote
            with SparkSession._lock:
                s = SparkSession(list(self._conf.items()))
                SparkSession._active = s
                return s

    if TYPE_CHECKING:
        #: A new :class:`Builder` on each access.
        builder: ClassVar[SparkSession.Builder]
    else:

        @classproperty
        def builder(cls) -> "SparkSession.Builder":
            """A new :class:`Builder` on each access (``SparkSession.builder``)."""
            return SparkSession.Builder()

    def __init__(self, conf: list[Any] | None = None) -> None:
        self._native = _native.Session(list(conf or []))
        _NATIVE_SESSIONS.append(self._native)
        self._conf = RuntimeConfig(self._native)
        self._stopped = False
        self._streams: StreamingQueryManager | None = None
        # the warehouse's tables resolve by name from the start
        self._catalog = Catalog(self)
        self._catalog._load_all()

    @classmethod
    def getActiveSession(cls) -> "SparkSession" | None:
        """The active session, if any."""
        return cls._active

    @classmethod
    def active(cls) -> "SparkSession":
        """The active session (error if none)."""
        return cls._require_active()

    @classmethod
    def _require_active(cls) -> "SparkSession":
        s = cls._active
        if s is None:
            raise PySparkRuntimeError(
                "[NO_ACTIVE_OR_DEFAULT_SESSION] No active or default Spark session found. "
                "Create one with SparkSession.builder.getOrCreate().",
                "NO_ACTIVE_OR_DEFAULT_SESSION",
            )
        return s

    @property
    def version(self) -> str:
        """The Spark API version sparklet follows."""
        return SPARK_VERSION

    @property
    def conf(self) -> RuntimeConfig:
        """Runtime configuration."""
        return self._conf

    @property
    def catalog(self) -> Catalog:
        """Databases, tables, views and functions (:class:`~sparklet.sql.catalog.Catalog`)."""
        return self._catalog

    @property
    def tvf(self) -> Any:
        """:class:`~sparklet.sql.tvf.TableValuedFunction`: SQL's table-valued functions as DataFrames."""
        from sparklet.sql.tvf import TableValuedFunction

        return TableValuedFunction(self)

    @property
    def udf(self) -> UDFRegistration:
        """:class:`~sparklet.sql.udf.UDFRegistration`: register Python functions for SQL."""
        from sparklet.sql.udf import UDFRegistration

        # one per session: it remembers what was registered
        if getattr(self, "_udf_registration", None) is None:
            self._udf_registration = UDFRegistration(self)
        return self._udf_registration

    @property
    def dataSource(self) -> DataSourceRegistration:
        """:class:`~sparklet.sql.datasource.DataSourceRegistration`: register
        Python data sources (``spark.dataSource.register(MySource)``)."""
        from sparklet.sql.datasource import DataSourceRegistration

        return DataSourceRegistration(self)

    @property
    def sparkContext(self) -> SparkContext:
        """Application-level settings (``setLogLevel``)."""
        return SparkContext(self)

    @property
    def read(self) -> DataFrameReader:
        """Batch reader (``spark.read.json(...)``)."""
        return DataFrameReader(self)

    @property
    def readStream(self) -> DataStreamReader:
        """Streaming reader (``spark.readStream.format(...).load()``)."""
        from sparklet.sql.streaming.readwriter import DataStreamReader

        return DataStreamReader(self)

    def _listener_bus(self) -> Any:
        """The session's listener bus (made on first use)."""
        from sparklet.sql.streaming.listener import _Bus

        with SparkSession._lock:
            bus = getattr(self, "_bus", None)
            if bus is None:
                bus = self._bus = _Bus(self._native)
        return bus

    @property
    def streams(self) -> StreamingQueryManager:
        """The :class:`StreamingQueryManager` of this session (the same object each time)."""
        from sparklet.sql.streaming.query import StreamingQueryManager

        if self._streams is None:
            self._streams = StreamingQueryManager(self)
        return self._streams

    def createDataFrame(
        self,
        data: Any,
        schema: StructType | str | list[str] | None = None,
        samplingRatio: float | None = None,
        verifySchema: bool = True,
    ) -> DataFrame:
        """A DataFrame from rows (tuples, Rows, dicts), pandas or pyarrow.

        ``schema`` is a StructType, a DDL string, or a list of column names.
        """
        names = None
        struct: StructType | None = None
        if isinstance(schema, (list, tuple)):
            names = list(schema)
        elif schema is not None:
            struct = to_struct_type(schema)
        table = to_table(data, struct, names)
        return DataFrame(self._native.create_dataframe(table), self)

    def range(self, start: int, end: int | None = None, step: int = 1, numPartitions: int | None = None) -> DataFrame:
        """Column ``id`` (a non-null long) from ``start`` to ``end``
        (exclusive) by ``step``, generated as it is read (SQL's ``range``)."""
        if end is None:
            start, end = 0, start
        for name, value in (("start", start), ("end", end), ("step", step)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise PySparkTypeError(
                    f"[NOT_INT] Argument `{name}` should be an int, got {type(value).__name__}.", "NOT_INT"
                )
        args = f"{int(start)}, {int(end)}, {int(step)}" + (f", {int(numPartitions)}" if numPartitions else "")
        return DataFrame(self._native.sql(f"SELECT id FROM range({args})"), self)

    def emptyDataFrame(self, schema: StructType | str) -> DataFrame:
        """A DataFrame of ``schema`` with no rows."""
        return self.createDataFrame([], to_struct_type(schema))

    def newSession(self) -> "SparkSession":
        """Another session: its own settings, temporary views and UDFs, the
        same warehouse tables (the builder's settings carried over)."""
        return SparkSession(list(self._native.conf_all()))

    def sql(self, sqlQuery: str, args: dict[str, Any] | None = None, **kwargs: Any) -> DataFrame:
        """Run SQL over tables and views (streaming views give streaming
        DataFrames); ``{name}`` fields take ``kwargs`` (a DataFrame as a view,
        a Column as its name, else a literal), ``:name``/``?`` parameters
        ``args`` (a dict or list of values); catalog statements (``CREATE TABLE``, ``INSERT``,
        ``DESCRIBE``, ``SHOW TABLES`` ...) act on the warehouse catalog."""
        from sparklet.sql import _ddl
        from sparklet.sql._sql_format import formatted

        with formatted(self, sqlQuery, args, kwargs) as text:
            done = _ddl.run(self, text)
            if done is not None:
                return done
            self._catalog._refresh_changed()
            return DataFrame(self._native.sql(text), self)

    def table(self, tableName: str) -> DataFrame:
        """A table or view by name (memory-sink tables included)."""
        from sparklet.sql._table_hooks import hooked

        found = hooked(tableName, False)
        if found is not None:
            return found
        self._catalog._refresh_changed()
        return DataFrame(self._native.table(tableName), self)

    def stop(self) -> None:
        """Stop every streaming query of this session (waiting for each at
        most ``spark.sql.streaming.stopTimeout``, when set; a query still
        busy then is logged, and stops at its next step)."""
        from sparklet.sql.streaming.query import _stop_timeout_ms

        for query_id in self._native.stop(_stop_timeout_ms(self)):
            logging.getLogger("sparklet").warning(
                "query %s did not stop within spark.sql.streaming.stopTimeout: a callback is still running", query_id
            )
        self._stopped = True
        with SparkSession._lock:
            if SparkSession._active is self:
                SparkSession._active = None

    def __enter__(self) -> "SparkSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
