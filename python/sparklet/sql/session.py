"""The entry point: :class:`SparkSession` (as :class:`pyspark.sql.SparkSession`)."""

from __future__ import annotations

import atexit
import logging
import threading
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

from sparklet import _native
from sparklet.core.context import SparkContext
from sparklet.errors import PySparkRuntimeError
from sparklet.errors._raise import not_expected_type
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
    """``spark.conf``: read and change the session's configuration at run time.

    Keys are Spark's (``spark.sql.shuffle.partitions``,
    ``spark.sql.session.timeZone``, ``spark.sql.streaming.*``) and values are
    strings, as in Spark. docs/configuration.md lists the keys the engine
    reads.

    Examples
    --------
    >>> spark.conf.set("spark.sql.ansi.enabled", False)
    >>> spark.conf.get("spark.sql.ansi.enabled")
    'false'
    >>> spark.conf.unset("spark.sql.ansi.enabled")
    >>> spark.conf.get("spark.sql.ansi.enabled")
    'true'
    """

    def __init__(self, native: Any) -> None:
        self._native = native

    def get(self, key: str, default: Any = _NOT_SET) -> str | None:
        """The value of a configuration key.

        Parameters
        ----------
        key : str
            The key, such as ``"spark.sql.shuffle.partitions"``.
        default : str, optional
            What to return when the key is not set. Without it, an unset key of
            Spark's gives Spark's default.

        Returns
        -------
        str or None
            The value as a string (``default`` when unset and given).

        Raises
        ------
        SparkNoSuchElementException
            ``SQL_CONF_NOT_FOUND`` for a key that is neither set nor one of
            Spark's, when no ``default`` is given.

        Examples
        --------
        >>> spark.conf.get("spark.sql.ansi.enabled")
        'true'
        >>> spark.conf.get("my.own.key", "fallback")
        'fallback'
        >>> spark.conf.get("my.own.key")
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.SparkNoSuchElementException: [SQL_CONF_NOT_FOUND] The SQL config "my.own.key" cannot be found. Please verify that the config exists.
        """
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
        """Set a configuration key for this session.

        Queries started afterwards see it; a running query keeps the
        settings it started with, as in Spark.

        Parameters
        ----------
        key : str
            The key.
        value : str, int or bool
            The value; stored as a string (booleans as ``"true"``/``"false"``).

        Examples
        --------
        >>> spark.conf.set("spark.sql.ansi.enabled", False)
        >>> spark.conf.get("spark.sql.ansi.enabled")
        'false'
        >>> spark.conf.unset("spark.sql.ansi.enabled")
        """
        self._native.conf_set(key, str(value).lower() if isinstance(value, bool) else str(value))

    def unset(self, key: str) -> None:
        """Reset a key to its default.

        Parameters
        ----------
        key : str
            The key.

        Examples
        --------
        >>> spark.conf.set("my.own.key", "1")
        >>> spark.conf.unset("my.own.key")
        >>> spark.conf.get("my.own.key", None) is None
        True
        """
        self._native.conf_unset(key)

    def isModifiable(self, key: str) -> bool:
        """Whether a key can be changed at run time.

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        bool
            Always True in sparklet: one process has no static cluster settings.

        Examples
        --------
        >>> spark.conf.isModifiable("spark.sql.shuffle.partitions")
        True
        """
        return True

    @property
    def getAll(self) -> dict[str, str]:
        """Every key set in this session, with the engine's defaults.

        Returns
        -------
        dict of str to str
            Keys to values.

        Examples
        --------
        >>> spark.conf.set("spark.sql.shuffle.partitions", 2)
        >>> spark.conf.getAll["spark.sql.shuffle.partitions"]
        '2'
        """
        return dict(self._native.conf_all())


