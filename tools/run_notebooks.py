"""Execute every notebook in a folder (CI runs them so they stay true).

Every notebook runs, whatever happened to the ones before it; each is
reported (ok, or FAILED with the cell and the error), and the exit status
is 1 if any failed."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_one(path: Path) -> str | None:
    """Execute ``path``; None if it ran, else what failed."""
    nb = nbformat.read(path, as_version=4)
    try:
        NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    except CellExecutionError as e:
        # nbclient's message: the cell's source, a dashed line, then the traceback
        source = str(e).split("------------------")[1].strip() if "------------------" in str(e) else ""
        first = source.splitlines()[0] if source else "?"
        return f"in the cell starting {first!r}: {e.ename}: {re.sub(ANSI, '', e.evalue)}"
    except Exception as e:  # noqa: BLE001 - a kernel that died or timed out is this notebook's failure
        return f"{type(e).__name__}: {e}"
    return None


def main(folder: str) -> int:
    notebooks = sorted(Path(folder).glob("*.ipynb"))
    failed = []
    for path in notebooks:
        started = time.perf_counter()
        error = run_one(path)
        took = time.perf_counter() - started
        if error is None:
            print(f"ok      {path} ({took:.1f} s)", flush=True)
        else:
            failed.append(path)
            print(f"FAILED  {path} ({took:.1f} s)\n      {error}", flush=True)
    if not notebooks:
        print(f"no notebooks in {folder}")
    print(
        f"{len(notebooks) - len(failed)} of {len(notebooks)} notebooks ran"
        + (f"; failed: {', '.join(p.name for p in failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "notebooks"))
