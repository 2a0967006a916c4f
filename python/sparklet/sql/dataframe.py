"""The :class:`DataFrame`, as :class:`pyspark.sql.DataFrame`.

A DataFrame is an unexecuted plan. Batch DataFrames run with ``collect``,
``show``, ``toPandas`` ...; streaming DataFrames (``isStreaming``) run only
through ``writeStream``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from sparklet import _native
from sparklet.errors import AnalysisException, PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.sql._convert import table_to_pandas, table_to_rows
from sparklet.sql.column import Column, _to_col
from sparklet.sql.types import Row, StructType, from_arrow_schema, to_struct_type

if TYPE_CHECKING:
    from sparklet.sql.observation import Observation
    from sparklet.sql.readwriter import DataFrameWriter
    from sparklet.sql.session import SparkSession
    from sparklet.sql.streaming.readwriter import DataStreamWriter

ColumnOrName = Union[Column, str]

__all__ = ["DataFrame", "GroupedData"]


def _flatten(cols: tuple[Any, ...]) -> list[Any]:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return list(cols)


def _subset(subset: Any) -> list[str] | None:
    """``subset`` as a list of column names (PySpark also takes a tuple);
    PySpark 4's errors otherwise."""
    if subset is None:
        return None
    if not isinstance(subset, (list, tuple)):
        expected, found = "list or tuple", subset
    else:
        found = next((c for c in subset if not isinstance(c, str)), None)
        if found is None:
            return list(subset)
        expected = "str"
    raise PySparkTypeError(
        f"[NOT_EXPECTED_TYPE] Argument `subset` should be {expected}, got {type(found).__name__}.",
        "NOT_EXPECTED_TYPE",
    )


