"""Per-batch checkpoint overhead: writing offsets/N and commits/N (fsync on).

    python bench/checkpoint.py [--batches N] [--dir DIR]

Runs N tiny micro-batches through a noop sink with a checkpoint on local
disk and prints the p50 and p99 of the time spent in the two atomic log
writes per batch (goal: p50 < 2 ms), next to the whole batch's p50.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

from sparklet.sql import SparkSession
from sparklet.testing import MemoryStream


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=300)
    ap.add_argument("--dir", default=None, help="folder for the checkpoint (default: a temp folder)")
    args = ap.parse_args()
    spark = SparkSession.builder.appName("bench-checkpoint").getOrCreate()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        ms = MemoryStream(spark, "id INT")
        q = ms.toDF().writeStream.format("noop").option("checkpointLocation", tmp).start()
        for i in range(args.batches):
            ms.addData([(i,)])
            q.processAllAvailable()
        nanos = q._native.checkpoint_nanos()
        batch_ms = [p["durationMs"]["triggerExecution"] for p in q.recentProgress]
        q.stop()
    ms_values = [n / 1e6 for n in nanos]
    print(f"batches: {len(ms_values)} (checkpoint in {args.dir or tempfile.gettempdir()})")
    print(f"checkpoint offsets+commit p50: {pct(ms_values, 50):.3f} ms (goal < 2 ms)")
    print(f"checkpoint offsets+commit p99: {pct(ms_values, 99):.3f} ms")
    print(f"whole micro-batch p50: {statistics.median(batch_ms):.0f} ms (progress durationMs.triggerExecution)")
    spark.stop()


if __name__ == "__main__":
    main()
