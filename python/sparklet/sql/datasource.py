"""Python data sources and sinks: PySpark's Python Data Source API.

A connector is a :class:`DataSource` subclass registered with
``spark.dataSource.register(MySource)``; ``spark.read.format(MySource.name())``
and ``spark.readStream.format(...)`` then read through its readers, and
``df.write.format(...)`` / ``df.writeStream.format(...)`` write through its
writers. The classes keep PySpark's names and signatures, so a source
written for PySpark runs unchanged once its imports say ``sparklet``.

How sparklet runs them (see ``docs/datasources.md``): in the same process,
on a pool of threads (``spark.sql.python.dataSource.workers``, default the
number of cores): partitions of one read run at once wherever the user's
code releases the GIL (I/O, pyarrow, numpy); rows yielded as
``pyarrow.RecordBatch`` reach the engine without a Python object per row.
"""

# PySpark's classes are ABCs whose hooks (commit, abort, stop...) are optional
# ruff: noqa: B024, B027

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import UserDict
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from sparklet.errors import PySparkNotImplementedError
from sparklet.sql.streaming.datasource import ReadAllAvailable, ReadLimit
from sparklet.sql.types import Row, StructType

if TYPE_CHECKING:
    from pyarrow import RecordBatch

    from sparklet.sql.session import SparkSession

__all__ = [
    "DataSource",
    "DataSourceReader",
    "DataSourceStreamReader",
    "DataSourceWriter",
    "DataSourceArrowWriter",
    "DataSourceStreamWriter",
    "DataSourceStreamArrowWriter",
    "SimpleDataSourceStreamReader",
    "DataSourceRegistration",
    "InputPartition",
    "WriterCommitMessage",
    "Filter",
    "EqualTo",
    "EqualNullSafe",
    "GreaterThan",
    "GreaterThanOrEqual",
    "LessThan",
    "LessThanOrEqual",
    "In",
    "IsNull",
    "IsNotNull",
    "Not",
    "StringStartsWith",
    "StringEndsWith",
    "StringContains",
]


def _not_implemented(cls: str, method: str) -> PySparkNotImplementedError:
    return PySparkNotImplementedError(
        f"[NOT_IMPLEMENTED] {method} is not implemented (in {cls}).",
        "NOT_IMPLEMENTED",
        {"feature": method},
    )


class DataSource(ABC):
    """A connector: its name, schema, and the readers and writers it makes.

    ``options`` are the reader's or writer's options, keys matched without
    regard to case (a :class:`CaseInsensitiveDict`); ``path`` is among
    them when ``load(path)`` / ``save(path)`` name one.
    """

    def __init__(self, options: MutableMapping[str, str]) -> None:
        self.options = options

    @classmethod
    def name(cls) -> str:
        """The format name it registers under (the class's name by default)."""
        return cls.__name__

    def schema(self) -> Union[StructType, str]:
        """The rows' schema (a ``StructType`` or a DDL string); asked only
        when the reader was given none."""
        raise _not_implemented(type(self).__name__, "schema")

    def reader(self, schema: StructType) -> "DataSourceReader":
        """A batch reader of rows of ``schema``."""
        raise _not_implemented(type(self).__name__, "reader")

    def writer(self, schema: StructType, overwrite: bool) -> "DataSourceWriter":
        """A batch writer of rows of ``schema`` (``overwrite``: save mode overwrite)."""
        raise _not_implemented(type(self).__name__, "writer")

    def streamWriter(self, schema: StructType, overwrite: bool) -> "DataSourceStreamWriter":
        """A streaming writer: one commit per micro-batch."""
        raise _not_implemented(type(self).__name__, "streamWriter")

    def simpleStreamReader(self, schema: StructType) -> "SimpleDataSourceStreamReader":
        """A streaming reader that reads each batch's rows itself (used when
        :meth:`streamReader` is not implemented)."""
        raise _not_implemented(type(self).__name__, "simpleStreamReader")

    def streamReader(self, schema: StructType) -> "DataSourceStreamReader":
        """A streaming reader planning each micro-batch as partitions."""
        raise _not_implemented(type(self).__name__, "streamReader")


