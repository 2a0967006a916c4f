"""A restart changes nothing about which rows are late: each batch filters
late rows against the watermark of the batch before it, as recorded in the
offsets log (Spark's ``prevOffsetSeqMetadata``), whether that batch ran in
this run, in an earlier one that stopped, or in one that was killed before
its commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conftest import Batches, conf_set, write_json
from sparklet.sql import SparkSession
from sparklet.sql import functions as F

pytestmark = pytest.mark.usefixtures("state_provider")

NO_DATA = "spark.sql.streaming.noDataMicroBatches.enabled"
# event times of the three input files, s: the third is behind the second's
# watermark but not behind the first's, so it is on time in batch 2
TIMES = (100, 200, 150)


@pytest.fixture()
def data_batches_only(spark: SparkSession) -> Iterator[None]:
    """Only batches with data, so that the batch ids are the files' (a batch
    without data would move the watermark between them)."""
    with conf_set(spark, NO_DATA, "false"):
        yield


def ts(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def add_file(folder: Path, i: int) -> None:
    write_json(folder, f"{i}.json", [{"id": i, "ts": ts(TIMES[i])}])
    os.utime(folder / f"{i}.json", (1_000 + i, 1_000 + i))  # listed in this order


def queries(spark: SparkSession, src: Path) -> dict:
    df = (
        spark.readStream.schema("id INT, ts TIMESTAMP")
        .option("maxFilesPerTrigger", 1)
        .json(str(src))
        .withWatermark("ts", "0 seconds")
    )
    return {
        "dedup": (df.dropDuplicates(["id", "ts"]).select("id"), "append"),
        "window": (df.groupBy(F.window("ts", "10 seconds")).count().select("count"), "update"),
    }


def run(spark: SparkSession, src: Path, ckpt: Path, which: str) -> list[list[tuple]]:
    df, mode = queries(spark, src)[which]
    seen = Batches()
    q = (
        df.writeStream.foreachBatch(seen)
        .outputMode(mode)
        .option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True)
        .start()
    )
    assert q.awaitTermination(60)
    return seen.batches


@pytest.mark.usefixtures("data_batches_only")
@pytest.mark.parametrize("which", ["dedup", "window"])
def test_a_row_on_time_uninterrupted_is_on_time_after_a_restart(
    spark: SparkSession, tmp_path: Path, which: str
) -> None:
    straight, restarted = tmp_path / "straight", tmp_path / "restarted"
    for folder in (straight, restarted):
        folder.mkdir()
    for i in range(3):
        add_file(straight, i)
    once = run(spark, straight, tmp_path / "c1", which)
    add_file(restarted, 0)
    add_file(restarted, 1)
    first = run(spark, restarted, tmp_path / "c2", which)
    add_file(restarted, 2)
    second = run(spark, restarted, tmp_path / "c2", which)
    expected = [[(0,)], [(1,)], [(2,)]] if which == "dedup" else [[(1,)], [(1,)], [(1,)]]
    assert once == expected  # the 150 s row is kept (PySpark keeps it too)
    assert first + second == expected


CHILD = textwrap.dedent(
    """
    import json, sys
    from sparklet.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    src, ckpt, out, provider = sys.argv[1:5]
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", provider)
    spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "false")
    df = (
        spark.readStream.schema("id INT, ts TIMESTAMP").option("maxFilesPerTrigger", 1).json(src)
        .withWatermark("ts", "0 seconds").dropDuplicates(["id", "ts"])
    )
    def f(t, i):
        with open(out, "a") as fh:
            fh.write(json.dumps([i, sorted(t.column("id").to_pylist())]) + "\\n")
    df.writeStream.foreachBatch(f).option("checkpointLocation", ckpt).trigger(availableNow=True).start().awaitTermination()
    """
)


@pytest.mark.sparklet_only(reason="a failpoint kills the process after batch 2's sink, before its commit")
def test_a_batch_replayed_after_a_kill_has_the_same_rows(tmp_path: Path, state_provider: str) -> None:
    (tmp_path / "in").mkdir()
    for i in range(3):
        add_file(tmp_path / "in", i)
    args = [sys.executable, "-c", CHILD, str(tmp_path / "in"), str(tmp_path / "c"), str(tmp_path / "calls")]
    env = {k: v for k, v in os.environ.items() if k != "SPARKLET_FAILPOINT"}
    killed = subprocess.run([*args, state_provider], env={**env, "SPARKLET_FAILPOINT": "after-sink@2"}, timeout=120)
    assert killed.returncode != 0
    assert subprocess.run([*args, state_provider], env=env, timeout=120).returncode == 0
    calls = [json.loads(line) for line in (tmp_path / "calls").read_text().splitlines()]
    # batch 2 twice (once before the kill, once replayed), with its row both times
    assert calls == [[0, [0]], [1, [1]], [2, [2]], [2, [2]]]
