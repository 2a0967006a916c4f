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
    """Reads data into batch DataFrames (``spark.read``).

    Files: JSON, CSV, Parquet, ORC, XML and text, as folders, files, globs
    or lists of them; tables by name; Python data sources by the name they
    were registered under; and a streaming query's state from its checkpoint
    with ``format("statestore")`` (options ``batchId``, ``operatorId``,
    ``storeName``, ``joinSide``) and ``format("state-metadata")``. Set the
    format, schema and options with the methods it shares with
    :class:`~sparklet.sql.streaming.DataStreamReader`.

    Examples
    --------
    >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").write.parquet("doc_reader")
    >>> spark.read.format("parquet").load("doc_reader").collect()
    [Row(id=1, name='a')]
    """

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
        """Read data in the format set.

        Parameters
        ----------
        path : str or list of str, optional
            A file, folder or glob, or a list of them; for the state formats,
            the query's checkpoint folder. Also taken from the ``path`` option.
        format : str, optional
            The format (else the one set with :meth:`format`; Parquet without
            either).
        schema : StructType or str, optional
            The rows' schema; without it, it is inferred (JSON, CSV with
            ``inferSchema``) or read from the files (Parquet, ORC).
        **options
            The format's options.

        Returns
        -------
        DataFrame
            The data.

        Raises
        ------
        AnalysisException
            ``PATH_NOT_FOUND`` when a path does not exist.

        Examples
        --------
        >>> spark.range(3).write.json("doc_load")
        >>> spark.read.load("doc_load", format="json", schema="id LONG").count()
        3
        """
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
        r"""Read JSON: one record per line, or documents with ``multiLine=True``.

        Parameters
        ----------
        path : str, list of str or DataFrame
            Files, folders or globs; or a DataFrame of one string column whose
            texts are each read as a record.
        schema : StructType or str, optional
            The rows' schema; without it, it is inferred from the data (numbers
            as ``bigint``/``double``, fields sorted by name, as Spark).
        **options
            ``multiLine``, ``mode`` (``PERMISSIVE``, ``DROPMALFORMED``,
            ``FAILFAST``), ``columnNameOfCorruptRecord``, ``timestampFormat``,
            ``dateFormat``, ``primitivesAsString``, ``allowComments`` ...

        Returns
        -------
        DataFrame
            The records.

        Raises
        ------
        AnalysisException
            ``PATH_NOT_FOUND`` for a missing path; ``INVALID_DATA_TYPE_FOR_JSON``
            for a DataFrame that is not one string column.

        Examples
        --------
        >>> with open("people.json", "w") as f:
        ...     _ = f.write('{"name": "ann", "age": 31}\n{"name": "bob"}\n')
        >>> spark.read.json("people.json").collect()
        [Row(age=31, name='ann'), Row(age=None, name='bob')]
        >>> texts = spark.createDataFrame([('{"a": 1}',)], "value STRING")
        >>> spark.read.json(texts).collect()
        [Row(a=1)]
        """
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
        r"""Read CSV files.

        Parameters
        ----------
        path : str or list of str
            Files, folders or globs.
        schema : StructType or str, optional
            The rows' schema; without it, every column is a string named
            ``_c0``, ``_c1`` ... (or after the header), unless ``inferSchema``.
        **options
            ``header``, ``sep``, ``inferSchema``, ``nullValue``, ``quote``,
            ``escape``, ``mode``, ``dateFormat``, ``timestampFormat`` ...

        Returns
        -------
        DataFrame
            The rows.

        Raises
        ------
        AnalysisException
            ``PATH_NOT_FOUND`` for a missing path.

        Examples
        --------
        >>> with open("people.csv", "w") as f:
        ...     _ = f.write("name,age\nann,31\nbob,\n")
        >>> spark.read.csv("people.csv", header=True, inferSchema=True).collect()
        [Row(name='ann', age=31), Row(name='bob', age=None)]
        >>> spark.read.csv("people.csv").columns
        ['_c0', '_c1']
        """
        return self.load(path, "csv", schema, **options)

    def parquet(self, *paths: str, **options: Any) -> DataFrame:
        """Read Parquet files.

        Parameters
        ----------
        *paths : str
            Files, folders (a partitioned folder's ``col=value`` folders become
            columns) or globs.
        **options
            ``mergeSchema`` (the union of the files' columns) ...

        Returns
        -------
        DataFrame
            The rows, with the files' schema.

        Raises
        ------
        AnalysisException
            ``PATH_NOT_FOUND`` for a missing path.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, part STRING")
        >>> df.write.partitionBy("part").parquet("doc_parquet")
        >>> spark.read.parquet("doc_parquet").orderBy("id").collect()
        [Row(id=1, part='a'), Row(id=2, part='b')]
        """
        return self.load(list(paths), "parquet", None, **options)

    def xml(
        self,
        path: PathOrPaths | DataFrame,
        rowTag: str | None = None,
        schema: StructType | str | None = None,
        **options: Any,
    ) -> DataFrame:
        """Read XML: each ``rowTag`` element is a row.

        Attributes become fields named with the ``_`` prefix, text beside child
        elements ``_VALUE``, as Spark's XML reader.

        Parameters
        ----------
        path : str, list of str or DataFrame
            Files, folders or globs; or a DataFrame of one string column of XML
            texts.
        rowTag : str, optional
            The element that is a row (``ROW`` by default).
        schema : StructType or str, optional
            The rows' schema; without it, it is inferred.
        **options
            ``attributePrefix``, ``valueTag``, ``mode``, ``excludeAttribute`` ...

        Returns
        -------
        DataFrame
            The rows.

        Examples
        --------
        >>> with open("books.xml", "w") as f:
        ...     _ = f.write('<books><book id="1"><title>Dune</title></book></books>')
        >>> spark.read.xml("books.xml", rowTag="book").collect()
        [Row(_id=1, title='Dune')]
        """
        from sparklet.sql._xml import read_xml

        self.format("xml")
        self._set_schema(schema)
        self._set(rowTag=rowTag, **options)
        if isinstance(path, DataFrame):
            return read_xml(self._spark, path, self._schema, self._options)
        return self.load(path)

    def orc(self, path: PathOrPaths, mergeSchema: bool | None = None, **options: Any) -> DataFrame:
        """Read ORC files.

        Parameters
        ----------
        path : str or list of str
            Files, folders or globs.
        mergeSchema : bool, optional
            Read the union of the files' columns.
        **options
            Other options.

        Returns
        -------
        DataFrame
            The rows, with the files' schema.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").write.orc("doc_orc")
        >>> spark.read.orc("doc_orc").collect()
        [Row(id=1, name='a')]
        """
        if mergeSchema is not None:
            options["mergeSchema"] = mergeSchema
        return self.load(path, "orc", None, **options)

    def text(self, paths: PathOrPaths, **options: Any) -> DataFrame:
        r"""Read text files, one row per line in a column ``value``.

        Parameters
        ----------
        paths : str or list of str
            Files, folders or globs.
        **options
            ``wholetext`` (a file per row), ``lineSep``.

        Returns
        -------
        DataFrame
            One string column, ``value``.

        Examples
        --------
        >>> with open("notes.txt", "w") as f:
        ...     _ = f.write("first\nsecond\n")
        >>> spark.read.text("notes.txt").collect()
        [Row(value='first'), Row(value='second')]
        """
        return self.load(paths, "text", None, **options)

    def table(self, tableName: str) -> DataFrame:
        """A table or view by name (as :meth:`SparkSession.table`).

        Parameters
        ----------
        tableName : str
            The table's name.

        Returns
        -------
        DataFrame
            Its rows.

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND``.

        Examples
        --------
        >>> spark.range(2).createOrReplaceTempView("doc_reader_view")
        >>> spark.read.table("doc_reader_view").count()
        2
        """
        return self._spark.table(tableName)


