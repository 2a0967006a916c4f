"""A local ``RDD``: what DStream jobs and ``df.rdd`` idioms use, with PySpark's
names and results.

An RDD here is a list of partitions computed on demand in this process
(each transformation a function of its parent's partitions), so
``getNumPartitions``, ``glom`` and the order ``collect`` returns follow
Spark's partitioning: ``parallelize`` slices as Spark slices, and keyed
operations (``reduceByKey``, ``groupByKey``, ``join``, ``distinct``) hash
keys into partitions with PySpark's ``portable_hash``. Methods of PySpark's
RDD that have no meaning in one process, or that sparklet does not have,
raise :class:`~sparklet.errors.PySparkNotImplementedError` naming
themselves.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sparklet.errors import PySparkNotImplementedError
from sparklet.storagelevel import StorageLevel

if TYPE_CHECKING:
    from sparklet.core.context import SparkContext
    from sparklet.sql.dataframe import DataFrame

T = TypeVar("T")
U = TypeVar("U")

__all__ = ["RDD", "ResultIterable", "portable_hash"]


def portable_hash(x: Any) -> int:
    """PySpark's hash of a key: tuples combined element by element, None 0."""
    if x is None:
        return 0
    if isinstance(x, tuple):
        h = 0x345678
        for i in x:
            h ^= portable_hash(i)
            h *= 1000003
            h &= 0xFFFFFFFFFFFFFFFF
        h ^= len(x)
        if h == -1:
            h = -2
        return int(h)
    return hash(x)


class ResultIterable(Generic[T]):
    """The values of one key after ``groupByKey``: iterable, sized, indexable."""

    def __init__(self, data: list[T]) -> None:
        self.data = data
        self.maxindex = len(data)

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, i: int) -> T:
        return self.data[i]

    def __repr__(self) -> str:
        return f"ResultIterable({self.data!r})"


