"""sparklet's pytest plugin (registered by the package's ``pytest11`` entry
point): a session-wide ``spark`` fixture, and every streaming query a test
leaves running stopped after it, so one test's query never feeds the next.
A project's own ``spark`` fixture (in its conftest) takes precedence."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """A local sparklet session for the test run (stopped at the end)."""
    from sparklet.sql import SparkSession

    session = SparkSession.builder.appName("pytest").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _sparklet_stop_queries() -> Iterator[None]:
    """Stop the queries a test left running (of the active session, if any)."""
    yield
    from sparklet.sql import SparkSession

    active = SparkSession._active
    if active is None:
        return
    for q in active.streams.active:
        q.stop()
    active.streams.resetTerminated()
