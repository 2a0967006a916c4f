""":class:`DStream`: PySpark's legacy streaming API, a sequence of RDDs, one
per batch interval.

Each DStream computes its RDD for a batch time from its parents' RDDs for
that time (or, windowed, for the times in its window); RDDs are kept for
as long as a window downstream may ask for them again."""

from __future__ import annotations

import datetime
import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sparklet.core.rdd import RDD

if TYPE_CHECKING:
    from sparklet.core.context import SparkContext
    from sparklet.streaming.context import StreamingContext

T = TypeVar("T")
U = TypeVar("U")

__all__ = ["DStream"]


def _arity(f: Callable[..., Any]) -> int:
    import inspect

    try:
        return len(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return 1


def _time(ms: int) -> datetime.datetime:
    """A batch time as PySpark hands it to functions: a local datetime."""
    return datetime.datetime.fromtimestamp(ms / 1000)


class DStream(Generic[T]):
    """A stream of RDDs, one per batch. Transformations make new DStreams;
    output operations (:meth:`foreachRDD`, :meth:`pprint`,
    :meth:`saveAsTextFiles`) run for each batch once the context starts."""

    def __init__(self, ssc: "StreamingContext", parents: list["DStream[Any]"], slide_ms: int | None = None) -> None:
        self._ssc = ssc
        self._parents = parents
        self._slide_ms = slide_ms if slide_ms is not None else ssc._batch_ms
        self._generated: dict[int, RDD[Any] | None] = {}
        # how far back this stream's RDDs are asked for (windows downstream)
        self._remember_ms = ssc._batch_ms
        self._cached = False
        ssc._register(self)

    # ---- computing ----------------------------------------------------------

    def _compute(self, time_ms: int) -> RDD[T] | None:
        raise NotImplementedError

    def _rdd_at(self, time_ms: int) -> RDD[T] | None:
        """This stream's RDD for batch ``time_ms`` (made once)."""
        if time_ms not in self._generated:
            if (time_ms - self._ssc._zero_ms) % self._slide_ms != 0:
                return None
            rdd = self._compute(time_ms)
            if rdd is not None and self._cached:
                rdd = rdd.cache()
            self._generated[time_ms] = rdd
        return self._generated[time_ms]

    def _forget(self, time_ms: int) -> None:
        oldest = time_ms - max(self._remember_ms, self._ssc._remember_ms)
        for t in [t for t in self._generated if t <= oldest]:
            del self._generated[t]

    def _remember(self, ms: int) -> None:
        """Keep RDDs for ``ms`` (a window downstream reads that far back)."""
        self._remember_ms = max(self._remember_ms, ms)
        for p in self._parents:
            p._remember(ms)

    def _sc(self) -> "SparkContext":
        return self._ssc._sc

    def _empty(self) -> RDD[Any]:
        return self._sc().parallelize([], 1)

    # ---- transformations ------------------------------------------------------

    def context(self) -> "StreamingContext":
        """The StreamingContext of this stream."""
        return self._ssc

    def transform(self, func: Callable[..., RDD[U]]) -> "DStream[U]":
        """Each batch's RDD through ``func(rdd)`` or ``func(time, rdd)``."""
        two = _arity(func) == 2
        return _Transformed(self, lambda t, rdd: func(_time(t), rdd) if two else func(rdd))

    def transformWith(
        self, func: Callable[..., RDD[U]], other: "DStream[Any]", keepSerializer: bool = False
    ) -> "DStream[U]":
        """Each batch's RDDs of this and ``other`` through ``func``."""
        two = _arity(func) == 2
        return _Joined(self, other, lambda t, a, b: func(a, b) if two else func(_time(t), a, b))

    def map(self, f: Callable[[T], U], preservesPartitioning: bool = False) -> "DStream[U]":
        """Each element through ``f``."""
        return self.transform(lambda rdd: rdd.map(f))

    def flatMap(self, f: Callable[[T], Iterable[U]], preservesPartitioning: bool = False) -> "DStream[U]":
        """Each element into zero or more."""
        return self.transform(lambda rdd: rdd.flatMap(f))

    def filter(self, f: Callable[[T], bool]) -> "DStream[T]":
        """The elements ``f`` keeps."""
        return self.transform(lambda rdd: rdd.filter(f))

    def mapPartitions(
        self, f: Callable[[Iterator[T]], Iterable[U]], preservesPartitioning: bool = False
    ) -> "DStream[U]":
        """Each partition through ``f``."""
        return self.transform(lambda rdd: rdd.mapPartitions(f))

    def mapPartitionsWithIndex(
        self, f: Callable[[int, Iterator[T]], Iterable[U]], preservesPartitioning: bool = False
    ) -> "DStream[U]":
        """Each partition, with its index, through ``f``."""
        return self.transform(lambda rdd: rdd.mapPartitionsWithIndex(f))

    def mapValues(self, f: Callable[[Any], Any]) -> "DStream[Any]":
        """Each pair's value through ``f``."""
        return self.transform(lambda rdd: rdd.mapValues(f))

    def flatMapValues(self, f: Callable[[Any], Iterable[Any]]) -> "DStream[Any]":
        """Each pair's value into zero or more."""
        return self.transform(lambda rdd: rdd.flatMapValues(f))

    def glom(self) -> "DStream[list[T]]":
        """Each partition as a list."""
        return self.transform(lambda rdd: rdd.glom())

    def repartition(self, numPartitions: int) -> "DStream[T]":
        """Each batch in ``numPartitions`` partitions."""
        return self.transform(lambda rdd: rdd.repartition(numPartitions))

    def partitionBy(self, numPartitions: int, partitionFunc: Callable[[Any], int] | None = None) -> "DStream[Any]":
        """Each batch's pairs partitioned by key."""
        if partitionFunc is None:
            return self.transform(lambda rdd: rdd.partitionBy(numPartitions))
        return self.transform(lambda rdd: rdd.partitionBy(numPartitions, partitionFunc))

    def reduce(self, func: Callable[[T, T], T]) -> "DStream[T]":
        """Each batch reduced to one element (none for an empty batch)."""
        return self.map(lambda x: (None, x)).reduceByKey(func, 1).map(lambda kv: kv[1])

    def count(self) -> "DStream[int]":
        """Each batch's number of elements."""
        return self.mapPartitions(lambda it: [sum(1 for _ in it)]).reduce(lambda a, b: a + b)

    def countByValue(self) -> "DStream[tuple[T, int]]":
        """Each distinct element with its count in the batch."""
        return self.map(lambda x: (x, 1)).reduceByKey(lambda a, b: a + b)

    def reduceByKey(self, func: Callable[[Any, Any], Any], numPartitions: int | None = None) -> "DStream[Any]":
        """Each batch's values per key reduced with ``func``."""
        return self.transform(lambda rdd: rdd.reduceByKey(func, numPartitions))

    def combineByKey(
        self,
        createCombiner: Callable[[Any], Any],
        mergeValue: Callable[[Any, Any], Any],
        mergeCombiners: Callable[[Any, Any], Any],
        numPartitions: int | None = None,
    ) -> "DStream[Any]":
        """Each batch's values per key combined."""
        return self.transform(lambda rdd: rdd.combineByKey(createCombiner, mergeValue, mergeCombiners, numPartitions))

    def groupByKey(self, numPartitions: int | None = None) -> "DStream[Any]":
        """Each batch's values per key, as an iterable."""
        return self.transform(lambda rdd: rdd.groupByKey(numPartitions))

    def union(self, other: "DStream[U]") -> "DStream[T | U]":
        """This stream's and ``other``'s elements, batch by batch."""
        if self._slide_ms != other._slide_ms:
            raise ValueError("the two DStream should have same slide duration")
        return _Joined(self, other, lambda t, a, b: a.union(b))

    def cogroup(self, other: "DStream[Any]", numPartitions: int | None = None) -> "DStream[Any]":
        """Each key's values in this and ``other``, batch by batch."""
        return self.transformWith(lambda a, b: a.cogroup(b, numPartitions), other)

    def join(self, other: "DStream[Any]", numPartitions: int | None = None) -> "DStream[Any]":
        """Inner join of each batch's pairs with ``other``'s."""
        return self.transformWith(lambda a, b: a.join(b, numPartitions), other)

    def leftOuterJoin(self, other: "DStream[Any]", numPartitions: int | None = None) -> "DStream[Any]":
        """Left outer join, batch by batch."""
        return self.transformWith(lambda a, b: a.leftOuterJoin(b, numPartitions), other)

    def rightOuterJoin(self, other: "DStream[Any]", numPartitions: int | None = None) -> "DStream[Any]":
        """Right outer join, batch by batch."""
        return self.transformWith(lambda a, b: a.rightOuterJoin(b, numPartitions), other)

    def fullOuterJoin(self, other: "DStream[Any]", numPartitions: int | None = None) -> "DStream[Any]":
        """Full outer join, batch by batch."""
        return self.transformWith(lambda a, b: a.fullOuterJoin(b, numPartitions), other)

    def cache(self) -> "DStream[T]":
        """Keep each batch's RDD in memory once computed."""
        self._cached = True
        return self

    def persist(self, storageLevel: Any = None) -> "DStream[T]":
        """As :meth:`cache`."""
        return self.cache()

    def checkpoint(self, interval: int) -> "DStream[T]":
        """Accepted: sparklet keeps what recovery needs in the context's checkpoint."""
        return self

    # ---- windows --------------------------------------------------------------

    def _ms(self, seconds: float) -> int:
        ms = int(round(seconds * 1000))
        if ms % self._ssc._batch_ms:
            raise ValueError(
                f"The duration {seconds} s is not a multiple of the batch interval ({self._ssc._batch_ms / 1000} s)"
            )
        return ms

    def window(self, windowDuration: int, slideDuration: int | None = None) -> "DStream[T]":
        """The elements of the last ``windowDuration`` seconds, every
        ``slideDuration`` seconds (the batch interval by default)."""
        window = self._ms(windowDuration)
        slide = self._ms(slideDuration) if slideDuration is not None else self._slide_ms
        return _Windowed(self, window, slide)

    def reduceByWindow(
        self,
        reduceFunc: Callable[[T, T], T],
        invReduceFunc: Callable[[T, T], T] | None,
        windowDuration: int,
        slideDuration: int,
    ) -> "DStream[T]":
        """The window's elements reduced to one."""
        keyed = self.map(lambda x: (1, x))
        reduced = keyed.reduceByKeyAndWindow(reduceFunc, invReduceFunc, windowDuration, slideDuration, 1)
        return reduced.map(lambda kv: kv[1])

    def countByWindow(self, windowDuration: int, slideDuration: int) -> "DStream[int]":
        """The number of elements in the window."""
        self._ssc._require_checkpoint()
        return self.map(lambda _: 1).reduceByWindow(
            lambda a, b: a + b, lambda a, b: a - b, windowDuration, slideDuration
        )

    def countByValueAndWindow(
        self, windowDuration: int, slideDuration: int, numPartitions: int | None = None
    ) -> "DStream[Any]":
        """Each distinct element's count in the window (elements no longer in it dropped)."""
        self._ssc._require_checkpoint()
        counts = self.map(lambda x: (x, 1)).reduceByKeyAndWindow(
            lambda a, b: a + b, lambda a, b: a - b, windowDuration, slideDuration, numPartitions
        )
        return counts.filter(lambda kv: kv[1] > 0)

    def groupByKeyAndWindow(
        self, windowDuration: int, slideDuration: int, numPartitions: int | None = None
    ) -> "DStream[Any]":
        """Each key's values in the window."""
        return self.window(windowDuration, slideDuration).groupByKey(numPartitions)

    def reduceByKeyAndWindow(
        self,
        func: Callable[[Any, Any], Any],
        invFunc: Callable[[Any, Any], Any] | None,
        windowDuration: int,
        slideDuration: int | None = None,
        numPartitions: int | None = None,
        filterFunc: Callable[[Any], bool] | None = None,
    ) -> "DStream[Any]":
        """Each key's values in the window reduced with ``func``. With
        ``invFunc`` and a window of five slides or more, incrementally: the
        last result, ``invFunc`` of the batches that left, plus the batches
        that entered (keys stay, with the value that leaves them, unless
        ``filterFunc`` drops them)."""
        window = self._ms(windowDuration)
        slide = self._ms(slideDuration) if slideDuration is not None else self._slide_ms
        reduced = self.reduceByKey(func, numPartitions)
        if invFunc is None:
            return reduced.window(windowDuration, slideDuration).reduceByKey(func, numPartitions)
        self._ssc._require_checkpoint()
        return _IncrementalWindow(reduced, func, invFunc, window, slide, numPartitions, filterFunc)

    def updateStateByKey(
        self,
        updateFunc: Callable[..., Any],
        numPartitions: int | None = None,
        initialRDD: RDD[Any] | None = None,
    ) -> "DStream[Any]":
        """Each key's state: ``updateFunc(new_values, last_state)`` for
        every key with a state or new values, each batch (None removes the
        key). Kept in the context's checkpoint."""
        self._ssc._require_checkpoint()
        return _State(self, updateFunc, initialRDD)

    # ---- output -----------------------------------------------------------------

    def foreachRDD(self, func: Callable[..., None]) -> None:
        """Call ``func(rdd)`` or ``func(time, rdd)`` for each batch."""
        two = _arity(func) == 2
        self._ssc._outputs.append((self, (lambda t, rdd: func(_time(t), rdd)) if two else (lambda t, rdd: func(rdd))))

    def pprint(self, num: int = 10) -> None:
        """Print each batch's first ``num`` elements under its time."""

        def show(t: int, rdd: RDD[Any]) -> None:
            taken = rdd.take(num + 1)
            print("-------------------------------------------")
            print(f"Time: {_time(t)}")
            print("-------------------------------------------")
            for record in taken[:num]:
                print(record)
            if len(taken) > num:
                print("...")
            print("")

        self._ssc._outputs.append((self, show))

    def saveAsTextFiles(self, prefix: str, suffix: str | None = None) -> None:
        """Each batch as text files in ``prefix-<time ms>[.suffix]``."""

        def save(t: int, rdd: RDD[Any]) -> None:
            path = f"{prefix}-{t}" + (f".{suffix}" if suffix else "")
            if not os.path.exists(path):
                rdd.saveAsTextFile(path)

        self._ssc._outputs.append((self, save))

    def slice(self, begin: datetime.datetime, end: datetime.datetime) -> list[RDD[T]]:
        """The RDDs kept for batch times from ``begin`` to ``end``."""
        lo, hi = begin.timestamp() * 1000, end.timestamp() * 1000
        return [r for t, r in sorted(self._generated.items()) if lo <= t <= hi and r is not None]


class _Source(DStream[T]):
    """An input stream: its RDD for a batch comes from ``produce``."""

    def __init__(self, ssc: "StreamingContext", produce: Callable[[int], RDD[T]]) -> None:
        super().__init__(ssc, [])
        self._produce = produce

    def _compute(self, time_ms: int) -> RDD[T] | None:
        return self._produce(time_ms)


class _Transformed(DStream[U]):
    def __init__(self, parent: DStream[Any], func: Callable[[int, RDD[Any]], RDD[U]]) -> None:
        super().__init__(parent._ssc, [parent], parent._slide_ms)
        self._func = func

    def _compute(self, time_ms: int) -> RDD[U] | None:
        rdd = self._parents[0]._rdd_at(time_ms)
        return None if rdd is None else self._func(time_ms, rdd)


class _Joined(DStream[U]):
    def __init__(self, a: DStream[Any], b: DStream[Any], func: Callable[[int, RDD[Any], RDD[Any]], RDD[U]]) -> None:
        super().__init__(a._ssc, [a, b], a._slide_ms)
        self._func = func

    def _compute(self, time_ms: int) -> RDD[U] | None:
        a, b = (p._rdd_at(time_ms) for p in self._parents)
        return self._func(time_ms, a if a is not None else self._empty(), b if b is not None else self._empty())


class _Windowed(DStream[T]):
    def __init__(self, parent: DStream[T], window_ms: int, slide_ms: int) -> None:
        super().__init__(parent._ssc, [parent], slide_ms)
        self._window_ms = window_ms
        parent._remember(window_ms)

    def _compute(self, time_ms: int) -> RDD[T] | None:
        parent = self._parents[0]
        step = parent._slide_ms
        rdds = [
            r
            for t in range(time_ms - self._window_ms + step, time_ms + 1, step)
            if t > self._ssc._zero_ms and (r := parent._rdd_at(t)) is not None
        ]
        out = self._empty()
        for r in rdds:
            out = out.union(r)
        return out


class _IncrementalWindow(DStream[Any]):
    """``reduceByKeyAndWindow`` with an inverse function."""

    def __init__(
        self,
        parent: DStream[Any],
        func: Any,
        inv: Any,
        window_ms: int,
        slide_ms: int,
        partitions: int | None,
        keep: Any,
    ) -> None:
        super().__init__(parent._ssc, [parent], slide_ms)
        self._func, self._inv, self._window_ms, self._parts, self._keep = func, inv, window_ms, partitions, keep
        parent._remember(window_ms + slide_ms)
        self._remember_ms = window_ms + slide_ms

    def _batches(self, after: int, upto: int) -> RDD[Any]:
        parent = self._parents[0]
        out = self._empty()
        for t in range(after + parent._slide_ms, upto + 1, parent._slide_ms):
            r = parent._rdd_at(t) if t > self._ssc._zero_ms else None
            if r is not None:
                out = out.union(r)
        return out

    def _compute(self, time_ms: int) -> RDD[Any] | None:
        previous = self._generated.get(time_ms - self._slide_ms)
        # as Spark: a window under five slides is reduced whole (keys leave with their batches)
        if previous is None or self._window_ms < 5 * self._slide_ms:
            result = self._batches(time_ms - self._window_ms, time_ms).reduceByKey(self._func, self._parts)
        else:
            old = self._batches(time_ms - self._slide_ms - self._window_ms, time_ms - self._window_ms)
            new = self._batches(time_ms - self._slide_ms, time_ms)
            func, inv = self._func, self._inv

            def merged(v: tuple[Iterable[Any], Iterable[Any]]) -> Any:
                firsts, entered = list(v[0]), list(v[1])
                before, gone = (list(firsts[0][0]), list(firsts[0][1])) if firsts else ([], [])
                value = before[0] if before else None
                for x in gone:
                    value = inv(value, x)
                for x in entered:
                    value = x if value is None else func(value, x)
                return value

            grouped = previous.cogroup(old.reduceByKey(func)).cogroup(new.reduceByKey(func))
            result = grouped.mapValues(merged)
        if self._keep is not None:
            result = result.filter(self._keep)
        return result.cache()


class _State(DStream[Any]):
    """``updateStateByKey``: each key's state, carried from batch to batch in
    memory and written, as it changes, to a state store of the engine in
    the context's checkpoint (one version per batch, as a query's state):
    keys and values pickled, a key stored under the bytes it was first
    pickled to (equal keys can pickle differently)."""

    def __init__(self, parent: DStream[Any], update: Callable[..., Any], initial: RDD[Any] | None) -> None:
        super().__init__(parent._ssc, [parent], parent._slide_ms)
        self._update = update
        self._initial = initial
        self._index = len(self._ssc._stateful)
        self._ssc._stateful.append(self)
        self._store: Any = None
        self._state: dict[Any, Any] = {}
        # each key's bytes in the store, and its value's as last written
        self._keys: dict[Any, bytes] = {}
        self._written: dict[Any, bytes] = {}

    def _open(self) -> None:
        """The store at the version the context resumes from (0: new)."""
        from sparklet import _native

        version = self._version()
        directory = os.path.join(str(self._ssc._checkpoint), "state", f"updateStateByKey-{self._index}")
        self._store = _native.open_state_store(self._sc()._session._native, directory, version)
        for key_bytes, value_bytes in self._store.entries():
            key = pickle.loads(key_bytes)
            self._keys[key], self._written[key] = key_bytes, value_bytes
            self._state[key] = pickle.loads(value_bytes)
        if version == 0 and self._initial is not None:
            self._state.update(self._initial.collect())

    def _version(self) -> int:
        """The store's version (the one to resume from until it is opened)."""
        if self._store is not None:
            return int(self._store.version())
        resume = self._ssc._resume
        return int(resume["state_versions"][self._index]) if resume else 0

    def _compute(self, time_ms: int) -> RDD[Any] | None:
        if self._store is None:
            self._open()
        rdd = self._parents[0]._rdd_at(time_ms)
        new: dict[Any, list[Any]] = {}
        for k, v in rdd.collect() if rdd is not None else []:
            new.setdefault(k, []).append(v)
        state = {}
        for key in list(self._state) + [k for k in new if k not in self._state]:
            value = self._update(new.get(key, []), self._state.get(key))
            if value is not None:
                state[key] = value
        self._persist(state)
        self._state = state
        return self._sc().parallelize(sorted(state.items(), key=lambda kv: repr(kv[0])), 2).cache()

    def _persist(self, state: dict[Any, Any]) -> None:
        """Write what changed from the last version as the next one."""
        for key in [k for k in self._keys if k not in state]:
            self._store.remove(self._keys.pop(key))
            del self._written[key]
        for key, value in state.items():
            value_bytes = pickle.dumps(value)
            if self._written.get(key) != value_bytes:
                key_bytes = self._keys.get(key)
                if key_bytes is None:
                    key_bytes = self._keys[key] = pickle.dumps(key)
                self._store.put(key_bytes, value_bytes)
                self._written[key] = value_bytes
        self._store.commit()
