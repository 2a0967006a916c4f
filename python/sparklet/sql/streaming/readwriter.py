"""Streaming I/O: :class:`DataStreamReader` and :class:`DataStreamWriter`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sparklet import _native
from sparklet.errors import PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql._options import OptionsMixin, to_str
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.streaming.query import StreamingQuery
from sparklet.sql.types import StructType

if TYPE_CHECKING:
    import pyarrow as pa

    from sparklet.sql.session import SparkSession

__all__ = ["DataStreamReader", "DataStreamWriter"]


class DataStreamReader(OptionsMixin):
    """``spark.readStream``: where a streaming DataFrame reads from.

    Set the format, schema and options, then call :meth:`load` (or a
    format's own method: :meth:`json`, :meth:`csv`, :meth:`parquet`,
    :meth:`orc`, :meth:`text`, :meth:`table`). File formats watch a folder
    and read each file once as it arrives; ``kafka``, ``delta``, ``rate``,
    ``rate-micro-batch``, ``socket`` and registered Python data sources are
    the others.

    Examples
    --------
    >>> df = spark.readStream.format("rate").load()
    >>> df.isStreaming, df.columns
    (True, ['timestamp', 'value'])
    """

    def __init__(self, spark: "SparkSession") -> None:
        self._spark = spark
        self._init_options()

    def load(
        self,
        path: str | None = None,
        format: str | None = None,  # noqa: A002
        schema: StructType | str | None = None,
        **options: Any,
    ) -> DataFrame:
        """Create the streaming DataFrame of the source set so far.

        Parameters
        ----------
        path : str, optional
            The folder a file source watches (or the Delta table's folder).
        format : str, optional
            The source's format; as :meth:`format`.
        schema : StructType or str, optional
            The rows' schema; as :meth:`schema`.
        **options
            Source options; as :meth:`options`.

        Returns
        -------
        DataFrame
            A streaming DataFrame (``isStreaming`` is True): start it with
            ``writeStream``.

        Raises
        ------
        PySparkTypeError
            When ``path`` is not a string.
        AnalysisException
            When the path does not exist (``PATH_NOT_FOUND``) or a file source has
            no schema.

        Examples
        --------
        >>> df = spark.readStream.load(format="rate", rowsPerSecond=5)
        >>> df.isStreaming
        True
        """
        if format is not None:
            self.format(format)
        self._set_schema(schema)
        self._set(**options)
        if path is not None and not isinstance(path, str):
            raise not_expected_type("path", "str", path)
        if path is not None and path.strip() == "":
            raise PySparkValueError(
                "[VALUE_NOT_NON_EMPTY_STR] Argument `path` should be a non-empty string.", "VALUE_NOT_NON_EMPTY_STR"
            )
        from sparklet.sql import _datasource_run

        python_source = _datasource_run.lookup(self._spark, self._format)
        if python_source is not None:
            options = dict(self._options, **({"path": path} if path is not None else {}))
            return _datasource_run.read_stream(self._spark, python_source, self._schema, options)
        native = self._spark._native.read_stream(self._format or "parquet", path, self._arrow_schema(), self._options)
        return DataFrame(native, self._spark)

    def json(self, path: str, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        r"""Stream the JSON lines files that arrive in a folder.

        Each file is read once, in the micro-batch after it appears (oldest
        first; ``maxFilesPerTrigger`` bounds a batch). A file source needs a schema.

        Parameters
        ----------
        path : str
            The folder to watch (globs allowed).
        schema : StructType or str, optional
            The rows' schema (else the one set with :meth:`schema`).
        **options
            The JSON reader's options (``multiLine``, ``timestampFormat``, ``mode``, ``maxFilesPerTrigger`` ...).

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When the folder does not exist (``PATH_NOT_FOUND``).

        Examples
        --------
        >>> import os; os.makedirs("in")
        >>> with open("in/1.json", "w") as f: _ = f.write('{"id": 1}\n{"id": 2}\n')
        >>> q = spark.readStream.json("in/", schema="id INT").writeStream.format("memory").queryName("ids").start()
        >>> q.processAllAvailable()
        >>> spark.table("ids").collect()
        [Row(id=1), Row(id=2)]
        >>> q.stop()
        """
        return self.load(path, "json", schema, **options)

    def csv(self, path: str, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        r"""Stream the CSV files that arrive in a folder.

        Each file is read once, in the micro-batch after it appears (oldest
        first; ``maxFilesPerTrigger`` bounds a batch). A file source needs a schema.

        Parameters
        ----------
        path : str
            The folder to watch (globs allowed).
        schema : StructType or str, optional
            The rows' schema (else the one set with :meth:`schema`).
        **options
            The CSV reader's options (``header``, ``sep``, ``nullValue``, ``maxFilesPerTrigger`` ...).

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When the folder does not exist (``PATH_NOT_FOUND``).

        Examples
        --------
        >>> import os; os.makedirs("csv_in")
        >>> with open("csv_in/1.csv", "w") as f: _ = f.write("id,name\n1,ann\n")
        >>> df = spark.readStream.csv("csv_in/", schema="id INT, name STRING", header=True)
        >>> q = df.writeStream.format("memory").queryName("people").start()
        >>> q.processAllAvailable()
        >>> spark.table("people").collect()
        [Row(id=1, name='ann')]
        >>> q.stop()
        """
        return self.load(path, "csv", schema, **options)

    def parquet(self, path: str, **options: Any) -> DataFrame:
        """Stream the Parquet files that arrive in a folder.

        Each file is read once, in the micro-batch after it appears (oldest
        first; ``maxFilesPerTrigger`` bounds a batch). Set the schema with :meth:`schema` first.

        Parameters
        ----------
        path : str
            The folder to watch (globs allowed).
        **options
            The Parquet reader's options (``maxFilesPerTrigger``, ``mergeSchema`` ...).

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When the folder does not exist (``PATH_NOT_FOUND``).

        Examples
        --------
        >>> spark.range(2).write.parquet("pq_in/")
        >>> df = spark.readStream.schema("id BIGINT").parquet("pq_in/")
        >>> q = df.writeStream.format("memory").queryName("pq").start()
        >>> q.processAllAvailable()
        >>> sorted(r.id for r in spark.table("pq").collect())
        [0, 1]
        >>> q.stop()
        """
        return self.load(path, "parquet", None, **options)

    def orc(self, path: str, mergeSchema: bool | None = None, **options: Any) -> DataFrame:
        """Stream the ORC files that arrive in a folder.

        Each file is read once, in the micro-batch after it appears (oldest
        first; ``maxFilesPerTrigger`` bounds a batch). Set the schema with :meth:`schema` first.

        Parameters
        ----------
        path : str
            The folder to watch (globs allowed).
        mergeSchema : bool, optional
            Merge the schemas of the files read.
        **options
            The ORC reader's options.

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When the folder does not exist (``PATH_NOT_FOUND``).

        Examples
        --------
        >>> spark.range(2).write.orc("orc_in/")
        >>> spark.readStream.schema("id BIGINT").orc("orc_in/").isStreaming
        True
        """
        if mergeSchema is not None:
            options["mergeSchema"] = mergeSchema
        return self.load(path, "orc", None, **options)

    def text(self, path: str, **options: Any) -> DataFrame:
        r"""Stream the text files that arrive in a folder.

        Each file is read once, in the micro-batch after it appears (oldest
        first; ``maxFilesPerTrigger`` bounds a batch). Each line is a row of one string column, ``value``.

        Parameters
        ----------
        path : str
            The folder to watch (globs allowed).
        **options
            The text reader's options (``wholetext``, ``lineSep``, ``maxFilesPerTrigger`` ...).

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When the folder does not exist (``PATH_NOT_FOUND``).

        Examples
        --------
        >>> import os; os.makedirs("logs")
        >>> with open("logs/1.txt", "w") as f: _ = f.write("started\nstopped\n")
        >>> q = spark.readStream.text("logs/").writeStream.format("memory").queryName("lines").start()
        >>> q.processAllAvailable()
        >>> [r.value for r in spark.table("lines").collect()]
        ['started', 'stopped']
        >>> q.stop()
        """
        return self.load(path, "text", None, **options)

    def table(self, tableName: str) -> DataFrame:
        """Stream a warehouse table: the files appended to it, as they arrive.

        A streaming ``toTable`` query or a batch append writes them; each is read
        once, in the table's format and schema.

        Parameters
        ----------
        tableName : str
            The table's name (``db.name`` or ``name``).

        Returns
        -------
        DataFrame
            A streaming DataFrame.

        Raises
        ------
        AnalysisException
            When there is no such table (``TABLE_OR_VIEW_NOT_FOUND``) or it is a
            view (``UNSUPPORTED_FEATURE.TABLE_OPERATION``).

        Examples
        --------
        >>> spark.createDataFrame([(1,)], "id INT").write.saveAsTable("stream_table_doc")
        >>> q = spark.readStream.table("stream_table_doc").writeStream.format("memory").queryName("events_seen").start()
        >>> q.processAllAvailable()
        >>> spark.table("events_seen").collect()
        [Row(id=1)]
        >>> q.stop()
        """
        from sparklet.errors import AnalysisException
        from sparklet.sql._table_hooks import hooked

        found = hooked(tableName, True)
        if found is not None:
            return found
        info = self._spark.catalog._require(tableName)
        if info.kind == "VIEW":
            raise AnalysisException(
                f"[UNSUPPORTED_FEATURE.TABLE_OPERATION] The table `{info.database}`.`{info.name}` does not "
                "support streaming reads: it is a view.",
                "UNSUPPORTED_FEATURE.TABLE_OPERATION",
            )
        from sparklet.sql.types import _parse_datatype_string

        self._set(**info.options)
        schema = _parse_datatype_string(info.schema)
        return self.load(info.location, info.format, schema)  # type: ignore[arg-type]


#: Session setting: ``foreachBatch`` functions get a DataFrame, not a
#: ``pyarrow.Table`` (a ``spark.sparklet.*`` key, which Spark ignores).
FOREACH_BATCH_DATAFRAME = "spark.sparklet.foreachBatch.dataFrame"


def _as_dataframe_function(func: Callable[[Any, int], None], session: Any) -> Callable[[Any, int], None]:
    """``func`` called with each batch as a DataFrame over its Arrow table."""

    def call(table: Any, batch_id: int) -> None:
        func(session.createDataFrame(table), batch_id)

    call.__name__ = getattr(func, "__name__", "foreachBatch")
    return call


def _console_write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class DataStreamWriter:
    """``df.writeStream``: where and how a streaming DataFrame's query writes.

    Choose the sink (:meth:`format`, :meth:`foreachBatch`, :meth:`foreach`),
    the output mode, the trigger and options (``checkpointLocation`` above
    all), then :meth:`start` or :meth:`toTable`.

    Examples
    --------
    >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
    >>> q.isActive
    True
    >>> q.stop()
    """

    def __init__(self, df: DataFrame) -> None:
        self._df = df
        self._format: str | None = None
        self._options: dict[str, str] = {}
        self._mode = "append"
        self._name: str | None = None
        self._trigger = ("processingTime", 0)
        self._foreach_batch: Callable[["pa.Table", int], None] | None = None
        # a manual trigger clock (sparklet.testing.StartStream(clock=...)); None: the system clock
        self._clock: Any = None
        self._partition_by: list[str] = []

    def format(self, source: str) -> "DataStreamWriter":
        """Set the sink.

        Parameters
        ----------
        source : str
            ``parquet``, ``orc``, ``json``, ``csv``, ``text`` or ``delta`` (files
            in the ``path``), ``kafka``, ``console``, ``memory`` (a table named
            by :meth:`queryName`), ``noop``, or a registered Python data source.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("memory").queryName("numbers").start()
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> spark.table("numbers").collect()
        [Row(n=1), Row(n=2)]
        >>> q.stop()
        """
        self._format = source
        return self

    def outputMode(self, outputMode: str) -> "DataStreamWriter":
        """Set what each micro-batch writes.

        Parameters
        ----------
        outputMode : str
            ``append`` (the default): only new rows, and for an aggregation only
            the groups the watermark has closed; ``update``: the rows new or
            changed in this batch; ``complete``: the whole result table, each
            batch (aggregations only). Case does not matter.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Raises
        ------
        PySparkValueError
            When ``outputMode`` is empty (``VALUE_NOT_NON_EMPTY_STR``).
        IllegalArgumentException
            When it is none of the three (``STREAMING_OUTPUT_MODE.INVALID``).

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "word STRING")
        >>> counts = stream.toDF().groupBy("word").count()
        >>> q = counts.writeStream.outputMode("complete").format("memory").queryName("counts").start()
        >>> _ = stream.addData([("a",), ("b",), ("a",)])
        >>> q.processAllAvailable()
        >>> sorted(spark.table("counts").collect())
        [Row(word='a', count=2), Row(word='b', count=1)]
        >>> q.stop()
        """
        if not isinstance(outputMode, str) or outputMode.strip() == "":
            raise PySparkValueError(
                f"[VALUE_NOT_NON_EMPTY_STR] Value for `outputMode` must be a non-empty string, got '{outputMode}'.",
                "VALUE_NOT_NON_EMPTY_STR",
            )
        if outputMode.lower() not in ("append", "update", "complete"):
            from sparklet.errors import IllegalArgumentException

            condition = "STREAMING_OUTPUT_MODE.INVALID"
            raise IllegalArgumentException(
                f"[{condition}] Invalid streaming output mode: {outputMode}. "
                "Accepted output modes are 'Append', 'Complete', 'Update'.",
                condition,
            )
        self._mode = outputMode
        return self

    def option(self, key: str, value: Any) -> "DataStreamWriter":
        """Set one option of the sink or the query.

        Parameters
        ----------
        key : str
            ``checkpointLocation`` (where the query keeps its progress and
            state, so a restart continues it), ``path``, or a sink's option as
            Spark spells it.
        value : str, int, float or bool
            Stored as text; None is ignored.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> df = spark.readStream.format("rate").load()
        >>> q = df.writeStream.format("noop").option("checkpointLocation", "ckpt").start()
        >>> q.processAllAvailable(); q.stop()
        >>> import os; {"metadata", "offsets", "commits"} <= set(os.listdir("ckpt"))
        True
        """
        s = to_str(value)
        if s is not None:
            self._options[key] = s
        return self

    def options(self, **options: Any) -> "DataStreamWriter":
        """Set several options at once, as :meth:`option` sets one.

        Parameters
        ----------
        **options : str, int, float or bool
            Option names and values.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> w = spark.readStream.format("rate").load().writeStream.options(checkpointLocation="ckpt2", path="out")
        >>> isinstance(w, type(spark.readStream.format("rate").load().writeStream))
        True
        """
        for k, v in options.items():
            self.option(k, v)
        return self

    def queryName(self, queryName: str) -> "DataStreamWriter":
        """Name the query.

        The name shows in progress reports and listeners' events, and the
        ``memory`` sink's table takes it.

        Parameters
        ----------
        queryName : str
            A name unique among the session's active queries.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Raises
        ------
        PySparkValueError
            When the name is empty (``VALUE_NOT_NON_EMPTY_STR``).

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").queryName("ticks").start()
        >>> q.name
        'ticks'
        >>> q.stop()
        """
        if not isinstance(queryName, str) or queryName.strip() == "":
            raise PySparkValueError(
                f"[VALUE_NOT_NON_EMPTY_STR] Value for `queryName` must be a non-empty string, got '{queryName}'.",
                "VALUE_NOT_NON_EMPTY_STR",
            )
        self._name = queryName
        return self

    def partitionBy(self, *cols: str) -> "DataStreamWriter":
        """Partition a file sink's output into ``column=value/`` folders.

        Parameters
        ----------
        *cols : str or list of str
            The partition columns, outermost first.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "day STRING, n INT")
        >>> q = (stream.toDF().writeStream.format("parquet").partitionBy("day")
        ...      .option("checkpointLocation", "ckpt3").start("out3"))
        >>> _ = stream.addData([("mon", 1), ("tue", 2)])
        >>> q.processAllAvailable(); q.stop()
        >>> import os; sorted(d for d in os.listdir("out3") if not d.startswith("_"))
        ['day=mon', 'day=tue']
        """
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = tuple(cols[0])
        self._partition_by = list(cols)
        return self

    def trigger(
        self,
        *,
        processingTime: str | None = None,
        once: bool | None = None,
        continuous: str | None = None,
        availableNow: bool | None = None,
        realTime: str | None = None,
    ) -> "DataStreamWriter":
        """Set when micro-batches run (give one of the parameters).

        Parameters
        ----------
        processingTime : str, optional
            A batch every interval (``"10 seconds"``); ``"0 seconds"``, the
            default, starts one as soon as the previous ends and data is there.
        once : bool, optional
            True: one batch of what is available, then stop.
        continuous : str, optional
            Continuous processing of map-like queries: records processed as they
            arrive, progress checkpointed every interval.
        availableNow : bool, optional
            True: everything available when the query starts, in as many
            batches as the sources' limits make, then stop.
        realTime : str, optional
            Real-time mode (Spark 4.1): records processed as they arrive, in
            long-running batches of this length (the checkpoint interval);
            update output mode.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Raises
        ------
        PySparkValueError
            When more than one is given (``ONLY_ALLOW_SINGLE_TRIGGER``), an
            interval is empty or a flag is not True.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> _ = stream.addData([(1,), (2,)])
        >>> q = stream.toDF().writeStream.format("memory").queryName("once").trigger(availableNow=True).start()
        >>> q.awaitTermination()
        >>> spark.table("once").count()
        2
        """
        params = [processingTime, once, continuous, availableNow, realTime]
        if params.count(None) != 4:
            raise PySparkValueError(
                "[ONLY_ALLOW_SINGLE_TRIGGER] Only a single trigger is allowed.", "ONLY_ALLOW_SINGLE_TRIGGER"
            )
        for name, value in (("processingTime", processingTime), ("continuous", continuous), ("realTime", realTime)):
            if value is not None and (not isinstance(value, str) or value.strip() == ""):
                raise PySparkValueError(
                    f"[VALUE_NOT_NON_EMPTY_STR] Value for `{name}` must be a non-empty string, got '{value}'.",
                    "VALUE_NOT_NON_EMPTY_STR",
                )
        for name, flag in (("once", once), ("availableNow", availableNow)):
            if flag is not None and flag is not True:
                raise PySparkValueError(
                    f"[VALUE_NOT_ALLOWED] Value for `{name}` has to be amongst the following values: [True].",
                    "VALUE_NOT_ALLOWED",
                )
        if processingTime is not None:
            self._trigger = ("processingTime", _native.trigger_interval_ms(processingTime.strip()))
        elif once is not None:
            self._trigger = ("once", 0)
        elif availableNow is not None:
            self._trigger = ("availableNow", 0)
        elif realTime is not None:
            self._trigger = ("realTime", _native.trigger_interval_ms(realTime.strip()))
        elif continuous is not None:
            self._trigger = ("continuous", _native.trigger_interval_ms(continuous.strip()))
        return self

    def foreach(self, f: Any) -> "DataStreamWriter":
        """Send each output row to Python code.

        Parameters
        ----------
        f : callable or object
            A function of one :class:`Row`, or an object with ``process(row)``
            and optionally ``open(partition_id, epoch_id)`` (return False to skip
            the partition) and ``close(error)``.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> import os
        >>> from sparklet.testing import MemoryStream
        >>> stream, seen = MemoryStream(spark, "n INT"), os.path.abspath("seen")
        >>> os.makedirs(seen)
        >>> def mark(row):  # one file per row (on Spark it runs in a worker process)
        ...     open(os.path.join(seen, str(row.n)), "w").close()
        >>> q = stream.toDF().writeStream.foreach(mark).start()
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable(); q.stop()
        >>> sorted(os.listdir(seen))
        ['1', '2']
        """
        from sparklet.sql.streaming.foreach import ForeachWriter

        self._foreach_batch = ForeachWriter(f)
        return self

    def foreachBatch(self, func: Callable[["pa.Table", int], None]) -> "DataStreamWriter":
        """Call a function with each micro-batch's output.

        ``batch`` is a :class:`pyarrow.Table` (no copy of the engine's data);
        with the session setting ``spark.sparklet.foreachBatch.dataFrame`` set
        to ``true`` when the query starts it is a batch :class:`DataFrame` over
        the same data, as PySpark passes (Spark ignores the setting, so one
        script runs on both).

        Parameters
        ----------
        func : callable
            ``func(batch, batch_id)``. An exception it raises stops the query
            (``FOREACH_BATCH_USER_FUNCTION_ERROR``); with a checkpoint, a restart
            runs that batch again.

        Returns
        -------
        DataStreamWriter
            The same writer, for chaining.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream, batches = MemoryStream(spark, "n INT"), []
        >>> q = stream.toDF().writeStream.foreachBatch(lambda t, i: batches.append((i, t.num_rows))).start()
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable(); q.stop()
        >>> batches
        [(0, 2)]
        """
        self._foreach_batch = func
        return self

    def toTable(
        self,
        tableName: str,
        format: str | None = None,  # noqa: A002
        outputMode: str | None = None,
        partitionBy: str | list[str] | None = None,
        queryName: str | None = None,
        **options: Any,
    ) -> StreamingQuery:
        """Start the query writing into a warehouse table.

        The table is made (in ``format``, else Parquet) when it does not exist;
        each micro-batch's files are committed to its folder, so ``spark.table``
        and ``spark.readStream.table`` read them.

        Parameters
        ----------
        tableName : str
            ``db.name`` or ``name``.
        format : str, optional
            The table's format when it is made.
        outputMode : str, optional
            As :meth:`outputMode`.
        partitionBy : str or list of str, optional
            As :meth:`partitionBy`, when the table is made.
        queryName : str, optional
            As :meth:`queryName`.
        **options
            As :meth:`options` (``checkpointLocation``).

        Returns
        -------
        StreamingQuery
            The running query.

        Raises
        ------
        AnalysisException
            When the name is a view or a table in another format
            (``UNSUPPORTED_FEATURE.TABLE_OPERATION``).

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.option("checkpointLocation", "ckpt4").toTable("numbers_table")
        >>> _ = stream.addData([(7,)])
        >>> q.processAllAvailable(); q.stop()
        >>> spark.table("numbers_table").collect()
        [Row(n=7)]
        """
        from sparklet.errors import AnalysisException

        session = self._df.sparkSession
        catalog = session.catalog
        db, name = catalog._split(tableName)
        if partitionBy is not None:
            self.partitionBy(*([partitionBy] if isinstance(partitionBy, str) else partitionBy))
        info = catalog._warehouse.table(db, name)
        wanted = (format or self._format or "").lower() or None
        if info is None:
            info = catalog._create(db, name, wanted, None, self._df.schema, self._partition_by)
        elif info.kind == "VIEW" or (wanted and wanted != info.format):
            raise AnalysisException(
                f"[UNSUPPORTED_FEATURE.TABLE_OPERATION] The table `{db}`.`{name}` does not support streaming "
                f"writes in format {wanted or info.format}: it is a {info.kind.lower()} in format {info.format}.",
                "UNSUPPORTED_FEATURE.TABLE_OPERATION",
            )
        self._partition_by = list(info.partition_by)
        return self.start(info.location, info.format, outputMode, None, queryName, **options)

    def start(
        self,
        path: str | None = None,
        format: str | None = None,  # noqa: A002
        outputMode: str | None = None,
        partitionBy: Any | None = None,
        queryName: str | None = None,
        **options: Any,
    ) -> StreamingQuery:
        """Start the query.

        Batches run on a thread of the engine's; this returns at once.

        Parameters
        ----------
        path : str, optional
            A file sink's folder (the ``path`` option).
        format : str, optional
            As :meth:`format`.
        outputMode : str, optional
            As :meth:`outputMode`.
        partitionBy : str or list of str, optional
            As :meth:`partitionBy`.
        queryName : str, optional
            As :meth:`queryName`.
        **options
            As :meth:`options`.

        Returns
        -------
        StreamingQuery
            The handle of the running query.

        Raises
        ------
        AnalysisException
            When the query cannot run as written: an output mode its operators
            do not support, an aggregation in append mode without a watermark, a
            file sink without ``checkpointLocation``, a name already in use.

        Examples
        --------
        >>> q = spark.readStream.format("rate").load().writeStream.format("noop").start()
        >>> q.isActive
        True
        >>> q.stop()
        >>> q.isActive
        False
        """
        if format is not None:
            self.format(format)
        if outputMode is not None:
            self.outputMode(outputMode)
        if queryName is not None:
            self.queryName(queryName)
        self.options(**options)
        if path is not None:
            self._options["path"] = path
        if partitionBy is not None:
            self.partitionBy(*([partitionBy] if isinstance(partitionBy, str) else partitionBy))
        fmt = self._format or ("foreachBatch" if self._foreach_batch else "parquet")
        foreach_batch = self._foreach_batch
        session = self._df.sparkSession
        from sparklet.sql import _datasource_run

        python_sink = _datasource_run.lookup(session, fmt) if self._foreach_batch is None else None
        if python_sink is not None:
            # a Python data source's stream writer, driven once per batch
            foreach_batch = _datasource_run.stream_writer(self._df, python_sink, self._mode, self._options)
            fmt = "foreachBatch"
        if foreach_batch is not None and (session.conf.get(FOREACH_BATCH_DATAFRAME, "false") or "").lower() == "true":
            foreach_batch = _as_dataframe_function(foreach_batch, session)
        kind, ms = self._trigger
        native = _native.start_query(
            self._df._native,
            fmt,
            self._options,
            self._name,
            kind,
            ms,
            self._mode,
            self._partition_by,
            foreach_batch,
            _console_write if fmt.lower() == "console" else None,
            self._clock,
        )
        query = StreamingQuery(native, self._df.sparkSession)
        if kind == "availableNow":
            from sparklet.sql._live import follow_backfill

            bar = follow_backfill(query, self._df.sparkSession.conf)
            if bar is not None:
                query._displays.append(bar)
        return query
