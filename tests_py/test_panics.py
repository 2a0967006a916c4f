"""No Rust panic reaches Python: a panic in a batch's planning or in its
execution (on another of the engine's threads) fails that query with a
``StreamingQueryException`` naming it, and the process goes on: the next
query runs (sparklet-only: the panics are injected by failpoints)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.sparklet_only(reason="the panics are injected by sparklet's failpoints")

CHILD = textwrap.dedent(
    """
    import json, sys
    from sparklet.errors import StreamingQueryException
    from sparklet.sql import SparkSession
    from sparklet.testing import MemoryStream
    spark = SparkSession.builder.getOrCreate()
    ms = MemoryStream(spark, "k INT")
    q = (ms.toDF().groupBy("k").count().writeStream.queryName("doomed").outputMode("complete")
         .format("memory").start())
    ms.addData([(1,)])
    q.processAllAvailable()            # batch 0
    ms.addData([(2,)])
    result = {}
    try:
        q.processAllAvailable()        # batch 1 panics
    except StreamingQueryException as e:
        result["error"] = str(e)
        result["type"] = type(e).__name__
    result["active"] = q.isActive
    # the process goes on: a new query runs its batch 0 and its batch 1
    ms2 = MemoryStream(spark, "k INT")
    q2 = ms2.toDF().writeStream.queryName("after").format("memory").start()
    ms2.addData([(7,)])
    q2.processAllAvailable()
    result["after"] = [r.k for r in spark.table("after").collect()]
    q2.stop()
    print(json.dumps(result))
    """
)


@pytest.mark.parametrize("where", ["panic-in-planning", "panic-in-execution"])
def test_a_panic_fails_its_query_with_an_exception_and_the_process_goes_on(where: str) -> None:
    env = {**os.environ, "SPARKLET_FAILPOINT": f"{where}@1"}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["type"] == "StreamingQueryException"
    assert "panicked" in result["error"] and f"failpoint {where} reached at batch 1" in result["error"]
    assert "Query [id = " in result["error"]  # it names the query
    assert result["active"] is False
    assert result["after"] == [7]


BATCH_CHILD = textwrap.dedent(
    """
    import json
    from sparklet.errors import PySparkException
    from sparklet.sql import SparkSession
    from sparklet.testing import MemoryStream
    spark = SparkSession.builder.getOrCreate()
    result = {}
    try:
        spark.range(3).collect()       # panics in the engine
    except PySparkException as e:
        result["error"] = str(e)
        result["type"] = type(e).__name__
        result["condition"] = e.getCondition()
    # the process goes on: a query runs
    got = []
    ms = MemoryStream(spark, "k INT")
    q = ms.toDF().writeStream.foreachBatch(lambda t, i: got.extend(t.column("k").to_pylist())).start()
    ms.addData([(7,)])
    q.processAllAvailable()
    q.stop()
    result["after"] = got
    print(json.dumps(result))
    """
)


def test_a_panic_in_a_batch_action_is_a_sparklet_exception_and_the_process_goes_on() -> None:
    env = {**os.environ, "SPARKLET_FAILPOINT": "panic-in-batch-query"}
    out = subprocess.run([sys.executable, "-c", BATCH_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # not pyo3's PanicException (a BaseException that `except Exception` misses)
    assert result["type"] == "SparkRuntimeException" and result["condition"] == "INTERNAL_ERROR"
    assert "failpoint panic-in-batch-query reached" in result["error"]
    assert result["after"] == [7]
