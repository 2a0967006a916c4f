"""Cost as the work grows: the stateful workloads of bench/streaming.py at
several sizes, so that one can see whether time grows linearly with a small
constant and memory stays bounded by the watermark, not by the input.

    python bench/scaling.py [--sizes 1000000 4000000 16000000] [--only join dedup sliding] [--noop]

The data of each size is generated once, under ``~/.cache/sparklet-scaling``
(20 files per stream, as bench/streaming.py writes them). Each run is a
process of its own; prints per workload and size: seconds, input rows/s,
peak RSS and the largest state, then each size's rows/s against the
smallest size's. ``--noop`` writes into the ``noop`` sink instead of the
digest's ``foreachBatch`` (no output kept: the state's own memory).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from streaming import child, generate

WORKLOADS = ["join", "dedup", "sliding"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 4_000_000, 16_000_000])
    ap.add_argument("--only", nargs="*", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--noop", action="store_true", help="the noop sink instead of foreachBatch")
    ap.add_argument("--data", default=str(Path.home() / ".cache" / "sparklet-scaling"))
    args = ap.parse_args()
    folders = {}
    for size in args.sizes:
        folder = Path(args.data) / f"events-{size}-files{args.files}"
        if not (folder / "_COMPLETE").exists():
            folder.mkdir(parents=True, exist_ok=True)
            generate(folder, size, args.files)
            (folder / "_COMPLETE").write_text(str(size))
        folders[size] = folder
    print(f"{'workload':9s} {'events':>11s} {'s':>8s} {'rows/s':>12s} {'vs smallest':>11s} "
          f"{'peak RSS':>9s} {'state keys':>11s} {'state MB':>9s}")  # fmt: skip
    for kind in args.only:
        base = None
        for size, folder in folders.items():
            out = child(sys.executable, "sparklet", folder, kind, 0, "noop" if args.noop else "callback")
            rate = out["events"] / out["elapsed"]
            base = base or rate
            print(
                f"{kind:9s} {size:11,d} {out['elapsed']:8.2f} {rate:12,.0f} {rate / base:10.2f}x "
                f"{out['peak_rss_mb']:6.0f} MB {out['max_state_keys']:11,d} {out['max_state_bytes'] / 1e6:9.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
