"""Random streaming pipelines run on sparklet and on PySpark, compared.

A case is input files (JSON lines of ``ts, k, v, x``), a program (lines of
PySpark code that turn the streaming ``df`` into the query's result, with
``F`` and a static DataFrame ``static`` in scope), an output mode and the
number of files the first run sees before a restart from the checkpoint.
Each run is ``trigger(availableNow=True)`` over a file source read one file
a micro-batch, into ``foreachBatch``; so Spark's batches are deterministic
and each non-empty batch is compared (rows order-free), with the result's
schema (names and types) and, where a query fails, the error's condition.

Used by ``tools/differential.py pipelines``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import os
import random
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

SCHEMA = "ts TIMESTAMP, k STRING, v INT, x DOUBLE"
STATIC_ROWS = [("a", "alpha", 1), ("b", "beta", 2), ("d", "delta", 4)]
STATIC_SCHEMA = "k STRING, label STRING, w INT"


@dataclass
class Pipeline:
    files: list[list[dict]]
    program: list[str]
    mode: str
    first_run: int  # files the first run sees; the rest after a restart
    notes: list[str] = field(default_factory=list)

    def source(self) -> str:
        return "\n".join(self.program)


# --- drawing cases ----------------------------------------------------------

AGGS = [
    'F.count("*").alias("n")',
    'F.count("v")',
    'F.sum("v")',
    'F.avg("v").alias("mean")',
    'F.min("v")',
    'F.max("x").alias("top")',
    'F.sum("x")',
    'F.collect_list("v").alias("vs")',
    'F.collect_set("k").alias("ks")',
    'F.count(F.when(F.col("v") > 5, 1)).alias("big")',
    'F.max("ts").alias("last_ts")',
]

STATELESS = [
    'df = df.filter(F.col("v").isNotNull())',
    'df = df.filter((F.col("v") > {n}) | F.col("k").isNull())',
    'df = df.withColumn("v2", F.col("v") * {n} + 1)',
    'df = df.withColumn("vs", F.col("v").cast("string"))',
    'df = df.withColumn("half", F.col("v") / 2)',
    'df = df.withColumn("k", F.coalesce("k", F.lit("none")))',
    # SQL's integer literals are BIGINT here, INT in Spark (docs/differences.md): cast by rule
    'df = df.selectExpr("ts", "k", "v", "x", "CAST(v % 3 AS INT) AS m")',
    'df = df.withColumn("xr", F.round(F.col("x") * {n}, 1))',
    'df = df.filter(F.col("k") != "c")',
    'df = df.withColumn("sec", F.second("ts"))',
    'df = df.withColumn("ts_long", F.col("ts").cast("long"))',
]

DELAYS = ["0 seconds", "2 seconds", "5 seconds", "10 seconds", "1 minute"]


def draw_files(rng: random.Random) -> list[list[dict]]:
    base = dt.datetime(1969, 12, 31, 23, 59, 40) if rng.random() < 0.2 else dt.datetime(2024, 1, 1, 0, 0, 0)
    files = []
    clock = 0.0
    for _ in range(rng.randint(1, 5)):
        rows = []
        clock += rng.choice([0, 1, 3, 5, 8, 15])
        for _ in range(rng.randint(0, 6)):
            late = rng.choice([0, 0, 0, 1, 4, 12, 40])
            at = clock - late + rng.choice([0, 0.25, 0.5, 0.999]) + rng.randint(0, 3)
            rows.append(
                {
                    "ts": (base + dt.timedelta(seconds=at)).isoformat(timespec="milliseconds"),
                    "k": rng.choice(["a", "b", "c", None]),
                    "v": rng.choice([None, -3, -1, 0, 1, 2, 5, 7, 11, 20]),
                    "x": rng.choice([None, -2.5, 0.0, 0.1, 1.5, 3.25, 100.0]),
                }
            )
        files.append(rows)
    return files


def draw_window(rng: random.Random) -> str:
    kind = rng.random()
    width = rng.choice([2, 5, 10, 30])
    if kind < 0.5:
        return f'F.window("ts", "{width} seconds")'
    if kind < 0.85:
        slide = rng.choice([s for s in (1, 2, 3, 4, 5, 7, 10) if s < width] or [1])
        start = rng.choice([0, 0, 1, 3])
        if start and start < slide:
            return f'F.window("ts", "{width} seconds", "{slide} seconds", "{start} seconds")'
        return f'F.window("ts", "{width} seconds", "{slide} seconds")'
    return f'F.session_window("ts", "{rng.choice([1, 3, 5, 10])} seconds")'


def draw_program(rng: random.Random) -> tuple[list[str], str]:
    """The program's lines and the output mode."""
    lines = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        lines.append(rng.choice(STATELESS).format(n=rng.randint(1, 4)))
    watermark = rng.random() < 0.6
    if watermark:
        lines.append(f'df = df.withWatermark("ts", "{rng.choice(DELAYS)}")')
    kind = rng.choices(["stateless", "agg", "window", "dedup", "static_join", "stream_join"], [1, 2, 4, 2, 1, 1])[0]
    aggs = ", ".join(rng.sample(AGGS, rng.randint(1, 3)))
    if kind == "stateless":
        if rng.random() < 0.5:
            lines.append('df = df.select("ts", "k", (F.col("v") * 10).alias("v10"))')
    elif kind == "agg":
        keys = rng.choice(['"k"', '"k", (F.col("v") % 2).alias("odd")', ""])
        lines.append(f"df = df.groupBy({keys}).agg({aggs})")
    elif kind == "window":
        window = draw_window(rng)
        if rng.random() < 0.3:
            window += '.alias("w")'
        keys = rng.choice([', "k"', ""])
        lines.append(f"df = df.groupBy({window}{keys}).agg({aggs})")
        name = "w" if '.alias("w")' in window else ("session_window" if "session" in window else "window")
        post = rng.random()
        if post < 0.25:
            lines.append(f'df = df.select(F.col("{name}.start").alias("start"), F.col("{name}.end"), *df.columns[1:])')
        elif post < 0.4:
            lines.append(f'df = df.withColumn("start_s", F.col("{name}.start").cast("long"))')
        elif post < 0.5:
            lines.append(f'df = df.filter(F.col("{name}.end") > F.lit("2024-01-01 00:00:05").cast("timestamp"))')
    elif kind == "dedup":
        cols = rng.choice([['"k"'], ['"k"', '"v"'], ['"k"', '"ts"'], ['"ts"']])
        if watermark and rng.random() < 0.3:
            lines.append(f"df = df.dropDuplicatesWithinWatermark([{', '.join(cols)}])")
        else:
            lines.append(f"df = df.dropDuplicates([{', '.join(cols)}])")
    elif kind == "static_join":
        how = rng.choice(["inner", "left", "left_semi", "left_anti"])
        lines.append(f'df = df.join(static, "k", "{how}")')
        if rng.random() < 0.4:
            lines.append(f'df = df.groupBy("k").agg({aggs})')
    else:
        # by rule: Spark's stream-stream join matches null keys (docs/differences.md)
        lines.append('df = df.filter(F.col("k").isNotNull())')
        lines += [
            'left = df.select(F.col("ts").alias("lt"), F.col("k").alias("lk"), F.col("v").alias("lv"))',
            'right = df.select(F.col("ts").alias("rt"), F.col("k").alias("rk"), F.col("x").alias("rx"))',
        ]
        if not watermark and rng.random() < 0.7:
            delay = rng.choice(DELAYS)
            lines[-2] += f'.withWatermark("lt", "{delay}")'
            lines[-1] += f'.withWatermark("rt", "{delay}")'
        bound = rng.choice([0, 2, 5])
        how = rng.choice(["inner", "inner", "left_outer", "right_outer", "full_outer", "left_semi"])
        cond = f'(F.col("lk") == F.col("rk")) & F.col("rt").between(F.col("lt") - F.expr("INTERVAL {bound} SECONDS"), F.col("lt") + F.expr("INTERVAL {bound} SECONDS"))'
        lines.append(f'df = left.join(right, {cond}, "{how}")')
    # mostly a mode Spark accepts for the query, sometimes any (its error is compared)
    aggregated = kind in ("agg", "window") or any(".agg(" in line for line in lines)
    if rng.random() < 0.15:
        valid = ["append", "update", "complete"]
    elif not aggregated:
        valid = ["append", "update"]
    elif kind == "window" and watermark:
        valid = ["append", "update", "complete"]
    else:
        valid = ["update", "complete"]
    return lines, rng.choice(valid)


