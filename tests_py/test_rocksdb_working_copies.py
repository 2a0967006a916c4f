"""RocksDB working copies hold state values: they live in a folder only
their owner can enter, with a name no one can guess, and what a killed
process left is removed by the next one (sparklet-only: where Spark keeps
its working copies is its own)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.sparklet_only(reason="where Spark keeps its RocksDB working copies is its own")

CHILD = textwrap.dedent(
    """
    import sys, time
    from sparklet.sql import SparkSession
    from sparklet.testing import MemoryStream
    spark = SparkSession.builder.getOrCreate()
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", "rocksdb")
    ms = MemoryStream(spark, "k STRING")
    q = (ms.toDF().groupBy("k").count().writeStream.outputMode("complete").format("noop")
         .option("checkpointLocation", sys.argv[1]).start())
    ms.addData([("secret",)])
    q.processAllAvailable()
    print("running", flush=True)
    time.sleep(600)
    """
)


def scratch_folders(tmp: Path) -> set[Path]:
    return {p for p in tmp.iterdir() if p.name.startswith("sparklet-rocksdb-")}


def start_child(tmp: Path, ckpt: Path) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmp)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(ckpt)], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    assert child.stdout.readline().strip() == "running"
    return child


def kill(child: subprocess.Popen) -> None:
    if child.poll() is None:
        os.killpg(child.pid, signal.SIGKILL)
    child.wait(30)
    child.stdout.close()


def test_working_copies_are_private_and_a_killed_process_leaves_none_for_long(tmp_path: Path) -> None:
    tmp = Path(tempfile.mkdtemp(dir=tmp_path))
    first = start_child(tmp, tmp_path / "c1")
    try:
        [folder] = scratch_folders(tmp)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert any(folder.iterdir())  # the working copy is in there
        assert len(folder.name) > len("sparklet-rocksdb-") + 16  # not a hash of the checkpoint's path
    finally:
        kill(first)
    assert folder.exists()  # a kill -9 runs no cleanup
    second = start_child(tmp, tmp_path / "c2")
    try:
        # the next process to open a RocksDB store removed what the killed one left
        assert folder not in scratch_folders(tmp) and len(scratch_folders(tmp)) == 1
    finally:
        kill(second)
