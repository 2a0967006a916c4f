"""sparklet demo: a streaming ETL over JSON files arriving in a folder.

Run with ``make demo``. Writes click events as JSON files, streams them
through a filter and a projection, and prints each micro-batch twice: with
the console sink and as pandas through ``foreachBatch``.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from sparklet.sql import SparkSession
from sparklet.sql import functions as F


def write_events(folder: Path, name: str, events: list[dict]) -> None:
    tmp = folder / f".{name}.tmp"
    tmp.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    tmp.rename(folder / name)  # appear atomically, as a real producer should


def main() -> None:
    spark = SparkSession.builder.appName("clicks").getOrCreate()
    incoming = Path(tempfile.mkdtemp(prefix="sparklet-demo-"))
    pages = ["/home", "/cart", "/checkout", "/search"]
    for f in range(3):
        write_events(
            incoming,
            f"clicks-{f}.json",
            [
                {"ts": f"2026-11-29 10:{f:02d}:{s:02d}", "user": f"u{s % 4}", "page": pages[s % 4], "ms": 40 * s}
                for s in range(8)
            ],
        )
    # one malformed line: PERMISSIVE mode keeps it in _corrupt_record
    (incoming / "bad.json").write_text('{"ts": "2026-11-29 10:09:00", "user": "u9", "page": "/x", "ms": 1}\nnot json\n')

    clicks = (
        spark.readStream.schema("ts TIMESTAMP, user STRING, page STRING, ms INT, _corrupt_record STRING")
        .option("maxFilesPerTrigger", 2)
        .json(str(incoming))
    )
    slow = (
        clicks.where(F.col("_corrupt_record").isNull())
        .where("ms >= 120")
        .select("ts", F.upper("user").alias("user"), "page", (F.col("ms") / 1000).alias("seconds"))
    )

    print("== console sink, availableNow trigger ==")
    t0 = time.perf_counter()
    q = slow.writeStream.format("console").option("truncate", False).trigger(availableNow=True).start()
    q.awaitTermination()
    elapsed = time.perf_counter() - t0
    batches = q.recentProgress
    print(
        f"{len(batches)} micro-batches, {sum(p['numInputRows'] for p in batches)} input rows in {elapsed * 1000:.1f} ms"
    )

    print("\n== foreachBatch into pandas ==")

    def to_pandas(batch, batch_id):  # noqa: ANN001 - a pyarrow.Table and an int
        pdf = batch.to_pandas()
        print(f"batch {batch_id}: {len(pdf)} rows, slowest page {pdf.sort_values('seconds').iloc[-1]['page']}")

    q2 = slow.writeStream.foreachBatch(to_pandas).trigger(availableNow=True).start()
    q2.awaitTermination()
    print("\nlast progress:")
    print(q2.lastProgress.prettyJson)

    print("\n== clicks per page per minute (event time, watermark 30 s, append mode) ==")
    per_minute = (
        clicks.where(F.col("_corrupt_record").isNull())
        .withWatermark("ts", "30 seconds")
        .groupBy(F.window("ts", "1 minute"), "page")
        .agg(F.count("*").alias("clicks"), F.max("ms").alias("slowest_ms"))
    )
    q3 = (
        per_minute.writeStream.outputMode("append")
        .format("console")
        .option("truncate", False)
        .trigger(availableNow=True)
        .start()
    )
    q3.awaitTermination()
    print(f"watermark at the end: {q3.lastProgress['eventTime']['watermark']}")
    spark.stop()


if __name__ == "__main__":
    main()