class DataFrame:
    """A distributed-collection-shaped plan over rows (here: one process)."""

    def __init__(self, native: Any, session: "SparkSession") -> None:
        self._native = native
        self.sparkSession = session

    def _wrap(self, native: Any) -> "DataFrame":
        return DataFrame(native, self.sparkSession)

    # ---- schema -------------------------------------------------------
    @property
    def schema(self) -> StructType:
        """The schema as a :class:`StructType`."""
        return from_arrow_schema(self._native.schema())

    @property
    def columns(self) -> list[str]:
        """The column names."""
        return self.schema.names

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        """``(name, simple type)`` pairs."""
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    @property
    def isStreaming(self) -> bool:
        """Whether the DataFrame reads a streaming source."""
        return bool(self._native.is_streaming())

    def printSchema(self) -> None:
        """Print the schema as a tree."""
        print(self.schema.treeString(), end="")

    def __getitem__(self, item: str | int | Column) -> Column:
        if isinstance(item, str):
            self._check_column(item)
            return Column(self._native.column(item) if "." not in item else _native.col(item))
        if isinstance(item, int):
            return Column(_native.col(self.columns[item]))
        if isinstance(item, Column):
            return self.filter(item)  # type: ignore[return-value]
        raise PySparkTypeError(f"[NOT_COLUMN_OR_INT_OR_STR] Unexpected key {item!r}.", "NOT_COLUMN_OR_INT_OR_STR")

    def __getattr__(self, name: str) -> Column:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns:
            raise AttributeError(f"'DataFrame' object has no attribute '{name}'")
        return Column(self._native.column(name))

    def _check_column(self, name: str) -> None:
        if "." not in name and name != "*" and name not in self.columns:
            self._native.select([_native.col(name)])  # raises AnalysisException naming the columns

    # ---- transformations ---------------------------------------------
    def select(self, *cols: ColumnOrName | list[ColumnOrName]) -> "DataFrame":
        """Project columns or expressions."""
        exprs: list[Any] = []
        for c in _flatten(cols):
            if isinstance(c, str) and c == "*":
                exprs.extend(_native.col(n) for n in self.columns)
            elif isinstance(c, str) and c.endswith(".*"):
                exprs.extend(self._struct_fields(c[:-2]))
            else:
                exprs.append(_to_col(c)._expr)
        return self._wrap(self._native.select(exprs))

    def _struct_fields(self, name: str) -> list[Any]:
        """``"s.*"``: each field of struct column ``s``, named as the field."""
        field = next((f for f in self.schema.fields if f.name == name), None)
        if field is None or not isinstance(field.dataType, StructType):
            raise AnalysisException(
                f"[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve {name}.* given input columns {self.columns}.",
                "CANNOT_RESOLVE_STAR_EXPAND",
            )
        return [Column(_native.col(f"{name}.{f.name}")).alias(f.name)._expr for f in field.dataType.fields]

    def selectExpr(self, *expr: str | list[str]) -> "DataFrame":
        """Project SQL expressions (``"a + 1 AS b"``)."""
        return self._wrap(self._native.select([self._native.parse_sql(e) for e in _flatten(expr)]))

    def filter(self, condition: ColumnOrName) -> "DataFrame":
        """Keep rows where ``condition`` (a Column or SQL text) is true."""
        if isinstance(condition, str):
            return self._wrap(self._native.filter(self._native.parse_sql(condition)))
        if not isinstance(condition, Column):
            raise PySparkTypeError(
                f"[NOT_COLUMN_OR_STR] Argument `condition` should be a Column or str, got {type(condition).__name__}.",
                "NOT_COLUMN_OR_STR",
            )
        return self._wrap(self._native.filter(condition._expr))

    where = filter

    def withColumn(self, colName: str, col: Column) -> "DataFrame":
        """Add or replace a column."""
        if not isinstance(col, Column):
            raise PySparkTypeError(
                f"[NOT_COLUMN] Argument `col` should be a Column, got {type(col).__name__}.", "NOT_COLUMN"
            )
        return self._wrap(self._native.with_column(colName, col._expr))

    def withColumns(self, *colsMap: dict[str, Column]) -> "DataFrame":
        """Add or replace several columns."""
        df = self
        for m in colsMap:
            for name, c in m.items():
                df = df.withColumn(name, c)
        return df

    def withColumnRenamed(self, existing: str, new: str) -> "DataFrame":
        """Rename a column (no-op if it does not exist)."""
        return self._wrap(self._native.with_column_renamed(existing, new))

    def withColumnsRenamed(self, colsMap: dict[str, str]) -> "DataFrame":
        """Rename several columns."""
        df = self
        for old, new in colsMap.items():
            df = df.withColumnRenamed(old, new)
        return df

    def drop(self, *cols: ColumnOrName) -> "DataFrame":
        """Drop columns (missing names are ignored)."""
        names = [c if isinstance(c, str) else c._expr.name() for c in cols]
        return self._wrap(self._native.drop(names))

    def alias(self, alias: str) -> "DataFrame":
        """Name the DataFrame so columns can be qualified (``alias.col``)."""
        return self._wrap(self._native.alias(alias))

    def join(
        self,
        other: "DataFrame",
        on: str | list[str] | Column | list[Column] | None = None,
        how: str | None = None,
    ) -> "DataFrame":
        """Join with ``other`` on column names (each output once) or a condition.

        ``how``: ``inner`` (default), ``cross``, ``outer``/``full``/``fullouter``,
        ``left``/``leftouter``, ``right``/``rightouter``, ``semi``/``leftsemi``,
        ``anti``/``leftanti``. On streams: stream-static joins as Spark allows them.
        """
        how = how or "inner"
        if on is None:
            return self._wrap(self._native.join(other._native, None, None, how))
        items = on if isinstance(on, list) else [on]
        if all(isinstance(c, str) for c in items):
            return self._wrap(self._native.join(other._native, list(items), None, how))
        if all(isinstance(c, Column) for c in items):
            columns = [c for c in items if isinstance(c, Column)]
            cond = columns[0]
            for c in columns[1:]:
                cond = cond & c
            return self._wrap(self._native.join(other._native, None, cond._expr, how))
        raise PySparkTypeError(
            f"[NOT_COLUMN_OR_LIST_OR_STR] Argument `on` should be a Column, str or list, got {type(on).__name__}.",
            "NOT_COLUMN_OR_LIST_OR_STR",
        )

    def crossJoin(self, other: "DataFrame") -> "DataFrame":
        """Every pair of rows of this DataFrame and ``other``."""
        return self.join(other, how="cross")

    def union(self, other: "DataFrame") -> "DataFrame":
        """Rows of both, matched by position (duplicates kept)."""
        return self._wrap(self._native.union(other._native))

    unionAll = union

    def unionByName(self, other: "DataFrame", allowMissingColumns: bool = False) -> "DataFrame":
        """Rows of both, matched by column name."""
        return self._wrap(self._native.union_by_name(other._native, allowMissingColumns))

    def limit(self, num: int) -> "DataFrame":
        """The first ``num`` rows."""
        return self._wrap(self._native.limit(num))

    def offset(self, num: int) -> "DataFrame":
        """The rows after the first ``num``."""
        return self._wrap(self._native.offset(int(num)))

    def repartition(self, numPartitions: int | ColumnOrName, *cols: ColumnOrName) -> "DataFrame":
        """The rows in ``numPartitions`` partitions (by the hash of ``cols``,
        else of every column; without a number, ``spark.sql.shuffle.partitions``).
        In one process the partitions run in parallel, and a batch write
        writes one file each, as Spark's tasks do."""
        if not isinstance(numPartitions, int):
            cols = (numPartitions, *cols)
            numPartitions = int(self.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
        if numPartitions <= 0:
            raise PySparkValueError(
                f"[VALUE_NOT_POSITIVE] Value for `numPartitions` must be positive, got '{numPartitions}'.",
                "VALUE_NOT_POSITIVE",
            )
        # without columns, by the hash of every column: rows spread over the
        # partitions as Spark's round robin spreads them, and repeatably
        keys = _flatten(cols) or [_native.col(n) for n in self.columns]
        return self._wrap(
            self._native.repartition(
                numPartitions, [_to_col(c)._expr if not isinstance(c, _native.Expr) else c for c in keys]
            )
        )

    def coalesce(self, numPartitions: int) -> "DataFrame":
        """The rows in at most ``numPartitions`` partitions, merged without
        a shuffle (a batch write then writes that many files at most)."""
        if numPartitions <= 0:
            raise PySparkValueError(
                f"[VALUE_NOT_POSITIVE] Value for `numPartitions` must be positive, got '{numPartitions}'.",
                "VALUE_NOT_POSITIVE",
            )
        return self._wrap(self._native.repartition(numPartitions, []))

    def distinct(self) -> "DataFrame":
        """Distinct rows (on a stream, the same as :meth:`dropDuplicates`)."""
        return self._wrap(self._native.distinct())

    def dropDuplicates(self, subset: list[str] | None = None) -> "DataFrame":
        """Rows with duplicates (on ``subset`` columns, or all) removed.

        On a stream every key seen is remembered; when the watermarked
        event-time column is in ``subset`` a key is forgotten once the
        watermark passes its event time (later copies would be late anyway).
        """
        return self._wrap(self._native.drop_duplicates(_subset(subset), False))

    drop_duplicates = dropDuplicates

    def dropDuplicatesWithinWatermark(self, subset: list[str] | None = None) -> "DataFrame":
        """Drop rows duplicating one seen within the watermark delay.

        A key is remembered until the watermark passes its first event time
        plus the delay of ``withWatermark``, which a stream must have.
        """
        return self._wrap(self._native.drop_duplicates(_subset(subset), True))

    drop_duplicates_within_watermark = dropDuplicatesWithinWatermark

    def orderBy(self, *cols: ColumnOrName | list[ColumnOrName], ascending: Any = True) -> "DataFrame":
        """Sort by columns (``Column.desc()`` for descending)."""
        items = [_to_col(c) for c in _flatten(cols)]
        if ascending is False:
            items = [c.desc() for c in items]
        return self._wrap(self._native.sort([c._expr for c in items]))

    sort = orderBy

    def withWatermark(self, eventTime: str, delayThreshold: str) -> "DataFrame":
        """Declare ``eventTime`` as event time, accepting data up to ``delayThreshold`` late.

        On streams the watermark (max event time seen minus the delay) bounds
        aggregation state and decides when append mode emits a window; on
        batch DataFrames it has no effect, as in Spark.
        """
        return self._wrap(self._native.with_watermark(eventTime, delayThreshold))

    def groupBy(self, *cols: ColumnOrName | list[ColumnOrName]) -> "GroupedData":
        """Group rows for aggregation."""
        return GroupedData(self, [_to_col(c) for c in _flatten(cols)])

    groupby = groupBy

    def agg(self, *exprs: Column) -> "DataFrame":
        """Aggregate over all rows."""
        return GroupedData(self, []).agg(*exprs)

    # ---- actions ------------------------------------------------------
    def toArrow(self) -> pa.Table:
        """Run the query; return a :class:`pyarrow.Table`."""
        return self._native.collect()

    def collect(self) -> list[Row]:
        """Run the query; return all rows."""
        return table_to_rows(self.toArrow())

    def toPandas(self) -> Any:
        """Run the query; return a pandas DataFrame (naive timestamps in the session time zone)."""
        tz = self.sparkSession.conf.get("spark.sql.session.timeZone", "UTC") or "UTC"
        return table_to_pandas(self.toArrow(), tz)

    def count(self) -> int:
        """Number of rows."""
        return int(self._native.count())

    def take(self, num: int) -> list[Row]:
        """The first ``num`` rows."""
        return self.limit(num).collect()

    def head(self, n: int | None = None) -> Any:
        """The first row (or the first ``n`` rows)."""
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Row | None:
        """The first row, or ``None``."""
        return self.head()

    def isEmpty(self) -> bool:
        """Whether there are no rows."""
        return len(self.take(1)) == 0

    def _show_string(self, n: int = 20, truncate: bool | int = True) -> str:
        table = self.limit(n + 1).toArrow()
        time_zone = self.sparkSession.conf.get("spark.sql.session.timeZone")
        return _native.show_string(table, n, bool(truncate), time_zone)

    def show(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> None:
        """Print the first ``n`` rows as a table."""
        print(self._show_string(n, truncate), end="")

    def explain(self, extended: bool | str | None = None, mode: str | None = None) -> None:
        """Print the physical plan that would run; with ``extended`` (or
        ``mode="extended"``) the parsed and optimized logical plans first."""
        full = bool(extended) or mode in ("extended", "formatted", "cost")
        print(self._native.explain_string(full))

    def createOrReplaceTempView(self, name: str) -> None:
        """Register as a temporary view usable in ``spark.sql`` and ``spark.table``."""
        self._native.create_or_replace_temp_view(name)

    def createTempView(self, name: str) -> None:
        """Register as a temporary view; error if one of that name exists."""
        if name in self.sparkSession._native.table_names():
            raise AnalysisException(
                f"[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{name}` because it already exists.",
                "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
            )
        self.createOrReplaceTempView(name)

    @property
    def write(self) -> "DataFrameWriter":
        """The interface for writing a batch DataFrame (``format("kafka")``)."""
        from sparklet.sql.readwriter import DataFrameWriter

        return DataFrameWriter(self)

    @property
    def writeStream(self) -> "DataStreamWriter":
        """The interface for starting a streaming query over this DataFrame."""
        from sparklet.sql.streaming.readwriter import DataStreamWriter

        return DataStreamWriter(self)

    def __repr__(self) -> str:
        return "DataFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"

    def mapInPandas(self, func: Any, schema: StructType | str, barrier: bool = False) -> DataFrame:
        """Rows through ``func``, an iterator of pandas DataFrames to an
        iterator of pandas DataFrames with columns of ``schema`` (any number
        of rows). On a stream it runs on each micro-batch."""
        arrow_schema = to_struct_type(schema)._to_arrow_schema()

        def run(table: Any) -> Any:
            frames = (b.to_pandas() for b in table.to_batches())
            out = [_frame_to_table(f, arrow_schema) for f in func(frames)]
            return pa.concat_tables(out) if out else arrow_schema.empty_table()

        return self._wrap(self._native.map_batches(run, arrow_schema, False))

    def mapInArrow(self, func: Any, schema: StructType | str, barrier: bool = False) -> DataFrame:
        """Rows through ``func``, an iterator of ``pyarrow.RecordBatch`` to an
        iterator of record batches with columns of ``schema``."""
        arrow_schema = to_struct_type(schema)._to_arrow_schema()

        def run(table: Any) -> Any:
            out = [_frame_to_table(pa.Table.from_batches([b]), arrow_schema) for b in func(iter(table.to_batches()))]
            return pa.concat_tables(out) if out else arrow_schema.empty_table()

        return self._wrap(self._native.map_batches(run, arrow_schema, True))

    def observe(self, observation: Observation | str, *exprs: Column) -> DataFrame:
        """Observe aggregates (``F.count``, ``F.max``, ...) of the rows; the rows
        pass through unchanged.

        On a stream, ``observation`` is a name and each micro-batch's values
        appear in the query's progress as ``observedMetrics[observation]``. On
        a batch DataFrame, pass an :class:`~sparklet.sql.Observation` and read
        its ``get`` after an action (with a name, Spark hands the values to
        JVM listeners only, and so does nothing visible here either).
        """
        from sparklet.sql.observation import Observation

        if isinstance(observation, Observation):
            return observation._on(self, *exprs)
        if not isinstance(observation, str):
            raise PySparkTypeError(
                "[NOT_EXPECTED_TYPE] Argument `observation` should be Observation or str, "
                f"got {type(observation).__name__}.",
                "NOT_EXPECTED_TYPE",
            )
        if not exprs:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one exprs must be specified.", "CANNOT_BE_EMPTY")
        return self._wrap(self._native.observe(observation, [e._expr for e in exprs]))

    def _repr_html_(self) -> str:
        """Jupyter: the first rows as a table (``spark.sql.repl.eagerEval.maxNumRows``, 20)."""
        from sparklet.sql._html import dataframe_html

        n = int(self.sparkSession.conf.get("spark.sql.repl.eagerEval.maxNumRows", "20") or 20)
        return dataframe_html(self, n)


def _frame_to_table(frame: Any, schema: pa.Schema) -> pa.Table:
    """A function's output (pandas DataFrame or Arrow table) as a table of
    ``schema``; other columns than declared are an error naming them."""
    names = frame.column_names if isinstance(frame, pa.Table) else list(frame.columns)
    missing = sorted(str(n) for n in set(schema.names) - set(names))
    unexpected = sorted(str(n) for n in set(names) - set(schema.names))
    if missing or unexpected:
        raise PySparkRuntimeError(
            "[RESULT_COLUMN_NAMES_MISMATCH] Column names of the returned data do not match specified schema."
            + (f" Missing: {', '.join(missing)}." if missing else "")
            + (f" Unexpected: {', '.join(unexpected)}." if unexpected else ""),
            "RESULT_COLUMN_NAMES_MISMATCH",
        )
    if isinstance(frame, pa.Table):
        return frame.select(schema.names).cast(schema)
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


def _initial_state(initial: GroupedData | None, rows: bool, session: Any) -> dict[tuple, list[Any]] | None:
    """A processor's initial state by key: its Rows (a ``handleInitialState``
    call each), or a pandas DataFrame of its rows (in chunks as the input)."""
    if initial is None:
        return None
    df, names = initial._keyed()
    by_key: dict[tuple, list[Any]] = {}
    if rows:
        for row in df.collect():
            by_key.setdefault(tuple(row[n] for n in names), []).append(row)
        return by_key
    pdf = df.toPandas()
    for key, part in pdf.groupby(names, sort=True, dropna=False):
        by_key[key if isinstance(key, tuple) else (key,)] = [part.reset_index(drop=True)]
    return by_key


class GroupedData:
    """The result of :meth:`DataFrame.groupBy` (aggregate with ``agg``)."""

    def __init__(self, df: DataFrame, cols: list[Column]) -> None:
        self._df = df
        self._cols = cols

    def agg(self, *exprs: Column | dict[str, str]) -> DataFrame:
        """Aggregate with functions such as ``F.count``, ``F.sum``."""
        from sparklet.sql import functions as F

        aggs: list[Column] = []
        for e in exprs:
            if isinstance(e, dict):
                for colname, fn in e.items():
                    aggs.append(getattr(F, fn)(colname).alias(f"{fn}({colname})"))
            else:
                aggs.append(e)
        native = self._df._native.aggregate([c._expr for c in self._cols], [a._expr for a in aggs])
        return self._df._wrap(native)

    def applyInPandasWithState(
        self,
        func: Callable[[tuple, Iterator[Any], Any], Iterator[Any]],
        outputStructType: StructType | str,
        stateStructType: StructType | str,
        outputMode: str,
        timeoutConf: str,
    ) -> DataFrame:
        """Call ``func(key, pdfs, state)`` once per key per micro-batch of a stream.

        ``key`` is a tuple of the grouping values, ``pdfs`` an iterator of
        the key's rows as pandas DataFrames (empty when the call is for a
        timed-out state), and ``state`` a
        :class:`~sparklet.sql.streaming.state.GroupState` holding a tuple of
        ``stateStructType``'s fields. ``func`` yields pandas DataFrames of
        ``outputStructType``. ``timeoutConf`` is a
        :class:`~sparklet.sql.streaming.state.GroupStateTimeout`.
        """
        import functools

        from sparklet.sql.streaming.state import _run_groups
        from sparklet.sql.types import to_struct_type

        if outputMode.lower() not in ("append", "update"):
            raise PySparkValueError(
                f"Unknown output mode '{outputMode}' for applyInPandasWithState: use 'append' or 'update'.",
                "INVALID_OUTPUT_MODE",
            )
        output = to_struct_type(outputStructType)
        state = to_struct_type(stateStructType)
        df, names = self._keyed()
        tz = df.sparkSession.conf.get("spark.sql.session.timeZone", "UTC") or "UTC"
        runner = functools.partial(_run_groups, func, state, output._to_arrow_schema(), timeoutConf, tz)
        native = df._native.group_state(names, runner, output._to_arrow_schema(), state._to_arrow_schema(), timeoutConf)
        return df._wrap(native)

    def transformWithStateInPandas(
        self,
        statefulProcessor: Any,
        outputStructType: StructType | str,
        outputMode: str,
        timeMode: str,
        initialState: GroupedData | None = None,
        eventTimeColumnName: str = "",
    ) -> DataFrame:
        """Run a :class:`~sparklet.sql.streaming.StatefulProcessor` per key,
        its input and output as pandas DataFrames.

        The processor declares value, list and map state (optionally with a
        TTL) in ``init`` and gets each key's rows in ``handleInputRows`` (an
        iterator of DataFrames of at most
        ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows); with
        ``timeMode`` ``"ProcessingTime"`` or ``"EventTime"`` it can register
        timers, handled in ``handleExpiredTimer``. ``initialState`` (a batch
        DataFrame grouped by the same keys) seeds the state in the first
        batch through ``handleInitialState``. On a batch DataFrame the rows
        go through the processor once, with no state kept.
        """
        return self._transform_with_state(
            statefulProcessor, outputStructType, outputMode, timeMode, initialState, eventTimeColumnName, False
        )

    def transformWithState(
        self,
        statefulProcessor: Any,
        outputStructType: StructType | str,
        outputMode: str,
        timeMode: str,
        initialState: GroupedData | None = None,
        eventTimeColumnName: str = "",
    ) -> DataFrame:
        """:meth:`transformWithStateInPandas` with Rows: ``handleInputRows``
        gets an iterator of the key's :class:`~sparklet.sql.Row` objects and
        yields Rows; ``handleInitialState`` is called once per initial Row."""
        return self._transform_with_state(
            statefulProcessor, outputStructType, outputMode, timeMode, initialState, eventTimeColumnName, True
        )

    def _transform_with_state(
        self,
        processor: Any,
        outputStructType: StructType | str,
        outputMode: str,
        timeMode: str,
        initialState: GroupedData | None,
        eventTimeColumnName: str,
        rows: bool,
    ) -> DataFrame:
        import functools

        from sparklet.sql.streaming.processor_runner import (
            Options,
            declared,
            operator_properties,
            run_on_batch,
            run_processor,
            state_type,
        )
        from sparklet.sql.types import to_struct_type

        api = "transformWithState" if rows else "transformWithStateInPandas"
        if outputMode.lower() not in ("append", "update"):
            raise PySparkValueError(
                f"Unknown output mode '{outputMode}' for {api}: use 'append' or 'update'.", "INVALID_OUTPUT_MODE"
            )
        mode = timeMode.lower()
        timeouts = {"none": "NoTimeout", "processingtime": "ProcessingTimeTimeout", "eventtime": "EventTimeTimeout"}
        if mode not in timeouts:
            raise PySparkValueError(
                f"Unknown time mode '{timeMode}': use 'None', 'ProcessingTime' or 'EventTime'.", "INVALID_TIME_MODE"
            )
        handle = declared(processor, mode)
        variables = dict(handle._vars)
        output = to_struct_type(outputStructType)
        if eventTimeColumnName and eventTimeColumnName not in output.names:
            raise AnalysisException(
                f"[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name "
                f"`{eventTimeColumnName}` cannot be resolved (eventTimeColumnName). Did you mean one of the "
                f"following? [{', '.join(f'`{n}`' for n in output.names)}].",
                "UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )
        df, names = self._keyed()
        conf = df.sparkSession.conf
        opts = Options(
            time_mode=mode,
            rows=rows,
            output=output,
            time_zone=conf.get("spark.sql.session.timeZone", "UTC") or "UTC",
            max_records=int(conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", "10000") or 10000),
            max_bytes=int(conf.get("spark.sql.execution.arrow.maxBytesPerBatch", "268435456") or 0),
            initial=_initial_state(initialState, rows, df.sparkSession),
        )
        if not df.isStreaming:
            # all rows at once, as one micro-batch (run here, not at the first action)
            table = run_on_batch(processor, variables, opts, names, df.toArrow())
            return df.sparkSession.createDataFrame(table)
        runner = functools.partial(run_processor, processor, variables, opts)
        native = df._native.group_state(
            names,
            runner,
            output._to_arrow_schema(),
            state_type(variables)._to_arrow_schema(),
            timeouts[mode],
            processor=True,
            ttl=any(v.ttl_ms is not None for v in variables.values()),
            rows=rows,
            properties=operator_properties(handle, mode, outputMode),
            event_time_column=eventTimeColumnName or None,
        )
        return df._wrap(native)

    def _keyed(self) -> tuple[DataFrame, list[str]]:
        """The DataFrame with a column per grouping expression, and their names."""
        df = self._df
        names = []
        for c in self._cols:
            name = c._expr.name()
            if name not in df.columns:
                df = df.withColumn(name, c)
            names.append(name)
        return df, names

    def count(self) -> DataFrame:
        """Rows per group, in column ``count``."""
        from sparklet.sql import functions as F

        return self.agg(F.count("*").alias("count"))

    def _simple(self, fn: str, cols: tuple[str, ...]) -> DataFrame:
        from sparklet.sql import functions as F

        return self.agg(*[getattr(F, fn)(c).alias(f"{fn}({c})") for c in cols])

    def sum(self, *cols: str) -> DataFrame:
        """Sum per group."""
        return self._simple("sum", cols)

    def avg(self, *cols: str) -> DataFrame:
        """Average per group."""
        return self._simple("avg", cols)

    mean = avg

    def min(self, *cols: str) -> DataFrame:
        """Minimum per group."""
        return self._simple("min", cols)

    def max(self, *cols: str) -> DataFrame:
        """Maximum per group."""
        return self._simple("max", cols)
