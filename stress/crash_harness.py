"""Kill-and-restart harness for exactly-once checks.

Runs ``crash_pipeline.py`` as a child, kills it with SIGKILL at random
moments (and, every few runs, aborts it at an exact engine failpoint:
between offsets and commit, in the middle of a sink write), restarts it,
adds input as it goes, then runs it to completion and compares the output
with the input: every row exactly once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAILPOINTS = ["after-offsets", "mid-sink", "after-sink", "after-commit"]


@dataclass
class Report:
    """What a kill loop did and found."""

    runs: int = 0
    kills: int = 0
    failpoint_aborts: int = 0
    expected_rows: int = 0
    lost_rows: int = 0
    duplicated_rows: int = 0
    lost_batch_rows: int = 0
    duplicated_batch_rows: int = 0
    windows_expected: int = 0
    windows_wrong: int = 0

    @property
    def exactly_once(self) -> bool:
        """True when both outputs hold every expected row exactly once."""
        return not (
            self.lost_rows
            or self.duplicated_rows
            or self.lost_batch_rows
            or self.duplicated_batch_rows
            or self.windows_wrong
        )


def add_input(work: Path, file_no: int, rows: int = 20) -> list[int]:
    """Write input file ``file_no`` atomically; return its ids."""
    ids = list(range(file_no * rows, (file_no + 1) * rows))
    folder = work / "in"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".f{file_no:05d}.tmp"
    # event time = id seconds after the epoch: every 10 ids fill one 10 s window
    tmp.write_text(
        "".join(json.dumps({"id": i, "payload": f"p{i}", "ts": f"1970-01-01T{_hms(i)}"}) + "\n" for i in ids)
    )
    os.replace(tmp, folder / f"f{file_no:05d}.json")
    return ids


def _hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"


def _start(work: Path, failpoint: str | None, provider: str) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop("SPARKLET_FAILPOINT", None)
    if failpoint:
        env["SPARKLET_FAILPOINT"] = failpoint
    return subprocess.Popen(
        [sys.executable, str(HERE / "crash_pipeline.py"), str(work), provider],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _check_child(proc: subprocess.Popen) -> None:
    _, err = proc.communicate()
    if proc.returncode not in (0, -signal.SIGKILL, -signal.SIGABRT):
        raise RuntimeError(f"pipeline failed with {proc.returncode}:\n{err.decode(errors='replace')}")


def run(
    work: Path,
    kills: int,
    seed: int = 0,
    files_per_round: int = 3,
    max_delay: float = 1.2,
    provider: str = "hdfs",
) -> Report:
    """Kill the pipeline ``kills`` times, then finish it and count rows (state on ``provider``)."""
    rng = random.Random(seed)
    report = Report()
    expected: list[int] = []
    next_file = 0
    while report.kills + report.failpoint_aborts < kills:
        for _ in range(files_per_round):
            expected += add_input(work, next_file)
            next_file += 1
        use_failpoint = report.runs % 4 == 3
        failpoint = rng.choice(FAILPOINTS) if use_failpoint else None
        proc = _start(work, failpoint, provider)
        report.runs += 1
        if failpoint:
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
            if proc.returncode == -signal.SIGABRT:
                report.failpoint_aborts += 1
            _check_child(proc)
            continue
        time.sleep(rng.uniform(0.05, max_delay))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            report.kills += 1
        _check_child(proc)
    # finish: no kill, until the input is processed
    proc = _start(work, None, provider)
    report.runs += 1
    proc.wait(timeout=300)
    _check_child(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"final run exited with {proc.returncode}")
    want = Counter(i for i in expected if i % 2 == 0)
    report.expected_rows = sum(want.values())
    report.lost_rows, report.duplicated_rows = _compare(want, _file_sink_ids(work / "out_files"))
    report.lost_batch_rows, report.duplicated_batch_rows = _compare(want, _batch_ids(work / "out_batches"))
    # windows: with watermark = newest event time, every window ending at or
    # before the last id is emitted once, with 10 rows
    last = max(expected)
    want_windows = {(k * 10, 10) for k in range(last // 10) if k * 10 + 10 <= last}
    got_windows = _window_counts(work / "out_windows")
    report.windows_expected = len(want_windows)
    report.windows_wrong = sum((Counter(got_windows) - Counter(want_windows)).values()) + len(
        want_windows - set(got_windows)
    )
    return report


def _compare(want: Counter, got: Counter) -> tuple[int, int]:
    lost = sum((want - got).values())
    dup = sum((got - want).values())
    return lost, dup


def _file_sink_ids(path: Path) -> Counter:
    import pyarrow.parquet as pq

    from sparklet.sql.streaming.files import committed_files

    ids: Counter = Counter()
    for f in committed_files(str(path)):
        ids.update(pq.read_table(f).column("id").to_pylist())
    return ids


def _window_counts(path: Path) -> list[tuple[int, int]]:
    import pyarrow.parquet as pq

    from sparklet.sql.streaming.files import committed_files

    out = []
    for f in committed_files(str(path)):
        t = pq.read_table(f).to_pylist()
        out.extend((int(r["window"]["start"].timestamp()), r["count"]) for r in t)
    return out


def _batch_ids(path: Path) -> Counter:
    ids: Counter = Counter()
    for f in path.glob("batch-*.json"):
        ids.update(json.loads(f.read_text()))
    return ids
