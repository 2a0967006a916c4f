"""Shared fixtures: one session for the test run; queries stopped after each test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparklet.sql import SparkSession


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    s = SparkSession.builder.appName("tests").getOrCreate()
    yield s
    s.stop()


PROVIDER = "spark.sql.streaming.stateStore.providerClass"


@pytest.fixture(params=["hdfs", "rocksdb"])
def state_provider(request: pytest.FixtureRequest, spark: SparkSession) -> Iterator[str]:
    """Run a stateful test once on each state store provider."""
    spark.conf.set(PROVIDER, request.param)
    yield request.param
    spark.conf.unset(PROVIDER)


@pytest.fixture(autouse=True)
def _stop_queries(spark: SparkSession) -> Iterator[None]:
    yield
    for q in spark.streams.active:
        q.stop()
    spark.streams.resetTerminated()


def write_json(folder: Path, name: str, rows: list[dict]) -> Path:
    """Write JSON lines atomically (as a well-behaved producer does)."""
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    target = folder / name
    tmp.rename(target)
    return target
