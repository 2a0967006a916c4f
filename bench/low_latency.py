"""Event-to-sink latency in the micro-batch, real-time and continuous modes.

    python bench/low_latency.py [--rates 1000 10000 100000] [--seconds 6] [--runs 3]

Nexmark bids arrive at each rate (the ``nexmark`` source in ``realTime``
mode: an event becomes available when the wall clock reaches its event
time, ``dateTime``) and go through

- a stateless query (``select`` of the bid's fields), and
- a stateful query (``groupBy(window(dateTime, 1 second), auction)``
  counts with the window's newest ``dateTime``, update mode),

checkpointed, into a ``foreach`` function of a row, which notes the wall
clock. A stateless row's latency is that time less its event's
``dateTime`` (every event is measured); a stateful row's is that time less
the newest event it counts (the freshest event's latency: older events of
the same update waited longer). Micro-batch runs use ``processingTime="0
seconds"``, real-time mode ``realTime="5 seconds"``, continuous processing
``continuous="1 second"`` (stateless only: Spark allows nothing else).
The first second of each run (start-up) is left out. Each configuration
runs ``--runs`` times (3); prints the median run's p50, p99 and max (by
p99) and the spread of p99 over the runs, and for the stateless query the
share of the rate's events that reached the sink (below 100%: the query
fell behind, and its latency grew for as long as the run lasted).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from array import array

import numpy as np

#: Nexmark's mix: of every 50 events, 46 are bids
BID_SHARE = 46 / 50

TRIGGERS = {
    "micro-batch": {"processingTime": "0 seconds"},
    "real-time": {"realTime": "5 seconds"},
    "continuous": {"continuous": "1 second"},
}


def run(spark, query: str, mode: str, rate: int, seconds: float) -> np.ndarray:  # noqa: ANN001
    from sparklet.sql import functions as F

    # plain doubles, not a tuple a row: half a million objects kept alive
    # would make each full pass of Python's garbage collector stop the
    # process for tens of milliseconds, a latency of the benchmark's own
    arrivals, events = array("d"), array("d")
    arrive, event, clock = arrivals.append, events.append, time.time

    def record(row) -> None:  # noqa: ANN001
        arrive(clock())
        event(row.newest.timestamp())

    bids = (
        spark.readStream.format("nexmark")
        .option("realTime", "true")
        .option("eventsPerSecond", rate)
        .load()
        .where("event_type = 2")
        .select("bid.*")
    )
    if query == "stateless":
        out = bids.select("auction", "price", F.col("dateTime").alias("newest"))
    else:
        out = (
            bids.withWatermark("dateTime", "1 second")
            .groupBy(F.window("dateTime", "1 second"), "auction")
            .agg(F.count("*").alias("bids"), F.max("dateTime").alias("newest"))
        )
    with tempfile.TemporaryDirectory() as ckpt:
        q = (
            out.writeStream.outputMode("update")
            .option("checkpointLocation", ckpt)
            .foreach(record)
            .trigger(**TRIGGERS[mode])
            .start()
        )
        time.sleep(seconds)
        q.stop()
    if not arrivals:
        return np.array([np.nan])
    arrived, at = np.frombuffer(arrivals), np.frombuffer(events)
    keep = at >= at.min() + 1.0
    return (arrived - at)[keep] * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rates", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--runs", type=int, default=3, help="runs per configuration; the median run is printed")
    args = ap.parse_args()
    from sparklet.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    print("| query | mode | events/s | rows measured | kept up | p50 ms | p99 ms | max ms | p99 of each run |")
    print("|---|---|---|---|---|---|---|---|---|")
    for query in ("stateless", "stateful"):
        for mode in TRIGGERS:
            if query == "stateful" and mode == "continuous":
                continue
            for rate in args.rates:
                runs = sorted(
                    (run(spark, query, mode, rate, args.seconds) for _ in range(args.runs)),
                    key=lambda lat: np.percentile(lat, 99),
                )
                lat = runs[len(runs) // 2]
                # every bid after the first second is measured when the query keeps up
                expected = rate * BID_SHARE * (args.seconds - 1)
                kept = f"{lat.size / expected:.0%}" if query == "stateless" else "-"
                each = " / ".join(f"{np.percentile(r, 99):.2f}" for r in runs)
                print(
                    f"| {query} | {mode} | {rate:,} | {lat.size:,} | {kept} | {np.percentile(lat, 50):.2f} "
                    f"| {np.percentile(lat, 99):.2f} | {lat.max():.2f} | {each} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
