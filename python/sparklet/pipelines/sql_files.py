"""Pipeline definitions in SQL files, as Spark reads them: ``CREATE
MATERIALIZED VIEW``, ``CREATE STREAMING TABLE`` (with or without a query),
``CREATE TEMPORARY VIEW``, ``CREATE FLOW ... AS INSERT INTO ... BY NAME``
and ``SET``; a streaming read is ``STREAM(name)`` or ``STREAM name``.

Each statement becomes the dataset or flow its Python decorator would
define, with a query function that runs the SQL. A query's reads of other
datasets (the names after FROM and JOIN, and in STREAM) go through the
pipeline's table-read hook first, as ``spark.read.table`` does in a
Python definition, so dependencies and cycles are found the same way."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from sparklet.errors import PySparkException
from sparklet.pipelines.graph import Dataset, Flow, Graph

__all__ = ["load_sql_definitions", "split_statements"]

_NAME = r"(`[^`]+`|[\w.]+)"
_CREATE = re.compile(
    r"CREATE\s+(?:OR\s+REFRESH\s+)?(?P<kind>MATERIALIZED\s+VIEW|STREAMING\s+TABLE|TEMPORARY\s+VIEW)\s+"
    rf"(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_NAME})(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_FLOW = re.compile(
    rf"CREATE\s+FLOW\s+(?P<name>{_NAME})\s+AS\s+INSERT\s+INTO\s+(?P<target>{_NAME})\s+BY\s+NAME\s+(?P<query>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_SET = re.compile(r"SET\s+(?P<key>[^=\s]+)\s*=\s*(?P<value>.*)$", re.IGNORECASE | re.DOTALL)
_COMMENT = re.compile(r"\bCOMMENT\s+'((?:[^'\\]|\\.)*)'", re.IGNORECASE)
_PARTITIONED = re.compile(r"\bPARTITIONED\s+BY\s*\(([^)]*)\)", re.IGNORECASE)
_USING = re.compile(r"\bUSING\s+(\w+)", re.IGNORECASE)
# a read of a dataset: STREAM(name), STREAM name, or a name after FROM / JOIN / a comma in a FROM list
_STREAM_READ = re.compile(rf"\bSTREAM\s*\(\s*{_NAME}\s*\)|\bSTREAM\s+(?!\()(`[^`]+`|[\w.]+)", re.IGNORECASE)
_BATCH_READ = re.compile(rf"\b(?:FROM|JOIN)\s+{_NAME}", re.IGNORECASE)
_KINDS = {"materialized view": "materialized_view", "streaming table": "table", "temporary view": "temporary_view"}
_views = itertools.count()


def _error(message: str) -> PySparkException:
    return PySparkException(
        f"[PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR] {message}", "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR"
    )


def split_statements(text: str) -> list[str]:
    """The statements of ``text``, split at semicolons outside quotes and
    comments (comments dropped)."""
    out, current, i, quote = [], [], 0, ""
    while i < len(text):
        c = text[i]
        if quote:
            current.append(c)
            if c == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
            current.append(c)
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        elif c == ";":
            out.append("".join(current).strip())
            current = []
        else:
            current.append(c)
        i += 1
    out.append("".join(current).strip())
    return [s for s in out if s]


def _unquote(name: str) -> str:
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


def _header_and_query(rest: str) -> tuple[str, str | None]:
    """The clauses before the query (outside parentheses and quotes) and the query after ``AS``."""
    from sparklet.sql._delta_sql import _top_level

    at = _top_level(rest, "AS")
    return (rest[: at[0]], rest[at[0] + 2 :].strip()) if at else (rest, None)


def sql_query_function(spark: Any, query: str) -> Callable[[], Any]:
    """A flow's query function: ``query`` run by ``spark.sql`` after its
    reads of pipeline datasets went through the pipeline's read hook (a
    dataset the run has not written, or a temporary view, read as the
    DataFrame the hook gives; ``STREAM(name)`` as a streaming read)."""

    def run() -> Any:
        from sparklet.sql._table_hooks import hooked

        pieces, last = [], 0
        reads = sorted(
            [(m, True) for m in _STREAM_READ.finditer(query)] + [(m, False) for m in _BATCH_READ.finditer(query)],
            key=lambda mr: mr[0].start(),
        )
        for match, streaming in reads:
            if match.start() < last:
                continue  # FROM STREAM(x): the stream read covers it
            name = _unquote(match.group(1) or match.group(2) if streaming else match.group(1))
            if not streaming and name.upper() == "STREAM":
                continue
            df = hooked(name, streaming)
            if df is None and streaming:
                df = spark.readStream.table(name)
            if df is None:
                continue
            view = f"__sparklet_pipeline_read_{next(_views)}"
            df.createOrReplaceTempView(view)
            start = match.start() if streaming else match.start(1)
            pieces += [query[last:start], view]
            last = match.end()
        return spark.sql("".join(pieces) + query[last:])

    return run


def load_sql_definitions(spark: Any, graph: Graph, text: str, source: str) -> None:
    """Add the datasets and flows of a SQL file's ``text`` to ``graph``."""
    for statement in split_statements(text):
        if m := _SET.match(statement):
            spark.conf.set(m["key"].strip(), m["value"].strip().strip("'\""))
            continue
        if m := _FLOW.match(statement):
            graph.add_flow(
                Flow(name=_unquote(m["name"]), target=_unquote(m["target"]), func=sql_query_function(spark, m["query"]))
            )
            continue
        m = _CREATE.match(statement)
        if m is None:
            raise _error(
                f"Unsupported SQL statement in {source}: {statement[:80]!r} (a pipeline SQL file holds CREATE "
                "MATERIALIZED VIEW, CREATE STREAMING TABLE, CREATE TEMPORARY VIEW, CREATE FLOW and SET)."
            )
        kind = _KINDS[" ".join(m["kind"].lower().split())]
        name = _unquote(m["name"])
        header, query = _header_and_query(m["rest"])
        comment = _COMMENT.search(header)
        partitioned = _PARTITIONED.search(header)
        using = _USING.search(header)
        graph.add_dataset(
            Dataset(
                name=name,
                kind=kind,
                comment=comment[1] if comment else None,
                partition_cols=[c.strip().strip("`") for c in partitioned[1].split(",")] if partitioned else None,
                format=using[1].lower() if using else None,
            )
        )
        if query is None:
            if kind != "table":
                raise _error(f"{m['kind']} {name} in {source} has no query (AS SELECT ...).")
            continue
        graph.add_flow(Flow(name=name, target=name, func=sql_query_function(spark, query)))
