"""Batch Parquet writing: ``df.write.parquet`` against
``pyarrow.parquet.write_table`` of the same rows, in one run.

    python bench/batch_write.py [--rows 5000000] [--repeat 5]

The rows (an id, a double, a short string, a timestamp) are built once as a
``pyarrow.Table``; sparklet writes a DataFrame over that table (snappy, one
file: ``coalesce(1)``), pyarrow writes the table itself (snappy). Prints the
median seconds of each and their ratio; run it with a release wheel (a
debug build says nothing about speed).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from sparklet.sql import SparkSession

    n = args.rows
    rng = np.random.default_rng(0)
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "value": pa.array(rng.random(n)),
            "page": pa.array(np.array(["home", "cart", "search", "item"])[rng.integers(0, 4, n)]),
            "ts": pa.array((np.arange(n, dtype=np.int64) * 1000), type=pa.timestamp("us", tz="UTC")),
        }
    )
    spark = SparkSession.builder.getOrCreate()
    df = spark.createDataFrame(table).coalesce(1)
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.repeat):
            out = Path(d) / f"sparklet-{i}"
            t = time.perf_counter()
            df.write.parquet(str(out))
            ours.append(time.perf_counter() - t)
            shutil.rmtree(out)
            out = Path(d) / f"pyarrow-{i}.parquet"
            t = time.perf_counter()
            pq.write_table(table, out, compression="snappy")
            theirs.append(time.perf_counter() - t)
            out.unlink()
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"{n:,} rows, median of {args.repeat}: df.write.parquet {a:.3f} s, "
        f"pyarrow.parquet.write_table {b:.3f} s, ratio (pyarrow / sparklet) {b / a:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
