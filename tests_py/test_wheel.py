"""sparklet as a user installs it: a wheel (abi3, a manylinux tag, the
package's metadata) that installs into a new venv with no Rust on PATH and
runs the README's pipeline (tools/check_wheel.sh). The wheel here is the
debug build's on the host toolchain, so the test costs one link, not a
release build; `make wheel` makes the release one with zig, for
manylinux_2_28 (docs/releasing.md), and was checked with the same script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.sparklet_only(reason="builds and installs sparklet's own wheel")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(Path.home() / ".cache" / "sparklet" / "target"))
    maturin = Path(sys.executable).parent / "maturin"
    subprocess.run(
        [str(maturin), "build", "-q", "-o", str(out), "--interpreter", sys.executable],
        cwd=REPO,
        env=env,
        check=True,
        timeout=3600,
    )
    (found,) = out.glob("sparklet-*.whl")
    return found


@pytest.mark.timeout(3600)
def test_the_wheel_is_abi3_manylinux_with_its_metadata(wheel: Path) -> None:
    assert re.fullmatch(r"sparklet-[0-9.]+-cp311-abi3-manylinux_2_\d+_x86_64(\.manylinux\w+)*\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = z.read(meta).decode()
    assert "sparklet/py.typed" in names and "sparklet/_native.pyi" in names
    for line in (
        "Requires-Python: >=3.11",
        "License: Apache-2.0",
        "Classifier: Typing :: Typed",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Requires-Dist: pyarrow>=16",
    ):
        assert line in metadata, line
    assert re.search(r"^Author: .+", metadata, re.M)


@pytest.mark.timeout(3600)
def test_the_wheel_installs_without_rust_and_runs_the_readme_pipeline(wheel: Path) -> None:
    done = subprocess.run(
        [str(REPO / "tools" / "check_wheel.sh"), str(wheel)], capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "from the wheel ran the README pipeline: 2 rows" in done.stdout
