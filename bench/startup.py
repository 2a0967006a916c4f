"""Start-up: ``import sparklet``, session creation, and the first batch of a
trivial query, each timed in a fresh interpreter.

    python bench/startup.py [--runs 5] [--pyspark]

Each run is a new process (nothing cached in it): it times the import of
``sparklet.sql``, ``SparkSession.builder.getOrCreate()``, and a query over
the ``rate-micro-batch`` source (three rows a batch) into the memory sink
up to the end of its first batch (``availableNow``: one batch), then the whole
of it from the interpreter's start. Prints the median of ``--runs``; with
``--pyspark`` the same steps on PySpark (local mode).

Rows added from Python (``MemoryStream.addData([...])``, ``createDataFrame``
of tuples) cost one import of pandas more, about 0.25 s: pyarrow imports
it on its first conversion of Python objects.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, time
t0 = time.perf_counter()
ENGINE = {engine!r}
if ENGINE == "sparklet":
    from sparklet.sql import SparkSession
    t1 = time.perf_counter()
    spark = SparkSession.builder.getOrCreate()
    t2 = time.perf_counter()
else:
    from pyspark.sql import SparkSession
    t1 = time.perf_counter()
    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    t2 = time.perf_counter()
df = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 3).load()
q = df.writeStream.format("memory").queryName("t").trigger(availableNow=True).start()
q.awaitTermination()
t3 = time.perf_counter()
assert spark.table("t").count() >= 3
q.stop()
print(json.dumps({{"import": t1 - t0, "session": t2 - t1, "first_batch": t3 - t2, "total": t3 - t0}}))
"""


def run(engine: str, runs: int) -> dict[str, float]:
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD.format(engine=engine)], capture_output=True, text=True, check=True
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in results) for k in results[0]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pyspark", action="store_true", help="also time PySpark (needs PySpark and Java)")
    args = ap.parse_args()
    engines = ["sparklet", "pyspark"] if args.pyspark else ["sparklet"]
    print(f"median of {args.runs} fresh processes, ms")
    print(f"{'engine':9s} {'import':>8s} {'session':>8s} {'1st batch':>10s} {'total':>8s}")
    for engine in engines:
        r = run(engine, args.runs if engine == "sparklet" else max(1, args.runs // 2))
        print(
            f"{engine:9s} {r['import'] * 1000:8.0f} {r['session'] * 1000:8.0f} "
            f"{r['first_batch'] * 1000:10.0f} {r['total'] * 1000:8.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
