"""Windowed streaming aggregation: sparklet vs PySpark on the same files.

    python bench/windowed.py [--events 2000000] [--files 10] [--pyspark-python PATH]

Writes Parquet event files, then runs a tumbling (10 s) and a sliding
(10 s every 5 s) window count+sum with a 5 s watermark, append mode,
``maxFilesPerTrigger=1`` (one micro-batch per file) and ``availableNow``.
Prints events/s and the state memory against the raw key + accumulator
bytes. With ``--pyspark-python`` (an interpreter that has PySpark and Java),
the same queries run on PySpark over the same files: the script prints the
throughput ratio and whether the results are identical.

Measure with a release build of sparklet (``maturin build --release`` and
install the wheel), as users get it from PyPI; ``make test`` builds debug.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from side_by_side import arguments, median_run, report, run_pyspark, session, spread, summary

QUERIES = {"tumbling": ("10 seconds", None), "sliding": ("10 seconds", "5 seconds")}
SCHEMA = "ts TIMESTAMP, category STRING, amount DOUBLE"


def generate(folder: Path, events: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    per_file = events // files
    start_us = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z
    for f in range(files):
        idx = np.arange(f * per_file, (f + 1) * per_file)
        # ~1000 events per second, up to 3 s out of order
        ts = start_us + idx * 1_000 + rng.integers(-3_000_000, 1, per_file)
        table = pa.table(
            {
                "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
                "category": pa.array([f"cat{c:02d}" for c in rng.integers(0, 20, per_file)]),
                "amount": rng.integers(0, 10_000, per_file) / 100.0,
            }
        )
        pq.write_table(table, folder / f"events-{f:03d}.parquet", row_group_size=65_536)


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, F = session(engine)
    size, slide = QUERIES[kind]
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in"))
    agg = (
        stream.withWatermark("ts", "5 seconds")
        .groupBy(F.window("ts", size, slide), "category")
        .agg(F.count(F.lit(1)).alias("cnt"), F.sum("amount").alias("sum_amount"))
    )
    name = f"bench_{kind}_{attempt}"
    t0 = time.perf_counter()
    q = (
        agg.writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", str(folder / f"ckpt-{engine}-{kind}-{attempt}"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    rows = [
        (
            r["window"]["start"].isoformat(),
            r["window"]["end"].isoformat(),
            r["category"],
            int(r["cnt"]),
            round(float(r["sum_amount"]), 2),
        )
        for r in spark.table(name).collect()
    ]
    return {**summary(q, elapsed), "rows": sorted(rows)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=10)
    args = arguments(ap)
    if args.folder:  # child mode: one engine, one query, JSON out
        print(json.dumps(run(args.engine, Path(args.folder), args.kind)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "in").mkdir()
        generate(folder / "in", args.events, args.files)
        for kind in QUERIES:
            mine = median_run([run("sparklet", folder, kind, i) for i in range(args.repeat)])
            # raw bytes per key: window (2 x 8) + category (~5) + count (8) + sum (8)
            raw = mine["max_state_keys"] * (16 + 5 + 8 + 8)
            print(
                f"{kind:9s} sparklet: {mine['events'] / mine['elapsed']:12,.0f} events/s "
                f"({mine['events']:,} events, {mine['elapsed']:.2f} s, {spread(mine)}, {len(mine['rows'])} windows out); "
                f"state {mine['max_state_bytes']:,} B for {mine['max_state_keys']} keys = {mine['max_state_bytes'] / max(raw, 1):.1f}x raw"
            )
            if args.pyspark_python:
                theirs = run_pyspark(args.pyspark_python, __file__, str(folder), kind)
                same = json.loads(json.dumps(mine["rows"])) == theirs["rows"]
                report(kind, 9, mine, theirs, same)


if __name__ == "__main__":
    sys.exit(main())
