"""Exactly-once under SIGKILL: 200 kills by default.

    python stress/crash_stress.py [--kills N] [--seed S]

Prints runs, kills (random SIGKILLs plus failpoint aborts), and the lost and
duplicated rows of both outputs (file sink and foreachBatch). Exits 1 if any
row was lost or duplicated.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crash_harness import run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        r = run(Path(tmp), args.kills, seed=args.seed)
    print(f"runs: {r.runs}")
    print(f"kills: {r.kills} SIGKILL + {r.failpoint_aborts} failpoint aborts")
    print(f"expected rows: {r.expected_rows}")
    print(f"file sink: lost {r.lost_rows}, duplicated {r.duplicated_rows}")
    print(f"foreachBatch: lost {r.lost_batch_rows}, duplicated {r.duplicated_batch_rows}")
    print(f"windowed counts: {r.windows_expected} windows expected, {r.windows_wrong} missing, duplicated or wrong")
    print(f"exactly once: {r.exactly_once} ({time.time() - t0:.0f} s)")
    return 0 if r.exactly_once else 1


if __name__ == "__main__":
    sys.exit(main())
