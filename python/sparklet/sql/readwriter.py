"""Batch reading: :class:`DataFrameReader` (``spark.read``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from sparklet.errors import AnalysisException
from sparklet.sql._options import OptionsMixin
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.types import StructType

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

PathOrPaths = Union[str, list[str]]

__all__ = ["DataFrameReader", "DataFrameWriter", "DataFrameWriterV2"]


def _data_files(paths: list[str]) -> list[str]:
    """The data files under ``paths`` (files, folders or globs), as URIs;
    hidden names (``_SUCCESS``, ``.crc``, ``_temporary``) left out, as the
    readers leave them."""
    import glob
    import os
    from pathlib import Path

    found: list[str] = []
    for p in paths:
        for match in glob.glob(str(p)) or [str(p)]:
            if os.path.isfile(match):
                found.append(Path(match).absolute().as_uri())
                continue
            for folder, dirs, files in os.walk(match):
                dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
                found += [Path(folder, f).absolute().as_uri() for f in files if not f.startswith(("_", "."))]
    return found


class DataFrameReader(OptionsMixin):
    """Reads files into batch DataFrames: JSON, CSV, Parquet, text; and a
    streaming query's state from its checkpoint with ``format("statestore")``
    (options ``batchId``, ``operatorId``, ``storeName``, ``joinSide``) and
    ``format("state-metadata")``."""

    def __init__(self, spark: "SparkSession") -> None:
        self._spark = spark
        self._init_options()

    def load(
        self,
        path: PathOrPaths | None = None,
        format: str | None = None,  # noqa: A002
        schema: StructType | str | None = None,
        **options: Any,
    ) -> DataFrame:
        """Load files at ``path`` (a path, glob, or list of them), or the state
        in the checkpoint folder ``path`` for the state formats."""
        if format is not None:
            self.format(format)
        self._set_schema(schema)
        self._set(**options)
        paths = [path] if isinstance(path, str) else list(path or [])
        if not paths and "path" in self._options:
            paths = [self._options["path"]]
        if (self._format or "").lower() == "xml":
            from sparklet.sql._xml import read_xml

            return read_xml(self._spark, paths, self._schema, self._options)
        from sparklet.sql import _datasource_run

        python_source = _datasource_run.lookup(self._spark, self._format)
        if python_source is not None:
            path_given = paths[0] if len(paths) == 1 else None
            return _datasource_run.read(self._spark, python_source, self._schema, self._options, path_given)
        native = self._spark._native.read(self._format or "parquet", paths, self._arrow_schema(), self._options)
        df = DataFrame(native, self._spark)
        df._inputs = frozenset(_data_files(paths))
        return df

    def json(self, path: PathOrPaths | DataFrame, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read JSON lines (or documents with ``multiLine=True``); or the JSON
        texts of a DataFrame's single string column, one record each."""
        if isinstance(path, DataFrame):
            return self._json_texts(path, schema, **options)
        return self.load(path, "json", schema, **options)

    def _json_texts(self, texts: DataFrame, schema: StructType | str | None, **options: Any) -> DataFrame:
        """``json(df)``: the column's texts read as the JSON reader reads a file
        of them (schema inferred or given, Spark's parse modes)."""
        import os
        import tempfile

        from sparklet.errors import AnalysisException
        from sparklet.sql.types import StringType

        fields = texts.schema.fields
        if len(fields) != 1 or not isinstance(fields[0].dataType, StringType):
            raise AnalysisException(
                "[INVALID_DATA_TYPE_FOR_JSON] The input DataFrame must have one column of type STRING, "
                f"got {texts.schema.simpleString()}.",
                "INVALID_DATA_TYPE_FOR_JSON",
            )
        column = texts.toArrow().column(0).to_pylist()
        # each text one record: a text spanning lines is joined onto one
        lines = "".join(" ".join(str(t).splitlines()) + "\n" for t in column if t is not None)
        folder = tempfile.mkdtemp(prefix="sparklet-json-")
        try:
            with open(os.path.join(folder, "texts.json"), "w", encoding="utf-8") as f:
                f.write(lines)
            read = self.load(folder, "json", schema, **options).localCheckpoint()  # read now: the folder goes
            read._inputs = frozenset()  # the rows come from the DataFrame, not files
            return read
        finally:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)

    def csv(self, path: PathOrPaths, schema: StructType | str | None = None, **options: Any) -> DataFrame:
        """Read CSV (``header``, ``sep``, ``inferSchema``, ``mode`` ...)."""
        return self.load(path, "csv", schema, **options)

    def parquet(self, *paths: str, **options: Any) -> DataFrame:
        """Read Parquet files."""
        return self.load(list(paths), "parquet", None, **options)

    def xml(
        self,
        path: PathOrPaths | DataFrame,
        rowTag: str | None = None,
        schema: StructType | str | None = None,
        **options: Any,
    ) -> DataFrame:
        """Read XML: each ``rowTag`` element a row (attributes as ``_name``
        fields, text beside them as ``_VALUE``); or the XML texts of a
        DataFrame's single string column."""
        from sparklet.sql._xml import read_xml

        self.format("xml")
        self._set_schema(schema)
        self._set(rowTag=rowTag, **options)
        if isinstance(path, DataFrame):
            return read_xml(self._spark, path, self._schema, self._options)
        return self.load(path)

    def orc(self, path: PathOrPaths, mergeSchema: bool | None = None, **options: Any) -> DataFrame:
        """Read ORC files (``mergeSchema``: the union of the files' columns)."""
        if mergeSchema is not None:
            options["mergeSchema"] = mergeSchema
        return self.load(path, "orc", None, **options)

    def text(self, paths: PathOrPaths, **options: Any) -> DataFrame:
        """Read text lines into a ``value`` column."""
        return self.load(paths, "text", None, **options)

    def table(self, tableName: str) -> DataFrame:
        """A table or view by name."""
        return self._spark.table(tableName)


