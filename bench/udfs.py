"""Python UDFs in a stream: sparklet vs PySpark on the same files.

    python bench/udfs.py [--rows 1000000] [--files 10] [--pyspark-python PATH]

Writes Parquet files of ``--rows`` rows (``id BIGINT, price DOUBLE, name
STRING``), then streams them (``maxFilesPerTrigger=1``, ``availableNow``)
through:

- ``udf``: a row-wise ``F.udf`` (``price * 1.2 + len(name)``, a Python
  float per row);
- ``pandas_udf``: the same as a ``F.pandas_udf`` over pandas Series.

Prints rows/s and, with ``--pyspark-python`` (an interpreter with PySpark
and Java), PySpark's figure for the same query over the same files, the
ratio, and whether the results are identical (row count and the sum of
the UDF's values, gathered in ``foreachBatch``). Measure with a release
build of sparklet (see bench/streaming.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd  # module level: PySpark resolves the UDF's type hints in its globals

from side_by_side import bench_main, session, summary, timed_available_now

SCHEMA = "id BIGINT, price DOUBLE, name STRING"


def generate(folder: Path, rows: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
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


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, F = session(engine)
    if kind == "udf":

        @F.udf("double")
        def scored(price: float, name: str) -> float:
            return price * 1.2 + len(name)

    else:

        @F.pandas_udf("double")
        def scored(price: pd.Series, name: pd.Series) -> pd.Series:
            return price * 1.2 + name.str.len()

    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in"))
    query = stream.select("id", scored("price", "name").alias("score"))
    totals = {"rows": 0, "score": 0.0}

    def gather(batch, batch_id: int) -> None:  # noqa: ANN001
        if engine == "pyspark":
            r = batch.agg(F.count(F.lit(1)), F.sum("score")).collect()[0]
            n, score = r[0], r[1] or 0.0
        else:
            import pyarrow.compute as pc

            n, score = batch.num_rows, pc.sum(batch["score"]).as_py() or 0.0
        totals["rows"] += n
        totals["score"] += score

    q, elapsed = timed_available_now(query.writeStream.foreachBatch(gather), folder, engine, kind, attempt)
    totals["score"] = round(totals["score"], 2)
    return {**summary(q, elapsed), "result": totals}


def main() -> None:
    bench_main(__file__, "rows", ["udf", "pandas_udf"], generate, run, unit="rows")


if __name__ == "__main__":
    sys.exit(main())
