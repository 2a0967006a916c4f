"""The web UI end to end: a session with ``spark.ui.enabled`` serves its
queries on loopback; the pages load in headless Chromium with their charts."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparklet.sql import SparkSession

pytestmark = pytest.mark.sparklet_only(reason="sparklet's own web UI (Spark's UI is another program)")

# A user's script: one query running (a windowed count with a watermark and
# a name), one finished, one failed (a UDF raised); it prints the UI's address and runs until stdin closes.
PIPELINE = r"""
import datetime as dt, os, sys
from sparklet.sql import SparkSession, functions as F
from sparklet.testing import MemoryStream

spark = (SparkSession.builder.appName("ui-test").config("spark.ui.enabled", "true")
         .config("spark.ui.port", "0").getOrCreate())
done = MemoryStream(spark, "v INT")
finished = done.toDF().writeStream.queryName("finished_one").format("noop").start()
done.addData([(1,)])
finished.processAllAvailable()
finished.stop()

bad = MemoryStream(spark, "v INT")
@F.udf("int")
def explode_on(v):
    raise ValueError("no <b>good</b> value: " + str(v))
failing = bad.toDF().select(explode_on("v")).writeStream.queryName("failing_one").format("noop").start()
bad.addData([(7,)])
try:
    failing.awaitTermination(60)
except Exception:
    pass

ms = MemoryStream(spark, "ts TIMESTAMP, page STRING")
counts = (ms.toDF().withWatermark("ts", "10 seconds")
          .groupBy(F.window("ts", "10 seconds"), "page").count())
q = counts.writeStream.queryName("clicks_per_page").outputMode("update").format("noop").start()
t0 = dt.datetime(2024, 1, 1)
for b in range(4):
    ms.addData([(t0 + dt.timedelta(seconds=10 * b + i), f"p{i % 3}") for i in range(50)])
    q.processAllAvailable()
