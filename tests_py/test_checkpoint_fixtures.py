"""Checkpoints written by earlier sparklets restart: for every stateful
operator and both state store providers, a fixture checkpoint (its first
batch committed; tests_py/checkpoint_cases.py, written by
tools/checkpoint_fixtures.py) resumes and gives what a query that never
stopped gives: the next batch's rows and the state after it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checkpoint_cases import CASES, FIRST, PROVIDERS, SECOND, run
from sparklet.sql import SparkSession

FIXTURES = Path(__file__).parent / "fixtures" / "checkpoints"
LABELS = sorted(p.name for p in FIXTURES.iterdir())

pytestmark = pytest.mark.sparklet_only(reason="restarts checkpoints earlier sparklets wrote (over MemoryStream)")


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_fixture_checkpoint_resumes_as_an_uninterrupted_query(
    spark: SparkSession, tmp_path: Path, label: str, provider: str, case
) -> None:  # noqa: ANN001
    fixture = FIXTURES / label / f"{case.name}-{provider}"
    shutil.copytree(fixture, tmp_path / "restarted")
    resumed, resumed_state = run(spark, case, provider, str(tmp_path / "restarted"), [FIRST], [SECOND])
    uninterrupted, state = run(spark, case, provider, str(tmp_path / "uninterrupted"), [], [FIRST, SECOND])
    assert resumed == uninterrupted[1:]
    assert resumed_state == state
    assert state, "the case keeps state"
