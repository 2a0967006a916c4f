"""Live displays: the ``availableNow`` progress bar in a terminal (a real
pseudo-terminal) and in Jupyter, and the query card a notebook keeps current
(a real kernel, run by nbclient)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from conftest import write_json

BACKFILL = r"""
import sys
from sparklet.sql import SparkSession
folder, show = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.config("spark.ui.showConsoleProgress", show).getOrCreate()
q = (spark.readStream.schema("v INT").option("maxFilesPerTrigger", 1).json(folder + "/in")
     .writeStream.format("noop").option("checkpointLocation", folder + "/ckpt")
     .trigger(availableNow=True).start())
q.awaitTermination()
print("ended", flush=True)
"""


def files(folder: Path, names: range) -> None:
    (folder / "in").mkdir(exist_ok=True)
    for i in names:
        write_json(folder / "in", f"part-{i:03d}.json", [{"v": i}])


def in_terminal(folder: Path, show: str = "true") -> str:
    """Run the backfill with stdout and stderr on a pseudo-terminal."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", BACKFILL, str(folder), show], stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the child is gone
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(timeout=60) == 0, out.decode(errors="replace")
    return out.decode().replace("\r\n", "\n")


def test_backfill_bar_counts_files_in_a_terminal(tmp_path: Path) -> None:
    files(tmp_path, range(6))
    out = in_terminal(tmp_path)
    assert "\r[" in out
    assert "] 6/6 files (100%)\n" in out
    assert out.rstrip().endswith("ended")
    # a restart's backlog is only what the checkpoint has not taken
    files(tmp_path, range(6, 8))
    again = in_terminal(tmp_path)
    assert "] 2/2 files (100%)\n" in again and "/6 files" not in again


def test_no_bar_without_a_terminal_or_when_turned_off(tmp_path: Path) -> None:
    files(tmp_path, range(3))
    piped = subprocess.run(
        [sys.executable, "-c", BACKFILL, str(tmp_path), "true"], capture_output=True, text=True, timeout=60
    )
    assert piped.returncode == 0 and "files" not in piped.stderr + piped.stdout
    files(tmp_path, range(3, 5))
    assert "files" not in in_terminal(tmp_path, show="false")


NOTEBOOK_CELLS = [
    """
import pathlib, tempfile
from sparklet.sql import SparkSession
from sparklet.testing import MemoryStream
spark = SparkSession.builder.getOrCreate()
ms = MemoryStream(spark, "k STRING")
q = (ms.toDF().groupBy("k").count().writeStream.queryName("live_counts")
     .outputMode("complete").format("noop").start())
q
""",
    """
for _ in range(3):
    ms.addData([("a",), ("b",)])
    q.processAllAvailable()
q.stop()
""",
    """
d = pathlib.Path(tempfile.mkdtemp())
(d / "in").mkdir()
for i in range(5):
    (d / "in" / f"{i}.json").write_text('{"v": 1}\\n')
b = (spark.readStream.schema("v INT").option("maxFilesPerTrigger", 1).json(str(d / "in"))
     .writeStream.format("noop").trigger(availableNow=True).start())
b.awaitTermination()
""",
]


def html_outputs(cell: dict) -> list[str]:
    return [o["data"]["text/html"] for o in cell["outputs"] if "text/html" in o.get("data", {})]


def test_notebook_card_and_backfill_bar_redraw_as_the_query_runs(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c.strip()) for c in NOTEBOOK_CELLS])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    [card] = html_outputs(nb.cells[0])
    # shown when the query had just started; redrawn in place as it ran and stopped
    assert "StreamingQuery live_counts" in card
    assert "<th style='text-align:left'>status</th><td>stopped</td>" in card
    assert "<th style='text-align:left'>batch</th><td>2</td>" in card
    [bar] = html_outputs(nb.cells[2])
    assert "<progress value='5' max='5'" in bar and "5/5 files (100%)" in bar
