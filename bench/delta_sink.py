"""The streaming Delta sink against the Parquet file sink, in one run.

    python bench/delta_sink.py [--rows 2000000] [--files 20] [--repeat 3]

The same stateless query (a filter and a projection over Parquet files,
``maxFilesPerTrigger`` 2, ``availableNow``) writes into a Delta table and
into the Parquet file sink, alternately, each into a fresh folder and
checkpoint. Then a small batch (``--small`` rows, one file) runs through
each sink after a warm-up batch, for the latency of one batch. Prints
medians and ratios (Delta / Parquet throughput; the goal is at least
0.8x). Run it with a release wheel: a debug build says nothing about speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_input(folder: Path, rows: int, files: int, first: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(first)
    per = rows // files
    for f in range(files):
        ids = np.arange((first + f) * per, (first + f + 1) * per, dtype=np.int64)
        table = pa.table(
            {
                "id": ids,
                "value": rng.random(per),
                "page": np.array(["home", "cart", "search", "item"])[rng.integers(0, 4, per)],
                "ts": pa.array(ids * 1000, type=pa.timestamp("us", tz="UTC")),
            }
        )
        pq.write_table(table, folder / f"part-{first + f:05d}.parquet")


def run(spark, src: Path, out: Path, ckpt: Path, fmt: str) -> float:  # noqa: ANN001
    from sparklet.sql import functions as F

    stream = spark.readStream.schema("id BIGINT, value DOUBLE, page STRING, ts TIMESTAMP")
    df = stream.option("maxFilesPerTrigger", 2).parquet(str(src))
    query = df.where(F.col("page") != "item").select("id", (F.col("value") * 2).alias("v2"), "page", "ts")
    t = time.perf_counter()
    q = query.writeStream.format(fmt).option("checkpointLocation", str(ckpt)).trigger(availableNow=True).start(str(out))
    q.awaitTermination()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from sparklet.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        write_input(root / "in", args.rows, args.files)
        times: dict[str, list[float]] = {"delta": [], "parquet": []}
        for i in range(args.repeat):
            for fmt in ("parquet", "delta"):
                times[fmt].append(run(spark, root / "in", root / f"{fmt}-{i}", root / f"ck-{fmt}-{i}", fmt))
        # one small batch after a warm one: the cost of a commit
        latency: dict[str, list[float]] = {"delta": [], "parquet": []}
        for i in range(args.repeat):
            for fmt in ("parquet", "delta"):
                src = root / f"small-{fmt}-{i}"
                write_input(src, args.small, 1)
                out, ck = root / f"small-out-{fmt}-{i}", root / f"small-ck-{fmt}-{i}"
                run(spark, src, out, ck, fmt)
                write_input(src, args.small, 1, first=1)
                latency[fmt].append(run(spark, src, out, ck, fmt))
    p, dl = statistics.median(times["parquet"]), statistics.median(times["delta"])
    print(
        f"{args.rows:,} rows in {args.files} files, {args.files // 2} batches, median of {args.repeat}: "
        f"Parquet sink {p:.3f} s ({args.rows / p / 1e6:.1f}M rows/s), Delta sink {dl:.3f} s "
        f"({args.rows / dl / 1e6:.1f}M rows/s); Delta throughput / Parquet {p / dl:.2f}x"
    )
    lp, ld = statistics.median(latency["parquet"]), statistics.median(latency["delta"])
    print(
        f"one batch of {args.small:,} rows (query start included), median of {args.repeat}: "
        f"Parquet sink {lp * 1000:.1f} ms, Delta sink {ld * 1000:.1f} ms, ratio {ld / lp:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