def _slices(items: list[T], n: int) -> list[list[T]]:
    """``items`` in ``n`` slices, cut where Spark's ``ParallelCollectionRDD`` cuts."""
    size = len(items)
    return [items[i * size // n : (i + 1) * size // n] for i in range(n)]


def _by_key(parts: list[list[Any]], n: int, hash_fn: Callable[[Any], int] = portable_hash) -> list[list[Any]]:
    """Each ``(key, value)`` into partition ``hash(key) % n``, in order."""
    out: list[list[Any]] = [[] for _ in range(n)]
    for part in parts:
        for kv in part:
            out[hash_fn(kv[0]) % n].append(kv)
    return out


class RDD(Generic[T]):
    """A resilient distributed dataset, computed locally (see the module)."""

    def __init__(
        self, ctx: "SparkContext", compute: Callable[[], list[list[T]]], numPartitions: int | Callable[[], int]
    ) -> None:
        self.ctx = ctx
        self._compute = compute
        self._n = numPartitions
        self._kept: list[list[T]] | None = None
        self._storage = StorageLevel.NONE
        self._name: str | None = None

    # ---- the partitions --------------------------------------------------
    def _parts(self) -> list[list[Any]]:
        if self._kept is not None:
            return self._kept
        parts = [list(p) for p in self._compute()]
        if self._storage != StorageLevel.NONE:
            self._kept = parts
        return parts

    @property
    def _num(self) -> int:
        """The partition count (a DataFrame's is planned when first asked)."""
        if callable(self._n):
            self._n = int(self._n())
        return self._n

    def _derive(self, f: Callable[[int, list[T]], Iterable[U]], numPartitions: int | None = None) -> "RDD[U]":
        """A child computed partition by partition with ``f(index, rows)``."""
        return RDD(
            self.ctx,
            lambda: [list(f(i, p)) for i, p in enumerate(self._parts())],
            self._num if numPartitions is None else numPartitions,
        )

    @property
    def context(self) -> "SparkContext":
        """The SparkContext this RDD was made in."""
        return self.ctx

    def getNumPartitions(self) -> int:
        """How many partitions."""
        return self._num

    def id(self) -> int:
        """An id unique in this process."""
        return id(self)

    def name(self) -> str | None:
        """The name given by :meth:`setName`."""
        return self._name

    def setName(self, name: str) -> "RDD[T]":
        """Name this RDD."""
        self._name = name
        return self

    def cache(self) -> "RDD[T]":
        """Keep the partitions once computed."""
        return self.persist(StorageLevel.MEMORY_ONLY)

    def persist(self, storageLevel: StorageLevel = StorageLevel.MEMORY_ONLY) -> "RDD[T]":
        """Keep the partitions once computed (in memory, whatever the level)."""
        self._storage = storageLevel
        return self

    def unpersist(self, blocking: bool = False) -> "RDD[T]":
        """Forget the kept partitions."""
        self._storage, self._kept = StorageLevel.NONE, None
        return self

    def getStorageLevel(self) -> StorageLevel:
        """The level given to :meth:`persist`."""
        return self._storage

    def __repr__(self) -> str:
        return f"{self._name or 'RDD'}[{id(self)}] at sparklet"

    # ---- transformations -------------------------------------------------
    def map(self, f: Callable[[T], U], preservesPartitioning: bool = False) -> "RDD[U]":
        """``f`` of each element."""
        return self._derive(lambda _, p: map(f, p))

    def flatMap(self, f: Callable[[T], Iterable[U]], preservesPartitioning: bool = False) -> "RDD[U]":
        """The elements of ``f`` of each element."""
        return self._derive(lambda _, p: itertools.chain.from_iterable(map(f, p)))

    def filter(self, f: Callable[[T], bool]) -> "RDD[T]":
        """The elements for which ``f`` is true."""
        return self._derive(lambda _, p: (x for x in p if f(x)))

    def mapPartitions(self, f: Callable[[Iterator[T]], Iterable[U]], preservesPartitioning: bool = False) -> "RDD[U]":
        """``f`` of each partition's iterator."""
        return self._derive(lambda _, p: f(iter(p)))

    def mapPartitionsWithIndex(
        self, f: Callable[[int, Iterator[T]], Iterable[U]], preservesPartitioning: bool = False
    ) -> "RDD[U]":
        """``f`` of each partition's index and iterator."""
        return self._derive(lambda i, p: f(i, iter(p)))

    def glom(self) -> "RDD[list[T]]":
        """Each partition as a list."""
        return self._derive(lambda _, p: [list(p)])

    def keyBy(self, f: Callable[[T], Any]) -> "RDD[tuple[Any, T]]":
        """``(f(x), x)`` of each element."""
        return self.map(lambda x: (f(x), x))

    def _pairs(self) -> "RDD[Any]":
        """This RDD, its elements taken as ``(key, value)`` pairs."""
        return self

    def keys(self) -> "RDD[Any]":
        """The key of each pair."""
        return self._pairs().map(lambda kv: kv[0])

    def values(self) -> "RDD[Any]":
        """The value of each pair."""
        return self._pairs().map(lambda kv: kv[1])

    def mapValues(self, f: Callable[[Any], Any]) -> "RDD[tuple[Any, Any]]":
        """Each pair's value through ``f``, keys kept."""
        return self._pairs().map(lambda kv: (kv[0], f(kv[1])))

    def flatMapValues(self, f: Callable[[Any], Iterable[Any]]) -> "RDD[tuple[Any, Any]]":
        """A pair for each element of ``f`` of each pair's value."""
        return self._pairs().flatMap(lambda kv: ((kv[0], v) for v in f(kv[1])))

    def union(self, other: "RDD[U]") -> "RDD[T | U]":
        """The partitions of both."""
        return RDD(self.ctx, lambda: self._parts() + other._parts(), self._num + other._num)

    def __add__(self, other: "RDD[U]") -> "RDD[T | U]":
        return self.union(other)

    def coalesce(self, numPartitions: int, shuffle: bool = False) -> "RDD[T]":
        """Neighbouring partitions merged into at most ``numPartitions``."""
        if shuffle:
            return self.repartition(numPartitions)
        n = max(1, min(numPartitions, self._num))

        def merged() -> list[list[T]]:
            # Spark's coalescer without locality: group i takes the parents
            # [i*m/n, (i+1)*m/n)
            parts = self._parts()
            m = len(parts)
            return [[x for p in parts[i * m // n : (i + 1) * m // n] for x in p] for i in range(n)]

        return RDD(self.ctx, merged, n)

    def repartition(self, numPartitions: int) -> "RDD[T]":
        """The elements spread evenly over ``numPartitions``."""
        return RDD(self.ctx, lambda: _slices(self._all(), numPartitions), numPartitions)

    def partitionBy(self, numPartitions: int, partitionFunc: Callable[[Any], int] = portable_hash) -> "RDD[Any]":
        """Pairs in partition ``partitionFunc(key) % numPartitions``."""
        return RDD(self.ctx, lambda: _by_key(self._parts(), numPartitions, partitionFunc), numPartitions)

    def _shuffled(self, numPartitions: int | None) -> int:
        return numPartitions or self._num

    def combineByKey(
        self,
        createCombiner: Callable[[Any], Any],
        mergeValue: Callable[[Any, Any], Any],
        mergeCombiners: Callable[[Any, Any], Any],
        numPartitions: int | None = None,
        partitionFunc: Callable[[Any], int] = portable_hash,
    ) -> "RDD[tuple[Any, Any]]":
        """Values of each key combined: within partitions, then across them."""
        n = self._shuffled(numPartitions)

        def combine() -> list[list[Any]]:
            local = []
            for p in self._parts():
                acc: dict[Any, Any] = {}
                for k, v in p:
                    acc[k] = mergeValue(acc[k], v) if k in acc else createCombiner(v)
                local.append(list(acc.items()))
            out = []
            for part in _by_key(local, n, partitionFunc):
                acc = {}
                for k, c in part:
                    acc[k] = mergeCombiners(acc[k], c) if k in acc else c
                out.append(list(acc.items()))
            return out

        return RDD(self.ctx, combine, n)

    def reduceByKey(
        self,
        func: Callable[[Any, Any], Any],
        numPartitions: int | None = None,
        partitionFunc: Callable[[Any], int] = portable_hash,
    ) -> "RDD[tuple[Any, Any]]":
        """The values of each key reduced with ``func``."""
        return self.combineByKey(lambda v: v, func, func, numPartitions, partitionFunc)

    def foldByKey(
        self, zeroValue: Any, func: Callable[[Any, Any], Any], numPartitions: int | None = None
    ) -> "RDD[tuple[Any, Any]]":
        """The values of each key folded from ``zeroValue``."""
        return self.combineByKey(lambda v: func(zeroValue, v), func, func, numPartitions)

    def aggregateByKey(
        self,
        zeroValue: Any,
        seqFunc: Callable[[Any, Any], Any],
        combFunc: Callable[[Any, Any], Any],
        numPartitions: int | None = None,
    ) -> "RDD[tuple[Any, Any]]":
        """The values of each key folded from (a copy of) ``zeroValue``."""
        import copy

        return self.combineByKey(lambda v: seqFunc(copy.deepcopy(zeroValue), v), seqFunc, combFunc, numPartitions)

    def groupByKey(
        self, numPartitions: int | None = None, partitionFunc: Callable[[Any], int] = portable_hash
    ) -> "RDD[tuple[Any, ResultIterable[Any]]]":
        """The values of each key, as a :class:`ResultIterable`."""
        grouped = self.combineByKey(lambda v: [v], lambda c, v: c + [v], operator.add, numPartitions, partitionFunc)
        return grouped.mapValues(ResultIterable)

    def groupBy(self, f: Callable[[T], Any], numPartitions: int | None = None) -> "RDD[tuple[Any, ResultIterable[T]]]":
        """The elements grouped by ``f`` of each."""
        return self.keyBy(f).groupByKey(numPartitions)

    def countByKey(self) -> dict[Any, int]:
        """How many pairs each key has."""
        counts: dict[Any, int] = defaultdict(int)
        for k, _ in self._all():
            counts[k] += 1
        return counts

    def countByValue(self) -> dict[T, int]:
        """How many times each element occurs."""
        counts: dict[T, int] = defaultdict(int)
        for x in self._all():
            counts[x] += 1
        return counts

    def distinct(self, numPartitions: int | None = None) -> "RDD[T]":
        """Each element once."""
        return self.map(lambda x: (x, None)).reduceByKey(lambda a, _: a, numPartitions).keys()

    def _cogroup(self, other: "RDD[Any]", numPartitions: int | None) -> "RDD[tuple[Any, tuple[list[Any], list[Any]]]]":
        tagged = self.mapValues(lambda v: (0, v)).union(other.mapValues(lambda v: (1, v)))
        n = numPartitions or tagged._num

        def add(c: tuple[list[Any], list[Any]], tv: tuple[int, Any]) -> tuple[list[Any], list[Any]]:
            c[tv[0]].append(tv[1])
            return c

        def merge(a: tuple[list[Any], list[Any]], b: tuple[list[Any], list[Any]]) -> tuple[list[Any], list[Any]]:
            return (a[0] + b[0], a[1] + b[1])

        return tagged.combineByKey(lambda tv: add(([], []), tv), add, merge, n)

    def cogroup(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """For each key, the values of both as two :class:`ResultIterable`."""
        return self._cogroup(other, numPartitions).mapValues(lambda c: (ResultIterable(c[0]), ResultIterable(c[1])))

    def _join(self, other: "RDD[Any]", numPartitions: int | None, keep_left: bool, keep_right: bool) -> "RDD[Any]":
        def pairs(c: tuple[list[Any], list[Any]]) -> Iterable[tuple[Any, Any]]:
            left = c[0] or ([None] if keep_right else [])
            right = c[1] or ([None] if keep_left else [])
            return itertools.product(left, right)

        return self._cogroup(other, numPartitions).flatMapValues(pairs)

    def join(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """``(k, (v, w))`` for each pair of values of a key in both."""
        return self._join(other, numPartitions, False, False)

    def leftOuterJoin(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """:meth:`join`, and ``(k, (v, None))`` for keys only here."""
        return self._join(other, numPartitions, True, False)

    def rightOuterJoin(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """:meth:`join`, and ``(k, (None, w))`` for keys only in ``other``."""
        return self._join(other, numPartitions, False, True)

    def fullOuterJoin(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """:meth:`join` with the keys of either side kept."""
        return self._join(other, numPartitions, True, True)

    def subtractByKey(self, other: "RDD[Any]", numPartitions: int | None = None) -> "RDD[Any]":
        """Pairs whose key is not in ``other``."""
        return self._cogroup(other, numPartitions).flatMap(
            lambda kc: [] if kc[1][1] else [(kc[0], v) for v in kc[1][0]]
        )

    def subtract(self, other: "RDD[T]", numPartitions: int | None = None) -> "RDD[T]":
        """Elements not in ``other``."""
        return self.map(lambda x: (x, True)).subtractByKey(other.map(lambda x: (x, True)), numPartitions).keys()

    def intersection(self, other: "RDD[T]") -> "RDD[T]":
        """Elements in both, each once."""
        both = self.map(lambda x: (x, None))._cogroup(other.map(lambda x: (x, None)), None)
        return both.filter(lambda kc: bool(kc[1][0]) and bool(kc[1][1])).keys()

    def cartesian(self, other: "RDD[U]") -> "RDD[tuple[T, U]]":
        """Every pair of an element here and one of ``other``."""
        return RDD(
            self.ctx,
            lambda: [list(itertools.product(a, b)) for a in self._parts() for b in other._parts()],
            self._num * other._num,
        )

    def sortBy(self, keyfunc: Callable[[T], Any], ascending: bool = True, numPartitions: int | None = None) -> "RDD[T]":
        """The elements ordered by ``keyfunc``, in ranges over the partitions."""
        n = numPartitions or self._num
        return RDD(self.ctx, lambda: _slices(sorted(self._all(), key=keyfunc, reverse=not ascending), n), n)

    def sortByKey(
        self, ascending: bool = True, numPartitions: int | None = None, keyfunc: Callable[[Any], Any] = lambda x: x
    ) -> "RDD[Any]":
        """Pairs ordered by ``keyfunc`` of the key."""
        return self._pairs().sortBy(lambda kv: keyfunc(kv[0]), ascending, numPartitions)

    def zipWithIndex(self) -> "RDD[tuple[T, int]]":
        """Each element with its position."""

        def zipped() -> list[list[tuple[T, int]]]:
            out, start = [], 0
            for p in self._parts():
                out.append([(x, start + i) for i, x in enumerate(p)])
                start += len(p)
            return out

        return RDD(self.ctx, zipped, self._num)

    def zipWithUniqueId(self) -> "RDD[tuple[T, int]]":
        """Each element with ``i * n + k`` (``k``: its partition, ``n``: their count)."""
        n = self._num
        return self._derive(lambda k, p: ((x, i * n + k) for i, x in enumerate(p)))

    # ---- actions ---------------------------------------------------------
    def collect(self) -> list[T]:
        """Every element, partition by partition."""
        return self._all()

    def _all(self) -> list[Any]:
        return [x for p in self._parts() for x in p]

    def collectAsMap(self) -> dict[Any, Any]:
        """The pairs as a dict (a later value of a key wins)."""
        return dict(self._all())

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[T]:
        """The elements one at a time."""
        return iter(self._all())

    def count(self) -> int:
        """How many elements."""
        return sum(len(p) for p in self._parts())

    def isEmpty(self) -> bool:
        """Whether there are no elements."""
        return all(len(p) == 0 for p in self._parts())

    def take(self, num: int) -> list[T]:
        """The first ``num`` elements."""
        return list(itertools.islice(itertools.chain.from_iterable(self._parts()), max(num, 0)))

    def first(self) -> T:
        """The first element (ValueError when empty, as PySpark)."""
        rows = self.take(1)
        if not rows:
            raise ValueError("RDD is empty")
        return rows[0]

    def top(self, num: int, key: Callable[[T], Any] | None = None) -> list[T]:
        """The ``num`` largest elements, largest first."""
        return sorted(self._all(), key=key, reverse=True)[:num]

    def takeOrdered(self, num: int, key: Callable[[T], Any] | None = None) -> list[T]:
        """The ``num`` smallest elements, smallest first."""
        return sorted(self._all(), key=key)[:num]

    def reduce(self, f: Callable[[T, T], T]) -> T:
        """The elements reduced with ``f`` (ValueError when empty, as PySpark)."""
        partials = [functools.reduce(f, p) for p in self._parts() if p]
        if not partials:
            raise ValueError("Can not reduce() empty RDD")
        result: T = functools.reduce(f, partials)
        return result

    def fold(self, zeroValue: Any, op: Callable[[Any, Any], Any]) -> Any:
        """Each partition folded from ``zeroValue``, then the results."""
        return functools.reduce(op, (functools.reduce(op, p, zeroValue) for p in self._parts()), zeroValue)

    def aggregate(self, zeroValue: U, seqOp: Callable[[U, T], U], combOp: Callable[[U, U], U]) -> U:
        """Each partition folded with ``seqOp``, the results with ``combOp``."""
        return functools.reduce(combOp, (functools.reduce(seqOp, p, zeroValue) for p in self._parts()), zeroValue)

    def sum(self) -> Any:
        """The sum of the elements."""
        return self.fold(0, operator.add)

    def max(self, key: Callable[[T], Any] | None = None) -> T:
        """The largest element."""
        found: T = max(self._all(), key=key) if key else max(self._all())
        return found

    def min(self, key: Callable[[T], Any] | None = None) -> T:
        """The smallest element."""
        found: T = min(self._all(), key=key) if key else min(self._all())
        return found

    def mean(self) -> float:
        """The mean of the elements."""
        rows = self._all()
        return sum(rows) / len(rows) if rows else float("nan")

    def foreach(self, f: Callable[[T], None]) -> None:
        """Call ``f`` with each element."""
        for x in self._all():
            f(x)

    def foreachPartition(self, f: Callable[[Iterator[T]], None]) -> None:
        """Call ``f`` with an iterator over each partition."""
        for p in self._parts():
            f(iter(p))

    def lookup(self, key: Any) -> list[Any]:
        """The values of ``key``."""
        return [v for k, v in self._all() if k == key]

    def saveAsTextFile(self, path: str, compressionCodecClass: str | None = None) -> None:
        """Each partition as a ``part-NNNNN`` text file of ``str`` of each
        element, and ``_SUCCESS``; an existing folder is an error, as in Spark."""
        import os

        if os.path.exists(path):
            from sparklet.errors import AnalysisException

            raise AnalysisException(
                f"[PATH_ALREADY_EXISTS] Output directory {path} already exists.", "PATH_ALREADY_EXISTS"
            )
        os.makedirs(path)
        for i, p in enumerate(self._parts()):
            with open(os.path.join(path, f"part-{i:05d}"), "w", encoding="utf-8") as f:
                f.writelines(f"{x}\n" for x in p)
        open(os.path.join(path, "_SUCCESS"), "w").close()

    def toDF(self, schema: Any = None, sampleRatio: float | None = None) -> "DataFrame":
        """A DataFrame of the elements (rows, tuples or dicts)."""
        return self.ctx._session.createDataFrame(self._all(), schema)

    def __getattr__(self, name: str) -> Any:
        if name in _ABSENT:
            raise PySparkNotImplementedError(
                f"[NOT_IMPLEMENTED] RDD.{name} is not supported by sparklet's local RDD.", "NOT_IMPLEMENTED"
            )
        raise AttributeError(f"'RDD' object has no attribute '{name}'")


#: PySpark's RDD methods this one does not have: a clear error, not half there.
_ABSENT = frozenset(
    "barrier checkpoint cleanShuffleDependencies collectWithJobGroup countApprox countApproxDistinct "
    "getCheckpointFile getResourceProfile groupWith histogram isCheckpointed isLocallyCheckpointed "
    "localCheckpoint mapPartitionsWithSplit meanApprox pipe randomSplit reduceByKeyLocally "
    "repartitionAndSortWithinPartitions sample sampleByKey sampleStdev sampleVariance saveAsHadoopDataset "
    "saveAsHadoopFile saveAsNewAPIHadoopDataset saveAsNewAPIHadoopFile saveAsPickleFile saveAsSequenceFile "
    "stats stdev sumApprox takeSample toDebugString treeAggregate treeReduce variance withResources zip".split()
)
