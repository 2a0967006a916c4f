"""Delta Lake batch reads and writes on real tables, read back and written
by the ``deltalake`` package (delta-rs): save modes, partitions, time
travel, ``replaceWhere``, idempotent writes and their errors."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from sparklet.errors import AnalysisException
from sparklet.sql import SparkSession

# PySpark reads Delta only with the delta-spark jars, which the portability
# run does not install; the `deltalake` package is the second reader here
pytestmark = pytest.mark.sparklet_only(reason="PySpark needs the delta-spark jars for format('delta')")


@pytest.fixture
def people(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame(
        [(1, "a", dt.datetime(2024, 1, 2, 3, 4, 5)), (2, "b", None)], "id LONG, name STRING, ts TIMESTAMP"
    )


def test_a_written_table_reads_back_in_deltalake_and_sparklet(spark: SparkSession, people, tmp_path: Path) -> None:  # noqa: ANN001
    path = str(tmp_path / "t")
    people.write.format("delta").save(path)
    table = DeltaTable(path)
    assert table.version() == 0
    assert sorted(table.to_pyarrow_table().column("id").to_pylist()) == [1, 2]
    back = spark.read.format("delta").load(path).orderBy("id")
    assert [tuple(r) for r in back.collect()] == [tuple(r) for r in people.orderBy("id").collect()]


def test_a_deltalake_table_reads_in_sparklet(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["x", "y"]}))
    write_deltalake(path, pa.table({"k": pa.array([3], pa.int64()), "v": ["z"]}), mode="append")
    assert [r.k for r in spark.read.format("delta").load(path).orderBy("k").collect()] == [1, 2, 3]
    # time travel
    assert spark.read.format("delta").option("versionAsOf", 0).load(path).count() == 2


def test_save_modes(spark: SparkSession, people, tmp_path: Path) -> None:  # noqa: ANN001
    path = str(tmp_path / "t")
    people.write.format("delta").save(path)
    people.write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").load(path).count() == 4
    people.limit(1).write.format("delta").mode("overwrite").save(path)
    assert spark.read.format("delta").load(path).count() == 1
    people.write.format("delta").mode("ignore").save(path)
    assert spark.read.format("delta").load(path).count() == 1
    with pytest.raises(AnalysisException, match="DELTA_PATH_EXISTS"):
        people.write.format("delta").save(path)
    assert DeltaTable(path).version() == 2


def test_partitions_and_replace_where(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, "x"), (2, "y"), (3, "x")], "id LONG, p STRING")
    df.write.format("delta").partitionBy("p").save(path)
    assert DeltaTable(path).metadata().partition_columns == ["p"]
    assert sorted(d.name for d in Path(path).iterdir() if d.is_dir() and not d.name.startswith("_")) == ["p=x", "p=y"]
    new = spark.createDataFrame([(9, "x")], "id LONG, p STRING")
    new.write.format("delta").mode("overwrite").option("replaceWhere", "p = 'x'").save(path)
    assert sorted(tuple(r) for r in spark.read.format("delta").load(path).collect()) == [(2, "y"), (9, "x")]


def test_idempotent_writes_with_txn_options(spark: SparkSession, people, tmp_path: Path) -> None:  # noqa: ANN001
    path = str(tmp_path / "t")
    for version in (0, 1, 1, 0):
        people.write.format("delta").mode("append").option("txnAppId", "job").option("txnVersion", version).save(path)
    # the replays of versions 1 and 0 were skipped
    assert spark.read.format("delta").load(path).count() == 4
    assert DeltaTable(path).version() == 1


def test_schema_changes_need_merge_schema(spark: SparkSession, people, tmp_path: Path) -> None:  # noqa: ANN001
    path = str(tmp_path / "t")
    people.write.format("delta").save(path)
    wider = spark.createDataFrame([(3, "c", None, 1.5)], "id LONG, name STRING, ts TIMESTAMP, score DOUBLE")
    with pytest.raises(AnalysisException, match="(?i)schema"):
        wider.write.format("delta").mode("append").save(path)
    assert DeltaTable(path).version() == 0
    wider.write.format("delta").mode("append").option("mergeSchema", "true").save(path)
    back = spark.read.format("delta").load(path)
    assert back.columns == ["id", "name", "ts", "score"]
    assert sorted((r.id, r.score) for r in back.collect()) == [(1, None), (2, None), (3, 1.5)]


def test_not_a_delta_table(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(AnalysisException, match="DELTA_MISSING_DELTA_TABLE"):
        spark.read.format("delta").load(str(tmp_path / "plain"))
    with pytest.raises(AnalysisException, match="DELTA_VERSION_NOT_FOUND|version"):
        spark.range(1).write.format("delta").save(str(tmp_path / "t"))
        spark.read.format("delta").option("versionAsOf", 5).load(str(tmp_path / "t"))


def test_appends_keep_the_tables_constraints_and_types(spark: SparkSession, tmp_path: Path) -> None:
    checked, strict = str(tmp_path / "checked"), str(tmp_path / "strict")
    write_deltalake(checked, pa.table({"k": pa.array([1, 2], pa.int64())}))
    DeltaTable(checked).alter.add_constraint({"positive": "k > 0"})
    with pytest.raises(AnalysisException, match=r"(?s)DELTA_VIOLATE_CONSTRAINT_WITH_VALUES.*checked.*-1"):
        spark.createDataFrame([(3,), (-1,)], "k LONG").write.format("delta").mode("append").save(checked)
    assert DeltaTable(checked).version() == 1
    spark.createDataFrame([(3,)], "k LONG").write.format("delta").mode("append").save(checked)
    assert sorted(DeltaTable(checked).to_pyarrow_table().column("k").to_pylist()) == [1, 2, 3]

    schema = pa.schema([pa.field("k", pa.int64(), nullable=False), pa.field("s", pa.string())])
    write_deltalake(strict, pa.table({"k": [1], "s": ["a"]}, schema=schema))
    with pytest.raises(AnalysisException, match="DELTA_VIOLATE_CONSTRAINT_WITH_VALUES"):
        spark.createDataFrame([(None, "x")], "k LONG, s STRING").write.format("delta").mode("append").save(strict)
    # an INT column widens into the table's BIGINT; columns in another order land by name
    spark.createDataFrame([(5, "b")], "k INT, s STRING").write.format("delta").mode("append").save(strict)
    spark.createDataFrame([("c", 6)], "s STRING, k LONG").write.format("delta").mode("append").save(strict)
    got = DeltaTable(strict).to_pyarrow_table()
    assert got.schema == schema
    assert sorted(got.to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "s": "a"},
        {"k": 5, "s": "b"},
        {"k": 6, "s": "c"},
    ]


def test_reading_a_missing_path_leaves_no_folder_behind(spark: SparkSession, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(AnalysisException, match="DELTA_MISSING_DELTA_TABLE"):
        spark.read.format("delta").load(str(missing))
    assert not missing.exists()
