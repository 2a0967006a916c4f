"""Python data sources in streaming queries: a partitioned
``DataSourceStreamReader`` whose offsets land in the checkpoint (a restart
resumes from them, a replayed batch reads the same offsets), admission
control with read limits, ``SimpleDataSourceStreamReader``, a
``DataSourceStreamWriter`` committing per batch, and the errors. The
"available data" of each source is a number in a file the test writes;
what the sources do is logged to files (PySpark runs them in worker
processes)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sparklet.errors import StreamingQueryException
from sparklet.sql import Row, SparkSession
from sparklet.sql.datasource import (
    DataSource,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    InputPartition,
    SimpleDataSourceStreamReader,
    WriterCommitMessage,
)
from sparklet.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow


def available(folder: Path) -> int:
    return int((folder / "available").read_text())


def make_available(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "available").write_text(str(n))


def log(folder: Path, what: str, value: object) -> None:
    with open(folder / f"{what}.jsonl", "a") as f:
        f.write(json.dumps(value) + "\n")


def logged(folder: Path, what: str) -> list:
    path = folder / f"{what}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


class Slice(InputPartition):
    def __init__(self, lo: int, hi: int, index: int) -> None:
        self.lo, self.hi, self.index = lo, hi, index


class CounterReader(DataSourceStreamReader):
    """Numbers 0..available, two partitions a batch."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def initialOffset(self) -> dict:
        return {"offset": 0}

    def latestOffset(self) -> dict:
        return {"offset": available(self.folder)}

    def partitions(self, start: dict, end: dict) -> list[Slice]:
        lo, hi = start["offset"], end["offset"]
        log(self.folder, "planned", [lo, hi])
        mid = (lo + hi) // 2
        return [Slice(lo, mid, 0), Slice(mid, hi, 1)]

    def read(self, partition: Slice) -> Iterator[tuple]:
        for i in range(partition.lo, partition.hi):
            yield (i, partition.index)

    def commit(self, end: dict) -> None:
        log(self.folder, "commits", end)


class Counter(DataSource):
    @classmethod
    def name(cls) -> str:
        return "counter"

    def schema(self) -> str:
        return "id BIGINT, part INT"

    def streamReader(self, schema):  # noqa: ANN001, ANN201
        return CounterReader(self.options["path"])


class LimitedReader(CounterReader):
    """The same numbers with admission control: ``maxRecordsPerTrigger``."""

    def __init__(self, folder: str, max_rows: int) -> None:
        super().__init__(folder)
        self.max_rows = max_rows

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows)

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # type: ignore[override]
        end = available(self.folder)
        if isinstance(limit, ReadMaxRows):
            end = min(end, start["offset"] + limit.max_rows)
        else:
            assert isinstance(limit, ReadAllAvailable)
        return {"offset": end}


class NowReader(LimitedReader, SupportsTriggerAvailableNow):
    def prepareForTriggerAvailableNow(self) -> None:
        self.cap = available(self.folder)

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # type: ignore[override]
        return {"offset": min(super().latestOffset(start, limit)["offset"], self.cap)}


class Limited(Counter):
    @classmethod
    def name(cls) -> str:
        return "limited"

    def streamReader(self, schema):  # noqa: ANN001, ANN201
        kind = NowReader if self.options.get("mixin") == "yes" else LimitedReader
        return kind(self.options["path"], int(self.options.get("maxRecordsPerTrigger", "1000")))


