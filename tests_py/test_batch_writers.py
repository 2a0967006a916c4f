"""``df.write`` to files: each format and save mode, partitionBy folders,
Spark's file names and ``_SUCCESS``; read back by the engine and by
pyarrow (the same on both engines: pytest --engine=pyspark)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sparklet.errors import AnalysisException
from sparklet.sql import SparkSession

ROWS = [
    (1, "a,b", dt.datetime(2024, 1, 2, 3, 4, 5), dt.date(2024, 1, 2), None, "x"),
    (2, 'q"uote', None, None, 2.5, "y"),
]
SCHEMA = "id INT, s STRING, ts TIMESTAMP, d DATE, v DOUBLE, p STRING"


@pytest.fixture
def df(spark: SparkSession):  # noqa: ANN201
    # one partition, so each engine writes one file a folder
    return spark.createDataFrame(ROWS, SCHEMA).coalesce(1)


def data_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith((".", "_")))


def text_of(root: Path) -> str:
    return "".join(p.read_text() for p in data_files(root))


def test_parquet_is_read_back_by_the_engine_and_pyarrow(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "pq"
    df.write.parquet(str(out))
    assert (out / "_SUCCESS").exists()
    files = data_files(out)
    assert files and all(f.name.startswith("part-0000") and f.name.endswith("-c000.snappy.parquet") for f in files)
    back = spark.read.parquet(str(out)).orderBy("id")
    assert [tuple(r) for r in back.collect()] == ROWS
    table = pq.read_table(str(out)).sort_by("id")
    assert table.column("s").to_pylist() == ["a,b", 'q"uote']


def test_orc_is_read_back_with_its_types(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "orc"
    df.write.orc(str(out))
    files = data_files(out)
    assert files and all(f.name.endswith("-c000.zstd.orc") for f in files)
    back = spark.read.orc(str(out)).orderBy("id")
    assert back.dtypes == [
        ("id", "int"),
        ("s", "string"),
        ("ts", "timestamp"),
        ("d", "date"),
        ("v", "double"),
        ("p", "string"),
    ]
    assert [tuple(r) for r in back.collect()] == ROWS
    df.write.mode("overwrite").partitionBy("p").option("compression", "zlib").format("orc").save(str(out))
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["p=x", "p=y"]
    assert all(f.name.endswith(".zlib.orc") for f in data_files(out))
    assert [r.id for r in spark.read.format("orc").load(str(out)).where("p = 'y'").collect()] == [2]


def test_orc_stream_source(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    df.write.orc(str(tmp_path / "in"))
    q = (
        spark.readStream.schema(df.schema)
        .orc(str(tmp_path / "in"))
        .writeStream.format("memory")
        .queryName("orc_in")
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination(60)
    assert sorted(r.id for r in spark.table("orc_in").collect()) == [1, 2]


def test_csv_and_json_in_sparks_text_formats(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    df.write.csv(str(tmp_path / "csv"))
    assert text_of(tmp_path / "csv").splitlines() == [
        '1,"a,b",2024-01-02T03:04:05.000Z,2024-01-02,,x',
        '2,"q\\"uote",,,2.5,y',
    ]
    df.write.csv(str(tmp_path / "csvh"), header=True, sep=";", nullValue="NA")
    assert text_of(tmp_path / "csvh").splitlines()[:2] == [
        "id;s;ts;d;v;p",
        "1;a,b;2024-01-02T03:04:05.000Z;2024-01-02;NA;x",
    ]
    df.write.json(str(tmp_path / "json"))
    assert text_of(tmp_path / "json").splitlines() == [
        '{"id":1,"s":"a,b","ts":"2024-01-02T03:04:05.000Z","d":"2024-01-02","p":"x"}',
        '{"id":2,"s":"q\\"uote","v":2.5,"p":"y"}',
    ]
    back = spark.read.schema(SCHEMA).json(str(tmp_path / "json")).orderBy("id")
    assert [tuple(r) for r in back.collect()] == ROWS
    df.select("s").write.text(str(tmp_path / "text"))
    assert text_of(tmp_path / "text") == 'a,b\nq"uote\n'


def test_partition_by_writes_hive_folders(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "parts"
    df.write.partitionBy("p").parquet(str(out))
    assert sorted(d.name for d in out.iterdir() if d.is_dir()) == ["p=x", "p=y"]
    assert "p" not in pq.read_schema(data_files(out / "p=x")[0]).names
    back = spark.read.parquet(str(out)).orderBy("id")
    assert back.columns == ["id", "s", "ts", "d", "v", "p"]
    assert [tuple(r) for r in back.collect()] == ROWS


def test_repartition_writes_a_file_per_partition(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.range(100).repartition(3)
    df.write.parquet(str(tmp_path / "three"))
    assert len(data_files(tmp_path / "three")) == 3
    df.coalesce(1).write.parquet(str(tmp_path / "one"))
    assert len(data_files(tmp_path / "one")) == 1
    assert sorted(r.id for r in spark.read.parquet(str(tmp_path / "three")).collect()) == list(range(100))
    empty = spark.range(0)
    empty.write.parquet(str(tmp_path / "empty"))
    assert spark.read.parquet(str(tmp_path / "empty")).columns == ["id"]


def test_save_modes(spark: SparkSession, df, tmp_path: Path) -> None:  # noqa: ANN001
    out = str(tmp_path / "modes")
    df.write.format("parquet").save(out)
    with pytest.raises(AnalysisException, match="PATH_ALREADY_EXISTS") as e:
        df.write.parquet(out)
    assert out in str(e.value)
    df.write.mode("append").parquet(out)
    assert spark.read.parquet(out).count() == 4
    df.limit(1).write.mode("overwrite").parquet(out)
    assert spark.read.parquet(out).count() == 1
    df.write.mode("ignore").parquet(out)
    assert spark.read.parquet(out).count() == 1
    with pytest.raises(Exception, match="INVALID_SAVE_MODE|Unknown save mode"):
        df.write.mode("sometimes").parquet(str(tmp_path / "other"))


def test_a_failed_write_leaves_nothing_a_reader_sees(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "failed"
    from sparklet.sql import functions as F

    as_int = F.udf(lambda s: int(s), "int")
    bad = spark.createDataFrame([("1",), ("x",)], "s STRING").select(as_int("s").alias("i"))
    with pytest.raises(Exception, match="invalid literal for int"):
        bad.write.parquet(str(out))
    assert not out.exists() or data_files(out) == []


def test_unknown_format_is_refused(df, tmp_path: Path) -> None:  # noqa: ANN001
    with pytest.raises(Exception, match="DATA_SOURCE_NOT_FOUND|Failed to find the data source"):
        df.write.format("nosuchformat").save(str(tmp_path / "x"))
    assert not os.path.exists(tmp_path / "x")


def test_a_pyspark_foreach_batch_function_runs_unchanged(spark: SparkSession, tmp_path: Path) -> None:
    """A function written for PySpark (the batch as a DataFrame: count, SQL
    over a temp view, write) runs with spark.sparklet.foreachBatch.dataFrame,
    through a stop and restart from the checkpoint."""
    from conftest import conf_set, step
    from sparklet.testing import MemoryStream

    out, counts = tmp_path / "out", []

    def upsert(batch_df, batch_id: int) -> None:  # noqa: ANN001
        counts.append(batch_df.count())
        batch_df.createOrReplaceTempView("batch")
        big = batch_df.sparkSession.sql("SELECT k, v * 10 AS v10 FROM batch WHERE v > 1")
        big.write.mode("append").parquet(str(out / f"batch={batch_id}"))

    ms = MemoryStream(spark, "k STRING, v INT")
    with conf_set(spark, "spark.sparklet.foreachBatch.dataFrame", "true"):
        for rows in ([("a", 1), ("b", 2)], [("c", 3)]):
            q = ms.toDF().writeStream.foreachBatch(upsert).option("checkpointLocation", str(tmp_path / "ckpt")).start()
            step(q, ms, rows)
            q.stop()
    assert counts == [2, 1]
    back = spark.read.parquet(str(out)).orderBy("k")
    assert [tuple(r) for r in back.collect()] == [("b", 20, 0), ("c", 30, 1)]


CRASHING_JOB = """
import os, sys
from sparklet.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.sparklet.foreachBatch.dataFrame", "true")
crash_at = int(sys.argv[1])