class Filter(ABC):
    """A condition the query applies to the source's rows, offered to
    :meth:`DataSourceReader.pushFilters`. ``attribute`` is a column's path,
    a tuple of names (``("a", "b")`` for ``a.b``)."""


ColumnPath = tuple[str, ...]


@dataclass(frozen=True)
class EqualTo(Filter):
    """``attribute = value``."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class EqualNullSafe(Filter):
    """``attribute <=> value`` (null equals null)."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class GreaterThan(Filter):
    """``attribute > value``."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class GreaterThanOrEqual(Filter):
    """``attribute >= value``."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class LessThan(Filter):
    """``attribute < value``."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class LessThanOrEqual(Filter):
    """``attribute <= value``."""

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class In(Filter):
    """``attribute IN (value, ...)``."""

    attribute: ColumnPath
    value: tuple[Any, ...]


@dataclass(frozen=True)
class IsNull(Filter):
    """``attribute IS NULL``."""

    attribute: ColumnPath


@dataclass(frozen=True)
class IsNotNull(Filter):
    """``attribute IS NOT NULL``."""

    attribute: ColumnPath


@dataclass(frozen=True)
class Not(Filter):
    """The negation of ``child``."""

    child: Filter


@dataclass(frozen=True)
class StringStartsWith(Filter):
    """``attribute`` starts with the string ``value``."""

    attribute: ColumnPath
    value: str


@dataclass(frozen=True)
class StringEndsWith(Filter):
    """``attribute`` ends with the string ``value``."""

    attribute: ColumnPath
    value: str


@dataclass(frozen=True)
class StringContains(Filter):
    """``attribute`` contains the string ``value``."""

    attribute: ColumnPath
    value: str


class InputPartition:
    """One piece of a read, handed to ``read``; ``value`` is the user's."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), repr(self)))


class DataSourceReader(ABC):
    """A batch read: the partitions, and each partition's rows."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:
        """Take the filters the source applies itself; return (or yield)
        the others, which the query applies to the rows read. Called only
        when ``spark.sql.python.filterPushdown.enabled`` is true."""
        return filters

    def partitions(self) -> Sequence[InputPartition]:
        """The pieces of the read (one by default), each read apart."""
        raise _not_implemented(type(self).__name__, "partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Union[Iterator[tuple[Any, ...]], Iterator["RecordBatch"]]:
        """The rows of ``partition``: tuples, lists or :class:`Row` s, or
        ``pyarrow.RecordBatch`` es of the schema."""
        ...


class DataSourceStreamReader(ABC):
    """A streaming read: offsets (JSON-serialisable dicts) bound each
    micro-batch, which is planned as partitions and read like a batch."""

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts."""
        raise _not_implemented(type(self).__name__, "initialOffset")

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        """The end of the next micro-batch. Defined without parameters, the
        newest offset; with ``(start, limit)``, the end of at most
        ``limit`` data after ``start`` (admission control)."""
        raise _not_implemented(type(self).__name__, "latestOffset")

    def getDefaultReadLimit(self) -> ReadLimit:
        """The limit ``latestOffset`` gets in a normal trigger (no limit
        by default); sources map their own options (``maxRecordsPerTrigger``
        ...) to :class:`~sparklet.sql.streaming.datasource.ReadMaxRows` and
        its kin."""
        return ReadAllAvailable()

    def reportLatestOffset(self) -> dict[str, Any] | None:
        """The newest offset the source has (for progress), if it knows."""
        return None

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        """The pieces of the micro-batch ``(start, end]``."""
        raise _not_implemented(type(self).__name__, "partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Union[Iterator[tuple[Any, ...]], Iterator["RecordBatch"]]:
        """The rows of ``partition`` (as :meth:`DataSourceReader.read`)."""
        ...

    def commit(self, end: dict[str, Any]) -> None:
        """Everything up to ``end`` is processed: data before it can go."""

    def stop(self) -> None:
        """The query stopped: release what the reader holds."""


class SimpleDataSourceStreamReader(ABC):
    """A streaming read without partitions: ``read(start)`` returns the new
    rows and where they end. A micro-batch replayed after a restart is read
    again with :meth:`readBetweenOffsets`, which must give the same rows."""

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts."""
        raise _not_implemented(type(self).__name__, "initialOffset")

    def read(self, start: dict[str, Any]) -> tuple[Iterator[tuple[Any, ...]], dict[str, Any]]:
        """The rows after ``start``, and the offset after them."""
        raise _not_implemented(type(self).__name__, "read")

    def readBetweenOffsets(self, start: dict[str, Any], end: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
        """The rows in ``(start, end]`` again, deterministically."""
        raise _not_implemented(type(self).__name__, "readBetweenOffsets")

    def commit(self, end: dict[str, Any]) -> None:
        """Everything up to ``end`` is processed."""


class DataSourceWriter(ABC):
    """A batch write: ``write`` runs once per partition of the DataFrame,
    then ``commit`` gets every partition's message (or ``abort``, when a
    partition failed)."""

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> "WriterCommitMessage":
        """Write one partition's rows; what it returns goes to ``commit``."""
        ...

    def commit(self, messages: list["WriterCommitMessage | None"]) -> None:
        """Every partition was written: make the write visible."""

    def abort(self, messages: list["WriterCommitMessage | None"]) -> None:
        """A partition failed: undo what the others wrote (a failed
        partition's message is None)."""


