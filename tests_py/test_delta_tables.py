"""delta-spark's ``DeltaTable`` API and Delta's SQL statements on real
tables (read back with the ``deltalake`` package): MERGE with every clause
kind, UPDATE, DELETE, history, detail, vacuum, optimize, restore, the table
builders, concurrent writers, and the upsert pattern (a streaming
aggregation merged into Delta in ``foreachBatch``) killed and restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable as RsTable
from deltalake import write_deltalake

from sparklet.delta import configure_spark_with_delta_pip
from sparklet.delta.tables import DeltaTable
from sparklet.errors import AnalysisException, IllegalArgumentException
from sparklet.sql import SparkSession
from sparklet.sql import functions as F

pytestmark = pytest.mark.sparklet_only(reason="PySpark needs the delta-spark jars for Delta tables")


@pytest.fixture
def people(spark: SparkSession, tmp_path: Path) -> str:
    path = str(tmp_path / "people")
    spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "c", 30)], "id LONG, name STRING, n LONG").write.format(
        "delta"
    ).save(path)
    return path


@pytest.fixture
def table_name(spark: SparkSession) -> Iterator[str]:
    name = f"d_{uuid.uuid4().hex[:8]}"
    yield name
    spark.sql(f"DROP TABLE IF EXISTS {name}")


def rows(df) -> list[tuple]:  # noqa: ANN001
    return sorted(tuple(r) for r in df.collect())


def test_for_path_for_name_and_is_delta_table(spark: SparkSession, people: str, tmp_path: Path) -> None:
    builder = SparkSession.builder
    assert configure_spark_with_delta_pip(builder) is builder
    table = DeltaTable.forPath(spark, people)
    assert rows(table.toDF()) == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    assert DeltaTable.isDeltaTable(spark, people)
    assert not DeltaTable.isDeltaTable(spark, str(tmp_path))
    assert DeltaTable.isDeltaTable(spark, f"delta.`{people}`")
    with pytest.raises(AnalysisException, match=r"DELTA_MISSING_DELTA_TABLE.*nope"):
        DeltaTable.forPath(spark, str(tmp_path / "nope"))
    with pytest.raises(AnalysisException, match="DELTA_MISSING_DELTA_TABLE"):
        DeltaTable.forName(spark, "no_such_table")


def test_merge_with_every_clause_kind(spark: SparkSession, people: str) -> None:
    source = spark.createDataFrame(
        [(2, "B", 0), (3, "gone", 0), (4, "d", 40), (5, "skip", 50)], "id LONG, name STRING, n LONG"
    )
    metrics = (
        DeltaTable.forPath(spark, people)
        .alias("t")
        .merge(source.alias("s"), "t.id = s.id")
        .whenMatchedDelete(condition="s.name = 'gone'")
        .whenMatchedUpdate(set={"name": "s.name", "n": F.col("t.n") + 1})
        .whenNotMatchedInsert(condition=F.col("s.name") != "skip", values={"id": "s.id", "name": F.upper("s.name")})
        .whenNotMatchedBySourceUpdate(set={"n": F.lit(-1)})
        .execute()
    )
    assert metrics.columns == ["num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"]
    assert tuple(metrics.first()) == (4, 2, 1, 1)
    # 1: not matched by source -> n = -1; 2: updated; 3: deleted; 4: inserted
    # (n not given: null); 5: its insert condition fails
    assert rows(spark.read.format("delta").load(people)) == [(1, "a", -1), (2, "B", 21), (4, "D", None)]
    assert sorted(RsTable(people).to_pyarrow_table().column("id").to_pylist()) == [1, 2, 4]


def test_merge_all_columns_and_delete_by_source(spark: SparkSession, people: str) -> None:
    source = spark.createDataFrame([(2, "B", 200), (9, "z", 900)], "id LONG, name STRING, n LONG")
    table = DeltaTable.forPath(spark, people)
    (
        table.alias("target")
        .merge(source.alias("updates"), F.col("target.id") == F.col("updates.id"))
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .whenNotMatchedBySourceDelete(condition="target.id = 1")
        .execute()
    )
    assert rows(table.toDF()) == [(2, "B", 200), (3, "c", 30), (9, "z", 900)]
    # a new column: only with schema evolution
    wider = spark.createDataFrame([(3, "C", 3, True)], "id LONG, name STRING, n LONG, flag BOOLEAN")
    (
        table.alias("t")
        .merge(wider.alias("s"), "t.id = s.id")
        .withSchemaEvolution()
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )
    assert table.toDF().columns == ["id", "name", "n", "flag"]
    assert rows(table.toDF().where("id = 3")) == [(3, "C", 3, True)]


def test_update_and_delete(spark: SparkSession, people: str) -> None:
    table = DeltaTable.forPath(spark, people)
    table.update("id = 1", {"name": "'z'"})
    table.update(condition=F.col("n") > 15, set={"n": F.col("n") * 10})
    table.delete(F.col("id") == 3)
    assert rows(table.toDF()) == [(1, "z", 10), (2, "b", 200)]
    table.delete()
    assert table.toDF().count() == 0
    assert [h["operation"] for h in RsTable(people).history()] == ["DELETE", "DELETE", "UPDATE", "UPDATE", "WRITE"]


def test_history_detail_and_restore(spark: SparkSession, people: str) -> None:
    table = DeltaTable.forPath(spark, people)
    table.delete("id = 1")
    history = table.history()
    assert history.columns[:6] == ["version", "timestamp", "userId", "userName", "operation", "operationParameters"]
    assert [(r.version, r.operation) for r in history.collect()] == [(1, "DELETE"), (0, "WRITE")]
    assert history.first().operationParameters["predicate"] == "id = 1"
    assert table.history(1).count() == 1
    detail = table.detail().first()
    assert detail.format == "delta"
    assert detail.id == RsTable(people).metadata().id
    assert detail.location == "file:" + os.path.abspath(people)
    assert detail.numFiles == len(RsTable(people).file_uris())
    restored = table.restoreToVersion(0)
    assert restored.first().num_restored_files >= 1
    assert rows(table.toDF()) == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    assert RsTable(people).version() == 2


def test_vacuum_keeps_the_retention_unless_the_check_is_off(spark: SparkSession, people: str) -> None:
    table = DeltaTable.forPath(spark, people)
    table.delete("id = 2")  # the first file is no longer referenced
    before = {p.name for p in Path(people).glob("*.parquet")}
    with pytest.raises(IllegalArgumentException, match="vacuum files with such a low retention period"):
        table.vacuum(0)
    table.vacuum()  # 7 days: nothing is that old
    assert {p.name for p in Path(people).glob("*.parquet")} == before
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    try:
        table.vacuum(0)
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")
    after = {p.name for p in Path(people).glob("*.parquet")}
    assert after < before
    assert {Path(u).name for u in RsTable(people).file_uris()} == after
    assert rows(table.toDF()) == [(1, "a", 10), (3, "c", 30)]


def test_optimize_compacts_small_files(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    for k in range(4):
        spark.createDataFrame([(k, "x" if k % 2 else "y")], "k LONG, p STRING").write.format("delta").partitionBy(
            "p"
        ).mode("append").save(path)
    table = DeltaTable.forPath(spark, path)
    result = table.optimize().where("p = 'x'").executeCompaction().first()
    assert (result.metrics.numFilesAdded, result.metrics.numFilesRemoved) == (1, 2)
    assert len(RsTable(path).file_uris()) == 3
    table.optimize().executeZOrderBy("k")
    assert len(RsTable(path).file_uris()) == 2
    assert rows(table.toDF()) == [(0, "y"), (1, "x"), (2, "y"), (3, "x")]


def test_sql_statements_on_delta_tables(spark: SparkSession, table_name: str) -> None:
    spark.sql(
        f"CREATE TABLE {table_name} (id BIGINT, name STRING) USING delta "
        "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
    )
    location = Path(DeltaTable.forName(spark, table_name).detail().first().location[len("file:") :])
    assert RsTable(str(location)).metadata().configuration == {"delta.enableChangeDataFeed": "true"}
    spark.sql(f"INSERT INTO {table_name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.createDataFrame([(2, "B"), (4, "d")], "id LONG, name STRING").createOrReplaceTempView("updates")
    merged = spark.sql(
        f"""MERGE INTO {table_name} AS t USING updates AS s ON t.id = s.id
            WHEN MATCHED THEN UPDATE SET name = s.name
            WHEN NOT MATCHED THEN INSERT *
            WHEN NOT MATCHED BY SOURCE AND t.id = 3 THEN DELETE"""
    )
    assert tuple(merged.first()) == (3, 1, 1, 1)
    assert rows(spark.table(table_name)) == [(1, "a"), (2, "B"), (4, "d")]
    assert spark.sql(f"UPDATE {table_name} SET name = upper(name) WHERE id < 2").first().num_affected_rows == 1
    assert spark.sql(f"DELETE FROM {table_name} WHERE id = 4").first().num_affected_rows == 1
    assert rows(spark.sql(f"SELECT * FROM {table_name}")) == [(1, "A"), (2, "B")]
    spark.sql(
        f"MERGE INTO {table_name} t USING (SELECT 7 AS id, 'g' AS name) s ON t.id = s.id "
        "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, concat(s.name, '!'))"
    )
    assert rows(spark.table(table_name).where("id = 7")) == [(7, "g!")]
    ops = [r.operation for r in spark.sql(f"DESCRIBE HISTORY {table_name}").collect()]
    assert ops[:4] == ["MERGE", "DELETE", "UPDATE", "MERGE"]
    assert spark.sql(f"DESCRIBE DETAIL {table_name}").first().format == "delta"
    spark.sql(f"CREATE TABLE {table_name}_pq (id INT) USING parquet")
    try:
        with pytest.raises(AnalysisException, match="UNSUPPORTED_FEATURE.TABLE_OPERATION"):
            spark.sql(f"DELETE FROM {table_name}_pq WHERE id = 1")
    finally:
        spark.sql(f"DROP TABLE {table_name}_pq")


def test_table_builders(spark: SparkSession, tmp_path: Path, table_name: str) -> None:
    path = str(tmp_path / "built")
    table = (
        DeltaTable.create(spark)
        .location(path)
        .addColumn("id", "BIGINT")
        .addColumn("p", "STRING")
        .partitionedBy("p")
        .property("delta.appendOnly", "false")
        .execute()
    )
    assert table.toDF().columns == ["id", "p"]
    assert RsTable(path).metadata().partition_columns == ["p"]
    with pytest.raises(AnalysisException, match="DELTA_TABLE_ALREADY_EXISTS"):
        DeltaTable.create(spark).location(path).addColumn("id", "BIGINT").execute()
    same = DeltaTable.createIfNotExists(spark).location(path).addColumn("id", "BIGINT").execute()
    assert same.toDF().columns == ["id", "p"]
    named = DeltaTable.create(spark).tableName(table_name).addColumn("k", "INT").execute()
    spark.sql(f"INSERT INTO {table_name} VALUES (5)")
    assert rows(named.toDF()) == [(5,)]


def test_concurrent_writers_conflict_cleanly(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    spark.createDataFrame([(k, 0) for k in range(20)], "k LONG, v LONG").write.format("delta").save(path)
    errors: list[str] = []

    def work(kind: str) -> None:
        table = DeltaTable.forPath(spark, path)
        for i in range(15):
            try:
                if kind == "update":
                    table.update(set={"v": F.col("v") + 1})
                else:
                    table.delete(f"k = {i}")
            except AnalysisException as e:
                errors.append(str(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in ("update", "delete", "update")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # a losing commit fails with Delta's error and commits nothing
    for e in errors:
        assert "DELTA_CONCURRENT" in e or "DELTA_METADATA_CHANGED" in e, e
    final = RsTable(path).to_pyarrow_table().to_pylist()
    keys = [r["k"] for r in final]
    assert len(keys) == len(set(keys))  # no row written twice
    history = RsTable(path).history()
    assert len(history) == 1 + 45 - len(errors)


UPSERT = textwrap.dedent(
    """
    import sys
    from sparklet.sql import SparkSession, functions as F
    from sparklet.delta.tables import DeltaTable

    src, out, ckpt, mode = sys.argv[1:5]
    spark = SparkSession.builder.getOrCreate()
    if mode == "dataframe":
        spark.conf.set("spark.sparklet.foreachBatch.dataFrame", "true")

    def upsert(batch, batch_id):
        updates = batch if mode == "dataframe" else spark.createDataFrame(batch)
        if not DeltaTable.isDeltaTable(spark, out):
            updates.write.format("delta").save(out)
            return
        (DeltaTable.forPath(spark, out).alias("t")
            .merge(updates.alias("s"), "t.user = s.user")
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute())
        print("merged", batch_id, flush=True)

    counts = (spark.readStream.schema("user STRING, amount BIGINT").option("maxFilesPerTrigger", 1).json(src)
              .groupBy("user").agg(F.count("*").alias("events"), F.sum("amount").alias("total")))
    (counts.writeStream.outputMode("update").foreachBatch(upsert)
        .option("checkpointLocation", ckpt).trigger(availableNow=True).start().awaitTermination())
    """
)


@pytest.mark.parametrize("mode", ["arrow", "dataframe"])
def test_upsert_pattern_killed_and_restarted_ends_as_one_batch_run(
    spark: SparkSession, tmp_path: Path, mode: str
) -> None:
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    src.mkdir()
    for f in range(12):
        lines = [json.dumps({"user": f"u{(f * 7 + i) % 5}", "amount": f * 10 + i}) for i in range(6)]
        (src / f"f{f:03d}.json").write_text("\n".join(lines) + "\n")
    script = tmp_path / "upsert.py"
    script.write_text(UPSERT)
    args = [sys.executable, str(script), str(src), str(out), str(ckpt), mode]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    # killed once it merged its third batch, mid-stream
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stdout.readline()
        if line.startswith("merged 3"):
            break
        assert line or proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert RsTable(str(out)).version() >= 2
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected = (
        spark.read.schema("user STRING, amount BIGINT")
        .json(str(src))
        .groupBy("user")
        .agg(F.count("*").alias("events"), F.sum("amount").alias("total"))
    )
    assert rows(spark.read.format("delta").load(str(out))) == rows(expected)
    table = RsTable(str(out)).to_pyarrow_table()
    assert sorted(table.column("user").to_pylist()) == [f"u{i}" for i in range(5)]


def test_a_deltalake_table_takes_merges_from_sparklet(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}), partition_by=["v"])
    source = spark.createDataFrame([(2, "b"), (3, "c")], "k LONG, v STRING")
    (
        DeltaTable.forPath(spark, path)
        .alias("t")
        .merge(source.alias("s"), "t.k = s.k")
        .whenNotMatchedInsertAll()
        .execute()
    )
    assert sorted(RsTable(path).to_pyarrow_table().column("k").to_pylist()) == [1, 2, 3]
    assert RsTable(path).metadata().partition_columns == ["v"]
