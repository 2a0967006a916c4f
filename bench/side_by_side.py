"""Running one benchmark query on PySpark, in its own interpreter, for a side-by-side figure."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
from pathlib import Path


def run_pyspark(pyspark_python: str, script: str, folder: str, kind: str) -> dict:
    """Run ``script`` in child mode (``--engine pyspark``) and return its JSON result.
    Spark's Python workers run on the same interpreter (``PYSPARK_PYTHON``):
    the default ``python3`` may lack PySpark's dependencies."""
    env = {**os.environ, "PYSPARK_PYTHON": pyspark_python}
    out = subprocess.run(
        [pyspark_python, script, "--engine", "pyspark", "--folder", folder, "--kind", kind],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def peak_rss() -> int:
    """This process's peak resident bytes. (Not ``getrusage``: across
    ``exec`` Linux keeps the parent's peak in ``ru_maxrss``, so each child
    of a bench that generated its data reported the bench's peak.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def report(kind: str, width: int, mine: dict, theirs: dict, same: bool) -> None:
    """Print PySpark's rate and the throughput ratio."""
    rate = theirs["events"] / theirs["elapsed"]
    ratio = (mine["events"] / mine["elapsed"]) / rate
    print(
        f"{kind:{width}s} PySpark : {rate:12,.0f} events/s ({theirs['elapsed']:.2f} s) -> sparklet is "
        f"{ratio:.1f}x; identical results: {same}"
    )


def arguments(ap: argparse.ArgumentParser) -> argparse.Namespace:
    """Parse ``ap`` plus ``--pyspark-python`` and the hidden child-mode options."""
    ap.add_argument("--pyspark-python", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="sparklet runs per query; the median is reported")
    ap.add_argument("--engine", default="sparklet", help=argparse.SUPPRESS)
    ap.add_argument("--folder", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--kind", default=None, help=argparse.SUPPRESS)
    return ap.parse_args()


def median_run(runs: list[dict]) -> dict:
    """The run with the median time, plus every run's seconds.

    A sparklet run lasts about a second, so a burst of load on a shared
    machine moves it by tens of percent; PySpark's, tens of seconds long,
    averages such bursts out. The median of a few runs is the fair figure.
    """
    ordered = sorted(runs, key=lambda r: r["elapsed"])
    return {**ordered[len(ordered) // 2], "all_elapsed": sorted(r["elapsed"] for r in runs)}


def spread(run: dict) -> str:
    """``median of N: a-b s`` for a run from ``median_run``."""
    times = run["all_elapsed"]
    return f"median of {len(times)}, {times[0]:.2f}-{times[-1]:.2f} s"


def summary(query, elapsed: float) -> dict:  # noqa: ANN001
    """Seconds, input events and the largest state of a finished query (either engine)."""
    progress = [p if isinstance(p, dict) else json.loads(p.json) for p in query.recentProgress]
    ops = [o for p in progress for o in p.get("stateOperators", [])]
    return {
        "elapsed": elapsed,
        "events": sum(p["numInputRows"] for p in progress),
        "max_state_keys": max((o["numRowsTotal"] for o in ops), default=0),
        "max_state_bytes": max((o["memoryUsedBytes"] for o in ops), default=0),
    }


def session(engine: str):  # noqa: ANN201
    """A session and its ``functions`` module: PySpark local[2] or sparklet, same settings."""
    if engine == "pyspark":
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        return spark, F
    from sparklet.sql import SparkSession
    from sparklet.sql import functions as F

    return SparkSession.builder.config("spark.sql.shuffle.partitions", "4").getOrCreate(), F


def timed_available_now(writer, folder, engine: str, kind: str, attempt: int):  # noqa: ANN001, ANN201
    """Start ``writer`` (a ``writeStream`` with its sink set) as an ``availableNow``
    run with its own checkpoint, wait for it; returns the query and its seconds."""
    import time

    t0 = time.perf_counter()
    q = (
        writer.option("checkpointLocation", str(folder / f"ckpt-{engine}-{kind}-{attempt}"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    return q, time.perf_counter() - t0


def compare(args: argparse.Namespace, script: str, folder, kinds: list[str], run, unit: str = "events") -> None:  # noqa: ANN001
    """For each kind: sparklet's median run, then (with ``--pyspark-python``) PySpark's and the ratio."""
    width = max(len(k) for k in kinds)
    for kind in kinds:
        mine = median_run([run("sparklet", folder, kind, i) for i in range(args.repeat)])
        rate = mine["events"] / mine["elapsed"]
        extra = mine.get("describe", "")
        print(
            f"{kind:{width}s} sparklet: {rate:12,.0f} {unit}/s ({mine['events']:,} {unit}, {mine['elapsed']:.2f} s, "
            f"{spread(mine)}{extra})"
        )
        if args.pyspark_python:
            theirs = run_pyspark(args.pyspark_python, script, str(folder), kind)
            report(kind, width, mine, theirs, mine["result"] == theirs["result"])


def bench_main(script: str, size: str, kinds: list[str], generate, run, unit: str = "events") -> None:  # noqa: ANN001
    """A side-by-side bench's command line: ``--<size>`` (default 1M) and
    ``--files`` for the generated input, or, in child mode, one engine's run
    as JSON (see :func:`run_pyspark`)."""
    import tempfile
    from pathlib import Path

    ap = argparse.ArgumentParser()
    ap.add_argument(f"--{size}", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=10)
    args = arguments(ap)
    if args.folder:  # child mode: one engine, one query, JSON out
        print(json.dumps(run(args.engine, Path(args.folder), args.kind)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, getattr(args, size), args.files)
        compare(args, script, folder, kinds, run, unit=unit)
