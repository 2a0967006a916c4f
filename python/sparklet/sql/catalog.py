""":class:`Catalog` (``spark.catalog``), as :mod:`pyspark.sql.catalog`:
databases, persistent tables and views kept in the warehouse folder (see
:mod:`sparklet.sql._warehouse`), temporary and global temporary views,
functions, and cached tables."""

from __future__ import annotations

import fnmatch
import os
import shutil
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from sparklet.errors import AnalysisException
from sparklet.errors._raise import not_expected_type
from sparklet.sql._warehouse import CATALOG_NAME, DEFAULT_DB, DatabaseInfo, TableInfo, Warehouse
from sparklet.sql.types import StructType, _parse_datatype_string
from sparklet.storagelevel import StorageLevel

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

__all__ = ["Catalog", "CatalogMetadata", "Database", "Table", "Column", "Function", "TablePartition"]

#: The database of global temporary views (``global_temp.<name>``).
GLOBAL_TEMP = "global_temp"


class CatalogMetadata(NamedTuple):
    """A catalog (there is one: ``spark_catalog``)."""

    name: str
    description: str | None


class Database(NamedTuple):
    """A database (namespace) of tables."""

    name: str
    catalog: str | None
    description: str | None
    locationUri: str


class Table(NamedTuple):
    """A table or view."""

    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    tableType: str
    isTemporary: bool

    @property
    def database(self) -> str | None:
        """The table's database (its namespace's one name)."""
        return self.namespace[0] if self.namespace and len(self.namespace) == 1 else None


class Column(NamedTuple):
    """A column of a table."""

    name: str
    description: str | None
    dataType: str
    nullable: bool
    isPartition: bool
    isBucket: bool
    isCluster: bool


class Function(NamedTuple):
    """A function."""

    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    className: str
    isTemporary: bool


class TablePartition(NamedTuple):
    """A partition of a table (``"p=1"``, ``"a=1/b=x"``)."""

    partition: str


def _not_found(name: str) -> AnalysisException:
    return AnalysisException(
        f"[TABLE_OR_VIEW_NOT_FOUND] The table or view `{name}` cannot be found. Verify the spelling and "
        "correctness of the schema and catalog.",
        "TABLE_OR_VIEW_NOT_FOUND",
    )


def _no_database(name: str) -> AnalysisException:
    return AnalysisException(
        f"[SCHEMA_NOT_FOUND] The schema `{CATALOG_NAME}`.`{name}` cannot be found. Verify the spelling and "
        "correctness of the schema and catalog.",
        "SCHEMA_NOT_FOUND",
    )