class DataFrameWriter:
    """Writes a batch DataFrame (``df.write``): files (``parquet``, ``json``,
    ``csv``, ``text``) with Spark's save modes, ``partitionBy`` folders,
    ``_SUCCESS`` marker and file names, written to a staging folder and
    moved into place when complete; or ``format("kafka")``, each row a
    record (columns ``value``, and optionally ``key``, ``topic``,
    ``headers``, ``partition``; options ``kafka.bootstrap.servers``,
    ``topic`` and other ``kafka.*`` client settings)."""

    def __init__(self, df: DataFrame) -> None:
        self._df = df
        self._format: str | None = None
        self._options: dict[str, str] = {}
        self._mode = "errorifexists"
        self._partition_by: list[str] = []
        self._bucket_by: tuple[int, list[str]] | None = None
        self._sort_by: list[str] = []
        self._cluster_by: list[str] = []

    def format(self, source: str) -> "DataFrameWriter":
        """Set the output format (``parquet``, ``json``, ``csv``, ``text``,
        ``kafka``)."""
        self._format = source
        return self

    def mode(self, saveMode: str | None) -> "DataFrameWriter":
        """Set what happens when the path exists: ``errorifexists`` (the
        default; also ``error``, ``default``), ``append``, ``overwrite``,
        ``ignore``. Kafka appends whatever the mode."""
        if saveMode is not None:
            self._mode = saveMode
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriter":
        """Set one output option."""
        return self.options(**{key: value})

    def options(self, **options: Any) -> "DataFrameWriter":
        """Set output options."""
        for k, v in options.items():
            if v is not None:
                self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def partitionBy(self, *cols: str | list[str]) -> "DataFrameWriter":
        """Write one folder per value of these columns (``col=value``), as
        Hive does; the columns are left out of the files."""
        names = list(cols[0]) if len(cols) == 1 and isinstance(cols[0], (list, tuple)) else list(cols)
        self._partition_by = [str(c) for c in names]
        return self

    def bucketBy(self, numBuckets: int, col: str | list[str], *cols: str) -> "DataFrameWriter":
        """Bucket the output by columns (tables only, as in Spark)."""
        names = list(col) if isinstance(col, (list, tuple)) else [col, *cols]
        self._bucket_by = (numBuckets, names)
        return self

    def clusterBy(self, *cols: str | list[str]) -> "DataFrameWriter":
        """Cluster the data by these columns. For files, as in Spark, it
        arranges the data for faster reads and changes nothing of what is
        written or read back; it cannot go with ``partitionBy`` or ``bucketBy``."""
        names = list(cols[0]) if len(cols) == 1 and isinstance(cols[0], (list, tuple)) else list(cols)
        self._cluster_by = [str(c) for c in names]
        return self

    def _check_clustering(self) -> None:
        """Spark's errors for clustering together with partitions or buckets."""
        from sparklet.errors import AnalysisException

        if not self._cluster_by:
            return
        if self._partition_by:
            raise AnalysisException(
                "[SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED] Cannot specify both CLUSTER BY and "
                "PARTITIONED BY. SQLSTATE: 42908",
                "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED",
            )
        if self._bucket_by is not None:
            raise AnalysisException(
                "[SPECIFY_CLUSTER_BY_WITH_BUCKETING_IS_NOT_ALLOWED] Cannot specify both CLUSTER BY and "
                "CLUSTERED BY INTO BUCKETS. SQLSTATE: 42908",
                "SPECIFY_CLUSTER_BY_WITH_BUCKETING_IS_NOT_ALLOWED",
            )

    def sortBy(self, col: str | list[str], *cols: str) -> "DataFrameWriter":
        """Sort each bucket by columns (with ``bucketBy``, tables only)."""
        self._sort_by = list(col) if isinstance(col, (list, tuple)) else [col, *cols]
        return self

    def save(
        self,
        path: str | None = None,
        format: str | None = None,  # noqa: A002
        mode: str | None = None,
        partitionBy: str | list[str] | None = None,
        **options: Any,
    ) -> None:
        """Write the DataFrame to ``path`` in the format set."""
        from sparklet.errors import AnalysisException, PySparkValueError

        if format is not None:
            self.format(format)
        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._check_clustering()
        fmt = (self._format or "parquet").lower()
        from sparklet.sql import _datasource_run

        python_source = _datasource_run.lookup(self._df.sparkSession, fmt)
        if python_source is not None:
            _datasource_run.write(self._df, python_source, self._mode or "errorifexists", self._options, path)
            return
        if fmt == "kafka":
            self._df._native.write_kafka({k.lower(): v for k, v in self._options.items()})
            return
        if fmt == "xml":
            from sparklet.sql._xml import write_xml

            target = path if path is not None else self._options.get("path")
            if target is None:
                raise PySparkValueError("[PATH_NOT_SPECIFIED] 'path' is not specified.", "PATH_NOT_SPECIFIED")
            write_xml(self._df, target, (self._mode or "error").lower(), self._options)
            return
        if self._bucket_by is not None:
            raise AnalysisException(
                "[_LEGACY_ERROR_TEMP_1312] 'save' does not support bucketBy right now.", "_LEGACY_ERROR_TEMP_1312"
            )
        options_lower = {k.lower(): v for k, v in self._options.items()}
        path = path if path is not None else options_lower.pop("path", None)
        if path is None:
            raise PySparkValueError("[PATH_NOT_SPECIFIED] 'path' is not specified.", "PATH_NOT_SPECIFIED")
        self._df._native.write_files(fmt, str(path), self._mode, self._partition_by, options_lower)

    def saveAsTable(
        self,
        name: str,
        format: str | None = None,  # noqa: A002
        mode: str | None = None,
        partitionBy: str | list[str] | None = None,
        **options: Any,
    ) -> None:
        """Save as table ``name`` of the warehouse catalog (``path`` option: an
        external table there). An existing table by the mode: ``append`` (by
        column name), ``overwrite``, ``ignore``, else an error. Bucketing
        (``bucketBy``/``sortBy``) is accepted and not applied: it arranges
        files for Spark's joins, not what the table holds."""
        from sparklet.sql.catalog import save_as_table

        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._check_clustering()
        save_as_table(self._df, name, format or self._format, self._mode, self._partition_by, self._options)

    def insertInto(self, tableName: str, overwrite: bool | None = None) -> None:
        """Insert the rows into an existing table, columns by position
        (``overwrite``, or mode ``overwrite``: replacing its data)."""
        from sparklet.sql.catalog import insert_into

        replace = overwrite if overwrite is not None else self._mode.lower() == "overwrite"
        insert_into(self._df, tableName, replace)

    def parquet(
        self,
        path: str,
        mode: str | None = None,
        partitionBy: str | list[str] | None = None,
        compression: str | None = None,
    ) -> None:
        """Write Parquet files (``compression``: ``snappy``, the default,
        ``zstd`` or ``none``)."""
        self.options(compression=compression)
        self.save(path, "parquet", mode, partitionBy)

    def xml(
        self,
        path: str,
        rowTag: str | None = None,
        mode: str | None = None,
        attributePrefix: str | None = None,
        valueTag: str | None = None,
        rootTag: str | None = None,
        declaration: str | None = None,
        nullValue: str | None = None,
        **options: Any,
    ) -> None:
        """Write the rows as one XML document under ``rootTag`` (``ROWS``),
        each a ``rowTag`` element (``ROW``); fields named with
        ``attributePrefix`` as attributes, nulls left out."""
        given = dict(
            rowTag=rowTag,
            attributePrefix=attributePrefix,
            valueTag=valueTag,
            rootTag=rootTag,
            declaration=declaration,
            nullValue=nullValue,
        )
        self.options(**{k: v for k, v in given.items() if v is not None}, **options)
        self.save(path, "xml", mode)

    def orc(
        self,
        path: str,
        mode: str | None = None,
        partitionBy: str | list[str] | None = None,
        compression: str | None = None,
    ) -> None:
        """Write ORC files (``compression``: ``zstd``, the default, ``snappy``,
        ``zlib``, ``lz4`` or ``none``; flat columns: see docs/differences.md)."""
        self.options(compression=compression)
        self.save(path, "orc", mode, partitionBy)

    def json(
        self,
        path: str,
        mode: str | None = None,
        compression: str | None = None,
        dateFormat: str | None = None,
        timestampFormat: str | None = None,
        lineSep: str | None = None,
        encoding: str | None = None,
        ignoreNullFields: bool | str | None = None,
    ) -> None:
        """Write JSON lines (dates and timestamps in Spark's formats, in the
        session time zone; null fields left out unless
        ``ignoreNullFields=False``)."""
        self.options(
            compression=compression,
            dateFormat=dateFormat,
            timestampFormat=timestampFormat,
            lineSep=lineSep,
            encoding=encoding,
            ignoreNullFields=ignoreNullFields,
        )
        self.save(path, "json", mode)

    def csv(
        self,
        path: str,
        mode: str | None = None,
        compression: str | None = None,
        sep: str | None = None,
        quote: str | None = None,
        escape: str | None = None,
        header: bool | str | None = None,
        nullValue: str | None = None,
        escapeQuotes: bool | str | None = None,
        quoteAll: bool | str | None = None,
        dateFormat: str | None = None,
        timestampFormat: str | None = None,
        ignoreLeadingWhiteSpace: bool | str | None = None,
        ignoreTrailingWhiteSpace: bool | str | None = None,
        charToEscapeQuoteEscaping: str | None = None,
        encoding: str | None = None,
        emptyValue: str | None = None,
        lineSep: str | None = None,
    ) -> None:
        """Write CSV (``header``, ``sep``, ``quote``, ``escape``,
        ``nullValue``, ``quoteAll``, ``dateFormat``, ``timestampFormat`` as
        Spark's)."""
        self.options(
            compression=compression,
            sep=sep,
            quote=quote,
            escape=escape,
            header=header,
            nullValue=nullValue,
            escapeQuotes=escapeQuotes,
            quoteAll=quoteAll,
            dateFormat=dateFormat,
            timestampFormat=timestampFormat,
            ignoreLeadingWhiteSpace=ignoreLeadingWhiteSpace,
            ignoreTrailingWhiteSpace=ignoreTrailingWhiteSpace,
            charToEscapeQuoteEscaping=charToEscapeQuoteEscaping,
            encoding=encoding,
            emptyValue=emptyValue,
            lineSep=lineSep,
        )
        self.save(path, "csv", mode)

    def text(self, path: str, compression: str | None = None, lineSep: str | None = None) -> None:
        """Write a single string column as lines of text."""
        self.options(compression=compression, lineSep=lineSep)
        self.save(path, "text")