class Lines(SimpleDataSourceStreamReader):
    """Line numbers of a file: ``read`` takes what is new."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def initialOffset(self) -> dict:
        return {"line": 0}

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        end = available(self.folder)
        log(self.folder, "read", [start["line"], end])
        return iter([(i, f"line {i}") for i in range(start["line"], end)]), {"line": end}

    def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
        log(self.folder, "reread", [start["line"], end["line"]])
        return iter([(i, f"line {i}") for i in range(start["line"], end["line"])])

    def commit(self, end: dict) -> None:
        log(self.folder, "commits", end)


class SimpleLines(DataSource):
    @classmethod
    def name(cls) -> str:
        return "simple_lines"

    def schema(self) -> str:
        return "n BIGINT, text STRING"

    def simpleStreamReader(self, schema):  # noqa: ANN001, ANN201
        return Lines(self.options["path"])


class BrokenReader(CounterReader):
    def __init__(self, folder: str, how: str) -> None:
        super().__init__(folder)
        self.how = how

    def latestOffset(self) -> dict:
        if self.how == "latest":
            raise ConnectionError("the broker is down")
        if self.how == "offset":
            return {"offset": available(self.folder), "at": object()}
        return super().latestOffset()

    def read(self, partition: Slice) -> Iterator[tuple]:
        if self.how == "read":
            raise ValueError("a corrupt page")
        yield from super().read(partition)


class Broken(Counter):
    @classmethod
    def name(cls) -> str:
        return "broken"

    def streamReader(self, schema):  # noqa: ANN001, ANN201
        return BrokenReader(self.options["path"], self.options["how"])


@dataclass
class Sent(WriterCommitMessage):
    rows: int


class OutboxWriter(DataSourceStreamWriter):
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def write(self, iterator: Iterator[Row]) -> Sent:
        rows = [r.asDict() for r in iterator]
        if any(r["id"] < 0 for r in rows):
            raise ValueError("negative ids are refused")
        (self.folder / f"rows-{uuid.uuid4().hex}.json").write_text(json.dumps(rows))
        return Sent(len(rows))

    def commit(self, messages: list[Sent | None], batchId: int) -> None:
        log(self.folder, "commits", [batchId, sum(m.rows for m in messages if m)])

    def abort(self, messages: list[Sent | None], batchId: int) -> None:
        log(self.folder, "aborts", [batchId, sum(m is None for m in messages)])


class Outbox(DataSource):
    @classmethod
    def name(cls) -> str:
        return "outbox"

    def streamWriter(self, schema, overwrite):  # noqa: ANN001, ANN201
        return OutboxWriter(self.options["path"])


@pytest.fixture(scope="module", autouse=True)
def registered(spark: SparkSession) -> None:
    for source in (Counter, Limited, SimpleLines, Broken, Outbox):
        spark.dataSource.register(source)


def rows_of(batch) -> list[tuple]:  # noqa: ANN001
    """A foreachBatch batch's rows: a pyarrow Table (sparklet) or a DataFrame (PySpark)."""
    if hasattr(batch, "to_pylist"):
        return sorted(tuple(r.values()) for r in batch.to_pylist())
    return sorted(tuple(r) for r in batch.collect())


def run_once(df, ckpt: Path, **trigger: bool) -> list[list[tuple]]:  # noqa: ANN001
    """One ``availableNow`` (or other) run; each batch's rows."""
    batches: list[list[tuple]] = []
    q = (
        df.writeStream.foreachBatch(lambda batch, _: batches.append(rows_of(batch)))
        .option("checkpointLocation", str(ckpt))
        .trigger(**(trigger or {"availableNow": True}))
        .start()
    )
    q.awaitTermination()
    return batches


def lose_commit(ckpt: Path, batch: int) -> None:
    """Delete batch ``batch``'s commit (and Spark's checksum of it): the crash
    came after the batch's output, before its commit."""
    for name in (str(batch), f".{batch}.crc"):
        (ckpt / "commits" / name).unlink(missing_ok=True)


def last_offset(ckpt: Path) -> dict:
    files = sorted((ckpt / "offsets").iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else -1)
    return json.loads(files[-1].read_text().splitlines()[-1])


def test_a_partitioned_stream_resumes_from_its_offsets(spark: SparkSession, tmp_path: Path) -> None:
    src, ckpt = tmp_path / "src", tmp_path / "ckpt"
    make_available(src, 10)
    df = spark.readStream.format("counter").load(str(src))
    assert df.isStreaming and df.schema.simpleString() == "struct<id:bigint,part:int>"
    first = run_once(df, ckpt)
    assert [r for batch in first for r in batch] == [(i, 0 if i < 5 else 1) for i in range(10)]
    assert last_offset(ckpt) == {"offset": 10}
    make_available(src, 16)
    second = run_once(df, ckpt)
    assert [r[0] for batch in second for r in batch] == list(range(10, 16))
    # (Spark may plan an empty range as it restarts)
    assert [p for p in logged(src, "planned") if p[0] != p[1]] == [[0, 10], [10, 16]]
    # each batch's end is committed to the reader (Spark: once the next batch is planned)
    assert {"offset": 10} in logged(src, "commits")


def test_a_batch_replayed_after_a_crash_reads_the_same_offsets(spark: SparkSession, tmp_path: Path) -> None:
    src, ckpt = tmp_path / "src", tmp_path / "ckpt"
    make_available(src, 4)
    df = spark.readStream.format("counter").load(str(src))
    run_once(df, ckpt)
    make_available(src, 9)
    run_once(df, ckpt)
    # the crash: batch 1 planned and logged, its commit lost; more data since
    lose_commit(ckpt, 1)
    make_available(src, 12)
    replayed = run_once(df, ckpt)
    assert [r[0] for r in replayed[0]] == list(range(4, 9))
    # the new data: in the same run, or (Spark) the next
    rest = replayed[1:] + run_once(df, ckpt)
    assert [r[0] for batch in rest for r in batch] == [9, 10, 11]
    assert [p for p in logged(src, "planned") if p[0] != p[1]] == [[0, 4], [4, 9], [4, 9], [9, 12]]