class DataSourceArrowWriter(DataSourceWriter):
    """A batch writer given ``pyarrow.RecordBatch`` es, not rows."""

    @abstractmethod
    def write(self, iterator: Iterator["RecordBatch"]) -> "WriterCommitMessage":
        """Write one partition's record batches."""
        ...


class DataSourceStreamWriter(ABC):
    """A streaming write: each micro-batch's partitions are written, then
    committed (or aborted) with the batch's id."""

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> "WriterCommitMessage":
        """Write one partition's rows of the current micro-batch."""
        ...

    def commit(self, messages: list["WriterCommitMessage | None"], batchId: int) -> None:
        """Micro-batch ``batchId`` was written: make it visible."""

    def abort(self, messages: list["WriterCommitMessage | None"], batchId: int) -> None:
        """Micro-batch ``batchId`` failed: undo what its partitions wrote."""


class DataSourceStreamArrowWriter(DataSourceStreamWriter):
    """A streaming writer given ``pyarrow.RecordBatch`` es, not rows."""

    @abstractmethod
    def write(self, iterator: Iterator["RecordBatch"]) -> "WriterCommitMessage":
        """Write one partition's record batches of the current micro-batch."""
        ...


@dataclass
class WriterCommitMessage:
    """What a partition's ``write`` tells ``commit``/``abort`` (subclass it
    to carry more)."""


class CaseInsensitiveDict(UserDict[str, Any]):
    """Options: keys matched without regard to case, kept lower-cased."""

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def copy(self) -> "CaseInsensitiveDict":
        """A copy with the same options."""
        return CaseInsensitiveDict(self.data)


class DataSourceRegistration:
    """``spark.dataSource``: registers :class:`DataSource` classes by name."""

    def __init__(self, sparkSession: "SparkSession") -> None:
        self.sparkSession = sparkSession

    def register(self, dataSource: type[DataSource]) -> None:
        """Make ``dataSource`` readable and writable as
        ``format(dataSource.name())`` in this session (a later registration
        of the same name replaces it)."""
        from sparklet.sql import _datasource_run

        _datasource_run.register(self.sparkSession, dataSource)
