"""How sparklet runs Python data sources (``sparklet.sql.datasource``): the
session's registry, rows to Arrow checked against the schema, the batch
read the engine plans at each action, the adapter the engine drives as a
streaming source, and the batch and streaming writes.

The engine calls in with offsets as JSON texts (what it keeps in the
offsets log, as Spark keeps a Python source's) and gets Arrow back; the
user's readers run here, their partitions on a pool of threads."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparklet import _native
from sparklet.errors import (
    AnalysisException,
    PySparkAssertionError,
    PySparkNotImplementedError,
    PySparkRuntimeError,
    PySparkTypeError,
)
from sparklet.sql._convert import _to_arrow_value
from sparklet.sql.datasource import (
    CaseInsensitiveDict,
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringContains,
    StringEndsWith,
    StringStartsWith,
)
from sparklet.sql.streaming.datasource import ReadAllAvailable, SupportsTriggerAvailableNow
from sparklet.sql.types import ArrayType, MapType, Row, StructType, to_struct_type

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

#: How many partitions of one read run at once (default: the cores).
WORKERS = "spark.sparklet.pythonDataSource.workers"
#: PySpark's switch for ``DataSourceReader.pushFilters``.
PUSHDOWN = "spark.sql.python.filterPushdown.enabled"
#: Rows per Arrow batch when a reader yields rows.
BATCH_ROWS = 10_000


# ---- the registry -------------------------------------------------------------------------


def register(spark: "SparkSession", source: type[DataSource]) -> None:
    """``spark.dataSource.register(source)``."""
    if not (isinstance(source, type) and issubclass(source, DataSource)):
        raise PySparkTypeError(
            f"[INVALID_TYPE] Argument `dataSource` should be a subclass of DataSource, got {source!r}.",
            "INVALID_TYPE",
        )
    _registry(spark)[source.name().lower()] = source


def lookup(spark: "SparkSession", fmt: str | None) -> type[DataSource] | None:
    """The registered source named ``fmt`` (any case), if there is one."""
    return _registry(spark).get(fmt.lower()) if fmt else None


def _registry(spark: "SparkSession") -> dict[str, type[DataSource]]:
    found: dict[str, type[DataSource]] | None = getattr(spark, "_data_sources", None)
    if found is None:
        found = spark._data_sources = {}  # type: ignore[attr-defined]
    return found


def _instance(source: type[DataSource], options: dict[str, Any], path: str | None = None) -> DataSource:
    """The source made with Spark's options: text values, keys in any case."""
    given = CaseInsensitiveDict({k: str(v) for k, v in options.items()})
    if path is not None:
        given["path"] = path
    return source(given)


def _schema(source: DataSource, given: StructType | None) -> StructType:
    """The user's schema, or the source's own (a StructType or DDL text)."""
    if given is not None:
        return given
    declared = source.schema()
    if isinstance(declared, (str, StructType)):
        return to_struct_type(declared)
    raise PySparkTypeError(
        f"[DATA_SOURCE_INVALID_RETURN_TYPE] The schema of data source '{source.name()}' must be a "
        f"StructType or a DDL string, got {type(declared).__name__}.",
        "DATA_SOURCE_INVALID_RETURN_TYPE",
    )


def _workers(spark: "SparkSession") -> int:
    value = spark.conf.get(WORKERS, None)
    return max(1, int(value)) if value else (os.cpu_count() or 1)


# ---- rows to Arrow ------------------------------------------------------------------------


def to_batches(items: Iterable[Any], schema: StructType, source: str) -> Iterator[pa.RecordBatch]:
    """What a ``read`` yields, as Arrow batches of ``schema``: its
    ``pyarrow.RecordBatch`` es as they are (checked), or its rows (tuples,
    lists, Rows) gathered ``BATCH_ROWS`` at a time."""
    target = schema._to_arrow_schema()
    it = iter(items)
    first = next(it, None)
    if first is None:
        return
    if isinstance(first, pa.RecordBatch):
        for batch in chain([first], it):
            yield _checked_batch(batch, target, source)
        return
    seen = 0
    rows = chain([first], it)
    while chunk := list(islice(rows, BATCH_ROWS)):
        yield _rows_batch(chunk, schema, target, source, seen)
        seen += len(chunk)


