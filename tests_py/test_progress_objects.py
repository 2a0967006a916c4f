"""Progress and listener events as PySpark 4.3's objects: the classes of
``pyspark.sql.streaming.listener``, attribute and dict access, ``fromJson``,
the ids, empty parts and JSON text PySpark code relies on (these run on both
engines)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from conftest import write_json
from sparklet.sql import Row, SparkSession
from sparklet.sql import functions as F
from sparklet.sql.streaming.listener import (
    QueryIdleEvent,
    QueryProgressEvent,
    QueryStartedEvent,
    QueryTerminatedEvent,
    SinkProgress,
    SourceProgress,
    StateOperatorProgress,
    StreamingQueryProgress,
)


def run_once(spark: SparkSession, df, name: str):  # noqa: ANN001, ANN201
    q = df.writeStream.format("memory").queryName(name).outputMode("append").start()
    q.processAllAvailable()
    q.stop()
    return q


def test_progress_parts_are_pyspark_s_classes_with_attributes(spark: SparkSession, tmp_path: Path) -> None:
    write_json(tmp_path, "a.json", [{"ts": "2024-01-01T00:00:01", "v": 1}, {"ts": "2024-01-01T00:00:02", "v": 1}])
    df = (
        spark.readStream.schema("ts TIMESTAMP, v INT")
        .json(str(tmp_path))
        .withWatermark("ts", "1 second")
        .dropDuplicates(["v"])
        .observe("seen", F.count(F.lit(1)).alias("rows"))
    )
    q = run_once(spark, df, "progress_parts")
    p = next(p for p in q.recentProgress if p.numInputRows)
    assert isinstance(p, StreamingQueryProgress) and isinstance(p, dict)
    assert p.id == uuid.UUID(q.id) and p["id"] == q.id and p["runId"] == q.runId
    (source,) = p.sources
    assert isinstance(source, SourceProgress) and source.numInputRows == 2 == source["numInputRows"]
    assert source.description.startswith("FileStreamSource[")
    assert json.loads(source.endOffset) == {"logOffset": 0}  # offsets are JSON text
    assert isinstance(p.sink, SinkProgress) and p.sink.numOutputRows == 1 and p.sink.metrics == {}
    (op,) = p.stateOperators
    assert isinstance(op, StateOperatorProgress) and op.operatorName == "dedupe" and op.numRowsTotal == 1
    assert set(p.eventTime) == {"avg", "max", "min", "watermark"}
    assert p.observedMetrics == {"seen": Row(rows=1)}  # observed after the dedup
    assert set(p.durationMs) >= {"addBatch", "triggerExecution"}
    again = StreamingQueryProgress.fromJson(json.loads(p.json))
    assert again == p and again.sources[0].endOffset == source.endOffset


def test_a_query_without_event_time_has_an_empty_event_time(spark: SparkSession, tmp_path: Path) -> None:
    write_json(tmp_path, "a.json", [{"v": 1}])
    q = run_once(spark, spark.readStream.schema("v INT").json(str(tmp_path)), "no_event_time")
    assert q.lastProgress.eventTime == {} and q.lastProgress["eventTime"] == {}
    assert q.lastProgress.observedMetrics == {} and q.lastProgress.stateOperators == []


def test_events_are_built_from_their_json() -> None:
    ids = {"id": str(uuid.uuid4()), "runId": str(uuid.uuid4())}
    started = QueryStartedEvent.fromJson({**ids, "name": "q", "timestamp": "2024-01-01T00:00:00.000Z"})
    assert started.id == uuid.UUID(ids["id"]) and started.name == "q" and started.jobTags == set()
    idle = QueryIdleEvent.fromJson({**ids, "timestamp": "2024-01-01T00:00:00.000Z"})
    assert idle.runId == uuid.UUID(ids["runId"])
    ended = QueryTerminatedEvent.fromJson({**ids, "exception": None, "errorClassOnException": None})
    assert ended.exception is None
    progress = {
        **ids,
        "name": None,
        "timestamp": "2024-01-01T00:00:00.000Z",
        "batchId": 3,
        "batchDuration": 5,
        "numInputRows": 0,
        "inputRowsPerSecond": 0.0,
        "processedRowsPerSecond": 0.0,
        "stateOperators": [],
        "sources": [],
        "sink": {"description": "MemorySink", "numOutputRows": 0},
    }
    event = QueryProgressEvent.fromJson({"progress": progress})
    assert event.progress.batchId == 3 and event.progress.eventTime == {} and event.progress.durationMs == {}


def test_spark_streams_is_one_manager(spark: SparkSession) -> None:
    assert spark.streams is spark.streams