class Catalog:
    """``spark.catalog``: databases, tables, views and functions of the session's one catalog, ``spark_catalog``, whose tables live in the warehouse folder (``spark.sql.warehouse.dir``).

    Examples
    --------
    >>> spark.range(3).write.saveAsTable("cat_intro")
    >>> [t.name for t in spark.catalog.listTables() if t.name == "cat_intro"]
    ['cat_intro']
    >>> spark.catalog.tableExists("cat_intro")
    True
    """

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._native = session._native
        conf = session.conf.get("spark.sql.warehouse.dir", None) or "spark-warehouse"
        self._warehouse = Warehouse(conf[len("file:") :] if conf.startswith("file:") else conf)
        #: cached tables by qualified name: their DataFrame, persisted
        self._cached: dict[str, DataFrame] = {}
        #: the files each registered table was read from (count, size, newest change)
        self._signatures: dict[str, tuple[int, int, float]] = {}
        # a table's signature and the view read with it change together: a
        # thread refreshing a table between another's signature and view
        # would leave a stale view behind a current signature, never re-read
        self._registering = threading.RLock()

    # ---- names ----------------------------------------------------------
    def _split(self, name: str, db: str | None = None) -> tuple[str, str]:
        """``(database, table)`` of ``t``, ``db.t`` or ``spark_catalog.db.t``."""
        if not isinstance(name, str):
            raise not_expected_type("tableName", "str", name)
        # Spark's session catalog keeps names in lower case and matches them so
        parts = [p.strip("`").lower() for p in name.split(".")]
        if len(parts) == 3 and parts[0] == CATALOG_NAME:
            parts = parts[1:]
        if len(parts) == 2:
            return parts[0], parts[1]
        if len(parts) == 1:
            return db or self.currentDatabase(), parts[0]
        raise AnalysisException(
            f"[REQUIRES_SINGLE_PART_NAMESPACE] {name} requires a single-part namespace.",
            "REQUIRES_SINGLE_PART_NAMESPACE",
        )

    def _temp_views(self) -> list[str]:
        """Temporary views: names in the default namespace the warehouse does not hold."""
        persistent = {t.name for t in self._warehouse.tables(DEFAULT_DB)}
        return [n for n in self._native.table_names(DEFAULT_DB) if n not in persistent]

    def _is_temp_view(self, name: str) -> bool:
        return "." not in name and name.strip("`").lower() in self._temp_views()

    def _info(self, name: str, db: str | None = None) -> TableInfo | None:
        database, table = self._split(name, db)
        return self._warehouse.table(database, table)

    def _require(self, name: str) -> TableInfo:
        info = self._info(name)
        if info is None:
            raise _not_found(name)
        return info

    # ---- the catalog and databases --------------------------------------
    def currentCatalog(self) -> str:
        """The current catalog.

        Returns
        -------
        str
            ``spark_catalog``, the one catalog

        Examples
        --------
        >>> spark.catalog.currentCatalog()
        'spark_catalog'
        """
        return CATALOG_NAME

    def setCurrentCatalog(self, catalogName: str) -> None:
        """Set the current catalog: only ``spark_catalog`` exists.

        Parameters
        ----------
        catalogName : str
            ``spark_catalog``

        Raises
        ------
        AnalysisException
            ``CATALOG_NOT_FOUND`` for any other name

        Examples
        --------
        >>> spark.catalog.setCurrentCatalog("spark_catalog")
        >>> spark.catalog.currentCatalog()
        'spark_catalog'
        """
        if catalogName != CATALOG_NAME:
            raise AnalysisException(f"[CATALOG_NOT_FOUND] The catalog `{catalogName}` not found.", "CATALOG_NOT_FOUND")

    def listCatalogs(self, pattern: str | None = None) -> list[CatalogMetadata]:
        """The catalogs.

        Parameters
        ----------
        pattern : str, optional
            a ``*`` wildcard pattern the names must match

        Returns
        -------
        list of CatalogMetadata
            each one's ``name`` and ``description``

        Examples
        --------
        >>> [c.name for c in spark.catalog.listCatalogs()]
        ['spark_catalog']
        """
        found = [CatalogMetadata(CATALOG_NAME, None)]
        return [c for c in found if pattern is None or fnmatch.fnmatchcase(c.name, pattern)]

    def currentDatabase(self) -> str:
        """The database unqualified names resolve in.

        Returns
        -------
        str
            its name (``default`` at first)

        Examples
        --------
        >>> spark.catalog.currentDatabase()
        'default'
        """
        return str(self._native.current_database())

    def setCurrentDatabase(self, dbName: str) -> None:
        """Resolve unqualified names in ``dbName`` from now on.

        Parameters
        ----------
        dbName : str
            the database

        Raises
        ------
        AnalysisException
            ``SCHEMA_NOT_FOUND`` for a missing database

        Examples
        --------
        >>> spark.catalog.createDatabase("cat_cur_db")
        >>> spark.catalog.setCurrentDatabase("cat_cur_db")
        >>> spark.catalog.currentDatabase()
        'cat_cur_db'
        >>> spark.catalog.setCurrentDatabase("default")
        >>> spark.catalog.dropDatabase("cat_cur_db")
        """
        if self._warehouse.database(dbName) is None:
            raise _no_database(dbName)
        self._native.set_current_database(dbName)

    def listDatabases(self, pattern: str | None = None) -> list[Database]:
        """The databases.

        Parameters
        ----------
        pattern : str, optional
            a ``*`` wildcard pattern the names must match

        Returns
        -------
        list of Database
            each one's ``name``, ``catalog``, ``description`` and ``locationUri``

        Examples
        --------
        >>> [d.name for d in spark.catalog.listDatabases("def*")]
        ['default']
        """
        return [
            Database(d.name, CATALOG_NAME, d.comment, "file:" + d.location)
            for d in self._warehouse.databases()
            if pattern is None or fnmatch.fnmatchcase(d.name, pattern)
        ]

    def getDatabase(self, dbName: str) -> Database:
        """The database named.

        Parameters
        ----------
        dbName : str
            its name (``db`` or ``spark_catalog.db``)

        Returns
        -------
        Database
            its ``name``, ``catalog``, ``description`` and ``locationUri``

        Raises
        ------
        AnalysisException
            ``SCHEMA_NOT_FOUND`` for a missing database

        Examples
        --------
        >>> db = spark.catalog.getDatabase("default")
        >>> db.name, db.catalog
        ('default', 'spark_catalog')
        """
        name = dbName.split(".", 1)[1] if dbName.startswith(CATALOG_NAME + ".") else dbName
        d = self._warehouse.database(name)
        if d is None:
            raise _no_database(name)
        return Database(d.name, CATALOG_NAME, d.comment, "file:" + d.location)

    def databaseExists(self, dbName: str) -> bool:
        """Whether the database exists.

        Parameters
        ----------
        dbName : str
            its name, or ``spark_catalog.<name>``

        Returns
        -------
        bool
            whether it exists

        Examples
        --------
        >>> spark.catalog.databaseExists("default"), spark.catalog.databaseExists("cat_nowhere")
        (True, False)
        """
        name = dbName.split(".", 1)[1] if dbName.startswith(CATALOG_NAME + ".") else dbName
        return self._warehouse.database(name) is not None

    def createDatabase(
        self, dbName: str, ifNotExists: bool = False, properties: dict[str, str] | None = None, comment: Any = None
    ) -> None:
        """Create a database: its tables go in the folder ``<warehouse>/<name>.db``.

        Parameters
        ----------
        dbName : str
            the database's name
        ifNotExists : bool, default False
            do nothing when it exists (else an error)
        properties : dict, optional
            its properties
        comment : str, optional
            its description

        Raises
        ------
        AnalysisException
            ``SCHEMA_ALREADY_EXISTS`` when it exists, without ``ifNotExists``

        Examples
        --------
        >>> spark.catalog.createDatabase("cat_sales")
        >>> spark.catalog.databaseExists("cat_sales")
        True
        >>> spark.catalog.dropDatabase("cat_sales")
        """
        if self._warehouse.database(dbName) is not None:
            if ifNotExists:
                return
            raise AnalysisException(
                f"[SCHEMA_ALREADY_EXISTS] Cannot create schema `{dbName}` because it already exists.",
                "SCHEMA_ALREADY_EXISTS",
            )
        location = str(self._warehouse.database_location(dbName))
        self._warehouse.create_database(DatabaseInfo(dbName, location, comment, dict(properties or {})))
        self._native.create_database(dbName)

    def dropDatabase(self, dbName: str, ifExists: bool = False, cascade: bool = False) -> None:
        """Drop a database (with ``cascade``, its tables and their files too).

        Parameters
        ----------
        dbName : str
            its name
        ifExists : bool, default False
            do nothing when it does not exist
        cascade : bool, default False
            drop its tables too (else a database with tables is an error)

        Raises
        ------
        AnalysisException
            ``SCHEMA_NOT_FOUND``, or ``SCHEMA_NOT_EMPTY`` without ``cascade``

        Examples
        --------
        >>> spark.catalog.createDatabase("cat_tmp_db")
        >>> spark.catalog.dropDatabase("cat_tmp_db")
        >>> spark.catalog.databaseExists("cat_tmp_db")
        False
        """
        if dbName == DEFAULT_DB:
            raise AnalysisException(
                "[UNSUPPORTED_FEATURE.DROP_DATABASE] Drop the default database `spark_catalog`.`default` "
                "is not supported.",
                "UNSUPPORTED_FEATURE.DROP_DATABASE",
            )
        if self._warehouse.database(dbName) is None:
            if ifExists:
                return
            raise _no_database(dbName)
        tables = self._warehouse.tables(dbName)
        if tables and not cascade:
            raise AnalysisException(
                f"[SCHEMA_NOT_EMPTY] Cannot drop a schema `{dbName}` because it contains objects.",
                "SCHEMA_NOT_EMPTY",
            )
        for t in tables:
            self._drop(t)
        self._warehouse.drop_database(dbName)
        self._native.drop_database(dbName)
        if self.currentDatabase() == dbName:
            self._native.set_current_database(DEFAULT_DB)

    # ---- tables -----------------------------------------------------------
    def _table(self, info: TableInfo) -> Table:
        return Table(info.name, CATALOG_NAME, [info.database], info.comment, info.kind, False)

    def listTables(self, dbName: str | None = None, pattern: str | None = None) -> list[Table]:
        """The tables and views of a database (the current one), and the temporary views.

        Parameters
        ----------
        dbName : str, optional
            the database
        pattern : str, optional
            a ``*`` wildcard pattern the names must match

        Returns
        -------
        list of Table
            each one's ``name``, ``catalog``, ``namespace``, ``description``, ``tableType`` and ``isTemporary``

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_listed")
        >>> [(t.name, t.tableType) for t in spark.catalog.listTables(pattern="cat_list*")]
        [('cat_listed', 'MANAGED')]
        """
        db = dbName or self.currentDatabase()
        if self._warehouse.database(db) is None:
            raise _no_database(db)
        found = [self._table(t) for t in self._warehouse.tables(db)]
        found += [Table(n, None, [], None, "TEMPORARY", True) for n in self._temp_views()]
        return [t for t in found if pattern is None or fnmatch.fnmatchcase(t.name, pattern)]

    def listViews(self, dbName: str | None = None, pattern: str | None = None) -> list[Table]:
        """The views of a database, and the temporary views.

        Parameters
        ----------
        dbName : str, optional
            the database
        pattern : str, optional
            a ``*`` wildcard pattern the names must match

        Returns
        -------
        list of Table
            the views, as ``listTables`` describes them

        Examples
        --------
        >>> spark.range(1).createOrReplaceTempView("cat_lview")
        >>> [(t.name, t.isTemporary) for t in spark.catalog.listViews(pattern="cat_lv*")]
        [('cat_lview', True)]
        """
        return [t for t in self.listTables(dbName, pattern) if t.tableType in ("VIEW", "TEMPORARY")]

    def getTable(self, tableName: str) -> Table:
        """The table or view named.

        Parameters
        ----------
        tableName : str
            its name (``t``, ``db.t`` or ``spark_catalog.db.t``)

        Returns
        -------
        Table
            its ``name``, ``catalog``, ``namespace``, ``description``, ``tableType`` and ``isTemporary``

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND`` for a missing table

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_get")
        >>> t = spark.catalog.getTable("cat_get")
        >>> t.name, t.namespace, t.tableType, t.isTemporary
        ('cat_get', ['default'], 'MANAGED', False)
        """
        if self._is_temp_view(tableName):
            return Table(tableName, None, [], None, "TEMPORARY", True)
        return self._table(self._require(tableName))

    def tableExists(self, tableName: str, dbName: str | None = None) -> bool:
        """Whether the table or view exists.

        Parameters
        ----------
        tableName : str
            its name (``t``, ``db.t`` or ``spark_catalog.db.t``)
        dbName : str, optional
            its database

        Returns
        -------
        bool
            whether it exists

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_exists")
        >>> spark.catalog.tableExists("cat_exists"), spark.catalog.tableExists("cat_missing")
        (True, False)
        """
        if dbName is None and self._is_temp_view(tableName):
            return True
        if dbName == GLOBAL_TEMP or tableName.startswith(GLOBAL_TEMP + "."):
            return tableName.split(".")[-1] in self._native.table_names(GLOBAL_TEMP)
        return self._info(tableName, dbName) is not None

    def listColumns(self, tableName: str, dbName: str | None = None) -> list[Column]:
        """The columns of a table or view.

        Parameters
        ----------
        tableName : str
            the table
        dbName : str, optional
            its database (default: as the name says, or the current one)

        Returns
        -------
        list of Column
            each one's ``name``, ``description``, ``dataType``, ``nullable``, ``isPartition`` and ``isBucket``

        Examples
        --------
        >>> spark.sql("CREATE TABLE cat_cols (id INT, name STRING) USING parquet")
        DataFrame[]
        >>> [(c.name, c.dataType) for c in spark.catalog.listColumns("cat_cols")]
        [('id', 'int'), ('name', 'string')]
        """
        info = self._info(tableName, dbName)
        if info is None and not self._is_temp_view(tableName):
            raise _not_found(tableName)
        schema = self._session.table(tableName if dbName is None else f"{dbName}.{tableName}").schema
        parts = info.partition_by if info else []
        return [
            Column(f.name, None, f.dataType.simpleString(), f.nullable, f.name in parts, False, False)
            for f in schema.fields
        ]

    def listPartitions(self, tableName: str) -> list[TablePartition]:
        """The partitions of a partitioned table.

        Parameters
        ----------
        tableName : str
            the table

        Returns
        -------
        list of TablePartition
            each one's ``partition``, a ``k=v`` path

        Examples
        --------
        >>> spark.createDataFrame([(1, "a"), (2, "b")], ["id", "p"]).write.partitionBy("p").saveAsTable("cat_parts")
        >>> sorted(p.partition for p in spark.catalog.listPartitions("cat_parts"))
        ['p=a', 'p=b']
        """
        info = self._require(tableName)
        if not info.partition_by:
            raise AnalysisException(
                f"[INVALID_PARTITION_OPERATION.PARTITION_SCHEMA_IS_EMPTY] Table {tableName} is not partitioned.",
                "INVALID_PARTITION_OPERATION.PARTITION_SCHEMA_IS_EMPTY",
            )
        found = set()
        root = info.location or ""
        for folder, _, files in os.walk(root):
            rel = os.path.relpath(folder, root)
            parts = [] if rel == "." else rel.split(os.sep)
            if len(parts) == len(info.partition_by) and all("=" in p for p in parts) and files:
                found.add("/".join(parts))
        return [TablePartition(p) for p in sorted(found)]

    def getTableProperties(self, tableName: str) -> dict[str, str]:
        """The properties set with ``TBLPROPERTIES`` (or ``tableProperty``).

        Parameters
        ----------
        tableName : str
            the table

        Returns
        -------
        dict
            the properties by name

        Examples
        --------
        >>> spark.sql("CREATE TABLE cat_props (id INT) USING parquet TBLPROPERTIES ('team' = 'data')")
        DataFrame[]
        >>> spark.catalog.getTableProperties("cat_props")["team"]
        'data'
        """
        return dict(self._require(tableName).properties)

    def getCreateTableString(self, tableName: str) -> str:
        """The ``CREATE TABLE`` statement of a table.

        Parameters
        ----------
        tableName : str
            the table

        Returns
        -------
        str
            the statement, as ``SHOW CREATE TABLE`` gives it

        Examples
        --------
        >>> spark.sql("CREATE TABLE cat_ddl (id INT, name STRING) USING parquet")
        DataFrame[]
        >>> print(spark.catalog.getCreateTableString("cat_ddl"))
        CREATE TABLE spark_catalog.default.cat_ddl (
          id INT,
          name STRING COLLATE UTF8_BINARY)
        USING parquet
        <BLANKLINE>
        """
        from sparklet.sql._ddl import create_statement

        return create_statement(self._require(tableName))

    def createTable(
        self,
        tableName: str,
        path: str | None = None,
        source: str | None = None,
        schema: StructType | None = None,
        description: str | None = None,
        **options: str,
    ) -> DataFrame:
        """Create a table over ``path`` (external: dropping it keeps the files) or in the warehouse (managed).

        Parameters
        ----------
        tableName : str
            the table's name
        path : str, optional
            the folder of existing files, best absolute (makes it external)
        source : str, optional
            the format (default ``spark.sql.sources.default``, parquet)
        schema : StructType, optional
            the columns (required for a new managed table)
        description : str, optional
            its comment
        **options : str
            options of the format

        Returns
        -------
        DataFrame
            the table

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_ALREADY_EXISTS`` when it exists

        Examples
        --------
        >>> from sparklet.sql.types import StructType, StructField, LongType
        >>> schema = StructType([StructField("id", LongType())])
        >>> spark.catalog.createTable("cat_new", schema=schema).printSchema()
        root
         |-- id: long (nullable = true)
        <BLANKLINE>
        >>> import os
        >>> spark.range(2).write.csv("cat_csv_files")
        >>> spark.catalog.createTable("cat_csv", os.path.abspath("cat_csv_files"), "csv").count()
        2
        """
        db, name = self._split(tableName)
        if self._warehouse.table(db, name) is not None:
            raise AnalysisException(
                f"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{db}`.`{name}` because it "
                "already exists.",
                "TABLE_OR_VIEW_ALREADY_EXISTS",
            )
        if self._warehouse.database(db) is None:
            raise _no_database(db)
        fmt = self._format(source)
        opts = {k: str(v) for k, v in options.items()}
        path = path or opts.pop("path", None)
        if schema is None:
            if path is None:
                raise AnalysisException(
                    "[UNABLE_TO_INFER_SCHEMA] A schema is required to create a table without a path.",
                    "UNABLE_TO_INFER_SCHEMA",
                )
            schema = self._session.read.format(fmt).options(**opts).load(path).schema
        self._create(db, name, fmt, path, schema, options=opts, comment=description)
        return self._session.table(f"{db}.{name}")

    def createExternalTable(
        self,
        tableName: str,
        path: str | None = None,
        source: str | None = None,
        schema: StructType | None = None,
        **options: str,
    ) -> DataFrame:
        """Deprecated name of :meth:`createTable` with a path.

        Parameters
        ----------
        tableName : str
            the table's name
        path : str, optional
            the folder of the table's files
        source : str, optional
            their format (default ``spark.sql.sources.default``, parquet)
        schema : StructType, optional
            the columns (default: read from the files)
        **options : str
            options of the format

        Returns
        -------
        DataFrame
            the table

        Examples
        --------
        >>> import os
        >>> spark.range(2).write.parquet("cat_ext_files")
        >>> spark.catalog.createExternalTable("cat_ext", os.path.abspath("cat_ext_files")).count()
        2
        """
        return self.createTable(tableName, path, source, schema, **options)

    def dropTable(self, tableName: str, ifExists: bool = False, purge: bool = False) -> None:
        """Drop a table (a managed table's files too) or view.

        Parameters
        ----------
        tableName : str
            the table
        ifExists : bool, default False
            do nothing when it does not exist
        purge : bool, default False
            accepted; files of a managed table are always removed

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND`` without ``ifExists``

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_drop")
        >>> spark.catalog.dropTable("cat_drop")
        >>> spark.catalog.tableExists("cat_drop")
        False
        """
        info = self._info(tableName)
        if info is None:
            if self._is_temp_view(tableName):
                self.dropTempView(tableName)
                return
            if ifExists:
                return
            raise _not_found(tableName)
        self._drop(info)

    def dropView(self, viewName: str, ifExists: bool = False) -> None:
        """Drop a view (a temporary view first, as Spark resolves the name).

        Parameters
        ----------
        viewName : str
            the view
        ifExists : bool, default False
            do nothing when it does not exist

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND`` without ``ifExists``

        Examples
        --------
        >>> spark.range(1).createOrReplaceTempView("cat_dview")
        >>> spark.catalog.dropView("cat_dview")
        >>> spark.catalog.tableExists("cat_dview")
        False
        """
        if self._is_temp_view(viewName):
            self.dropTempView(viewName)
            return
        info = self._info(viewName)
        if info is None or info.kind != "VIEW":
            if ifExists:
                return
            raise _not_found(viewName)
        self._drop(info)

    def _drop(self, info: TableInfo) -> None:
        qualified = f"{info.database}.{info.name}"
        self._cached.pop(qualified, None)
        self._native.drop_temp_view(qualified)
        self._warehouse.remove(info, delete_files=True)

    def truncateTable(self, tableName: str) -> None:
        """Remove a table's data (its files), keeping the table.

        Parameters
        ----------
        tableName : str
            the table

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_truncate")
        >>> spark.catalog.truncateTable("cat_truncate")
        >>> spark.table("cat_truncate").count()
        0
        """
        info = self._require(tableName)
        if info.kind == "VIEW":
            raise AnalysisException(
                f"[EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE] 'TRUNCATE TABLE' expects a table but {tableName} is a view.",
                "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE",
            )
        location = info.location or ""
        for entry in os.listdir(location) if os.path.isdir(location) else []:
            target = os.path.join(location, entry)
            shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
        self._register(info)

    def analyzeTable(self, tableName: str, noScan: bool = False) -> None:
        """Compute a table's statistics. sparklet's planner reads sizes as it plans, so this checks the table exists and does nothing more.

        Parameters
        ----------
        tableName : str
            the table
        noScan : bool, default False
            count only the size, not the rows

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND`` for a missing table

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_analyze")
        >>> spark.catalog.analyzeTable("cat_analyze")
        """
        self._require(tableName)

    def recoverPartitions(self, tableName: str) -> None:
        """Read the partition folders under a table's location again (after files were added beside the engine).

        Parameters
        ----------
        tableName : str
            the partitioned table

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], ["id", "p"]).write.partitionBy("p").saveAsTable("cat_recover")
        >>> spark.catalog.recoverPartitions("cat_recover")
        >>> spark.table("cat_recover").count()
        1
        """
        self.refreshTable(tableName)

    def refreshTable(self, tableName: str) -> None:
        """Read a table's files again (and drop its cached data).

        Parameters
        ----------
        tableName : str
            the table

        Examples
        --------
        >>> import os
        >>> path = os.path.abspath("cat_refresh_files")
        >>> spark.range(2).write.parquet(path)
        >>> spark.catalog.createTable("cat_refresh", path).count()
        2
        >>> spark.range(5).write.mode("overwrite").parquet(path)
        >>> spark.catalog.refreshTable("cat_refresh")
        >>> spark.table("cat_refresh").count()
        5
        """
        if self._is_temp_view(tableName):
            return
        info = self._require(tableName)
        self._cached.pop(f"{info.database}.{info.name}", None)
        self._register(info)

    def refreshByPath(self, path: str) -> None:
        """Read the tables over ``path`` again.

        Parameters
        ----------
        path : str
            the folder (or a parent of it)

        Examples
        --------
        >>> import os
        >>> path = os.path.abspath("cat_refresh_path")
        >>> spark.range(2).write.parquet(path)
        >>> spark.catalog.createTable("cat_by_path", path).count()
        2
        >>> spark.range(5).write.mode("overwrite").parquet(path)
        >>> spark.catalog.refreshByPath(path)
        >>> spark.table("cat_by_path").count()
        5
        """
        target = os.path.abspath(path)
        for db in self._warehouse.databases():
            for info in self._warehouse.tables(db.name):
                if info.location and os.path.abspath(info.location).startswith(target):
                    self._register(info)

    # ---- caching ------------------------------------------------------------
    def _qualified(self, tableName: str) -> str:
        if self._is_temp_view(tableName):
            return tableName
        info = self._require(tableName)
        return f"{info.database}.{info.name}"

    def cacheTable(self, tableName: str, storageLevel: StorageLevel | None = None) -> None:
        """Keep a table's data once read (see :meth:`DataFrame.persist`).

        Parameters
        ----------
        tableName : str
            the table or view
        storageLevel : StorageLevel, optional
            accepted; sparklet keeps data in memory

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_cache")
        >>> spark.catalog.cacheTable("cat_cache")
        >>> spark.catalog.isCached("cat_cache")
        True
        >>> spark.catalog.uncacheTable("cat_cache")
        """
        name = self._qualified(tableName)
        df = self._session.table(name).persist(storageLevel or StorageLevel.MEMORY_AND_DISK_DESER)
        self._cached[name] = df
        df._native.create_or_replace_temp_view(name)

    def uncacheTable(self, tableName: str) -> None:
        """Forget a table's kept data.

        Parameters
        ----------
        tableName : str
            the table or view

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_uncache")
        >>> spark.catalog.cacheTable("cat_uncache")
        >>> spark.catalog.uncacheTable("cat_uncache")
        >>> spark.catalog.isCached("cat_uncache")
        False
        """
        name = self._qualified(tableName)
        if self._cached.pop(name, None) is not None:
            info = self._info(name)
            if info is not None:
                self._register(info)

    def isCached(self, tableName: str) -> bool:
        """Whether the table is cached.

        Parameters
        ----------
        tableName : str
            the table or view

        Returns
        -------
        bool
            whether its data is kept

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_is_cached")
        >>> spark.catalog.isCached("cat_is_cached")
        False
        >>> spark.catalog.cacheTable("cat_is_cached")
        >>> spark.catalog.isCached("cat_is_cached")
        True
        >>> spark.catalog.uncacheTable("cat_is_cached")
        """
        return self._qualified(tableName) in self._cached

    def clearCache(self) -> None:
        """Uncache every table.

        Examples
        --------
        >>> spark.range(3).write.saveAsTable("cat_clear")
        >>> spark.catalog.cacheTable("cat_clear")
        >>> spark.catalog.clearCache()
        >>> spark.catalog.isCached("cat_clear")
        False
        """
        for name in list(self._cached):
            self.uncacheTable(name)

    # ---- views ----------------------------------------------------------------
    def dropTempView(self, viewName: str) -> bool:
        """Drop a temporary view.

        Parameters
        ----------
        viewName : str
            the view's name

        Returns
        -------
        bool
            whether it existed

        Examples
        --------
        >>> spark.range(1).createOrReplaceTempView("cat_view")
        >>> spark.catalog.dropTempView("cat_view")
        True
        >>> spark.catalog.dropTempView("cat_view")
        False
        """
        if not self._is_temp_view(viewName):
            return False
        self._cached.pop(viewName, None)
        return bool(self._native.drop_temp_view(viewName))

    def dropGlobalTempView(self, viewName: str) -> bool:
        """Drop a global temporary view.

        Parameters
        ----------
        viewName : str
            the view's name (without ``global_temp.``)

        Returns
        -------
        bool
            whether it existed

        Examples
        --------
        >>> spark.range(1).createGlobalTempView("cat_gview")
        >>> spark.catalog.dropGlobalTempView("cat_gview")
        True
        >>> spark.catalog.dropGlobalTempView("cat_gview")
        False
        """
        if viewName not in self._native.table_names(GLOBAL_TEMP):
            return False
        return bool(self._native.drop_temp_view(f"{GLOBAL_TEMP}.{viewName}"))

    # ---- functions -------------------------------------------------------------
    def listFunctions(self, dbName: str | None = None, pattern: str | None = None) -> list[Function]:
        """The functions: built in, and registered UDFs.

        Parameters
        ----------
        dbName : str, optional
            the database of persistent functions
        pattern : str, optional
            a ``*`` wildcard pattern the names must match

        Returns
        -------
        list of Function
            each one's ``name``, ``className``, ``isTemporary``, ...

        Examples
        --------
        >>> sorted(f.name for f in spark.catalog.listFunctions(pattern="array_so*"))
        ['array_sort']
        """
        from sparklet.sql import functions as F

        names = sorted({*F.__all__, *self._udf_names()})
        return [
            Function(n, None, None, None, "sparklet", True)
            for n in names
            if not n.startswith("_") and (pattern is None or fnmatch.fnmatchcase(n, pattern))
        ]

    def _udf_names(self) -> list[str]:
        registration = getattr(self._session, "_udf_registration", None)
        return list(getattr(registration, "_registered", {}) or {})

    def functionExists(self, functionName: str, dbName: str | None = None) -> bool:
        """Whether a function of that name exists (built in, or a registered UDF).

        Parameters
        ----------
        functionName : str
            the function's name
        dbName : str, optional
            the database of a persistent function

        Returns
        -------
        bool
            whether it exists

        Examples
        --------
        >>> spark.catalog.functionExists("upper"), spark.catalog.functionExists("cat_nothing")
        (True, False)
        """
        from sparklet.sql import functions as F

        name = functionName.split(".")[-1]
        if "." in functionName or dbName is not None:
            return name in self._udf_names()
        return name in F.__all__ or name in self._udf_names()

    def getFunction(self, functionName: str) -> Function:
        """The function named.

        Parameters
        ----------
        functionName : str
            its name

        Returns
        -------
        Function
            its ``name``, ``className``, ``isTemporary``, ...

        Raises
        ------
        AnalysisException
            ``UNRESOLVED_ROUTINE`` for a missing function

        Examples
        --------
        >>> f = spark.catalog.getFunction("upper")
        >>> f.name, f.isTemporary
        ('upper', True)
        """
        name = functionName.split(".")[-1]
        if not self.functionExists(name):
            raise AnalysisException(
                f"[UNRESOLVED_ROUTINE] Cannot resolve routine `{functionName}` on search path "
                f"[`system`.`builtin`, `system`.`session`, `{CATALOG_NAME}`.`default`].",
                "UNRESOLVED_ROUTINE",
            )
        return Function(name, None, None, None, "sparklet", True)

    def registerFunction(self, name: str, f: Any, returnType: Any = None) -> Any:
        """Deprecated name of ``spark.udf.register``.

        Parameters
        ----------
        name : str
            the SQL name
        f : callable
            the function
        returnType : DataType or str, optional
            its result type (default string)

        Returns
        -------
        UserDefinedFunction
            the UDF, also callable from SQL by ``name``

        Examples
        --------
        >>> import warnings
        >>> _ = warnings.simplefilter("ignore", FutureWarning)
        >>> _ = spark.catalog.registerFunction("cat_twice", lambda x: x * 2, "int")
        >>> spark.sql("SELECT cat_twice(21) AS v").show()
        +---+
        |  v|
        +---+
        | 42|
        +---+
        <BLANKLINE>
        """
        return self._session.udf.register(name, f, returnType)

    # ---- the engine's view of the catalog ----------------------------------------
    def _register(self, info: TableInfo) -> None:
        """Make ``info`` resolvable by name in SQL and ``spark.table``."""
        if info.database != DEFAULT_DB:
            self._native.create_database(info.database)
        qualified = f"{info.database}.{info.name}"
        with self._registering:
            self._signatures[qualified] = _signature(info.location)
            df = self._dataframe(info)
            df._native.create_or_replace_temp_view(qualified)

    def _refresh_changed(self) -> None:
        """Read again the tables whose files changed since they were read (a
        streaming query writing into one, another program), unless cached."""
        with self._registering:
            for qualified, seen in list(self._signatures.items()):
                if qualified in self._cached:
                    continue
                db, name = qualified.split(".", 1)
                info = self._warehouse.table(db, name)
                if info is None or info.kind == "VIEW":
                    continue
                if _signature(info.location) != seen:
                    self._register(info)

    def _dataframe(self, info: TableInfo) -> DataFrame:
        if info.kind == "VIEW":
            return self._session.sql(info.view_text or "")
        schema = _parse_datatype_string(info.schema)
        reader = self._session.read.format(info.format or "parquet").options(**info.options)
        if isinstance(schema, StructType) and schema.fields:
            reader = reader.schema(schema)
            # a table whose folder is gone (or not made yet) holds no rows, as in Spark
            location = str(info.location or "")
            local = location[len("file:") :] if location.startswith("file:") else location
            if local and "://" not in location and not os.path.exists(local):
                return self._session.createDataFrame([], schema)
        return reader.load(info.location)

    def _load_all(self) -> None:
        """At session start: the warehouse's databases and tables."""
        for db in self._warehouse.databases():
            if db.name != DEFAULT_DB:
                self._native.create_database(db.name)
            for info in self._warehouse.tables(db.name):
                self._register(info)

    def _format(self, fmt: str | None) -> str:
        """``fmt``, or ``spark.sql.sources.default`` (Parquet)."""
        return (fmt or self._session.conf.get("spark.sql.sources.default", None) or "parquet").lower()

    def _create(
        self,
        db: str,
        name: str,
        fmt: str | None,
        path: str | None,
        schema: StructType,
        partition_by: list[str] | None = None,
        options: dict[str, str] | None = None,
        properties: dict[str, str] | None = None,
        comment: str | None = None,
    ) -> TableInfo:
        """Record and register a table: external at ``path``, else managed in
        the warehouse; its partition columns last, as Spark keeps them."""
        parts = list(partition_by or [])
        fields = [f for f in schema.fields if f.name not in parts]
        fields += [f for p in parts for f in schema.fields if f.name == p]
        location = os.path.abspath(path or self._warehouse.default_location(db, name))
        os.makedirs(location, exist_ok=True)
        fmt = self._format(fmt)
        if fmt == "delta" and not os.path.isdir(os.path.join(location, "_delta_log")):
            # a Delta table exists from its first commit, which holds its schema
            empty = self._session.createDataFrame([], StructType(fields))
            props = {k.lower(): str(v) for k, v in (properties or {}).items()}
            empty._native.write_files("delta", location, "append", parts, props)
        info = TableInfo(
            name=name,
            database=db,
            kind="EXTERNAL" if path else "MANAGED",
            format=fmt,
            location=location,
            schema=StructType(fields).simpleString(),
            partition_by=parts,
            options=dict(options or {}),
            properties=dict(properties or {}),
            comment=comment,
        )
        self._put(info)
        return info

    def _put(self, info: TableInfo) -> None:
        """Record ``info`` in the warehouse and register it."""
        self._warehouse.put(info)
        self._register(info)


