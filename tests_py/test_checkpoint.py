"""Checkpoints: restart where the query stopped, replay what was not
committed, refuse checkpoints that do not fit, exactly once through kills."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import dicts, log_entries, write_json
from sparklet.errors import AnalysisException, IllegalArgumentException, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.sql.streaming.files import committed_files
from sparklet.testing import MemoryStream

REPO = Path(__file__).resolve().parent.parent


def run_available_now(df, ckpt: Path, seen: list):  # noqa: ANN001, ANN201
    q = (
        df.writeStream.foreachBatch(lambda t, i: seen.append((i, sorted(r["id"] for r in dicts(t)))))
        .option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True)
        .start()
    )
    assert q.awaitTermination(30)
    return q


def test_file_source_restart_continues_batch_ids_and_skips_processed_files(spark: SparkSession, tmp_path: Path) -> None:
    src, ckpt = tmp_path / "in", tmp_path / "ckpt"
    src.mkdir()
    write_json(src, "a.json", [{"id": 1}])
    df = spark.readStream.schema("id INT").json(str(src))
    seen: list = []
    q1 = run_available_now(df, ckpt, seen)
    write_json(src, "b.json", [{"id": 2}, {"id": 3}])
    q2 = run_available_now(df, ckpt, seen)
    assert seen == [(0, [1]), (1, [2, 3])]
    assert q1.id == q2.id and q1.runId != q2.runId
    assert json.loads((ckpt / "metadata").read_text())["id"] == q1.id
    assert log_entries(ckpt, "offsets") == [0, 1] and log_entries(ckpt, "commits") == [0, 1]
    offsets = (ckpt / "offsets" / "1").read_text().splitlines()
    assert offsets[0] == "v1" and json.loads(offsets[2]) == {"logOffset": 1}
    assert (ckpt / "sources" / "0" / "1").read_text().startswith("v1\n")


def test_a_batch_reaches_the_sink_after_its_offsets_are_logged_and_before_its_commit(
    spark: SparkSession, tmp_path: Path
) -> None:
    # the offsets log is written while the batch runs; the sink must still
    # see a batch only once offsets/N is in place (a replay after a crash
    # then reads the same input), and before commits/N
    src, ckpt = tmp_path / "in", tmp_path / "ckpt"
    src.mkdir()
    seen: list = []

    def sink(t, batch_id: int) -> None:  # noqa: ANN001
        offsets = (ckpt / "offsets" / str(batch_id)).read_text().splitlines()
        seen.append((batch_id, len(dicts(t)), offsets[0], (ckpt / "commits" / str(batch_id)).exists()))

    for i in range(3):
        write_json(src, f"{i}.json", [{"id": i}] * (i + 1))
    df = spark.readStream.schema("id INT").option("maxFilesPerTrigger", 1).json(str(src)).groupBy("id").count()
    q = (
        df.writeStream.outputMode("update")
        .foreachBatch(sink)
        .option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True)
        .start()
    )
    assert q.awaitTermination(30)
    assert seen == [(0, 1, "v1", False), (1, 1, "v1", False), (2, 1, "v1", False)]
    assert log_entries(ckpt, "commits") == [0, 1, 2]


def test_memory_stream_and_rate_micro_batch_resume(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    seen: list = []
    ms.addData([(1,)])
    run_available_now(ms.toDF(), tmp_path / "m", seen)
    ms.addData([(2,)])
    run_available_now(ms.toDF(), tmp_path / "m", seen)
    assert seen == [(0, [1]), (1, [2])]

    rate = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 2).load()
    # by batch id: a batch stopped before its commit runs again after the
    # restart, with the same rows (Spark replays it; keyed writes stay exactly-once)
    batches: dict = {}
    for _ in range(2):
        q = (
            rate.writeStream.foreachBatch(lambda t, i: batches.__setitem__(i, [r["value"] for r in dicts(t)]))
            .option("checkpointLocation", str(tmp_path / "r"))
            .start()
        )
        while sum(map(len, batches.values())) < 4 * (_ + 1):
            q.awaitTermination(0.01)
        q.stop()
    values = [v for i in sorted(batches) for v in batches[i]]
    # no gaps, no repeats (a batch's rows come from two partitions, in either order)
    assert sorted(values) == list(range(len(values)))


def test_rate_source_keeps_its_start_time(spark: SparkSession, tmp_path: Path) -> None:
    rate = spark.readStream.format("rate").option("rowsPerSecond", 100).load()
    q = rate.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
    while not q.recentProgress:
        q.awaitTermination(0.05)
    q.stop()
    start = (tmp_path / "c" / "sources" / "0" / "0").read_text()
    q2 = rate.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
    while not q2.recentProgress:
        q2.awaitTermination(0.05)
    first = q2.recentProgress[0]["sources"][0]
    q2.stop()
    assert (tmp_path / "c" / "sources" / "0" / "0").read_text() == start
    assert first["startOffset"] == q.recentProgress[-1]["sources"][0]["endOffset"]


CHILD = textwrap.dedent(
    """
    import json, os, sys
    from sparklet.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    src, ckpt, out, sink, which = sys.argv[1:6]
    df = spark.readStream.schema("id INT").option("maxFilesPerTrigger", 1).json(src)
    def f(t, i):
        with open(out, "a") as fh:
            fh.write(json.dumps([i, sorted(t.column("id").to_pylist())]) + "\\n")
    # one query per process: a failpoint stops the process, so it must be this query's batch
    if which == "foreachBatch":
        q = df.writeStream.foreachBatch(f).option("checkpointLocation", ckpt + "/fb")
    else:
        q = df.writeStream.format("json").option("path", sink).option("checkpointLocation", ckpt + "/fs")
    q.trigger(availableNow=True).start().awaitTermination()
    """
)


def run_child(tmp: Path, failpoint: str | None, which: str) -> int:
    env = dict(os.environ)
    env.pop("SPARKLET_FAILPOINT", None)
    if failpoint:
        env["SPARKLET_FAILPOINT"] = failpoint
    args = [
        sys.executable,
        "-c",
        CHILD,
        str(tmp / "in"),
        str(tmp / "ckpt"),
        str(tmp / "calls.jsonl"),
        str(tmp / "sink"),
        which,
    ]
    return subprocess.run(args, env=env, capture_output=True, timeout=120).returncode


@pytest.mark.parametrize("failpoint", ["after-offsets@1", "mid-sink@1", "after-sink@1"])
def test_an_uncommitted_batch_is_replayed_with_the_same_offsets(tmp_path: Path, failpoint: str) -> None:
    (tmp_path / "in").mkdir()
    for i in range(3):
        write_json(tmp_path / "in", f"{i}.json", [{"id": i}])
        os.utime(tmp_path / "in" / f"{i}.json", (1_000 + i, 1_000 + i))
    for which in ("foreachBatch", "file"):
        if failpoint.startswith("mid-sink") and which == "foreachBatch":
            assert run_child(tmp_path, failpoint, which) == 0  # the point is inside the file sink
            continue
        assert run_child(tmp_path, failpoint, which) != 0  # aborted in batch 1
        assert run_child(tmp_path, None, which) == 0
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    # foreachBatch sees batch 1 again with exactly the same rows after the crash
    assert [c for c in calls if c[0] != 1] == [[0, [0]], [2, [2]]]
    assert all(c == [1, [1]] for c in calls if c[0] == 1)
    # the file sink holds every row once
    rows = [
        json.loads(line)["id"]
        for f in committed_files(str(tmp_path / "sink"))
        for line in Path(f).read_text().splitlines()
    ]
    assert sorted(rows) == [0, 1, 2]


@pytest.mark.sparklet_only(
    reason="sparklet's error condition for a changed or damaged checkpoint (Spark fails with its own)"
)
def test_changed_sources_fail_at_start_naming_what_changed(spark: SparkSession, tmp_path: Path) -> None:
    a, b = MemoryStream(spark, "id INT"), MemoryStream(spark, "id INT")
    a.addData([(1,)])
    run_available_now(a.toDF(), tmp_path / "c", [])
    with pytest.raises(StreamingQueryException, match=r"\[1\] sources in the checkpoint.*\[2\] sources") as e:
        run_available_now(a.toDF().union(b.toDF()), tmp_path / "c", [])
    assert e.value.getCondition() == "CHECKPOINT_INCOMPATIBLE"


@pytest.mark.sparklet_only(
    reason="sparklet's error condition for a changed or damaged checkpoint (Spark fails with its own)"
)
@pytest.mark.parametrize(
    "damage,condition,words",
    [
        (lambda p: p.write_text('v1\n{"batchWatermarkMs": 0, "batchTim'), "CHECKPOINT_FILE_CORRUPT", "invalid JSON"),
        (lambda p: p.write_text(""), "CHECKPOINT_FILE_CORRUPT", "empty"),
        (lambda p: p.write_text("v99\n{}\n0"), "INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION", "v99"),
    ],
)
def test_corrupt_checkpoint_files_are_named_and_kept(
    spark: SparkSession, tmp_path: Path, damage, condition: str, words: str
) -> None:  # noqa: ANN001
    ms = MemoryStream(spark, "id INT")
    ms.addData([(1,)])
    run_available_now(ms.toDF(), tmp_path / "c", [])
    target = tmp_path / "c" / "offsets" / "0"
    damage(target)
    before = target.read_bytes()
    with pytest.raises(StreamingQueryException) as e:
        run_available_now(ms.toDF(), tmp_path / "c", [])
    assert e.value.getCondition() == condition
    assert str(target) in str(e.value) and words in str(e.value)
    assert target.read_bytes() == before  # nothing deleted or rewritten


@pytest.mark.sparklet_only(
    reason="sparklet's error condition for a changed or damaged checkpoint (Spark fails with its own)"
)
def test_inconsistent_logs_are_refused(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    ms.addData([(1,)])
    run_available_now(ms.toDF(), tmp_path / "c", [])
    (tmp_path / "c" / "offsets" / "0").unlink()
    with pytest.raises(StreamingQueryException, match="CHECKPOINT_INCONSISTENT"):
        run_available_now(ms.toDF(), tmp_path / "c", [])


def test_file_sink_needs_a_checkpoint_and_session_default_is_used(spark: SparkSession, tmp_path: Path) -> None:
    df = MemoryStream(spark, "id INT").toDF()
    with pytest.raises(AnalysisException, match="checkpointLocation must be specified"):
        df.writeStream.format("parquet").option("path", str(tmp_path / "out")).start()
    spark.conf.set("spark.sql.streaming.checkpointLocation", str(tmp_path / "root"))
    try:
        q = df.writeStream.format("parquet").queryName("named_sink").start(str(tmp_path / "out"))
        q.stop()
        assert (tmp_path / "root" / "named_sink" / "metadata").exists()
    finally:
        spark.conf.unset("spark.sql.streaming.checkpointLocation")


def test_temporary_checkpoint_is_removed_at_stop(spark: SparkSession) -> None:
    # sparklet-temporary-<uuid>; Spark's are temporary-<uuid>
    before = {p.name for p in Path(tempfile.gettempdir()).glob("*temporary-*")}
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.format("memory").queryName("tmp_ckpt").start()
    ms.addData([(1,)])
    q.processAllAvailable()
    during = {p.name for p in Path(tempfile.gettempdir()).glob("*temporary-*")} - before
    assert len(during) == 1
    q.stop()
    after = {p.name for p in Path(tempfile.gettempdir()).glob("*temporary-*")} - before
    assert after == set()


def test_a_failed_query_keeps_its_temporary_checkpoint_until_the_process_exits(tmp_path: Path) -> None:
    # in a child interpreter: a query refused at start, and one that fails
    script = tmp_path / "child.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys, tempfile
            from pathlib import Path
            from sparklet.sql import SparkSession
            from sparklet.testing import MemoryStream

            def temporary():
                return {p.name for p in Path(tempfile.gettempdir()).glob("sparklet-temporary-*")}

            before = temporary()
            spark = SparkSession.builder.getOrCreate()
            ms = MemoryStream(spark, "id INT")
            try:  # complete mode without an aggregation: refused at start
                ms.toDF().writeStream.outputMode("complete").format("memory").queryName("x").start()
            except Exception:
                pass
            assert temporary() == before, "a refused query left a temporary checkpoint"

            def fail(batch, batch_id):
                raise ValueError("boom")

            q = ms.toDF().writeStream.foreachBatch(fail).start()
            ms.addData([(1,)])
            try:
                q.awaitTermination(30)
            except Exception:
                pass
            kept = temporary() - before
            assert len(kept) == 1, kept  # kept for a look while the process runs
            print(kept.pop())
            """
        )
    )
    # a temp folder of its own: other processes' temporary checkpoints come and go in /tmp
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    kept = out.stdout.strip().splitlines()[-1]
    assert not (tmp / kept).exists()  # gone at exit


