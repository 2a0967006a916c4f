"""Delta Lake's SQL statements, run by ``spark.sql`` before its query engine
sees the text: ``MERGE INTO``, ``UPDATE``, ``DELETE FROM``, ``DESCRIBE
HISTORY``, ``DESCRIBE DETAIL``, ``VACUUM``, ``OPTIMIZE``, ``RESTORE``. The
target is a catalog table in format ``delta`` or ``delta.`path```; each
statement is the :class:`~sparklet.delta.tables.DeltaTable` operation of
the same name, and answers with delta-spark's result columns."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sparklet.errors import AnalysisException

if TYPE_CHECKING:
    from sparklet.delta.tables import DeltaTable
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

_TABLE = r"(?P<name>delta\.`[^`]+`|[`\w.]+)"
_ALIAS = r"(?:\s+(?:AS\s+)?(?P<alias>(?!WHERE\b|SET\b|USING\b)\w+))?"


def _target(session: SparkSession, name: str, operation: str) -> DeltaTable:
    """The Delta table ``name`` names; Spark's error for a table of another format."""
    from sparklet import _native
    from sparklet.delta.tables import DeltaTable, _location

    location = _location(session, name)
    if location is not None and _native.delta_is_table(location):
        return DeltaTable(session, location, name=name)
    if location is None:
        raise AnalysisException(
            f"[TABLE_OR_VIEW_NOT_FOUND] The table or view `{name.strip('`')}` cannot be found.",
            "TABLE_OR_VIEW_NOT_FOUND",
        )
    raise AnalysisException(
        f"[UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table `{name.strip('`')}` does not "
        f"support {operation}. Please check the current catalog and namespace to make sure the qualified table name "
        'is expected, and also check the catalog implementation which is configured by "spark.sql.catalog".',
        "UNSUPPORTED_FEATURE.TABLE_OPERATION",
    )


def _top_level(text: str, keyword: str) -> list[int]:
    """Where ``keyword`` (a regex) starts outside quotes and parentheses."""
    out, depth, quote, i = [], 0, "", 0
    pattern = re.compile(rf"\b(?:{keyword})\b", re.I)
    while i < len(text):
        c = text[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = pattern.match(text, i)
            if m:
                out.append(i)
                i = m.end()
                continue
        i += 1
    return out


def _split_at(text: str, keyword: str) -> list[str]:
    cuts = _top_level(text, keyword)
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]


def _assignments(text: str) -> dict[str, str]:
    """``a = expr, b = expr`` (top-level commas) as column to SQL text."""
    from sparklet.sql._ddl import _split_top

    out = {}
    for part in _split_top(text):
        column, sep, value = part.partition("=")
        if not sep:
            raise AnalysisException(
                f"[PARSE_SYNTAX_ERROR] Syntax error at or near '{part.strip()}'.", "PARSE_SYNTAX_ERROR"
            )
        out[column.strip()] = value.strip()
    return out


def _rows(session: SparkSession, row: tuple[Any, ...], schema: str) -> DataFrame:
    return session.createDataFrame([row], schema)


