"""What the docstring examples (``pytest --doctest-modules python/sparklet``)
take as given, as PySpark's do: ``spark``, ``F`` and ``Row``, in a folder
of their own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _docstring_example_globals(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[None]:
    if not isinstance(request.node, pytest.DoctestItem):
        yield
        return
    from sparklet.sql import Row, SparkSession
    from sparklet.sql import functions as F

    # the tables examples make go to a warehouse of the run's own
    warehouse = request.getfixturevalue("tmp_path_factory").getbasetemp() / "doctest-warehouse"
    spark = SparkSession.builder.config("spark.sql.warehouse.dir", str(warehouse)).getOrCreate()
    request.getfixturevalue("doctest_namespace").update(spark=spark, F=F, Row=Row)
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield
    finally:
        for q in spark.streams.active:
            q.stop()
        os.chdir(before)