def _mismatch(source: str, what: str) -> PySparkRuntimeError:
    return PySparkRuntimeError(
        f"[DATA_SOURCE_RETURN_SCHEMA_MISMATCH] Data source '{source}' returned rows that do not match "
        f"its schema: {what}",
        "DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
    )


def _checked_batch(batch: Any, target: pa.Schema, source: str) -> pa.RecordBatch:
    if not isinstance(batch, pa.RecordBatch):
        raise _mismatch(source, f"a pyarrow.RecordBatch was followed by a {type(batch).__name__}.")
    if batch.schema.names != target.names:
        raise _mismatch(source, f"the record batch's columns are {batch.schema.names}, expected {target.names}.")
    if batch.schema.equals(target):
        return batch
    for field, column in zip(target, batch.columns):
        if column.type != field.type:
            try:
                column.cast(field.type, safe=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise _mismatch(
                    source, f"column `{field.name}` is {column.type} in the record batch, expected {field.type}: {e}"
                ) from e
    # same columns, types that convert without loss
    return pa.RecordBatch.from_arrays([c.cast(f.type) for f, c in zip(target, batch.columns)], schema=target)


def _rows_batch(rows: list[Any], schema: StructType, target: pa.Schema, source: str, seen: int) -> pa.RecordBatch:
    names = schema.names
    width = len(names)
    columns: list[Any]
    if all(type(row) is tuple and len(row) == width for row in rows):
        # the common case, plain tuples: one transpose, no per-row work
        columns = list(zip(*rows))
    else:
        columns = [[] for _ in names]
        for i, row in enumerate(rows):
            for column, v in zip(columns, _row_values(row, names, source, seen + i)):
                column.append(v)
    arrays = []
    for field, arrow_field, values in zip(schema.fields, target, columns):
        try:
            arrays.append(_column(values, field.dataType, arrow_field.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            raise _bad_value(rows, names.index(field.name), field, arrow_field, source, seen) from None
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def _row_values(row: Any, names: list[str], source: str, index: int) -> list[Any]:
    """A row's values in the schema's order (a Row's by name), checked."""
    if not isinstance(row, (tuple, list)):
        raise PySparkRuntimeError(
            f"[DATA_SOURCE_INVALID_RETURN_TYPE] Data source '{source}' returned row {index} of type "
            f"{type(row).__name__}: {row!r}; a read yields tuples, lists, Rows or pyarrow.RecordBatches.",
            "DATA_SOURCE_INVALID_RETURN_TYPE",
        )
    if isinstance(row, Row) and row.__fields__:
        if set(row.__fields__) != set(names):
            raise _mismatch(source, f"row {index} {row!r} has fields {list(row.__fields__)}, expected {names}.")
        return [row[n] for n in names]
    if len(row) != len(names):
        raise _mismatch(source, f"row {index} {row!r} has {len(row)} values, expected {len(names)}.")
    return list(row)


def _column(values: Sequence[Any], data_type: Any, arrow_type: pa.DataType) -> pa.Array:
    """A column's values as Arrow: as they are where pyarrow takes them,
    else each converted as ``createDataFrame`` converts (structs from Rows,
    maps from dicts, text from other values)."""
    if not isinstance(data_type, (StructType, MapType, ArrayType)):
        try:
            return pa.array(values, type=arrow_type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            pass
    return pa.array([_to_arrow_value(v, data_type) for v in values], type=arrow_type)


def _bad_value(rows: list[Any], col: int, field: Any, arrow_field: pa.Field, source: str, seen: int) -> Exception:
    """The error naming the first row whose value does not fit the column."""
    for i, row in enumerate(rows):
        value = row[field.name] if isinstance(row, Row) and row.__fields__ else list(row)[col]
        try:
            pa.array([_to_arrow_value(value, field.dataType)], type=arrow_field.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as e:
            return _mismatch(
                source,
                f"column `{field.name}` ({field.dataType.simpleString()}) cannot hold {value!r} "
                f"({type(value).__name__}) in row {seen + i} {row!r}: {e}",
            )
    return _mismatch(source, f"column `{field.name}` cannot hold the values given.")


def _read_partitions(
    read: Callable[[Any], Iterable[Any]], partitions: list[Any], schema: StructType, source: str, workers: int
) -> Iterator[pa.RecordBatch]:
    """Every partition's batches, partitions in order; several read at once
    (on threads) when there are several."""

    def one(partition: Any) -> list[pa.RecordBatch]:
        return list(to_batches(read(partition), schema, source))

    if len(partitions) <= 1 or workers <= 1:
        for p in partitions:
            yield from to_batches(read(p), schema, source)
        return
    with ThreadPoolExecutor(max_workers=min(workers, len(partitions)), thread_name_prefix="datasource") as pool:
        for batches in pool.map(one, partitions):
            yield from batches


# ---- batch reads ------------------------------------------------------------------------


_FILTERS: dict[str, Callable[..., Filter]] = {
    "EqualTo": EqualTo,
    "EqualNullSafe": EqualNullSafe,
    "GreaterThan": GreaterThan,
    "GreaterThanOrEqual": GreaterThanOrEqual,
    "LessThan": LessThan,
    "LessThanOrEqual": LessThanOrEqual,
    "In": lambda attribute, values: In(attribute, tuple(values)),
    "IsNull": IsNull,
    "IsNotNull": IsNotNull,
    "StringStartsWith": StringStartsWith,
    "StringEndsWith": StringEndsWith,
    "StringContains": StringContains,
}


def _filter(spec: tuple[Any, ...]) -> Filter:
    """A filter from the engine's ``(kind, column path, value...)``."""
    kind, *args = spec
    if kind == "Not":
        return Not(_filter(args[0]))
    return _FILTERS[kind](tuple(args[0]), *args[1:])


class BatchRead:
    """``spark.read.format(name).load()`` of a Python source: the engine
    calls :meth:`plan` with the query's filters each time it plans a scan,
    then reads the planned partitions' batches."""

    def __init__(self, spark: "SparkSession", source: DataSource, schema: StructType) -> None:
        self._spark = spark
        self._source = source
        self.schema = schema

    def plan(self, filters: list[tuple[Any, ...]]) -> "PlannedRead":
        """Make the reader, offer it ``filters`` (when pushdown is on), and
        list its partitions."""
        reader = self._source.reader(self.schema)
        if not isinstance(reader, DataSourceReader):
            raise PySparkAssertionError(
                f"[DATA_SOURCE_TYPE_MISMATCH] Expected an instance of DataSourceReader, got '{type(reader).__name__}'.",
                "DATA_SOURCE_TYPE_MISMATCH",
            )
        own_pushdown = getattr(type(reader).pushFilters, "__code__", None) is not DataSourceReader.pushFilters.__code__
        if own_pushdown:
            if (self._spark.conf.get(PUSHDOWN, "false") or "").lower() != "true":
                raise PySparkAssertionError(
                    f"[DATA_SOURCE_PUSHDOWN_DISABLED] {type(reader).__name__} implements pushFilters, but filter "
                    f"pushdown is disabled: set the configuration `{PUSHDOWN}` to true.",
                    "DATA_SOURCE_PUSHDOWN_DISABLED",
                )
            offered = [_filter(f) for f in filters]
            kept = list(reader.pushFilters(offered))
            extra = [f for f in kept if f not in offered]
            if extra:
                raise PySparkRuntimeError(
                    f"[DATA_SOURCE_EXTRANEOUS_FILTERS] {type(reader).__name__}.pushFilters returned filters "
                    f"it was not given: {extra}.",
                    "DATA_SOURCE_EXTRANEOUS_FILTERS",
                )
        partitions: list[Any]
        try:
            partitions = list(reader.partitions())
        except NotImplementedError:
            partitions = [None]
        return PlannedRead(reader, partitions, self.schema, self._source.name(), _workers(self._spark))


class PlannedRead:
    """The partitions of one planned scan."""

    def __init__(self, reader: Any, partitions: list[Any], schema: StructType, source: str, workers: int) -> None:
        self._reader = reader
        self._partitions = partitions
        self._schema = schema
        self._source = source
        self._workers = workers

    def batches(self) -> Iterator[pa.RecordBatch]:
        """The rows of every partition, as Arrow batches."""
        return _read_partitions(self._reader.read, self._partitions, self._schema, self._source, self._workers)


def read(
    spark: "SparkSession",
    source: type[DataSource],
    schema: StructType | None,
    options: dict[str, Any],
    path: str | None,
) -> "DataFrame":
    """The DataFrame of a batch read (rows read when an action runs)."""
    from sparklet.sql.dataframe import DataFrame

    instance = _instance(source, options, path)
    planner = BatchRead(spark, instance, _schema(instance, schema))
    native = _native.read_python_source(spark._native, planner.schema._to_arrow_schema(), planner)
    return DataFrame(native, spark)


# ---- streaming reads -----------------------------------------------------------------------


def _dumps(offset: Any, method: str, source: str) -> str:
    try:
        return json.dumps(offset)
    except (TypeError, ValueError) as e:
        raise PySparkTypeError(
            f"[DATA_SOURCE_INVALID_OFFSET] {method} of data source '{source}' returned an offset that is not "
            f"JSON-serialisable: {offset!r} ({e}).",
            "DATA_SOURCE_INVALID_OFFSET",
        ) from e


def _same(a: str, b: str) -> bool:
    """Whether two JSON texts are the same offset (the engine's texts are
    compact, with keys in its own order)."""
    return bool(json.loads(a) == json.loads(b))


class StreamRead:
    """The engine's side of a streaming read: one per running query.
    Offsets cross as JSON texts; ``None`` for a start means the reader's
    initial offset."""

    def __init__(self, spark: "SparkSession", source: DataSource, schema: StructType) -> None:
        self._name = source.name()
        self._schema = schema
        self._workers = _workers(spark)
        try:
            self._reader: Any = source.streamReader(schema)
            self._simple: Any = None
        except (PySparkNotImplementedError, NotImplementedError):
            self._reader = None
            self._simple = source.simpleStreamReader(schema)
        # a simple reader's rows read while finding the latest offset: (start, end, batches)
        self._prefetched: list[tuple[str, str, list[pa.RecordBatch]]] = []
        self._all = False  # Trigger.Once: every limit lifted
        self._target: str | None = None  # availableNow: where the run stops

    @property
    def _user(self) -> Any:
        return self._reader if self._reader is not None else self._simple

    def description(self) -> str:
        """The source in progress reports."""
        return f"{type(self._user).__name__}[{self._name}]"

    def initial(self) -> str:
        """``initialOffset()``, as JSON."""
        return _dumps(self._user.initialOffset(), "initialOffset", self._name)

    def _admission_control(self) -> bool:
        return self._simple is not None or len(inspect.signature(self._reader.latestOffset).parameters) > 0

    def latest(self, start: str | None) -> str:
        """The next batch's end after ``start`` (JSON)."""
        start = start if start is not None else self.initial()
        if self._target is not None:
            return self._target
        if self._simple is not None:
            rows, end = self._simple.read(json.loads(start))
            end_text = _dumps(end, "read", self._name)
            batches = list(to_batches(rows, self._schema, self._name))
            if _same(end_text, start):
                if any(b.num_rows for b in batches):
                    raise PySparkRuntimeError(
                        f"[SIMPLE_STREAM_READER_OFFSET_DID_NOT_ADVANCE] {type(self._simple).__name__}.read "
                        f"returned rows but its end offset {end_text} is its start {start}.",
                        "SIMPLE_STREAM_READER_OFFSET_DID_NOT_ADVANCE",
                    )
            else:
                self._prefetched.append((start, end_text, batches))
            return end_text
        if self._admission_control():
            limit = ReadAllAvailable() if self._all else self._reader.getDefaultReadLimit()
            end = self._reader.latestOffset(json.loads(start), limit)
        else:
            end = self._reader.latestOffset()
        return _dumps(end, "latestOffset", self._name)

    def prepare_available_now(self, start: str | None) -> None:
        """``availableNow`` starts: the reader notes its newest offset, or
        (one that cannot) the run is capped at the latest offset now."""
        if isinstance(self._user, SupportsTriggerAvailableNow):
            self._user.prepareForTriggerAvailableNow()
            return
        self._all = True
        self._target = self.latest(start)

    def ignore_limits(self) -> None:
        """``Trigger.Once``: one batch of everything."""
        self._all = True

    def batch(self, start: str | None, end: str) -> pa.Table:
        """The rows in ``(start, end]``: planned and read by the reader, or
        (a simple reader) prefetched by :meth:`latest`, or read again."""
        start = start if start is not None else self.initial()
        target = self._schema._to_arrow_schema()
        if self._simple is not None:
            cached = self._cached(start, end)
            if cached is None:
                rows = self._simple.readBetweenOffsets(json.loads(start), json.loads(end))
                cached = list(to_batches(rows, self._schema, self._name))
            return pa.Table.from_batches(cached, schema=target)
        partitions = list(self._reader.partitions(json.loads(start), json.loads(end)))
        batches = _read_partitions(self._reader.read, partitions, self._schema, self._name, self._workers)
        return pa.Table.from_batches(list(batches), schema=target)

    def _cached(self, start: str, end: str) -> list[pa.RecordBatch] | None:
        starts = [i for i, (s, _, _) in enumerate(self._prefetched) if _same(s, start)]
        ends = [i for i, (_, e, _) in enumerate(self._prefetched) if _same(e, end)]
        if not starts or not ends or starts[0] > ends[0]:
            return None
        return [b for _, _, batches in self._prefetched[starts[0] : ends[0] + 1] for b in batches]

    def commit(self, end: str) -> None:
        """Everything up to ``end`` is processed."""
        done = [i for i, (_, e, _) in enumerate(self._prefetched) if _same(e, end)]
        if done:
            del self._prefetched[: done[0] + 1]
        self._user.commit(json.loads(end))

    def stop(self) -> None:
        """The query stopped."""
        if self._reader is not None:
            self._reader.stop()


def read_stream(
    spark: "SparkSession", source: type[DataSource], schema: StructType | None, options: dict[str, Any]
) -> "DataFrame":
    """The streaming DataFrame of ``readStream.format(name).load()``."""
    from sparklet.sql.dataframe import DataFrame

    instance = _instance(source, options)
    resolved = _schema(instance, schema)

    def start() -> StreamRead:
        # each query gets its own reader, from a source made afresh
        return StreamRead(spark, _instance(source, options), resolved)

    native = _native.read_stream_python_source(spark._native, resolved._to_arrow_schema(), start)
    return DataFrame(native, spark)


# ---- writes -------------------------------------------------------------------------------------


def _write_partitions(
    writer: Any, parts: list[pa.Table], arrow: bool, workers: int
) -> tuple[list[Any], Exception | None]:
    """Each partition through ``writer.write``: the messages (None for a
    failed partition) and the first failure."""

    def one(table: pa.Table) -> Any:
        if arrow:
            return writer.write(iter(table.to_batches()))
        from sparklet.sql._convert import table_to_rows

        return writer.write(iter(table_to_rows(table)))

    messages: list[Any] = []
    failure: Exception | None = None
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(parts))), thread_name_prefix="datasource") as pool:
        futures = [pool.submit(one, p) for p in parts]
        for f in futures:
            try:
                messages.append(f.result())
            except Exception as e:  # noqa: BLE001 - the write is aborted, then this raised
                messages.append(None)
                failure = failure or e
    return messages, failure


def write(df: "DataFrame", source: type[DataSource], mode: str, options: dict[str, Any], path: str | None) -> None:
    """``df.write.format(name).mode(mode).save()``: every partition written,
    then one commit; an abort (and the error) when a partition fails."""
    mode = (mode or "append").lower()
    if mode not in ("append", "overwrite"):
        raise AnalysisException(
            f"[UNSUPPORTED_DATA_SOURCE_SAVE_MODE] The data source '{source.name()}' cannot be written in the "
            f'{mode} mode. Please use either the "Append" or "Overwrite" mode instead.',
            "UNSUPPORTED_DATA_SOURCE_SAVE_MODE",
        )
    spark = df.sparkSession
    writer = _instance(source, options, path).writer(df.schema, mode == "overwrite")
    parts = list(df._native.collect_partitions())
    messages, failure = _write_partitions(writer, parts, isinstance(writer, DataSourceArrowWriter), _workers(spark))
    if failure is not None:
        writer.abort(messages)
        raise failure
    writer.commit(messages)


def stream_writer(
    df: "DataFrame", source: type[DataSource], mode: str, options: dict[str, Any]
) -> Callable[[pa.Table, int], None]:
    """The per-batch function of ``writeStream.format(name)``: the batch's
    rows written, then ``commit(messages, batch_id)``, or ``abort`` and the
    error (the batch then fails the query, and is not committed)."""
    spark = df.sparkSession
    writer = _instance(source, options).streamWriter(df.schema, (mode or "append").lower() == "complete")
    arrow = isinstance(writer, DataSourceStreamArrowWriter)
    workers = _workers(spark)

    def each_batch(table: pa.Table, batch_id: int) -> None:
        messages, failure = _write_partitions(writer, [table], arrow, workers)
        if failure is not None:
            writer.abort(messages, batch_id)
            raise failure
        writer.commit(messages, batch_id)

    each_batch.__name__ = f"{source.name()}.streamWriter"
    return each_batch
