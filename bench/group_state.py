"""applyInPandasWithState: sparklet vs PySpark on the same files.

    python bench/group_state.py [--keys 100000] [--events 20] [--files 10] [--pyspark-python PATH]

Writes Parquet files of ``--keys`` users with ``--events`` events each (the
events of a user spread over the files), then runs, with
``maxFilesPerTrigger=1`` and ``availableNow``, a running count and sum per
user kept in ``GroupState`` (no timeout), emitting each user's totals in
every batch it appears in. Prints events/s, the cost per call against the
function's own cost (measured in the same process), and, with ``--pyspark-python``
(an interpreter with PySpark, pandas and Java), the same query on PySpark
over the same files: the throughput ratio and whether the results are
identical (the final totals per user, gathered in ``foreachBatch``).
Measure with a release build of sparklet (see bench/streaming.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from side_by_side import arguments, median_run, report, run_pyspark, session, spread, summary

SCHEMA = "user BIGINT, v BIGINT"


def generate(folder: Path, keys: int, events: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(keys, dtype=np.int64), events)
    rng.shuffle(users)
    values = rng.integers(0, 1000, users.size)
    (folder / "in").mkdir()
    for f, (u, v) in enumerate(zip(np.array_split(users, files), np.array_split(values, files))):
        pq.write_table(pa.table({"user": u, "v": v}), folder / "in" / f"part-{f:03d}.parquet")


def totals(key, pdfs, state):  # noqa: ANN001, ANN201
    """A user's event count and value sum so far (the function both engines run)."""
    import pandas as pd

    n, s = state.get if state.exists else (0, 0)
    for pdf in pdfs:
        n += len(pdf)
        s += int(pdf["v"].sum())
    state.update((n, s))
    yield pd.DataFrame({"user": [key[0]], "n": [n], "s": [s]})


def function_alone(events_per_call: int, calls: int = 20_000) -> float:
    """Seconds per call of ``totals`` itself, on pandas DataFrames of the
    size each call gets, with no engine around it: the floor any engine's
    per-call cost sits on."""
    import pandas as pd

    from sparklet.sql.streaming.state import GroupState

    pdf = pd.DataFrame({"user": [1] * events_per_call, "v": list(range(events_per_call))})
    t0 = time.perf_counter()
    for i in range(calls):
        state = GroupState(
            None,
            fields=["n", "s"],
            timeout_conf="NoTimeout",
            has_timed_out=False,
            old_timeout_ms=None,
            batch_processing_time_ms=0,
            watermark_ms=None,
        )
        for _ in totals((i,), iter([pdf]), state):
            pass
    return (time.perf_counter() - t0) / calls


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, _ = session(engine)
    if engine == "pyspark":
        from pyspark.sql.streaming.state import GroupStateTimeout
    else:
        from sparklet.sql.streaming.state import GroupStateTimeout
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in"))
    query = stream.groupBy("user").applyInPandasWithState(
        totals, "user BIGINT, n BIGINT, s BIGINT", "n BIGINT, s BIGINT", "update", GroupStateTimeout.NoTimeout
    )
    return run_totals(engine, query, folder / f"ckpt-{engine}-{kind}-{attempt}")


def run_totals(engine: str, query, checkpoint: Path) -> dict:  # noqa: ANN001
    """Run ``query`` (rows of ``user, n, s``) to the end of its input and
    summarize it: time, events, and a checksum of each user's final totals
    (gathered in ``foreachBatch``), the figure both engines must agree on."""
    final: dict[int, tuple[int, int]] = {}

    def gather(batch, batch_id: int) -> None:  # noqa: ANN001
        pdf = batch.toPandas() if engine == "pyspark" else batch.to_pandas()
        for u, n, s in zip(pdf["user"].tolist(), pdf["n"].tolist(), pdf["s"].tolist()):
            final[u] = (n, s)

    t0 = time.perf_counter()
    q = (
        query.writeStream.outputMode("update")
        .foreachBatch(gather)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    checksum = sum((u * 31 + n * 7 + s) % 1_000_003 for u, (n, s) in final.items())
    return {**summary(q, elapsed), "result": {"users": len(final), "checksum": checksum}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--files", type=int, default=10)
    args = arguments(ap)
    if args.folder:  # child mode: one engine, one query, JSON out
        print(json.dumps(run(args.engine, Path(args.folder), args.kind)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, args.keys, args.events, args.files)
        kind = "state"
        mine = median_run([run("sparklet", folder, kind, i) for i in range(args.repeat)])
        rate = mine["events"] / mine["elapsed"]
        print(
            f"applyInPandasWithState sparklet: {rate:12,.0f} events/s ({mine['events']:,} events, "
            f"{mine['elapsed']:.2f} s, {spread(mine)}); {mine['result']['users']:,} users, "
            f"largest state {mine['max_state_keys']:,} rows"
        )
        calls = args.keys * min(args.events, args.files)  # a call per user per batch it appears in
        alone = function_alone(max(1, args.events // args.files))
        print(
            f"per call: sparklet {mine['elapsed'] / calls * 1e6:,.0f} us, "
            f"of which the function alone {alone * 1e6:,.0f} us"
        )
        if args.pyspark_python:
            theirs = run_pyspark(args.pyspark_python, __file__, str(folder), kind)
            report("applyInPandasWithState", 22, mine, theirs, mine["result"] == theirs["result"])
            print(
                f"per call: PySpark {theirs['elapsed'] / calls * 1e6:,.0f} us; with no engine cost at all "
                f"the ratio would be {theirs['elapsed'] / calls / alone:.1f}x"
            )


if __name__ == "__main__":
    sys.exit(main())