def draw(rng: random.Random) -> Pipeline:
    files = draw_files(rng)
    program, mode = draw_program(rng)
    return Pipeline(files, program, mode, rng.randint(1, len(files)))


# --- running a case ---------------------------------------------------------


def plain(v: Any) -> Any:
    """A value in a form both engines' rows compare equal in."""
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else float(f"{v:.9g}")
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.UTC).replace(tzinfo=None)
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if hasattr(v, "asDict"):
        return tuple(plain(x) for x in v)
    if isinstance(v, dict):
        return tuple(plain(x) for x in v.values())
    if isinstance(v, tuple):
        return [plain(x) for x in v]
    if isinstance(v, list):  # collect_list/collect_set: order is not Spark's promise
        return sorted((plain(x) for x in v), key=repr)
    return v


def rows_of(batch: Any) -> list[tuple]:
    rows = batch.to_pylist() if hasattr(batch, "to_pylist") else batch.collect()
    return sorted((tuple(plain(x) for x in (r.values() if isinstance(r, dict) else r)) for r in rows), key=repr)


def condition(e: BaseException) -> str:
    """The error's condition (class), as both engines name it."""
    for name in ("getCondition", "getErrorClass"):
        got = getattr(e, name, None)
        if callable(got):
            try:
                value = got()
            except Exception:  # noqa: BLE001 - a py4j error without one
                value = None
            if value:
                return str(value)
    cause = getattr(e, "cause", None) or e.__cause__
    if cause is not None and cause is not e:
        return condition(cause)
    return type(e).__name__