class DataFrameWriterV2:
    """``df.writeTo(table)``: create, replace or append to a warehouse table
    (Spark's data source V2 writer, on the same catalog as ``saveAsTable``)."""

    def __init__(self, df: DataFrame, table: str) -> None:
        self._df = df
        self._table = table
        self._provider: str | None = None
        self._options: dict[str, str] = {}
        self._properties: dict[str, str] = {}
        self._partitioned_by: list[str] = []

    def using(self, provider: str) -> "DataFrameWriterV2":
        """The table's format (``parquet``, ``csv``, ...)."""
        self._provider = provider
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriterV2":
        """Set one write option."""
        return self.options(**{key: value})

    def options(self, **options: Any) -> "DataFrameWriterV2":
        """Set write options."""
        for k, v in options.items():
            if v is not None:
                self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def tableProperty(self, property: str, value: str) -> "DataFrameWriterV2":  # noqa: A002
        """Set a table property (kept in the catalog)."""
        self._properties[property] = value
        return self

    def partitionedBy(self, col: Any, *cols: Any) -> "DataFrameWriterV2":
        """Partition the table by columns (folders ``col=value``)."""
        from sparklet.sql.column import Column

        names = []
        for c in (col, *cols):
            if isinstance(c, Column):
                c = c._expr.name()
            names.append(str(c))
        self._partitioned_by = names
        return self

    def _save(self, mode: str) -> None:
        from sparklet.sql.catalog import save_as_table

        save_as_table(self._df, self._table, self._provider, mode, self._partitioned_by, self._options)
        if self._properties:
            catalog = self._df.sparkSession.catalog
            info = catalog._require(self._table)
            info.properties.update(self._properties)
            catalog._warehouse.put(info)

    def create(self) -> None:
        """Create the table from the DataFrame; an error if it exists."""
        self._save("errorifexists")

    def _no_replace(self) -> AnalysisException:
        database, name = self._df.sparkSession.catalog._split(self._table)
        return AnalysisException(
            f"[UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table "
            f"`spark_catalog`.`{database}`.`{name}` does not support REPLACE TABLE AS SELECT. Please "
            "check the current catalog and namespace to make sure the qualified table name is expected, and also "
            'check the catalog implementation which is configured by "spark.sql.catalog".',
            "UNSUPPORTED_FEATURE.TABLE_OPERATION",
        )

    def replace(self) -> None:
        """Replace the table: Spark refuses it for tables of files."""
        raise self._no_replace()

    def createOrReplace(self) -> None:
        """Create or replace the table: Spark refuses it for tables of files
        (``REPLACE TABLE AS SELECT``), existing or not."""
        raise self._no_replace()

    def _v1_table(self) -> AnalysisException:
        """Spark's answer to a row-level V2 write into a table of files (a
        session-catalog "v1" table): only Delta Lake tables take them."""
        from sparklet.sql.catalog import _not_found

        catalog = self._df.sparkSession.catalog
        info = catalog._info(self._table)
        if info is None:
            return _not_found(self._table)
        return AnalysisException(
            f"Cannot write into v1 table: `spark_catalog`.`{info.database}`.`{info.name}`.",
            "_LEGACY_ERROR_TEMP_1056",
        )

    def append(self) -> None:
        """Append to the table: Spark refuses it for tables of files (v1)."""
        raise self._v1_table()

    def overwrite(self, condition: Any) -> None:
        """Overwrite the rows matching ``condition``: refused for tables of files, as in Spark."""
        raise self._v1_table()

    def overwritePartitions(self) -> None:
        """Overwrite the partitions the rows fall in: refused for tables of files, as in Spark."""
        raise self._v1_table()
