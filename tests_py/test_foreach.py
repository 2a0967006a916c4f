"""writeStream.foreach: a function per row, or an open/process/close
writer called in Spark's order, with Spark's error behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import step, write_json
from sparklet.errors import PySparkAttributeError, StreamingQueryException
from sparklet.sql import SparkSession
from sparklet.testing import MemoryStream


@pytest.mark.sparklet_only(
    reason="foreach runs in sparklet's process, where the test sees its calls; PySpark runs it in worker processes"
)
def test_a_function_gets_each_row(spark: SparkSession) -> None:
    seen: list[tuple] = []
    ms = MemoryStream(spark, "id INT, name STRING")
    q = ms.toDF().where("id > 1").writeStream.foreach(lambda row: seen.append((row.id, row["name"]))).start()
    step(q, ms, [(1, "a"), (2, "b")])
    step(q, ms, [(3, "c")])
    assert seen == [(2, "b"), (3, "c")]


class Recorder:
    def __init__(self, calls: list, refuse_epochs: tuple[int, ...] = (), fail_on: int | None = None) -> None:
        self.calls, self.refuse, self.fail_on = calls, refuse_epochs, fail_on

    def open(self, partition_id: int, epoch_id: int) -> bool:
        self.calls.append(("open", partition_id, epoch_id))
        return epoch_id not in self.refuse

    def process(self, row) -> None:  # noqa: ANN001
        if row.id == self.fail_on:
            raise ValueError(f"bad row {row.id}")
        self.calls.append(("process", row.id))

    def close(self, error) -> None:  # noqa: ANN001
        self.calls.append(("close", None if error is None else str(error)))


@pytest.mark.sparklet_only(
    reason="foreach runs in sparklet's process, where the test sees its calls; PySpark runs it in worker processes"
)
def test_a_writer_is_opened_per_epoch_and_closed_after_its_rows(spark: SparkSession) -> None:
    calls: list = []
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.foreach(Recorder(calls, refuse_epochs=(1,))).start()
    step(q, ms, [(1,), (2,)])
    step(q, ms, [(3,)])  # epoch 1: open says no, so no row is processed
    step(q, ms, [(4,)])
    assert calls == [
        ("open", 0, 0),
        ("process", 1),
        ("process", 2),
        ("close", None),
        ("open", 0, 1),
        ("close", None),
        ("open", 0, 2),
        ("process", 4),
        ("close", None),
    ]


@pytest.mark.sparklet_only(
    reason="foreach runs in sparklet's process, where the test sees its calls; PySpark runs it in worker processes"
)
def test_a_failing_process_closes_with_the_error_and_stops_the_query(spark: SparkSession) -> None:
    calls: list = []
    ms = MemoryStream(spark, "id INT")
    q = ms.toDF().writeStream.foreach(Recorder(calls, fail_on=2)).start()
    ms.addData([(1,), (2,), (3,)])
    with pytest.raises(StreamingQueryException, match="bad row 2"):
        q.processAllAvailable()
    assert calls == [("open", 0, 0), ("process", 1), ("close", "bad row 2")]
    assert not q.isActive


@pytest.mark.sparklet_only(
    reason="foreach runs in sparklet's process, where the test sees its calls; PySpark runs it in worker processes"
)
def test_epochs_repeat_after_a_restart_at_least_once(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    write_json(tmp_path / "in", "a.json", [{"id": 1}])
    calls: list = []

    def run() -> None:
        q = (
            spark.readStream.schema("id INT")
            .json(str(tmp_path / "in"))
            .writeStream.foreach(Recorder(calls))
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .trigger(availableNow=True)
            .start()
        )
        q.awaitTermination()

    run()
    write_json(tmp_path / "in", "b.json", [{"id": 2}])
    run()
    # each epoch once, with its own id: the second run resumes at epoch 1
    assert [c for c in calls if c[0] == "open"] == [("open", 0, 0), ("open", 0, 1)]
    assert [c for c in calls if c[0] == "process"] == [("process", 1), ("process", 2)]


def test_an_object_without_process_is_refused(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    with pytest.raises(PySparkAttributeError, match="ATTRIBUTE_NOT_CALLABLE") as e:
        ms.toDF().writeStream.foreach(object())
    assert e.value.getMessageParameters() == {"attr_name": "process", "obj_name": "f"}


@pytest.mark.parametrize("wait", ["awaitTermination", "processAllAvailable"])
def test_a_query_whose_batch_function_failed_is_not_active_once_the_wait_raises(
    spark: SparkSession, tmp_path: Path, wait: str
) -> None:
    write_json(tmp_path, "a.json", [{"v": 1}])
    df = spark.readStream.schema("v INT").json(str(tmp_path))

    def fail(batch, batch_id: int) -> None:  # noqa: ANN001
        raise ValueError("boom")

    for _ in range(10):  # the query thread's last steps once raced the wait
        q = df.writeStream.foreachBatch(fail).start()
        with pytest.raises(StreamingQueryException, match="boom"):
            getattr(q, wait)()
        assert not q.isActive
        assert [a.id for a in spark.streams.active] == []
        spark.streams.resetTerminated()


def test_a_failed_batch_function_is_spark_s_foreach_batch_error(spark: SparkSession, tmp_path: Path) -> None:
    write_json(tmp_path, "a.json", [{"v": 1}])

    def fail(batch, batch_id: int) -> None:  # noqa: ANN001
        raise ValueError("boom")

    q = spark.readStream.schema("v INT").json(str(tmp_path)).writeStream.foreachBatch(fail).start()
    with pytest.raises(StreamingQueryException) as raised:
        q.awaitTermination()
    e = raised.value
    assert e.getCondition() == "STREAM_FAILED" and e.getSqlState() == "XXKST"
    params = e.getMessageParameters()
    assert params["id"] == q.id and params["runId"] == q.runId
    assert params["message"].startswith("[FOREACH_BATCH_USER_FUNCTION_ERROR] ")
    assert "ValueError: boom" in params["message"] and "FOREACH_BATCH_USER_FUNCTION_ERROR" in str(e)
    assert e.getQueryContext() == []


def test_a_foreach_batch_function_that_is_not_callable_fails_the_first_batch(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Spark takes any object and fails when the first batch calls it
    write_json(tmp_path, "a.json", [{"v": 1}])
    q = spark.readStream.schema("v INT").json(str(tmp_path)).writeStream.foreachBatch("print").start()
    with pytest.raises(StreamingQueryException) as raised:
        q.awaitTermination()
    message = raised.value.getMessageParameters()["message"]
    assert message.startswith("[FOREACH_BATCH_USER_FUNCTION_ERROR] ")
    assert "TypeError: 'str' object is not callable" in message


def test_a_writer_whose_process_is_not_callable_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    class Writer:
        process = 5

    df = spark.readStream.schema("v INT").json(str(tmp_path))
    with pytest.raises(
        PySparkAttributeError, match=r"\[ATTRIBUTE_NOT_CALLABLE\] Attribute `process` in provided object `f`"
    ):
        df.writeStream.foreach(Writer()).start()
