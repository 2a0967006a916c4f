"""Input that is hostile or odd by accident never takes the process down:
a record nested deeper than Spark reads is a malformed record (Spark's
parse modes), in files, in streams (before and after a restart) and in
``from_json``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import dicts
from sparklet.errors import StreamingQueryException
from sparklet.sql import Row, SparkSession
from sparklet.sql import functions as F

DEEP = 50_000  # far past Jackson's 1,000 levels: a 100 KB line


def deep_line(levels: int) -> str:
    return '{"a": ' + "[" * levels + "1" + "]" * levels + ', "id": 2}'


def poisoned(folder: Path, levels: int = DEEP) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "poisoned.json"
    path.write_text('{"id": 1, "a": "x"}\n' + deep_line(levels) + '\n{"id": 3, "a": "z"}\n')
    return path


def test_a_record_nested_too_deep_is_malformed(spark: SparkSession, tmp_path: Path) -> None:
    path = poisoned(tmp_path / "in")
    rows = spark.read.schema("id INT, a STRING, _corrupt_record STRING").json(str(path)).collect()
    assert [(r.id, r.a) for r in rows] == [(1, "x"), (None, None), (3, "z")]
    assert rows[1]._corrupt_record == deep_line(DEEP)
    assert spark.read.schema("id INT").option("mode", "DROPMALFORMED").json(str(path)).collect() == [
        Row(id=1),
        Row(id=3),
    ]
    with pytest.raises(Exception, match="(?i)malformed"):
        spark.read.schema("id INT, a STRING").option("mode", "FAILFAST").json(str(path)).collect()


def test_a_record_nested_within_the_limit_is_read(spark: SparkSession, tmp_path: Path) -> None:
    # 999 arrays in the record's object: 1,000 levels, Jackson's limit
    path = poisoned(tmp_path / "in", levels=999)
    rows = spark.read.schema("id INT").json(str(path)).collect()
    assert [r.id for r in rows] == [1, 2, 3]


def test_from_json_of_a_string_nested_too_deep_is_null(spark: SparkSession) -> None:
    df = spark.createDataFrame([(deep_line(DEEP),), ('{"id": 7}',)], "s STRING")
    out = df.select(F.from_json("s", "id INT").alias("j")).collect()
    assert [r.j.id if r.j is not None else None for r in out] == [None, 7]


def test_a_stream_reads_past_a_poisoned_file_and_again_after_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    poisoned(tmp_path / "in")
    df = spark.readStream.schema("id INT, a STRING").json(str(tmp_path / "in"))
    runs = []
    for _ in range(2):  # the restart finds the file taken: nothing replayed, nothing read twice
        seen: list[tuple] = []
        q = (
            df.writeStream.foreachBatch(lambda t, _, seen=seen: seen.extend((r["id"], r["a"]) for r in dicts(t)))
            .option("checkpointLocation", str(tmp_path / "c"))
            .trigger(availableNow=True)
            .start()
        )
        assert q.awaitTermination(60)
        runs.append(seen)
    assert runs == [[(1, "x"), (None, None), (3, "z")], []]


def test_a_poisoned_file_in_failfast_mode_fails_the_query_with_its_name(spark: SparkSession, tmp_path: Path) -> None:
    path = poisoned(tmp_path / "in")
    df = spark.readStream.schema("id INT, a STRING").option("mode", "FAILFAST").json(str(tmp_path / "in"))
    q = df.writeStream.format("noop").trigger(availableNow=True).start()
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(60)
    assert "poisoned.json" in str(e.value) or str(path) in str(e.value)


def test_a_linked_folder_and_a_fifo_in_a_watched_folder_are_skipped(spark: SparkSession, tmp_path: Path) -> None:
    import os

    src, other = tmp_path / "in", tmp_path / "other"
    src.mkdir()
    other.mkdir()
    (other / "x.json").write_text('{"id": 9}\n')
    (src / "a.json").write_text('{"id": 1}\n')
    (src / "linked").symlink_to(other, target_is_directory=True)
    os.mkfifo(src / "pipe.json")  # a reader opening it would wait for a writer for ever
    seen: list = []
    q = (
        spark.readStream.schema("id INT")
        .json(str(src))
        .writeStream.foreachBatch(lambda t, _: seen.extend(r["id"] for r in dicts(t)))
        .trigger(availableNow=True)
        .start()
    )
    assert q.awaitTermination(60)
    assert q.exception() is None and seen == [1]


@pytest.mark.sparklet_only(
    reason="Spark raises ARITHMETIC_OVERFLOW for these windows' ends; sparklet's end at the range's end (docs/differences.md)"
)
def test_windows_of_times_at_the_end_of_the_range_do_not_overflow(spark: SparkSession) -> None:
    import pyarrow as pa

    near_end = 2**63 - 1_000
    table = pa.table({"ts": pa.array([near_end, near_end - 5], pa.timestamp("us", tz="UTC"))})
    df = spark.createDataFrame(table)
    for window in (F.window("ts", "10 seconds"), F.session_window("ts", "10 seconds")):
        counts = df.groupBy(window.alias("w")).count().select("count").collect()
        assert sum(r["count"] for r in counts) == 2
