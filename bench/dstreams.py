"""A DStream word count against the same counts as a Structured Streaming
query, and against PySpark's DStreams.

    python bench/dstreams.py [--batches 10] [--lines 20000] [--pyspark]

Each of ``--batches`` batches is ``--lines`` lines of 8 words. The DStream
job (``queueStream`` of one RDD a batch, ``flatMap`` / ``map`` /
``reduceByKey``, ``foreachRDD`` collecting) runs with a 10 ms batch
interval, so its time is the processing; the Structured Streaming query
reads the same lines as text files (one file a batch, ``availableNow``)
and counts each batch's words in ``foreachBatch`` with ``split`` /
``explode`` / ``groupBy().count()``. Prints seconds and words/s of each
and their ratio (the DStream layer's overhead over the engine), and with
``--pyspark`` PySpark's DStreams on the same job (``local[2]``). Run with
a release build.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

WORDS = [f"w{i}" for i in range(500)]


def make_batches(batches: int, lines: int) -> list[list[str]]:
    rng = random.Random(3)
    return [[" ".join(rng.choices(WORDS, k=8)) for _ in range(lines)] for _ in range(batches)]


def dstream_run(spark, data: list[list[str]]) -> tuple[float, dict[str, int]]:  # noqa: ANN001
    import warnings

    warnings.simplefilter("ignore", FutureWarning)
    if "pyspark" in type(spark).__module__:
        from pyspark.streaming import StreamingContext
    else:
        from sparklet.streaming import StreamingContext
    sc = spark.sparkContext
    totals: dict[str, int] = {}
    done: list[int] = []
    ssc = StreamingContext(sc, 0.01)
    rdds = [sc.parallelize(b, 2) for b in data]
    counts = ssc.queueStream(rdds).flatMap(str.split).map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b)

    def gather(rdd) -> None:  # noqa: ANN001
        rows = rdd.collect()
        for w, n in rows:
            totals[w] = totals.get(w, 0) + n
        if rows:
            done.append(1)

    counts.foreachRDD(gather)
    t0 = time.perf_counter()
    ssc.start()
    while len(done) < len(data):
        time.sleep(0.001)
    elapsed = time.perf_counter() - t0
    ssc.stop(stopSparkContext=False)
    return elapsed, totals


def structured_run(spark, data: list[list[str]], folder: Path) -> tuple[float, dict[str, int]]:  # noqa: ANN001
    from sparklet.sql import functions as F

    src = folder / "text"
    src.mkdir()
    for i, b in enumerate(data):
        (src / f"{i:05d}.txt").write_text("\n".join(b) + "\n")
    totals: dict[str, int] = {}

    def gather(batch, _id: int) -> None:  # noqa: ANN001
        words = spark.createDataFrame(batch).select(F.explode(F.split("value", " ")).alias("w"))
        for w, n in words.groupBy("w").count().collect():
            totals[w] = totals.get(w, 0) + n

    t0 = time.perf_counter()
    q = (
        spark.readStream.option("maxFilesPerTrigger", 1)
        .text(str(src))
        .writeStream.foreachBatch(gather)
        .option("checkpointLocation", str(folder / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    return time.perf_counter() - t0, totals


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--pyspark", action="store_true")
    args = ap.parse_args()
    data = make_batches(args.batches, args.lines)
    words = args.batches * args.lines * 8
    from sparklet.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    with tempfile.TemporaryDirectory() as d:
        ds, ds_totals = dstream_run(spark, data)
        ss, ss_totals = structured_run(spark, data, Path(d))
    print(f"{words:,} words in {args.batches} batches")
    print(f"sparklet DStreams          : {ds:.2f} s ({words / ds:,.0f} words/s)")
    print(f"sparklet Structured Stream.: {ss:.2f} s ({words / ss:,.0f} words/s); DStream / Structured {ss / ds:.2f}x")
    print(f"identical counts: {ds_totals == ss_totals}")
    if args.pyspark:
        from pyspark.sql import SparkSession as PySession

        pyspark = PySession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
        pyspark.sparkContext.setLogLevel("ERROR")
        ps, ps_totals = dstream_run(pyspark, data)
        print(f"PySpark DStreams           : {ps:.2f} s ({words / ps:,.0f} words/s) -> sparklet is {ps / ds:.1f}x")
        print(f"identical counts: {ps_totals == ds_totals}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
