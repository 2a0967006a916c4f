"""One run at a time owns a checkpoint, across threads and processes: a
second start is refused (never both running, never rows twice), and a run
that was killed leaves nothing that blocks the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import conf_set, dicts, write_json
from sparklet.sql import SparkSession

STOP_ACTIVE = "spark.sql.streaming.stopActiveRunOnRestart"


@pytest.fixture()
def refuse_restarts(spark: SparkSession) -> Iterator[None]:
    """A start on an active checkpoint is refused instead of stopping the active run."""
    with conf_set(spark, STOP_ACTIVE, "false"):
        yield


def start(spark: SparkSession, src: Path, ckpt: Path, seen: list):  # noqa: ANN201
    df = spark.readStream.schema("id INT").json(str(src))
    return (
        df.writeStream.foreachBatch(lambda t, _: seen.extend(r["id"] for r in dicts(t)))
        .option("checkpointLocation", str(ckpt))
        .trigger(processingTime="50 milliseconds")
        .start()
    )


def race(spark: SparkSession, src: Path, ckpt: Path, seen: list, barrier, started: list, refused: list) -> None:  # noqa: ANN001
    """Start the query once the other thread is ready to as well."""
    barrier.wait()
    try:
        started.append(start(spark, src, ckpt, seen))
    except Exception as e:  # noqa: BLE001 - the refusal is what is looked at
        refused.append(e)


@pytest.mark.usefixtures("refuse_restarts")
def test_two_threads_starting_one_checkpoint_run_it_once(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    write_json(src, "a.json", [{"id": 1}, {"id": 2}, {"id": 3}])
    for attempt in range(6):
        ckpt, seen = tmp_path / f"c{attempt}", []
        barrier = threading.Barrier(2)
        started: list = []
        refused: list = []
        args = (spark, src, ckpt, seen, barrier, started, refused)
        threads = [threading.Thread(target=race, args=args) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(started) == 1 and len(refused) == 1, (started, refused)
        # sparklet: CONCURRENT_QUERY; PySpark: its metadata file's "concurrently using" (or CONCURRENT_QUERY)
        assert any(words in str(refused[0]) for words in ("CONCURRENT_QUERY", "already active", "concurrently using"))
        started[0].processAllAvailable()
        started[0].stop()
        assert sorted(seen) == [1, 2, 3]  # once


CHILD = textwrap.dedent(
    """
    import sys, time
    from sparklet.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    src, ckpt = sys.argv[1:3]
    q = (spark.readStream.schema("id INT").json(src).writeStream.format("noop")
         .option("checkpointLocation", ckpt).trigger(processingTime="50 milliseconds").start())
    q.processAllAvailable()
    print("running", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.sparklet_only(reason="Spark has no guard across processes but the logs' own")
def test_a_checkpoint_in_use_by_another_process_is_refused_until_that_process_dies(
    spark: SparkSession, tmp_path: Path
) -> None:
    src, ckpt = tmp_path / "in", tmp_path / "c"
    src.mkdir()
    write_json(src, "a.json", [{"id": 1}])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(src), str(ckpt)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert child.stdout.readline().strip() == "running"
        seen: list = []
        with pytest.raises(Exception, match="CONCURRENT_QUERY") as e:
            start(spark, src, ckpt, seen)
        assert str(ckpt) in str(e.value)
        offsets = sorted(os.listdir(ckpt / "offsets"))
        # killed: the kernel lets the lock go with the process, nothing stale is left
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        child.wait(30)
        child.stdout.close()
    assert sorted(os.listdir(ckpt / "offsets")) == offsets  # the refused run wrote nothing
    write_json(src, "b.json", [{"id": 2}])
    q = start(spark, src, ckpt, seen)
    q.processAllAvailable()
    q.stop()
    assert seen == [2]  # the file the killed run took is not taken again
