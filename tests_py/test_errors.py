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
    # Python's own Ctrl-C handler, also where the run inherited SIGINT
    # ignored (a shell's background job), which Python then leaves ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        q = MemoryStream(spark, "id INT").toDF().writeStream.format("noop").start()
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            q.awaitTermination()
        timer.join()
        assert q.isActive  # interrupting the wait does not stop the query
        q.stop()
    finally:
        signal.signal(signal.SIGINT, previous)


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


@pytest.mark.parametrize(
    ("make_error", "cls", "condition", "sql_state"),
    [
        (lambda s: s.range(1).select("nope"), "AnalysisException", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703"),
        (lambda s: s.sql("SELECT * FROM no_such_table_e1"), "AnalysisException", "TABLE_OR_VIEW_NOT_FOUND", "42P01"),
        (lambda s: s.sql("SELEC 1"), "ParseException", "PARSE_SYNTAX_ERROR", "42601"),
        (lambda s: s.sql("SELECT 1 / 0").collect(), "ArithmeticException", "DIVIDE_BY_ZERO", "22012"),
        (lambda s: s.sql("SELECT CAST('x' AS INT)").collect(), "NumberFormatException", "CAST_INVALID_INPUT", "22018"),
        (lambda s: s.conf.get("spark.sql.no.such.key"), "SparkNoSuchElementException", "SQL_CONF_NOT_FOUND", "42K0I"),
        (lambda s: s.range(1).withColumn("b", 1), "PySparkTypeError", "NOT_EXPECTED_TYPE", "42K09"),
        (lambda s: s.range(1).dropna(how="some"), "PySparkValueError", "VALUE_NOT_ALLOWED", None),
        (lambda s: s.range(3).sample(fraction=-1.0), "IllegalArgumentException", None, None),
    ],
)
def test_errors_carry_sparks_condition_and_sqlstate(spark: SparkSession, make_error, cls, condition, sql_state) -> None:  # noqa: ANN001
    """getCondition() and getSqlState() are what PySpark answers, on the class PySpark raises."""
    with pytest.raises(PySparkException) as e:
        make_error(spark)
    assert type(e.value).__name__ == cls
    assert (e.value.getCondition(), e.value.getSqlState()) == (condition, sql_state)


def test_a_python_side_error_reads_with_its_condition(spark: SparkSession) -> None:
    with pytest.raises(PySparkException) as e:
        spark.range(1).withColumn("b", 1)
    assert str(e.value) == "[NOT_EXPECTED_TYPE] Argument `col` should be Column, got int."
    assert e.value.getMessageParameters() == {"arg_name": "col", "expected_type": "Column", "arg_type": "int"}


def test_an_unknown_column_proposes_the_closest_names_once(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2, 3, 4, 5, 6, 7)], ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"])
    with pytest.raises(AnalysisException) as e:
        df.select("alpah")
    proposal = str(e.value).split("[", 2)[2].split("]")[0]
    names = proposal.split(", ")
    # the closest first, five at most, none twice (the order among equals is the JVM's hash order)
    assert names[0] == "`alpha`" and len(names) == 5 and len(set(names)) == 5
    with pytest.raises(AnalysisException, match=r"Did you mean one of the following\? \[`id`\]"):
        spark.range(1).select("nope")


def test_element_at_raises_past_the_end_and_try_element_at_is_null(spark: SparkSession) -> None:
    row = spark.sql(
        "SELECT try_element_at(array(1, 2), 5) AS a, try_element_at(array(1, 2), -5) AS b, "
        "element_at(array(1, 2), -1) AS c, element_at(map(1, 'x'), 2) AS d"
    ).first()
    assert row.asDict() == {"a": None, "b": None, "c": 2, "d": None}
    for index, condition in [(5, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"), (-3, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT")]:
        with pytest.raises(PySparkException) as e:
            spark.sql(f"SELECT element_at(array(1, 2), {index})").collect()
        assert type(e.value).__name__ == "ArrayIndexOutOfBoundsException"
        assert e.value.getCondition() == condition
    for fn in ("element_at", "try_element_at"):
        with pytest.raises(PySparkException) as e:
            spark.sql(f"SELECT {fn}(array(1, 2), 0)").collect()
        assert e.value.getCondition() == "INVALID_INDEX_OF_ZERO"
    df = spark.createDataFrame([([10, 20],)], ["a"])
    with pytest.raises(PySparkException, match="INVALID_ARRAY_INDEX_IN_ELEMENT_AT"):
        df.select(F.element_at("a", 3)).collect()


def test_sql_subscripts_count_from_zero(spark: SparkSession) -> None:
    df = spark.sql("SELECT array(10, 20)[0], array(10, 20)[1], map('k', 1)['k']")
    assert df.columns == ["array(10, 20)[0]", "array(10, 20)[1]", "map(k, 1)[k]"]
    assert list(df.first()) == [10, 20, 1]
    a = spark.createDataFrame([([10, 20],)], ["a"])
    assert list(a.selectExpr("a[0]", "a[1]").first()) == [10, 20]
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT array(1, 2)[5]").collect()
    assert e.value.getCondition() == "INVALID_ARRAY_INDEX"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("2024, 13, 1", "Invalid value for MonthOfYear (valid values 1 - 12): 13."),
        ("2024, 1, 32", "Invalid value for DayOfMonth (valid values 1 - 28/31): 32."),
        ("2024, 4, 31", "Invalid date 'APRIL 31'."),
        ("2023, 2, 29", "Invalid date 'February 29' as '2023' is not a leap year"),
    ],
)
def test_make_date_refuses_a_date_that_does_not_exist(spark: SparkSession, args: str, message: str) -> None:
    with pytest.raises(PySparkException) as e:
        spark.sql(f"SELECT make_date({args})").collect()
    assert type(e.value).__name__ == "DateTimeException"
    assert e.value.getCondition() == "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION"
    assert message in str(e.value)
    assert spark.sql("SELECT make_date(2024, 2, 29) AS d").first().d.isoformat() == "2024-02-29"


@pytest.mark.sparklet_only(reason="checks sparklet's generated table against the installed PySpark's own")
def test_the_sqlstate_table_is_pysparks() -> None:
    import subprocess
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parents[1] / "tools" / "sql_states.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
