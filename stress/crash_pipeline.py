"""The pipeline the crash tests kill: run as a child process.

    python crash_pipeline.py WORKDIR [STATE_PROVIDER]

Reads JSON files from WORKDIR/in, keeps even ids, and writes them twice:
to a Parquet file sink (WORKDIR/out_files, manifest-committed) and through
foreachBatch to WORKDIR/out_batches/batch-<id>.json (written atomically per
batch id, so a replayed batch overwrites its own file). A third query counts
rows per 10-second event-time window (watermark 0 s, append mode) into a
Parquet file sink (WORKDIR/out_windows), so state recovery is killed too
(its state on STATE_PROVIDER: ``hdfs``, the default, or ``rocksdb``).
A fifth streams the even ids into a Delta table (WORKDIR/out_delta: one
commit per batch carrying the query's transaction); a sixth keeps per-key
counts and sums of the even ids (update mode) and merges each batch into
the Delta table WORKDIR/out_merge in foreachBatch (the upsert pattern).
A seventh reads WORKDIR/in through a Python data source (one file per
batch; its offsets, the files read, in the checkpoint) and writes its even
ids as the second does (WORKDIR/out_python/batch-<id>.json).
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
from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from sparklet.sql.streaming.datasource import ReadLimit, ReadMaxFiles, SupportsTriggerAvailableNow


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
    delta = (
        evens.writeStream.format("delta")
        .option("checkpointLocation", str(work / "ckpt_delta"))
        .trigger(availableNow=True)
        .start(str(work / "out_delta"))
    )
    merge = (
        evens.groupBy((F.col("id") % MERGE_KEYS).alias("key"))
        .agg(F.count("*").alias("n"), F.sum("id").alias("total"))
        .writeStream.outputMode("update")
        .foreachBatch(merge_writer(spark, work / "out_merge"))
        .option("checkpointLocation", str(work / "ckpt_merge"))
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
    spark.dataSource.register(InputFiles)
    python = (
        spark.readStream.format("input_files")
        .load(str(work / "in"))
        .where(F.col("id") % 2 == 0)
        .writeStream.foreachBatch(batch_writer(work / "out_python"))
        .option("checkpointLocation", str(work / "ckpt_python"))
        .trigger(availableNow=True)
        .start()
    )
    for q in (files, batches, windows, late, delta, merge, python):
        q.awaitTermination()


class FilePartition(InputPartition):
    def __init__(self, path: str) -> None:
        self.path = path


class InputFilesReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """The input folder's JSON files in name order, one file per batch; a
    line that does not parse (the poisoned ones) is skipped."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.cap: int | None = None

    def files(self) -> list[Path]:
        return sorted(self.folder.glob("f*.json"))

    def initialOffset(self) -> dict:
        return {"files": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxFiles(1)

    def prepareForTriggerAvailableNow(self) -> None:
        self.cap = len(self.files())

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        end = len(self.files()) if self.cap is None else self.cap
        if isinstance(limit, ReadMaxFiles):
            end = min(end, start["files"] + limit.max_files)
        return {"files": end}

    def partitions(self, start: dict, end: dict) -> list[FilePartition]:
        return [FilePartition(str(p)) for p in self.files()[start["files"] : end["files"]]]

    def read(self, partition: FilePartition):  # noqa: ANN201
        for line in Path(partition.path).read_text().splitlines():
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(row.get("id"), int):
                yield (row["id"], row["payload"])


class InputFiles(DataSource):
    @classmethod
    def name(cls) -> str:
        return "input_files"

    def schema(self) -> str:
        return "id BIGINT, payload STRING"

    def streamReader(self, schema):  # noqa: ANN001, ANN201
        return InputFilesReader(self.options["path"])


#: The merge pipeline's keys: id modulo this.
MERGE_KEYS = 17


def merge_writer(spark: SparkSession, out: Path):  # noqa: ANN201
    """foreachBatch: upsert each batch's (key, n, total) rows into the Delta
    table at ``out`` (a replayed batch sets the same values again)."""
    from sparklet.delta.tables import DeltaTable

    def merge_batch(batch, batch_id):  # noqa: ANN001 - pyarrow.Table, int
        updates = spark.createDataFrame(batch)
        if not DeltaTable.isDeltaTable(spark, str(out)):
            updates.write.format("delta").mode("append").save(str(out))
            return
        (
            DeltaTable.forPath(spark, str(out))
            .alias("t")
            .merge(updates.alias("s"), "t.key = s.key")
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute()
        )

    return merge_batch


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