def write_file(folder: Path, index: int, rows: list[dict]) -> None:
    import json

    path = folder / f"part-{index:03d}.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # files are taken in modification order: one a second, all in the past
    stamp = time.time() - 3600 + index
    os.utime(path, (stamp, stamp))


def run(spark: Any, functions: Any, case: Pipeline, folder: Path) -> dict:
    """One engine's outcome: schema, batches, or the error's condition."""
    source, ckpt = folder / "in", folder / "ckpt"
    source.mkdir(parents=True, exist_ok=True)
    out: dict = {"batches": []}

    def collect(batch: Any, batch_id: int) -> None:
        rows = rows_of(batch)
        if rows:
            out["batches"].append(rows)

    for index, rows in enumerate(case.files[: case.first_run]):
        write_file(source, index, rows)
    static = spark.createDataFrame(STATIC_ROWS, STATIC_SCHEMA)
    for part in (0, 1):
        if part == 1:
            if case.first_run >= len(case.files):
                break
            for index in range(case.first_run, len(case.files)):
                write_file(source, index, case.files[index])
        try:
            df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
            scope = {"F": functions, "df": df, "static": static}
            exec(case.source(), scope)  # noqa: S102 - the generated program
            df = scope["df"]
            out["schema"] = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
            q = (
                df.writeStream.outputMode(case.mode)
                .option("checkpointLocation", str(ckpt))
                .foreachBatch(collect)
                .trigger(availableNow=True)
                .start()
            )
            if not q.awaitTermination(120):
                q.stop()
                out["error"] = "timeout"
                return out
        except Exception as e:  # noqa: BLE001 - the error is part of the outcome
            out["error"] = condition(e)
            out.pop("schema", None)  # where it fails, Spark's and ours may fail at different steps
            return out
    return out


def sessions() -> tuple[Any, Any]:
    """A sparklet session and a PySpark session (local mode), both in UTC
    (the process's zone too: PySpark's collect() gives local times)."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession as PySparkSession

    import sparklet.sql as sparklet_sql

    ours = sparklet_sql.SparkSession.builder.config("spark.sql.session.timeZone", "UTC").getOrCreate()
    theirs = (
        PySparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.streaming.stateStore.maintenanceInterval", "600s")
        .getOrCreate()
    )
    theirs.sparkContext.setLogLevel("OFF")
    return ours, theirs


class Engines:
    """Both sessions, and each engine's ``functions`` module."""

    def __init__(self) -> None:
        from pyspark.sql import functions as pyspark_functions

        from sparklet.sql import functions as sparklet_functions

        self.sparklet, self.pyspark = sessions()
        self.functions = {"sparklet": sparklet_functions, "pyspark": pyspark_functions}

    def outcome(self, which: str, case: Pipeline) -> dict:
        folder = Path(tempfile.mkdtemp(prefix=f"sparklet-diff-{which}-"))
        try:
            return run(getattr(self, which), self.functions[which], case, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def both(self, case: Pipeline) -> tuple[dict, dict]:
        return self.outcome("sparklet", case), self.outcome("pyspark", case)


def disagree(ours: dict, theirs: dict) -> bool:
    return ours != theirs


def shrink(engines: Engines, case: Pipeline) -> Pipeline:
    """Drop program lines, files, rows and the restart while the engines
    still disagree."""

    def still(candidate: Pipeline) -> bool:
        return disagree(*engines.both(candidate))

    changed = True
    while changed:
        changed = False
        candidates = []
        if case.first_run < len(case.files):
            candidates.append(replace(case, first_run=len(case.files)))
        for i in range(len(case.program)):
            candidates.append(replace(case, program=case.program[:i] + case.program[i + 1 :]))
        for i in range(len(case.files)):
            files = case.files[:i] + case.files[i + 1 :]
            if files:
                candidates.append(replace(case, files=files, first_run=min(case.first_run, len(files))))
        for i, rows in enumerate(case.files):
            for j in range(len(rows)):
                files = [list(f) for f in case.files]
                del files[i][j]
                candidates.append(replace(case, files=files))
        for candidate in candidates:
            if still(candidate):
                case, changed = candidate, True
                break
    return case


def as_case(case: Pipeline, expected: dict) -> dict:
    """The case as a regression case for tests_py/differential_cases/
    (tests_py/test_differential_cases.py runs it on either engine and
    expects PySpark's outcome)."""
    return {
        "files": case.files,
        "program": case.program,
        "mode": case.mode,
        "first_run": case.first_run,
        "expected": expected,
    }
