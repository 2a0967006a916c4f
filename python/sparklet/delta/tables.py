"""delta-spark's ``delta.tables`` API over sparklet's Delta tables.

A job written for Delta Lake on Spark changes one import::

    from delta.tables import DeltaTable            # on Spark
    from sparklet.delta.tables import DeltaTable   # on sparklet

and keeps its calls: ``DeltaTable.forPath(spark, path)``, ``.alias("t")``,
``.merge(source.alias("s"), "t.id = s.id")`` with its ``whenMatched...`` /
``whenNotMatched...`` clauses, ``update``, ``delete``, ``history``,
``vacuum``, ``optimize``, ``detail``, ``restoreToVersion``. The work is
delta-rs's (``deltalake-core``), on the same files delta-spark reads.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sparklet import _native
from sparklet.errors import AnalysisException, PySparkTypeError
from sparklet.errors._raise import not_expected_type
from sparklet.sql.column import Column

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

__all__ = ["DeltaMergeBuilder", "DeltaOptimizeBuilder", "DeltaTable", "DeltaTableBuilder"]

ExpressionOrColumn = str | Column

_HISTORY_SCHEMA = (
    "version BIGINT, timestamp TIMESTAMP, userId STRING, userName STRING, operation STRING, "
    "operationParameters MAP<STRING, STRING>, "
    "job STRUCT<jobId: STRING, jobName: STRING, jobRunId: STRING, runId: STRING, jobOwnerId: STRING, "
    "triggerType: STRING>, notebook STRUCT<notebookId: STRING>, clusterId STRING, readVersion BIGINT, "
    "isolationLevel STRING, isBlindAppend BOOLEAN, operationMetrics MAP<STRING, STRING>, userMetadata STRING, "
    "engineInfo STRING"
)

_DETAIL_SCHEMA = (
    "format STRING, id STRING, name STRING, description STRING, location STRING, createdAt TIMESTAMP, "
    "lastModified TIMESTAMP, partitionColumns ARRAY<STRING>, clusteringColumns ARRAY<STRING>, numFiles BIGINT, "
    "sizeInBytes BIGINT, properties MAP<STRING, STRING>, minReaderVersion INT, minWriterVersion INT, "
    "tableFeatures ARRAY<STRING>"
)

_MERGE_METRICS_SCHEMA = (
    "num_affected_rows BIGINT, num_updated_rows BIGINT, num_deleted_rows BIGINT, num_inserted_rows BIGINT"
)


def _expr(value: Any) -> Any:
    """A condition or value as the engine's expression: SQL text parsed as
    ``F.expr`` parses it, a Column as it is, anything else a literal."""
    from sparklet.sql import functions as F

    if isinstance(value, Column):
        return value._expr
    if isinstance(value, str):
        return F.expr(value)._expr
    return F.lit(value)._expr


def _condition(value: ExpressionOrColumn | None, what: str) -> Any:
    if value is None:
        return None
    if not isinstance(value, (str, Column)):
        raise not_expected_type(what, "Column or str", value)
    return _expr(value)


def _assignments(values: Mapping[str, Any] | None, what: str, alias: str | None) -> list[tuple[str, Any]]:
    """``set``/``values``: target column (its table alias dropped) and value."""
    if not isinstance(values, Mapping) or not values:
        raise not_expected_type(what, "dict", values)
    out = []
    for column, value in values.items():
        name = str(column).strip("`")
        if alias and name.lower().startswith(alias.lower() + "."):
            name = name[len(alias) + 1 :].strip("`")
        out.append((name, _expr(value)))
    return out


def _location(spark: SparkSession, identifier: str) -> str | None:
    """The folder of a path, or of a catalog table, if it is one."""
    if identifier.lower().startswith("delta.`") and identifier.endswith("`"):
        identifier = identifier[len("delta.`") : -1]
    if os.sep in identifier or identifier.startswith(("file:", ".")) or os.path.isdir(identifier):
        return identifier[len("file:") :] if identifier.startswith("file:") else identifier
    try:
        info = spark.catalog._require(identifier)
    except AnalysisException:
        return None
    return str(info.location) if info.kind != "VIEW" else None


def _not_delta(what: str) -> AnalysisException:
    return AnalysisException(f"[DELTA_MISSING_DELTA_TABLE] {what} is not a Delta table.", "DELTA_MISSING_DELTA_TABLE")


def _millis(ms: int | None) -> datetime.datetime | None:
    if ms is None:
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC).replace(tzinfo=None)


class DeltaTable:
    """A Delta table, as delta-spark's ``delta.tables.DeltaTable``: made by
    :meth:`forPath` or :meth:`forName`, read with :meth:`toDF`, changed with
    :meth:`merge`, :meth:`update` and :meth:`delete`."""

    def __init__(self, spark: SparkSession, path: str, alias: str | None = None, name: str | None = None) -> None:
        self._spark = spark
        self._path = path
        self._alias = alias
        self._name = name

    # ---- finding a table ----------------------------------------------------------
    @classmethod
    def forPath(cls, sparkSession: SparkSession, path: str, hadoopConf: dict[str, str] | None = None) -> DeltaTable:
        """The Delta table in folder ``path``; an ``AnalysisException``
        (``DELTA_MISSING_DELTA_TABLE``) if there is none."""
        local = path[len("file:") :] if path.startswith("file:") else path
        if not _native.delta_is_table(local):
            raise _not_delta(f"`{path}`")
        return cls(sparkSession, local)

    @classmethod
    def forName(cls, sparkSession: SparkSession, tableOrViewName: str) -> DeltaTable:
        """The catalog's Delta table ``tableOrViewName`` (or ``delta.`path```)."""
        location = _location(sparkSession, tableOrViewName)
        if location is None or not _native.delta_is_table(location):
            raise _not_delta(f"`{tableOrViewName}`")
        return cls(sparkSession, location, name=tableOrViewName)

    @classmethod
    def isDeltaTable(cls, sparkSession: SparkSession, identifier: str) -> bool:
        """Whether ``identifier`` (a path, or a table name) is a Delta table."""
        location = _location(sparkSession, identifier)
        return location is not None and _native.delta_is_table(location)

    @classmethod
    def create(cls, sparkSession: SparkSession | None = None) -> DeltaTableBuilder:
        """A builder of a new table (an error if it exists)."""
        return DeltaTableBuilder(_session(sparkSession), "create")

    @classmethod
    def createIfNotExists(cls, sparkSession: SparkSession | None = None) -> DeltaTableBuilder:
        """A builder of a new table, or of nothing if it exists."""
        return DeltaTableBuilder(_session(sparkSession), "createIfNotExists")

    @classmethod
    def replace(cls, sparkSession: SparkSession | None = None) -> DeltaTableBuilder:
        """A builder that replaces an existing table."""
        return DeltaTableBuilder(_session(sparkSession), "replace")

    @classmethod
    def createOrReplace(cls, sparkSession: SparkSession | None = None) -> DeltaTableBuilder:
        """A builder that creates the table or replaces it."""
        return DeltaTableBuilder(_session(sparkSession), "createOrReplace")

    # ---- reading -----------------------------------------------------------------
    def toDF(self) -> DataFrame:
        """The table's current rows (aliased when :meth:`alias` named it)."""
        df = self._spark.read.format("delta").load(self._path)
        return df.alias(self._alias) if self._alias else df

    def alias(self, aliasName: str) -> DeltaTable:
        """The table under ``aliasName``, the name a merge's conditions use."""
        return DeltaTable(self._spark, self._path, aliasName, self._name)

    # ---- changing rows -------------------------------------------------------------
    def merge(self, source: DataFrame, condition: ExpressionOrColumn) -> DeltaMergeBuilder:
        """Start a MERGE of ``source`` into this table on ``condition``; add
        clauses, then :meth:`DeltaMergeBuilder.execute`."""
        from sparklet.sql.dataframe import DataFrame

        if not isinstance(source, DataFrame):
            raise not_expected_type("source", "DataFrame", source)
        if condition is None:
            raise PySparkTypeError("[NOT_COLUMN_OR_STR] Argument `condition` should be a Column or str, got None.")
        return DeltaMergeBuilder(self, source, condition)

    def update(
        self,
        condition: ExpressionOrColumn | None = None,
        set: Mapping[str, Any] | None = None,  # noqa: A002
    ) -> None:
        """Set columns (``set``: column to value) in the rows where
        ``condition`` holds (every row without one)."""
        if set is None and isinstance(condition, dict):
            condition, set = None, condition
        self._update(condition, set)

    def delete(self, condition: ExpressionOrColumn | None = None) -> None:
        """Delete the rows where ``condition`` holds (every row without one)."""
        self._delete(condition)

    def _update(self, condition: ExpressionOrColumn | None, set: Mapping[str, Any] | None) -> int:  # noqa: A002
        """``update``: the number of rows updated."""
        count = _native.delta_update(
            self._spark._native,
            self._path,
            _condition(condition, "condition"),
            _assignments(set, "set", self._alias),
        )
        self._refresh()
        return int(count)

    def _delete(self, condition: ExpressionOrColumn | None) -> int:
        """``delete``: the number of rows deleted."""
        count = _native.delta_delete(self._spark._native, self._path, _condition(condition, "condition"))
        self._refresh()
        return int(count)

    # ---- the table's log and files -------------------------------------------------
    def history(self, limit: int | None = None) -> DataFrame:
        """The table's commits, newest first (delta-spark's columns)."""
        rows = []
        for text in _native.delta_history(self._path, limit):
            c = json.loads(text)
            rows.append(
                (
                    c["version"],
                    _millis(c["timestamp"]),
                    c["userId"],
                    c["userName"],
                    c["operation"],
                    c["operationParameters"],
                    None,
                    None,
                    None,
                    c["readVersion"],
                    c["isolationLevel"],
                    c["isBlindAppend"],
                    c["operationMetrics"],
                    c["userMetadata"],
                    c["engineInfo"],
                )
            )
        return self._spark.createDataFrame(rows, _HISTORY_SCHEMA)

    def detail(self) -> DataFrame:
        """One row describing the table: its id, location, partition
        columns, files, size, properties and protocol."""
        d = json.loads(_native.delta_detail(self._path))
        row = (
            d["format"],
            d["id"],
            d["name"] or self._name,
            d["description"],
            d["location"],
            _millis(d["createdAt"]),
            _millis(d["lastModified"]),
            d["partitionColumns"],
            d["clusteringColumns"],
            d["numFiles"],
            d["sizeInBytes"],
            d["properties"],
            d["minReaderVersion"],
            d["minWriterVersion"],
            d["tableFeatures"],
        )
        return self._spark.createDataFrame([row], _DETAIL_SCHEMA)

    def vacuum(self, retentionHours: float | None = None) -> DataFrame:
        """Delete the files the table no longer references and older than
        ``retentionHours`` (the table's retention, 7 days, by default)."""
        check = self._spark.conf.get("spark.databricks.delta.retentionDurationCheck.enabled", "true")
        enforce = str(check).lower() != "false"
        _native.delta_vacuum(self._path, retentionHours, enforce, False)
        return self._spark.createDataFrame([("file:" + os.path.abspath(self._path),)], "path STRING")

    def optimize(self) -> DeltaOptimizeBuilder:
        """A builder that compacts small files (or Z-orders them)."""
        return DeltaOptimizeBuilder(self)

    def restoreToVersion(self, version: int) -> DataFrame:
        """Make the table's current state that of ``version`` (a new commit)."""
        return self._restore(_native.delta_restore(self._path, int(version), None))

    def restoreToTimestamp(self, timestamp: str) -> DataFrame:
        """Make the table's current state that at ``timestamp`` (a new commit)."""
        return self._restore(_native.delta_restore(self._path, None, str(timestamp)))

    def _restore(self, metrics: str) -> DataFrame:
        m = json.loads(metrics)
        self._refresh()
        row = (None, None, int(m.get("numRemovedFile", 0)), int(m.get("numRestoredFile", 0)), None, None)
        return self._spark.createDataFrame(
            [row],
            "table_size_after_restore BIGINT, num_of_files_after_restore BIGINT, num_removed_files BIGINT, "
            "num_restored_files BIGINT, removed_files_size BIGINT, restored_files_size BIGINT",
        )

    def _refresh(self) -> None:
        """Catalog tables over this folder read the new version."""
        self._spark.catalog._refresh_changed()

    def __repr__(self) -> str:
        return f"DeltaTable({self._name or self._path!r})"


