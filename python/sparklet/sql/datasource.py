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

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
    >>> class NumbersReader(DataSourceReader):
    ...     def __init__(self, options):
    ...         self.count = int(options.get("count", 4))
    ...     def partitions(self):
    ...         return [InputPartition(0), InputPartition(1)]
    ...     def read(self, partition):
    ...         for i in range(partition.value, self.count, 2):
    ...             yield (i,)
    >>> class Numbers(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "numbers"
    ...     def schema(self):
    ...         return "n INT"
    ...     def reader(self, schema):
    ...         return NumbersReader(self.options)
    >>> spark.dataSource.register(Numbers)
    >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
    +---+
    |  n|
    +---+
    |  0|
    |  1|
    |  2|
    |  3|
    |  4|
    +---+
    <BLANKLINE>
    """

    def __init__(self, options: MutableMapping[str, str]) -> None:
        self.options = options

    @classmethod
    def name(cls) -> str:
        """The format name it registers under (the class's name by default).

        Returns
        -------
        str
            the name ``format(...)`` takes

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        return cls.__name__

    def schema(self) -> Union[StructType, str]:
        """The rows' schema (a ``StructType`` or a DDL string); asked only
        when the reader was given none.

        Returns
        -------
        StructType or str
            the schema, or a DDL string such as ``"n INT"``

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "schema")

    def reader(self, schema: StructType) -> "DataSourceReader":
        """A batch reader of rows of ``schema``.

        Parameters
        ----------
        schema : StructType
            the schema the read uses (the user's, or :meth:`schema`'s)

        Returns
        -------
        DataSourceReader
            the reader

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "reader")

    def writer(self, schema: StructType, overwrite: bool) -> "DataSourceWriter":
        """A batch writer of rows of ``schema`` (``overwrite``: save mode overwrite).

        Parameters
        ----------
        schema : StructType
            the rows' schema
        overwrite : bool
            whether the save mode is overwrite

        Returns
        -------
        DataSourceWriter
            the writer

        Examples
        --------
        >>> import json
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class CountWriter(DataSourceWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages):
        ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
        ...     def abort(self, messages):
        ...         Path(self.path).unlink(missing_ok=True)
        >>> class RowCount(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "rowcount"
        ...     def writer(self, schema, overwrite):
        ...         return CountWriter(self.options["path"])
        >>> spark.dataSource.register(RowCount)
        >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
        >>> Path("count.json").read_text()
        '{"rows": 7}'
        """
        raise _not_implemented(type(self).__name__, "writer")

    def streamWriter(self, schema: StructType, overwrite: bool) -> "DataSourceStreamWriter":
        r"""A streaming writer: one commit per micro-batch.

        Parameters
        ----------
        schema : StructType
            the rows' schema
        overwrite : bool
            whether the output mode is complete

        Returns
        -------
        DataSourceStreamWriter
            the writer

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamWriter, WriterCommitMessage
        >>> from sparklet.testing import MemoryStream
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class BatchLog(DataSourceStreamWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages, batchId):
        ...         with open(self.path, "a") as log:
        ...             _ = log.write(f"batch {batchId}: {sum(m.rows for m in messages)} rows\n")
        ...     def abort(self, messages, batchId):
        ...         pass
        >>> class BatchLogSink(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "batchlog"
        ...     def streamWriter(self, schema, overwrite):
        ...         return BatchLog(self.options["path"])
        >>> spark.dataSource.register(BatchLogSink)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = (stream.toDF().writeStream.format("batchlog").option("path", "batches_dsw.log")
        ...      .option("checkpointLocation", "ckpt_dsw").start())
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> print(Path("batches_dsw.log").read_text(), end="")
        batch 0: 2 rows
        """
        raise _not_implemented(type(self).__name__, "streamWriter")

    def simpleStreamReader(self, schema: StructType) -> "SimpleDataSourceStreamReader":
        """A streaming reader that reads each batch's rows itself (used when
        :meth:`streamReader` is not implemented).

        Parameters
        ----------
        schema : StructType
            the rows' schema

        Returns
        -------
        SimpleDataSourceStreamReader
            the reader

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
        >>> class WordsReader(SimpleDataSourceStreamReader):
        ...     WORDS = ["spark", "streams", "words"]
        ...     def initialOffset(self):
        ...         return {"at": 0}
        ...     def read(self, start):
        ...         end = len(self.WORDS)
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
        ...     def readBetweenOffsets(self, start, end):
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
        ...     def commit(self, end):
        ...         pass
        >>> class Words(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "words"
        ...     def schema(self):
        ...         return "word STRING"
        ...     def simpleStreamReader(self, schema):
        ...         return WordsReader()
        >>> spark.dataSource.register(Words)
        >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
        ...      .queryName("words_ds_simple").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("words_ds_simple").orderBy("word").show()
        +-------+
        |   word|
        +-------+
        |  spark|
        |streams|
        |  words|
        +-------+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "simpleStreamReader")

    def streamReader(self, schema: StructType) -> "DataSourceStreamReader":
        """A streaming reader planning each micro-batch as partitions.

        Parameters
        ----------
        schema : StructType
            the rows' schema

        Returns
        -------
        DataSourceStreamReader
            the reader

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_ds_stream").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_ds_stream").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "streamReader")


