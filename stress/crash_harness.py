"""Kill-and-restart harness for exactly-once checks.

Runs ``crash_pipeline.py`` as a child, kills it with SIGKILL at random
moments (and, every few runs, aborts it at an exact engine failpoint:
between offsets and commit, in the middle of a sink write), restarts it,
adds input as it goes, then runs it to completion and compares the output
with the input: every row exactly once. The input has a poisoned line now
and then (arrays nested 50,000 deep: a malformed row, never a crash), and
rows that are on time only by the watermark of the batch before theirs,
whichever run that batch ran in. With ``concurrent``, each run starts two
pipelines on the same checkpoints at once: one owns them, the other must
be refused (``CONCURRENT_QUERY``), never run beside it.
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
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from crash_pipeline import MERGE_KEYS  # noqa: E402

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
    late_expected: int = 0
    lost_late_rows: int = 0
    duplicated_late_rows: int = 0
    refused_twins: int = 0
    lost_delta_rows: int = 0
    duplicated_delta_rows: int = 0
    merge_keys: int = 0
    merge_keys_wrong: int = 0
    lost_python_rows: int = 0
    duplicated_python_rows: int = 0

    @property
    def exactly_once(self) -> bool:
        """True when both outputs hold every expected row exactly once."""
        return not (
            self.lost_rows
            or self.duplicated_rows
            or self.lost_batch_rows
            or self.duplicated_batch_rows
            or self.windows_wrong
            or self.lost_late_rows
            or self.duplicated_late_rows
            or self.lost_delta_rows
            or self.duplicated_delta_rows
            or self.merge_keys_wrong
            or self.lost_python_rows
            or self.duplicated_python_rows
        )


#: A line no reader may crash on: arrays nested far deeper than Spark reads.
POISON = '{"id": ' + "[" * 50_000 + "]" * 50_000 + "}"
#: Every how many input files one carries the poisoned line.
POISON_EVERY = 7
#: Event times of the late-rows input start here, s (well after the epoch,
#: so the first batches' watermark of 0 finds nothing late).
LATE_BASE = 1_000_000


def _write_atomic(folder: Path, name: str, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(line + "\n" for line in lines))
    os.replace(tmp, folder / name)


def add_input(work: Path, file_no: int, rows: int = 20) -> list[int]:
    """Write input file ``file_no`` atomically (and its late-rows file);
    return its ids."""
    ids = list(range(file_no * rows, (file_no + 1) * rows))
    # event time = id seconds after the epoch: every 10 ids fill one 10 s window
    lines = [json.dumps({"id": i, "payload": f"p{i}", "ts": f"1970-01-01T{_hms(i)}"}) for i in ids]
    if file_no % POISON_EVERY == POISON_EVERY - 1:
        lines.insert(rows // 2, POISON)
    _write_atomic(work / "in", f"f{file_no:05d}.json", lines)
    # late-rows input: its second row is behind the previous file's newest
    # time but not behind the one before's: on time by Spark's rule
    t = LATE_BASE + 100 * file_no
    late = [{"id": 2 * file_no, "ts": _iso(t + 50)}, {"id": 2 * file_no + 1, "ts": _iso(t - 100)}]
    _write_atomic(work / "in_late", f"f{file_no:05d}.json", [json.dumps(r) for r in late])
    return ids


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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


def _check_child(proc: subprocess.Popen, twin: bool = False) -> bool:
    """Fail on a crash or an error; ``True`` when a ``twin`` was refused
    the checkpoints another run owns (the only error a twin may have)."""
    _, err = proc.communicate()
    text = err.decode(errors="replace")
    if twin and proc.returncode == 1 and "CONCURRENT_QUERY" in text:
        return True
    if proc.returncode not in (0, -signal.SIGKILL, -signal.SIGABRT):
        raise RuntimeError(f"pipeline failed with {proc.returncode}:\n{text}")
    return False


def _stop(proc: subprocess.Popen) -> bool:
    """SIGKILL ``proc`` if it still runs; whether it did."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        return True
    return False


def run(
    work: Path,
    kills: int,
    seed: int = 0,
    files_per_round: int = 3,
    max_delay: float = 1.2,
    provider: str = "hdfs",
    concurrent: bool = False,
) -> Report:
    """Kill the pipeline ``kills`` times, then finish it and count rows
    (state on ``provider``; with ``concurrent``, two pipelines a run)."""
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
        twin = _start(work, None, provider) if concurrent else None
        time.sleep(rng.uniform(0.05, max_delay))
        if _stop(proc):
            report.kills += 1
        # of two started at once, either may be the one refused
        report.refused_twins += _check_child(proc, twin=concurrent)
        if twin is not None:
            _stop(twin)
            report.refused_twins += _check_child(twin, twin=True)
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
    report.lost_delta_rows, report.duplicated_delta_rows = _compare(want, _delta_ids(work / "out_delta"))
    report.lost_python_rows, report.duplicated_python_rows = _compare(want, _batch_ids(work / "out_python"))
    # the merged table: one row per key, its count and sum over every even id
    want_merge: dict[int, tuple[int, int]] = {}
    for i in want.elements():
        n, total = want_merge.get(i % MERGE_KEYS, (0, 0))
        want_merge[i % MERGE_KEYS] = (n + 1, total + i)
    got_merge = _delta_rows(work / "out_merge")
    report.merge_keys = len(want_merge)
    report.merge_keys_wrong = sum(
        1 for k in set(want_merge) | {r["key"] for r in got_merge} if _merged(got_merge, k) != [want_merge.get(k)]
    )
    want_late = Counter(range(2 * next_file))
    report.late_expected = sum(want_late.values())
    report.lost_late_rows, report.duplicated_late_rows = _compare(want_late, _batch_ids(work / "out_late"))
    return report


def _compare(want: Counter, got: Counter) -> tuple[int, int]:
    lost = sum((want - got).values())
    dup = sum((got - want).values())
    return lost, dup


def _delta_rows(path: Path) -> list[dict]:
    """The Delta table's rows, read by the ``deltalake`` package."""
    from deltalake import DeltaTable

    return DeltaTable(str(path)).to_pyarrow_table().to_pylist()


def _delta_ids(path: Path) -> Counter:
    return Counter(r["id"] for r in _delta_rows(path))


def _merged(rows: list[dict], key: int) -> list[tuple[int, int] | None]:
    return [(r["n"], r["total"]) for r in rows if r["key"] == key] or [None]


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
