"""Exactly-once under SIGKILL: 200 kills per scenario by default.

    python stress/crash_stress.py [--kills N] [--seed S] [--scenario NAME]

Scenarios: ``kills`` (one pipeline, killed and restarted; its input holds
poisoned lines and rows on time only by the previous batch's watermark),
``rocksdb`` (the same on the RocksDB state store), ``concurrent`` (two
pipelines started at once on the same checkpoints every run). Prints, per
scenario, runs, kills (random SIGKILLs plus failpoint aborts), and the lost
and duplicated rows of each output. Exits 1 if any row was lost or
duplicated.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crash_harness import run  # noqa: E402

SCENARIOS = {
    "kills": {"provider": "hdfs"},
    "rocksdb": {"provider": "rocksdb"},
    "concurrent": {"provider": "hdfs", "concurrent": True},
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    args = ap.parse_args()
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    ok = True
    for name in names:
        t0 = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            r = run(Path(tmp), args.kills, seed=args.seed, **SCENARIOS[name])
        print(f"== {name}")
        print(f"runs: {r.runs}")
        print(f"kills: {r.kills} SIGKILL + {r.failpoint_aborts} failpoint aborts")
        if name == "concurrent":
            print(f"second pipelines refused the checkpoints: {r.refused_twins}")
        print(f"expected rows: {r.expected_rows}")
        print(f"file sink: lost {r.lost_rows}, duplicated {r.duplicated_rows}")
        print(f"foreachBatch: lost {r.lost_batch_rows}, duplicated {r.duplicated_batch_rows}")
        print(f"Delta sink: lost {r.lost_delta_rows}, duplicated {r.duplicated_delta_rows}")
        print(f"foreachBatch merge into Delta: {r.merge_keys} keys, {r.merge_keys_wrong} missing or wrong")
        print(f"Python data source: lost {r.lost_python_rows}, duplicated {r.duplicated_python_rows}")
        print(f"windowed counts: {r.windows_expected} windows expected, {r.windows_wrong} missing, duplicated or wrong")
        print(
            f"late rows across restarts: {r.late_expected} expected, "
            f"lost {r.lost_late_rows}, duplicated {r.duplicated_late_rows}"
        )
        print(f"exactly once: {r.exactly_once} ({time.time() - t0:.0f} s)", flush=True)
        ok &= r.exactly_once
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