class Filter(ABC):
    """A condition the query applies to the source's rows, offered to
    :meth:`DataSourceReader.pushFilters`. ``attribute`` is a column's path,
    a tuple of names (``("a", "b")`` for ``a.b``).

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceReader, EqualTo
    >>> class KeyedReader(DataSourceReader):
    ...     def __init__(self):
    ...         self.only = None
    ...     def pushFilters(self, filters):
    ...         for f in filters:
    ...             if isinstance(f, EqualTo) and f.attribute == ("k",):
    ...                 self.only = f.value  # applied by the source
    ...             else:
    ...                 yield f  # left to the query
    ...     def read(self, partition):
    ...         for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    ...             if self.only is None or k == self.only:
    ...                 yield (k, v)
    >>> class Keyed(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "keyed"
    ...     def schema(self):
    ...         return "k STRING, v INT"
    ...     def reader(self, schema):
    ...         return KeyedReader()
    >>> spark.dataSource.register(Keyed)
    >>> spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")  # off by default, as in Spark
    >>> spark.read.format("keyed").load().filter("k = 'a'").orderBy("v").show()
    +---+---+
    |  k|  v|
    +---+---+
    |  a|  1|
    |  a|  3|
    +---+---+
    <BLANKLINE>
    >>> spark.conf.unset("spark.sql.python.filterPushdown.enabled")
    """


ColumnPath = tuple[str, ...]