class SparkSession:
    """The entry point: read data, run SQL and start streaming queries.

    A session holds its configuration, temporary views, registered UDFs and
    data sources, and its streaming queries; tables in the warehouse
    (``spark.sql.warehouse.dir``) are shared by all sessions. Build one with
    :attr:`builder`; the first one becomes the active session that later
    ``getOrCreate()`` calls return.

    Examples
    --------
    >>> from sparklet.sql import SparkSession
    >>> spark = SparkSession.builder.appName("doc").getOrCreate()
    >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").collect()
    [Row(id=1, name='a')]
    >>> spark.sql("SELECT 1 + 1 AS two").first().two
    2
    """

    _active: "SparkSession" | None = None
    _lock = threading.RLock()

    class Builder:
        """Builds the session, or returns the active one (``SparkSession.builder``).

        Examples
        --------
        >>> from sparklet.sql import SparkSession
        >>> spark = (SparkSession.builder
        ...     .appName("clicks")
        ...     .config("spark.sql.shuffle.partitions", 2)
        ...     .getOrCreate())
        >>> spark.conf.get("spark.sql.shuffle.partitions")
        '2'
        """

        def __init__(self) -> None:
            self._conf: dict[str, str] = {}
            self._remote: str | None = None

        def appName(self, name: str) -> "SparkSession.Builder":
            """Set the application's name (``spark.app.name``).

            It names the session in logs, the web UI and progress events.

            Parameters
            ----------
            name : str
                The name.

            Returns
            -------
            SparkSession.Builder
                This builder.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> spark = SparkSession.builder.appName("clicks").getOrCreate()
            >>> spark.conf.get("spark.app.name")
            'clicks'
            """
            return self.config("spark.app.name", name)

        def master(self, master: str) -> "SparkSession.Builder":
            """Set ``spark.master``, kept for scripts that set it.

            sparklet always runs in this process, so ``local[*]``, ``local[2]`` or
            a cluster's URL all run the same way here; the value is kept in the
            configuration.

            Parameters
            ----------
            master : str
                The master URL, such as ``"local[2]"``.

            Returns
            -------
            SparkSession.Builder
                This builder.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> spark = SparkSession.builder.master("local[2]").getOrCreate()
            >>> spark.conf.get("spark.master")
            'local[2]'
            """
            return self.config("spark.master", master)

        def config(
            self,
            key: str | None = None,
            value: Any = None,
            conf: Any = None,
            *,
            map: dict[str, Any] | None = None,  # noqa: A002 - PySpark's name
        ) -> "SparkSession.Builder":
            """Set configuration keys for the session.

            Parameters
            ----------
            key : str, optional
                One key.
            value : object, optional
                Its value; stored as a string (booleans as ``"true"``/``"false"``).
            conf : SparkConf, optional
                An object whose ``getAll()`` gives ``(key, value)`` pairs.
            map : dict, optional
                Several keys at once.

            Returns
            -------
            SparkSession.Builder
                This builder.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> spark = (SparkSession.builder
            ...     .config("spark.sql.session.timeZone", "UTC")
            ...     .config(map={"spark.sql.shuffle.partitions": 2, "spark.sql.ansi.enabled": True})
            ...     .getOrCreate())
            >>> spark.conf.get("spark.sql.ansi.enabled")
            'true'
            """
            if key is not None:
                self._conf[key] = str(value).lower() if isinstance(value, bool) else str(value)
            for k, v in (map or {}).items():
                self._conf[k] = str(v).lower() if isinstance(v, bool) else str(v)
            if conf is not None and hasattr(conf, "getAll"):
                for k, v in conf.getAll():
                    self._conf[k] = v
            return self

        def remote(self, url: str) -> "SparkSession.Builder":
            """Run on a Spark cluster through Spark Connect instead of in this process.

            ``getOrCreate()`` then returns a session of PySpark's Spark Connect
            client (``pip install 'sparklet[connect]'``) with these settings, and
            sparklet's functions and types build PySpark's, so the same script runs
            on Spark by changing this one line.

            Parameters
            ----------
            url : str
                The server, ``sc://host:port``.

            Returns
            -------
            SparkSession.Builder
                This builder.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> builder = SparkSession.builder.remote("sc://spark-host:15002")
            >>> builder.appName("clicks")  # doctest: +ELLIPSIS
            <sparklet.sql.session.SparkSession.Builder object at ...>
            """
            self._remote = url
            return self

        def enableHiveSupport(self) -> "SparkSession.Builder":
            """Accepted for scripts that call it: sparklet has no Hive metastore.

            Tables are kept in the warehouse folder (``spark.sql.warehouse.dir``).

            Returns
            -------
            SparkSession.Builder
                This builder.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> spark = SparkSession.builder.enableHiveSupport().getOrCreate()
            """
            return self

        def getOrCreate(self) -> "SparkSession":
            """The active session with this builder's settings applied, or a new one.

            Returns
            -------
            SparkSession
                The active session when there is one (the builder's keys are set on
                it), else a new session, which becomes the active one.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> SparkSession.builder.getOrCreate() is SparkSession.builder.getOrCreate()
            True
            """
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
            """A new session, even when one is active; it becomes the active one.

            Returns
            -------
            SparkSession
                The new session.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> fresh = SparkSession.builder.config("spark.sql.shuffle.partitions", 3).create()
            >>> fresh is spark
            False
            >>> fresh.stop()
            """
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
            """A new :class:`Builder` on each access (``SparkSession.builder``).

            Returns
            -------
            SparkSession.Builder
                A builder with no settings yet.

            Examples
            --------
            >>> from sparklet.sql import SparkSession
            >>> spark = SparkSession.builder.appName("doc").getOrCreate()
            """
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
        """The active session, if there is one.

        Returns
        -------
        SparkSession or None
            The session ``getOrCreate()`` would return, or None when none was
            made (or it was stopped).

        Examples
        --------
        >>> from sparklet.sql import SparkSession
        >>> SparkSession.getActiveSession() is spark
        True
        """
        return cls._active

    @classmethod
    def active(cls) -> "SparkSession":
        """The active session.

        Returns
        -------
        SparkSession
            The session ``getOrCreate()`` would return.

        Raises
        ------
        PySparkRuntimeError
            ``NO_ACTIVE_OR_DEFAULT_SESSION`` when there is none.

        Examples
        --------
        >>> from sparklet.sql import SparkSession
        >>> SparkSession.active() is spark
        True
        """
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
        """The PySpark version whose API sparklet follows.

        Not sparklet's own version (that is ``sparklet.__version__``): code that
        checks Spark's version to choose an API sees the one sparklet follows.

        Returns
        -------
        str
            ``"4.3.0"``.

        Examples
        --------
        >>> spark.version
        '4.3.0'
        """
        return SPARK_VERSION

    @property
    def conf(self) -> RuntimeConfig:
        """The session's configuration, read and changed at run time.

        Returns
        -------
        RuntimeConfig
            ``get``, ``set``, ``unset`` of Spark's keys.

        Examples
        --------
        >>> spark.conf.get("spark.sql.ansi.enabled")
        'true'
        """
        return self._conf

    @property
    def catalog(self) -> Catalog:
        """Databases, tables, views and functions of this session.

        Returns
        -------
        Catalog
            As PySpark's ``spark.catalog``.

        Examples
        --------
        >>> spark.range(3).createOrReplaceTempView("doc_catalog_ids")
        >>> spark.catalog.tableExists("doc_catalog_ids")
        True
        """
        return self._catalog

    @property
    def tvf(self) -> Any:
        """SQL's table-valued functions as DataFrames (``spark.tvf.range(3)``).

        Returns
        -------
        TableValuedFunction
            One method per table-valued function.

        Examples
        --------
        >>> spark.tvf.range(2).collect()
        [Row(id=0), Row(id=1)]
        """
        from sparklet.sql.tvf import TableValuedFunction

        return TableValuedFunction(self)

    @property
    def udf(self) -> UDFRegistration:
        """Register Python functions to call from SQL.

        Returns
        -------
        UDFRegistration
            The session's registry (the same object on each access).

        Examples
        --------
        >>> from sparklet.sql.types import IntegerType
        >>> _ = spark.udf.register("doc_plus_one", lambda x: x + 1, IntegerType())
        >>> spark.sql("SELECT doc_plus_one(41) AS answer").first().answer
        42
        """
        from sparklet.sql.udf import UDFRegistration

        # one per session: it remembers what was registered
        if getattr(self, "_udf_registration", None) is None:
            self._udf_registration = UDFRegistration(self)
        return self._udf_registration

    @property
    def dataSource(self) -> DataSourceRegistration:
        """Register Python data sources (``spark.dataSource.register(MySource)``).

        Returns
        -------
        DataSourceRegistration
            Where a :class:`~sparklet.sql.datasource.DataSource` class is
            registered under its ``name()``, for ``spark.read.format(name)`` and
            ``spark.readStream.format(name)``.

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "doc_numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader()
        >>> class NumbersReader(DataSourceReader):
        ...     def read(self, partition):
        ...         yield from [(1,), (2,)]
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("doc_numbers").load().collect()
        [Row(n=1), Row(n=2)]
        """
        from sparklet.sql.datasource import DataSourceRegistration

        return DataSourceRegistration(self)

    @property
    def sparkContext(self) -> SparkContext:
        """Application-level settings, as PySpark's ``spark.sparkContext``.

        Returns
        -------
        SparkContext
            Holds ``setLogLevel``, ``appName`` and the few other members
            PySpark scripts use; sparklet has no RDDs.

        Examples
        --------
        >>> spark.sparkContext.setLogLevel("WARN")
        """
        return SparkContext(self)

    @property
    def read(self) -> DataFrameReader:
        """The batch reader: files, tables and Python data sources as DataFrames.

        Returns
        -------
        DataFrameReader
            A new reader on each access.

        Examples
        --------
        >>> spark.range(2).write.mode("overwrite").parquet("doc_read")
        >>> spark.read.parquet("doc_read").count()
        2
        """
        return DataFrameReader(self)

    @property
    def readStream(self) -> DataStreamReader:
        """The streaming reader: files, Kafka, rate and Python sources as streaming DataFrames.

        Returns
        -------
        DataStreamReader
            A new reader on each access.

        Examples
        --------
        >>> df = spark.readStream.format("rate").option("rowsPerSecond", 10).load()
        >>> df.isStreaming
        True
        """
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
        """The session's streaming queries.

        Returns
        -------
        StreamingQueryManager
            The same object on each access: the queries running, waiting for
            any to end, listeners.

        Examples
        --------
        >>> spark.streams.active
        []
        """
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
        """A DataFrame from local data.

        Parameters
        ----------
        data : list, pandas.DataFrame or pyarrow.Table
            Rows as tuples, ``Row`` objects or dicts; a pandas DataFrame; or a
            pyarrow Table (used without a copy).
        schema : StructType, str or list of str, optional
            The schema as a ``StructType`` or a DDL string (values are converted
            to it), or only the column names (types inferred). Without it, names
            and types come from the data: dict keys, Row fields or columns;
            Python ints are longs, floats doubles.
        samplingRatio : float, optional
            Accepted for PySpark's signature; types are inferred from all rows.
        verifySchema : bool, default True
            Accepted for PySpark's signature; values are always checked.

        Returns
        -------
        DataFrame
            The data, as a batch DataFrame.

        Raises
        ------
        PySparkTypeError
            A value does not fit its column's type
            (``FIELD_DATA_TYPE_UNACCEPTABLE``).
        PySparkValueError
            A row has a different number of values than the schema
            (``LENGTH_SHOULD_BE_THE_SAME``).

        Examples
        --------
        >>> spark.createDataFrame([(1, "a"), (2, "b")], ["id", "name"]).dtypes
        [('id', 'bigint'), ('name', 'string')]
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").dtypes
        [('id', 'int'), ('name', 'string')]
        >>> spark.createDataFrame([{"id": 1, "tags": ["x", "y"]}]).collect()
        [Row(id=1, tags=['x', 'y'])]
        >>> import pandas as pd
        >>> spark.createDataFrame(pd.DataFrame({"price": [1.5, 2.0]})).collect()
        [Row(price=1.5), Row(price=2.0)]
        """
        names = None
        struct: StructType | None = None
        if isinstance(schema, (list, tuple)):
            names = list(schema)
        elif schema is not None:
            struct = to_struct_type(schema)
        table = to_table(data, struct, names)
        df = DataFrame(self._native.create_dataframe(table), self)
        # pandas and Arrow data are Spark's local relation; a list's rows it distributes
        df._local = isinstance(data, pa.Table) or (hasattr(data, "to_dict") and hasattr(data, "columns"))
        return df

    def range(self, start: int, end: int | None = None, step: int = 1, numPartitions: int | None = None) -> DataFrame:
        """A DataFrame of one column ``id``: longs from ``start`` to ``end``.

        Parameters
        ----------
        start : int
            The first value; the end when ``end`` is not given (then from 0).
        end : int, optional
            The end (exclusive).
        step : int, default 1
            The increment (negative counts down).
        numPartitions : int, optional
            Accepted for PySpark's signature.

        Returns
        -------
        DataFrame
            Column ``id`` (``bigint``, not null), generated as it is read.

        Raises
        ------
        PySparkTypeError
            ``NOT_INT`` when a bound or the step is not an int.

        Examples
        --------
        >>> spark.range(3).collect()
        [Row(id=0), Row(id=1), Row(id=2)]
        >>> spark.range(1, 10, 4).collect()
        [Row(id=1), Row(id=5), Row(id=9)]
        """
        if end is None:
            start, end = 0, start
        for name, value in (("start", start), ("end", end), ("step", step)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise not_expected_type(name, "int", value)
        args = f"{int(start)}, {int(end)}, {int(step)}" + (f", {int(numPartitions)}" if numPartitions else "")
        return DataFrame(self._native.sql(f"SELECT id FROM range({args})"), self)

    def emptyDataFrame(self, schema: StructType | str) -> DataFrame:
        """A DataFrame of a schema with no rows.

        Parameters
        ----------
        schema : StructType or str
            The schema (a DDL string such as ``"id INT"`` too).

        Returns
        -------
        DataFrame
            No rows, the given columns.

        Examples
        --------
        >>> empty = spark.emptyDataFrame("id INT, name STRING")
        >>> empty.count(), empty.columns
        (0, ['id', 'name'])
        """
        return self.createDataFrame([], to_struct_type(schema))

    def newSession(self) -> "SparkSession":
        """Another session sharing this one's warehouse.

        It has its own configuration (starting from this one's), temporary
        views, UDFs and streaming queries; tables in the warehouse are seen by
        both.

        Returns
        -------
        SparkSession
            The new session (the active session does not change).

        Examples
        --------
        >>> other = spark.newSession()
        >>> spark.range(1).createOrReplaceTempView("doc_only_here")
        >>> other.catalog.tableExists("doc_only_here")
        False
        """
        return SparkSession(list(self._native.conf_all()))

    def sql(self, sqlQuery: str, args: dict[str, Any] | None = None, **kwargs: Any) -> DataFrame:
        """Run a SQL statement.

        Queries give DataFrames (streaming ones when they read a streaming
        view); catalog statements (``CREATE TABLE``, ``INSERT``, ``DESCRIBE``,
        ``SHOW TABLES`` ...) act on the warehouse and give their result.

        Parameters
        ----------
        sqlQuery : str
            The statement. ``{name}`` fields are filled from ``kwargs``.
        args : dict or list, optional
            Values of named (``:name``) or positional (``?``) parameters, passed
            as literals (never as SQL text).
        **kwargs
            Values of the ``{name}`` fields: a DataFrame is read as a view, a
            Column by its name, anything else as a literal.

        Returns
        -------
        DataFrame
            The result.

        Raises
        ------
        ParseException
            The text is not valid SQL.
        AnalysisException
            It names an unknown table, column or function.

        Examples
        --------
        >>> spark.sql("SELECT :x + 1 AS y", args={"x": 41}).collect()
        [Row(y=42)]
        >>> spark.sql("SELECT * FROM {ids} WHERE id > 1", ids=spark.range(3)).collect()
        [Row(id=2)]
        >>> spark.range(3).createOrReplaceTempView("doc_sql_ids")
        >>> spark.sql("SELECT count(*) FROM doc_sql_ids").collect()
        [Row(count(1)=3)]
        """
        from sparklet.sql import _ddl
        from sparklet.sql._sql_format import formatted

        with formatted(self, sqlQuery, args, kwargs) as text:
            done = _ddl.run(self, text)
            if done is not None:
                done._local = True  # a command's result, as Spark's CommandResult
                return done
            self._catalog._refresh_changed()
            return DataFrame(self._native.sql(text), self)

    def table(self, tableName: str) -> DataFrame:
        """A table or view by name.

        Parameters
        ----------
        tableName : str
            A warehouse table (``db.name`` too), a temporary view, a global
            temporary view (``global_temp.name``) or a memory sink's query name.

        Returns
        -------
        DataFrame
            Its rows (a streaming view gives a streaming DataFrame).

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND``.

        Examples
        --------
        >>> spark.range(2).write.saveAsTable("doc_table_ids")
        >>> spark.table("doc_table_ids").count()
        2
        """
        from sparklet.sql._table_hooks import hooked

        found = hooked(tableName, False)
        if found is not None:
            return found
        self._catalog._refresh_changed()
        return DataFrame(self._native.table(tableName), self)

    def stop(self) -> None:
        """Stop the session: every streaming query of it, then the session.

        Each query is waited for at most ``spark.sql.streaming.stopTimeout``
        when it is set; a query still inside a callback then is logged, and
        stops at its next step. The session is no longer the active one.

        Examples
        --------
        >>> from sparklet.sql import SparkSession
        >>> session = SparkSession.builder.create()
        >>> q = session.readStream.format("rate").load().writeStream.format("noop").start()
        >>> session.stop()
        >>> q.isActive
        False
        """
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