def _signature(location: str | None) -> tuple[int, int, float]:
    """How many files are under ``location``, their size, the newest change."""
    count, size, newest = 0, 0, 0.0
    for folder, _, files in os.walk(location or ""):
        for f in files:
            try:
                st = os.stat(os.path.join(folder, f))
            except OSError:
                continue
            count, size, newest = count + 1, size + st.st_size, max(newest, st.st_mtime)
    return count, size, newest


def save_as_table(
    df: DataFrame, tableName: str, fmt: str | None, mode: str, partition_by: list[str], options: dict[str, str]
) -> None:
    """``df.write.saveAsTable``: create the table from ``df`` (in the
    warehouse, or at option ``path``), or by ``mode`` append to it,
    overwrite it, ignore it, or fail naming it."""
    catalog = df.sparkSession.catalog
    db, name = catalog._split(tableName)
    if catalog._warehouse.database(db) is None:
        raise _no_database(db)
    existing = catalog._warehouse.table(db, name)
    mode = mode.lower()
    if existing is not None:
        if mode in ("error", "errorifexists", "default"):
            raise AnalysisException(
                f"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{db}`.`{name}` because it "
                "already exists. Choose a different name, drop or replace the existing object, or add the IF NOT "
                "EXISTS clause to tolerate pre-existing objects.",
                "TABLE_OR_VIEW_ALREADY_EXISTS",
            )
        if mode == "ignore":
            return
        if mode == "append":
            if fmt is not None and existing.format is not None and fmt.lower() != existing.format:
                raise AnalysisException(
                    f"The format of the existing table {CATALOG_NAME}.{db}.{name} is `{existing.format}`. "
                    f"It doesn't match the specified format `{fmt.lower()}`.",
                    "_LEGACY_ERROR_TEMP_1159",
                )
            columns = [f.name for f in _parse_datatype_string(existing.schema).fields]  # type: ignore[attr-defined]
            for c in columns:
                df._check_column(c)
            insert_into(df.select(*[f"`{c}`" for c in columns]), f"{db}.{name}", False)
            return
        if existing.kind == "VIEW":
            raise AnalysisException(
                f"[EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE] 'saveAsTable' expects a table but `{db}`.`{name}` is a view.",
                "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE",
            )
        # overwrite: the table replaced, its data and definition
        df = df.checkpoint()  # the data may come from the table being replaced
        catalog._drop(existing)
    elif mode not in ("error", "errorifexists", "default", "ignore", "append", "overwrite"):
        from sparklet.errors import PySparkValueError

        raise PySparkValueError(
            f'[INVALID_SAVE_MODE] The specified save mode "{mode}" is invalid. Valid save modes include '
            '"append", "overwrite", "ignore", "error", "errorifexists", and "default".',
            "INVALID_SAVE_MODE",
        )
    options = dict(options)
    path = options.pop("path", None)
    location = os.path.abspath(path or catalog._warehouse.default_location(db, name))
    if path is None and os.path.isdir(location) and os.listdir(location):
        raise AnalysisException(
            f"[LOCATION_ALREADY_EXISTS] Cannot name the managed table as `{CATALOG_NAME}`.`{db}`.`{name}`, as "
            f"its associated location 'file:{location}' already exists. Please pick a different table name, or "
            "remove the existing location first.",
            "LOCATION_ALREADY_EXISTS",
        )
    fmt = catalog._format(fmt)
    df._native.write_files(fmt, location, "overwrite", partition_by, {k.lower(): v for k, v in options.items()})
    catalog._create(db, name, fmt, path, df.schema, partition_by, options)


