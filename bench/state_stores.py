"""Large state on each provider: the in-memory store and RocksDB.

    python bench/state_stores.py [--keys 10000000] [--files 10]

Writes Parquet files of ``--keys`` distinct keys, then for each provider
(in-memory; RocksDB with ``boundedMemoryUsage`` at 500 MB) runs, each in its
own process so that peak memory is its own:

- ``aggregation``: ``groupBy("key").agg(count, sum)`` in update mode (no
  watermark: every key stays in state);
- ``dedup``: ``dropDuplicates(["key"])`` (every key stays in state);

with ``maxFilesPerTrigger=1`` and ``availableNow``, then restarts the query
on its checkpoint with one small new file and times that restart (start to
the batch's end: the state is loaded from the checkpoint). Prints
events/s, peak RSS, checkpoint size, restart seconds, and RocksDB's
throughput relative to the in-memory store's. Measure with a release build.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from side_by_side import peak_rss

PROVIDERS = {
    "memory": {},
    "rocksdb": {
        "spark.sql.streaming.stateStore.providerClass": "rocksdb",
        "spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage": "true",
        "spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB": "500",
    },
}
KINDS = ("aggregation", "dedup")
SCHEMA = "key BIGINT, v INT"


def generate(folder: Path, keys: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    (folder / "in").mkdir()
    per = -(-keys // files)
    order = rng.permutation(keys)  # keys arrive in no order
    for f in range(files):
        part = order[f * per : (f + 1) * per]
        table = pa.table({"key": pa.array(part, pa.int64()), "v": pa.array(part % 1000, pa.int32())})
        pq.write_table(table, folder / "in" / f"part-{f:03d}.parquet")


def child(provider: str, kind: str, folder: Path) -> dict:
    """One query on one provider: the full run, then a timed restart."""
    from sparklet.sql import SparkSession
    from sparklet.sql import functions as F

    builder = SparkSession.builder.config("spark.sql.shuffle.partitions", "4")
    for k, v in PROVIDERS[provider].items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    ckpt = folder / f"ckpt-{provider}-{kind}"

    def start():  # noqa: ANN202
        stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in"))
        if kind == "aggregation":
            query = stream.groupBy("key").agg(F.count("*").alias("n"), F.sum("v").alias("s"))
            mode = "update"
        else:
            query = stream.dropDuplicates(["key"])
            mode = "append"
        return (
            query.writeStream.outputMode(mode)
            .foreachBatch(lambda tbl, _: None)
            .option("checkpointLocation", str(ckpt))
            .trigger(availableNow=True)
            .start()
        )

    t0 = time.perf_counter()
    q = start()
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    progress = q.recentProgress
    events = sum(p["numInputRows"] for p in progress)
    # the largest state any batch reported (a batch without data has no entry)
    state_rows = max((o["numRowsTotal"] for p in progress for o in p.get("stateOperators", [])), default=0)
    # each file once: RocksDB snapshots share their files as hard links
    files = {(s.st_dev, s.st_ino): s.st_size for f in (ckpt / "state").rglob("*") if f.is_file() for s in [f.stat()]}
    state_bytes = sum(files.values())
    # a restart: one small new file, state loaded from the checkpoint
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({"key": pa.array([-1, -2], pa.int64()), "v": pa.array([1, 2], pa.int32())}),
        folder / "in" / f"zz-{provider}-{kind}.parquet",
    )
    t0 = time.perf_counter()
    q = start()
    q.awaitTermination()
    restart = time.perf_counter() - t0
    return {
        "events": events,
        "elapsed": elapsed,
        "state_rows": state_rows,
        "checkpoint_bytes": state_bytes,
        "restart": restart,
        "peak_rss": peak_rss(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--child", nargs=3, metavar=("PROVIDER", "KIND", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        provider, kind, folder = args.child
        print(json.dumps(child(provider, kind, Path(folder))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, args.keys, args.files)
        for kind in KINDS:
            rates = {}
            for provider in PROVIDERS:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", provider, kind, str(folder)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                r = json.loads(out.stdout.strip().splitlines()[-1])
                for extra in (folder / "in").glob("zz-*"):  # the restart's file: not the next run's input
                    extra.unlink()
                rates[provider] = r["events"] / r["elapsed"]
                print(
                    f"{kind:11s} {provider:7s}: {rates[provider]:12,.0f} events/s ({r['events']:,} events, "
                    f"{r['elapsed']:.2f} s), {r['state_rows']:,} keys in state, peak RSS "
                    f"{r['peak_rss'] / 2**20:,.0f} MiB, checkpoint {r['checkpoint_bytes'] / 2**20:,.0f} MiB, "
                    f"restart {r['restart']:.2f} s"
                )
            print(f"{kind:11s} RocksDB throughput is {rates['rocksdb'] / rates['memory']:.2f}x the in-memory store's")


if __name__ == "__main__":
    sys.exit(main())
