"""Errors users hit, raised as PySpark raises them."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from conftest import dicts
from sparklet.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkException,
    PySparkValueError,
    StreamingQueryException,
)
from sparklet.sql import SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream


def test_foreach_batch_exception_fails_the_query_with_traceback(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")

    def explode_on_two(batch, batch_id):  # noqa: ANN001
        if any(r["id"] == 2 for r in dicts(batch)):
            raise ValueError("bad row 2")

    q = ms.toDF().writeStream.foreachBatch(explode_on_two).start()
    ms.addData([(1,)])
    q.processAllAvailable()
    ms.addData([(2,)])
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(20)
    msg = str(e.value)
    assert "ValueError: bad row 2" in msg and "explode_on_two" in msg  # the Python traceback
    assert e.value.getCondition() == "STREAM_FAILED" and q.id in msg
    assert not q.isActive
    exc = q.exception()
    assert isinstance(exc, StreamingQueryException) and "bad row 2" in str(exc)
    assert isinstance(exc, PySparkException)
    with pytest.raises(StreamingQueryException):
        q.processAllAvailable()


@pytest.mark.sparklet_only(reason="sparklet chains the user's exception as the cause (PySpark's cause is None)")
def test_a_foreach_batch_exception_is_the_cause(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")

    def fail(batch, batch_id):  # noqa: ANN001
        raise KeyError("no such thing")

    q = ms.toDF().writeStream.foreachBatch(fail).start()
    ms.addData([(1,)])
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(20)
    assert isinstance(e.value.__cause__, KeyError) and e.value.__cause__.args == ("no such thing",)


def test_unknown_column_in_a_stream_is_reported_when_built(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    with pytest.raises(AnalysisException, match="`wrd`.*`word`"):
        ms.toDF().select("wrd")
    with pytest.raises(AnalysisException):
        ms.toDF().where("no_such > 1")


def test_bad_expressions_are_analysis_errors(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    with pytest.raises(AnalysisException):
        ms.toDF().select(F.expr("word +* 1"))
    with pytest.raises(AnalysisException, match="no_such_fn"):
        ms.toDF().select(F.expr("no_such_fn(word)"))


def test_streaming_dataframe_cannot_be_collected(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT")
    with pytest.raises(AnalysisException, match=r"writeStream\.start\(\)"):
        ms.toDF().collect()
    with pytest.raises(AnalysisException, match="WRITE_STREAM_NOT_ALLOWED"):
        spark.range(3).writeStream.format("noop").start()


def test_sink_and_writer_validation(spark: SparkSession) -> None:
    df = MemoryStream(spark, "id INT").toDF()
    with pytest.raises(AnalysisException, match="queryName must be specified for memory sink"):
        df.writeStream.format("memory").start()
    # PySpark raises the JVM's SparkClassNotFoundException as a Py4JJavaError
    with pytest.raises(Exception, match="DATA_SOURCE_NOT_FOUND.*nosuchsink"):
        df.writeStream.format("nosuchsink").start()
    with pytest.raises(
        AnalysisException,
        match="Invalid streaming output mode: complete. This output mode is not supported for no streaming aggregations",
    ):
        df.writeStream.format("noop").outputMode("complete").start()
    with pytest.raises(IllegalArgumentException) as err:
        df.writeStream.format("noop").outputMode("sometimes")
    assert err.value.getCondition() == "STREAMING_OUTPUT_MODE.INVALID"
    assert "Invalid streaming output mode: sometimes." in str(err.value)
    with pytest.raises(PySparkValueError, match="ONLY_ALLOW_SINGLE_TRIGGER"):
        df.writeStream.trigger(once=True, availableNow=True)
    with pytest.raises(PySparkValueError, match="VALUE_NOT_ALLOWED"):
        df.writeStream.trigger(once=False)
    for text, condition, detail in [
        ("every now and then", "UNRECOGNIZED_NUMBER", "Unrecognized number every."),
        ("10s", "INVALID_VALUE", "Invalid value 10s."),
        ("10 sec", "INVALID_UNIT", "Invalid unit sec."),
        ("10", "MISSING_UNIT", "Expect a unit name after 10 but hit EOL."),
        ("1.5 minutes", "INVALID_FRACTION", "minutes cannot have fractional part."),
    ]:
        with pytest.raises(IllegalArgumentException) as err:
            df.writeStream.trigger(processingTime=text)
        assert err.value.getCondition() == f"INVALID_INTERVAL_FORMAT.{condition}"
        assert f"Error parsing '{text}' to interval." in str(err.value) and detail in str(err.value)
    with pytest.raises(IllegalArgumentException, match="Doesn't support month or year interval: 1 month"):
        df.writeStream.trigger(processingTime="1 month")
    with pytest.raises(IllegalArgumentException, match="the interval of trigger should not be negative"):
        df.writeStream.trigger(processingTime="-1 second")
    with pytest.raises(PySparkValueError, match="must be a non-empty string, got '  '"):
        df.writeStream.trigger(processingTime="  ")


def test_duplicate_active_query_name(spark: SparkSession) -> None:
    df = MemoryStream(spark, "id INT").toDF()
    df.writeStream.format("noop").queryName("dup").start()
    with pytest.raises(IllegalArgumentException, match="already active"):
        df.writeStream.format("noop").queryName("dup").start()


def test_unknown_stream_format(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="DATA_SOURCE_NOT_FOUND.*carrier-pigeon"):  # a Py4JJavaError in PySpark
        spark.readStream.format("carrier-pigeon").load()


@pytest.mark.sparklet_only(
    reason="PySpark's pip package has no Kafka connector (spark-sql-kafka comes from Maven, out of reach here)"
)
def test_kafka_without_servers(spark: SparkSession) -> None:
    with pytest.raises(IllegalArgumentException, match="kafka.bootstrap.servers"):
        spark.readStream.format("kafka").load()


def test_await_termination_is_interrupted_by_ctrl_c(spark: SparkSession) -> None:
    q = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        q.awaitTermination()
    timer.join()
    assert q.isActive  # interrupting the wait does not stop the query
    q.stop()


def test_bad_timeout(spark: SparkSession) -> None:
    q = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
    with pytest.raises(PySparkValueError, match="timeout"):
        q.awaitTermination(-1)


@pytest.mark.sparklet_only(reason="checks sparklet's own export list")
def test_sparklet_errors_exports_every_exception_class_once() -> None:
    import inspect

    import sparklet.errors
    from sparklet.errors import exceptions

    defined = {
        name
        for name, value in vars(exceptions).items()
        if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == exceptions.__name__
    }
    assert sorted(sparklet.errors.__all__) == sorted(defined)
