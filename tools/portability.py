"""Run the Python test suite on sparklet and on Apache Spark, and count.

    python tools/portability.py [pytest args...]     (make portability)
    python tools/portability.py --only=test_a.py,test_b.py   (those files again;
                                the other files' reports of the last run count)

Runs the tests of ``tests_py`` twice, with ``--engine=sparklet`` and
``--engine=pyspark`` (PySpark and Java needed; sparklet's pytest plugin
turns ``sparklet.sql`` into ``pyspark.sql`` for the second run), each test
file in a pytest process of its own, stopped after ``FILE_TIMEOUT`` (a
query that never ends on one engine costs that file's remaining tests, not
the run). The PySpark side runs with the pandas PySpark supports (pandas 2,
installed once into ``build/pyspark-pandas`` and put first on its path), so
pandas 3 is not what fails there. Tests marked ``sparklet_only`` (with
their reasons) are not collected on PySpark and are counted apart. Then
prints how many tests pass on each engine, how many pass on both, and the
commonest reasons the rest fail on PySpark. The junit XML of
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
#: Seconds a test file may take on one engine (PySpark runs the longest files in ~15 minutes).
FILE_TIMEOUT = 1500


PANDAS2 = OUT / "pyspark-pandas"


def pyspark_env() -> dict[str, str]:
    """The environment of the PySpark runs: pandas 2 first on the path, then the tests."""
    if not (PANDAS2 / "pytz").is_dir():
        # the rest of pandas 2's dependencies are pandas 3's too, in the venv
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(PANDAS2)]
        pip += ["pandas>=2.2,<3", "pytz"]
        subprocess.run(pip, check=True)
    # tests_py too: PySpark's workers unpickle functions a test module defines by importing it
    paths = [str(PANDAS2), str(ROOT / "tests_py"), os.environ.get("PYTHONPATH", "")]
    # the workers run this interpreter (PySpark's default is `python3` on the PATH, without the venv)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYSPARK_PYTHON": sys.executable}


def sparklet_only() -> dict[str, str]:
    """The tests marked sparklet_only and their reasons."""
    import pytest

    found: dict[str, str] = {}

    class Collector:
        def pytest_collection_modifyitems(self, items: list) -> None:
            for item in items:
                mark = item.get_closest_marker("sparklet_only")
                if mark is not None:
                    # as junit names it: tests_py.test_x::test_y[param]
                    path, *scopes, name = item.nodeid.split("::")
                    key = ".".join([path.removesuffix(".py").replace("/", "."), *scopes]) + f"::{name}"
                    found[key] = str(mark.kwargs.get("reason") or mark.args[0])

    pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", str(ROOT / "tests_py")], plugins=[Collector()])
    return found


def run(engine: str, extra: list[str], only: set[str]) -> None:
    """Each test file (or those named in ``only``) on ``engine``, its junit XML report written."""
    env = pyspark_env() if engine == "pyspark" else None
    for test_file in sorted((ROOT / "tests_py").glob("test_*.py")):
        if only and test_file.name not in only:
            continue
        report = OUT / engine / f"{test_file.stem}.xml"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.unlink(missing_ok=True)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "180"]
        command += [f"--engine={engine}", f"--junitxml={report}", str(test_file), *extra]
        child = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
        try:
            child.wait(FILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            print(f"{engine}: {test_file.name} stopped after {FILE_TIMEOUT} s", flush=True)


def reports(engine: str) -> list[Path]:
    """The reports of ``engine``'s test files that exist now."""
    return [r for r in sorted((OUT / engine).glob("test_*.xml")) if (ROOT / "tests_py" / f"{r.stem}.py").exists()]


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
    extra = sys.argv[1:]
    files = {f for a in extra if a.startswith("--only=") for f in a.removeprefix("--only=").split(",")}
    extra = [a for a in extra if not a.startswith("--only=")]
    only = sparklet_only()
    for engine in ENGINES:
        run(engine, extra, files)
    results = {engine: outcomes(reports(engine)) for engine in ENGINES}
    ours, theirs = results["sparklet"], results["pyspark"]
    marked = set(only) & set(ours)
    tests = sorted(t for t in ours if t not in marked)
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
    both = len(passed["sparklet"] & passed["pyspark"] & set(tests))
    print(f"passing on both: {both} of {len(tests)} that run on both ({100 * both / max(len(tests), 1):.1f}%)")
    reasons_only = collections.Counter(only.values())
    print(f"marked sparklet_only: {len(marked)} (not run on PySpark), by reason:")
    for reason, n in reasons_only.most_common():
        print(f"  {n:4d}  {reason}")
    print(f"not run on PySpark (a module importing sparklet-only helpers, or out of time): {len(not_run)}")
    print("commonest reasons for failing on PySpark:")
    for reason, n in reasons.most_common(15):
        print(f"  {n:4d}  {reason}")
    print(f"per test: {OUT / 'tests.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
