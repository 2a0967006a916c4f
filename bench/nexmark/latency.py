"""Event-to-result latency of a windowed aggregation with checkpointing on.

    python bench/nexmark/latency.py [--rate 10000] [--seconds 10]

Nexmark bids arrive at ``--rate`` events a second (the ``nexmark`` source
in ``realTime`` mode: an event becomes available when the wall clock
reaches its event time), through ``groupBy(window(dateTime, 1 second),
auction)`` counts in update mode, checkpointed, as fast as the trigger
allows (processing time 0), into ``foreachBatch``. An event's latency is
the wall-clock time its batch's result reached ``foreachBatch`` less its
arrival time. A batch's events arrived between the newest event of the
batch before and its own newest (both in the output: the windows' newest
``dateTime``), evenly at the rate, so each batch contributes its events'
latencies exactly. Prints p50, p99 and max over all events that arrive
from one second after the first batch's result on (start-up excluded).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    from sparklet.sql import SparkSession
    from sparklet.sql import functions as F

    spark = SparkSession.builder.getOrCreate()
    batches: list[tuple[float, float, int]] = []  # (result time, newest event time, batch id)

    def record(table, batch_id: int) -> None:  # noqa: ANN001
        now = time.time()
        if table.num_rows:
            newest = max(t.timestamp() for t in table.column("newest").to_pylist())
            batches.append((now, newest, batch_id))

    stream = (
        spark.readStream.format("nexmark")
        .option("realTime", "true")
        .option("eventsPerSecond", args.rate)
        .load()
        .where("event_type = 2")
        .select("bid.*")
    )
    counts = (
        stream.withWatermark("dateTime", "1 second")
        .groupBy(F.window("dateTime", "1 second"), "auction")
        .agg(F.count("*").alias("bids"), F.max("dateTime").alias("newest"))
    )
    with tempfile.TemporaryDirectory() as ckpt:
        q = (
            counts.writeStream.outputMode("update")
            .option("checkpointLocation", ckpt)
            .foreachBatch(record)
            .trigger(processingTime="0 seconds")
            .start()
        )
        time.sleep(args.seconds)
        q.stop()
    # every event's latency, batch by batch, from one second after the first
    # batch's result reached foreachBatch (start-up excluded: the first batch
    # pays one-time costs, such as importing pandas, and the events that
    # arrive meanwhile wait for it)
    start = batches[0][0] + 1.0 if batches else 0.0
    latencies = []
    for (_, prev_newest, _), (t, newest, _) in zip(batches, batches[1:]):
        n = max(int(round((newest - prev_newest) * args.rate)), 1)
        arrivals = np.linspace(prev_newest, newest, n, endpoint=False) + (newest - prev_newest) / n
        latencies.append((t - arrivals)[arrivals >= start])
    lat = np.concatenate(latencies) * 1000 if latencies else np.array([0.0])
    print(
        f"rate {args.rate:,} events/s (bids {args.rate * 46 // 50:,}/s), {len(batches)} batches, "
        f"{lat.size:,} events measured: latency p50 {np.percentile(lat, 50):.2f} ms, "
        f"p99 {np.percentile(lat, 99):.2f} ms, max {lat.max():.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
