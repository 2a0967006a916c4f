"""Run the fuzz targets for a wall-clock budget each and report their figures.

proptest stops after a number of cases, not a time, so each target is run
in rounds of `--cases` cases (each round draws a fresh random seed) until
its budget is spent. A failing round is a finding: proptest has already
shrunk it and recorded it in tests_rs/proptest-regressions/fuzz.txt, and
the round's output is kept beside the report. A round that takes longer
than `--hang-seconds` is reported as a hang.

    python tools/fuzz.py --minutes 30 --jobs 2            # every target
    python tools/fuzz.py --minutes 5 json_reader csv_reader
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests_rs"


@dataclass
class Figures:
    """What one target's run did."""

    target: str
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    rounds: int = 0
    cases: int = 0
    findings: list[str] = field(default_factory=list)


def targets() -> list[str]:
    """The proptest properties declared in tests_rs/tests/fuzz.rs."""
    text = (TESTS / "tests" / "fuzz.rs").read_text()
    body = text[text.index("proptest! {") :]
    return re.findall(r"#\[test\]\s*fn (\w+)\(", body)


def test_binary() -> str:
    """Build the integration test binary (as make test does) and return its path."""
    out = subprocess.run(
        ["cargo", "test", "-q", "-p", "sparklet-tests", "--test", "integration", "--no-run", "--message-format=json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if (
            msg.get("reason") == "compiler-artifact"
            and msg.get("executable")
            and msg["target"]["name"] == "integration"
        ):
            return msg["executable"]
    raise SystemExit("cargo built no integration test binary")


def wait(child: subprocess.Popen, hang: float) -> tuple[int | None, float]:
    """The child's exit status and CPU seconds (user + system), or None when
    it has not ended within `hang` seconds."""
    deadline = time.monotonic() + hang
    while time.monotonic() < deadline:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return child.returncode, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    return None, 0.0


def fuzz(binary: str, target: str, budget: float, cases: int, hang: float, log_dir: Path) -> Figures:
    figures = Figures(target)
    # the corpus and the regressions file are found from CARGO_MANIFEST_DIR, as
    # under cargo test (the binary may have been built in another checkout)
    env = dict(os.environ, PROPTEST_CASES=str(cases), CARGO_MANIFEST_DIR=str(TESTS))
    start = time.monotonic()
    while time.monotonic() - start < budget:
        log = log_dir / f"{target}-round{figures.rounds + 1}.log"
        with log.open("w") as out:
            child = subprocess.Popen(
                [binary, "--exact", f"fuzz::{target}", "--test-threads", "1", "-q"],
                cwd=TESTS,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            status, cpu = wait(child, hang)
        if status is None:
            child.kill()
            child.wait()
            figures.findings.append(f"round {figures.rounds + 1}: no answer in {hang:.0f} s")
            break
        figures.rounds += 1
        figures.cpu_seconds += cpu
        if status != 0:
            figures.findings.append(f"round {figures.rounds}: failed, output in {log}")
            break
        log.unlink()
        figures.cases += cases
    figures.seconds = time.monotonic() - start
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="targets to run (default: all)")
    parser.add_argument("--minutes", type=float, default=30.0, help="budget per target")
    parser.add_argument("--jobs", type=int, default=1, help="targets run side by side")
    parser.add_argument("--cases", type=int, default=2000, help="cases per round")
    parser.add_argument("--hang-seconds", type=float, default=900.0)
    parser.add_argument("--log-dir", type=Path, default=Path("/tmp/sparklet-fuzz"))
    args = parser.parse_args()

    known = targets()
    chosen = args.targets or known
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise SystemExit(f"unknown fuzz targets {unknown}; there are {known}")
    args.log_dir.mkdir(parents=True, exist_ok=True)
    binary = test_binary()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(
                lambda t: fuzz(binary, t, args.minutes * 60, args.cases, args.hang_seconds, args.log_dir),
                chosen,
            )
        )
    head = f"{'target':<26}{'minutes':>8}{'CPU min':>8}{'rounds':>8}{'cases':>12}{'cases/s':>9}"
    print(head + "  findings")
    for f in results:
        rate = f.cases / f.seconds if f.seconds else 0.0
        print(
            f"{f.target:<26}{f.seconds / 60:>8.1f}{f.cpu_seconds / 60:>8.1f}{f.rounds:>8}"
            f"{f.cases:>12,}{rate:>9.0f}  " + ("; ".join(f.findings) or "none")
        )
    return 1 if any(f.findings for f in results) else 0


if __name__ == "__main__":
    sys.exit(main())
