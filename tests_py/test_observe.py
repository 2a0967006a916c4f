"""df.observe: per-batch metrics in a stream's progress, an Observation on a batch DataFrame."""

from __future__ import annotations

import pytest

from conftest import step
from sparklet.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkAssertionError,
    PySparkTypeError,
    PySparkValueError,
)
from sparklet.sql import Observation, Row, SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream


def test_observed_metrics_are_computed_over_each_batch_s_rows(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    observed = ms.toDF().observe("seen", F.count(F.lit(1)).alias("rows"), F.max("id").alias("max_id"))
    # rows pass through unchanged; the filter after it does not change what it saw
    q = observed.where("id > 1").writeStream.format("memory").queryName("observed_rows").start()
    step(q, ms, [(1, "a"), (2, "b"), (3, "c")])
    assert q.lastProgress["observedMetrics"] == {"seen": Row(rows=3, max_id=3)}
    step(q, ms, [(7, "z")])
    assert q.lastProgress.observedMetrics["seen"].asDict() == {"rows": 1, "max_id": 7}
    assert spark.sql("SELECT count(*) AS n FROM observed_rows").collect()[0]["n"] == 3
    q.stop()


def test_observe_needs_aggregates_a_name_and_a_stream(spark: SparkSession) -> None:
    stream = MemoryStream(spark, "id INT").toDF()
    with pytest.raises(AnalysisException):
        stream.observe("bad", F.col("id"))  # not an aggregate
    with pytest.raises(PySparkValueError) as err:
        stream.observe("empty")
    assert err.value.getCondition() == "CANNOT_BE_EMPTY"
    with pytest.raises(PySparkTypeError, match="NOT_EXPECTED_TYPE"):
        stream.observe(object(), F.count(F.lit(1)))  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentException, match="Observation does not support streaming Datasets"):
        stream.observe(Observation("o"), F.count(F.lit(1)))


def test_an_observation_reads_a_batch_dataframe_s_metrics(spark: SparkSession) -> None:
    batch = spark.createDataFrame([(1,), (2,), (None,)], "id INT")
    obs = Observation("m")
    with pytest.raises(PySparkAssertionError, match="NO_OBSERVE_BEFORE_GET"):
        _ = obs.get
    observed = batch.observe(obs, F.count(F.lit(1)).alias("n"), F.max("id"))
    assert observed.collect() == batch.collect()  # rows unchanged
    assert obs.get == {"n": 3, "max(id)": 2}
    with pytest.raises(PySparkAssertionError, match="REUSE_OBSERVATION"):
        observed.observe(obs, F.sum("id"))
    # a name on a batch DataFrame: Spark hands the values to JVM listeners; the rows are unchanged
    assert batch.observe("named", F.count("id")).count() == 3
    with pytest.raises(AnalysisException) as err:
        batch.observe("bad", F.col("id")).collect()
    assert err.value.getCondition() == "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE"
    empty = Observation()
    assert batch.filter("id > 5").observe(empty, F.sum("id").alias("s"), F.count(F.lit(1)).alias("c")).count() == 0
    assert empty.get == {"s": None, "c": 0}
    with pytest.raises(PySparkValueError, match="VALUE_NOT_NON_EMPTY_STR"):
        Observation("")


def test_two_runs_of_one_observed_dataframe_count_their_own_rows(spark: SparkSession) -> None:
    ms = MemoryStream(spark, "id INT, word STRING")
    observed = ms.toDF().observe("seen", F.count(F.lit(1)).alias("rows"))
    q1 = observed.writeStream.format("noop").start()
    q2 = observed.writeStream.format("noop").start()
    ms.addData([(1, "a"), (2, "b")])
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert q1.lastProgress["observedMetrics"] == {"seen": Row(rows=2)}
    assert q2.lastProgress["observedMetrics"] == {"seen": Row(rows=2)}
    q1.stop()
    q2.stop()
