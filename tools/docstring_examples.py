"""Run the examples of PySpark's own docstrings against sparklet, and count.

    python tools/docstring_examples.py                 (make docstrings)
    python tools/docstring_examples.py --engine pyspark   (the baseline again)
    python tools/docstring_examples.py --only upper,lower -v

PySpark documents its functions and Column methods with doctest examples
that show the call and the exact table it prints, column names included.
This tool reads them from the installed ``pyspark`` package at run time
(nothing of them is copied into the repository), runs each docstring's
examples as PySpark's own doctest run does (a copy of the module's names,
``spark`` a session, ELLIPSIS and NORMALIZE_WHITESPACE), once on PySpark
(the baseline, cached in ``build/docstrings/pyspark.json``) and once on
sparklet, with ``pyspark.*`` imports in the examples answered by
``sparklet.*``. A docstring passes when all of its examples do.

It prints, per module, how many docstrings pass on PySpark and how many of
those pass on sparklet, and lists each failure with its reason; examples
whose output is not deterministic on Spark itself (random numbers, the
current time, ids), or empty on Spark only because Spark prints it on the
JVM's standard output, are skipped and counted apart. The per-docstring
table is left in ``build/docstrings/``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import doctest
import importlib
import io
import itertools
import json
import os
import signal
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "docstrings"
#: Modules whose docstrings are run: (name in the report, PySpark module, class or None).
MODULES = {
    "functions": ("pyspark.sql.functions.builtin", None),
    "column": ("pyspark.sql.column", "Column"),
    "dataframe": ("pyspark.sql.dataframe", "DataFrame"),
    "na": ("pyspark.sql.dataframe", "DataFrameNaFunctions"),
    "stat": ("pyspark.sql.dataframe", "DataFrameStatFunctions"),
    "group": ("pyspark.sql.group", "GroupedData"),
    "reader": ("pyspark.sql.readwriter", "DataFrameReader"),
    "writer": ("pyspark.sql.readwriter", "DataFrameWriter"),
    "session": ("pyspark.sql.session", "SparkSession"),
    "catalog": ("pyspark.sql.catalog", "Catalog"),
}
#: sparklet's module answering each PySpark module the examples run in
#: (its names are the examples' globals, as PySpark's doctests use the
#: module's own).
SPARKLET_MODULES = {
    "pyspark.sql.column": "sparklet.sql.column",
    "pyspark.sql.dataframe": "sparklet.sql.dataframe",
    "pyspark.sql.group": "sparklet.sql.group",
    "pyspark.sql.readwriter": "sparklet.sql.readwriter",
    "pyspark.sql.session": "sparklet.sql.session",
    "pyspark.sql.catalog": "sparklet.sql.catalog",
}
#: What the examples of these give differs from run to run on Spark itself.
NONDETERMINISTIC = {
    "rand",
    "randn",
    "random",
    "uuid",
    "shuffle",
    "current_date",
    "current_timestamp",
    "current_time",
    "now",
    "localtimestamp",
    "curdate",
    "monotonically_increasing_id",
    "spark_partition_id",
    "input_file_name",
    "input_file_block_start",
    "input_file_block_length",
    "current_user",
    "user",
    "session_user",
    "current_catalog",
    "current_database",
    "current_schema",
    "version",
    "uniform",
    "randstr",
    "try_reflect",
    "reflect",
    "java_method",
}
#: Examples whose expected output is empty on Spark only because Spark prints
#: it elsewhere: the console sink and executor-side functions write to the
#: JVM's or a Python worker's standard output, which doctest does not capture
#: (in a terminal both engines show the same text). Counted apart, as skips.
PRINTS_ELSEWHERE_ON_SPARK = {
    "dataframe.foreach",
    "dataframe.foreachPartition",
    "dataframe.observe",
    "dataframe.withWatermark",
    "session.readStream",
}
#: Seconds one docstring's examples may take.
TIMEOUT = 60
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def docstrings(module: str) -> dict[str, str]:
    """The docstrings with examples of a report module, by name."""
    path, cls = MODULES[module]
    mod = importlib.import_module(path)
    found: dict[str, str] = {}
    if cls is None:
        import pyspark.sql.functions as F

        for name in F.__all__:
            doc = getattr(getattr(mod, name, None), "__doc__", None) or ""
            if ">>>" in doc:
                found[name] = doc
    else:
        owner = getattr(mod, cls)
        for name, member in vars(owner).items():
            if name.startswith("_") and name not in ("__getitem__", "__getattr__"):
                continue
            doc = getattr(member, "__doc__", None) or ""
            if ">>>" in doc:
                found[name] = doc
    return found


def sparklet_modules() -> dict[str, types.ModuleType]:
    """``pyspark`` module names answered by sparklet's (what the examples import)."""
    import sparklet
    import sparklet.errors
    import sparklet.sql
    import sparklet.sql.functions
    import sparklet.sql.types
    import sparklet.storagelevel

    aliases: dict[str, types.ModuleType] = {
        "pyspark": sparklet,
        "pyspark.sql": sparklet.sql,
        "pyspark.sql.functions": sparklet.sql.functions,
        "pyspark.sql.functions.builtin": sparklet.sql.functions,
        "pyspark.sql.types": sparklet.sql.types,
        "pyspark.errors": sparklet.errors,
        "pyspark.storagelevel": sparklet.storagelevel,
    }
    for name in ("window", "column", "dataframe", "session"):
        with contextlib.suppress(ImportError):
            aliases[f"pyspark.sql.{name}"] = importlib.import_module(f"sparklet.sql.{name}")
    return aliases


