#!/usr/bin/env bash
# Install a sparklet wheel into a new venv, with no Rust on PATH, and run the
# README's pipeline (as a user would after `pip install`): files in, a
# filter and a projection, foreachBatch to pandas CSVs, checked.
#   tools/check_wheel.sh dist/sparklet-*.whl
set -euo pipefail
wheel=$(realpath "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/sparklet-wheel-check-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
# no Rust toolchain or build tools reachable: only the venv and the system's bin folders
export PATH="$work/venv/bin:/usr/local/bin:/usr/bin:/bin"
unset CARGO_TARGET_DIR RUSTC_WRAPPER VIRTUAL_ENV PYTHONPATH
if command -v cargo >/dev/null 2>&1 || command -v rustc >/dev/null 2>&1; then
    echo "check_wheel: a Rust toolchain is on PATH ($(command -v cargo rustc | head -1)); the check needs one without" >&2
    exit 2
fi
cd "$work"
mkdir in out
cat > in/1.json <<'JSON'
{"ts": "2026-01-01T10:00:00", "user": "ann", "page": "/home", "ms": 900}
{"ts": "2026-01-01T10:00:01", "user": "bob", "page": "/cart", "ms": 100}
{"ts": "2026-01-01T10:00:02", "user": "cid", "page": "/checkout", "ms": 700}
JSON
python - <<'PY'
import glob

import pandas as pd

from sparklet.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("clicks").getOrCreate()
clicks = spark.readStream.schema("ts TIMESTAMP, user STRING, page STRING, ms INT").json("in/")
slow = clicks.where(F.col("ms") > 500).select("ts", F.upper("user").alias("user"), "page")
q = (slow.writeStream
        .foreachBatch(lambda tbl, batch_id: tbl.to_pandas().to_csv(f"out/{batch_id}.csv"))
        .trigger(availableNow=True)
        .start())
q.awaitTermination()
rows = pd.concat(pd.read_csv(f) for f in sorted(glob.glob("out/*.csv")))
assert sorted(rows.user) == ["ANN", "CID"], rows
assert spark.version == "4.3.0"
import sparklet
print(f"check_wheel: sparklet {sparklet.__version__} from the wheel ran the README pipeline: {len(rows)} rows")
PY
