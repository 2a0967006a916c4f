"""Spark SQL's catalog statements, run by ``spark.sql`` before its query
engine sees the text: ``CREATE``/``DROP``/``SHOW``/``USE`` of databases,
``CREATE TABLE ... USING`` (with ``AS SELECT``), ``CREATE VIEW``,
``INSERT INTO``/``OVERWRITE``, ``DESCRIBE``, ``SHOW TABLES``/``COLUMNS``/
``CREATE TABLE``/``TBLPROPERTIES``/``PARTITIONS``, ``TRUNCATE``,
``ANALYZE``, ``REFRESH``, ``CACHE``/``UNCACHE TABLE``, ``MSCK REPAIR``; and
Delta Lake's (``MERGE INTO``, ``UPDATE``, ``DELETE``..., in ``_delta_sql``).
Queries go to the engine unchanged."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparklet.errors import AnalysisException
from sparklet.sql._warehouse import TableInfo
from sparklet.sql.types import DataType, StructType, _parse_datatype_string

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

_NAME = r"(?P<name>[`\w.]+)"
_IF_NOT_EXISTS = r"(?P<ine>IF\s+NOT\s+EXISTS\s+)?"
_IF_EXISTS = r"(?P<ie>IF\s+EXISTS\s+)?"


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        return text[1:-1].replace(text[0] * 2, text[0])
    return text


def _balanced(text: str, start: int) -> int:
    """The index after the parenthesis closing the one at ``start``."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise AnalysisException(
        f"[PARSE_SYNTAX_ERROR] Syntax error: unbalanced parentheses in {text!r}.", "PARSE_SYNTAX_ERROR"
    )


def _split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside parentheses, angle brackets and quotes."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for c in text:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"`":
            quote = c
        elif c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(c)
    if "".join(current).strip():
        parts.append("".join(current))
    return [p.strip() for p in parts]


def _pairs(text: str) -> dict[str, str]:
    """``OPTIONS (k v, 'k2' = 'v2')`` / ``TBLPROPERTIES (...)`` as a dict."""
    out = {}
    for item in _split_top(text):
        m = re.match(r"\s*('[^']*'|\"[^\"]*\"|[\w.]+)\s*=?\s*(.*)$", item, re.S)
        if m:
            out[_unquote(m.group(1))] = _unquote(m.group(2))
    return out


def _empty(session: SparkSession) -> DataFrame:
    return session.createDataFrame(pa.table({}))


def _rows(session: SparkSession, columns: dict[str, list[Any]]) -> DataFrame:
    return session.createDataFrame(
        pa.table({k: pa.array(v, pa.bool_() if k == "isTemporary" else pa.string()) for k, v in columns.items()})
    )


def _create_table(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    catalog = session.catalog
    db, name = catalog._split(m.group("name"))
    rest = text[m.end() :]
    columns: StructType | None = None
    if rest.lstrip().startswith("("):
        start = rest.index("(")
        end = _balanced(rest, start)
        columns = _schema(rest[start + 1 : end - 1])
        rest = rest[end:]
    clauses: dict[str, Any] = {"options": {}, "properties": {}, "partition_by": [], "query": None}
    while rest.strip():
        rest = rest.strip()
        if re.match(r"AS\b", rest, re.I) or re.match(r"(SELECT|WITH|VALUES)\b", rest, re.I):
            clauses["query"] = re.sub(r"^AS\s+", "", rest, flags=re.I)
            break
        cm = re.match(r"(USING|STORED\s+AS)\s+(\w+)", rest, re.I)
        if cm:
            clauses["format"] = cm.group(2).lower()
            rest = rest[cm.end() :]
            continue
        cm = re.match(r"(OPTIONS|TBLPROPERTIES|PARTITIONED\s+BY)\s*\(", rest, re.I)
        if cm:
            end = _balanced(rest, cm.end() - 1)
            inner = rest[cm.end() : end - 1]
            keyword = cm.group(1).upper()
            if keyword == "OPTIONS":
                clauses["options"].update(_pairs(inner))
            elif keyword == "TBLPROPERTIES":
                clauses["properties"].update(_pairs(inner))
            else:
                clauses["partition_by"] = [_unquote(p.split()[0]) for p in _split_top(inner)]
            rest = rest[end:]
            continue
        cm = re.match(r"(LOCATION|COMMENT)\s+('(?:[^']|'')*'|\"[^\"]*\")", rest, re.I)
        if cm:
            clauses[cm.group(1).lower()] = _unquote(cm.group(2))
            rest = rest[cm.end() :]
            continue
        raise AnalysisException(
            f"[PARSE_SYNTAX_ERROR] Syntax error at or near '{rest.split()[0]}'.", "PARSE_SYNTAX_ERROR"
        )
    if catalog._warehouse.table(db, name) is not None:
        if m.group("ine"):
            return _empty(session)
        raise AnalysisException(
            f"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{db}`.`{name}` because it already exists.",
            "TABLE_OR_VIEW_ALREADY_EXISTS",
        )
    fmt = catalog._format(clauses.get("format"))
    options = dict(clauses["options"])
    location = clauses.get("location") or options.pop("path", None)
    query = clauses["query"]
    if query is not None:
        writer = session.sql(query).write.format(fmt).options(**options).mode("errorifexists")
        if clauses["partition_by"]:
            writer = writer.partitionBy(*clauses["partition_by"])
        if location:
            writer = writer.option("path", location)
        writer.saveAsTable(f"{db}.{name}")
        info = catalog._warehouse.table(db, name)
        if info is not None:
            info.properties.update(clauses["properties"])
            info.comment = clauses.get("comment")
            catalog._warehouse.put(info)
        return _empty(session)
    if columns is None and location is None:
        raise AnalysisException(
            "[UNABLE_TO_INFER_SCHEMA] A schema is required to create a table without a path.",
            "UNABLE_TO_INFER_SCHEMA",
        )
    if columns is None:
        columns = session.read.format(fmt).options(**options).load(location).schema
    catalog._create(
        db,
        name,
        fmt,
        location,
        columns,
        clauses["partition_by"],
        options,
        clauses["properties"],
        clauses.get("comment"),
    )
    return _empty(session)