def _merge(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    from sparklet.sql._ddl import _balanced

    target = _target(session, m.group("name"), "MERGE INTO")
    target = target.alias(m.group("alias") or m.group("name").split(".")[-1].strip("`"))
    rest = text[m.end() :].strip()
    using = re.match(r"USING\s+", rest, re.I)
    if using is None:
        raise AnalysisException("[PARSE_SYNTAX_ERROR] Syntax error: MERGE INTO needs USING.", "PARSE_SYNTAX_ERROR")
    rest = rest[using.end() :]
    if rest.startswith("("):
        end = _balanced(rest, 0)
        source = session.sql(rest[1 : end - 1])
        rest = rest[end:].strip()
        sm = re.match(r"(?:AS\s+)?(?P<alias>\w+)\s+", rest, re.I)
        source_alias = sm.group("alias") if sm and sm.group("alias").upper() != "ON" else "source"
        rest = rest[sm.end() :] if sm and sm.group("alias").upper() != "ON" else rest
    else:
        sm = re.match(rf"{_TABLE}(?:\s+(?:AS\s+)?(?P<alias>(?!ON\b)\w+))?\s+", rest, re.I)
        if sm is None:
            raise AnalysisException("[PARSE_SYNTAX_ERROR] Syntax error at or near 'USING'.", "PARSE_SYNTAX_ERROR")
        name = sm.group("name")
        if name.lower().startswith("delta.`"):
            source = session.read.format("delta").load(name[len("delta.`") : -1])
        else:
            source = session.table(name)
        source_alias = sm.group("alias") or name.split(".")[-1].strip("`")
        rest = rest[sm.end() :]
    on = re.match(r"ON\s+", rest, re.I)
    if on is None:
        raise AnalysisException("[PARSE_SYNTAX_ERROR] Syntax error: MERGE INTO needs ON.", "PARSE_SYNTAX_ERROR")
    rest = rest[on.end() :]
    parts = _split_at(rest, "WHEN")
    builder = target.merge(source.alias(source_alias), parts[0].strip())
    for clause in parts[1:]:
        cm = re.match(
            r"WHEN\s+(?P<not>NOT\s+)?MATCHED(?:\s+BY\s+(?P<by>SOURCE|TARGET))?(?:\s+AND\s+(?P<cond>.*?))?\s+THEN\s+"
            r"(?P<action>.*)$",
            clause.strip(),
            re.I | re.S,
        )
        if cm is None:
            raise AnalysisException(
                f"[PARSE_SYNTAX_ERROR] Syntax error at or near '{clause.strip()[:40]}'.", "PARSE_SYNTAX_ERROR"
            )
        cond, action = cm.group("cond"), cm.group("action").strip()
        by_source = (cm.group("by") or "").upper() == "SOURCE"
        matched = not cm.group("not")
        if re.fullmatch(r"DELETE", action, re.I):
            if matched:
                builder = builder.whenMatchedDelete(cond)
            else:
                builder = builder.whenNotMatchedBySourceDelete(cond)
        elif re.fullmatch(r"UPDATE\s+SET\s+\*", action, re.I):
            builder = builder.whenMatchedUpdateAll(cond)
        elif um := re.match(r"UPDATE\s+SET\s+(.*)$", action, re.I | re.S):
            values = _assignments(um.group(1))
            if by_source:
                builder = builder.whenNotMatchedBySourceUpdate(cond, values)
            else:
                builder = builder.whenMatchedUpdate(cond, values)
        elif re.fullmatch(r"INSERT\s+\*", action, re.I):
            builder = builder.whenNotMatchedInsertAll(cond)
        elif im := re.match(r"INSERT\s*\((?P<cols>[^)]*)\)\s*VALUES\s*\((?P<vals>.*)\)$", action, re.I | re.S):
            from sparklet.sql._ddl import _split_top

            cols = [c.strip() for c in im.group("cols").split(",")]
            vals = _split_top(im.group("vals"))
            if len(cols) != len(vals):
                raise AnalysisException(
                    f"[DELTA_MERGE_INSERT_COLUMN_MISMATCH] INSERT names {len(cols)} columns but gives "
                    f"{len(vals)} values.",
                    "DELTA_MERGE_INSERT_COLUMN_MISMATCH",
                )
            builder = builder.whenNotMatchedInsert(cond, dict(zip(cols, (v.strip() for v in vals))))
        else:
            raise AnalysisException(
                f"[PARSE_SYNTAX_ERROR] Syntax error at or near '{action[:40]}'.", "PARSE_SYNTAX_ERROR"
            )
    return builder.execute()


def _update(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    target = _target(session, m.group("name"), "UPDATE TABLE")
    if m.group("alias"):
        target = target.alias(m.group("alias"))
    rest = text[m.end() :]
    where = _top_level(rest, "WHERE")
    assignments = rest[: where[0]] if where else rest
    condition = rest[where[0] + len("WHERE") :].strip() if where else None
    count = target._update(condition, _assignments(assignments))
    return _rows(session, (count,), "num_affected_rows BIGINT")


def _delete(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    target = _target(session, m.group("name"), "DELETE")
    rest = text[m.end() :].strip()
    condition = re.sub(r"^WHERE\s+", "", rest, flags=re.I) if rest else None
    count = target._delete(condition or None)
    return _rows(session, (count,), "num_affected_rows BIGINT")


def _history(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    limit = m.group("limit")
    return _target(session, m.group("name"), "DESCRIBE HISTORY").history(int(limit) if limit else None)


def _detail(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    return _target(session, m.group("name"), "DESCRIBE DETAIL").detail()


def _vacuum(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    hours = m.group("hours")
    return _target(session, m.group("name"), "VACUUM").vacuum(float(hours) if hours else None)


def _optimize(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    builder = _target(session, m.group("name"), "OPTIMIZE").optimize()
    if m.group("where"):
        builder = builder.where(m.group("where"))
    if m.group("zorder"):
        return builder.executeZOrderBy([c.strip().strip("`") for c in m.group("zorder").split(",")])
    return builder.executeCompaction()


def _restore(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    table = _target(session, m.group("name"), "RESTORE")
    if m.group("version"):
        return table.restoreToVersion(int(m.group("version")))
    from sparklet.sql._ddl import _unquote

    return table.restoreToTimestamp(_unquote(m.group("ts")))


#: (pattern, handler), tried after the catalog's own statements.
STATEMENTS = [
    (re.compile(rf"MERGE\s+INTO\s+{_TABLE}(?:\s+(?:AS\s+)?(?P<alias>(?!USING\b)\w+))?\s+", re.I), _merge),
    (re.compile(rf"UPDATE\s+{_TABLE}{_ALIAS}\s+SET\s+", re.I), _update),
    (re.compile(rf"DELETE\s+FROM\s+{_TABLE}{_ALIAS}(?=\s+WHERE\b|\s*$)", re.I), _delete),
    (re.compile(rf"DESCRIBE\s+HISTORY\s+{_TABLE}(?:\s+LIMIT\s+(?P<limit>\d+))?\s*$", re.I), _history),
    (re.compile(rf"DESCRIBE\s+DETAIL\s+{_TABLE}\s*$", re.I), _detail),
    (
        re.compile(rf"VACUUM\s+{_TABLE}(?:\s+RETAIN\s+(?P<hours>[\d.]+)\s+HOURS)?(?:\s+DRY\s+RUN)?\s*$", re.I),
        _vacuum,
    ),
    (
        re.compile(
            rf"OPTIMIZE\s+{_TABLE}(?:\s+WHERE\s+(?P<where>.*?))?(?:\s+ZORDER\s+BY\s*\((?P<zorder>[^)]*)\))?\s*$",
            re.I | re.S,
        ),
        _optimize,
    ),
    (
        re.compile(
            rf"RESTORE\s+(?:TABLE\s+)?{_TABLE}\s+TO\s+(?:VERSION\s+AS\s+OF\s+(?P<version>\d+)|"
            rf"TIMESTAMP\s+AS\s+OF\s+(?P<ts>'[^']*'))\s*$",
            re.I,
        ),
        _restore,
    ),
]