def module_dict(name: str) -> dict:
    """A module's names, or none when sparklet has no such module."""
    try:
        return dict(importlib.import_module(name).__dict__)
    except ImportError:
        return {}


def sparklet_globals() -> dict:
    """The names PySpark's SQL modules import (types, Row, Column, ...),
    from sparklet."""
    return {**module_dict("sparklet.sql.types"), **module_dict("sparklet.sql")}


#: --show: print each failing docstring's doctest report (with --only)
SHOW_REPORTS = False


class Timeout(Exception):
    pass


def run_one(name: str, doc: str, globs: dict, engine: str = "pyspark") -> tuple[str, str]:
    """("pass" | "fail", reason) for one docstring's examples."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(doc, dict(globs), name, None, 0)
    if engine == "sparklet":
        # an object's repr names its module, as the examples' imports do:
        # ``<pyspark...RuntimeConf...>`` or ``<class 'pyspark.core.rdd.RDD'>``
        # is answered by sparklet's module
        for example in test.examples:
            example.want = (
                example.want.replace("<pyspark.", "<sparklet.")
                .replace("<pyspark...", "<sparklet...")
                .replace("<class 'pyspark.", "<class 'sparklet.")
            )
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)

    def alarm(signum, frame):  # noqa: ANN001, ARG001
        raise Timeout(f"took over {TIMEOUT} s")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(TIMEOUT)
    try:
        result = runner.run(test, out=out.write, clear_globs=True)
    except Timeout as e:
        return "fail", str(e)
    finally:
        signal.alarm(0)
    if result.failed == 0:
        return "pass", ""
    if SHOW_REPORTS:
        print(out.getvalue())
    return "fail", reason(out.getvalue())


def reason(report: str) -> str:
    """The first failure of a doctest report, in one line."""
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Exception raised:"):
            # this failure's traceback: up to the next failure's "****" line
            block = list(itertools.takewhile(lambda x: not x.startswith("*"), lines[i + 1 :]))
            tail = [x.strip() for x in block if x.strip()]
            # the last line of the traceback names the error
            for x in reversed(tail):
                if not x.startswith(("File ", "Traceback", "~", "^")):
                    return x[:200]
        if line.startswith("Expected:"):
            return "output differs"
    return "failed"


def run_engine(engine: str, modules: list[str], only: set[str] | None) -> dict[str, dict[str, list[str]]]:
    """{module: {name: [status, reason]}} on `engine`."""
    if engine == "pyspark":
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.master("local[2]").appName("docstrings").getOrCreate()
        spark.sparkContext.setLogLevel("OFF")
        swapped: dict[str, types.ModuleType] = {}
    else:
        from sparklet.sql import SparkSession

        spark = SparkSession.builder.appName("docstrings").getOrCreate()
        swapped = sparklet_modules()
    results: dict[str, dict[str, list[str]]] = {}
    # the examples write files and tables (spark-warehouse) where they run
    scratch = OUT / f"work-{engine}"
    scratch.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    os.chdir(scratch)
    for module in modules:
        docs = docstrings(module)
        path, _ = MODULES[module]
        saved = {k: sys.modules.get(k) for k in swapped}
        # PySpark's doctests see its module's names, the standard modules
        # it imports (`sys`) among them; those are not PySpark's code
        stdlib = {
            k: v
            for k, v in importlib.import_module(path).__dict__.items()
            if isinstance(v, types.ModuleType) and not v.__name__.startswith(("pyspark", "sparklet"))
        }
        sys.modules.update(swapped)
        try:
            base = (swapped.get(path) or importlib.import_module(path)).__dict__
            if engine == "sparklet" and path in SPARKLET_MODULES:
                base = {**sparklet_globals(), **module_dict(SPARKLET_MODULES[path])}
            globs = {**stdlib, **base, "spark": spark}
            table: dict[str, list[str]] = {}
            for name, doc in sorted(docs.items()):
                if only and name not in only:
                    continue
                if name in NONDETERMINISTIC:
                    table[name] = ["skip", "not deterministic on Spark"]
                    continue
                if f"{module}.{name}" in PRINTS_ELSEWHERE_ON_SPARK:
                    table[name] = ["skip", "Spark prints the output on the JVM's stdout, not captured"]
                    continue
                try:
                    status, why = run_one(name, doc, globs, engine)
                except Exception as e:  # noqa: BLE001 - a broken example is a failure, not the run's end
                    status, why = "fail", f"{type(e).__name__}: {e}"[:200]
                table[name] = [status, why]
            results[module] = table
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v
    os.chdir(here)
    return results


def baseline(modules: list[str], refresh: bool) -> dict[str, dict[str, list[str]]]:
    """PySpark's own results (run in a process of its own for the modules
    not cached yet, then cached)."""
    path = OUT / "pyspark.json"
    cached = {} if refresh or not path.exists() else json.loads(path.read_text())
    missing = [m for m in modules if m not in cached]
    if missing:
        OUT.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(ROOT / "tools"))
        from portability import pyspark_env  # the pandas PySpark supports, first on its path

        cmd = [sys.executable, str(Path(__file__).resolve()), "--engine", "pyspark", "--modules", ",".join(missing)]
        subprocess.run(cmd, check=True, env=pyspark_env())
        cached = json.loads(path.read_text())
    return {m: cached.get(m, {}) for m in modules}


def write_coverage(path: Path, base: dict, ours: dict, summary: list[str]) -> None:
    """The docs page: every PySpark function, whether sparklet has it, which
    library implements it, and how its docstring's examples fare."""
    import pyspark.sql.functions as PF

    import sparklet.sql.functions as F

    has = set(F.__all__)
    rows = []
    for name in sorted(PF.__all__, key=str.lower):
        impl = F._implementation(name) if name in has else None
        spark = base.get("functions", {}).get(name, ["-", ""])[0]
        mine = ours.get("functions", {}).get(name, ["-", ""])[0]
        example = {"pass": "passes", "fail": "fails", "skip": "skipped"}.get(mine, "-") if spark == "pass" else "-"
        if name in has and impl is None:
            impl = "sparklet (Python)"
        rows.append(f"| `{name}` | {'yes' if name in has else 'no'} | {impl or '-'} | {example} |")
    count = sum(1 for n in PF.__all__ if n in has)
    text = [
        "# Functions: coverage of `pyspark.sql.functions`",
        "",
        "Generated by `python tools/docstring_examples.py --coverage docs/functions.md`",
        "(`make docstrings`); do not edit by hand.",
        "",
        f"sparklet has {count} of PySpark's {len(PF.__all__)} functions. Each one's docstring examples,",
        "as PySpark ships them, run on sparklet (only those that pass on PySpark itself count):",
        "",
        *[f"- {line}" for line in summary if not line.startswith(" ")],
        "",
        '"Implemented by" names the library whose function runs: `datafusion` (DataFusion\'s own),',
        "`datafusion-spark` (the DataFusion project's Spark-compatible functions), `datasketches`",
        "(Apache DataSketches' Rust port, for the sketch functions), `sparklet` (written here, where",
        "none has Spark's semantics).",
        "",
        "| function | in sparklet | implemented by | docstring examples |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
    ]
    path.write_text("\n".join(text))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=["sparklet", "pyspark"], default="sparklet")
    ap.add_argument("--modules", default=",".join(MODULES))
    ap.add_argument("--only", default="", help="comma-separated names")
    ap.add_argument("--refresh-baseline", action="store_true")
    ap.add_argument("--coverage", default="", help="write the coverage page (docs/functions.md) here")
    ap.add_argument("--show", action="store_true", help="print each failure's doctest report")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failure's reason")
    args = ap.parse_args()
    global SHOW_REPORTS
    SHOW_REPORTS = args.show
    modules = [m for m in args.modules.split(",") if m]
    only = {n for n in args.only.split(",") if n} or None
    OUT.mkdir(parents=True, exist_ok=True)
    if args.engine == "pyspark":
        results = run_engine("pyspark", modules, only)
        path = OUT / "pyspark.json"
        cached = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**cached, **results}, indent=1, sort_keys=True))
        return 0
    base = baseline(modules, args.refresh_baseline)
    ours = run_engine("sparklet", modules, only)
    (OUT / "sparklet.json").write_text(json.dumps(ours, indent=1, sort_keys=True))
    lines = []
    for module in modules:
        table = ours[module]
        on_spark = {n for n, (s, _) in base[module].items() if s == "pass"}
        counted = [n for n in table if n in on_spark and table[n][0] != "skip"]
        passed = [n for n in counted if table[n][0] == "pass"]
        skipped = [n for n, (s, _) in table.items() if s == "skip"]
        share = 100 * len(passed) / max(len(counted), 1)
        lines.append(
            f"{module}: {len(passed)} of {len(counted)} docstrings that pass on PySpark pass on sparklet "
            f"({share:.1f}%); {len(skipped)} skipped (not deterministic on Spark, or printed by Spark's JVM)"
        )
        reasons = collections.Counter(table[n][1] for n in counted if table[n][0] != "pass")
        if args.verbose:
            for n in counted:
                if table[n][0] != "pass":
                    lines.append(f"  {module}.{n}: {table[n][1]}")
        else:
            for why, count in reasons.most_common(15):
                lines.append(f"  {count:4d}  {why}")
    report = "\n".join(lines)
    if args.coverage:
        write_coverage(Path(args.coverage), base, ours, lines)
    (OUT / "report.txt").write_text(report + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
