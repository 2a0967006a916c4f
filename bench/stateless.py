"""Stateless streaming throughput vs. a one-shot batch run, in one process.

Parquet files -> filter + projection -> noop, run (a) as a streaming query
in 10 micro-batches (``maxFilesPerTrigger=1``, ``availableNow``) and (b) as
one DataFusion batch query over the same files. Prints rows/s for both, the
ratio (goal: >= 0.8), and the p50 cost of an empty trigger (goal: < 1 ms).

    python bench/stateless.py [--rows-per-file N] [--files N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sparklet.sql import SparkSession
from sparklet.sql import functions as F

# Row groups of 128 Ki rows (Spark writes several per large file); one-group
# files cap a one-file micro-batch at one core (see --row-group).
ROW_GROUP = 131_072
SCHEMA = "id BIGINT, category STRING, amount DOUBLE, ts TIMESTAMP"


def generate(folder: Path, files: int, rows: int) -> int:
    rng = np.random.default_rng(42)
    cats = np.array(["books", "games", "music", "garden", "tools"])
    for f in range(files):
        ids = np.arange(f * rows, (f + 1) * rows, dtype=np.int64)
        table = pa.table(
            {
                "id": ids,
                "category": pa.array(cats[rng.integers(0, len(cats), rows)]),
                "amount": rng.uniform(0, 100, rows),
                "ts": pa.array(ids * 1_000, pa.timestamp("us", tz="UTC")),
            }
        )
        pq.write_table(table, folder / f"part-{f:03d}.parquet", row_group_size=ROW_GROUP)
    return files * rows


def pipeline(df):  # noqa: ANN001, ANN201 - a sparklet DataFrame
    return df.where(F.col("amount") > 50.0).select("id", (F.col("amount") * 2).alias("double_amount"), "category")


def run_stream(spark: SparkSession, folder: Path) -> tuple[float, int, int]:
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder))
    t0 = time.perf_counter()
    q = pipeline(stream).writeStream.format("noop").trigger(availableNow=True).start()
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    progress = q.recentProgress
    return elapsed, sum(p["numInputRows"] for p in progress), sum(1 for p in progress if p["numInputRows"] > 0)


def run_batch(spark: SparkSession, folder: Path) -> float:
    t0 = time.perf_counter()
    df = pipeline(spark.read.schema(SCHEMA).parquet(str(folder)))
    df._native.run_discard()
    return time.perf_counter() - t0


def empty_trigger_p50_ms(spark: SparkSession, folder: Path) -> float:
    q = spark.readStream.schema(SCHEMA).parquet(str(folder)).writeStream.format("noop").start()
    q.processAllAvailable()
    time.sleep(1.0)
    nanos = q._native.idle_trigger_nanos()
    q.stop()
    return statistics.median(nanos[1:]) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--rows-per-file", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    spark = SparkSession.builder.appName("bench").getOrCreate()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        total = generate(folder, args.files, args.rows_per_file)
        run_batch(spark, folder)  # warm the file cache
        stream_times, batch_times = [], []
        for _ in range(args.repeat):
            elapsed, rows, batches = run_stream(spark, folder)
            assert rows == total, (rows, total)
            stream_times.append(elapsed)
            batch_times.append(run_batch(spark, folder))
        s, b = min(stream_times), min(batch_times)
        print(f"rows: {total:,} in {args.files} files; streaming ran {batches} micro-batches")
        print(f"streaming  : {total / s:14,.0f} rows/s  ({s * 1000:.0f} ms, best of {args.repeat})")
        print(f"batch      : {total / b:14,.0f} rows/s  ({b * 1000:.0f} ms, best of {args.repeat})")
        print(f"ratio      : {b / s:.2f}x of one-shot batch throughput (goal >= 0.8)")
        print(f"empty trigger p50: {empty_trigger_p50_ms(spark, folder):.3f} ms (goal < 1 ms)")
    spark.stop()


if __name__ == "__main__":
    main()
