"""A Python data source against the built-in Parquet source, on the same files.

    python bench/python_source.py [--rows 1000000] [--files 10] [--pyspark-python PATH]

Writes Parquet files of ``--rows`` rows (``id BIGINT, price DOUBLE, name
STRING``), then streams them one file per micro-batch (``availableNow``,
``foreachBatch`` summing ``price``) through:

- ``parquet``: the built-in file source (``maxFilesPerTrigger=1``);
- ``python_arrow``: a Python ``DataSourceStreamReader`` whose ``read``
  yields the file's ``pyarrow.RecordBatch`` es of 10,000 rows (offsets =
  files, ``ReadMaxFiles(1)``);
- ``python_tuples``: the same source yielding a tuple per row.

Prints rows/s of each; the goal is ``python_arrow`` at least 0.5x the
``parquet`` rate. With ``--pyspark-python`` (an interpreter with PySpark
and Java) each also runs on PySpark with the same source code, for the
ratio (PySpark ships Python rows to the JVM; sparklet reads them in
process). Measure with a release build of sparklet.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from side_by_side import bench_main, session, summary, timed_available_now

SCHEMA = "id BIGINT, price DOUBLE, name STRING"
BATCH_ROWS = 10_000


def generate(folder: Path, rows: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    (folder / "in").mkdir()
    per = -(-rows // files)
    words = np.array(["ann", "bob", "carla", "dmitri", "eve", "francesca"])
    for f in range(files):
        n = min(per, rows - f * per)
        table = pa.table(
            {
                "id": pa.array(np.arange(f * per, f * per + n), pa.int64()),
                "price": pa.array(np.round(rng.random(n) * 100, 2)),
                "name": pa.array(words[rng.integers(0, len(words), n)]),
            }
        )
        pq.write_table(table, folder / "in" / f"part-{f:03d}.parquet")


def source_classes(engine: str):  # noqa: ANN201
    """The data source, defined against the engine's own module."""
    if engine == "pyspark":
        from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        from pyspark.sql.streaming.datasource import ReadMaxFiles
    else:
        from sparklet.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
        from sparklet.sql.streaming.datasource import ReadMaxFiles

    class FilePartition(InputPartition):
        def __init__(self, path: str) -> None:
            self.path = path

    class FilesReader(DataSourceStreamReader):
        def __init__(self, folder: str, tuples: bool) -> None:
            self.files = sorted(str(p) for p in Path(folder).glob("*.parquet"))
            self.tuples = tuples

        def initialOffset(self) -> dict:
            return {"file": 0}

        def getDefaultReadLimit(self):  # noqa: ANN202
            return ReadMaxFiles(1)

        def latestOffset(self, start: dict, limit) -> dict:  # noqa: ANN001
            step = limit.max_files if isinstance(limit, ReadMaxFiles) else len(self.files)
            return {"file": min(len(self.files), start["file"] + step)}

        def partitions(self, start: dict, end: dict) -> list:
            return [FilePartition(f) for f in self.files[start["file"] : end["file"]]]

        def read(self, partition) -> Iterator:  # noqa: ANN001
            import pyarrow.parquet as pq

            for batch in pq.ParquetFile(partition.path).iter_batches(batch_size=BATCH_ROWS):
                if self.tuples:
                    yield from zip(*(c.to_pylist() for c in batch.columns))
                else:
                    yield batch

    class BenchFiles(DataSource):
        @classmethod
        def name(cls) -> str:
            return "bench_files"

        def schema(self) -> str:
            return SCHEMA

        def streamReader(self, schema):  # noqa: ANN001, ANN202
            return FilesReader(self.options["path"], self.options.get("tuples") == "true")

    return BenchFiles


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, F = session(engine)
    if kind == "parquet":
        stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in"))
    else:
        spark.dataSource.register(source_classes(engine))
        stream = (
            spark.readStream.format("bench_files")
            .option("tuples", str(kind == "python_tuples").lower())
            .load(str(folder / "in"))
        )
    totals = {"rows": 0, "price": 0.0}

    def gather(batch, batch_id: int) -> None:  # noqa: ANN001
        if engine == "pyspark":
            r = batch.agg(F.count(F.lit(1)), F.sum("price")).collect()[0]
            n, price = r[0], r[1] or 0.0
        else:
            import pyarrow.compute as pc

            n, price = batch.num_rows, pc.sum(batch["price"]).as_py() or 0.0
        totals["rows"] += n
        totals["price"] += price

    q, elapsed = timed_available_now(stream.writeStream.foreachBatch(gather), folder, engine, kind, attempt)
    totals["price"] = round(totals["price"], 2)
    return {**summary(q, elapsed), "result": totals}


def main() -> None:
    bench_main(__file__, "rows", ["parquet", "python_arrow", "python_tuples"], run=run, generate=generate, unit="rows")


if __name__ == "__main__":
    sys.exit(main())
