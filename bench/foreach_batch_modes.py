"""What the DataFrame mode of ``foreachBatch`` costs a micro-batch, against
the default ``pyarrow.Table`` mode, in one run.

    python bench/foreach_batch_modes.py [--batches 400] [--repeat 5]

One query per mode reads ``--batches`` small JSON files, one a micro-batch
(``maxFilesPerTrigger=1``, ``availableNow``), and hands each batch to a
function that only notes what kind of object it was given: the
difference is what making the DataFrame over the batch's Arrow data costs.
The modes run alternately ``--repeat`` times; prints each mode's median
milliseconds per batch and the difference. Run it with a release wheel.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def run(spark, source: Path, frames: bool, batches: int) -> float:  # noqa: ANN001
    """Milliseconds per micro-batch of one query over ``source``."""
    spark.conf.set("spark.sparklet.foreachBatch.dataFrame", "true" if frames else "false")
    seen = []

    def handle(batch, batch_id: int) -> None:  # noqa: ANN001
        seen.append(type(batch).__name__)

    checkpoint = tempfile.mkdtemp(prefix="fb-ckpt-")
    try:
        started = time.perf_counter()
        q = (
            spark.readStream.schema("id LONG, s STRING")
            .option("maxFilesPerTrigger", 1)
            .json(str(source))
            .writeStream.foreachBatch(handle)
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        q.awaitTermination()
        elapsed = time.perf_counter() - started
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    assert len(seen) == batches, len(seen)
    assert seen[0] == ("DataFrame" if frames else "Table")
    return elapsed * 1000 / batches


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from sparklet.sql import SparkSession

    spark = SparkSession.builder.appName("foreach-batch-modes").getOrCreate()
    source = Path(tempfile.mkdtemp(prefix="fb-src-"))
    try:
        for i in range(args.batches):
            rows = "".join(json.dumps({"id": i * 10 + j, "s": f"v{j}"}) + "\n" for j in range(10))
            (source / f"part-{i:05d}.json").write_text(rows)
        run(spark, source, False, args.batches)  # warm up both
        run(spark, source, True, args.batches)
        tables, frames = [], []
        for _ in range(args.repeat):
            tables.append(run(spark, source, False, args.batches))
            frames.append(run(spark, source, True, args.batches))
    finally:
        shutil.rmtree(source, ignore_errors=True)
    table_ms, frame_ms = statistics.median(tables), statistics.median(frames)
    print(f"table mode:     {table_ms:.3f} ms/batch (median of {args.repeat})")
    print(f"DataFrame mode: {frame_ms:.3f} ms/batch")
    print(f"difference:     {frame_ms - table_ms:+.3f} ms/batch (ratio {frame_ms / table_ms:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
