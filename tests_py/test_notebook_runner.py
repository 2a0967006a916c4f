"""The notebook runner CI uses (tools/run_notebooks.py): every notebook
runs even after one fails, each is reported, and a failure names the cell
and the error and fails the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.sparklet_only(reason="tests the repository's notebook runner; no engine involved")

RUNNER = Path(__file__).resolve().parent.parent / "tools" / "run_notebooks.py"


def write(path: Path, *cells: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)


def test_every_notebook_runs_and_each_is_reported(tmp_path: Path) -> None:
    write(tmp_path / "a_fails.ipynb", "x = 1", "y = {}['missing']")
    write(tmp_path / "b_runs.ipynb", "open('ran', 'w').write('yes')")
    done = subprocess.run([sys.executable, str(RUNNER), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "FAILED  " in done.stdout and "a_fails.ipynb" in done.stdout
    assert "in the cell starting \"y = {}['missing']\": KeyError: 'missing'" in done.stdout
    assert "ok      " in done.stdout and "b_runs.ipynb" in done.stdout
    assert (tmp_path / "ran").read_text() == "yes"  # the notebook after the failed one ran
    assert "1 of 2 notebooks ran; failed: a_fails.ipynb" in done.stdout


def test_a_folder_that_runs_passes(tmp_path: Path) -> None:
    write(tmp_path / "fine.ipynb", "1 + 1")
    done = subprocess.run([sys.executable, str(RUNNER), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout
    assert "1 of 1 notebooks ran" in done.stdout
