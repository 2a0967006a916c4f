"""Python data sources in batch: a registered ``DataSource`` read with
``spark.read.format(name)`` (partitions, schemas given three ways, tuples,
Rows and Arrow batches, filter pushdown) and written with
``df.write.format(name)`` (one message per partition, then commit or
abort). The classes live at module level: PySpark pickles them to its
Python workers, so state they share with the test goes through files."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest

from conftest import conf_set
from sparklet.errors import AnalysisException
from sparklet.sql import Row, SparkSession
from sparklet.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceWriter,
    EqualTo,
    GreaterThan,
    InputPartition,
    WriterCommitMessage,
)

PUSHDOWN = "spark.sql.python.filterPushdown.enabled"


class Range(InputPartition):
    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi


class NumbersReader(DataSourceReader):
    def __init__(self, count: int, parts: int) -> None:
        self.count, self.parts = count, parts

    def partitions(self) -> list[Range]:
        step = -(-self.count // self.parts)
        return [Range(lo, min(lo + step, self.count)) for lo in range(0, self.count, step)]

    def read(self, partition: Range) -> Iterator[tuple]:
        for i in range(partition.lo, partition.hi):
            yield (i, i * i, f"n{i}")


class Numbers(DataSource):
    @classmethod
    def name(cls) -> str:
        return "numbers"

    def schema(self) -> str:
        return "id INT, square BIGINT, label STRING"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return NumbersReader(int(self.options.get("count", "5")), int(self.options.get("parts", "2")))


@pytest.fixture(scope="module", autouse=True)
def registered(spark: SparkSession) -> None:
    for source in (Numbers, ArrowNumbers, Named, NoSchema, Failing, BadRows, Pushing, Files, ArrowFiles):
        spark.dataSource.register(source)


def test_a_source_reads_its_partitions_with_its_schema_and_options(spark: SparkSession) -> None:
    df = spark.read.format("numbers").option("COUNT", 7).option("parts", 3).load()
    assert df.schema.simpleString() == "struct<id:int,square:bigint,label:string>"
    assert sorted(tuple(r) for r in df.collect()) == [(i, i * i, f"n{i}") for i in range(7)]
    # each action reads again; the query's operators run over the rows
    assert df.where("id > 4").count() == 2
    assert df.groupBy().sum("square").collect()[0][0] == sum(i * i for i in range(7))


class ArrowNumbersReader(DataSourceReader):
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        for start in (0, 3):
            ids = pa.array(range(start, start + 3), pa.int64())
            yield pa.RecordBatch.from_arrays([ids, pa.compute.multiply(ids, 2)], names=["id", "twice"])


class ArrowNumbers(DataSource):
    @classmethod
    def name(cls) -> str:
        return "arrow_numbers"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return ArrowNumbersReader()


def test_arrow_batches_and_a_schema_given_by_the_reader(spark: SparkSession) -> None:
    df = spark.read.format("arrow_numbers").schema("id BIGINT, twice BIGINT").load()
    assert [tuple(r) for r in df.orderBy("id").collect()] == [(i, 2 * i) for i in range(6)]


class NamedReader(DataSourceReader):
    def read(self, partition: InputPartition) -> Iterator[Row]:
        yield Row(b="x", a=1)
        yield Row(a=2, b=None)
        yield [3, "z"]


class Named(DataSource):
    @classmethod
    def name(cls) -> str:
        return "named"

    def schema(self):  # noqa: ANN201
        from sparklet.sql.types import LongType, StringType, StructField, StructType

        return StructType([StructField("a", LongType()), StructField("b", StringType())])

    def reader(self, schema):  # noqa: ANN001, ANN201
        return NamedReader()


def test_rows_by_name_and_lists_by_position(spark: SparkSession) -> None:
    rows = spark.read.format("named").load().orderBy("a").collect()
    assert [(r.a, r.b) for r in rows] == [(1, "x"), (2, None), (3, "z")]


class NoSchema(DataSource):
    @classmethod
    def name(cls) -> str:
        return "no_schema"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return NamedReader()


def test_a_source_without_a_schema_needs_one_from_the_reader(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="NOT_IMPLEMENTED|schema"):
        spark.read.format("no_schema").load().collect()
    got = spark.read.format("no_schema").schema("a LONG, b STRING").load()
    assert sorted(r.a for r in got.collect()) == [1, 2, 3]


class FailingReader(DataSourceReader):
    def read(self, partition: InputPartition) -> Iterator[tuple]:
        yield (1,)
        raise ValueError("the service answered 503")


class Failing(DataSource):
    @classmethod
    def name(cls) -> str:
        return "failing"

    def schema(self) -> str:
        return "x INT"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return FailingReader()


def test_an_exception_in_read_fails_the_action_with_the_users_traceback(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="the service answered 503") as info:
        spark.read.format("failing").load().collect()
    assert "FailingReader" in str(info.value) or "ValueError" in str(info.value)


class BadRowsReader(DataSourceReader):
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        yield (1, "a")
        yield (2, "b")
        if self.kind == "short":
            yield (3,)
        else:
            yield ("three", "c")


class BadRows(DataSource):
    @classmethod
    def name(cls) -> str:
        return "bad_rows"

    def schema(self) -> str:
        return "n INT, s STRING"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return BadRowsReader(self.options.get("kind", "short"))


def test_a_row_of_the_wrong_length_is_a_schema_mismatch(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="DATA_SOURCE_RETURN_SCHEMA_MISMATCH"):
        spark.read.format("bad_rows").load().collect()


@pytest.mark.sparklet_only(reason="PySpark's conversion error names neither the row nor its position")
def test_a_value_of_the_wrong_type_names_the_column_and_the_row(spark: SparkSession) -> None:
    with pytest.raises(Exception, match=r"(?s)column `n` \(int\) cannot hold 'three'.*row 2"):
        spark.read.format("bad_rows").option("kind", "type").load().collect()


class PushingReader(DataSourceReader):
    def __init__(self, log: str) -> None:
        self.log = log
        self.wanted: int | None = None

    def pushFilters(self, filters):  # noqa: ANN001, ANN201
        with open(self.log, "a") as f:
            f.write(json.dumps([repr(x) for x in filters]) + "\n")
        for x in filters:
            if isinstance(x, EqualTo) and x.attribute == ("id",):
                self.wanted = x.value
            else:
                yield x

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        for i in range(10):
            if self.wanted is None or i == self.wanted:
                yield (i, f"v{i}")


class Pushing(DataSource):
    @classmethod
    def name(cls) -> str:
        return "pushing"

    def schema(self) -> str:
        return "id INT, v STRING"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return PushingReader(self.options["log"])


def test_filters_are_offered_to_push_filters_when_pushdown_is_on(spark: SparkSession, tmp_path: Path) -> None:
    log = tmp_path / "pushed.jsonl"
    df = spark.read.format("pushing").option("log", str(log)).load()
    with conf_set(spark, PUSHDOWN, "true"):
        assert [tuple(r) for r in df.where("id = 3 AND v IS NOT NULL").collect()] == [(3, "v3")]
        # a filter the source keeps is applied by the query all the same
        assert sorted(r.id for r in df.where("id > 7").collect()) == [8, 9]
    offered = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(repr(EqualTo(("id",), 3)) in batch for batch in offered)
    assert any(repr(GreaterThan(("id",), 7)) in batch for batch in offered)
    with conf_set(spark, PUSHDOWN, "false"), pytest.raises(AnalysisException, match="DATA_SOURCE_PUSHDOWN_DISABLED"):
        spark.read.format("pushing").option("log", str(log)).load().collect()


@dataclass
class Written(WriterCommitMessage):
    rows: int
    file: str


class FilesWriter(DataSourceWriter):
    def __init__(self, folder: str, overwrite: bool) -> None:
        self.folder, self.overwrite = Path(folder), overwrite

    def write(self, iterator: Iterator[Row]) -> Written:
        rows = [r.asDict() for r in iterator]
        if any(r["name"] == "poison" for r in rows):
            raise RuntimeError("refusing a poisoned row")
        file = self.folder / f"part-{uuid.uuid4().hex}.json"
        file.write_text(json.dumps(rows))
        return Written(len(rows), file.name)

    def commit(self, messages: list[Written | None]) -> None:
        summary = {
            "overwrite": self.overwrite,
            "files": sorted(m.file for m in messages if m),
            "rows": sum(m.rows for m in messages if m),
        }
        (self.folder / f"_committed-{uuid.uuid4().hex}").write_text(json.dumps(summary))

    def abort(self, messages: list[Written | None]) -> None:
        summary = {"failed": sum(m is None for m in messages), "written": [m.file for m in messages if m]}
        (self.folder / "_aborted").write_text(json.dumps(summary))


class Files(DataSource):
    @classmethod
    def name(cls) -> str:
        return "json_files"

    def writer(self, schema, overwrite):  # noqa: ANN001, ANN201
        return FilesWriter(self.options["path"], overwrite)


def test_a_write_runs_each_partition_then_one_commit(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(i, f"name{i}") for i in range(20)], "id INT, name STRING").repartition(3)
    df.write.format("json_files").mode("append").save(str(tmp_path))
    (commit,) = [json.loads(p.read_text()) for p in tmp_path.glob("_committed-*")]
    assert commit["rows"] == 20 and commit["overwrite"] is False
    assert commit["files"] == sorted(p.name for p in tmp_path.glob("part-*.json"))
    written = sorted(r["id"] for p in tmp_path.glob("part-*.json") for r in json.loads(p.read_text()))
    assert written == list(range(20))
    df.write.format("json_files").mode("overwrite").save(str(tmp_path))
    assert sorted(json.loads(p.read_text())["overwrite"] for p in tmp_path.glob("_committed-*")) == [False, True]


def test_a_failed_partition_aborts_the_write(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "ok"), (2, "poison")], "id INT, name STRING")
    with pytest.raises(Exception, match="refusing a poisoned row"):
        df.write.format("json_files").mode("append").save(str(tmp_path))
    aborted = json.loads((tmp_path / "_aborted").read_text())
    assert aborted["failed"] >= 1
    assert not list(tmp_path.glob("_committed-*"))


class ArrowFilesWriter(DataSourceArrowWriter):
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Written:
        batches = list(iterator)
        assert all(isinstance(b, pa.RecordBatch) for b in batches)
        rows = sum(b.num_rows for b in batches)
        file = self.folder / f"arrow-{uuid.uuid4().hex}.json"
        file.write_text(json.dumps({"rows": rows, "columns": batches[0].schema.names if batches else []}))
        return Written(rows, file.name)


class ArrowFiles(DataSource):
    @classmethod
    def name(cls) -> str:
        return "arrow_files"

    def writer(self, schema, overwrite):  # noqa: ANN001, ANN201
        return ArrowFilesWriter(self.options["path"])


def test_an_arrow_writer_gets_record_batches(spark: SparkSession, tmp_path: Path) -> None:
    spark.range(1000).selectExpr("id", "id * 2 AS twice").write.format("arrow_files").mode("append").save(str(tmp_path))
    written = [json.loads(p.read_text()) for p in tmp_path.glob("arrow-*.json")]
    assert sum(w["rows"] for w in written) == 1000
    assert {tuple(w["columns"]) for w in written if w["rows"]} == {("id", "twice")}


class SlowPagesReader(DataSourceReader):
    def __init__(self, log: str) -> None:
        self.log = log

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(i) for i in range(4)]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        import threading
        import time

        time.sleep(0.05)  # a page fetched over the network: the GIL is free meanwhile
        with open(self.log, "a") as f:
            f.write(f"{partition.value} {threading.get_ident()}\n")
        yield (partition.value,)


class SlowPages(DataSource):
    @classmethod
    def name(cls) -> str:
        return "slow_pages"

    def schema(self) -> str:
        return "page INT"

    def reader(self, schema):  # noqa: ANN001, ANN201
        return SlowPagesReader(self.options["log"])


@pytest.mark.sparklet_only(reason="sparklet reads partitions on threads of its process (Spark: worker processes)")
def test_partitions_are_read_on_as_many_threads_as_the_setting_allows(spark: SparkSession, tmp_path: Path) -> None:
    spark.dataSource.register(SlowPages)

    def threads(workers: str) -> set[str]:
        log = tmp_path / f"threads-{workers}.log"
        with conf_set(spark, "spark.sparklet.pythonDataSource.workers", workers):
            got = spark.read.format("slow_pages").option("log", str(log)).load().collect()
        assert sorted(r.page for r in got) == [0, 1, 2, 3]
        return {line.split()[1] for line in log.read_text().splitlines()}

    assert len(threads("1")) == 1
    assert len(threads("4")) > 1
