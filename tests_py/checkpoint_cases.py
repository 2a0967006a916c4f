"""Stateful queries whose checkpoints are kept as fixtures
(``tests_py/fixtures/checkpoints/``, written by ``tools/checkpoint_fixtures.py``):
each query over memory streams, the rows of its first batch (in the
fixture) and of the batch run after a restart."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pandas as pd

from sparklet.sql import DataFrame
from sparklet.sql import functions as F
from sparklet.sql.streaming.state import GroupState
from sparklet.testing import MemoryStream

EVENTS = "key STRING, ts TIMESTAMP, v INT"


def at(seconds: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)


FIRST = [("a", at(1), 1), ("b", at(2), 2), ("a", at(3), 3), ("c", at(12), 4)]
# later rows, one behind the watermark the first batch set
SECOND = [("a", at(4), 5), ("b", at(25), 6), ("d", at(26), 7), ("a", at(31), 8)]


def _running_count(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    n = (state.get[0] if state.exists else 0) + sum(len(p) for p in pdfs)
    state.update((n,))
    yield pd.DataFrame({"key": [key[0]], "n": [n]})


@dataclass(frozen=True)
class Case:
    """A stateful query over ``streams`` memory streams of ``EVENTS``."""

    name: str
    build: Callable[[list[DataFrame]], DataFrame]
    mode: str = "append"
    streams: int = 1
    #: Fixture labels written before the operator's state layout changed:
    #: those checkpoints resume in the layout they have.
    earlier_layouts: tuple[str, ...] = ()


def _watermarked(df: DataFrame) -> DataFrame:
    return df.withWatermark("ts", "10 seconds")


def _join(dfs: list[DataFrame]) -> DataFrame:
    left = _watermarked(dfs[0]).select(F.col("key").alias("lk"), F.col("ts").alias("lts"), "v")
    right = _watermarked(dfs[1]).select(F.col("key").alias("rk"), F.col("ts").alias("rts"))
    cond = (F.col("lk") == F.col("rk")) & F.col("rts").between(
        F.col("lts"), F.col("lts") + F.expr("INTERVAL 5 SECONDS")
    )
    return left.join(right, cond, "leftOuter")


CASES = [
    Case("window-count", lambda d: _watermarked(d[0]).groupBy(F.window("ts", "10 seconds"), "key").count()),
    Case("keyed-sum", lambda d: d[0].groupBy("key").agg(F.sum("v").alias("s"), F.count("*").alias("n")), "update"),
    Case(
        "sliding-window",
        lambda d: (
            _watermarked(d[0])
            .groupBy(F.window("ts", "10 seconds", "4 seconds"), "key")
            .agg(F.count("*").alias("n"), F.sum("v").alias("s"))
        ),
        # written when the state held windows, not panes
        earlier_layouts=("main-04828f3",),
    ),
    Case("session-window", lambda d: _watermarked(d[0]).groupBy(F.session_window("ts", "5 seconds"), "key").count()),
    Case("dedup", lambda d: _watermarked(d[0]).dropDuplicates(["key", "ts"])),
    Case("dedup-within-watermark", lambda d: _watermarked(d[0]).dropDuplicatesWithinWatermark(["key"])),
    Case("stream-join", _join, streams=2),
    Case(
        "group-state",
        lambda d: (
            d[0]
            .groupBy("key")
            .applyInPandasWithState(_running_count, "key STRING, n LONG", "n LONG", "update", "NoTimeout")
        ),
        "update",
    ),
    Case("limit", lambda d: d[0].limit(6)),
]

PROVIDERS = {"hdfs": "hdfs", "rocksdb": "rocksdb"}


def streams(spark, case: Case) -> list[MemoryStream]:  # noqa: ANN001
    return [MemoryStream(spark, EVENTS) for _ in range(case.streams)]


def feed(sources: list[MemoryStream], rows: list[tuple]) -> None:
    """The same rows into every stream of the case."""
    for ms in sources:
        ms.addData(rows)


def run(spark, case: Case, provider: str, ckpt: str, committed: list[list[tuple]], batches: list[list[tuple]]):  # noqa: ANN001, ANN201
    """Start the case's query on checkpoint ``ckpt`` with the state store
    ``provider``: the ``committed`` batches' rows go into the streams first
    (the checkpoint holds them: not run again), then each of ``batches`` is
    run. The rows each of ``batches`` put out (sorted tuples), and the
    query's state as the statestore reader shows it."""
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", PROVIDERS[provider])
    # snapshots as well as deltas in the checkpoint, of two partitions
    spark.conf.set("spark.sql.streaming.stateStore.minDeltasForSnapshot", "1")
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    try:
        sources = streams(spark, case)
        for rows in committed:
            feed(sources, rows)
        out: list[tuple] = []
        q = (
            case.build([ms.toDF() for ms in sources])
            .writeStream.outputMode(case.mode)
            .option("checkpointLocation", ckpt)
            .foreachBatch(lambda t, i: out.extend(tuple(r.values()) for r in t.to_pylist()))
            .start()
        )
        emitted = []
        for rows in batches:
            feed(sources, rows)
            q.processAllAvailable()
            emitted.append(sorted(out, key=repr))
            out.clear()
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.providerClass")
        spark.conf.unset("spark.sql.streaming.stateStore.minDeltasForSnapshot")
        spark.conf.unset("spark.sql.shuffle.partitions")
    reader = spark.read.format("statestore")
    if case.streams == 2:
        reader = reader.option("joinSide", "left")
    state = sorted(repr(tuple(r)) for r in reader.load(ckpt).collect())
    return emitted, state
