"""The binding layer's contract: ``_native.pyi`` states every native name
with the runtime's signature (mypy's stubtest), and the Python package
wraps every native function and method it has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import sparklet._native as native

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "sparklet"
#: native methods only the benchmarks call (timings of the engine's inner steps)
BENCH_HOOKS = {"DataFrame.run_discard", "StreamingQuery.checkpoint_nanos", "StreamingQuery.idle_trigger_nanos"}

pytestmark = pytest.mark.sparklet_only(reason="checks sparklet's own binding layer")


def test_the_stub_matches_the_native_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(ROOT / "pyproject.toml"), "sparklet._native"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_native_function_and_method_has_a_python_caller() -> None:
    source = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py"))
    bench = "\n".join(p.read_text() for p in (ROOT / "bench").rglob("*.py"))
    unused = []
    for name in native.__all__:
        value = getattr(native, name)
        if isinstance(value, type):
            for method in (m for m in vars(value) if not m.startswith("_")):
                qualified = f"{name}.{method}"
                calls = re.compile(rf"\.{method}\(")
                if not calls.search(bench if qualified in BENCH_HOOKS else source):
                    unused.append(qualified)
        elif callable(value) and not re.search(rf"\b{name}\(", source):
            unused.append(name)
    assert unused == []