class DataFrameWriter:
    """Writes a batch DataFrame (``df.write``).

    Files (``parquet``, ``json``, ``csv``, ``orc``, ``xml``, ``text``) with
    Spark's save modes, ``partitionBy`` folders, the ``_SUCCESS`` marker and
    Spark's file names; written to a staging folder and moved into place when
    complete, so a failed write leaves nothing half-written. Also warehouse
    tables (:meth:`saveAsTable`, :meth:`insertInto`), Kafka
    (``format("kafka")``: columns ``value`` and optionally ``key``,
    ``topic``, ``headers``, ``partition``; options
    ``kafka.bootstrap.servers``, ``topic``), Delta (``format("delta")``) and
    Python data sources.

    Examples
    --------
    >>> import os
    >>> df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, name STRING")
    >>> df.write.mode("overwrite").partitionBy("name").parquet("doc_writer")
    >>> sorted(p for p in os.listdir("doc_writer") if not p.startswith("."))
    ['_SUCCESS', 'name=a', 'name=b']
    """

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
        """Set the output format.

        Parameters
        ----------
        source : str
            ``parquet`` (the default), ``json``, ``csv``, ``orc``, ``xml``,
            ``text``, ``kafka``, ``delta``, or a registered Python data source.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> spark.range(2).write.format("json").save("doc_format")
        >>> spark.read.json("doc_format").count()
        2
        """
        self._format = source
        return self

    def mode(self, saveMode: str | None) -> "DataFrameWriter":
        """Set what happens when the target exists.

        Parameters
        ----------
        saveMode : str or None
            ``"errorifexists"`` (the default; also ``"error"``, ``"default"``):
            fail; ``"append"``: add files; ``"overwrite"``: replace the data;
            ``"ignore"``: write nothing. Kafka appends whatever the mode. None
            keeps the mode set.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> spark.range(2).write.parquet("doc_mode")
        >>> spark.range(3).write.mode("append").parquet("doc_mode")
        >>> spark.read.parquet("doc_mode").count()
        5
        >>> spark.range(1).write.parquet("doc_mode")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [PATH_ALREADY_EXISTS] Path file:.../doc_mode already exists. Set mode as "overwrite" to overwrite the existing path.
        """
        if saveMode is not None:
            self._mode = saveMode
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriter":
        r"""Set one output option.

        Parameters
        ----------
        key : str
            The option, as the format names it (``compression``, ``header`` ...).
        value : object
            Its value; booleans are written ``true``/``false``.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> from pathlib import Path
        >>> spark.range(1).coalesce(1).write.option("header", True).csv("doc_option")
        >>> [p.read_text() for p in Path("doc_option").glob("*.csv")]
        ['id\n0\n']
        """
        return self.options(**{key: value})

    def options(self, **options: Any) -> "DataFrameWriter":
        """Set several output options.

        Parameters
        ----------
        **options
            Options by name; None values are left out.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> spark.range(1).write.options(header=True, sep=";").csv("doc_options")
        >>> spark.read.options(header=True, sep=";").csv("doc_options").columns
        ['id']
        """
        for k, v in options.items():
            if v is not None:
                self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def partitionBy(self, *cols: str | list[str]) -> "DataFrameWriter":
        """Write one folder per value of these columns (``col=value``), as Hive does.

        The columns are left out of the files; reading the folder brings them
        back from the folder names.

        Parameters
        ----------
        *cols : str or list of str
            The columns, in folder order.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> import os
        >>> df = spark.createDataFrame([(1, "2024"), (2, "2025")], "id INT, year STRING")
        >>> df.write.partitionBy("year").json("doc_partitioned")
        >>> sorted(n for n in os.listdir("doc_partitioned") if n.startswith("year="))
        ['year=2024', 'year=2025']
        """
        names = list(cols[0]) if len(cols) == 1 and isinstance(cols[0], (list, tuple)) else list(cols)
        self._partition_by = [str(c) for c in names]
        return self

    def bucketBy(self, numBuckets: int, col: str | list[str], *cols: str) -> "DataFrameWriter":
        """Bucket a table's files by columns (with :meth:`saveAsTable` only).

        Accepted and not applied: bucketing arranges files for Spark's joins,
        not what the table holds. ``save`` refuses it, as Spark does.

        Parameters
        ----------
        numBuckets : int
            The number of buckets.
        col : str or list of str
            The first column (or all of them as a list).
        *cols : str
            More columns.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> spark.range(4).write.bucketBy(2, "id").saveAsTable("doc_bucketed")
        >>> spark.table("doc_bucketed").count()
        4
        """
        names = list(col) if isinstance(col, (list, tuple)) else [col, *cols]
        self._bucket_by = (numBuckets, names)
        return self

    def clusterBy(self, *cols: str | list[str]) -> "DataFrameWriter":
        """Cluster the data by these columns.

        For files, as in Spark, it arranges the data for faster reads and
        changes nothing of what is written or read back.

        Parameters
        ----------
        *cols : str or list of str
            The columns.

        Returns
        -------
        DataFrameWriter
            This writer.

        Raises
        ------
        AnalysisException
            ``SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED`` or
            ``SPECIFY_CLUSTER_BY_WITH_BUCKETING_IS_NOT_ALLOWED`` when the write is
            also partitioned or bucketed.

        Examples
        --------
        >>> spark.range(3).write.clusterBy("id").saveAsTable("doc_clustered")
        >>> spark.table("doc_clustered").count()
        3
        """
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
        """Sort each bucket by columns (with :meth:`bucketBy`; accepted and not
        applied, as bucketing).

        Parameters
        ----------
        col : str or list of str
            The first column (or all of them as a list).
        *cols : str
            More columns.

        Returns
        -------
        DataFrameWriter
            This writer.

        Examples
        --------
        >>> spark.range(4).write.bucketBy(2, "id").sortBy("id").saveAsTable("doc_sorted_buckets")
        """
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
        """Write the DataFrame in the format set.

        Parameters
        ----------
        path : str, optional
            The folder (also the ``path`` option); Kafka and Python data sources
            need none.
        format : str, optional
            The format (else the one set; Parquet without either).
        mode : str, optional
            The save mode (see :meth:`mode`).
        partitionBy : str or list of str, optional
            Partition columns (see :meth:`partitionBy`).
        **options
            The format's options.

        Raises
        ------
        AnalysisException
            ``PATH_ALREADY_EXISTS`` for an existing path in mode
            ``errorifexists``; ``_LEGACY_ERROR_TEMP_1312`` with ``bucketBy``.
        PySparkValueError
            ``PATH_NOT_SPECIFIED`` for a file format without a path.

        Examples
        --------
        >>> spark.range(3).write.save("doc_save", format="parquet", mode="overwrite")
        >>> spark.read.parquet("doc_save").count()
        3
        """
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
        """Save the DataFrame as a table of the warehouse catalog.

        Parameters
        ----------
        name : str
            The table (``db.table`` too).
        format : str, optional
            The table's file format (Parquet by default; ``delta`` too).
        mode : str, optional
            For an existing table: ``"append"`` (columns matched by name),
            ``"overwrite"``, ``"ignore"``, else an error.
        partitionBy : str or list of str, optional
            Partition columns.
        **options
            Options; ``path`` makes an external table in that folder.

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_ALREADY_EXISTS`` for an existing table in mode
            ``errorifexists``.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], "id INT, name STRING")
        >>> df.write.saveAsTable("doc_people")
        >>> df.write.mode("append").saveAsTable("doc_people")
        >>> spark.table("doc_people").count()
        2
        """
        from sparklet.sql.catalog import save_as_table

        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._check_clustering()
        save_as_table(self._df, name, format or self._format, self._mode, self._partition_by, self._options)

    def insertInto(self, tableName: str, overwrite: bool | None = None) -> None:
        """Insert the rows into an existing table, columns by position.

        Parameters
        ----------
        tableName : str
            The table.
        overwrite : bool, optional
            Replace the table's rows (also with mode ``"overwrite"``).

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_NOT_FOUND`` for a missing table.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").write.saveAsTable("doc_insert")
        >>> spark.createDataFrame([(2, "b")], "x INT, y STRING").write.insertInto("doc_insert")
        >>> spark.table("doc_insert").orderBy("id").collect()
        [Row(id=1, name='a'), Row(id=2, name='b')]
        """
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
        """Write Parquet files.

        Parameters
        ----------
        path : str
            The folder.
        mode : str, optional
            The save mode (see :meth:`mode`).
        partitionBy : str or list of str, optional
            Partition columns.
        compression : str, optional
            ``snappy`` (the default), ``zstd``, ``gzip``, ``lz4`` or ``none``.

        Examples
        --------
        >>> spark.range(3).write.parquet("doc_write_parquet", compression="zstd")
        >>> spark.read.parquet("doc_write_parquet").count()
        3
        """
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
        """Write the rows as one XML document.

        Parameters
        ----------
        path : str
            The folder.
        rowTag : str, optional
            Each row's element (``ROW``).
        mode : str, optional
            The save mode.
        attributePrefix : str, optional
            Fields named with this prefix (``_``) are written as attributes.
        valueTag : str, optional
            The field written as an element's text (``_VALUE``).
        rootTag : str, optional
            The document's element (``ROWS``).
        declaration : str, optional
            The XML declaration's content.
        nullValue : str, optional
            Text written for nulls (else null fields are left out).
        **options
            Other options.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "Dune")], "_id INT, title STRING")
        >>> df.write.xml("doc_books", rowTag="book", rootTag="books")
        >>> spark.read.xml("doc_books", rowTag="book").collect()
        [Row(_id=1, title='Dune')]
        """
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
        """Write ORC files.

        Parameters
        ----------
        path : str
            The folder.
        mode : str, optional
            The save mode.
        partitionBy : str or list of str, optional
            Partition columns.
        compression : str, optional
            ``zstd`` (the default), ``snappy``, ``zlib``, ``lz4`` or ``none``.

        Examples
        --------
        >>> spark.range(2).write.orc("doc_write_orc")
        >>> spark.read.orc("doc_write_orc").count()
        2
        """
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
        r"""Write JSON lines.

        Dates and timestamps are written in Spark's formats, in the session
        time zone; null fields are left out unless ``ignoreNullFields=False``.

        Parameters
        ----------
        path : str
            The folder.
        mode : str, optional
            The save mode.
        compression : str, optional
            ``gzip``, ``zstd``, ``bzip2``, ``deflate``, ``lz4``, ``snappy`` or
            ``none``.
        dateFormat, timestampFormat : str, optional
            Spark's datetime patterns for dates and timestamps.
        lineSep : str, optional
            The line separator (``\n``).
        encoding : str, optional
            The text encoding (UTF-8).
        ignoreNullFields : bool, optional
            Leave null fields out (the default).

        Examples
        --------
        >>> from pathlib import Path
        >>> df = spark.createDataFrame([(1, None)], "id INT, name STRING")
        >>> df.coalesce(1).write.json("doc_write_json")
        >>> [p.read_text() for p in Path("doc_write_json").glob("*.json")]
        ['{"id":1}\n']
        """
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
        r"""Write CSV files.

        Parameters
        ----------
        path : str
            The folder.
        mode : str, optional
            The save mode.
        compression : str, optional
            The codec, as for :meth:`json`.
        sep : str, optional
            The field separator (``,``).
        quote, escape : str, optional
            The quote (``"``) and its escape (``\``).
        header : bool, optional
            Write the column names first.
        nullValue : str, optional
            Text for nulls (empty).
        escapeQuotes, quoteAll : bool, optional
            Quote values holding quotes (default) / every value.
        dateFormat, timestampFormat : str, optional
            Spark's datetime patterns.
        ignoreLeadingWhiteSpace, ignoreTrailingWhiteSpace : bool, optional
            Trim values.
        charToEscapeQuoteEscaping : str, optional
            The escape of the quote's escape.
        encoding : str, optional
            The text encoding.
        emptyValue : str, optional
            Text for empty strings.
        lineSep : str, optional
            The line separator.

        Examples
        --------
        >>> from pathlib import Path
        >>> df = spark.createDataFrame([(1, "a,b")], "id INT, name STRING")
        >>> df.coalesce(1).write.csv("doc_write_csv", header=True)
        >>> [p.read_text() for p in Path("doc_write_csv").glob("*.csv")]
        ['id,name\n1,"a,b"\n']
        """
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
        """Write a single string column as lines of text.

        Parameters
        ----------
        path : str
            The folder.
        compression : str, optional
            The codec, as for :meth:`json`.
        lineSep : str, optional
            The line separator.

        Examples
        --------
        >>> spark.createDataFrame([("first",), ("second",)], "value STRING").write.text("doc_write_text")
        >>> sorted(r.value for r in spark.read.text("doc_write_text").collect())
        ['first', 'second']
        """
        self.options(compression=compression, lineSep=lineSep)
        self.save(path, "text")


