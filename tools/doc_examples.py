"""Run the code examples of a Markdown page, so the docs stay true.

Every fenced ``python`` block of a page runs, in page order, in one fresh
interpreter whose working folder is a new temporary folder. A block can be
prepared and checked by hidden code next to it, in HTML comments a reader
never sees::

    <!-- example-setup
    spark = SparkSession.builder.getOrCreate()   # what the page takes as given
    -->
    ```python
    ...the example...
    ```
    <!-- example-check
    assert ...                                    # what the example promised
    -->

A check sees the block's own text as ``EXAMPLE``: that is how ``sql`` blocks
run (``spark.sql(EXAMPLE)``), and every ``sql`` block must have a check.
``sh`` blocks are ``make`` commands (the README's); each must name a target
of the Makefile (``make -n`` dry run): running them is what CI itself does.
Blocks of other languages (``text``) are not code.

Addresses in the examples are replaced by real ones from the environment:
the Kafka examples' ``127.0.0.1:9092`` by the broker ``tools/with_kafka.sh``
started (``SPARKLET_KAFKA_BOOTSTRAP``), the Spark Connect example's
``sc://spark-host:15002`` by a local Spark Connect server
(``SPARKLET_CONNECT_URL``, which the test starts).

    python tools/doc_examples.py docs/kafka.md [more pages]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
HIDDEN = re.compile(r"^<!-- example-(setup|check)\n(.*?)^-->\n", re.S | re.M)
#: an address in the docs -> the environment variable with the real one
ADDRESSES = {"127.0.0.1:9092": "SPARKLET_KAFKA_BOOTSTRAP", "sc://spark-host:15002": "SPARKLET_CONNECT_URL"}
#: what runs after the page: its queries stopped, so the interpreter can end
EPILOGUE = """
from sparklet.sql import SparkSession as _S
_s = _S.getActiveSession()
if _s is not None:
    for _q in _s.streams.active:
        _q.stop()
"""


@dataclass
class Chunk:
    """One piece of a page to run: a block or a hidden setup or check."""

    kind: str  # "example", "setup" or "check"
    language: str
    code: str
    line: int  # 1-based line of the code's first line in the page


def chunks(text: str) -> list[Chunk]:
    """The page's blocks and hidden code, in page order."""
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start(2)) + 1
        found.append((m.start(), Chunk("example", m[1] or "text", m[2], line)))
    for m in HIDDEN.finditer(text):
        line = text.count("\n", 0, m.start(2)) + 1
        found.append((m.start(), Chunk(m[1], "python", m[2], line)))
    return [c for _, c in sorted(found, key=lambda t: t[0])]


def make_targets() -> set[str]:
    """The Makefile's targets."""
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][\w-]*):", text, re.M))


def check_shell(chunk: Chunk, page: str) -> list[str]:
    """A shell block's problems: each command must be a Makefile target."""
    problems = []
    targets = make_targets()
    for offset, raw in enumerate(chunk.code.splitlines()):
        command = raw.split("#", 1)[0].strip()
        if not command:
            continue
        words = command.split()
        if words[0] != "make" or len(words) != 2 or words[1] not in targets:
            problems.append(f"{page}:{chunk.line + offset}: not a Makefile target: {command!r}")
            continue
        done = subprocess.run(["make", "-n", words[1]], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            problems.append(f"{page}:{chunk.line + offset}: `make -n {words[1]}` failed: {done.stderr.strip()}")
    return problems


def page_name(page: Path) -> str:
    """How problems name the page: its path in the repository."""
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


def script(page: Path) -> tuple[str, list[str]]:
    """The Python program that runs the page's examples, and the problems
    found without running anything (a ``sql`` block nobody runs)."""
    text = page.read_text()
    name = page_name(page)
    parts = ["import sys", "__ns = {'__name__': '__main__'}"]
    problems: list[str] = []
    pieces = chunks(text)
    last_example = ""
    for i, chunk in enumerate(pieces):
        if chunk.kind == "example":
            if chunk.language == "sh":
                problems += check_shell(chunk, name)
                continue
            if chunk.language == "sql":
                checked = i + 1 < len(pieces) and pieces[i + 1].kind == "check"
                if not checked:
                    problems.append(f"{name}:{chunk.line}: a sql block with no example-check to run it")
                last_example = chunk.code
                continue
            if chunk.language != "python":
                continue
            last_example = chunk.code
        code = chunk.code
        for shown, variable in ADDRESSES.items():
            code = code.replace(shown, os.environ.get(variable, shown))
        # blank lines keep the page's line numbers in tracebacks
        padded = "\n" * (chunk.line - 1) + code
        where = f"{name} ({chunk.kind})" if chunk.kind != "example" else name
        parts.append(f"__ns['EXAMPLE'] = {last_example!r}")
        parts.append(f"exec(compile({padded!r}, {where!r}, 'exec'), __ns)")
    parts.append(f"exec({EPILOGUE!r}, __ns)")
    return "\n".join(parts) + "\n", problems


def run(page: Path, timeout: float = 300) -> list[str]:
    """Run one page's examples; the problems found (empty: all ran)."""
    program, problems = script(page)
    with tempfile.TemporaryDirectory(prefix="doc-example-") as folder:
        done = subprocess.run(
            [sys.executable, "-c", program], cwd=folder, capture_output=True, text=True, timeout=timeout
        )
    if done.returncode != 0:
        problems.append(f"{page_name(page)}: an example failed:\n{done.stderr[-4000:]}")
    return problems


def pages() -> list[Path]:
    """Every page whose examples are run: the README and docs/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main() -> int:
    chosen = [Path(p).resolve() for p in sys.argv[1:]] or pages()
    failed = 0
    for page in chosen:
        problems = run(page)
        print(f"{'ok  ' if not problems else 'FAIL'} {page_name(page)}")
        for p in problems:
            print(p)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