def write(batch_df, batch_id):  # written for PySpark: a DataFrame, SQL, df.write
    batch_df.createOrReplaceTempView("batch")
    n = batch_df.sparkSession.sql("SELECT count(*) AS n FROM batch").collect()[0].n
    batch_df.withColumn("n", batch_df.id * 0 + n).write.mode("overwrite").parquet(f"out/batch_id={batch_id}")
    if batch_id == crash_at:
        os._exit(9)  # the process dies after the write, before the batch commits

q = (
    spark.readStream.schema("id LONG").option("maxFilesPerTrigger", 1).json("in")
    .writeStream.foreachBatch(write).option("checkpointLocation", "ck")
    .trigger(availableNow=True).start()
)
q.awaitTermination()
"""


@pytest.mark.sparklet_only(reason="kills a sparklet process mid-batch; the DataFrame mode is sparklet's setting")
def test_a_dataframe_foreach_batch_is_exactly_once_through_a_crash(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "in").mkdir()
    for i in range(4):
        (tmp_path / "in" / f"f{i}.json").write_text(f'{{"id": {2 * i}}}\n{{"id": {2 * i + 1}}}\n')
        os.utime(tmp_path / "in" / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    (tmp_path / "job.py").write_text(CRASHING_JOB)

    def run(crash_at: int) -> int:
        done = subprocess.run(
            [sys.executable, "job.py", str(crash_at)], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode in (0, 9), done.stderr
        return done.returncode

    assert run(2) == 9  # batches 0 and 1 committed; batch 2 written, not committed
    assert run(-1) == 0  # batch 2 replayed over its own output, then batch 3
    table = pq.read_table(str(tmp_path / "out"))
    rows = sorted(
        zip(table.column("batch_id").to_pylist(), table.column("id").to_pylist(), table.column("n").to_pylist())
    )
    assert rows == [(b, i, 2) for b in range(4) for i in (2 * b, 2 * b + 1)]


def test_cluster_by_writes_the_same_rows_and_refuses_partitions(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b")], ["x", "name"])
    df.write.clusterBy("name").mode("overwrite").parquet(str(tmp_path / "c"))
    assert sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "c")).collect()) == [(1, "a"), (2, "b")]
    with pytest.raises(AnalysisException, match="SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED"):
        df.write.clusterBy("name").partitionBy("x").parquet(str(tmp_path / "p"))
    with pytest.raises(AnalysisException, match="SPECIFY_CLUSTER_BY_WITH_BUCKETING_IS_NOT_ALLOWED"):
        df.write.clusterBy("name").bucketBy(2, "x").parquet(str(tmp_path / "b"))
    assert not (tmp_path / "p").exists() and not (tmp_path / "b").exists()
