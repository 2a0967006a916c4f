"""The streaming workloads users run, on sparklet and on PySpark, same files.

    python bench/streaming.py [--events 2000000] [--files 20] [--repeat 3]
                              [--only join dedup ...] [--pyspark-python PATH]

Generates two Parquet streams (20 files each by default):

- ``events``: event_id, user_id, ts, amount, category; about 10,000 events
  a second of event time, up to 1 s out of order, and one in ten sent twice
  (a redelivery: the same user_id and ts);
- ``clicks``: click_id, event_id, ts; a click for about a fifth of the
  events, up to 10 s after the event.

Then runs each workload with ``maxFilesPerTrigger`` 2 and ``availableNow``,
each run in a child process of its own (so its peak RSS is its own):

========== ==================================================================
stateless  filter + project, into ``foreachBatch``
noop       the same, into the ``noop`` sink
tumbling   10 s window count/sum per category, 10 s watermark, append
sliding    30 s windows every 10 s, count/sum per category, update
dedup      ``dropDuplicates(["user_id", "ts"])``, 5 s watermark
join       events joined to their clicks within 10 s (watermarks 10 s)
pandas     the stateless query, each batch into pandas (imported
           before the clock: PySpark imports it with its session)
========== ==================================================================

Each ``foreachBatch`` folds the batch into a digest with the engine's own
DataFrame API (count and integer sums of every column; update mode's
emitted rows included), so the two engines' results are compared without
keeping them. Prints, per workload, sparklet's median of ``--repeat`` runs
(seconds, input rows/s, peak RSS, state keys and bytes), and with
``--pyspark-python`` (an interpreter with PySpark and Java) PySpark's run,
the ratio and whether the digests are identical.

Measure with a release build of sparklet (``make release``, or the wheel
``make wheel`` builds installed in a venv of its own); ``make test`` builds
debug, 10-50x slower.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from side_by_side import peak_rss, session, summary

WORKLOADS = ["stateless", "noop", "tumbling", "sliding", "dedup", "join", "pandas"]
EVENTS = "event_id BIGINT, user_id BIGINT, ts TIMESTAMP, amount DOUBLE, category STRING"
CLICKS = "click_id BIGINT, event_id BIGINT, ts TIMESTAMP"
START_US = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z
EVENTS_PER_SECOND = 10_000


def generate(folder: Path, events: int, files: int) -> None:
    """Write the two streams under ``folder`` (``events/`` and ``clicks/``)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(23)
    ids = np.arange(events, dtype=np.int64)
    # event time advances 100 us an event; each up to 1 s late
    ts = START_US + ids * (1_000_000 // EVENTS_PER_SECOND) - rng.integers(0, 1_000_000, events)
    users = rng.integers(0, 100_000, events)
    amounts = rng.integers(0, 100_000, events) / 100.0
    categories = np.array([f"cat{c:02d}" for c in range(20)])[rng.integers(0, 20, events)]
    # a redelivery repeats an event (same user and time) a little later in the stream
    again = np.flatnonzero(rng.random(events) < 0.1)
    order = np.argsort(np.concatenate([ids, again + rng.integers(1, 5_000, len(again))]), kind="stable")
    pick = np.concatenate([ids, again])[order]
    event_cols = {
        "event_id": pick,
        "user_id": users[pick],
        "ts": ts[pick],
        "amount": amounts[pick],
        "category": categories[pick],
    }
    clicked = np.flatnonzero(rng.random(events) < 0.2)
    click_ts = ts[clicked] + rng.integers(0, 10_000_000, len(clicked))
    by_time = np.argsort(click_ts, kind="stable")
    click_cols = {
        "click_id": np.arange(len(clicked), dtype=np.int64),
        "event_id": clicked[by_time],
        "ts": click_ts[by_time],
    }
    for name, cols in [("events", event_cols), ("clicks", click_cols)]:
        (folder / name).mkdir()
        n = len(cols["ts"])
        per = -(-n // files)
        for f in range(files):
            part = {k: v[f * per : (f + 1) * per] for k, v in cols.items()}
            part["ts"] = pa.array(part["ts"], pa.timestamp("us", tz="UTC"))
            pq.write_table(pa.table(part), folder / name / f"part-{f:03d}.parquet")


def query(spark, F, folder: Path, kind: str):  # noqa: ANN001, ANN201
    """The workload's streaming DataFrame and its output mode."""

    def stream(name: str, schema: str):  # noqa: ANN202
        return spark.readStream.schema(schema).option("maxFilesPerTrigger", 2).parquet(str(folder / name))

    events = stream("events", EVENTS)
    if kind in ("stateless", "noop", "pandas"):
        shaped = events.filter(F.col("amount") > 250).select(
            "event_id", "user_id", (F.col("amount") * 2).alias("doubled"), F.upper("category").alias("category")
        )
        return shaped, "append"
    if kind in ("tumbling", "sliding"):
        window = F.window("ts", "10 seconds") if kind == "tumbling" else F.window("ts", "30 seconds", "10 seconds")
        counted = (
            events.withWatermark("ts", "10 seconds")
            .groupBy(window, "category")
            .agg(F.count(F.lit(1)).alias("n"), F.sum("amount").alias("total"))
        )
        return counted, "append" if kind == "tumbling" else "update"
    if kind == "dedup":
        return events.withWatermark("ts", "5 seconds").dropDuplicates(["user_id", "ts"]), "append"
    clicks = stream("clicks", CLICKS).withColumnRenamed("event_id", "clicked").withColumnRenamed("ts", "click_ts")
    joined = events.withWatermark("ts", "10 seconds").join(
        clicks.withWatermark("click_ts", "10 seconds"),
        F.expr("event_id = clicked AND click_ts >= ts AND click_ts <= ts + interval 10 seconds"),
    )
    return joined.select("event_id", "user_id", "click_id", "amount", "click_ts"), "append"


def digest_columns(F, df) -> list:  # noqa: ANN001
    """Integer sums that fold ``df``'s rows into a digest, order aside:
    times in microseconds since the data's start, amounts in cents, text
    by its CRC-32."""

    def micros(c):  # noqa: ANN001, ANN202
        return F.unix_micros(c) - F.lit(START_US)

    out = [F.count(F.lit(1))]
    for field in df.schema.fields:
        kind = field.dataType.typeName()
        if kind == "struct":  # a window: its start and end
            cols = [micros(F.col(f"{field.name}.{b}")) for b in ("start", "end")]
        elif kind == "timestamp":
            cols = [micros(F.col(field.name))]
        elif kind == "string":
            cols = [F.crc32(F.col(field.name))]
        elif kind == "double":
            cols = [F.round(F.col(field.name) * 100).cast("long")]
        else:
            cols = [F.col(field.name)]
        out += [F.sum(c) for c in cols]
    return out


def run(engine: str, folder: Path, kind: str, attempt: int, sink: str = "callback") -> dict:
    """One workload on one engine: seconds, input rows, state, digest, peak RSS
    (``sink`` "noop": any workload into the ``noop`` sink, no digest)."""
    spark, F = session(engine)
    if kind == "pandas":
        # PySpark imports pandas while it creates its session (before the
        # clock); sparklet only when a callback first converts. Imported
        # here for both, so each pays its import outside the timing.
        import pandas  # noqa: F401
    df, mode = query(spark, F, folder, kind)
    digest: list[int] = []

    def fold(values: list) -> None:  # noqa: ANN001
        values = [int(v or 0) for v in values]
        digest[:] = [a + b for a, b in zip(digest, values, strict=True)] if digest else values

    def into_engine(batch, batch_id: int) -> None:  # noqa: ANN001
        frame = batch if engine == "pyspark" else spark.createDataFrame(batch)
        fold(list(frame.agg(*digest_columns(F, frame)).collect()[0]))

    def into_pandas(batch, batch_id: int) -> None:  # noqa: ANN001
        pdf = batch.toPandas() if engine == "pyspark" else batch.to_pandas()
        fold([len(pdf), pdf["event_id"].sum(), pdf["user_id"].sum(), (pdf["doubled"] * 100).round().sum()])

    writer = df.writeStream.outputMode(mode)
    if kind == "noop" or sink == "noop":
        writer = writer.format("noop")
    else:
        writer = writer.foreachBatch(into_pandas if kind == "pandas" else into_engine)
    checkpoint = folder / f"ckpt-{engine}-{kind}-{attempt}"
    shutil.rmtree(checkpoint, ignore_errors=True)  # each run from the start
    t0 = time.perf_counter()
    q = writer.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    return {**summary(q, elapsed), "digest": digest, "peak_rss_mb": peak_rss() / 2**20}


def child(python: str, engine: str, folder: Path, kind: str, attempt: int, sink: str = "callback") -> dict:
    """``run`` in a process of its own (``python`` with that engine installed)."""
    env = {**os.environ, "PYSPARK_PYTHON": python}
    cmd = [python, __file__, "--engine", engine, "--folder", str(folder), "--kind", kind, "--attempt", str(attempt)]
    cmd += ["--sink", sink]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{engine} {kind} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="sparklet runs per workload; the median is reported")
    ap.add_argument("--only", nargs="*", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--pyspark-python", default=None, help="an interpreter with PySpark and Java")
    ap.add_argument("--data", default=None, help="a folder to generate into, or reuse if it holds the data")
    ap.add_argument("--engine", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--folder", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--kind", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--attempt", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--sink", default="callback", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.folder:  # child mode: one engine, one workload, JSON out
        print(json.dumps(run(args.engine, Path(args.folder), args.kind, args.attempt, args.sink)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.data or tmp)
        if not (folder / "events").exists():
            folder.mkdir(parents=True, exist_ok=True)
            generate(folder, args.events, args.files)
        print(f"{args.events:,} events, {args.files} files per stream, maxFilesPerTrigger 2, availableNow")
        print(f"{'workload':9s} {'sparklet s':>10s} {'rows/s':>12s} {'peak RSS':>9s} {'state keys':>10s} "
              f"{'state MB':>8s} {'PySpark s':>9s} {'ratio':>6s}  identical")  # fmt: skip
        for kind in args.only:
            runs = sorted((child(sys.executable, "sparklet", folder, kind, i) for i in range(args.repeat)),
                          key=lambda r: r["elapsed"])  # fmt: skip
            mine = runs[len(runs) // 2]
            line = (
                f"{kind:9s} {mine['elapsed']:10.2f} {mine['events'] / mine['elapsed']:12,.0f} "
                f"{mine['peak_rss_mb']:6.0f} MB {mine['max_state_keys']:10,} {mine['max_state_bytes'] / 1e6:8.1f}"
            )
            if args.pyspark_python:
                theirs = child(args.pyspark_python, "pyspark", folder, kind, 0)
                same = theirs["digest"] == mine["digest"]
                line += f" {theirs['elapsed']:9.2f} {theirs['elapsed'] / mine['elapsed']:5.1f}x  {same}"
            each = ", ".join(f"{r['elapsed']:.2f}" for r in runs)
            print(f"{line}   (sparklet runs {each} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
