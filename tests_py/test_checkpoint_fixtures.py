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
#: (label, case, provider) of every fixture there: a label holds the cases
#: that existed when it was written
KEPT = [
    (label.name, case, provider)
    for label in sorted(FIXTURES.iterdir())
    for case in CASES
    for provider in PROVIDERS
    if (label / f"{case.name}-{provider}").is_dir()
]

pytestmark = pytest.mark.sparklet_only(reason="restarts checkpoints earlier sparklets wrote (over MemoryStream)")


@pytest.mark.parametrize(
    ("label", "case", "provider"), KEPT, ids=[f"{label}-{case.name}-{provider}" for label, case, provider in KEPT]
)
def test_a_fixture_checkpoint_resumes_as_an_uninterrupted_query(
    spark: SparkSession, tmp_path: Path, label: str, provider: str, case
) -> None:  # noqa: ANN001
    fixture = FIXTURES / label / f"{case.name}-{provider}"
    shutil.copytree(fixture, tmp_path / "restarted")
    resumed, resumed_state = run(spark, case, provider, str(tmp_path / "restarted"), [FIRST], [SECOND])
    uninterrupted, state = run(spark, case, provider, str(tmp_path / "uninterrupted"), [], [FIRST, SECOND])
    assert resumed == uninterrupted[1:]
    assert state, "the case keeps state"
    if label in case.earlier_layouts:
        # it resumed in the layout it was written in: a sliding window's
        # windows (a fresh query keeps its panes)
        assert resumed_state and all("window=" in row and "pane_start=" not in row for row in resumed_state)
        assert all("pane_start=" in row for row in state)
    else:
        assert resumed_state == state


def test_every_case_has_a_fixture() -> None:
    assert {case.name for _, case, _ in KEPT} == {case.name for case in CASES}
