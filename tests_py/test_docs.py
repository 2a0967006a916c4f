"""The docs stay true to the code: the API reference is the docstrings', and
nothing public lacks a docstring."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import api_reference  # noqa: E402

pytestmark = pytest.mark.sparklet_only(reason="sparklet's own docstrings and docs")


def test_the_api_reference_is_generated_from_the_current_docstrings() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "api_reference.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_every_public_name_has_a_docstring() -> None:
    missing = []
    for module_name in api_reference.MODULES:
        module = importlib.import_module(module_name)
        for name in api_reference.public_names(module):
            value = getattr(module, name)
            if inspect.ismodule(value):
                continue
            if not api_reference.doc(value):
                missing.append(f"{module_name}.{name}")
            if inspect.isclass(value):
                for member, obj in api_reference.members(value):
                    if member != "__init__" and not api_reference.doc(obj):
                        missing.append(f"{module_name}.{name}.{member}")
    assert missing == []


def test_every_module_the_architecture_names_exists() -> None:
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    roots = [ROOT, ROOT / "rust" / "engine" / "src", ROOT / "python" / "sparklet"]
    named = set(re.findall(r"`([\w./-]+\.(?:rs|py))`", text))
    # folders of two levels or more (one level names checkpoint folders too)
    named |= set(re.findall(r"`([\w.-]+/[\w.-]+/(?:[\w.-]+/)*)`", text))
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    everywhere = {Path(p).name for p in tracked}
    missing = [
        path
        for path in sorted(named)
        if not any((r / path).exists() for r in roots)
        and not ("/" not in path.rstrip("/") and path.rstrip("/") in everywhere)
    ]
    assert missing == []


# the API documented in full so far: each public member has an Examples
# section (run as a doctest by `make py-test`), Parameters when it takes
# any and Returns when it gives something back; a module stands for every
# name in its __all__
FULLY_DOCUMENTED = [
    "sparklet.sql.streaming",
    "sparklet.testing",
    "sparklet.sql.SparkSession",
    "sparklet.sql.SparkSession.Builder",
    "sparklet.sql.session.RuntimeConfig",
    "sparklet.sql.DataFrame",
    "sparklet.sql.Column",
    "sparklet.sql.GroupedData",
    "sparklet.sql.DataFrameReader",
    "sparklet.sql.readwriter.DataFrameWriter",
    "sparklet.sql.Row",
    "sparklet.sql.Observation",
    "sparklet.sql.Window",
    "sparklet.sql.WindowSpec",
    "sparklet.sql.functions",
    "sparklet.sql.readwriter.DataFrameWriterV2",
    "sparklet.sql.catalog.Catalog",
    "sparklet.sql.types",
    "sparklet.sql",
    "sparklet.sql._dataframe_na.DataFrameNaFunctions",
    "sparklet.sql._dataframe_stat.DataFrameStatFunctions",
    "sparklet.sql.udf.UDFRegistration",
    "sparklet.sql.tvf",
    "sparklet.sql.datasource",
    "sparklet.errors",
]


def _missing_sections(qualified: str, obj: object) -> list[str]:
    """The sections ``obj``'s docstring lacks (``qualified`` names it)."""
    func = obj.fget if isinstance(obj, property) else obj
    text = inspect.getdoc(func) or ""
    wanted = ["Examples\n--------\n>>> "]
    if isinstance(obj, property):
        wanted.append("Returns\n-------\n")
    elif callable(func) and not inspect.isclass(func):
        signature = inspect.signature(func)
        if [p for p in signature.parameters if p not in ("self", "cls")]:
            wanted.append("Parameters\n----------\n")
        if signature.return_annotation not in (None, "None", inspect.Signature.empty):
            wanted.append("Returns\n-------\n")
    return [f"{qualified}: {w.split(chr(10))[0]}" for w in wanted if w not in text]


def _documented(qualified: str) -> list[tuple[str, object]]:
    """Each documented object of ``qualified`` (a class, or a module's
    public names) with its members, by qualified name."""
    parts = qualified.split(".")
    # the longest importable prefix is the module; the rest are attributes
    at = len(parts)
    while True:
        try:
            obj: object = importlib.import_module(".".join(parts[:at]))
            break
        except ImportError:
            at -= 1
    for name in parts[at:]:
        obj = getattr(obj, name)
    if inspect.ismodule(obj):
        targets = [(f"{qualified}.{n}", getattr(obj, n)) for n in obj.__all__]
    else:
        targets = [(qualified, obj)]
    out: list[tuple[str, object]] = []
    for name, obj in targets:
        out.append((name, obj))
        if inspect.isclass(obj):
            out += [(f"{name}.{m}", v) for m, v in api_reference.members(obj) if m != "__init__"]
    return out


@pytest.mark.parametrize("qualified", FULLY_DOCUMENTED)
def test_the_api_documents_parameters_returns_and_examples(qualified: str) -> None:
    missing = [m for name, obj in _documented(qualified) for m in _missing_sections(name, obj)]
    assert missing == []


@pytest.mark.sparklet_only(reason="runs sparklet's docstring examples on PySpark itself")
@pytest.mark.timeout(1200)
def test_the_docstring_examples_give_pysparks_answers() -> None:
    """PySpark is the oracle: each example of the fully documented API
    (tools/doctests_on_pyspark.py) prints on PySpark what it prints here."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "doctests_on_pyspark.py")], capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stdout[-6000:]
    assert " 0 do not" in done.stdout
