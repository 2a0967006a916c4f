"""Tables in the warehouse: ``saveAsTable``/``insertInto`` with save modes,
SQL's ``CREATE TABLE``/``INSERT``/``DESCRIBE``/``SHOW TABLES``/``DROP``, the
catalog's listings, errors naming the table, and tables surviving a restart
of the process (the same on both engines: pytest --engine=pyspark, except
the restart, which needs sparklet's persistent catalog)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sparklet.errors import AnalysisException
from sparklet.sql import SparkSession


@pytest.fixture
def table(spark: SparkSession) -> Iterator[str]:
    """A fresh table name, dropped after the test."""
    name = f"t_{uuid.uuid4().hex[:8]}"
    yield name
    spark.sql(f"DROP TABLE IF EXISTS {name}")


def rows(df) -> list[tuple]:  # noqa: ANN001
    return sorted(tuple(r) for r in df.collect())


def test_save_as_table_modes_and_read_back(spark: SparkSession, table: str) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, s STRING")
    df.write.saveAsTable(table)
    assert rows(spark.table(table)) == [(1, "a"), (2, "b")]
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS") as err:
        df.write.saveAsTable(table)
    assert table in str(err.value)
    df.write.mode("ignore").saveAsTable(table)
    assert spark.table(table).count() == 2
    spark.createDataFrame([("c", 3)], "s STRING, id INT").write.mode("append").saveAsTable(table)
    assert rows(spark.table(table)) == [(1, "a"), (2, "b"), (3, "c")]  # appended by name
    spark.createDataFrame([(9, "z")], "id INT, s STRING").write.mode("overwrite").saveAsTable(table)
    assert rows(spark.sql(f"SELECT * FROM {table}")) == [(9, "z")]


def test_insert_into_by_position_and_its_errors(spark: SparkSession, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id INT, s STRING) USING parquet")
    spark.createDataFrame([(1, "a")], "x INT, y STRING").write.insertInto(table)
    spark.sql(f"INSERT INTO {table} VALUES (2, 'b'), (3, 'c')")
    assert rows(spark.table(table)) == [(1, "a"), (2, "b"), (3, "c")]
    spark.createDataFrame([(7, "q")], "x INT, y STRING").write.insertInto(table, overwrite=True)
    assert rows(spark.table(table)) == [(7, "q")]
    with pytest.raises(AnalysisException, match="INSERT_COLUMN_ARITY_MISMATCH") as err:
        spark.createDataFrame([(1,)], "x INT").write.insertInto(table)
    assert table in str(err.value)
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.createDataFrame([(1,)], "x INT").write.insertInto("no_such_table_here")
    assert rows(spark.table(table)) == [(7, "q")]  # the failed writes left nothing


def test_partitioned_table_folders_and_catalog(spark: SparkSession, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id INT, p STRING) USING parquet PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'x'), (2, 'y')")
    assert rows(spark.table(table).select("id", "p")) == [(1, "x"), (2, "y")]
    parts = sorted(p.partition for p in spark.catalog.listPartitions(table))
    assert parts == ["p=x", "p=y"]
    columns = {c.name: c.isPartition for c in spark.catalog.listColumns(table)}
    assert columns == {"id": False, "p": True}


def test_describe_show_tables_and_drop(spark: SparkSession, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id INT, name STRING) USING parquet TBLPROPERTIES ('k' = 'v')")
    described = [(r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE TABLE {table}").collect()]
    assert described == [("id", "int"), ("name", "string")]
    shown = spark.sql("SHOW TABLES").collect()
    assert any(r.tableName == table and r.isTemporary is False for r in shown)
    assert spark.catalog.getTableProperties(table)["k"] == "v"
    assert spark.catalog.tableExists(table) and spark.catalog.tableExists(f"default.{table}")
    assert spark.catalog.getTable(table).tableType == "MANAGED"
    spark.catalog.dropTable(table)
    assert not spark.catalog.tableExists(table)
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table(table)


def test_names_are_case_insensitive(spark: SparkSession, table: str) -> None:
    spark.createDataFrame([(1,)], "id INT").write.saveAsTable(table.upper())
    assert spark.table(table).count() == 1
    assert spark.sql(f"SELECT ID FROM {table.upper()}").collect()[0][0] == 1
    assert [t.name for t in spark.catalog.listTables() if t.name == table] == [table]


def test_databases(spark: SparkSession) -> None:
    db = f"db_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {db}")
    try:
        assert spark.catalog.databaseExists(db)
        spark.createDataFrame([(1,)], "id INT").write.saveAsTable(f"{db}.t")
        assert spark.table(f"{db}.t").count() == 1
        assert [t.name for t in spark.catalog.listTables(db) if not t.isTemporary] == ["t"]
        with pytest.raises(AnalysisException, match="SCHEMA_NOT_EMPTY"):
            spark.sql(f"DROP DATABASE {db}")
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")
    assert not spark.catalog.databaseExists(db)


def test_managed_table_files_are_parquet_readable_by_pyarrow(spark: SparkSession, table: str) -> None:
    spark.createDataFrame([(1, "a")], "id INT, s STRING").write.saveAsTable(table)
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").filter("col_name = 'Location'").collect()[0][1]
    path = location.removeprefix("file:")
    assert pq.read_table(path).to_pylist() == [{"id": 1, "s": "a"}]


@pytest.mark.sparklet_only(reason="PySpark's default catalog is in memory: its tables end with the process")
def test_tables_survive_a_restart(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from sparklet.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        if sys.argv[1] == "write":
            spark.createDataFrame([(1, "a"), (2, "b")], "id INT, s STRING").write.saveAsTable("kept")
            spark.sql("CREATE VIEW kept_view AS SELECT id FROM kept WHERE id > 1")
        elif sys.argv[1] == "read":
            print(sorted(tuple(r) for r in spark.table("kept").collect()), spark.table("kept_view").count())
        else:
            spark.sql("DROP TABLE kept")
            print(spark.catalog.tableExists("kept"))
        """
    )
    (tmp_path / "job.py").write_text(script)

    def run(step: str) -> str:
        done = subprocess.run(
            [sys.executable, "job.py", step], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=os.environ
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    run("write")
    assert (tmp_path / "spark-warehouse" / "kept").is_dir()
    assert run("read") == "[(1, 'a'), (2, 'b')] 1"
    assert run("drop") == "False"
    assert not (tmp_path / "spark-warehouse" / "kept").exists()  # dropping a managed table removes its files


def test_streaming_into_a_table_and_out_of_it(spark: SparkSession, table: str, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.json").write_text('{"id": 1}\n{"id": 2}\n')
    q = (
        spark.readStream.schema("id LONG")
        .json(str(source))
        .writeStream.option("checkpointLocation", str(tmp_path / "ck1"))
        .trigger(availableNow=True)
        .toTable(table)
    )
    q.awaitTermination()
    assert rows(spark.table(table)) == [(1,), (2,)]
    (source / "b.json").write_text('{"id": 3}\n')
    q = (
        spark.readStream.schema("id LONG")
        .json(str(source))
        .writeStream.option("checkpointLocation", str(tmp_path / "ck1"))
        .trigger(availableNow=True)
        .toTable(table)
    )
    q.awaitTermination()
    assert rows(spark.sql(f"SELECT * FROM {table}")) == [(1,), (2,), (3,)]  # the new files are seen
    back = (
        spark.readStream.table(table)
        .writeStream.format("memory")
        .queryName(f"{table}_back")
        .option("checkpointLocation", str(tmp_path / "ck2"))
        .trigger(availableNow=True)
        .start()
    )
    back.awaitTermination()
    assert rows(spark.table(f"{table}_back")) == [(1,), (2,), (3,)]


def test_write_to_creates_tables_of_files_and_refuses_what_spark_refuses(spark: SparkSession, table: str) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, p STRING")
    df.writeTo(table).using("parquet").partitionedBy("p").create()
    assert rows(spark.table(table).select("id", "p")) == [(1, "a"), (2, "b")]
    with pytest.raises(AnalysisException, match="already exists"):
        df.writeTo(table).using("parquet").create()
    with pytest.raises(AnalysisException, match="Cannot write into v1 table") as err:
        df.writeTo(table).append()  # Spark's V2 writes go into Delta tables only
    assert table in str(err.value)
    with pytest.raises(AnalysisException, match="REPLACE TABLE AS SELECT"):
        df.writeTo(table).using("parquet").createOrReplace()
    assert rows(spark.table(table).select("id", "p")) == [(1, "a"), (2, "b")]


def test_a_table_whose_folder_is_gone_reads_empty_after_refresh(
    spark: SparkSession, table: str, tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    spark.sql(f"CREATE TABLE {table} (col STRING) USING TEXT LOCATION '{folder}'")
    spark.sql(f"INSERT INTO {table} SELECT 'abc'")
    assert [r.col for r in spark.table(table).collect()] == ["abc"]
    import shutil

    shutil.rmtree(folder)
    spark.catalog.refreshTable(table)
    assert spark.table(table).count() == 0
    assert spark.table(table).columns == ["col"]


def test_show_one_table_property_by_its_key(spark: SparkSession, table: str) -> None:
    df = spark.createDataFrame([(1, "a")], ["id", "v"])
    df.writeTo(table).using("parquet").tableProperty("team", "data").create()
    shown = spark.sql(f"SHOW TBLPROPERTIES {table} (team)")
    assert [tuple(r) for r in shown.collect()] == [("team", "data")]
    absent = spark.sql(f"SHOW TBLPROPERTIES {table} ('nope')").collect()
    assert absent[0].value == f"Table spark_catalog.default.{table} does not have property: nope"


def test_show_create_table_writes_types_as_spark_4_3(spark: SparkSession, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id INT, name STRING, m MAP<STRING, INT>, s STRUCT<x: STRING>) USING parquet")
    statement = spark.sql(f"SHOW CREATE TABLE {table}").first()[0]
    assert statement.splitlines()[:5] == [
        f"CREATE TABLE spark_catalog.default.{table} (",
        "  id INT,",
        "  name STRING COLLATE UTF8_BINARY,",
        "  m MAP<STRING COLLATE UTF8_BINARY, INT>,",
        "  s STRUCT<x: STRING COLLATE UTF8_BINARY>)",
    ]


def test_a_missing_table_in_sql_is_table_or_view_not_found(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match=r"TABLE_OR_VIEW_NOT_FOUND.*`nowhere_tbl`") as caught:
        spark.sql("SELECT * FROM nowhere_tbl")
    assert caught.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException, match=r"TABLE_OR_VIEW_NOT_FOUND.*`no_db`\.`nowhere_tbl`"):
        spark.sql("SELECT * FROM no_db.nowhere_tbl")


@pytest.mark.sparklet_only(
    reason="holds sparklet's own re-read of a changed table in one thread, to order two threads' re-reads as "
    "a pipeline run and a reader raced; Spark's catalog resolves a table at each read, with no such step"
)
def test_a_table_re_read_by_two_threads_at_once_ends_current(
    spark: SparkSession, table: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from sparklet.sql.catalog import Catalog

    source = tmp_path / "in"
    source.mkdir()

    def ingest(name: str, ids: list[int]) -> None:
        (source / name).write_text("".join(f'{{"id": {i}}}\n' for i in ids))
        q = (
            spark.readStream.schema("id LONG")
            .json(str(source))
            .writeStream.option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(availableNow=True)
            .toTable(table, format="delta")
        )
        q.awaitTermination()

    ingest("a.json", [1])
    assert rows(spark.table(table)) == [(1,)]
    ingest("b.json", [2])
    # another thread sees the change and reads the table (two rows), and is
    # held before it puts that read in place of the table's
    read, held, release = Catalog._dataframe, threading.Event(), threading.Event()

    def held_read(self: Catalog, info):  # noqa: ANN001, ANN202
        df = read(self, info)
        if threading.current_thread().name == "other":
            held.set()
            release.wait(2)
        return df

    monkeypatch.setattr(Catalog, "_dataframe", held_read)
    other = threading.Thread(target=lambda: spark.table(table), name="other")
    other.start()
    assert held.wait(30)
    ingest("c.json", [3])  # a third row committed meanwhile
    first = rows(spark.table(table))
    release.set()
    other.join(30)
    # the other thread's older read does not replace the newer one for good
    assert first == [(1,), (2,), (3,)]
    assert rows(spark.table(table)) == [(1,), (2,), (3,)]
