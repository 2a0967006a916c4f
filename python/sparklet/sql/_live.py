"""Live displays of running queries: the notebook card that redraws itself
while its query runs, and the progress bar of an ``availableNow`` backfill
(in a notebook or a terminal; off when neither is there to watch it, or
with ``spark.ui.showConsoleProgress=false``)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from sparklet.sql._html import query_card_html

# How often a live display looks at its query, seconds.
REFRESH = 0.25


def in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (a front end that can redraw a display)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _follow(q: Any, render: Callable[[], str], draw: Callable[[str, bool], None]) -> None:
    """Draw whenever ``render()`` changes, until the query ends; the last
    draw (``final`` true) shows the query as it ended."""
    last = None
    while True:
        active = q.isActive
        shown = render()
        if shown != last or not active:
            draw(shown, not active)
            last = shown
        if not active:
            return
        time.sleep(REFRESH)


def _thread(target: Callable[[], None]) -> threading.Thread:
    t = threading.Thread(target=target, name="sparklet-live-display", daemon=True)
    t.start()
    return t


def show_card(q: Any) -> threading.Thread | None:
    """Display the query's card; in a kernel, keep it current while the query runs."""
    from IPython.display import HTML, display

    if not in_kernel():
        display({"text/plain": repr(q), "text/html": query_card_html(q)}, raw=True)
        return None
    handle = display(HTML(query_card_html(q)), display_id=True)
    return _thread(lambda: _follow(q, lambda: query_card_html(q), lambda h, _: handle.update(HTML(h))))


def backfill_text(done: int, total: int, unit: str, width: int = 30) -> str:
    """``[#########---------] 3/6 files (50%)``."""
    part = done / total if total else 1.0
    filled = round(part * width)
    return f"[{'#' * filled}{'-' * (width - filled)}] {done}/{total} {unit} ({part:.0%})"


def backfill_html(done: int, total: int, unit: str) -> str:
    """An HTML progress bar with the same figures."""
    part = done / total if total else 1.0
    return (
        f"<div class='sparklet-backfill'><progress value='{done}' max='{max(total, 1)}' "
        f"style='width:20em'></progress> {done}/{total} {unit} ({part:.0%})</div>"
    )


def _backlog(q: Any) -> tuple[int, int, str] | None:
    backlog: tuple[int, int, str] | None = q._native.backlog()
    return backlog


def follow_backfill(q: Any, conf: Any, stream: TextIO | None = None) -> threading.Thread | None:
    """Show how far an ``availableNow`` query is through its data, until it ends."""
    if str(conf.get("spark.ui.showConsoleProgress", "true")).lower() == "false":
        return None
    out = stream or sys.stderr
    if in_kernel():
        from IPython.display import HTML, display

        handle = display(HTML(backfill_html(0, 0, "")), display_id=True)

        def render() -> str:
            b = _backlog(q)
            return backfill_html(*b) if b else ""

        return _thread(lambda: _follow(q, render, lambda h, _: handle.update(HTML(h)) if h else None))
    if out.isatty():

        def render_text() -> str:
            b = _backlog(q)
            return backfill_text(*b) if b else ""

        def draw(text: str, final: bool) -> None:
            if text:
                out.write("\r" + text + ("\n" if final else ""))
                out.flush()

        return _thread(lambda: _follow(q, render_text, draw))
    return None
