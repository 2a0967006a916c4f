"""The :class:`GroupedData` of :meth:`DataFrame.groupBy`, as :mod:`pyspark.sql.group`:
aggregations per group, ``pivot``, ``cube``/``rollup``/``groupingSets``
groupings, and the stateful per-key functions on streams."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from sparklet.errors import AnalysisException, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql.column import Column
from sparklet.sql.types import StructType

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame

__all__ = ["GroupedData"]

#: ``agg({"col": "fn"})`` names Spark accepts for functions named otherwise here.
_AGG_ALIASES = {"mean": "avg", "std": "stddev", "variance": "var_samp"}


def _initial_state(initial: GroupedData | None, rows: bool, session: Any) -> dict[tuple[Any, ...], list[Any]] | None:
    """A processor's initial state by key: its Rows (a ``handleInitialState``
    call each), or a pandas DataFrame of its rows (in chunks as the input)."""
    if initial is None:
        return None
    df, names = initial._keyed()
    by_key: dict[tuple[Any, ...], list[Any]] = {}
    if rows:
        for row in df.collect():
            by_key.setdefault(tuple(row[n] for n in names), []).append(row)
        return by_key
    pdf = df.toPandas()
    for key, part in pdf.groupby(names, sort=True, dropna=False):
        by_key[key if isinstance(key, tuple) else (key,)] = [part.reset_index(drop=True)]
    return by_key


class GroupedData:
    """Rows grouped by keys: what :meth:`DataFrame.groupBy`, ``cube``,
    ``rollup`` and ``groupingSets`` return, aggregated with :meth:`agg` or the
    shortcuts (``count``, ``sum``, ``avg``, ``min``, ``max``).

    On a streaming DataFrame the aggregation keeps its state across
    micro-batches; ``applyInPandasWithState`` and ``transformWithState`` run
    Python code per key with state of its own.

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], "k STRING, v INT")
    >>> df.groupBy("k").agg(F.sum("v"), F.max("v").alias("top")).orderBy("k").collect()
    [Row(k='a', sum(v)=4, top=3), Row(k='b', sum(v)=5, top=5)]
    """

    def __init__(
        self,
        df: DataFrame,
        cols: list[Column],
        kind: str = "groupby",
        sets: list[list[int]] | None = None,
        pivot: tuple[Column, list[Any]] | None = None,
    ) -> None:
        self._df = df
        self._cols = cols
        #: ``groupby``, ``cube``, ``rollup`` or ``sets`` (``sets``: key positions)
        self._kind = kind
        self._sets = sets
        #: the pivot column and its values
        self._pivot = pivot

    def agg(self, *exprs: Column | dict[str, str]) -> DataFrame:
        """Aggregate each group.

        Parameters
        ----------
        *exprs : Column or dict
            Aggregate columns (``F.count("*")``, ``F.sum("v").alias("total")``,
            any expression over aggregates); or one dict of column name to
            aggregate function name (``{"v": "max"}``, named ``max(v)``).

        Returns
        -------
        DataFrame
            One row per group: the grouping columns, then the aggregates.

        Raises
        ------
        PySparkValueError
            ``CANNOT_BE_EMPTY`` without any aggregate.
        PySparkTypeError
            ``NOT_COLUMN_OR_DICT`` for anything else.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], "k STRING, v INT")
        >>> df.groupBy("k").agg({"v": "max"}).orderBy("k").collect()
        [Row(k='a', max(v)=3), Row(k='b', max(v)=5)]
        >>> df.groupBy("k").agg((F.sum("v") / F.count("*")).alias("mean")).orderBy("k").collect()
        [Row(k='a', mean=2.0), Row(k='b', mean=5.0)]
        """
        from sparklet.sql import functions as F

        if not exprs:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one exprs must be specified.", "CANNOT_BE_EMPTY")
        aggs: list[Column] = []
        for e in exprs:
            if isinstance(e, dict):
                for colname, fn in e.items():
                    if colname == "*":  # count(*) is count(1) in Spark's names
                        aggs.append(getattr(F, _AGG_ALIASES.get(fn, fn))(F.lit(1)).alias(f"{fn}(1)"))
                        continue
                    aggs.append(getattr(F, _AGG_ALIASES.get(fn, fn))(F.col(colname)).alias(f"{fn}({colname})"))
            elif isinstance(e, Column):
                aggs.append(e)
            else:
                raise not_expected_type("exprs", "Column or dict", e)
        keys = [c._expr for c in self._cols]
        if self._pivot is not None:
            return self._pivoted(keys, aggs)
        native = self._df._native.aggregate(keys, [a._expr for a in aggs], self._kind, self._sets)
        return self._df._wrap(native)

    def __repr__(self) -> str:
        kind = {"groupby": "GroupBy", "cube": "Cube", "rollup": "Rollup", "sets": "GroupingSets"}[self._kind]
        if self._pivot is not None:
            kind = "Pivot"
        keys = ", ".join(c._expr.name() for c in self._cols)
        values = ", ".join(f"{n}: {t}" for n, t in self._df.dtypes)
        return f"GroupedData[grouping expressions: [{keys}], value: [{values}], type: {kind}]"

    def pivot(self, pivot_col: str, values: list[Any] | None = None) -> GroupedData:
        """Turn the values of a column into columns, one per value.

        Parameters
        ----------
        pivot_col : str
            The column whose values become columns.
        values : list, optional
            The values to make columns of, in order. Without them, the column's
            distinct values, sorted (which reads the data once more).

        Returns
        -------
        GroupedData
            To aggregate: each aggregate is computed per group and value; with
            several aggregates the columns are named ``value_aggregate``.

        Raises
        ------
        PySparkValueError
            ``REPEATED_CLAUSE`` for a second pivot, or a pivot of ``cube``,
            ``rollup`` or grouping sets.

        Examples
        --------
        >>> df = spark.createDataFrame(
        ...     [(2024, "java", 10), (2024, "python", 20), (2025, "python", 30)],
        ...     "year INT, course STRING, earnings INT")
        >>> df.groupBy("year").pivot("course").sum("earnings").orderBy("year").collect()
        [Row(year=2024, java=10, python=20), Row(year=2025, java=None, python=30)]
        >>> df.groupBy("year").pivot("course", ["python"]).sum("earnings").orderBy("year").collect()
        [Row(year=2024, python=20), Row(year=2025, python=30)]
        """
        from sparklet.sql import functions as F

        if self._pivot is not None or self._kind != "groupby":
            raise PySparkValueError(
                "[REPEATED_CLAUSE] The PIVOT clause may be used at most once per SUBQUERY.", "REPEATED_CLAUSE"
            )
        column = F.col(pivot_col) if isinstance(pivot_col, str) else pivot_col
        if values is None:
            rows = self._df.select(column.alias("v")).distinct().orderBy(F.col("v").asc_nulls_first()).collect()
            values = [r[0] for r in rows]
        return GroupedData(self._df, self._cols, pivot=(column, list(values)))

    def _pivoted(self, keys: list[Any], aggs: list[Column]) -> DataFrame:
        from sparklet.sql import functions as F

        column, values = self._pivot  # type: ignore[misc]
        names: list[str] = []
        for v in values:
            label = "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
            names.extend(label if len(aggs) == 1 else f"{label}_{a._expr.name()}" for a in aggs)
        native = self._df._native.pivot(
            keys, column._expr, [F.lit(v)._expr for v in values], [a._expr for a in aggs], names
        )
        return self._df._wrap(native)

    def applyInPandasWithState(
        self,
        func: Callable[[tuple[Any, ...], Iterator[Any], Any], Iterator[Any]],
        outputStructType: StructType | str,
        stateStructType: StructType | str,
        outputMode: str,
        timeoutConf: str,
    ) -> DataFrame:
        """Run a Python function per key per micro-batch, with state of its own per key.

        For each key with rows in a micro-batch (or whose timeout passed)
        ``func(key, pdfs, state)`` is called: ``key`` is a tuple of the
        grouping values, ``pdfs`` an iterator of the key's rows as pandas
        DataFrames (empty for a timed-out state), ``state`` a
        :class:`~sparklet.sql.streaming.state.GroupState` holding a tuple of
        ``stateStructType``'s fields. The state is checkpointed with the query.
        :class:`~sparklet.testing.GroupStateTester` unit-tests ``func``.

        Parameters
        ----------
        func : callable
            ``func(key, pdfs, state)`` yielding pandas DataFrames of
            ``outputStructType``.
        outputStructType : StructType or str
            The schema of what ``func`` yields.
        stateStructType : StructType or str
            The schema of the state.
        outputMode : str
            ``"append"`` or ``"update"``.
        timeoutConf : str
            A :class:`~sparklet.sql.streaming.state.GroupStateTimeout`:
            ``"NoTimeout"``, ``"ProcessingTimeTimeout"`` or ``"EventTimeTimeout"``.

        Returns
        -------
        DataFrame
            The rows ``func`` yields, of ``outputStructType``.

        Raises
        ------
        PySparkValueError
            ``INVALID_OUTPUT_MODE`` for another output mode.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.testing import MemoryStream
        >>> def running_count(key, pdfs, state):
        ...     n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
        ...     state.update((n,))
        ...     yield pd.DataFrame({"user": [key[0]], "events": [n]})
        >>> clicks = MemoryStream(spark, "user STRING")
        >>> counts = clicks.toDF().groupBy("user").applyInPandasWithState(
        ...     running_count, "user STRING, events LONG", "n LONG", "update", "NoTimeout")
        >>> q = counts.writeStream.outputMode("update").format("memory").queryName("doc_counts").start()
        >>> _ = clicks.addData([("ann",), ("bob",), ("ann",)])
        >>> q.processAllAvailable()
        >>> _ = clicks.addData([("ann",)])
        >>> q.processAllAvailable()
        >>> sorted(map(tuple, spark.table("doc_counts").collect()))
        [('ann', 2), ('ann', 3), ('bob', 1)]
        >>> q.stop()
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
        """Run a :class:`~sparklet.sql.streaming.StatefulProcessor` per key, its
        input and output as pandas DataFrames.

        The processor declares value, list and map state (optionally with a
        TTL) in ``init`` and gets each key's rows in ``handleInputRows``, as an
        iterator of DataFrames of at most
        ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows. With ``timeMode``
        ``"ProcessingTime"`` or ``"EventTime"`` it can register timers, handled
        in ``handleExpiredTimer``. On a batch DataFrame the rows go through the
        processor once, with no state kept.
        :class:`~sparklet.sql.streaming.TwsTester` unit-tests a processor.

        Parameters
        ----------
        statefulProcessor : StatefulProcessor
            The processor.
        outputStructType : StructType or str
            The schema of what it yields.
        outputMode : str
            ``"Append"``, ``"Update"`` or ``"Complete"``.
        timeMode : str
            ``"None"``, ``"ProcessingTime"`` or ``"EventTime"``.
        initialState : GroupedData, optional
            A batch DataFrame grouped by the same keys: seeds the state in the
            first batch, through ``handleInitialState``.
        eventTimeColumnName : str, optional
            In ``"EventTime"`` mode, the output's event-time column, which carries
            the watermark on to the operators after it.

        Returns
        -------
        DataFrame
            The rows the processor yields.

        Examples
        --------
        >>> import pandas as pd
        >>> from sparklet.sql.streaming import StatefulProcessor
        >>> class Total(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.total = handle.getValueState("total", "amount DOUBLE")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         total = (self.total.get() or (0.0,))[0] + sum(df["amount"].sum() for df in rows)
        ...         self.total.update((total,))
        ...         yield pd.DataFrame({"user": [key[0]], "total": [total]})
        >>> sales = spark.createDataFrame([("ann", 2.5), ("ann", 1.0), ("bob", 4.0)], "user STRING, amount DOUBLE")
        >>> totals = sales.groupBy("user").transformWithStateInPandas(
        ...     Total(), "user STRING, total DOUBLE", "Update", "None")
        >>> totals.orderBy("user").collect()
        [Row(user='ann', total=3.5), Row(user='bob', total=4.0)]
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
        """:meth:`transformWithStateInPandas` with Rows.

        ``handleInputRows`` gets an iterator of the key's
        :class:`~sparklet.sql.Row` objects and yields Rows;
        ``handleInitialState`` is called once per initial Row.

        Parameters
        ----------
        statefulProcessor : StatefulProcessor
            The processor.
        outputStructType : StructType or str
            The schema of what it yields.
        outputMode : str
            ``"Append"``, ``"Update"`` or ``"Complete"``.
        timeMode : str
            ``"None"``, ``"ProcessingTime"`` or ``"EventTime"``.
        initialState : GroupedData, optional
            A batch DataFrame grouped by the same keys, seeding the state.
        eventTimeColumnName : str, optional
            In ``"EventTime"`` mode, the output's event-time column.

        Returns
        -------
        DataFrame
            The rows the processor yields.

        Examples
        --------
        >>> from sparklet.sql.streaming import StatefulProcessor
        >>> class Count(StatefulProcessor):
        ...     def init(self, handle):
        ...         self.n = handle.getValueState("n", "n LONG")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.n.get() or (0,))[0] + sum(1 for _ in rows)
        ...         self.n.update((n,))
        ...         yield Row(user=key[0], events=n)
        >>> clicks = spark.createDataFrame([("ann",), ("ann",), ("bob",)], "user STRING")
        >>> counts = clicks.groupBy("user").transformWithState(Count(), "user STRING, events LONG", "Update", "None")
        >>> counts.orderBy("user").collect()
        [Row(user='ann', events=2), Row(user='bob', events=1)]
        """
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
        """The number of rows of each group, in a column ``count``.

        Returns
        -------
        DataFrame
            The grouping columns and ``count`` (a long).

        Examples
        --------
        >>> df = spark.createDataFrame([("a",), ("a",), ("b",)], "k STRING")
        >>> df.groupBy("k").count().orderBy("k").collect()
        [Row(k='a', count=2), Row(k='b', count=1)]
        """
        from sparklet.sql import functions as F

        return self.agg(F.count("*").alias("count"))

    def _simple(self, fn: str, cols: tuple[str, ...]) -> DataFrame:
        """``fn`` of ``cols`` (numeric columns; none given: all of them)."""
        from sparklet.sql import functions as F
        from sparklet.sql.types import NumericType

        numeric = [f.name for f in self._df.schema.fields if isinstance(f.dataType, NumericType)]
        for c in cols:
            if c not in numeric:
                raise AnalysisException(
                    f'[UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC] "{c}" is not a numeric column. '
                    "Aggregation function can only be applied on a numeric column.",
                    "UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC",
                )
        return self.agg(*[getattr(F, fn)(F.col(f"`{c}`")).alias(f"{fn}({c})") for c in (cols or numeric)])

    def sum(self, *cols: str) -> DataFrame:
        """The sum of numeric columns per group, named ``sum(col)``.

        Parameters
        ----------
        *cols : str
            The columns; none: every numeric column.

        Returns
        -------
        DataFrame
            The grouping columns and one sum per column.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC`` for a column that is not
            numeric.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1, 2.0), ("a", 3, 0.5)], "k STRING, n INT, x DOUBLE")
        >>> df.groupBy("k").sum().collect()
        [Row(k='a', sum(n)=4, sum(x)=2.5)]
        >>> df.groupBy("k").sum("n").collect()
        [Row(k='a', sum(n)=4)]
        """
        return self._simple("sum", cols)

    def avg(self, *cols: str) -> DataFrame:
        """The mean of numeric columns per group, named ``avg(col)`` (``mean`` is
        the same method).

        Parameters
        ----------
        *cols : str
            The columns; none: every numeric column.

        Returns
        -------
        DataFrame
            The grouping columns and one mean (a double) per column.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC`` for a column that is not
            numeric.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 4)], "k STRING, n INT")
        >>> df.groupBy("k").avg("n").collect()
        [Row(k='a', avg(n)=2.5)]
        """
        return self._simple("avg", cols)

    mean = avg

    def min(self, *cols: str) -> DataFrame:
        """The smallest value of numeric columns per group, named ``min(col)``.

        Parameters
        ----------
        *cols : str
            The columns; none: every numeric column.

        Returns
        -------
        DataFrame
            The grouping columns and one minimum per column.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC`` for a column that is not
            numeric.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 4)], "k STRING, n INT")
        >>> df.groupBy("k").min("n").collect()
        [Row(k='a', min(n)=1)]
        """
        return self._simple("min", cols)

    def max(self, *cols: str) -> DataFrame:
        """The largest value of numeric columns per group, named ``max(col)``.

        Parameters
        ----------
        *cols : str
            The columns; none: every numeric column.

        Returns
        -------
        DataFrame
            The grouping columns and one maximum per column.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC`` for a column that is not
            numeric.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 4)], "k STRING, n INT")
        >>> df.groupBy("k").max("n").collect()
        [Row(k='a', max(n)=4)]
        >>> df.groupBy("k").max("k")
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [UNSUPPORTED_FEATURE.DATATYPE_NOT_NUMERIC] "k" is not a numeric column. Aggregation function can only be applied on a numeric column.
        """
        return self._simple("max", cols)