def test_admission_control_caps_each_batch(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_available(src, 10)
    df = spark.readStream.format("limited").option("maxRecordsPerTrigger", 4).option("mixin", "yes").load(str(src))
    batches = run_once(df, tmp_path / "ckpt")
    assert [len(b) for b in batches] == [4, 4, 2]


def test_a_trigger_once_batch_takes_everything(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_available(src, 10)
    df = spark.readStream.format("limited").option("maxRecordsPerTrigger", 4).load(str(src))
    batches = run_once(df, tmp_path / "ckpt", once=True)
    assert [len(b) for b in batches] == [10]


def test_a_simple_reader_reads_each_batch_once_and_rereads_a_replay(spark: SparkSession, tmp_path: Path) -> None:
    src, ckpt = tmp_path / "src", tmp_path / "ckpt"
    make_available(src, 3)
    df = spark.readStream.format("simple_lines").load(str(src))

    def running(into: list[tuple]):  # noqa: ANN202
        return (
            df.writeStream.foreachBatch(lambda batch, _: into.extend(rows_of(batch)))
            .option("checkpointLocation", str(ckpt))
            .start()
        )

    got: list[tuple] = []
    q = running(got)
    q.processAllAvailable()
    make_available(src, 5)
    q.processAllAvailable()
    q.stop()
    assert sorted(got) == [(i, f"line {i}") for i in range(5)]
    assert logged(src, "reread") == []
    assert {"line": 3} in logged(src, "commits")
    # a restart with the last batch's commit lost reads it again, between its offsets
    lose_commit(ckpt, max(int(p.name) for p in (ckpt / "commits").iterdir() if p.name.isdigit()))
    again: list[tuple] = []
    q = running(again)
    q.processAllAvailable()
    q.stop()
    assert logged(src, "reread") == [[3, 5]]
    assert [r[0] for r in sorted(again)] == [3, 4]


@pytest.mark.parametrize(
    ("how", "message"),
    [("latest", "the broker is down"), ("read", "a corrupt page"), ("offset", "JSON")],
)
def test_an_error_in_the_reader_fails_the_query_and_commits_nothing(
    spark: SparkSession, tmp_path: Path, how: str, message: str
) -> None:
    src, ckpt = tmp_path / "src", tmp_path / "ckpt"
    make_available(src, 5)
    df = spark.readStream.format("broken").option("how", how).load(str(src))
    got: list[int] = []
    q = (
        # the batch is read (Spark plans nothing for a function that ignores it)
        df.writeStream.foreachBatch(lambda b, i: got.append(len(rows_of(b))))
        .option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True)
        .start()
    )
    with pytest.raises(StreamingQueryException, match=message):
        q.awaitTermination()
    assert got == []
    commits = ckpt / "commits"
    assert not commits.exists() or not any(p.name.isdigit() for p in commits.iterdir())
    assert logged(src, "commits") == []


def test_a_stream_writer_commits_each_batch_and_aborts_a_failed_one(spark: SparkSession, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    out.mkdir()
    make_available(src, 6)
    df = spark.readStream.format("counter").load(str(src)).selectExpr("id", "part")
    q = (
        df.writeStream.format("outbox")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    q.awaitTermination()
    assert logged(out, "commits") == [[0, 6]]
    written = sorted(r["id"] for p in out.glob("rows-*.json") for r in json.loads(p.read_text()))
    assert written == list(range(6))
    failing = df.selectExpr("id - 10 AS id", "part")
    q = (
        failing.writeStream.format("outbox")
        .option("checkpointLocation", str(tmp_path / "ckpt2"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    with pytest.raises(StreamingQueryException, match="negative ids are refused"):
        q.awaitTermination()
    assert [a[0] for a in logged(out, "aborts")] == [0]
    assert logged(out, "commits") == [[0, 6]]


class ArrowOutboxWriter(DataSourceStreamArrowWriter):
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def write(self, iterator: Iterator) -> Sent:
        import pyarrow as pa

        batches = list(iterator)
        assert all(isinstance(b, pa.RecordBatch) for b in batches)
        return Sent(sum(b.num_rows for b in batches))

    def commit(self, messages: list[Sent | None], batchId: int) -> None:
        log(self.folder, "arrow_commits", [batchId, sum(m.rows for m in messages if m)])


class ArrowOutbox(DataSource):
    @classmethod
    def name(cls) -> str:
        return "arrow_outbox"

    def streamWriter(self, schema, overwrite):  # noqa: ANN001, ANN201
        return ArrowOutboxWriter(self.options["path"])


def test_an_arrow_stream_writer_gets_record_batches(spark: SparkSession, tmp_path: Path) -> None:
    spark.dataSource.register(ArrowOutbox)
    src, out = tmp_path / "src", tmp_path / "out"
    out.mkdir()
    make_available(src, 7)
    q = (
        spark.readStream.format("counter")
        .load(str(src))
        .writeStream.format("arrow_outbox")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    q.awaitTermination()
    assert logged(out, "arrow_commits") == [[0, 7]]
