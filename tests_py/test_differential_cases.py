"""Pipelines on which tools/differential.py found sparklet and PySpark
disagreeing, each shrunk to a small case and kept here with PySpark's
outcome (schema, each non-empty micro-batch's rows, or the error's
condition) as the expectation. Runs on both engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import conf_set
from sparklet.sql import functions as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import differential_pipelines as dp  # noqa: E402

CASES = sorted((Path(__file__).parent / "differential_cases").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_gives_pysparks_outcome(spark, tmp_path, path):
    case = json.loads(path.read_text())
    pipeline = dp.Pipeline(case["files"], case["program"], case["mode"], case["first_run"])
    with conf_set(spark, "spark.sql.session.timeZone", "UTC"):
        got = dp.run(spark, F, pipeline, tmp_path)
    assert json.loads(json.dumps(got)) == case["expected"], pipeline.source()
