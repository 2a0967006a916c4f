"""The floor under each Nexmark query: decoding the columns it reads.

    python bench/nexmark/scans.py [--events 10000000] [--data DIR] [--repeat 5]

Reads the Parquet events ``run.py`` wrote, as a batch query over all the
files that selects only the columns a query reads, with its event-type
filter, into a pyarrow table: no aggregation, join or state. A query can
run no faster than its scans, so against PySpark's seconds for the query
(``run.py``) this bounds the ratio any engine on the same decoder reaches.
Prints the median of ``--repeat`` runs per scan (the first run of a process
includes its page-fault warm-up, as a suite run does).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from run import ROW_GROUP

#: The scans of each query: (event type, struct, columns read).
SCANS = {
    "q0, q1": [(2, "bid", ["auction", "bidder", "price", "dateTime", "extra"])],
    "q2": [(2, "bid", ["auction", "price"])],
    "q3": [(1, "auction", ["id", "seller", "category"]), (0, "person", ["id", "name", "city", "state"])],
    "q4": [(1, "auction", ["id", "category", "dateTime", "expires"]), (2, "bid", ["auction", "price", "dateTime"])],
    "q5": [(2, "bid", ["auction", "dateTime"])],
    "q7": [(2, "bid", ["price", "dateTime"])],
    "q8": [(0, "person", ["id", "name", "dateTime"]), (1, "auction", ["seller", "dateTime"])],
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--data", default=str(Path.home() / ".cache" / "sparklet-nexmark"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    folder = Path(args.data) / f"events-{args.events}-rg{ROW_GROUP}"
    if not (folder / "_COMPLETE").exists():
        print(f"no events in {folder}: run `python bench/nexmark/run.py --events {args.events}` first")
        return 1
    from sparklet.sql import SparkSession
    from sparklet.sql import functions as F

    spark = SparkSession.builder.getOrCreate()
    schema = spark.read.parquet(str(folder)).schema
    source = spark.read.schema(schema).parquet(str(folder))
    times: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for name, scans in SCANS.items():
            t0 = time.perf_counter()
            for kind, struct, columns in scans:
                df = source.where(f"event_type = {kind}").select(*[F.col(f"{struct}.{c}").alias(c) for c in columns])
                df.toArrow()
            times.setdefault(name, []).append(time.perf_counter() - t0)
    print(f"{'query':8s} {'scan s':>7s}  columns")
    for name, runs in times.items():
        cols = "; ".join(f"{s}: {', '.join(c)}" for _, s, c in SCANS[name])
        print(f"{name:8s} {sorted(runs)[len(runs) // 2]:7.3f}  {cols}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