@dataclass(frozen=True)
class EqualTo(Filter):
    """``attribute = value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import EqualTo
    >>> f = EqualTo(("k",), "a")
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class EqualNullSafe(Filter):
    """``attribute <=> value`` (null equals null).

    Examples
    --------
    >>> from sparklet.sql.datasource import EqualNullSafe
    >>> f = EqualNullSafe(("k",), None)
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class GreaterThan(Filter):
    """``attribute > value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import GreaterThan
    >>> f = GreaterThan(("v",), 1)
    >>> f.attribute
    ('v',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class GreaterThanOrEqual(Filter):
    """``attribute >= value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import GreaterThanOrEqual
    >>> f = GreaterThanOrEqual(("v",), 1)
    >>> f.attribute
    ('v',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class LessThan(Filter):
    """``attribute < value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import LessThan
    >>> f = LessThan(("v",), 9)
    >>> f.attribute
    ('v',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class LessThanOrEqual(Filter):
    """``attribute <= value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import LessThanOrEqual
    >>> f = LessThanOrEqual(("v",), 9)
    >>> f.attribute
    ('v',)
    """

    attribute: ColumnPath
    value: Any


@dataclass(frozen=True)
class In(Filter):
    """``attribute IN (value, ...)``.

    Examples
    --------
    >>> from sparklet.sql.datasource import In
    >>> f = In(("k",), ("a", "b"))
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: tuple[Any, ...]


@dataclass(frozen=True)
class IsNull(Filter):
    """``attribute IS NULL``.

    Examples
    --------
    >>> from sparklet.sql.datasource import IsNull
    >>> f = IsNull(("k",))
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath


@dataclass(frozen=True)
class IsNotNull(Filter):
    """``attribute IS NOT NULL``.

    Examples
    --------
    >>> from sparklet.sql.datasource import IsNotNull
    >>> f = IsNotNull(("k",))
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath


@dataclass(frozen=True)
class Not(Filter):
    """The negation of ``child``.

    Examples
    --------
    >>> from sparklet.sql.datasource import Not, IsNull
    >>> Not(IsNull(("k",))).child.attribute
    ('k',)
    """

    child: Filter


@dataclass(frozen=True)
class StringStartsWith(Filter):
    """``attribute`` starts with the string ``value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import StringStartsWith
    >>> f = StringStartsWith(("k",), "sp")
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: str


@dataclass(frozen=True)
class StringEndsWith(Filter):
    """``attribute`` ends with the string ``value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import StringEndsWith
    >>> f = StringEndsWith(("k",), "rk")
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: str


@dataclass(frozen=True)
class StringContains(Filter):
    """``attribute`` contains the string ``value``.

    Examples
    --------
    >>> from sparklet.sql.datasource import StringContains
    >>> f = StringContains(("k",), "par")
    >>> f.attribute
    ('k',)
    """

    attribute: ColumnPath
    value: str


class InputPartition:
    """One piece of a read, handed to ``read``; ``value`` is the user's.

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
    >>> class NumbersReader(DataSourceReader):
    ...     def __init__(self, options):
    ...         self.count = int(options.get("count", 4))
    ...     def partitions(self):
    ...         return [InputPartition(0), InputPartition(1)]
    ...     def read(self, partition):
    ...         for i in range(partition.value, self.count, 2):
    ...             yield (i,)
    >>> class Numbers(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "numbers"
    ...     def schema(self):
    ...         return "n INT"
    ...     def reader(self, schema):
    ...         return NumbersReader(self.options)
    >>> spark.dataSource.register(Numbers)
    >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
    +---+
    |  n|
    +---+
    |  0|
    |  1|
    |  2|
    |  3|
    |  4|
    +---+
    <BLANKLINE>
    """

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
    """A batch read: the partitions, and each partition's rows.

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
    >>> class NumbersReader(DataSourceReader):
    ...     def __init__(self, options):
    ...         self.count = int(options.get("count", 4))
    ...     def partitions(self):
    ...         return [InputPartition(0), InputPartition(1)]
    ...     def read(self, partition):
    ...         for i in range(partition.value, self.count, 2):
    ...             yield (i,)
    >>> class Numbers(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "numbers"
    ...     def schema(self):
    ...         return "n INT"
    ...     def reader(self, schema):
    ...         return NumbersReader(self.options)
    >>> spark.dataSource.register(Numbers)
    >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
    +---+
    |  n|
    +---+
    |  0|
    |  1|
    |  2|
    |  3|
    |  4|
    +---+
    <BLANKLINE>
    """

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:
        """Take the filters the source applies itself; return (or yield)
        the others, which the query applies to the rows read. Called only
        when ``spark.sql.python.filterPushdown.enabled`` is true.

        Parameters
        ----------
        filters : list of Filter
            the query's conditions on the source's columns

        Returns
        -------
        iterable of Filter
            the filters the source does not apply

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, EqualTo
        >>> class KeyedReader(DataSourceReader):
        ...     def __init__(self):
        ...         self.only = None
        ...     def pushFilters(self, filters):
        ...         for f in filters:
        ...             if isinstance(f, EqualTo) and f.attribute == ("k",):
        ...                 self.only = f.value  # applied by the source
        ...             else:
        ...                 yield f  # left to the query
        ...     def read(self, partition):
        ...         for k, v in [("a", 1), ("b", 2), ("a", 3)]:
        ...             if self.only is None or k == self.only:
        ...                 yield (k, v)
        >>> class Keyed(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "keyed"
        ...     def schema(self):
        ...         return "k STRING, v INT"
        ...     def reader(self, schema):
        ...         return KeyedReader()
        >>> spark.dataSource.register(Keyed)
        >>> spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")  # off by default, as in Spark
        >>> spark.read.format("keyed").load().filter("k = 'a'").orderBy("v").show()
        +---+---+
        |  k|  v|
        +---+---+
        |  a|  1|
        |  a|  3|
        +---+---+
        <BLANKLINE>
        >>> spark.conf.unset("spark.sql.python.filterPushdown.enabled")
        """
        return filters

    def partitions(self) -> Sequence[InputPartition]:
        """The pieces of the read (one by default), each read apart.

        Returns
        -------
        list of InputPartition
            the pieces, each handed to ``read``

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Union[Iterator[tuple[Any, ...]], Iterator["RecordBatch"]]:
        """The rows of ``partition``: tuples, lists or :class:`Row` s, or
        ``pyarrow.RecordBatch`` es of the schema.

        Parameters
        ----------
        partition : InputPartition
            the piece to read

        Returns
        -------
        iterator
            tuples (or Rows, or ``pyarrow.RecordBatch`` es) of the schema

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        ...


class DataSourceStreamReader(ABC):
    """A streaming read: offsets (JSON-serialisable dicts) bound each
    micro-batch, which is planned as partitions and read like a batch.

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
    >>> class TicksReader(DataSourceStreamReader):
    ...     def initialOffset(self):
    ...         return {"tick": 0}
    ...     def latestOffset(self):
    ...         return {"tick": 3}
    ...     def partitions(self, start, end):
    ...         return [InputPartition((start["tick"], end["tick"]))]
    ...     def read(self, partition):
    ...         first, last = partition.value
    ...         for t in range(first, last):
    ...             yield (t,)
    ...     def commit(self, end):
    ...         pass
    >>> class Ticks(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "ticks"
    ...     def schema(self):
    ...         return "tick INT"
    ...     def streamReader(self, schema):
    ...         return TicksReader()
    >>> spark.dataSource.register(Ticks)
    >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
    ...      .queryName("ticks_dsr_class").trigger(availableNow=True).start())
    >>> q.awaitTermination(60)
    True
    >>> spark.table("ticks_dsr_class").orderBy("tick").show()
    +----+
    |tick|
    +----+
    |   0|
    |   1|
    |   2|
    +----+
    <BLANKLINE>
    """

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts.

        Returns
        -------
        dict
            the first offset (JSON-serialisable)

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_initialoffset").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_initialoffset").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "initialOffset")

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        """The end of the next micro-batch. Defined without parameters, the
        newest offset; with ``(start, limit)``, the end of at most
        ``limit`` data after ``start`` (admission control).

        Parameters
        ----------
        start : dict
            where the next micro-batch starts
        limit : ReadLimit
            how much it may read

        Returns
        -------
        dict
            where the next micro-batch ends

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_latestoffset").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_latestoffset").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "latestOffset")

    def getDefaultReadLimit(self) -> ReadLimit:
        """The limit ``latestOffset`` gets in a normal trigger (no limit
        by default); sources map their own options (``maxRecordsPerTrigger``
        ...) to :class:`~sparklet.sql.streaming.datasource.ReadMaxRows` and
        its kin.

        Returns
        -------
        ReadLimit
            ``ReadAllAvailable()`` unless overridden

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_getdefaultreadlimit").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_getdefaultreadlimit").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        return ReadAllAvailable()

    def reportLatestOffset(self) -> dict[str, Any] | None:
        """The newest offset the source has (for progress), if it knows.

        Returns
        -------
        dict or None
            the newest offset, None when unknown

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_reportlatestoffset").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_reportlatestoffset").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        return None

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        """The pieces of the micro-batch ``(start, end]``.

        Parameters
        ----------
        start : dict
            the batch's start offset (excluded)
        end : dict
            its end offset (included)

        Returns
        -------
        list of InputPartition
            the pieces, each handed to ``read``

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_partitions").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_partitions").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "partitions")

    @abstractmethod
    def read(self, partition: InputPartition) -> Union[Iterator[tuple[Any, ...]], Iterator["RecordBatch"]]:
        """The rows of ``partition`` (as :meth:`DataSourceReader.read`).

        Parameters
        ----------
        partition : InputPartition
            the piece to read

        Returns
        -------
        iterator
            tuples (or Rows, or ``pyarrow.RecordBatch`` es) of the schema

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_read").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_read").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """
        ...

    def commit(self, end: dict[str, Any]) -> None:
        """Everything up to ``end`` is processed: data before it can go.

        Parameters
        ----------
        end : dict
            the offset processed up to

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_commit").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_commit").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """

    def stop(self) -> None:
        """The query stopped: release what the reader holds.

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        >>> class TicksReader(DataSourceStreamReader):
        ...     def initialOffset(self):
        ...         return {"tick": 0}
        ...     def latestOffset(self):
        ...         return {"tick": 3}
        ...     def partitions(self, start, end):
        ...         return [InputPartition((start["tick"], end["tick"]))]
        ...     def read(self, partition):
        ...         first, last = partition.value
        ...         for t in range(first, last):
        ...             yield (t,)
        ...     def commit(self, end):
        ...         pass
        >>> class Ticks(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "ticks"
        ...     def schema(self):
        ...         return "tick INT"
        ...     def streamReader(self, schema):
        ...         return TicksReader()
        >>> spark.dataSource.register(Ticks)
        >>> q = (spark.readStream.format("ticks").load().writeStream.format("memory")
        ...      .queryName("ticks_dsr_stop").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("ticks_dsr_stop").orderBy("tick").show()
        +----+
        |tick|
        +----+
        |   0|
        |   1|
        |   2|
        +----+
        <BLANKLINE>
        """