def _session(spark: SparkSession | None) -> SparkSession:
    from sparklet.sql.session import SparkSession

    return spark or SparkSession.builder.getOrCreate()


_CLAUSE_NAMES = {
    "matched_update": "whenMatchedUpdate",
    "matched_delete": "whenMatchedDelete",
    "not_matched_insert": "whenNotMatchedInsert",
    "not_matched_by_source_update": "whenNotMatchedBySourceUpdate",
    "not_matched_by_source_delete": "whenNotMatchedBySourceDelete",
}


class DeltaMergeBuilder:
    """The clauses of a MERGE, as delta-spark's: each ``when...`` adds one
    (checked in the order added), :meth:`execute` runs them in one commit."""

    def __init__(self, table: DeltaTable, source: DataFrame, on: ExpressionOrColumn) -> None:
        self._table = table
        self._source = source
        self._on = on
        self._clauses: list[tuple[str, Any, Any]] = []
        self._schema_evolution = False

    def _add(self, kind: str, condition: ExpressionOrColumn | None, values: Any) -> DeltaMergeBuilder:
        self._clauses.append((kind, condition, values))
        return self

    def whenMatchedUpdate(
        self,
        condition: ExpressionOrColumn | None = None,
        set: Mapping[str, Any] | None = None,  # noqa: A002
    ) -> DeltaMergeBuilder:
        """Update matched target rows: ``set`` maps target columns to values."""
        return self._add("matched_update", condition, set)

    def whenMatchedUpdateAll(self, condition: ExpressionOrColumn | None = None) -> DeltaMergeBuilder:
        """Update every column of matched target rows from the source's."""
        return self._add("matched_update", condition, _ALL)

    def whenMatchedDelete(self, condition: ExpressionOrColumn | None = None) -> DeltaMergeBuilder:
        """Delete matched target rows."""
        return self._add("matched_delete", condition, None)

    def whenNotMatchedInsert(
        self,
        condition: ExpressionOrColumn | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> DeltaMergeBuilder:
        """Insert source rows no target row matches: ``values`` maps target
        columns to values (others are null)."""
        return self._add("not_matched_insert", condition, values)

    def whenNotMatchedInsertAll(self, condition: ExpressionOrColumn | None = None) -> DeltaMergeBuilder:
        """Insert unmatched source rows, every column from the source's."""
        return self._add("not_matched_insert", condition, _ALL)

    def whenNotMatchedBySourceUpdate(
        self,
        condition: ExpressionOrColumn | None = None,
        set: Mapping[str, Any] | None = None,  # noqa: A002
    ) -> DeltaMergeBuilder:
        """Update target rows no source row matches."""
        return self._add("not_matched_by_source_update", condition, set)

    def whenNotMatchedBySourceDelete(self, condition: ExpressionOrColumn | None = None) -> DeltaMergeBuilder:
        """Delete target rows no source row matches."""
        return self._add("not_matched_by_source_delete", condition, None)

    def withSchemaEvolution(self) -> DeltaMergeBuilder:
        """Let the merge add the source's new columns to the table."""
        self._schema_evolution = True
        return self

    def execute(self) -> DataFrame:
        """Run the merge (one commit); its row counts as a one-row DataFrame
        (``num_affected_rows``, ``num_updated_rows``, ``num_deleted_rows``,
        ``num_inserted_rows``)."""
        table, source = self._table, self._source
        target_alias = table._alias or "target"
        source_alias = _alias_of(source) or "source"
        target_columns = [f.name for f in table.toDF().schema.fields]
        source_columns = [f.name for f in source.schema.fields]
        clauses = []
        for kind, condition, values in self._clauses:
            name = _CLAUSE_NAMES[kind]
            if values is _ALL:
                columns = target_columns
                if self._schema_evolution and kind == "not_matched_insert":
                    columns = target_columns + [c for c in source_columns if c not in target_columns]
                missing = [c for c in columns if c not in source_columns]
                if missing and kind == "matched_update":
                    raise AnalysisException(
                        f"[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve {target_alias}.{missing[0]} in "
                        f"UPDATE clause given columns {', '.join(f'{source_alias}.{c}' for c in source_columns)}.",
                        "DELTA_MERGE_UNRESOLVED_EXPRESSION",
                    )
                assignments = [
                    (c, Column(_native.col(f"{source_alias}.{c}"))._expr) for c in columns if c in source_columns
                ]
            elif values is None:
                assignments = []
            else:
                what = "values" if kind == "not_matched_insert" else "set"
                assignments = _assignments(values, f"{name}.{what}", target_alias)
            clauses.append((kind, _condition(condition, f"{name}.condition"), assignments))
        counts = _native.delta_merge(
            source._native,
            table._path,
            target_alias,
            source_alias,
            _condition(self._on, "condition"),
            clauses,
            self._schema_evolution,
        )
        table._refresh()
        return table._spark.createDataFrame([counts], _MERGE_METRICS_SCHEMA)


_ALL = object()


def _alias_of(df: DataFrame) -> str | None:
    """The name ``df.alias(name)`` gave, if its plan ends in one."""
    alias: str | None = df._native.plan_alias()
    return alias


class DeltaOptimizeBuilder:
    """``deltaTable.optimize()``: ``where`` picks partitions, then
    :meth:`executeCompaction` or :meth:`executeZOrderBy` runs it."""

    _FILTER = re.compile(r"^\s*`?(\w+)`?\s*(=|!=|<>|<=|>=|<|>)\s*'?(.*?)'?\s*$")

    def __init__(self, table: DeltaTable) -> None:
        self._table = table
        self._filters: list[tuple[str, str, str]] = []

    def where(self, partitionFilter: str) -> DeltaOptimizeBuilder:
        """Only partitions where ``partitionFilter`` holds (comparisons of
        partition columns with literals, joined by AND)."""
        for part in re.split(r"\s+and\s+", partitionFilter, flags=re.IGNORECASE):
            m = self._FILTER.match(part)
            if m is None:
                raise AnalysisException(
                    f"[DELTA_UNSUPPORTED_PARTITION_PREDICATE] optimize().where() takes comparisons of partition "
                    f"columns with literals joined by AND; cannot use: {part.strip()!r}",
                    "DELTA_UNSUPPORTED_PARTITION_PREDICATE",
                )
            self._filters.append((m.group(1), m.group(2), m.group(3)))
        return self

    def executeCompaction(self) -> DataFrame:
        """Rewrite small files into larger ones (one commit)."""
        return self._run([])

    def executeZOrderBy(self, *cols: str | list[str]) -> DataFrame:
        """Rewrite the files clustered by ``cols`` (Z-order)."""
        names = [c for col in cols for c in ([col] if isinstance(col, str) else col)]
        return self._run(names)

    def _run(self, zorder: list[str]) -> DataFrame:
        t = self._table
        m = json.loads(_native.delta_optimize(t._path, self._filters, zorder))
        t._refresh()
        row = (
            "file:" + os.path.abspath(t._path),
            (
                m.get("numFilesAdded", 0),
                m.get("numFilesRemoved", 0),
                m.get("partitionsOptimized", 0),
                m.get("numBatches", 0),
                m.get("totalConsideredFiles", 0),
                m.get("totalFilesSkipped", 0),
            ),
        )
        return t._spark.createDataFrame(
            [row],
            "path STRING, metrics STRUCT<numFilesAdded: BIGINT, numFilesRemoved: BIGINT, "
            "partitionsOptimized: BIGINT, numBatches: BIGINT, totalConsideredFiles: BIGINT, "
            "totalFilesSkipped: BIGINT>",
        )


class DeltaTableBuilder:
    """``DeltaTable.create(spark)...execute()``: a new Delta table from its
    name or location, columns, partitioning, properties and comment."""

    def __init__(self, spark: SparkSession, mode: str) -> None:
        self._spark = spark
        self._mode = mode
        self._name: str | None = None
        self._location: str | None = None
        self._columns: list[str] = []
        self._partitioned_by: list[str] = []
        self._properties: dict[str, str] = {}
        self._comment: str | None = None

    def tableName(self, identifier: str) -> DeltaTableBuilder:
        """The table's name in the catalog."""
        self._name = identifier
        return self

    def location(self, location: str) -> DeltaTableBuilder:
        """The table's folder (an external table when named too)."""
        self._location = location
        return self

    def comment(self, comment: str) -> DeltaTableBuilder:
        """The table's comment."""
        self._comment = comment
        return self

    def addColumn(
        self,
        colName: str,
        dataType: Any,
        nullable: bool = True,
        generatedAlwaysAs: str | None = None,
        comment: str | None = None,
    ) -> DeltaTableBuilder:
        """A column: its name and type (a DDL string or a DataType)."""
        from sparklet.sql.types import DataType

        type_text = dataType.simpleString() if isinstance(dataType, DataType) else str(dataType)
        self._columns.append(f"`{colName}` {type_text}{'' if nullable else ' NOT NULL'}")
        return self

    def addColumns(self, cols: Any) -> DeltaTableBuilder:
        """Columns from a StructType (or a list of StructFields)."""
        for f in getattr(cols, "fields", cols):
            self.addColumn(f.name, f.dataType, f.nullable)
        return self

    def partitionedBy(self, *cols: str | list[str]) -> DeltaTableBuilder:
        """The partition columns."""
        self._partitioned_by = [c for col in cols for c in ([col] if isinstance(col, str) else col)]
        return self

    def property(self, key: str, value: str) -> DeltaTableBuilder:
        """A table property (``delta.enableChangeDataFeed``...)."""
        self._properties[key] = value
        return self

    def execute(self) -> DeltaTable:
        """Create (or replace) the table; it as a :class:`DeltaTable`."""
        from sparklet.sql.types import StructType, _parse_datatype_string

        if self._name is None and self._location is None:
            raise AnalysisException(
                "[DELTA_CANNOT_CREATE_TABLE_WITHOUT_NAME_OR_LOCATION] Table name or location has to be specified.",
                "DELTA_CANNOT_CREATE_TABLE_WITHOUT_NAME_OR_LOCATION",
            )
        spark = self._spark
        catalog = spark.catalog
        parsed = _parse_datatype_string(", ".join(self._columns)) if self._columns else StructType([])
        schema = parsed if isinstance(parsed, StructType) else StructType([])
        exists = (
            DeltaTable.isDeltaTable(spark, self._name)
            if self._name
            else DeltaTable.isDeltaTable(spark, self._location or "")
        )
        if exists and self._mode == "create":
            what = self._name or self._location
            raise AnalysisException(
                f"[DELTA_TABLE_ALREADY_EXISTS] Table {what} already exists.", "DELTA_TABLE_ALREADY_EXISTS"
            )
        if exists and self._mode == "createIfNotExists":
            return (
                DeltaTable.forName(spark, self._name) if self._name else DeltaTable.forPath(spark, self._location or "")
            )
        if not exists and self._mode == "replace":
            raise AnalysisException(
                f"[DELTA_TABLE_NOT_FOUND] Delta table {self._name or self._location} doesn't exist.",
                "DELTA_TABLE_NOT_FOUND",
            )
        empty = spark.createDataFrame([], schema)
        writer = empty.write.format("delta").mode("overwrite" if exists else "errorifexists")
        writer = writer.option("overwriteSchema", "true") if exists else writer
        if self._partitioned_by:
            writer = writer.partitionBy(*self._partitioned_by)
        for k, v in self._properties.items():
            writer = writer.option(k, v)
        if self._name is None:
            writer.save(self._location)
            return DeltaTable.forPath(spark, self._location or "")
        if exists:
            info = catalog._require(self._name)
            writer.save(str(info.location))
        else:
            db, name = catalog._split(self._name)
            if self._location is not None:
                writer.save(self._location)
            catalog._create(
                db,
                name,
                "delta",
                self._location,
                schema,
                self._partitioned_by,
                None,
                dict(self._properties),
                self._comment,
            )
        return DeltaTable.forName(spark, self._name)
