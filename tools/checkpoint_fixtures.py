"""Write the checkpoint fixtures of tests_py/checkpoint_cases.py with the
installed sparklet: each case's query on each state store provider, its
first batch committed, into tests_py/fixtures/checkpoints/<label>/.

    python tools/checkpoint_fixtures.py LABEL [CASE ...]   (LABEL: the commit, say;
                                                          CASE: only those cases)

tests_py/test_checkpoint_fixtures.py restarts every fixture it finds there
and checks the restarted query against one that never stopped."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests_py"))

from checkpoint_cases import CASES, FIRST, PROVIDERS, run  # noqa: E402
from sparklet.sql import SparkSession  # noqa: E402


def main() -> None:
    label, only = sys.argv[1], set(sys.argv[2:])
    out = ROOT / "tests_py" / "fixtures" / "checkpoints" / label
    shutil.rmtree(out, ignore_errors=True)
    spark = SparkSession.builder.appName("fixtures").getOrCreate()
    for case in (c for c in CASES if not only or c.name in only):
        for provider in PROVIDERS:
            ckpt = out / f"{case.name}-{provider}"
            run(spark, case, provider, str(ckpt), [], [FIRST])
            (ckpt / ".sparklet-lock").unlink(missing_ok=True)  # the stopped run's
            print(ckpt.relative_to(ROOT))
    spark.stop()


if __name__ == "__main__":
    main()