def insert_into(df: DataFrame, tableName: str, overwrite: bool) -> None:
    """``df.write.insertInto``: ``df``'s columns by position into the table's
    (cast as Spark's ANSI store assignment allows), appended or replacing
    its data."""
    from sparklet.sql import functions as F
    from sparklet.sql.types import NumericType, StringType

    catalog = df.sparkSession.catalog
    info = catalog._require(tableName)
    qualified = f"`{CATALOG_NAME}`.`{info.database}`.`{info.name}`"
    if info.kind == "VIEW":
        raise AnalysisException(
            f"[EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE] 'insertInto' expects a table but {qualified} is a view.",
            "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE",
        )
    target = _parse_datatype_string(info.schema).fields  # type: ignore[attr-defined]
    source = df.schema.fields
    if len(source) != len(target):
        reason = "too many data columns" if len(source) > len(target) else "not enough data columns"
        kind = "TOO_MANY_DATA_COLUMNS" if len(source) > len(target) else "NOT_ENOUGH_DATA_COLUMNS"
        raise AnalysisException(
            f"[INSERT_COLUMN_ARITY_MISMATCH.{kind}] Cannot write to {qualified}, the reason is {reason}:\n"
            f"Table columns: {', '.join(f'`{f.name}`' for f in target)}.\n"
            f"Data columns: {', '.join(f'`{f.name}`' for f in source)}.",
            f"INSERT_COLUMN_ARITY_MISMATCH.{kind}",
        )
    for s, t in zip(source, target):
        if (
            isinstance(s.dataType, StringType)
            and not isinstance(t.dataType, StringType)
            or (isinstance(s.dataType, NumericType) and not isinstance(t.dataType, (NumericType, StringType)))
        ):
            raise AnalysisException(
                f"[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] Cannot write incompatible data for the table "
                f'{qualified}: Cannot safely cast `{t.name}` "{s.dataType.simpleString().upper()}" to '
                f'"{t.dataType.simpleString().upper()}".',
                "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST",
            )
    typed = df.select(*[F.col(f"`{s.name}`").cast(t.dataType).alias(t.name) for s, t in zip(source, target)])
    if overwrite:
        typed = typed.checkpoint()  # the data may come from the table itself
    options = {k.lower(): v for k, v in info.options.items()}
    mode = "overwrite" if overwrite else "append"
    typed._native.write_files(info.format or "parquet", info.location, mode, info.partition_by, options)
    catalog._register(info)