def _schema(text: str) -> StructType:
    """A column list (``name STRING, age INT COMMENT '...'``) as a schema."""
    from sparklet.sql.types import StructField

    fields = []
    for item in _split_top(text):
        item = re.sub(r"\s+(NOT\s+NULL|COMMENT\s+'(?:[^']|'')*')", "", item, flags=re.I)
        name, _, type_text = item.strip().partition(" ")
        fields.append(StructField(_unquote(name), _parse_datatype_string(type_text.strip()), True))
    return StructType(fields)


def _ddl_type(dt: DataType) -> str:
    """A type as Spark 4.3's ``SHOW CREATE TABLE`` writes it: strings with
    their collation, nested fields keeping their case."""
    from sparklet.sql.types import ArrayType, MapType, StringType

    if isinstance(dt, StringType):
        return "STRING COLLATE UTF8_BINARY"
    if isinstance(dt, ArrayType):
        return f"ARRAY<{_ddl_type(dt.elementType)}>"
    if isinstance(dt, MapType):
        return f"MAP<{_ddl_type(dt.keyType)}, {_ddl_type(dt.valueType)}>"
    if isinstance(dt, StructType):
        return f"STRUCT<{', '.join(f'{f.name}: {_ddl_type(f.dataType)}' for f in dt.fields)}>"
    return dt.simpleString().upper()


def create_statement(info: TableInfo) -> str:
    """``SHOW CREATE TABLE``'s statement for ``info``."""
    schema = _parse_datatype_string(info.schema)
    columns = ",\n".join(f"  {f.name} {_ddl_type(f.dataType)}" for f in getattr(schema, "fields", []))
    out = f"CREATE TABLE {'spark_catalog'}.{info.database}.{info.name} (\n{columns})\nUSING {info.format}\n"
    if info.partition_by:
        out += f"PARTITIONED BY ({', '.join(info.partition_by)})\n"
    if info.comment:
        out += f"COMMENT '{info.comment}'\n"
    if info.kind == "EXTERNAL":
        out += f"LOCATION 'file:{info.location}'\n"
    if info.properties:
        props = ",\n".join(f"  '{k}' = '{v}'" for k, v in sorted(info.properties.items()))
        out += f"TBLPROPERTIES (\n{props})\n"
    return out