print(spark.sparkContext.uiWebUrl, q.runId, os.getpid(), flush=True)
sys.stdin.read()
"""


UI_PID: list[int] = []


@pytest.fixture(scope="module")
def ui() -> Iterator[tuple[str, str]]:
    with subprocess.Popen(
        [sys.executable, "-c", PIPELINE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            line = proc.stdout.readline().split()
            assert len(line) == 3, "the pipeline did not print the UI's address"
            UI_PID[:] = [int(line[2])]
            yield line[0], line[1]
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)


def fetch(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers["Content-Type"], r.read().decode()


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed: install Debian's chromium (make system-deps does)"
    return found


def browse(url: str, *flags: str) -> str:
    # /dev/shm is small in containers (a known cause of headless crashes);
    # a browser killed by a signal is tried once more, it is not the page's fault
    args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"]
    for _ in range(2):
        out = subprocess.run([*args, *flags, url], capture_output=True, text=True, timeout=120)
        if out.returncode >= 0:
            break
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_ui_is_off_by_default(spark: SparkSession) -> None:
    assert spark.sparkContext.uiWebUrl is None


def test_ui_binds_to_loopback_and_lists_queries_as_json(ui: tuple[str, str]) -> None:
    url, run_id = ui
    assert url.startswith("http://127.0.0.1:")
    status, kind, body = fetch(url + "/api/queries")
    assert status == 200 and kind.startswith("application/json")
    listing = json.loads(body)
    [active] = listing["active"]
    assert active["name"] == "clicks_per_page" and active["runId"] == run_id
    assert active["status"] == "RUNNING"
    assert active["lastProgress"]["batchId"] >= 3
    completed = {q["name"]: q for q in listing["completed"]}
    assert completed["finished_one"]["status"] == "FINISHED"
    assert (
        completed["failing_one"]["status"] == "FAILED"
        and "no <b>good</b> value" in completed["failing_one"]["exception"]
    )


def test_list_page_links_each_query_to_its_statistics(ui: tuple[str, str]) -> None:
    url, run_id = ui
    status, kind, html = fetch(url + "/")  # redirected to the streaming tab
    assert status == 200 and kind.startswith("text/html")
    assert "Active Streaming Queries (1)" in html and "Completed Streaming Queries (2)" in html
    assert f'href="/StreamingQuery/statistics/?id={run_id}">clicks_per_page</a>' in html
    assert ">finished_one</a>" in html and "FINISHED" in html


def test_unknown_run_is_not_found(ui: tuple[str, str]) -> None:
    url, _ = ui
    with pytest.raises(urllib.error.HTTPError) as e:
        fetch(url + "/StreamingQuery/statistics/?id=nope")
    assert e.value.code == 404
    e.value.close()


def test_statistics_page_in_chromium_shows_the_query_and_its_charts(ui: tuple[str, str]) -> None:
    url, run_id = ui
    page = f"{url}/StreamingQuery/statistics/?id={run_id}"
    last = json.loads(fetch(url + "/api/queries")[2])["active"][0]["lastProgress"]["batchId"]
    dom = browse(page, "--dump-dom")
    assert "Streaming Query Statistics: clicks_per_page" in dom
    charts = ["input-rows", "input-rate", "process-rate", "batch-duration", "state-rows", "state-rows-updated"]
    for chart in [*charts, "state-memory", "rows-dropped", "watermark-gap"]:
        start = dom.index(f'id="{chart}"')
        section = dom[start : dom.index("</svg>", start)]
        # a line through the query's batches, up to its latest (its time on the axis), a tooltip per batch
        assert "<polyline" in section, chart
        assert f"batch {last} · " in section, chart
        assert f"<title>batch {last}: " in section, chart
    assert dom.count('class="batch"') >= 4
    durations = dom[dom.index('class="durations"') :]
    for phase in ["addBatch", "getBatch", "triggerExecution", "walCommit"]:
        assert f"<td>{phase}</td>" in durations, phase
    screenshot(page, "statistics")


def screenshot(url: str, name: str) -> Path:
    """A PNG of the page in headless Chromium (kept as a test artifact)."""
    artifacts = Path(os.environ.get("SPARKLET_TEST_ARTIFACTS", "target/test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / f"web_ui_{name}.png"
    shot.unlink(missing_ok=True)
    browse(url, f"--screenshot={shot.resolve()}", "--window-size=1300,1100")
    assert shot.stat().st_size > 10_000  # a rendered page, not a blank one
    return shot


def failed_run(url: str) -> dict:
    (failed,) = [q for q in json.loads(fetch(url + "/api/queries")[2])["completed"] if q["name"] == "failing_one"]
    return failed


def test_a_failed_query_shows_its_error_and_a_duration_that_stopped(ui: tuple[str, str]) -> None:
    url, _ = ui
    failed = failed_run(url)
    assert failed["status"] == "FAILED"

    def row() -> str:
        dom = browse(url + "/StreamingQuery/", "--dump-dom")
        start = dom.index(">failing_one<")
        return dom[start : dom.index("</tr>", start)]

    first = row()
    time.sleep(1.5)
    second = row()
    # the duration cell stopped at the failure: the same a moment later
    assert first == second
    # the error: its first line readable and escaped, the whole of it folded
    assert 'class="error"' in first and "<details>" in first
    message = first[first.index('class="message"') : first.index("<details>")]
    assert "[PYTHON_EXCEPTION]" in message and "ValueError: no &lt;b&gt;good&lt;/b&gt; value: 7" in message
    assert "no &lt;b&gt;good&lt;/b&gt; value: 7" in first and "<b>good</b>" not in first
    page = f"{url}/StreamingQuery/statistics/?id={failed['runId']}"
    dom = browse(page, "--dump-dom")
    assert "<h2>Error</h2>" in dom and "no &lt;b&gt;good&lt;/b&gt; value: 7" in dom
    assert "<th>Status</th><td>FAILED</td>" in dom
    screenshot(page, "failed_query")


def test_the_environment_page_lists_the_sessions_settings(ui: tuple[str, str]) -> None:
    url, _ = ui
    dom = browse(url + "/environment/", "--dump-dom")
    assert "<h1>Environment</h1>" in dom
    table = dom[dom.index('class="environment"') :]
    assert "<td>spark.app.name</td><td>ui-test</td>" in table
    assert "<td>spark.ui.enabled</td><td>true</td>" in table
    assert "<td>spark.sql.shuffle.partitions</td>" in table
    assert 'href="/environment/"' in browse(url + "/StreamingQuery/", "--dump-dom")  # linked from every page
    screenshot(url + "/environment/", "environment")


def test_the_list_page_renders(ui: tuple[str, str]) -> None:
    url, _ = ui
    dom = browse(url + "/StreamingQuery/", "--dump-dom")
    assert "Active Streaming Queries (1)" in dom and "Completed Streaming Queries (2)" in dom
    screenshot(url + "/StreamingQuery/", "list")


def raw(url: str, request: str) -> bytes:
    """Send one raw HTTP request to the UI; the whole answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request.encode())
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def test_ui_answers_only_get_and_head_and_only_to_localhost(ui: tuple[str, str]) -> None:
    url, _ = ui
    port = url.rsplit(":", 1)[1]
    for method in ("POST", "PUT", "DELETE", "TRACE"):
        answer = raw(url, f"{method} /api/queries HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 405") and b"Allow: GET, HEAD" in answer, method
    head = raw(url, f"HEAD /api/queries HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and head.endswith(b"\r\n\r\n")  # headers, no body
    # a page of another site whose name resolves to 127.0.0.1 (DNS rebinding)
    foreign = raw(url, "GET /api/queries HTTP/1.1\r\nHost: evil.example\r\n\r\n")
    assert foreign.startswith(b"HTTP/1.1 403")
    ok = raw(url, f"GET /api/queries HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200") and b'"clicks_per_page"' in ok


def test_idle_connections_take_no_threads_and_the_ui_serves_after_them(ui: tuple[str, str]) -> None:
    url, _ = ui
    [pid] = UI_PID
    host, port = url.removeprefix("http://").split(":")

    def threads() -> int:
        return len(os.listdir(f"/proc/{pid}/task"))

    def fds() -> int:
        return len(os.listdir(f"/proc/{pid}/fd"))

    before_threads, before_fds = threads(), fds()
    idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(400)]
    try:
        time.sleep(0.5)
        assert threads() <= before_threads
        assert fds() <= before_fds + 40  # at most 32 held open, the rest closed as they came
        time.sleep(6)  # past the UI's idle timeout: it has closed every one
        assert fds() <= before_fds + 2
    finally:
        for s in idle:
            s.close()
    status, _, body = fetch(url + "/api/queries")
    assert status == 200 and json.loads(body)["active"][0]["status"] == "RUNNING"
