"""The pipeline the crash tests kill: run as a child process.

    python crash_pipeline.py WORKDIR [STATE_PROVIDER]

Reads JSON files from WORKDIR/in, keeps even ids, and writes them twice:
to a Parquet file sink (WORKDIR/out_files, manifest-committed) and through
foreachBatch to WORKDIR/out_batches/batch-<id>.json (written atomically per
batch id, so a replayed batch overwrites its own file). A third query counts
rows per 10-second event-time window (watermark 0 s, append mode) into a
Parquet file sink (WORKDIR/out_windows), so state recovery is killed too
(its state on STATE_PROVIDER: ``hdfs``, the default, or ``rocksdb``).
A fourth deduplicates WORKDIR/in_late by id (watermark 0 s, no batches
without data), whose files each hold a row behind the previous file's
newest time: on time by Spark's rule (late rows are those behind the
watermark of the batch before), so every row must come out once, however
the kills fall (WORKDIR/out_late/batch-<id>.json).
All queries use ``availableNow`` and exit when the input is processed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from sparklet.sql import SparkSession
from sparklet.sql import functions as F


def main(work: Path, provider: str) -> None:
    spark = (
        SparkSession.builder.appName("crash-pipeline")
        .config("spark.sql.streaming.stateStore.providerClass", provider)
        .getOrCreate()
    )
    source = (
        spark.readStream.schema("id BIGINT, payload STRING, ts TIMESTAMP")
        .option("maxFilesPerTrigger", 1)
        .json(str(work / "in"))
    )
    evens = source.where(F.col("id") % 2 == 0).select("id", F.upper("payload").alias("payload"))

    files = (
        evens.writeStream.format("parquet")
        .option("path", str(work / "out_files"))
        .option("checkpointLocation", str(work / "ckpt_files"))
        .trigger(availableNow=True)
        .start()
    )

    batches = (
        evens.writeStream.foreachBatch(batch_writer(work / "out_batches"))
        .option("checkpointLocation", str(work / "ckpt_batches"))
        .trigger(availableNow=True)
        .start()
    )
    windows = (
        source.withWatermark("ts", "0 seconds")
        .groupBy(F.window("ts", "10 seconds"))
        .count()
        .writeStream.format("parquet")
        .outputMode("append")
        .option("path", str(work / "out_windows"))
        .option("checkpointLocation", str(work / "ckpt_windows"))
        .trigger(availableNow=True)
        .start()
    )
    spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "false")
    late = (
        spark.readStream.schema("id BIGINT, ts TIMESTAMP")
        .option("maxFilesPerTrigger", 1)
        .json(str(work / "in_late"))
        .withWatermark("ts", "0 seconds")
        .dropDuplicates(["id"])
        .writeStream.foreachBatch(batch_writer(work / "out_late"))
        .option("checkpointLocation", str(work / "ckpt_late"))
        .trigger(availableNow=True)
        .start()
    )
    spark.conf.unset("spark.sql.streaming.noDataMicroBatches.enabled")
    for q in (files, batches, windows, late):
        q.awaitTermination()


def batch_writer(out: Path):  # noqa: ANN201
    """foreachBatch: each batch's ids to ``out/batch-<id>.json``, atomically
    (a replayed batch overwrites its own file)."""
    out.mkdir(exist_ok=True)

    def write_batch(batch, batch_id):  # noqa: ANN001 - pyarrow.Table, int
        tmp = out / f".batch-{batch_id}.tmp"
        tmp.write_text(json.dumps(batch.column("id").to_pylist()))
        os.replace(tmp, out / f"batch-{batch_id}.json")

    return write_batch


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "hdfs")
