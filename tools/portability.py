"""Run the Python test suite on sparklet and on Apache Spark, and count.

    python tools/portability.py [pytest args...]     (make portability)

Runs the tests of ``tests_py`` twice, with ``--engine=sparklet`` and
``--engine=pyspark`` (PySpark and Java needed; sparklet's pytest plugin
turns ``sparklet.sql`` into ``pyspark.sql`` for the second run), each test
file in a pytest process of its own, stopped after ``FILE_TIMEOUT`` (a
query that never ends on one engine costs that file's remaining tests, not
the run). Then prints how many tests pass on each engine, how many pass on
both, and the commonest reasons the rest fail on PySpark. The junit XML of
each file and the per-test table are left in ``build/portability/``.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "portability"
ENGINES = ("sparklet", "pyspark")
#: Seconds a test file may take on one engine.
FILE_TIMEOUT = 600


def run(engine: str, extra: list[str]) -> list[Path]:
    """Each test file on ``engine``; the junit XML reports written."""
    reports = []
    for test_file in sorted((ROOT / "tests_py").glob("test_*.py")):
        report = OUT / engine / f"{test_file.stem}.xml"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.unlink(missing_ok=True)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "180"]
        command += [f"--engine={engine}", f"--junitxml={report}", str(test_file), *extra]
        child = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
        try:
            child.wait(FILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            print(f"{engine}: {test_file.name} stopped after {FILE_TIMEOUT} s", flush=True)
        if report.exists():
            reports.append(report)
    return reports


def outcomes(reports: list[Path]) -> dict[str, tuple[str, str]]:
    """Each test's outcome (passed, failed, error, skipped) and first message line."""
    out: dict[str, tuple[str, str]] = {}
    cases = [case for report in reports for case in ET.parse(report).getroot().iter("testcase")]
    for case in cases:
        test = f"{case.get('classname')}::{case.get('name')}"
        status, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                status = child.tag
                message = (child.get("message") or child.text or "").strip().splitlines()[0:1]
                message = message[0][:160] if message else ""
        out[test] = (status, message)
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    results = {engine: outcomes(run(engine, sys.argv[1:])) for engine in ENGINES}
    ours, theirs = results["sparklet"], results["pyspark"]
    tests = sorted(ours)
    passed = {e: {t for t, (s, _) in results[e].items() if s == "passed"} for e in ENGINES}
    # a module PySpark cannot import reports one error, not its tests; a
    # file stopped after its time reports none
    not_run = [t for t in tests if t not in theirs]
    with open(OUT / "tests.tsv", "w") as table:
        table.write("test\tsparklet\tpyspark\tpyspark message\n")
        for t in tests:
            status, message = theirs.get(t, ("not run", "its module does not import on PySpark, or it ran out of time"))
            table.write(f"{t}\t{ours[t][0]}\t{status}\t{message}\n")
    reasons = collections.Counter(
        theirs.get(t, ("", "not run: its module does not import on PySpark, or it ran out of time"))[1]
        for t in tests
        if t not in passed["pyspark"]
    )
    print()
    print(f"{'engine':10s} {'passed':>7s} {'of':>5s}")
    for e in ENGINES:
        print(f"{e:10s} {len(passed[e] & set(tests)):7d} {len(tests):5d}")
    print(f"passing on both: {len(passed['sparklet'] & passed['pyspark'])}")
    print(f"not run on PySpark (a module importing sparklet-only helpers, or out of time): {len(not_run)}")
    print("commonest reasons for failing on PySpark:")
    for reason, n in reasons.most_common(15):
        print(f"  {n:4d}  {reason}")
    print(f"per test: {OUT / 'tests.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
