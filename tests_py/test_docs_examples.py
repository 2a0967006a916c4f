"""Every code example in the README and docs/*.md runs and does what its
page says (tools/doc_examples.py: each page's blocks in order, with the
hidden setup and checks next to them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import doc_examples  # noqa: E402

pytestmark = pytest.mark.sparklet_only(reason="sparklet's own docs, run as a user runs them")

PAGES = doc_examples.pages()


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_examples_of_the_page_run(page: Path, request: pytest.FixtureRequest) -> None:
    text = page.read_text()
    if "sc://spark-host:15002" in text:
        os.environ["SPARKLET_CONNECT_URL"] = request.getfixturevalue("connect_url")
    if "127.0.0.1:9092" in text:
        assert "SPARKLET_KAFKA_BOOTSTRAP" in os.environ, "run under tools/with_kafka.sh: the page talks to Kafka"
    assert doc_examples.run(page) == []


def test_every_code_block_is_one_the_runner_knows() -> None:
    # a block in a language nobody runs would be an example nobody checks
    languages = {c.language for page in PAGES for c in doc_examples.chunks(page.read_text()) if c.kind == "example"}
    assert languages <= {"python", "sql", "sh", "text"}, languages


def test_a_failing_example_is_reported_with_its_page_and_line(tmp_path: Path) -> None:
    page = tmp_path / "failing.md"
    page.write_text("# t\n\n```python\nx = 1\nassert x == 2, 'the example is wrong'\n```\n")
    problems = doc_examples.run(page)
    assert len(problems) == 1
    assert 'File "failing.md", line 5' in problems[0]
    assert "the example is wrong" in problems[0]


def test_a_sql_block_without_a_check_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "unchecked.md"
    page.write_text("# t\n\n```sql\nSELECT 1\n```\n")
    assert doc_examples.run(page) == ["unchecked.md:4: a sql block with no example-check to run it"]
