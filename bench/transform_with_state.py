"""transformWithState: a running count per key, rows against pandas, and
against PySpark on the same files.

    python bench/transform_with_state.py [--keys 100000] [--events 20] [--files 10] [--pyspark-python PATH]

The input is bench/group_state.py's (``--keys`` users, ``--events`` events
each, spread over ``--files`` Parquet files), streamed with
``maxFilesPerTrigger=1`` and ``availableNow``. A :class:`StatefulProcessor`
keeps each user's event count and value sum in a value state and emits
them in every batch the user appears in: once row-based
(``transformWithState``), once with pandas (``transformWithStateInPandas``).
Prints sparklet's events/s for both forms and their ratio, and with
``--pyspark-python`` (an interpreter with PySpark, pandas and Java) PySpark's
row-based run on the same files (RocksDB state, as Spark requires): the
throughput ratio and whether the final totals per user are identical.
Measure with a release build of sparklet (see bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from group_state import SCHEMA, generate, run_totals
from side_by_side import arguments, median_run, report, run_pyspark, session, spread

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
OUTPUT = "user BIGINT, n BIGINT, s BIGINT"


def processors(engine: str) -> tuple[type, type]:
    """The row-based and the pandas processor, on ``engine``'s base class."""
    if engine == "pyspark":
        from pyspark.sql import Row
        from pyspark.sql.streaming import StatefulProcessor
    else:
        from sparklet.sql import Row
        from sparklet.sql.streaming import StatefulProcessor

    class RowTotals(StatefulProcessor):
        def init(self, handle):  # noqa: ANN001, ANN202
            self.totals = handle.getValueState("totals", "n BIGINT, s BIGINT")

        def handleInputRows(self, key, rows, timerValues):  # noqa: ANN001, ANN202
            n, s = self.totals.get() or (0, 0)
            for r in rows:
                n += 1
                s += r.v
            self.totals.update((n, s))
            yield Row(user=key[0], n=n, s=s)

    class PandasTotals(StatefulProcessor):
        def init(self, handle):  # noqa: ANN001, ANN202
            self.totals = handle.getValueState("totals", "n BIGINT, s BIGINT")

        def handleInputRows(self, key, rows, timerValues):  # noqa: ANN001, ANN202
            import pandas as pd

            n, s = self.totals.get() or (0, 0)
            for pdf in rows:
                n += len(pdf)
                s += int(pdf["v"].sum())
            self.totals.update((n, s))
            yield pd.DataFrame({"user": [key[0]], "n": [n], "s": [s]})

    return RowTotals, PandasTotals


def run(engine: str, folder: Path, kind: str, attempt: int = 0) -> dict:
    spark, _ = session(engine)
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    rows_form, pandas_form = processors(engine)
    grouped = (
        spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "in")).groupBy("user")
    )
    if kind == "rows":
        query = grouped.transformWithState(rows_form(), OUTPUT, "Update", "None")
    else:
        query = grouped.transformWithStateInPandas(pandas_form(), OUTPUT, "Update", "None")
    return run_totals(engine, query, folder / f"ckpt-{engine}-{kind}-{attempt}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--files", type=int, default=10)
    args = arguments(ap)
    if args.folder:  # child mode: one engine, one query, JSON out
        print(json.dumps(run(args.engine, Path(args.folder), args.kind)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, args.keys, args.events, args.files)
        runs = {
            kind: median_run([run("sparklet", folder, kind, i) for i in range(args.repeat)])
            for kind in ("rows", "pandas")
        }
        for kind, mine in runs.items():
            print(
                f"transformWithState ({kind:6s}) sparklet: {mine['events'] / mine['elapsed']:12,.0f} events/s "
                f"({mine['events']:,} events, {mine['elapsed']:.2f} s, {spread(mine)}); "
                f"{mine['result']['users']:,} users"
            )
        rows, pandas = runs["rows"], runs["pandas"]
        print(
            f"rows vs pandas: {pandas['elapsed'] / rows['elapsed']:.2f}x; identical results: "
            f"{rows['result'] == pandas['result']}"
        )
        if args.pyspark_python:
            theirs = run_pyspark(args.pyspark_python, __file__, str(folder), "rows")
            report("transformWithState (rows)", 26, rows, theirs, rows["result"] == theirs["result"])


if __name__ == "__main__":
    sys.exit(main())