class SimpleDataSourceStreamReader(ABC):
    """A streaming read without partitions: ``read(start)`` returns the new
    rows and where they end. A micro-batch replayed after a restart is read
    again with :meth:`readBetweenOffsets`, which must give the same rows.

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
    >>> class WordsReader(SimpleDataSourceStreamReader):
    ...     WORDS = ["spark", "streams", "words"]
    ...     def initialOffset(self):
    ...         return {"at": 0}
    ...     def read(self, start):
    ...         end = len(self.WORDS)
    ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
    ...     def readBetweenOffsets(self, start, end):
    ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
    ...     def commit(self, end):
    ...         pass
    >>> class Words(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "words"
    ...     def schema(self):
    ...         return "word STRING"
    ...     def simpleStreamReader(self, schema):
    ...         return WordsReader()
    >>> spark.dataSource.register(Words)
    >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
    ...      .queryName("words_sr_class").trigger(availableNow=True).start())
    >>> q.awaitTermination(60)
    True
    >>> spark.table("words_sr_class").orderBy("word").show()
    +-------+
    |   word|
    +-------+
    |  spark|
    |streams|
    |  words|
    +-------+
    <BLANKLINE>
    """

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts.

        Returns
        -------
        dict
            the first offset (JSON-serialisable)

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
        >>> class WordsReader(SimpleDataSourceStreamReader):
        ...     WORDS = ["spark", "streams", "words"]
        ...     def initialOffset(self):
        ...         return {"at": 0}
        ...     def read(self, start):
        ...         end = len(self.WORDS)
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
        ...     def readBetweenOffsets(self, start, end):
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
        ...     def commit(self, end):
        ...         pass
        >>> class Words(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "words"
        ...     def schema(self):
        ...         return "word STRING"
        ...     def simpleStreamReader(self, schema):
        ...         return WordsReader()
        >>> spark.dataSource.register(Words)
        >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
        ...      .queryName("words_sr_initialoffset").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("words_sr_initialoffset").orderBy("word").show()
        +-------+
        |   word|
        +-------+
        |  spark|
        |streams|
        |  words|
        +-------+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "initialOffset")

    def read(self, start: dict[str, Any]) -> tuple[Iterator[tuple[Any, ...]], dict[str, Any]]:
        """The rows after ``start``, and the offset after them.

        Parameters
        ----------
        start : dict
            where to read from

        Returns
        -------
        tuple
            an iterator of the new rows, and the offset after them

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
        >>> class WordsReader(SimpleDataSourceStreamReader):
        ...     WORDS = ["spark", "streams", "words"]
        ...     def initialOffset(self):
        ...         return {"at": 0}
        ...     def read(self, start):
        ...         end = len(self.WORDS)
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
        ...     def readBetweenOffsets(self, start, end):
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
        ...     def commit(self, end):
        ...         pass
        >>> class Words(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "words"
        ...     def schema(self):
        ...         return "word STRING"
        ...     def simpleStreamReader(self, schema):
        ...         return WordsReader()
        >>> spark.dataSource.register(Words)
        >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
        ...      .queryName("words_sr_read").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("words_sr_read").orderBy("word").show()
        +-------+
        |   word|
        +-------+
        |  spark|
        |streams|
        |  words|
        +-------+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "read")

    def readBetweenOffsets(self, start: dict[str, Any], end: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
        """The rows in ``(start, end]`` again, deterministically.

        Parameters
        ----------
        start : dict
            the start (excluded)
        end : dict
            the end (included)

        Returns
        -------
        iterator
            the same rows as when first read

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
        >>> class WordsReader(SimpleDataSourceStreamReader):
        ...     WORDS = ["spark", "streams", "words"]
        ...     def initialOffset(self):
        ...         return {"at": 0}
        ...     def read(self, start):
        ...         end = len(self.WORDS)
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
        ...     def readBetweenOffsets(self, start, end):
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
        ...     def commit(self, end):
        ...         pass
        >>> class Words(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "words"
        ...     def schema(self):
        ...         return "word STRING"
        ...     def simpleStreamReader(self, schema):
        ...         return WordsReader()
        >>> spark.dataSource.register(Words)
        >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
        ...      .queryName("words_sr_readbetweenoffsets").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("words_sr_readbetweenoffsets").orderBy("word").show()
        +-------+
        |   word|
        +-------+
        |  spark|
        |streams|
        |  words|
        +-------+
        <BLANKLINE>
        """
        raise _not_implemented(type(self).__name__, "readBetweenOffsets")

    def commit(self, end: dict[str, Any]) -> None:
        """Everything up to ``end`` is processed.

        Parameters
        ----------
        end : dict
            the offset processed up to

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, SimpleDataSourceStreamReader
        >>> class WordsReader(SimpleDataSourceStreamReader):
        ...     WORDS = ["spark", "streams", "words"]
        ...     def initialOffset(self):
        ...         return {"at": 0}
        ...     def read(self, start):
        ...         end = len(self.WORDS)
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end]]), {"at": end}
        ...     def readBetweenOffsets(self, start, end):
        ...         return iter([(w,) for w in self.WORDS[start["at"]:end["at"]]])
        ...     def commit(self, end):
        ...         pass
        >>> class Words(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "words"
        ...     def schema(self):
        ...         return "word STRING"
        ...     def simpleStreamReader(self, schema):
        ...         return WordsReader()
        >>> spark.dataSource.register(Words)
        >>> q = (spark.readStream.format("words").load().writeStream.format("memory")
        ...      .queryName("words_sr_commit").trigger(availableNow=True).start())
        >>> q.awaitTermination(60)
        True
        >>> spark.table("words_sr_commit").orderBy("word").show()
        +-------+
        |   word|
        +-------+
        |  spark|
        |streams|
        |  words|
        +-------+
        <BLANKLINE>
        """


class DataSourceWriter(ABC):
    """A batch write: ``write`` runs once per partition of the DataFrame,
    then ``commit`` gets every partition's message (or ``abort``, when a
    partition failed).

    Examples
    --------
    >>> import json
    >>> from pathlib import Path
    >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
    >>> class Counted(WriterCommitMessage):
    ...     def __init__(self, rows):
    ...         self.rows = rows
    >>> class CountWriter(DataSourceWriter):
    ...     def __init__(self, path):
    ...         self.path = path
    ...     def write(self, iterator):
    ...         return Counted(sum(1 for _ in iterator))
    ...     def commit(self, messages):
    ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
    ...     def abort(self, messages):
    ...         Path(self.path).unlink(missing_ok=True)
    >>> class RowCount(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "rowcount"
    ...     def writer(self, schema, overwrite):
    ...         return CountWriter(self.options["path"])
    >>> spark.dataSource.register(RowCount)
    >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
    >>> Path("count.json").read_text()
    '{"rows": 7}'
    """

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> "WriterCommitMessage":
        """Write one partition's rows; what it returns goes to ``commit``.

        Parameters
        ----------
        iterator : iterator of Row
            one partition's rows

        Returns
        -------
        WriterCommitMessage
            what ``commit`` (or ``abort``) gets for this partition

        Examples
        --------
        >>> import json
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class CountWriter(DataSourceWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages):
        ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
        ...     def abort(self, messages):
        ...         Path(self.path).unlink(missing_ok=True)
        >>> class RowCount(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "rowcount"
        ...     def writer(self, schema, overwrite):
        ...         return CountWriter(self.options["path"])
        >>> spark.dataSource.register(RowCount)
        >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
        >>> Path("count.json").read_text()
        '{"rows": 7}'
        """
        ...

    def commit(self, messages: list["WriterCommitMessage | None"]) -> None:
        """Every partition was written: make the write visible.

        Parameters
        ----------
        messages : list of WriterCommitMessage
            each partition's message

        Examples
        --------
        >>> import json
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class CountWriter(DataSourceWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages):
        ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
        ...     def abort(self, messages):
        ...         Path(self.path).unlink(missing_ok=True)
        >>> class RowCount(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "rowcount"
        ...     def writer(self, schema, overwrite):
        ...         return CountWriter(self.options["path"])
        >>> spark.dataSource.register(RowCount)
        >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
        >>> Path("count.json").read_text()
        '{"rows": 7}'
        """

    def abort(self, messages: list["WriterCommitMessage | None"]) -> None:
        """A partition failed: undo what the others wrote (a failed
        partition's message is None).

        Parameters
        ----------
        messages : list of WriterCommitMessage or None
            each partition's message (None for a failed one)

        Examples
        --------
        >>> import json
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class CountWriter(DataSourceWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages):
        ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
        ...     def abort(self, messages):
        ...         Path(self.path).unlink(missing_ok=True)
        >>> class RowCount(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "rowcount"
        ...     def writer(self, schema, overwrite):
        ...         return CountWriter(self.options["path"])
        >>> spark.dataSource.register(RowCount)
        >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
        >>> Path("count.json").read_text()
        '{"rows": 7}'
        """


class DataSourceArrowWriter(DataSourceWriter):
    """A batch writer given ``pyarrow.RecordBatch`` es, not rows.

    Examples
    --------
    >>> from pathlib import Path
    >>> from sparklet.sql.datasource import DataSource, DataSourceArrowWriter, WriterCommitMessage
    >>> class Rows(WriterCommitMessage):
    ...     def __init__(self, n):
    ...         self.n = n
    >>> class ArrowCount(DataSourceArrowWriter):
    ...     def __init__(self, path):
    ...         self.path = path
    ...     def write(self, iterator):
    ...         return Rows(sum(batch.num_rows for batch in iterator))
    ...     def commit(self, messages):
    ...         Path(self.path).write_text(str(sum(m.n for m in messages)))
    >>> class ArrowRowCount(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "arrow_rowcount"
    ...     def writer(self, schema, overwrite):
    ...         return ArrowCount(self.options["path"])
    >>> spark.dataSource.register(ArrowRowCount)
    >>> spark.range(5).write.format("arrow_rowcount").mode("append").save("arrow_count.txt")
    >>> Path("arrow_count.txt").read_text()
    '5'
    """

    @abstractmethod
    def write(self, iterator: Iterator["RecordBatch"]) -> "WriterCommitMessage":
        """Write one partition's record batches.

        Parameters
        ----------
        iterator : iterator of pyarrow.RecordBatch
            one partition's record batches

        Returns
        -------
        WriterCommitMessage
            what ``commit`` gets for this partition

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceArrowWriter, WriterCommitMessage
        >>> class Rows(WriterCommitMessage):
        ...     def __init__(self, n):
        ...         self.n = n
        >>> class ArrowCount(DataSourceArrowWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Rows(sum(batch.num_rows for batch in iterator))
        ...     def commit(self, messages):
        ...         Path(self.path).write_text(str(sum(m.n for m in messages)))
        >>> class ArrowRowCount(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "arrow_rowcount"
        ...     def writer(self, schema, overwrite):
        ...         return ArrowCount(self.options["path"])
        >>> spark.dataSource.register(ArrowRowCount)
        >>> spark.range(5).write.format("arrow_rowcount").mode("append").save("arrow_count.txt")
        >>> Path("arrow_count.txt").read_text()
        '5'
        """
        ...


class DataSourceStreamWriter(ABC):
    r"""A streaming write: each micro-batch's partitions are written, then
    committed (or aborted) with the batch's id.

    Examples
    --------
    >>> from pathlib import Path
    >>> from sparklet.sql.datasource import DataSource, DataSourceStreamWriter, WriterCommitMessage
    >>> from sparklet.testing import MemoryStream
    >>> class Counted(WriterCommitMessage):
    ...     def __init__(self, rows):
    ...         self.rows = rows
    >>> class BatchLog(DataSourceStreamWriter):
    ...     def __init__(self, path):
    ...         self.path = path
    ...     def write(self, iterator):
    ...         return Counted(sum(1 for _ in iterator))
    ...     def commit(self, messages, batchId):
    ...         with open(self.path, "a") as log:
    ...             _ = log.write(f"batch {batchId}: {sum(m.rows for m in messages)} rows\n")
    ...     def abort(self, messages, batchId):
    ...         pass
    >>> class BatchLogSink(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "batchlog"
    ...     def streamWriter(self, schema, overwrite):
    ...         return BatchLog(self.options["path"])
    >>> spark.dataSource.register(BatchLogSink)
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = (stream.toDF().writeStream.format("batchlog").option("path", "batches_dsw_class.log")
    ...      .option("checkpointLocation", "ckpt_dsw_class").start())
    >>> _ = stream.addData([(1,), (2,)])
    >>> q.processAllAvailable()
    >>> q.stop()
    >>> print(Path("batches_dsw_class.log").read_text(), end="")
    batch 0: 2 rows
    """

    @abstractmethod
    def write(self, iterator: Iterator[Row]) -> "WriterCommitMessage":
        r"""Write one partition's rows of the current micro-batch.

        Parameters
        ----------
        iterator : iterator of Row
            one partition's rows of the micro-batch

        Returns
        -------
        WriterCommitMessage
            what ``commit`` gets for this partition

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamWriter, WriterCommitMessage
        >>> from sparklet.testing import MemoryStream
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class BatchLog(DataSourceStreamWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages, batchId):
        ...         with open(self.path, "a") as log:
        ...             _ = log.write(f"batch {batchId}: {sum(m.rows for m in messages)} rows\n")
        ...     def abort(self, messages, batchId):
        ...         pass
        >>> class BatchLogSink(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "batchlog"
        ...     def streamWriter(self, schema, overwrite):
        ...         return BatchLog(self.options["path"])
        >>> spark.dataSource.register(BatchLogSink)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = (stream.toDF().writeStream.format("batchlog").option("path", "batches_dsw_write.log")
        ...      .option("checkpointLocation", "ckpt_dsw_write").start())
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> print(Path("batches_dsw_write.log").read_text(), end="")
        batch 0: 2 rows
        """
        ...

    def commit(self, messages: list["WriterCommitMessage | None"], batchId: int) -> None:
        r"""Micro-batch ``batchId`` was written: make it visible.

        Parameters
        ----------
        messages : list of WriterCommitMessage
            each partition's message
        batchId : int
            the micro-batch's id

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamWriter, WriterCommitMessage
        >>> from sparklet.testing import MemoryStream
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class BatchLog(DataSourceStreamWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages, batchId):
        ...         with open(self.path, "a") as log:
        ...             _ = log.write(f"batch {batchId}: {sum(m.rows for m in messages)} rows\n")
        ...     def abort(self, messages, batchId):
        ...         pass
        >>> class BatchLogSink(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "batchlog"
        ...     def streamWriter(self, schema, overwrite):
        ...         return BatchLog(self.options["path"])
        >>> spark.dataSource.register(BatchLogSink)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = (stream.toDF().writeStream.format("batchlog").option("path", "batches_dsw_commit.log")
        ...      .option("checkpointLocation", "ckpt_dsw_commit").start())
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> print(Path("batches_dsw_commit.log").read_text(), end="")
        batch 0: 2 rows
        """

    def abort(self, messages: list["WriterCommitMessage | None"], batchId: int) -> None:
        r"""Micro-batch ``batchId`` failed: undo what its partitions wrote.

        Parameters
        ----------
        messages : list of WriterCommitMessage or None
            each partition's message (None for a failed one)
        batchId : int
            the micro-batch's id

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamWriter, WriterCommitMessage
        >>> from sparklet.testing import MemoryStream
        >>> class Counted(WriterCommitMessage):
        ...     def __init__(self, rows):
        ...         self.rows = rows
        >>> class BatchLog(DataSourceStreamWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Counted(sum(1 for _ in iterator))
        ...     def commit(self, messages, batchId):
        ...         with open(self.path, "a") as log:
        ...             _ = log.write(f"batch {batchId}: {sum(m.rows for m in messages)} rows\n")
        ...     def abort(self, messages, batchId):
        ...         pass
        >>> class BatchLogSink(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "batchlog"
        ...     def streamWriter(self, schema, overwrite):
        ...         return BatchLog(self.options["path"])
        >>> spark.dataSource.register(BatchLogSink)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = (stream.toDF().writeStream.format("batchlog").option("path", "batches_dsw_abort.log")
        ...      .option("checkpointLocation", "ckpt_dsw_abort").start())
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> print(Path("batches_dsw_abort.log").read_text(), end="")
        batch 0: 2 rows
        """


class DataSourceStreamArrowWriter(DataSourceStreamWriter):
    r"""A streaming writer given ``pyarrow.RecordBatch`` es, not rows.

    Examples
    --------
    >>> from pathlib import Path
    >>> from sparklet.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage
    >>> from sparklet.testing import MemoryStream
    >>> class Rows(WriterCommitMessage):
    ...     def __init__(self, n):
    ...         self.n = n
    >>> class ArrowBatchLog(DataSourceStreamArrowWriter):
    ...     def __init__(self, path):
    ...         self.path = path
    ...     def write(self, iterator):
    ...         return Rows(sum(b.num_rows for b in iterator))
    ...     def commit(self, messages, batchId):
    ...         with open(self.path, "a") as log:
    ...             _ = log.write(f"batch {batchId}: {sum(m.n for m in messages)} rows\n")
    >>> class ArrowBatchLogSink(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "arrow_batchlog"
    ...     def streamWriter(self, schema, overwrite):
    ...         return ArrowBatchLog(self.options["path"])
    >>> spark.dataSource.register(ArrowBatchLogSink)
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = (stream.toDF().writeStream.format("arrow_batchlog").option("path", "arrow_batches.log")
    ...      .option("checkpointLocation", "ckpt_arrow_batches").start())
    >>> _ = stream.addData([(1,), (2,), (3,)])
    >>> q.processAllAvailable()
    >>> q.stop()
    >>> print(Path("arrow_batches.log").read_text(), end="")
    batch 0: 3 rows
    """

    @abstractmethod
    def write(self, iterator: Iterator["RecordBatch"]) -> "WriterCommitMessage":
        r"""Write one partition's record batches of the current micro-batch.

        Parameters
        ----------
        iterator : iterator of pyarrow.RecordBatch
            one partition's record batches of the micro-batch

        Returns
        -------
        WriterCommitMessage
            what ``commit`` gets for this partition

        Examples
        --------
        >>> from pathlib import Path
        >>> from sparklet.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage
        >>> from sparklet.testing import MemoryStream
        >>> class Rows(WriterCommitMessage):
        ...     def __init__(self, n):
        ...         self.n = n
        >>> class ArrowBatchLog(DataSourceStreamArrowWriter):
        ...     def __init__(self, path):
        ...         self.path = path
        ...     def write(self, iterator):
        ...         return Rows(sum(b.num_rows for b in iterator))
        ...     def commit(self, messages, batchId):
        ...         with open(self.path, "a") as log:
        ...             _ = log.write(f"batch {batchId}: {sum(m.n for m in messages)} rows\n")
        >>> class ArrowBatchLogSink(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "arrow_batchlog"
        ...     def streamWriter(self, schema, overwrite):
        ...         return ArrowBatchLog(self.options["path"])
        >>> spark.dataSource.register(ArrowBatchLogSink)
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = (stream.toDF().writeStream.format("arrow_batchlog").option("path", "arrow_batches.log")
        ...      .option("checkpointLocation", "ckpt_arrow_batches").start())
        >>> _ = stream.addData([(1,), (2,), (3,)])
        >>> q.processAllAvailable()
        >>> q.stop()
        >>> print(Path("arrow_batches.log").read_text(), end="")
        batch 0: 3 rows
        """
        ...


@dataclass
class WriterCommitMessage:
    """What a partition's ``write`` tells ``commit``/``abort`` (subclass it
    to carry more).

    Examples
    --------
    >>> import json
    >>> from pathlib import Path
    >>> from sparklet.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage
    >>> class Counted(WriterCommitMessage):
    ...     def __init__(self, rows):
    ...         self.rows = rows
    >>> class CountWriter(DataSourceWriter):
    ...     def __init__(self, path):
    ...         self.path = path
    ...     def write(self, iterator):
    ...         return Counted(sum(1 for _ in iterator))
    ...     def commit(self, messages):
    ...         Path(self.path).write_text(json.dumps({"rows": sum(m.rows for m in messages)}))
    ...     def abort(self, messages):
    ...         Path(self.path).unlink(missing_ok=True)
    >>> class RowCount(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "rowcount"
    ...     def writer(self, schema, overwrite):
    ...         return CountWriter(self.options["path"])
    >>> spark.dataSource.register(RowCount)
    >>> spark.range(7).repartition(3).write.format("rowcount").mode("append").save("count.json")
    >>> Path("count.json").read_text()
    '{"rows": 7}'
    """


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
    """``spark.dataSource``: registers :class:`DataSource` classes by name.

    Examples
    --------
    >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
    >>> class NumbersReader(DataSourceReader):
    ...     def __init__(self, options):
    ...         self.count = int(options.get("count", 4))
    ...     def partitions(self):
    ...         return [InputPartition(0), InputPartition(1)]
    ...     def read(self, partition):
    ...         for i in range(partition.value, self.count, 2):
    ...             yield (i,)
    >>> class Numbers(DataSource):
    ...     @classmethod
    ...     def name(cls):
    ...         return "numbers"
    ...     def schema(self):
    ...         return "n INT"
    ...     def reader(self, schema):
    ...         return NumbersReader(self.options)
    >>> spark.dataSource.register(Numbers)
    >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
    +---+
    |  n|
    +---+
    |  0|
    |  1|
    |  2|
    |  3|
    |  4|
    +---+
    <BLANKLINE>
    """

    def __init__(self, sparkSession: "SparkSession") -> None:
        self.sparkSession = sparkSession

    def register(self, dataSource: type[DataSource]) -> None:
        """Make ``dataSource`` readable and writable as
        ``format(dataSource.name())`` in this session (a later registration
        of the same name replaces it).

        Parameters
        ----------
        dataSource : type
            a :class:`DataSource` subclass

        Examples
        --------
        >>> from sparklet.sql.datasource import DataSource, DataSourceReader, InputPartition
        >>> class NumbersReader(DataSourceReader):
        ...     def __init__(self, options):
        ...         self.count = int(options.get("count", 4))
        ...     def partitions(self):
        ...         return [InputPartition(0), InputPartition(1)]
        ...     def read(self, partition):
        ...         for i in range(partition.value, self.count, 2):
        ...             yield (i,)
        >>> class Numbers(DataSource):
        ...     @classmethod
        ...     def name(cls):
        ...         return "numbers"
        ...     def schema(self):
        ...         return "n INT"
        ...     def reader(self, schema):
        ...         return NumbersReader(self.options)
        >>> spark.dataSource.register(Numbers)
        >>> spark.read.format("numbers").option("count", 5).load().orderBy("n").show()
        +---+
        |  n|
        +---+
        |  0|
        |  1|
        |  2|
        |  3|
        |  4|
        +---+
        <BLANKLINE>
        """
        from sparklet.sql import _datasource_run

        _datasource_run.register(self.sparkSession, dataSource)
