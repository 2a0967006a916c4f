"""A disk that fills up mid-run: every error must name the file it failed on.

    python stress/disk_full.py        (root: it mounts small tmpfs folders)

Runs a file-sink query and a stateful aggregation with their checkpoints on
a tmpfs of 64 KiB to 512 KiB, adding rows until a write fails, so that the
failing write lands on a different file each time (offsets, commits, state
deltas and snapshots, data files, the sink's manifest). Prints each size's
error; exits 1 if one names no file under the full folder.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream

SIZES_KB = [64, 96, 128, 160, 192, 256, 320, 384, 448, 512]


def fill(spark: SparkSession, root: Path, size_kb: int) -> str | None:
    """Run until the tmpfs at ``root`` is full; the error's first line."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(root)], check=True)
    try:
        ms = MemoryStream(spark, "k STRING, v STRING")
        files = (
            ms.toDF()
            .writeStream.format("json")
            .option("path", str(root / "out"))
            .option("checkpointLocation", str(root / "c1"))
            .start()
        )
        counts = (
            ms.toDF()
            .groupBy("k")
            .agg(F.count("*").alias("n"))
            .writeStream.outputMode("complete")
            .format("memory")
            .queryName(f"full_{size_kb}")
            .option("checkpointLocation", str(root / "c2"))
            .start()
        )
        error = None
        for i in range(2000):
            ms.addData([(f"key{i}-{j}", "x" * 200) for j in range(20)])
            try:
                files.processAllAvailable()
                counts.processAllAvailable()
            except Exception as e:  # noqa: BLE001 - the error is what is looked at
                error = str(e).splitlines()[0]
                break
        for q in (files, counts):
            if q.isActive:
                q.stop()
        return error
    finally:
        subprocess.run(["umount", str(root)], check=True)


def main() -> int:
    spark = SparkSession.builder.appName("disk-full").getOrCreate()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "full"
        root.mkdir()
        for size in SIZES_KB:
            error = fill(spark, root, size)
            named = error is not None and f"{root}/" in error
            ok &= named
            print(f"{size:4d} KiB: {'names its file' if named else 'NAMES NO FILE'}: {error}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
