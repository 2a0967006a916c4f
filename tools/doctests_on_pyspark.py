"""Run the docstring examples of sparklet's public API on PySpark, the
oracle, and report every example whose output PySpark does not give.

    python tools/doctests_on_pyspark.py [module ...]    (make doctest-portability)

The examples are what ``pytest --doctest-modules python/sparklet`` checks
on sparklet; here each runs as written on a local Spark session instead,
with ``spark``, ``F`` and ``Row`` given and ``sparklet`` imports turned into
PySpark's (``sparklet.testing.pyspark_engine``: ``MemoryStream`` a folder
of Parquet files), each in an emptied working folder (the JVM resolves
relative paths against the folder it started in, so it is the same one). An exception is compared
by its class's name only (PySpark's messages carry the JVM's details).
Examples of what PySpark does not have are skipped, each with its reason
(``SPARKLET_ONLY``). Prints each example PySpark answers otherwise, with
both answers, and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The modules whose examples run by default: those documented in full.
MODULES = [
    "sparklet.sql.session",
    "sparklet.sql.column",
    "sparklet.sql.group",
    "sparklet.sql.readwriter",
    "sparklet.sql.dataframe",
    "sparklet.sql.window",
    "sparklet.sql.observation",
    "sparklet.sql._options",
    "sparklet.sql.streaming.readwriter",
    "sparklet.sql.streaming.query",
    "sparklet.testing.utils",
    "sparklet.testing.stream_test",
    "sparklet.sql.functions.string",
    "sparklet.sql.functions.math",
    "sparklet.sql.functions.datetime",
    "sparklet.sql.functions.collection",
    "sparklet.sql.functions.higher_order",
    "sparklet.sql.functions.aggregates",
    "sparklet.sql.functions.windowing",
    "sparklet.sql.functions._core",
    "sparklet.sql.functions.misc",
    "sparklet.sql.functions.sketches",
    "sparklet.sql.udf",
    "sparklet.sql.streaming.state",
    "sparklet.sql.streaming.listener",
    "sparklet.sql.streaming.progress",
    "sparklet.sql.streaming.stateful_processor",
    "sparklet.sql.catalog",
    "sparklet.sql.types",
    "sparklet.sql.functions",
    "sparklet.sql._dataframe_na",
    "sparklet.sql._dataframe_stat",
    "sparklet.sql.tvf",
    "sparklet.sql.datasource",
    "sparklet.errors.exceptions",
]

#: Examples (by qualified name, or a prefix ending in ".") of sparklet's
#: own API, which PySpark does not have, and why.
SPARKLET_ONLY = {
    "sparklet.sql.catalog.Catalog.refreshByPath": (
        "PySpark 4.3 keeps the table's old file listing after refreshByPath (FAILED_READ_FILE); sparklet reads the folder again"
    ),
    "sparklet.sql.streaming.state.GroupState.": "the examples build a GroupState as sparklet's engine does (PySpark's takes JVM internals)",
    "sparklet.sql.functions.datetime.cumulate_window": "cumulating windows are sparklet's (Flink's CUMULATE)",
    "sparklet.sql.functions.string.space": "PySpark has no F.space (Spark SQL's space())",
    "sparklet.testing.stream_test.ManualClock": "a manual clock is sparklet's (PySpark has none)",
    "sparklet.testing.stream_test.StartStream": "its example drives a manual clock",
    "sparklet.testing.stream_test.AdvanceManualClock": "a manual clock is sparklet's",
    "sparklet.testing.memory_stream.": "MemoryStream's own methods are a stand-in on PySpark",
    "sparklet.sql.session.SparkSession.emptyDataFrame": "sparklet's shortcut; PySpark has none",
    "sparklet.sql.session.SparkSession.Builder.remote": "its example prints sparklet's builder",
    "sparklet.sql.streaming.readwriter.DataStreamWriter.foreachBatch": (
        "sparklet hands a pyarrow Table (PySpark: a DataFrame), docs/differences.md"
    ),
    # run, they would stop the one SparkContext the later examples need
    "sparklet.sql.session.SparkSession.stop": "it stops a session, which stops PySpark's SparkContext",
    "sparklet.sql.session.SparkSession.Builder.create": "it stops a session, which stops PySpark's SparkContext",
}


#: Set in the process that runs the examples (with PySpark's environment).
CHILD = "SPARKLET_DOCTESTS_ON_PYSPARK"


def skipped(name: str) -> str | None:
    """Why the example ``name`` is not run on PySpark (None: it is)."""
    for key, reason in SPARKLET_ONLY.items():
        if name == key or (key.endswith(".") and name.startswith(key)):
            return reason
    return None


def collect(modules: list[str]) -> list[doctest.DocTest]:
    """The examples of ``modules``, found while they are still sparklet's."""
    sys.path.insert(0, str(ROOT / "python"))
    finder = doctest.DocTestFinder()
    tests: list[doctest.DocTest] = []
    for name in modules:
        tests += [t for t in finder.find(importlib.import_module(name)) if t.examples]
    return sorted(tests, key=lambda t: t.name)


def main() -> int:
    if os.environ.get(CHILD) is None:
        # PySpark's side needs pandas 2 first on the path (as `make portability`)
        sys.path.insert(0, str(ROOT / "tools"))
        from portability import pyspark_env

        env = {**pyspark_env(), CHILD: "1"}
        os.execve(sys.executable, [sys.executable, __file__, *sys.argv[1:]], env)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=MODULES)
    args = parser.parse_args()
    tests = collect(args.modules)

    from sparklet.testing import pyspark_engine

    pyspark_engine.alias_modules()
    os.environ[pyspark_engine.AS_PYSPARK] = "1"
    base = Path(tempfile.mkdtemp(prefix="sparklet-doctests-on-pyspark-"))
    work = base / "work"
    work.mkdir()
    os.chdir(work)  # before the JVM starts: its working folder
    from pyspark.sql import Row, SparkSession
    from pyspark.sql import functions as F

    builder = SparkSession.builder.appName("sparklet-doctests")
    for key, value in {**pyspark_engine.SPARK_DEFAULTS, "spark.sql.warehouse.dir": str(base / "warehouse")}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")

    flags = doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL
    failed, ran, skips = [], 0, []
    for test in tests:
        reason = skipped(test.name)
        if reason is not None:
            skips.append(f"{test.name}: {reason}")
            continue
        for entry in work.iterdir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        test.globs = {"spark": spark, "F": F, "Row": Row}
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=flags)
        result = runner.run(test, out=report.append, clear_globs=True)
        for q in spark.streams.active:
            q.stop()
        ran += 1
        if result.failed:
            failed.append((test.name, "".join(report)))
    os.chdir(ROOT)
    spark.stop()
    shutil.rmtree(base, ignore_errors=True)
    for name, report in failed:
        print(f"=== {name}\n{report}")
    print(
        f"{ran} docstrings' examples run on PySpark: {ran - len(failed)} give PySpark's answers, {len(failed)} do not"
    )
    print(f"{len(skips)} skipped (sparklet's own API):" + "".join(f"\n  {s}" for s in skips))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