def test_second_run_on_an_active_checkpoint(spark: SparkSession, tmp_path: Path) -> None:
    df = MemoryStream(spark, "id INT").toDF()
    q1 = df.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
    q2 = df.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
    assert not q1.isActive and q2.isActive and q1.id == q2.id
    spark.conf.set("spark.sql.streaming.stopActiveRunOnRestart", "false")
    try:
        with pytest.raises(Exception, match="as another query with same id is already active"):
            df.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
        assert q2.isActive
    finally:
        spark.conf.unset("spark.sql.streaming.stopActiveRunOnRestart")


def test_file_sink_formats_partitioning_and_orphans(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT, country STRING, name STRING")
    q = (
        ms.toDF()
        .writeStream.format("parquet")
        .partitionBy("country")
        .option("checkpointLocation", str(tmp_path / "c"))
        .start(str(tmp_path / "out"))
    )
    ms.addData([(1, "NL", "ann"), (2, "DE", "bob")])
    q.processAllAvailable()
    ms.addData([(3, "NL", "cy")])
    q.processAllAvailable()
    q.stop()
    assert (tmp_path / "out" / "country=NL").is_dir() and (tmp_path / "out" / "country=DE").is_dir()
    # a file left by a crashed attempt is not in the manifest and is not read
    pq.write_table(
        pq.read_table(committed_files(str(tmp_path / "out"))[0]), tmp_path / "out" / "country=NL" / "orphan.parquet"
    )
    back = spark.read.parquet(str(tmp_path / "out")).orderBy("id").collect()
    assert [(r.id, r.name, r.country) for r in back] == [(1, "ann", "NL"), (2, "bob", "DE"), (3, "cy", "NL")]
    for fmt, reader in [
        ("json", spark.read.schema("id INT, country STRING, name STRING").json),
        ("csv", spark.read.schema("id INT, country STRING, name STRING").csv),
    ]:
        ms2 = MemoryStream(spark, "id INT, country STRING, name STRING")
        q2 = (
            ms2.toDF()
            .writeStream.format(fmt)
            .option("checkpointLocation", str(tmp_path / f"c_{fmt}"))
            .start(str(tmp_path / fmt))
        )
        ms2.addData([(7, "FR", "dee")])
        q2.processAllAvailable()
        q2.stop()
        assert [tuple(r) for r in reader(str(tmp_path / fmt)).collect()] == [(7, "FR", "dee")]


def test_file_sink_manifest_compaction(spark: SparkSession, tmp_path: Path) -> None:
    spark.conf.set("spark.sql.streaming.fileSink.log.compactInterval", 2)
    try:
        ms = MemoryStream(spark, "id INT")
        q = (
            ms.toDF()
            .writeStream.format("parquet")
            .option("checkpointLocation", str(tmp_path / "c"))
            .start(str(tmp_path / "o"))
        )
        for i in range(5):
            ms.addData([(i,)])
            q.processAllAvailable()
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.fileSink.log.compactInterval")
    names = set(os.listdir(tmp_path / "o" / "_spark_metadata"))
    assert {"1.compact", "3.compact", "4"} <= names
    assert sorted(r.id for r in spark.read.parquet(str(tmp_path / "o")).collect()) == [0, 1, 2, 3, 4]
    assert len(committed_files(str(tmp_path / "o"))) == 5


def test_clean_source_delete_and_archive(spark: SparkSession, tmp_path: Path) -> None:
    src, archive = tmp_path / "in", tmp_path / "archive"
    src.mkdir()
    seen: list = []
    write_json(src, "a.json", [{"id": 1}])
    df = spark.readStream.schema("id INT").options(cleanSource="archive", sourceArchiveDir=str(archive)).json(str(src))
    run_available_now(df, tmp_path / "c1", seen)
    # a batch's files are cleaned when the next batch starts: the last one's stay
    assert (src / "a.json").exists()
    write_json(src, "b.json", [{"id": 2}])
    run_available_now(df, tmp_path / "c1", seen)
    assert not (src / "a.json").exists()
    assert (archive / str(src).lstrip("/") / "a.json").exists()
    assert (src / "b.json").exists()
    write_json(src, "c.json", [{"id": 3}])
    deleting = spark.readStream.schema("id INT").option("cleanSource", "delete").json(str(src))
    run_available_now(deleting, tmp_path / "c1", seen)
    assert not (src / "b.json").exists()
    assert not (archive / str(src).lstrip("/") / "b.json").exists()
    assert seen == [(0, [1]), (1, [2]), (2, [3])]


@pytest.mark.sparklet_only(
    reason="checked when the reader is made (Spark: the query fails at start; docs/differences.md)"
)
def test_clean_source_archive_needs_its_folder(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(IllegalArgumentException, match="Archive mode must be used with 'sourceArchiveDir' option"):
        spark.readStream.schema("id INT").option("cleanSource", "archive").json(str(tmp_path))


def test_max_file_age_skips_old_files(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    write_json(src, "new.json", [{"id": 1}])
    seen: list = []
    run_available_now(spark.readStream.schema("id INT").option("maxFileAge", "1h").json(str(src)), tmp_path / "c", seen)
    write_json(src, "old.json", [{"id": 2}])
    os.utime(src / "old.json", (0, 0))
    run_available_now(spark.readStream.schema("id INT").option("maxFileAge", "1h").json(str(src)), tmp_path / "c", seen)
    assert seen == [(0, [1])]


def test_retention_keeps_min_batches(spark: SparkSession, tmp_path: Path) -> None:
    spark.conf.set("spark.sql.streaming.minBatchesToRetain", 3)
    try:
        ms = MemoryStream(spark, "id INT")
        q = ms.toDF().writeStream.format("noop").option("checkpointLocation", str(tmp_path / "c")).start()
        for i in range(12):
            ms.addData([(i,)])
            q.processAllAvailable()
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.minBatchesToRetain")
    # retention runs off the batch path: give it a moment
    deadline = time.time() + 5
    while log_entries(tmp_path / "c", "offsets")[0] < 8 and time.time() < deadline:
        time.sleep(0.01)
    kept = log_entries(tmp_path / "c", "offsets")
    assert kept[0] >= 8 and kept[-1] == 11


@pytest.mark.sparklet_only(reason="the harness kills sparklet's pipeline at its failpoints")
@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_exactly_once_through_20_kills(tmp_path: Path, provider: str) -> None:
    sys.path.insert(0, str(REPO / "stress"))
    from crash_harness import run

    report = run(tmp_path, kills=20, seed=7, provider=provider)
    assert report.kills + report.failpoint_aborts >= 20
    assert report.expected_rows > 0
    assert report.exactly_once, report


def test_file_sink_retention_drops_old_entries_when_compacting(spark: SparkSession, tmp_path: Path) -> None:
    spark.conf.set("spark.sql.streaming.fileSink.log.compactInterval", 2)
    try:
        ms = MemoryStream(spark, "id INT")
        q = (
            ms.toDF()
            .writeStream.format("json")
            .option("retention", "50ms")
            .option("checkpointLocation", str(tmp_path / "c"))
            .start(str(tmp_path / "o"))
        )
        ms.addData([(1,)])
        q.processAllAvailable()
        time.sleep(0.2)
        ms.addData([(2,)])
        q.processAllAvailable()
        q.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.fileSink.log.compactInterval")
    assert [r.id for r in spark.read.schema("id INT").json(str(tmp_path / "o")).collect()] == [2]


def file_sink_query(spark: SparkSession, ms: MemoryStream, tmp_path: Path):  # noqa: ANN201
    return (
        ms.toDF()
        .writeStream.format("json")
        .option("checkpointLocation", str(tmp_path / "c"))
        .start(str(tmp_path / "o"))
    )


@pytest.mark.sparklet_only(reason="sparklet's error condition (Spark fails naming the file too)")
def test_a_deleted_file_sink_manifest_file_is_named_and_nothing_is_written(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "id INT")
    q = file_sink_query(spark, ms, tmp_path)
    for i in range(3):
        ms.addData([(i,)])
        q.processAllAvailable()
    q.stop()
    gone = tmp_path / "o" / "_spark_metadata" / "1"
    gone.unlink()
    with pytest.raises(Exception, match="CHECKPOINT_FILE_CORRUPT") as e:
        spark.read.json(str(tmp_path / "o")).collect()
    assert f"{gone} is missing" in str(e.value)
    data_files = sorted(p.name for p in (tmp_path / "o").glob("part-*"))
    q = file_sink_query(spark, ms, tmp_path)
    ms.addData([(3,)])
    with pytest.raises(StreamingQueryException, match="is missing") as e:
        q.processAllAvailable()
    assert str(gone) in str(e.value)
    assert sorted(p.name for p in (tmp_path / "o").glob("part-*")) == data_files
    assert sorted(os.listdir(tmp_path / "o" / "_spark_metadata")) == ["0", "2"]


@pytest.mark.sparklet_only(reason="sparklet's error condition")
@pytest.mark.parametrize("damage", ["one source log file", "the sources folder"])
def test_a_damaged_source_log_is_named_and_no_file_is_read_twice(
    spark: SparkSession, tmp_path: Path, damage: str
) -> None:
    src, ckpt = tmp_path / "in", tmp_path / "c"
    src.mkdir()
    seen: list = []
    for i in range(3):
        write_json(src, f"{i}.json", [{"id": i}])
        run_available_now(spark.readStream.schema("id INT").json(str(src)), ckpt, seen)
    if damage == "one source log file":
        (ckpt / "sources" / "0" / "1").unlink()
    else:
        import shutil

        shutil.rmtree(ckpt / "sources")
    write_json(src, "3.json", [{"id": 3}])
    offsets = sorted(os.listdir(ckpt / "offsets"))
    with pytest.raises(StreamingQueryException, match="CHECKPOINT_FILE_CORRUPT") as e:
        run_available_now(spark.readStream.schema("id INT").json(str(src)), ckpt, seen)
    missing = "1" if damage == "one source log file" else "2"
    assert f"{ckpt / 'sources' / '0' / missing} is missing" in str(e.value)
    assert sorted(os.listdir(ckpt / "offsets")) == offsets  # nothing written
    assert seen == [(0, [0]), (1, [1]), (2, [2])]


@pytest.mark.sparklet_only(reason="whoever can write the checkpoint must not make the query read any file its user can")
def test_a_source_log_naming_a_file_outside_the_source_path_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    src, ckpt, secret = tmp_path / "in", tmp_path / "c", tmp_path / "secret.json"
    src.mkdir()
    secret.write_text('{"id": 42}\n')
    write_json(src, "0.json", [{"id": 0}])
    seen: list = []
    run_available_now(spark.readStream.schema("id INT").json(str(src)), ckpt, seen)
    # a forged uncommitted batch 1 whose log entry points outside `in/`
    (ckpt / "sources" / "0" / "1").write_text(
        "v1\n" + json.dumps({"path": f"file://{src}/../secret.json", "timestamp": 0, "batchId": 1})
    )
    lines = (ckpt / "offsets" / "0").read_text().splitlines()
    (ckpt / "offsets" / "1").write_text("\n".join([*lines[:2], json.dumps({"logOffset": 1})]))
    with pytest.raises(StreamingQueryException, match="not under the source path"):
        run_available_now(spark.readStream.schema("id INT").json(str(src)), ckpt, seen)
    assert seen == [(0, [0])]


def run_complete(df, ckpt: Path) -> None:  # noqa: ANN001
    q = df.writeStream.format("noop").outputMode("complete").option("checkpointLocation", str(ckpt))
    assert q.trigger(availableNow=True).start().awaitTermination(30)


@pytest.mark.sparklet_only(reason="sparklet's error condition and message")
@pytest.mark.usefixtures("state_provider")
def test_changed_grouping_keys_are_refused_naming_both(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "k INT, s STRING")
    ms.addData([(1, "a")])
    run_complete(ms.toDF().groupBy("k").count(), tmp_path / "c")
    ms.addData([(2, "b")])
    with pytest.raises(StreamingQueryException, match="CHECKPOINT_INCOMPATIBLE") as e:
        run_complete(ms.toDF().groupBy("s").count(), tmp_path / "c")
    assert "k: Int32" in str(e.value) and "s: Utf8" in str(e.value) and "stateStoreSave" in str(e.value)


@pytest.mark.sparklet_only(reason="sparklet's error condition and message")
@pytest.mark.usefixtures("state_provider")
def test_an_added_stateful_operator_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    ms = MemoryStream(spark, "k INT")
    for i in range(2):
        ms.addData([(i,)])
        run_complete(ms.toDF().groupBy("k").count(), tmp_path / "c")
    ms.addData([(5,)])
    with pytest.raises(StreamingQueryException, match="CHECKPOINT_INCOMPATIBLE") as e:
        run_complete(ms.toDF().dropDuplicates(["k"]).groupBy("k").count(), tmp_path / "c")
    assert "operator was added" in str(e.value) or "operator changed" in str(e.value)


@pytest.mark.parametrize("fsync", ["false", "true"])
def test_state_restarts_from_its_checkpoint_with_or_without_fsync(  # PySpark ignores the setting
    spark: SparkSession, tmp_path: Path, fsync: str
) -> None:
    src, ckpt = tmp_path / "in", tmp_path / "ckpt"
    src.mkdir()
    spark.conf.set("spark.sparklet.checkpoint.fsync", fsync)
    try:
        df = spark.readStream.schema("id INT").json(str(src)).dropDuplicates(["id"])
        seen: list = []
        write_json(src, "a.json", [{"id": 1}, {"id": 2}, {"id": 3}])
        run_available_now(df, ckpt, seen)
        write_json(src, "b.json", [{"id": 3}, {"id": 4}])
        run_available_now(df, ckpt, seen)
        # the second run keeps the state the first one wrote: 3 is a duplicate
        assert seen == [(0, [1, 2, 3]), (1, [4])]
        assert any((ckpt / "state").rglob("*.delta"))
    finally:
        spark.conf.unset("spark.sparklet.checkpoint.fsync")
