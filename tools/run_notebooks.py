"""Execute every notebook in a folder (CI runs them so they stay true)."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def main(folder: str) -> int:
    notebooks = sorted(Path(folder).glob("*.ipynb"))
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
        print(f"ok  {path}")
    if not notebooks:
        print(f"no notebooks in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "notebooks"))
