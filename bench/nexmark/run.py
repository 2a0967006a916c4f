"""The Nexmark suite: sparklet, and PySpark and DuckDB when installed, over the same input.

    python bench/nexmark/run.py [--events 10000000] [--queries q0,q1,...] [--form df|sql]
                                [--no-pyspark] [--data DIR] [--repeat N]

Writes ``--events`` Nexmark events (the ``nexmark`` source, seed 0) to
Parquet files of a million events each (once per size, kept in ``--data``),
then runs each query in a child process per engine: a stream over the
Parquet folder (``maxFilesPerTrigger`` 1, ``availableNow``) into a
``foreachBatch`` that folds each batch into a digest (row count and the sum
of each numeric column), or a batch query for the queries Spark cannot
stream (``queries.BATCH_ONLY``). Prints per query: events, seconds,
events/s, events/s per core, peak RSS; with PySpark (local mode on as many
cores) its seconds, sparklet's throughput ratio and whether the digests
match; with DuckDB (the ``duckdb`` package), each query as one batch SQL over
the same files (``queries.DUCKDB``: threads = cores, result fetched as
Arrow, the same digest), its seconds, sparklet's time over it and whether
the digests match. With ``--repeat N`` each engine runs each query N times and the
median run counts. Measure with a release build of sparklet.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from queries import BATCH_ONLY, DUCKDB, QUERIES, SQL, dataframe_query, sql_query  # noqa: E402

from side_by_side import peak_rss  # noqa: E402

EVENTS_PER_FILE = 1_000_000
#: Rows per Parquet row group: a file's row groups are what readers decode
#: in parallel (one group per file kept each file on one core, in both engines).
ROW_GROUP = 131_072
CORES = os.cpu_count() or 1


def generate(folder: Path, events: int) -> None:
    """Write ``events`` Nexmark events as Parquet files, a million per file
    in row groups of ``ROW_GROUP``."""
    import pyarrow.parquet as pq

    from sparklet.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    folder.mkdir(parents=True, exist_ok=True)
    stream = (
        spark.readStream.format("nexmark")
        .option("numEvents", events)
        .option("maxEventsPerTrigger", EVENTS_PER_FILE)
        .load()
    )

    def write(table: Any, batch_id: int) -> None:
        tmp = folder / f".part-{batch_id:05d}.parquet"
        pq.write_table(table, tmp, row_group_size=ROW_GROUP)
        tmp.rename(folder / f"part-{batch_id:05d}.parquet")

    stream.writeStream.foreachBatch(write).trigger(availableNow=True).start().awaitTermination()
    (folder / "_COMPLETE").write_text(str(events))


def session(engine: str) -> Any:
    if engine == "sparklet":
        from sparklet.sql import SparkSession

        return SparkSession.builder.getOrCreate()
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(f"local[{CORES}]")
        .config("spark.sql.shuffle.partitions", str(CORES))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )


def digest_of(batch: Any) -> tuple[int, dict[str, float]]:
    """Rows and the sum of each numeric column of a result batch (a
    pyarrow.Table from sparklet, a DataFrame from PySpark)."""
    if hasattr(batch, "num_rows"):
        import pyarrow as pa
        import pyarrow.compute as pc

        sums = {
            f.name: float(pc.sum(batch.column(f.name)).as_py() or 0)
            for f in batch.schema
            if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
        }
        return batch.num_rows, sums
    from pyspark.sql import functions as F

    numeric = [f.name for f in batch.schema.fields if f.dataType.typeName() in ("integer", "long", "double")]
    row = batch.agg(F.count("*").alias("__n"), *[F.sum(c).alias(c) for c in numeric]).collect()[0]
    return int(row["__n"]), {c: float(row[c] or 0) for c in numeric}


def duckdb_child(query: str, folder: Path) -> dict:
    """``query`` as one DuckDB SQL over the same files (threads = cores),
    its result fetched as Arrow and folded into the same digest."""
    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc

    pc.sum(pa.array([0]))
    con = duckdb.connect()
    con.execute(f"SET threads = {CORES}")
    con.execute("SET TimeZone = 'UTC'")
    events = f"read_parquet('{folder}/*.parquet')"
    time.sleep(0.3)
    t0 = time.perf_counter()
    table = con.execute(DUCKDB[query].format(events=events)).to_arrow_table()
    rows, sums = digest_of(table)
    elapsed = time.perf_counter() - t0
    return {"events": int((folder / "_COMPLETE").read_text()), "elapsed": elapsed, "rows": rows, "sums": sums,
            "rss": peak_rss(), "jvm": None}  # fmt: skip


def child(engine: str, query: str, form: str, folder: Path) -> dict:
    if engine == "duckdb":
        return duckdb_child(query, folder)
    spark = session(engine)
    schema = spark.read.parquet(str(folder)).schema
    events = int((folder / "_COMPLETE").read_text())
    rows, sums = 0, {}

    def fold(batch: Any, _: int) -> None:
        nonlocal rows
        n, s = digest_of(batch)
        rows += n
        for k, v in s.items():
            sums[k] = sums.get(k, 0.0) + v

    if engine == "sparklet":
        # the digest's module (pyarrow.compute) loads before the clock: its
        # import and first call take ~30 ms, the harness's cost, not the
        # engine's (PySpark's digest uses functions its import loaded)
        import pyarrow as pa
        import pyarrow.compute as pc

        pc.sum(pa.array([0]))
    # pyarrow imports numpy, whose OpenBLAS threads spin for about 0.1 s of
    # CPU after start-up: let them go idle before the clock starts
    time.sleep(0.3)
    t0 = time.perf_counter()
    if query in BATCH_ONLY:
        source = spark.read.schema(schema).parquet(str(folder))
        df, _ = (dataframe_query if form == "df" else sql_query)(query, spark, source)
        fold(df.toArrow() if engine == "sparklet" else df, 0)
    else:
        source = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(folder))
        df, mode = (dataframe_query if form == "df" else sql_query)(query, spark, source)
        q = df.writeStream.outputMode(mode).foreachBatch(fold).trigger(availableNow=True).start()
        q.awaitTermination()
    elapsed = time.perf_counter() - t0
    rss = peak_rss()
    jvm = None
    if engine == "pyspark":  # the JVM's peak too
        jvm = spark.sparkContext._gateway.proc.pid
        for line in Path(f"/proc/{jvm}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                rss += int(line.split()[1]) * 1024
    return {"events": events, "elapsed": elapsed, "rows": rows, "sums": sums, "rss": rss, "jvm": jvm}


def run_child(python: str, engine: str, query: str, form: str, folder: Path) -> dict | None:
    done = subprocess.run(
        [python, __file__, "--child", engine, query, form, str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return {"error": tail[0][:200]}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # PySpark's JVM outlives its Python process by a second or so: wait for
    # it, or it would share the cores with the next run
    deadline = time.monotonic() + 30
    while out.get("jvm") and Path(f"/proc/{out['jvm']}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return out


def measure(python: str, engine: str, query: str, form: str, folder: Path, repeat: int) -> dict | None:
    """The run with the median time of `repeat` runs (the first failure ends it)."""
    runs = []
    for _ in range(repeat):
        out = run_child(python, engine, query, form, folder)
        if out is None or "error" in out:
            return out
        runs.append(out)
    return sorted(runs, key=lambda r: r["elapsed"])[len(runs) // 2]


def same(a: dict, b: dict) -> bool:
    if a["rows"] != b["rows"] or set(a["sums"]) != set(b["sums"]):
        return False
    return all(math.isclose(a["sums"][k], b["sums"][k], rel_tol=1e-9, abs_tol=1e-6) for k in a["sums"])


def has_pyspark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return subprocess.run(["java", "-version"], capture_output=True).returncode == 0


def has_duckdb() -> bool:
    try:
        import duckdb  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--form", choices=("df", "sql"), default="df")
    ap.add_argument("--data", default=str(Path.home() / ".cache" / "sparklet-nexmark"))
    ap.add_argument("--no-pyspark", action="store_true")
    ap.add_argument("--no-duckdb", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs per query and engine; the median counts")
    ap.add_argument("--child", nargs=4, metavar=("ENGINE", "QUERY", "FORM", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        engine, query, form, folder = args.child
        print(json.dumps(child(engine, query, form, Path(folder))))
        return 0
    folder = Path(args.data) / f"events-{args.events}-rg{ROW_GROUP}"
    if not (folder / "_COMPLETE").exists():
        t0 = time.perf_counter()
        generate(folder, args.events)
        print(f"wrote {args.events:,} events to {folder} in {time.perf_counter() - t0:.1f} s")
    pyspark = not args.no_pyspark and has_pyspark()
    duck = not args.no_duckdb and has_duckdb()
    print(f"{CORES} cores; form: {args.form}; PySpark: {'yes' if pyspark else 'no'}; DuckDB: {'yes' if duck else 'no'}")
    header = f"{'query':6s} {'mode':6s} {'events':>11s} {'s':>7s} {'events/s':>11s} {'/core':>10s} {'RSS MiB':>8s}"
    if pyspark:
        header += f" {'PySpark s':>10s} {'ratio':>7s} {'same':>5s}"
    if duck:
        header += f" {'DuckDB s':>9s} {'vs DuckDB':>9s} {'same':>5s}"
    print(header)
    for query in args.queries.split(","):
        if args.form == "sql" and query not in SQL:
            continue  # the windowed queries have the DataFrame form only
        mine = measure(sys.executable, "sparklet", query, args.form, folder, args.repeat)
        mode = "batch" if query in BATCH_ONLY else "stream"
        if mine is None or "error" in mine:
            print(f"{query:6s} {mode:6s} sparklet failed: {mine and mine.get('error')}")
            continue
        rate = mine["events"] / mine["elapsed"]
        line = (
            f"{query:6s} {mode:6s} {mine['events']:11,d} {mine['elapsed']:7.2f} {rate:11,.0f} "
            f"{rate / CORES:10,.0f} {mine['rss'] / 2**20:8,.0f}"
        )
        if pyspark:
            theirs = measure(sys.executable, "pyspark", query, args.form, folder, args.repeat)
            if theirs is None or "error" in theirs:
                line += f"  PySpark failed: {theirs and theirs.get('error')}"
            else:
                ratio = theirs["elapsed"] / mine["elapsed"]
                line += f" {theirs['elapsed']:10.2f} {ratio:6.1f}x {str(same(mine, theirs)):>5s}"
        if duck:
            ref = measure(sys.executable, "duckdb", query, args.form, folder, args.repeat)
            if ref is None or "error" in ref:
                line += f"  DuckDB failed: {ref and ref.get('error')}"
            else:
                # sparklet's time over DuckDB's: at most 1.0 is the goal
                line += f" {ref['elapsed']:9.2f} {mine['elapsed'] / ref['elapsed']:8.2f}x {str(same(mine, ref)):>5s}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
