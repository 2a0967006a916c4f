"""Running one benchmark query on PySpark, in its own interpreter, for a side-by-side figure."""

from __future__ import annotations

import json
import subprocess


def run_pyspark(pyspark_python: str, script: str, folder: str, kind: str) -> dict:
    """Run ``script`` in child mode (``--engine pyspark``) and return its JSON result."""
    out = subprocess.run(
        [pyspark_python, script, "--engine", "pyspark", "--folder", folder, "--kind", kind],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(kind: str, width: int, mine: dict, theirs: dict, same: bool) -> None:
    """Print PySpark's rate and the throughput ratio."""
    rate = theirs["events"] / theirs["elapsed"]
    ratio = (mine["events"] / mine["elapsed"]) / rate
    print(
        f"{kind:{width}s} PySpark : {rate:12,.0f} events/s ({theirs['elapsed']:.2f} s) -> sparklet is "
        f"{ratio:.1f}x; identical results: {same}"
    )