def _insert(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    rest = text[m.end() :].strip()
    static: dict[str, str] = {}
    pm = re.match(r"PARTITION\s*\(", rest, re.I)
    if pm:
        end = _balanced(rest, pm.end() - 1)
        for item in _split_top(rest[pm.end() : end - 1]):
            k, _, v = item.partition("=")
            static[_unquote(k.strip())] = v.strip()
        rest = rest[end:].strip()
    columns: list[str] | None = None
    if rest.startswith("(") and not re.match(r"\(\s*(SELECT|WITH|VALUES)\b", rest, re.I):
        end = _balanced(rest, 0)
        columns = [_unquote(c) for c in _split_top(rest[1 : end - 1])]
        rest = rest[end:].strip()
    query = rest
    if re.match(r"VALUES\b", query, re.I):
        query = f"SELECT * FROM ({query})"
    df = session.sql(query)
    catalog = session.catalog
    info = catalog._require(m.group("name"))
    if static:
        from sparklet.sql import functions as F

        for k, v in static.items():
            df = df.withColumn(k, F.expr(v))
    if columns is not None:
        # the listed columns by position; the table's others are null
        from sparklet.sql import functions as F

        df = df.toDF(*columns[: len(df.columns)])
        target = _parse_datatype_string(info.schema).fields  # type: ignore[attr-defined]
        df = df.select(
            *[F.col(f"`{f.name}`") if f.name in df.columns else F.lit(None).cast(f.dataType) for f in target]
        )
    df.write.insertInto(f"{info.database}.{info.name}", overwrite=m.group("mode").upper() == "OVERWRITE")
    return _empty(session)


def _describe(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    name = m.group("name")
    catalog = session.catalog
    info = catalog._info(name) if not catalog._is_temp_view(name) else None
    if info is None and not catalog._is_temp_view(name):
        raise AnalysisException(
            f"[TABLE_OR_VIEW_NOT_FOUND] The table or view `{name}` cannot be found. Verify the spelling and "
            "correctness of the schema and catalog.",
            "TABLE_OR_VIEW_NOT_FOUND",
        )
    schema = session.table(name).schema
    rows: dict[str, list[Any]] = {
        "col_name": [f.name for f in schema.fields],
        "data_type": [f.dataType.simpleString() for f in schema.fields],
        "comment": [None] * len(schema.fields),
    }
    if info is not None and info.partition_by:
        rows["col_name"] += ["# Partition Information", "# col_name", *info.partition_by]
        types = {f.name: f.dataType.simpleString() for f in schema.fields}
        rows["data_type"] += ["", "data_type", *[types.get(p, "") for p in info.partition_by]]
        rows["comment"] += ["", "comment", *[None] * len(info.partition_by)]
    if m.group("extended") and info is not None:
        details = [
            ("Catalog", "spark_catalog"),
            ("Database", info.database),
            ("Table", info.name),
            ("Type", info.kind),
            ("Provider", info.format or ""),
            ("Location", f"file:{info.location}" if info.location else ""),
        ]
        rows["col_name"] += ["", "# Detailed Table Information", *[k for k, _ in details]]
        rows["data_type"] += ["", "", *[v for _, v in details]]
        rows["comment"] += ["", "", *[""] * len(details)]
    return _rows(session, rows)


def _show_tables(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    db = m.group("db")
    pattern = m.group("pattern")
    tables = session.catalog.listTables(_unquote(db) if db else None)
    if pattern:
        regex = re.compile("|".join(p.strip().replace("*", ".*") for p in _unquote(pattern).split("|")), re.I)
        tables = [t for t in tables if regex.fullmatch(t.name)]
    current = _unquote(db) if db else session.catalog.currentDatabase()
    return _rows(
        session,
        {
            "namespace": ["" if t.isTemporary else current for t in tables],
            "tableName": [t.name for t in tables],
            "isTemporary": [t.isTemporary for t in tables],
        },
    )


def _view(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    query = text[m.end() :].strip()
    name = m.group("name")
    df = session.sql(query)
    if m.group("temp"):
        if m.group("global") and m.group("replace"):
            df.createOrReplaceGlobalTempView(name)
        elif m.group("global"):
            df.createGlobalTempView(name)
        elif m.group("replace") or m.group("ine") is None:
            if not m.group("replace") and session.catalog._is_temp_view(name):
                raise AnalysisException(
                    f"[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{name}` because it already exists.",
                    "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                )
            df.createOrReplaceTempView(name)
        return _empty(session)
    catalog = session.catalog
    db, table = catalog._split(name)
    existing = catalog._warehouse.table(db, table)
    if existing is not None and not m.group("replace"):
        if m.group("ine"):
            return _empty(session)
        raise AnalysisException(
            f"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{db}`.`{table}` because it already exists.",
            "TABLE_OR_VIEW_ALREADY_EXISTS",
        )
    catalog._put(TableInfo(name=table, database=db, kind="VIEW", schema=df.schema.simpleString(), view_text=query))
    return _empty(session)


def _drop(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    name = m.group("name")
    catalog = session.catalog
    if m.group("what").upper() == "VIEW":
        catalog.dropView(name, ifExists=bool(m.group("ie")))
    else:
        catalog.dropTable(name, ifExists=bool(m.group("ie")))
    return _empty(session)


def _database(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    catalog = session.catalog
    name = _unquote(m.group("name"))
    if m.group("verb").upper() == "CREATE":
        comment = re.search(r"COMMENT\s+'((?:[^']|'')*)'", text[m.end() :], re.I)
        catalog.createDatabase(name, ifNotExists=bool(m.group("ine")), comment=comment.group(1) if comment else None)
    else:
        cascade = re.search(r"\bCASCADE\b", text[m.end() :], re.I) is not None
        catalog.dropDatabase(name, ifExists=bool(m.group("ie")), cascade=cascade)
    return _empty(session)


def _table_call(method: str) -> Callable[[SparkSession, re.Match[str], str], DataFrame]:
    def run(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
        getattr(session.catalog, method)(m.group("name"))
        return _empty(session)

    return run


def _show_create(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    return _rows(session, {"createtab_stmt": [session.catalog.getCreateTableString(m.group("name"))]})


def _show_properties(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    props = session.catalog.getTableProperties(m.group("name"))
    key = m.group("key")
    if key is not None:
        # ``SHOW TBLPROPERTIES t (key)``: that property, or Spark's note of its absence
        key = key.strip("'\"`")
        info = session.catalog.getTable(m.group("name"))
        missing = f"Table spark_catalog.{info.database}.{info.name} does not have property: {key}"
        return _rows(session, {"key": [key], "value": [props.get(key, missing)]})
    return _rows(session, {"key": list(props), "value": list(props.values())})


def _show_columns(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    return _rows(session, {"col_name": [c.name for c in session.catalog.listColumns(m.group("name"))]})


def _show_partitions(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    return _rows(session, {"partition": [p.partition for p in session.catalog.listPartitions(m.group("name"))]})


def _show_databases(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    pattern = m.group("pattern")
    names = [d.name for d in session.catalog.listDatabases()]
    if pattern:
        regex = re.compile(_unquote(pattern).replace("*", ".*"), re.I)
        names = [n for n in names if regex.fullmatch(n)]
    return _rows(session, {"namespace": names})


def _use(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    session.catalog.setCurrentDatabase(_unquote(m.group("name")))
    return _empty(session)


def _cache(session: SparkSession, m: re.Match[str], text: str) -> DataFrame:
    query = text[m.end() :].strip()
    if query:
        session.sql(re.sub(r"^AS\s+", "", query, flags=re.I)).createOrReplaceTempView(m.group("name"))
    session.catalog.cacheTable(m.group("name"))
    return _empty(session)


def _uncache(session: SparkSession, m: re.Match[str], _: str) -> DataFrame:
    catalog = session.catalog
    if m.group("ie") and not catalog.tableExists(m.group("name")):
        return _empty(session)
    catalog.uncacheTable(m.group("name"))
    return _empty(session)


#: (pattern, handler): the first whose pattern matches the statement's start runs it.
_STATEMENTS: list[tuple[re.Pattern[str], Callable[[SparkSession, re.Match[str], str], DataFrame]]] = [
    (
        re.compile(rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?TABLE\s+{_IF_NOT_EXISTS}{_NAME}", re.I | re.S),
        _create_table,
    ),
    (
        re.compile(
            rf"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?P<global>GLOBAL\s+)?(?P<temp>TEMP(?:ORARY)?\s+)?VIEW\s+"
            rf"{_IF_NOT_EXISTS}{_NAME}(?:\s*\([^)]*\))?\s+AS\b",
            re.I | re.S,
        ),
        _view,
    ),
    (re.compile(rf"INSERT\s+(?P<mode>INTO|OVERWRITE)\s+(?:TABLE\s+)?{_NAME}", re.I), _insert),
    (re.compile(rf"DROP\s+(?P<what>TABLE|VIEW)\s+{_IF_EXISTS}{_NAME}\s*$", re.I), _drop),
    (re.compile(rf"(?P<verb>CREATE)\s+(?:DATABASE|SCHEMA|NAMESPACE)\s+{_IF_NOT_EXISTS}{_NAME}", re.I), _database),
    (re.compile(rf"(?P<verb>DROP)\s+(?:DATABASE|SCHEMA|NAMESPACE)\s+{_IF_EXISTS}{_NAME}", re.I), _database),
    (
        re.compile(rf"(?:DESCRIBE|DESC)\s+(?:TABLE\s+)?(?P<extended>EXTENDED\s+|FORMATTED\s+)?{_NAME}\s*$", re.I),
        _describe,
    ),
    (
        re.compile(
            r"SHOW\s+TABLES(?:\s+(?:IN|FROM)\s+(?P<db>[`\w]+))?(?:\s+(?:LIKE\s+)?(?P<pattern>'[^']*'|\"[^\"]*\"))?\s*$",
            re.I,
        ),
        _show_tables,
    ),
    (
        re.compile(r"SHOW\s+(?:DATABASES|SCHEMAS|NAMESPACES)(?:\s+(?:LIKE\s+)?(?P<pattern>'[^']*'))?\s*$", re.I),
        _show_databases,
    ),
    (re.compile(rf"SHOW\s+CREATE\s+TABLE\s+{_NAME}\s*$", re.I), _show_create),
    (re.compile(rf"SHOW\s+TBLPROPERTIES\s+{_NAME}\s*(?:\(\s*(?P<key>[\w.'\"`]+)\s*\))?\s*$", re.I), _show_properties),
    (re.compile(rf"SHOW\s+COLUMNS\s+(?:IN|FROM)\s+{_NAME}\s*$", re.I), _show_columns),
    (re.compile(rf"SHOW\s+PARTITIONS\s+{_NAME}\s*$", re.I), _show_partitions),
    (re.compile(rf"USE\s+(?:DATABASE\s+|SCHEMA\s+|NAMESPACE\s+)?{_NAME}\s*$", re.I), _use),
    (re.compile(rf"TRUNCATE\s+TABLE\s+{_NAME}\s*$", re.I), _table_call("truncateTable")),
    (re.compile(rf"ANALYZE\s+TABLE\s+{_NAME}\s+COMPUTE\s+STATISTICS.*$", re.I | re.S), _table_call("analyzeTable")),
    (re.compile(rf"REFRESH\s+TABLE\s+{_NAME}\s*$", re.I), _table_call("refreshTable")),
    (re.compile(rf"MSCK\s+REPAIR\s+TABLE\s+{_NAME}\s*$", re.I), _table_call("recoverPartitions")),
    (re.compile(rf"ALTER\s+TABLE\s+{_NAME}\s+RECOVER\s+PARTITIONS\s*$", re.I), _table_call("recoverPartitions")),
    (re.compile(rf"CACHE\s+(?:LAZY\s+)?TABLE\s+{_NAME}", re.I), _cache),
    (re.compile(rf"UNCACHE\s+TABLE\s+{_IF_EXISTS}{_NAME}\s*$", re.I), _uncache),
]


def run(session: SparkSession, text: str) -> DataFrame | None:
    """The result of ``text`` if it is a catalog statement, else None."""
    from sparklet.sql._delta_sql import STATEMENTS as DELTA_STATEMENTS

    statement = text.strip().rstrip(";").strip()
    for pattern, handler in [*_STATEMENTS, *DELTA_STATEMENTS]:
        m = pattern.match(statement)
        if m:
            return handler(session, m, statement)
    return None
