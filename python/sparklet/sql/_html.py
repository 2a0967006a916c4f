"""How DataFrames and streaming queries show themselves in Jupyter."""

from __future__ import annotations

import html
from typing import Any


def _cell(v: Any) -> str:
    return "null" if v is None else html.escape(str(v))


def dataframe_html(df: Any, n: int, truncate: int = 20) -> str:
    """A batch DataFrame's first ``n`` rows as an HTML table, each value as
    ``show()`` prints it (cut to ``truncate`` characters; a streaming
    DataFrame is described, not run)."""
    from sparklet import _native

    if df.isStreaming:
        cols = ", ".join(f"{html.escape(c)}: {html.escape(t)}" for c, t in df.dtypes)
        return f"<pre>streaming DataFrame[{cols}]: start it with writeStream</pre>"
    table = df.limit(n + 1).toArrow()
    time_zone = df.sparkSession.conf.get("spark.sql.session.timeZone")
    rows = _native.show_cells(table, n, truncate, time_zone)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.column_names)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r) + "</tr>" for r in rows)
    more = f"<p>only showing top {n} rows</p>" if table.num_rows > n else ""
    return f"<table border='1'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _sparkline(values: list[float], width: int = 160, height: int = 32) -> str:
    """An inline SVG line of ``values`` (the latest on the right)."""
    if len(values) < 2:
        return ""
    top = max(values) or 1.0
    step = width / (len(values) - 1)
    points = " ".join(f"{i * step:.1f},{height - v / top * (height - 2) - 1:.1f}" for i, v in enumerate(values))
    return (
        f"<svg width='{width}' height='{height}' role='img' aria-label='processed rows per second'>"
        f"<polyline fill='none' stroke='#e25a1c' stroke-width='1.5' points='{points}'/></svg>"
    )


def query_card_html(q: Any) -> str:
    """A small card: name, status, last batch, rates, watermark, state rows,
    and a line of recent processing rates."""
    status = q.status
    recent = q.recentProgress[-60:]
    last = q.lastProgress or {}
    # rates of the last batch that read rows, as Spark's UI shows them (a
    # no-data batch between two reports 0 rows/s while rows flow)
    with_data = [p for p in recent if p.get("numInputRows", 0) > 0]
    rates = with_data[-1] if with_data else last
    state_rows = sum(o.get("numRowsTotal", 0) for o in last.get("stateOperators", []))
    watermark = (last.get("eventTime") or {}).get("watermark", "-")
    facts = [
        ("status", "active" if q.isActive else "stopped"),
        ("message", status["message"]),
        ("batch", last.get("batchId", "-")),
        ("input rows/s", f"{rates.get('inputRowsPerSecond', 0.0):,.1f}"),
        ("processed rows/s", f"{rates.get('processedRowsPerSecond', 0.0):,.1f}"),
        ("watermark", watermark),
        ("state rows", f"{state_rows:,}"),
    ]
    rows = "".join(f"<tr><th style='text-align:left'>{k}</th><td>{_cell(v)}</td></tr>" for k, v in facts)
    line = _sparkline([p.get("processedRowsPerSecond", 0.0) for p in with_data])
    title = html.escape(q.name or q.id)
    return (
        f"<div style='border:1px solid #ccc;padding:6px;display:inline-block'>"
        f"<b>StreamingQuery {title}</b><table>{rows}</table>{line}</div>"
    )