class DataFrameWriterV2:
    """``df.writeTo(table)``: create, replace or append to a warehouse table
    (Spark's data source V2 writer, on the same catalog as ``saveAsTable``).

    Tables of files (parquet, csv, json, ...) take ``create``; Spark refuses
    the row-level writes (``append``, ``overwrite``, ``replace``) on them, and
    so does sparklet, with Spark's errors.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"])
    >>> df.writeTo("v2_intro").using("parquet").create()
    >>> spark.table("v2_intro").orderBy("id").show()
    +---+---+
    | id|  v|
    +---+---+
    |  1|  a|
    |  2|  b|
    +---+---+
    <BLANKLINE>
    """

    def __init__(self, df: DataFrame, table: str) -> None:
        self._df = df
        self._table = table
        self._provider: str | None = None
        self._options: dict[str, str] = {}
        self._properties: dict[str, str] = {}
        self._partitioned_by: list[str] = []

    def using(self, provider: str) -> "DataFrameWriterV2":
        """Set the table's format.

        Parameters
        ----------
        provider : str
            ``parquet`` (the default), ``csv``, ``json``, ``orc``, ``text`` or ``delta``

        Returns
        -------
        DataFrameWriterV2
            this writer, for chaining

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_using").using("json").create()
        >>> spark.table("v2_using").show()
        +---+---+
        | id|  v|
        +---+---+
        |  1|  a|
        +---+---+
        <BLANKLINE>
        """
        self._provider = provider
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriterV2":
        """Set one write option of the format.

        Parameters
        ----------
        key : str
            the option's name, such as ``compression``
        value : str, int, float or bool
            its value

        Returns
        -------
        DataFrameWriterV2
            this writer, for chaining

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_option").using("parquet").option("compression", "zstd").create()
        >>> spark.table("v2_option").count()
        1
        """
        return self.options(**{key: value})

    def options(self, **options: Any) -> "DataFrameWriterV2":
        """Set write options of the format.

        Parameters
        ----------
        **options : str, int, float or bool
            the options, by name

        Returns
        -------
        DataFrameWriterV2
            this writer, for chaining

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_options").using("csv").options(header=True, sep=";").create()
        >>> spark.table("v2_options").count()
        1
        """
        for k, v in options.items():
            if v is not None:
                self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def tableProperty(self, property: str, value: str) -> "DataFrameWriterV2":  # noqa: A002
        """Set a table property, kept in the catalog.

        Parameters
        ----------
        property : str
            the property's name
        value : str
            its value

        Returns
        -------
        DataFrameWriterV2
            this writer, for chaining

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_props").using("parquet").tableProperty("team", "data").create()
        >>> spark.sql("SHOW TBLPROPERTIES v2_props (team)").show()
        +----+-----+
        | key|value|
        +----+-----+
        |team| data|
        +----+-----+
        <BLANKLINE>
        """
        self._properties[property] = value
        return self

    def partitionedBy(self, col: Any, *cols: Any) -> "DataFrameWriterV2":
        """Partition the table by columns: its files go in folders ``col=value``.

        Parameters
        ----------
        col : str or Column
            the first partition column
        *cols : str or Column
            more partition columns

        Returns
        -------
        DataFrameWriterV2
            this writer, for chaining

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"])
        >>> df.writeTo("v2_parts").using("parquet").partitionedBy("v").create()
        >>> spark.table("v2_parts").orderBy("id").show()
        +---+---+
        | id|  v|
        +---+---+
        |  1|  a|
        |  2|  b|
        +---+---+
        <BLANKLINE>
        """
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
        """Create the table from the DataFrame's rows.

        Raises
        ------
        AnalysisException
            ``TABLE_OR_VIEW_ALREADY_EXISTS`` when the table exists

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_create").using("parquet").create()
        >>> df.writeTo("v2_create").using("parquet").create()  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [TABLE_OR_VIEW_ALREADY_EXISTS] ...
        """
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
        """Replace the table with the DataFrame's rows.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.TABLE_OPERATION`` for a table of files, as in Spark

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_replace").using("parquet").create()
        >>> df.writeTo("v2_replace").replace()  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [UNSUPPORTED_FEATURE.TABLE_OPERATION] ...
        """
        raise self._no_replace()

    def createOrReplace(self) -> None:
        """Create the table, or replace it if it exists.

        Raises
        ------
        AnalysisException
            ``UNSUPPORTED_FEATURE.TABLE_OPERATION`` for a table of files
            (``REPLACE TABLE AS SELECT``), existing or not, as in Spark

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_create_or_replace").using("parquet").createOrReplace()  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [UNSUPPORTED_FEATURE.TABLE_OPERATION] ...
        """
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
        """Append the DataFrame's rows to the table.

        Raises
        ------
        AnalysisException
            for a table of files, which Spark calls a v1 table; or when the
            table does not exist

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_append").using("parquet").create()
        >>> df.writeTo("v2_append").append()  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: Cannot write into v1 table: `spark_catalog`.`default`.`v2_append`.
        """
        raise self._v1_table()

    def overwrite(self, condition: Any) -> None:
        """Overwrite the table's rows that match ``condition`` with the DataFrame's.

        Parameters
        ----------
        condition : Column
            which rows to replace

        Raises
        ------
        AnalysisException
            for a table of files, which Spark calls a v1 table

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_overwrite").using("parquet").create()
        >>> df.writeTo("v2_overwrite").overwrite(F.col("id") == 1)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: Cannot write into v1 table: `spark_catalog`.`default`.`v2_overwrite`.
        """
        raise self._v1_table()

    def overwritePartitions(self) -> None:
        """Overwrite the partitions the DataFrame's rows fall in.

        Raises
        ------
        AnalysisException
            for a table of files, which Spark calls a v1 table

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], ["id", "v"])
        >>> df.writeTo("v2_overwrite_parts").using("parquet").partitionedBy("v").create()
        >>> df.writeTo("v2_overwrite_parts").overwritePartitions()  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: Cannot write into v1 table: `spark_catalog`.`default`.`v2_overwrite_parts`.
        """
        raise self._v1_table()
