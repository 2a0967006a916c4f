"""Stream-stream join and deduplication: sparklet vs PySpark on the same files.

    python bench/joins.py [--bids 1000000] [--files 10] [--pyspark-python PATH]

Writes Nexmark-style Parquet files: auctions (200 a second) and bids (1000 a
second, each for an auction opened in the 10 s before it, 20% of them sent
twice). Then runs, with ``maxFilesPerTrigger=1`` and ``availableNow``:

- ``join``: bids joined to their auction within 10 s of its opening
  (watermarks of 5 s on both streams), inner join;
- ``dedup``: bids with a 5 s watermark, ``dropDuplicates(["bidId", "ts"])``.

Prints events/s, the largest state, and, with ``--pyspark-python`` (an
interpreter with PySpark and Java), the same queries on PySpark over the same
files: the throughput ratio and whether the results are identical (row
count and checksums gathered in ``foreachBatch``). Measure with a release
build of sparklet (see bench/windowed.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from side_by_side import bench_main, session, summary, timed_available_now

AUCTIONS = "id BIGINT, seller BIGINT, category INT, ts TIMESTAMP"
BIDS = "bidId BIGINT, auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP"
START_US = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z


def generate(folder: Path, bids: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(11)
    seconds = bids // 1000
    auctions = seconds * 200
    a_ts = START_US + np.arange(auctions, dtype=np.int64) * 5_000  # one every 5 ms
    b_ts = START_US + 10_000_000 + np.arange(bids, dtype=np.int64) * (seconds - 10) * 1_000_000 // bids
    # each bid is for an auction opened up to 10 s before it
    opened = b_ts - rng.integers(0, 10_000_000, bids)
    auction = np.clip((opened - START_US) // 5_000, 0, auctions - 1)
    dup = rng.random(bids) < 0.2
    bid_ids = np.arange(bids, dtype=np.int64)
    order = np.argsort(np.concatenate([b_ts, b_ts[dup]]), kind="stable")
    bidder = rng.integers(0, 50_000, bids)
    price = rng.integers(1, 10_000, bids)
    # a duplicate is a redelivery: the same bid again
    all_bids = {
        "bidId": np.concatenate([bid_ids, bid_ids[dup]])[order],
        "auction": np.concatenate([auction, auction[dup]])[order],
        "bidder": np.concatenate([bidder, bidder[dup]])[order],
        "price": np.concatenate([price, price[dup]])[order],
        "ts": np.concatenate([b_ts, b_ts[dup]])[order],
    }
    for name, cols, n in [
        ("auctions", {"id": np.arange(auctions, dtype=np.int64), "seller": rng.integers(0, 10_000, auctions),
                      "category": rng.integers(0, 20, auctions).astype(np.int32), "ts": a_ts}, auctions),
        ("bids", all_bids, len(all_bids["ts"])),
    ]:  # fmt: skip
        (folder / name).mkdir()
        per = -(-n // files)
        for f in range(files):
            part = {k: v[f * per : (f + 1) * per] for k, v in cols.items()}
            part["ts"] = pa.array(part["ts"], pa.timestamp("us", tz="UTC"))
            pq.write_table(pa.table(part), folder / name / f"part-{f:03d}.parquet")


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, F = session(engine)

    def stream(name: str, schema: str):  # noqa: ANN202
        return spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(folder / name))

    bids = stream("bids", BIDS).withWatermark("ts", "5 seconds")
    if kind == "join":
        auctions = stream("auctions", AUCTIONS).withWatermark("ts", "5 seconds").withColumnRenamed("ts", "opened")
        bids = bids.withColumnRenamed("ts", "bidTime")
        query = auctions.join(
            bids,
            F.expr("auction = id AND bidTime >= opened AND bidTime <= opened + interval 10 seconds"),
        ).select("bidId", "auction", "bidder", "price", "category")
    else:
        query = bids.dropDuplicates(["bidId", "ts"]).select("bidId", "auction", "bidder", "price")
    totals = {"rows": 0, "price": 0, "check": 0}
    if engine == "sparklet":  # imported before the clock starts, as PySpark's functions are
        import pyarrow.compute as pc

    def gather(batch, batch_id: int) -> None:  # noqa: ANN001
        if engine == "pyspark":
            r = batch.agg(
                F.count(F.lit(1)), F.sum("price"), F.sum((F.col("bidId") * 31 + F.col("bidder")) % 1_000_003)
            ).collect()[0]
            n, price, check = r[0], r[1] or 0, r[2] or 0
        else:
            n = batch.num_rows
            price = pc.sum(batch["price"]).as_py() or 0
            mixed = pc.add(pc.multiply(batch["bidId"], 31), batch["bidder"])
            check = pc.sum(pc.subtract(mixed, pc.multiply(pc.divide(mixed, 1_000_003), 1_000_003))).as_py() or 0
        totals["rows"] += n
        totals["price"] += price
        totals["check"] += check

    q, elapsed = timed_available_now(query.writeStream.foreachBatch(gather), folder, engine, kind, attempt)
    out = {**summary(q, elapsed), "result": totals}
    out["describe"] = (
        f", {totals['rows']:,} rows out; largest state {out['max_state_keys']:,} rows, {out['max_state_bytes']:,} B"
    )
    return out


def main() -> None:
    bench_main(__file__, "bids", ["join", "dedup"], generate, run)


if __name__ == "__main__":
    sys.exit(main())
