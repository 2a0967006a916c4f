"""The :class:`DataFrame`, as :class:`pyspark.sql.DataFrame`.

A DataFrame is an unexecuted plan. Batch DataFrames run with ``collect``,
``show``, ``toPandas`` ...; streaming DataFrames (``isStreaming``) run only
through ``writeStream``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Union, overload

import pyarrow as pa

from sparklet import _native
from sparklet.errors import AnalysisException, PySparkRuntimeError, PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql._convert import table_to_pandas, table_to_rows
from sparklet.sql._dataframe_na import DataFrameNaFunctions
from sparklet.sql._dataframe_stat import DataFrameStatFunctions
from sparklet.sql._reshape import _ColumnList
from sparklet.sql.column import Column, _to_col
from sparklet.sql.group import GroupedData
from sparklet.sql.types import Row, StructType, from_arrow_schema, to_struct_type
from sparklet.storagelevel import StorageLevel

if TYPE_CHECKING:
    from sparklet.core.rdd import RDD
    from sparklet.sql.observation import Observation
    from sparklet.sql.readwriter import DataFrameWriter, DataFrameWriterV2
    from sparklet.sql.session import SparkSession
    from sparklet.sql.streaming.readwriter import DataStreamWriter

ColumnOrName = Union[Column, str]

__all__ = ["DataFrame", "DataFrameNaFunctions", "DataFrameStatFunctions", "GroupedData"]

# defined apart, public here (as in PySpark)
DataFrameNaFunctions.__module__ = DataFrameStatFunctions.__module__ = __name__


def _flatten(cols: tuple[Any, ...]) -> list[Any]:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return list(cols)


def _subset(subset: Any) -> list[str] | None:
    """``subset`` as a list of column names (PySpark also takes a tuple);
    PySpark 4's errors otherwise."""
    if subset is None:
        return None
    if not isinstance(subset, (list, tuple)):
        expected, found = "list or tuple", subset
    else:
        found = next((c for c in subset if not isinstance(c, str)), None)
        if found is None:
            return list(subset)
        expected = "str"
    raise PySparkTypeError(
        f"[NOT_EXPECTED_TYPE] Argument `subset` should be {expected}, got {type(found).__name__}.",
        "NOT_EXPECTED_TYPE",
    )


class DataFrame:
    """A plan over rows, run when an action asks for its result.

    Transformations (``select``, ``filter``, ``groupBy``, ``join`` ...) return
    new DataFrames and run nothing; actions (``collect``, ``count``,
    ``show``, ``toPandas``, ``write``) run the plan in this process. A
    streaming DataFrame (``isStreaming``, from ``spark.readStream``) runs
    only as a query started with ``writeStream``.

    Examples
    --------
    >>> df = spark.createDataFrame([("ann", 31), ("bob", 17)], "name STRING, age INT")
    >>> adults = df.filter(df.age >= 18).select(F.upper("name").alias("name"))
    >>> adults.collect()
    [Row(name='ANN')]
    """

    def __init__(self, native: Any, session: "SparkSession") -> None:
        self._native = native
        self.sparkSession = session
        #: how the DataFrame is persisted, and its plan before that
        self._storage = StorageLevel.NONE
        self._unpersisted: Any = None
        self._inputs: frozenset[str] = frozenset()
        #: rows held as they are (Spark's LocalRelation): ``isLocal``
        self._local = False

    def _wrap(self, native: Any, *others: "DataFrame") -> "DataFrame":
        df = DataFrame(native, self.sparkSession)
        # the files read, through every transformation (``inputFiles``)
        df._inputs = self._inputs.union(*(o._inputs for o in others))
        return df

    # ---- schema -------------------------------------------------------
    @property
    def schema(self) -> StructType:
        """The DataFrame's schema.

        Returns
        -------
        StructType
            Its columns' names, types and nullability.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").schema
        StructType([StructField('id', IntegerType(), True), StructField('name', StringType(), True)])
        """
        return from_arrow_schema(self._native.schema())

    @property
    def columns(self) -> list[str]:
        """The column names, in order.

        Returns
        -------
        list of str
            The names.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").columns
        ['id', 'name']
        """
        return self.schema.names

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        """Each column's name and type, as Spark's simple type strings.

        Returns
        -------
        list of (str, str)
            ``(name, type)`` pairs, such as ``("id", "int")``.

        Examples
        --------
        >>> spark.createDataFrame([(1, ["a"])], "id INT, tags ARRAY<STRING>").dtypes
        [('id', 'int'), ('tags', 'array<string>')]
        """
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    @property
    def isStreaming(self) -> bool:
        """Whether the DataFrame reads a streaming source.

        Returns
        -------
        bool
            True when it must run through ``writeStream``.

        Examples
        --------
        >>> spark.range(1).isStreaming
        False
        >>> spark.readStream.format("rate").load().isStreaming
        True
        """
        return bool(self._native.is_streaming())

    def printSchema(self, level: int | None = None) -> None:
        """Print the schema as a tree.

        Parameters
        ----------
        level : int, optional
            How many levels of nested fields to print (all by default).

        Examples
        --------
        >>> spark.createDataFrame([(1, (1.5,))], "id INT NOT NULL, point STRUCT<x: DOUBLE>").printSchema()
        root
         |-- id: integer (nullable = false)
         |-- point: struct (nullable = true)
         |    |-- x: double (nullable = true)
        <BLANKLINE>
        """
        print(self.schema.treeString(level))

    def __getitem__(self, item: str | int | Column) -> Column:
        if isinstance(item, str):
            self._check_column(item)
            return Column(self._native.column(item) if "." not in item else _native.col(item))
        if isinstance(item, int):
            return Column(_native.col(self.columns[item]))
        if isinstance(item, Column):
            return self.filter(item)  # type: ignore[return-value]
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        raise not_expected_type("item", "Column, float, integer, list or string", item)

    def __getattr__(self, name: str) -> Column:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns:
            # Spark resolves ``df.NAME`` as it resolves ``df["NAME"]`` (by case only if asked)
            matches = {c for c in self.columns if c.lower() == name.lower()}
            sensitive = (self.sparkSession.conf.get("spark.sql.caseSensitive", "false") or "").lower() == "true"
            if sensitive or not matches:
                raise AttributeError(f"'DataFrame' object has no attribute '{name}'")
            return self[name]
        return Column(self._native.column(name))

    def _check_column(self, name: str) -> None:
        if "." not in name and name != "*" and name not in self.columns:
            self._native.select([_native.col(name)])  # raises AnalysisException naming the columns

    # ---- transformations ---------------------------------------------
    def select(self, *cols: ColumnOrName | list[ColumnOrName]) -> "DataFrame":
        """The columns or expressions given, for every row.

        Parameters
        ----------
        *cols : str, Column or list of them
            Column names (``"*"`` for all, ``"s.*"`` for a struct's fields) or
            expressions; unaliased expressions are named as Spark names them.

        Returns
        -------
        DataFrame
            One column per expression.

        Raises
        ------
        AnalysisException
            ``UNRESOLVED_COLUMN.WITH_SUGGESTION`` for an unknown column.

        Examples
        --------
        >>> df = spark.createDataFrame([("ann", 31)], "name STRING, age INT")
        >>> df.select("name", df.age + 1).collect()
        [Row(name='ann', (age + 1)=32)]
        >>> df.select("*", F.lit(True).alias("ok")).columns
        ['name', 'age', 'ok']
        """
        exprs: list[Any] = []
        for c in _flatten(cols):
            if isinstance(c, str) and c == "*":
                exprs.extend(_native.col(n) for n in self.columns)
            elif isinstance(c, str) and c.endswith(".*"):
                exprs.extend(self._struct_fields(c[:-2]))
            elif isinstance(c, _ColumnList):
                exprs.extend(_native.col(f"`{n}`") for n in c._names)
            else:
                exprs.append(_to_col(c)._expr)
        return self._wrap(self._native.select(exprs))

    def _struct_fields(self, name: str) -> list[Any]:
        """``"s.*"``: each field of struct column ``s``, named as the field."""
        field = next((f for f in self.schema.fields if f.name == name), None)
        if field is None or not isinstance(field.dataType, StructType):
            raise AnalysisException(
                f"[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve {name}.* given input columns {self.columns}.",
                "CANNOT_RESOLVE_STAR_EXPAND",
            )
        return [Column(_native.col(f"{name}.{f.name}")).alias(f.name)._expr for f in field.dataType.fields]

    def selectExpr(self, *expr: str | list[str]) -> "DataFrame":
        """The SQL expressions given, for every row.

        Parameters
        ----------
        *expr : str or list of str
            SQL expressions, optionally with ``AS name``.

        Returns
        -------
        DataFrame
            One column per expression.

        Examples
        --------
        >>> df = spark.createDataFrame([("ann", 31)], "name STRING, age INT")
        >>> df.selectExpr("upper(name) AS name", "age * 2").collect()
        [Row(name='ANN', (age * 2)=62)]
        """
        # "*" and "s.*" expand as in select (the SQL parser takes no bare star)
        items = [e.strip() if e.strip().endswith("*") else Column(self._native.parse_sql(e)) for e in _flatten(expr)]
        return self.select(*items)

    def filter(self, condition: ColumnOrName) -> "DataFrame":
        """The rows where a condition is true (``where`` is the same method).

        Parameters
        ----------
        condition : Column or str
            A boolean Column, or a SQL condition.

        Returns
        -------
        DataFrame
            The rows kept (a null condition drops the row).

        Examples
        --------
        >>> df = spark.createDataFrame([("ann", 31), ("bob", 17)], "name STRING, age INT")
        >>> df.filter(df.age > 18).collect()
        [Row(name='ann', age=31)]
        >>> df.where("name LIKE 'b%'").collect()
        [Row(name='bob', age=17)]
        """
        if isinstance(condition, str):
            return self._wrap(self._native.filter_sql(condition))
        if not isinstance(condition, Column):
            raise not_expected_type("condition", "Column or str", condition)
        return self._wrap(self._native.filter(condition._expr))

    where = filter

    def withColumn(self, colName: str, col: Column) -> "DataFrame":
        """Add a column, or replace the one of that name.

        Parameters
        ----------
        colName : str
            The column's name.
        col : Column
            Its value.

        Returns
        -------
        DataFrame
            The columns, with the new one last (or in place of the old one).

        Raises
        ------
        PySparkTypeError
            ``NOT_COLUMN`` when ``col`` is not a Column.

        Examples
        --------
        >>> df = spark.createDataFrame([("ann", 31)], "name STRING, age INT")
        >>> df.withColumn("age", df.age + 1).withColumn("adult", F.col("age") >= 18).collect()
        [Row(name='ann', age=32, adult=True)]
        """
        if not isinstance(col, Column):
            raise not_expected_type("col", "Column", col)
        return self._wrap(self._native.with_column(colName, col._expr))

    def withColumns(self, *colsMap: dict[str, Column]) -> "DataFrame":
        """Add or replace several columns.

        Parameters
        ----------
        *colsMap : dict of str to Column
            Names to values, applied in order.

        Returns
        -------
        DataFrame
            The new DataFrame.

        Examples
        --------
        >>> df = spark.createDataFrame([(2,)], "n INT")
        >>> df.withColumns({"twice": df.n * 2, "square": df.n * df.n}).collect()
        [Row(n=2, twice=4, square=4)]
        """
        df = self
        for m in colsMap:
            for name, c in m.items():
                df = df.withColumn(name, c)
        return df

    def withColumnRenamed(self, existing: str, new: str) -> "DataFrame":
        """Rename a column; nothing happens when there is none of that name.

        Parameters
        ----------
        existing : str
            The current name.
        new : str
            The new one.

        Returns
        -------
        DataFrame
            The DataFrame with the column renamed.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,)], "id INT")
        >>> df.withColumnRenamed("id", "key").columns
        ['key']
        >>> df.withColumnRenamed("absent", "key").columns
        ['id']
        """
        return self._wrap(self._native.with_column_renamed(existing, new))

    def withMetadata(self, columnName: str, metadata: dict[str, Any]) -> "DataFrame":
        """Set a column's metadata (``StructField.metadata``).

        Parameters
        ----------
        columnName : str
            The column.
        metadata : dict
            The metadata, kept with the schema (Parquet files keep it too).

        Returns
        -------
        DataFrame
            The same rows, the column's metadata replaced.

        Examples
        --------
        >>> df = spark.createDataFrame([(1.5,)], "price DOUBLE")
        >>> df.withMetadata("price", {"unit": "EUR"}).schema["price"].metadata
        {'unit': 'EUR'}
        """
        if not isinstance(metadata, dict):
            raise not_expected_type("metadata", "dict", metadata)
        from sparklet.sql.functions import col

        return self.withColumn(columnName, col(columnName).alias(columnName, metadata=metadata))

    def withColumnsRenamed(self, colsMap: dict[str, str]) -> "DataFrame":
        """Rename several columns.

        Parameters
        ----------
        colsMap : dict of str to str
            Current names to new ones (names not present are skipped).

        Returns
        -------
        DataFrame
            The DataFrame with the columns renamed.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a")], "id INT, v STRING")
        >>> df.withColumnsRenamed({"id": "key", "v": "value"}).columns
        ['key', 'value']
        """
        df = self
        for old, new in colsMap.items():
            df = df.withColumnRenamed(old, new)
        return df

    def drop(self, *cols: ColumnOrName) -> "DataFrame":
        """Drop columns; names that are not columns are ignored.

        Parameters
        ----------
        *cols : str or Column
            The columns.

        Returns
        -------
        DataFrame
            The other columns.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a", True)], "id INT, v STRING, ok BOOLEAN")
        >>> df.drop("v", "absent").columns
        ['id', 'ok']
        """
        names = [c if isinstance(c, str) else c._expr.name() for c in cols]
        return self._wrap(self._native.drop(names))

    def alias(self, alias: str) -> "DataFrame":
        """Name the DataFrame, so its columns can be qualified (``alias.col``).

        Parameters
        ----------
        alias : str
            The name.

        Returns
        -------
        DataFrame
            The same rows under that name.

        Examples
        --------
        >>> people = spark.createDataFrame([(1, "ann"), (2, "bob")], "id INT, name STRING")
        >>> managers = spark.createDataFrame([(2, 1)], "id INT, manager INT")
        >>> joined = people.alias("p").join(managers.alias("m"), F.col("p.id") == F.col("m.manager"))
        >>> joined.select("p.name", "m.id").collect()
        [Row(name='ann', id=2)]
        """
        return self._wrap(self._native.alias(alias))

    def join(
        self,
        other: "DataFrame",
        on: str | list[str] | Column | list[Column] | None = None,
        how: str | None = None,
    ) -> "DataFrame":
        """Join with another DataFrame.

        Parameters
        ----------
        other : DataFrame
            The right side.
        on : str, list of str, Column or list of Column, optional
            Column names both sides have (each in the output once), or a join
            condition (several: all must hold). None: a cross join.
        how : str, optional
            ``inner`` (the default), ``cross``, ``outer``/``full``/``fullouter``,
            ``left``/``leftouter``, ``right``/``rightouter``,
            ``semi``/``leftsemi``, ``anti``/``leftanti``.

        Returns
        -------
        DataFrame
            The joined rows. On streams, stream-static joins and stream-stream
            joins (with watermarks bounding the state) as Spark allows them.

        Raises
        ------
        AnalysisException
            An unknown column, or a join type Spark does not allow on a stream.

        Examples
        --------
        >>> people = spark.createDataFrame([(1, "ann"), (2, "bob")], "id INT, name STRING")
        >>> ages = spark.createDataFrame([(1, 31), (3, 40)], "id INT, age INT")
        >>> people.join(ages, "id").collect()
        [Row(id=1, name='ann', age=31)]
        >>> people.join(ages, "id", "left").orderBy("id").collect()
        [Row(id=1, name='ann', age=31), Row(id=2, name='bob', age=None)]
        >>> people.join(ages, people.id == ages.id, "anti").collect()
        [Row(id=2, name='bob')]
        """
        how = how or "inner"
        if on is None:
            return self._wrap(self._native.join(other._native, None, None, how), other)
        items = on if isinstance(on, list) else [on]
        if all(isinstance(c, str) for c in items):
            return self._wrap(self._native.join(other._native, list(items), None, how), other)
        if all(isinstance(c, Column) for c in items):
            columns = [c for c in items if isinstance(c, Column)]
            cond = columns[0]
            for c in columns[1:]:
                cond = cond & c
            return self._wrap(self._native.join(other._native, None, cond._expr, how), other)
        raise not_expected_type("on", "Column, list or str", on)

    def crossJoin(self, other: "DataFrame") -> "DataFrame":
        """Every pair of rows of this DataFrame and another.

        Parameters
        ----------
        other : DataFrame
            The right side.

        Returns
        -------
        DataFrame
            ``len(self) * len(other)`` rows, this DataFrame's columns first.

        Examples
        --------
        >>> sizes = spark.createDataFrame([("S",), ("M",)], "size STRING")
        >>> colours = spark.createDataFrame([("red",)], "colour STRING")
        >>> sizes.crossJoin(colours).collect()
        [Row(size='S', colour='red'), Row(size='M', colour='red')]
        """
        return self.join(other, how="cross")

    def union(self, other: "DataFrame") -> "DataFrame":
        """The rows of both DataFrames, columns matched by position (``unionAll``
        is the same method).

        Duplicates are kept, as SQL's ``UNION ALL``: follow with
        :meth:`distinct` for ``UNION``. Column names are this DataFrame's.

        Parameters
        ----------
        other : DataFrame
            The rows to add, with as many columns.

        Returns
        -------
        DataFrame
            Both DataFrames' rows.

        Raises
        ------
        AnalysisException
            ``NUM_COLUMNS_MISMATCH`` when the numbers of columns differ.

        Examples
        --------
        >>> a = spark.createDataFrame([(1, "x")], "id INT, v STRING")
        >>> b = spark.createDataFrame([("y", 2)], "v STRING, id INT")
        >>> a.union(a).count()
        2
        >>> a.union(b.select("id", "v")).collect()
        [Row(id=1, v='x'), Row(id=2, v='y')]
        """
        return self._wrap(self._native.union(other._native), other)

    unionAll = union

    def unionByName(self, other: "DataFrame", allowMissingColumns: bool = False) -> "DataFrame":
        """The rows of both DataFrames, columns matched by name.

        Parameters
        ----------
        other : DataFrame
            The rows to add.
        allowMissingColumns : bool, default False
            Fill a column one side lacks with nulls, instead of an error.

        Returns
        -------
        DataFrame
            Both DataFrames' rows, in this DataFrame's column order.

        Raises
        ------
        AnalysisException
            When a column is missing on one side and ``allowMissingColumns`` is
            false.

        Examples
        --------
        >>> a = spark.createDataFrame([(1, "x")], "id INT, v STRING")
        >>> b = spark.createDataFrame([("y", 2)], "v STRING, id INT")
        >>> a.unionByName(b).collect()
        [Row(id=1, v='x'), Row(id=2, v='y')]
        >>> a.unionByName(spark.createDataFrame([(3,)], "id INT"), allowMissingColumns=True).collect()
        [Row(id=1, v='x'), Row(id=3, v=None)]
        """
        return self._wrap(self._native.union_by_name(other._native, allowMissingColumns), other)

    def limit(self, num: int) -> "DataFrame":
        """The first rows.

        Parameters
        ----------
        num : int
            How many.

        Returns
        -------
        DataFrame
            At most ``num`` rows.

        Examples
        --------
        >>> spark.range(10).limit(2).collect()
        [Row(id=0), Row(id=1)]
        """
        return self._wrap(self._native.limit(num))

    def offset(self, num: int) -> "DataFrame":
        """The rows after the first ones.

        Parameters
        ----------
        num : int
            How many to skip.

        Returns
        -------
        DataFrame
            The rest.

        Examples
        --------
        >>> spark.range(4).offset(2).collect()
        [Row(id=2), Row(id=3)]
        """
        return self._wrap(self._native.offset(int(num)))

    def _partitions(self, numPartitions: Any, cols: tuple[Any, ...]) -> tuple[int, tuple[Any, ...]]:
        """The partition count given (else ``spark.sql.shuffle.partitions``) and the columns."""
        if not isinstance(numPartitions, int) or isinstance(numPartitions, bool):
            cols = (numPartitions, *cols)
            numPartitions = int(self.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
        if numPartitions <= 0:
            raise PySparkValueError(
                f"[VALUE_NOT_POSITIVE] Value for `numPartitions` must be positive, got '{numPartitions}'.",
                "VALUE_NOT_POSITIVE",
            )
        return numPartitions, tuple(_flatten(cols))

    def repartition(self, numPartitions: int | ColumnOrName, *cols: ColumnOrName) -> "DataFrame":
        """The rows in a number of partitions.

        With columns, by Spark's hash of their values (a key lands in the
        partition Spark would give it); without, evenly. ``spark_partition_id()``
        reports the partitions, and a batch write writes one file per partition,
        as Spark's tasks do.

        Parameters
        ----------
        numPartitions : int or str or Column
            The number of partitions; or the first column (then
            ``spark.sql.shuffle.partitions`` partitions).
        *cols : str or Column
            The columns to hash.

        Returns
        -------
        DataFrame
            The same rows, repartitioned.

        Examples
        --------
        >>> df = spark.range(6).repartition(3, "id")
        >>> sorted(r.p for r in df.select(F.spark_partition_id().alias("p")).distinct().collect())
        [0, 1, 2]
        """
        n, keys = self._partitions(numPartitions, cols)
        how = "hash" if keys else "even"
        return self._wrap(self._native.repartition(n, how, [_to_col(c)._expr for c in keys]))

    def repartitionByRange(self, numPartitions: int | ColumnOrName, *cols: ColumnOrName) -> "DataFrame":
        """The rows in partitions of ranges of columns' values.

        Ascending unless a column says ``desc()``; equal keys go together, cut
        where Spark's range partitioner cuts them.

        Parameters
        ----------
        numPartitions : int or str or Column
            At most this many partitions; or the first column.
        *cols : str or Column
            The columns.

        Returns
        -------
        DataFrame
            The same rows, repartitioned.

        Examples
        --------
        >>> df = spark.range(4).repartitionByRange(2, "id")
        >>> df.select("id", F.spark_partition_id().alias("p")).collect()
        [Row(id=0, p=0), Row(id=1, p=0), Row(id=2, p=1), Row(id=3, p=1)]
        """
        n, keys = self._partitions(numPartitions, cols)
        if not keys:
            raise PySparkValueError(
                "[CANNOT_BE_EMPTY] At least one partition-by expression must be specified.", "CANNOT_BE_EMPTY"
            )
        return self._wrap(self._native.repartition(n, "range", [_to_col(c)._expr for c in keys]))

    def repartitionById(self, numPartitions: int, partitionIdCol: ColumnOrName) -> "DataFrame":
        """The rows in partitions named by a column's value.

        Parameters
        ----------
        numPartitions : int
            The number of partitions.
        partitionIdCol : str or Column
            An integer column: each row goes to the partition it names (modulo
            ``numPartitions``; null to 0).

        Returns
        -------
        DataFrame
            The same rows, repartitioned.

        Examples
        --------
        >>> df = spark.createDataFrame([(0,), (1,), (3,)], "p INT").repartitionById(2, "p")
        >>> df.select("p", F.spark_partition_id().alias("part")).orderBy("p").collect()
        [Row(p=0, part=0), Row(p=1, part=1), Row(p=3, part=1)]
        """
        n, keys = self._partitions(numPartitions, (partitionIdCol,))
        return self._wrap(self._native.repartition(n, "id", [_to_col(keys[0])._expr]))

    def coalesce(self, numPartitions: int) -> "DataFrame":
        """The rows in fewer partitions, neighbours merged without a shuffle.

        Parameters
        ----------
        numPartitions : int
            At most this many partitions (a batch write then writes at most that
            many files).

        Returns
        -------
        DataFrame
            The same rows.

        Examples
        --------
        >>> spark.range(10).repartition(4).coalesce(1).select(F.spark_partition_id()).distinct().count()
        1
        """
        n, _ = self._partitions(numPartitions, ())
        return self._wrap(self._native.repartition(n, "coalesce", []))

    def distinct(self) -> "DataFrame":
        """The distinct rows.

        Returns
        -------
        DataFrame
            Each different row once. On a stream, as :meth:`dropDuplicates`.

        Examples
        --------
        >>> spark.createDataFrame([(1,), (1,), (2,)], "n INT").distinct().orderBy("n").collect()
        [Row(n=1), Row(n=2)]
        """
        return self._wrap(self._native.distinct())

    def dropDuplicates(self, subset: list[str] | None = None) -> "DataFrame":
        """The rows with duplicates removed (``drop_duplicates`` is the same method).

        On a stream every key seen is remembered, in the query's state; when
        the watermarked event-time column is among the columns, a key is
        forgotten once the watermark passes its event time (later copies would
        be late anyway).

        Parameters
        ----------
        subset : list of str, optional
            The columns that make a duplicate (all by default); the first row of
            each key is kept.

        Returns
        -------
        DataFrame
            The rows, one per key.

        Raises
        ------
        PySparkTypeError
            ``NOT_EXPECTED_TYPE`` when ``subset`` is not a list of names.

        Examples
        --------
        >>> df = spark.createDataFrame([("ann", 1), ("ann", 1), ("ann", 2)], "name STRING, n INT")
        >>> df.dropDuplicates().count()
        2
        >>> df.dropDuplicates(["name"]).count()
        1
        """
        return self._wrap(self._native.drop_duplicates(_subset(subset), False))

    drop_duplicates = dropDuplicates

    def dropDuplicatesWithinWatermark(self, subset: list[str] | None = None) -> "DataFrame":
        """Drop rows that duplicate one seen within the watermark's delay
        (``drop_duplicates_within_watermark`` is the same method).

        A key is remembered until the watermark passes its first event time
        plus the delay given to :meth:`withWatermark`, which a stream must have.

        Parameters
        ----------
        subset : list of str, optional
            The columns that make a duplicate (all by default).

        Returns
        -------
        DataFrame
            The rows, without duplicates within the delay.

        Raises
        ------
        AnalysisException
            On a stream without a watermark.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> events = MemoryStream(spark, "id INT, ts TIMESTAMP")
        >>> unique = (events.toDF().withWatermark("ts", "1 minute")
        ...     .dropDuplicatesWithinWatermark(["id"]))
        >>> q = unique.writeStream.format("memory").queryName("doc_within").start()
        >>> import datetime as dt
        >>> t = dt.datetime(2026, 1, 1, 10, 0)
        >>> _ = events.addData([(1, t), (1, t + dt.timedelta(seconds=30)), (2, t)])
        >>> q.processAllAvailable()
        >>> sorted(r.id for r in spark.table("doc_within").collect())
        [1, 2]
        >>> q.stop()
        """
        return self._wrap(self._native.drop_duplicates(_subset(subset), True))

    drop_duplicates_within_watermark = dropDuplicatesWithinWatermark

    def orderBy(self, *cols: ColumnOrName | list[ColumnOrName], ascending: Any = True) -> "DataFrame":
        """The rows sorted (``sort`` is the same method).

        Ascending puts nulls first, descending last, as Spark.

        Parameters
        ----------
        *cols : str, Column, int or list of them
            The sort keys: names, Columns (``desc()``, ``asc_nulls_last()``
            ...), or 1-based column positions (negative: descending).
        ascending : bool or list of bool, default True
            The direction, for all keys or one per key.

        Returns
        -------
        DataFrame
            The rows in order.

        Examples
        --------
        >>> df = spark.createDataFrame([("b", 1), ("a", 2), ("a", 1)], "k STRING, n INT")
        >>> df.orderBy("k", df.n.desc()).collect()
        [Row(k='a', n=2), Row(k='a', n=1), Row(k='b', n=1)]
        >>> df.sort(["k", "n"], ascending=[False, True]).first()
        Row(k='b', n=1)
        """
        items = []
        for c in _flatten(cols):
            if isinstance(c, int) and not isinstance(c, bool):
                column = self._ordinal(abs(c), "orderBy")
                items.append(column.desc() if c < 0 else column)
            else:
                items.append(_to_col(c))
        if isinstance(ascending, (list, tuple)):
            if len(ascending) != len(items):
                raise PySparkValueError(
                    "[LENGTH_SHOULD_BE_THE_SAME] cols and ascending should be of the same length, "
                    f"got {len(items)} and {len(ascending)}.",
                    "LENGTH_SHOULD_BE_THE_SAME",
                )
            items = [c if asc else c.desc() for c, asc in zip(items, ascending)]
        elif isinstance(ascending, (bool, int)):
            if not ascending:
                items = [c.desc() for c in items]
        else:
            raise not_expected_type("ascending", "bool or list", ascending)
        return self._wrap(self._native.sort([c._expr for c in items]))

    def _ordinal(self, i: int, what: str) -> Column:
        """Column ``i`` counted from 1, as ``groupBy(1)`` and ``orderBy(1)`` take it."""
        if i < 1:
            raise PySparkValueError(f"[INDEX_NOT_POSITIVE] Index must be positive, got '{i}'.", "INDEX_NOT_POSITIVE")
        if i > len(self.columns):
            raise AnalysisException(
                f"[{what.upper()}_POS_OUT_OF_RANGE] Column position {i} is not in the select list "
                f"(valid range is [1, {len(self.columns)}]).",
                "GROUP_BY_POS_OUT_OF_RANGE" if what != "orderBy" else "ORDER_BY_POS_OUT_OF_RANGE",
            )
        return Column(_native.col(f"`{self.columns[i - 1]}`"))

    def _keys(self, cols: tuple[Any, ...], what: str) -> list[Column]:
        """Grouping columns: names, Columns or 1-based ordinals."""
        return [
            self._ordinal(c, what) if isinstance(c, int) and not isinstance(c, bool) else _to_col(c)
            for c in _flatten(cols)
        ]

    def sortWithinPartitions(self, *cols: ColumnOrName | list[ColumnOrName], ascending: Any = True) -> "DataFrame":
        """The rows of each partition sorted.

        Spark makes no promise about the order across partitions, so sparklet
        sorts all rows: one order that is each partition's too.

        Parameters
        ----------
        *cols : str, Column, int or list of them
            The sort keys, as for :meth:`orderBy`.
        ascending : bool or list of bool, default True
            The direction.

        Returns
        -------
        DataFrame
            The rows, sorted within partitions.

        Examples
        --------
        >>> spark.range(3).coalesce(1).sortWithinPartitions(F.col("id").desc()).collect()
        [Row(id=2), Row(id=1), Row(id=0)]
        """
        return self.orderBy(*cols, ascending=ascending)

    sort = orderBy

    def withWatermark(self, eventTime: str, delayThreshold: str) -> "DataFrame":
        """Declare an event-time column and how late its data may be.

        On a stream the watermark, the largest event time seen less the delay,
        bounds the state of aggregations, joins and deduplication, and decides
        when append mode emits a window; rows behind it are dropped by those
        operators. On a batch DataFrame it has no effect, as in Spark.

        Parameters
        ----------
        eventTime : str
            A timestamp column.
        delayThreshold : str
            An interval, such as ``"10 seconds"`` or ``"1 minute"``.

        Returns
        -------
        DataFrame
            The same rows, with the watermark declared.

        Raises
        ------
        AnalysisException
            For an unknown column or one that is not a timestamp.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> import datetime as dt
        >>> clicks = MemoryStream(spark, "page STRING, ts TIMESTAMP")
        >>> counts = (clicks.toDF().withWatermark("ts", "10 seconds")
        ...     .groupBy(F.window("ts", "1 minute"), "page").count())
        >>> q = counts.writeStream.outputMode("append").format("memory").queryName("doc_windows").start()
        >>> _ = clicks.addData([("/home", dt.datetime(2026, 1, 1, 10, 0, 5))])
        >>> q.processAllAvailable()
        >>> spark.table("doc_windows").count()  # the window is still open
        0
        >>> _ = clicks.addData([("/home", dt.datetime(2026, 1, 1, 10, 1, 30))])
        >>> q.processAllAvailable()
        >>> _ = clicks.addData([("/cart", dt.datetime(2026, 1, 1, 10, 1, 31))])
        >>> q.processAllAvailable()
        >>> [(r.window.start.minute, r.page, r["count"]) for r in spark.table("doc_windows").collect()]
        [(0, '/home', 1)]
        >>> q.stop()
        """
        return self._wrap(self._native.with_watermark(eventTime, delayThreshold))

    def groupBy(self, *cols: ColumnOrName | list[ColumnOrName]) -> "GroupedData":
        """Group the rows by columns, to aggregate (``groupby`` is the same method).

        Parameters
        ----------
        *cols : str, Column, int or list of them
            The keys: names, expressions (``F.window(...)``), or 1-based column
            positions. None: one group of all rows.

        Returns
        -------
        GroupedData
            To aggregate with ``agg``, ``count``, ``sum`` ...

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], "k STRING, v INT")
        >>> df.groupBy("k").count().orderBy("k").collect()
        [Row(k='a', count=2), Row(k='b', count=1)]
        >>> df.groupBy(F.upper("k")).agg(F.sum("v")).orderBy(1).collect()
        [Row(upper(k)='A', sum(v)=4), Row(upper(k)='B', sum(v)=5)]
        """
        return GroupedData(self, self._keys(cols, "groupBy"))

    groupby = groupBy

    def cube(self, *cols: ColumnOrName | list[ColumnOrName]) -> "GroupedData":
        """Group by every subset of the columns, as SQL's ``CUBE``.

        A column aggregated away is null in that group's row.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns.

        Returns
        -------
        GroupedData
            To aggregate.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", "x", 1), ("b", "x", 2)], "k STRING, c STRING, v INT")
        >>> df.cube("k", "c").sum("v").orderBy("k", "c").collect()
        [Row(k=None, c=None, sum(v)=3), Row(k=None, c='x', sum(v)=3), Row(k='a', c=None, sum(v)=1), Row(k='a', c='x', sum(v)=1), Row(k='b', c=None, sum(v)=2), Row(k='b', c='x', sum(v)=2)]
        """
        return GroupedData(self, self._keys(cols, "groupBy"), kind="cube")

    def rollup(self, *cols: ColumnOrName | list[ColumnOrName]) -> "GroupedData":
        """Group by each prefix of the columns, down to all rows, as SQL's
        ``ROLLUP``.

        Parameters
        ----------
        *cols : str, Column or list of them
            The columns, outermost first.

        Returns
        -------
        GroupedData
            To aggregate.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", "x", 1), ("a", "y", 2)], "k STRING, c STRING, v INT")
        >>> df.rollup("k", "c").sum("v").orderBy("k", "c").collect()
        [Row(k=None, c=None, sum(v)=3), Row(k='a', c=None, sum(v)=3), Row(k='a', c='x', sum(v)=1), Row(k='a', c='y', sum(v)=2)]
        """
        return GroupedData(self, self._keys(cols, "groupBy"), kind="rollup")

    def groupingSets(self, groupingSets: Any, *cols: ColumnOrName) -> "GroupedData":
        """Group by each of several sets of columns, as SQL's ``GROUPING SETS``.

        Parameters
        ----------
        groupingSets : list of lists
            The sets, each a list of columns among ``cols``.
        *cols : str or Column
            Every column the sets use: the output's key columns.

        Returns
        -------
        GroupedData
            To aggregate.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", "x", 1), ("b", "x", 2)], "k STRING, c STRING, v INT")
        >>> df.groupingSets([["k"], ["c"]], "k", "c").sum("v").orderBy("k", "c").collect()
        [Row(k=None, c='x', sum(v)=3), Row(k='a', c=None, sum(v)=1), Row(k='b', c=None, sum(v)=2)]
        """
        keys = self._keys(cols, "groupBy")
        names = [k._expr.name() for k in keys]
        sets = []
        for group in groupingSets:
            positions = []
            for c in group:
                name = _to_col(c)._expr.name()
                if name not in names:
                    keys.append(_to_col(c))
                    names.append(name)
                positions.append(names.index(name))
            sets.append(positions)
        return GroupedData(self, keys, kind="sets", sets=sets)

    def agg(self, *exprs: Column) -> "DataFrame":
        """Aggregate over all rows (``df.groupBy().agg(...)``).

        Parameters
        ----------
        *exprs : Column or dict
            Aggregates, or a dict of column name to function name.

        Returns
        -------
        DataFrame
            One row.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,), (3,)], "n INT")
        >>> df.agg(F.min("n"), F.max("n")).collect()
        [Row(min(n)=1, max(n)=3)]
        >>> df.agg({"n": "avg"}).collect()
        [Row(avg(n)=2.0)]
        """
        return GroupedData(self, []).agg(*exprs)

    # ---- missing values and statistics --------------------------------
    @property
    def na(self) -> "DataFrameNaFunctions":
        """The missing-value functions: ``df.na.fill``, ``df.na.drop``,
        ``df.na.replace`` (the same as :meth:`fillna`, :meth:`dropna`,
        :meth:`replace`).

        Returns
        -------
        DataFrameNaFunctions
            Bound to this DataFrame.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, None), (None, "b")], "n INT, s STRING")
        >>> df.na.fill(0).na.fill("?").collect()
        [Row(n=1, s='?'), Row(n=0, s='b')]
        """
        return DataFrameNaFunctions(self)

    @property
    def stat(self) -> "DataFrameStatFunctions":
        """The statistics functions: ``df.stat.corr``, ``cov``, ``crosstab``,
        ``freqItems``, ``approxQuantile``, ``sampleBy``.

        Returns
        -------
        DataFrameStatFunctions
            Bound to this DataFrame.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0), (2, 4.0), (3, 6.0)], "n INT, x DOUBLE")
        >>> df.stat.corr("n", "x")
        1.0
        """
        return DataFrameStatFunctions(self)

    def fillna(self, value: Any, subset: Any = None) -> "DataFrame":
        """Replace nulls (and NaN in floating-point columns).

        A number fills the numeric columns, a string the string columns, a bool
        the boolean columns; other columns keep their nulls.

        Parameters
        ----------
        value : int, float, str, bool or dict
            The value; or a dict of column name to value (``subset`` ignored).
        subset : str or list of str, optional
            Only these columns.

        Returns
        -------
        DataFrame
            The rows, nulls replaced.

        Examples
        --------
        >>> df = spark.createDataFrame([(None, None, float("nan"))], "n INT, s STRING, x DOUBLE")
        >>> df.fillna(0).collect()
        [Row(n=0, s=None, x=0.0)]
        >>> df.fillna({"s": "none", "n": -1}).collect()
        [Row(n=-1, s='none', x=nan)]
        """
        from sparklet.sql._dataframe_na import fill

        return fill(self, value, subset)

    def dropna(self, how: str = "any", thresh: int | None = None, subset: Any = None) -> "DataFrame":
        """Drop rows with missing values.

        Parameters
        ----------
        how : str, default "any"
            ``"any"``: a row with any null (or NaN) goes; ``"all"``: only a row
            whose values are all null.
        thresh : int, optional
            Keep the rows with at least this many non-null values (overrides
            ``how``).
        subset : str or list of str, optional
            Look at these columns only.

        Returns
        -------
        DataFrame
            The rows kept.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a"), (None, "b"), (None, None)], "n INT, s STRING")
        >>> df.dropna().count(), df.dropna(how="all").count(), df.dropna(subset=["s"]).count()
        (1, 2, 2)
        """
        from sparklet.sql._dataframe_na import drop

        return drop(self, how, thresh, subset)

    def replace(self, to_replace: Any, value: Any = "__unset__", subset: Any = None) -> "DataFrame":
        """Replace values.

        Only columns of the replaced values' type are changed (numbers in
        numeric columns, strings in string columns).

        Parameters
        ----------
        to_replace : value, list or dict
            A value, a list of values (with ``value`` one value or a list of the
            same length), or a dict of value to replacement.
        value : value or list, optional
            The replacement(s), when ``to_replace`` is not a dict.
        subset : str or list of str, optional
            Only these columns.

        Returns
        -------
        DataFrame
            The rows, values replaced.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "yes"), (2, "no")], "n INT, answer STRING")
        >>> df.replace({"yes": "Y", "no": "N"}).collect()
        [Row(n=1, answer='Y'), Row(n=2, answer='N')]
        >>> df.replace(1, 10, subset=["n"]).collect()
        [Row(n=10, answer='yes'), Row(n=2, answer='no')]
        """
        from sparklet.sql._dataframe_na import replace

        return replace(self, to_replace, value, subset)

    def corr(self, col1: str, col2: str, method: str | None = None) -> float | None:
        """Pearson's correlation coefficient of two numeric columns.

        Parameters
        ----------
        col1, col2 : str
            The columns.
        method : str, optional
            Only ``"pearson"``, as in Spark.

        Returns
        -------
        float or None
            The coefficient (None without rows).

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0), (2, 4.0), (3, 7.0)], "n INT, x DOUBLE")
        >>> round(df.corr("n", "x"), 4)
        0.9934
        """
        from sparklet.sql._dataframe_stat import corr

        return corr(self, col1, col2, method)

    def cov(self, col1: str, col2: str) -> float | None:
        """The sample covariance of two numeric columns.

        Parameters
        ----------
        col1, col2 : str
            The columns.

        Returns
        -------
        float or None
            The covariance.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0), (2, 4.0), (3, 6.0)], "n INT, x DOUBLE")
        >>> df.cov("n", "x")
        2.0
        """
        from sparklet.sql._dataframe_stat import cov

        return cov(self, col1, col2)

    def crosstab(self, col1: str, col2: str) -> "DataFrame":
        """The contingency table of two columns: a row per value of the first, a
        column per value of the second, the counts of pairs.

        Parameters
        ----------
        col1, col2 : str
            The columns.

        Returns
        -------
        DataFrame
            First column ``col1_col2``, then one column per value of ``col2``.

        Examples
        --------
        >>> df = spark.createDataFrame([("a", 1), ("a", 2), ("b", 1)], "k STRING, n INT")
        >>> df.crosstab("k", "n").orderBy("k_n").collect()
        [Row(k_n='a', 1=1, 2=1), Row(k_n='b', 1=1, 2=0)]
        """
        from sparklet.sql._dataframe_stat import crosstab

        return crosstab(self, col1, col2)

    def freqItems(self, cols: Any, support: float | None = None) -> "DataFrame":
        """The values of each column found in at least a share of the rows.

        Spark's answer is approximate and may include values below the
        support; sparklet counts exactly.

        Parameters
        ----------
        cols : list of str
            The columns.
        support : float, optional
            The share (1% by default).

        Returns
        -------
        DataFrame
            One row, a column ``col_freqItems`` (an array) per column.

        Examples
        --------
        >>> df = spark.createDataFrame([("a",), ("a",), ("b",)], "k STRING")
        >>> df.freqItems(["k"], 0.6).collect()
        [Row(k_freqItems=['a'])]
        """
        from sparklet.sql._dataframe_stat import freq_items

        return freq_items(self, cols, support)

    def approxQuantile(self, col: Any, probabilities: Any, relativeError: float) -> list[Any]:
        """Quantiles of numeric columns.

        Parameters
        ----------
        col : str or list of str
            A column, or several.
        probabilities : list of float
            The quantiles, between 0 and 1.
        relativeError : float
            The accepted error (0: exact).

        Returns
        -------
        list
            The quantiles of the column (a list per column for several).

        Examples
        --------
        >>> df = spark.createDataFrame([(float(x),) for x in range(1, 10)], "x DOUBLE")
        >>> df.approxQuantile("x", [0.0, 0.5, 1.0], 0.0)
        [1.0, 5.0, 9.0]
        """
        from sparklet.sql._dataframe_stat import approx_quantile

        return approx_quantile(self, col, probabilities, relativeError)

    def sampleBy(self, col: Any, fractions: dict[Any, float], seed: int | None = None) -> "DataFrame":
        """A stratified sample without replacement: a fraction of the rows per
        value of a column.

        Parameters
        ----------
        col : str or Column
            The column whose values are the strata.
        fractions : dict
            Value to fraction (values not given: 0).
        seed : int, optional
            The same sample each run over the same input (not Spark's rows).

        Returns
        -------
        DataFrame
            The sample.

        Examples
        --------
        >>> df = spark.createDataFrame([("a",), ("a",), ("b",)], "k STRING")
        >>> df.sampleBy("k", {"a": 1.0, "b": 0.0}, seed=1).count()
        2
        """
        from sparklet.sql._dataframe_stat import sample_by

        return sample_by(self, col, fractions, seed)

    def describe(self, *cols: str | list[str]) -> "DataFrame":
        """count, mean, stddev, min and max of numeric and string columns.

        Parameters
        ----------
        *cols : str or list of str
            The columns (all by default).

        Returns
        -------
        DataFrame
            A ``summary`` column naming the statistic, then one string column
            per column described.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,), (2,), (3,)], "n INT")
        >>> df.describe("n").collect()
        [Row(summary='count', n='3'), Row(summary='mean', n='2.0'), Row(summary='stddev', n='1.0'), Row(summary='min', n='1'), Row(summary='max', n='3')]
        """
        from sparklet.sql._dataframe_stat import summary

        names = _flatten(cols)
        df = self.select(*names) if names else self
        return summary(df, [], ("count", "mean", "stddev", "min", "max"))

    def summary(self, *statistics: str) -> "DataFrame":
        """Statistics of numeric and string columns.

        Parameters
        ----------
        *statistics : str
            Any of ``count``, ``mean``, ``stddev``, ``min``, ``max``, percentiles
            (``"25%"``), ``count_distinct``, ``approx_count_distinct``; by default
            count, mean, stddev, min, 25%, 50%, 75%, max.

        Returns
        -------
        DataFrame
            A ``summary`` column, then one string column per column.

        Examples
        --------
        >>> df = spark.createDataFrame([(1,), (2,), (3,)], "n INT")
        >>> df.summary("count", "min", "50%").collect()
        [Row(summary='count', n='3'), Row(summary='min', n='1'), Row(summary='50%', n='2')]
        """
        from sparklet.sql._dataframe_stat import summary

        return summary(self, list(statistics))

    # ---- reshaping ----------------------------------------------------
    def toDF(self, *cols: str) -> "DataFrame":
        """The columns renamed, by position.

        Parameters
        ----------
        *cols : str
            One name per column.

        Returns
        -------
        DataFrame
            The same rows under the new names.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "_1 INT, _2 STRING").toDF("id", "name").columns
        ['id', 'name']
        """
        for c in cols:
            if not isinstance(c, str):
                raise not_expected_type("cols", "list[str]", c)
        if len(cols) != len(self.columns):
            raise AnalysisException(
                f"The number of columns doesn't match.\nOld column names ({len(self.columns)}): "
                f"{', '.join(self.columns)}\nNew column names ({len(cols)}): {', '.join(cols)}",
                "COLUMN_COUNT_MISMATCH",
            )
        return self.select(*[Column(_native.col(f"`{o}`")).alias(n) for o, n in zip(self.columns, cols)])

    def to(self, schema: StructType) -> "DataFrame":
        """The columns of a schema, matched by name and cast to its types.

        Parameters
        ----------
        schema : StructType
            The schema: its columns, in its order.

        Returns
        -------
        DataFrame
            The rows with ``schema``'s columns.

        Raises
        ------
        AnalysisException
            When a column of the schema is missing.

        Examples
        --------
        >>> from sparklet.sql.types import LongType, StringType, StructField, StructType
        >>> df = spark.createDataFrame([("a", 1)], "name STRING, id INT")
        >>> target = StructType([StructField("id", LongType()), StructField("name", StringType())])
        >>> df.to(target).dtypes
        [('id', 'bigint'), ('name', 'string')]
        """
        if not isinstance(schema, StructType):
            raise not_expected_type("schema", "struct type", schema)
        for f in schema.fields:
            self._check_column(f.name)
        return self.select(*[Column(_native.col(f"`{f.name}`")).cast(f.dataType).alias(f.name) for f in schema.fields])

    def transform(self, func: Callable[..., "DataFrame"], *args: Any, **kwargs: Any) -> "DataFrame":
        """Apply a function of a DataFrame, for chaining.

        Parameters
        ----------
        func : callable
            Takes this DataFrame (and ``args``, ``kwargs``), returns a DataFrame.
        *args, **kwargs
            Passed on to ``func``.

        Returns
        -------
        DataFrame
            ``func(self, *args, **kwargs)``.

        Examples
        --------
        >>> def with_tax(df, rate):
        ...     return df.withColumn("gross", df.net * (1 + rate))
        >>> spark.createDataFrame([(100.0,)], "net DOUBLE").transform(with_tax, 0.25).collect()
        [Row(net=100.0, gross=125.0)]
        """
        result = func(self, *args, **kwargs)
        if not isinstance(result, DataFrame):
            raise not_expected_type("func", "DataFrame", result)
        return result

    def unpivot(
        self,
        ids: Any,
        values: Any,
        variableColumnName: str,
        valueColumnName: str,
    ) -> "DataFrame":
        """Wide to long: one row per input row and value column (``melt`` is the
        same method).

        Parameters
        ----------
        ids : str, Column or list of them
            The columns kept as they are.
        values : str, Column or list of them, optional
            The columns turned into rows (None: all others). They must share a
            type, or widen to one as Spark widens them.
        variableColumnName : str
            The column holding each value column's name.
        valueColumnName : str
            The column holding its value.

        Returns
        -------
        DataFrame
            The id columns, then the two new columns.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 10, 20)], "id INT, q1 INT, q2 INT")
        >>> df.unpivot("id", ["q1", "q2"], "quarter", "sales").collect()
        [Row(id=1, quarter='q1', sales=10), Row(id=1, quarter='q2', sales=20)]
        """
        from sparklet.sql._reshape import unpivot

        return unpivot(self, ids, values, variableColumnName, valueColumnName)

    melt = unpivot

    def colRegex(self, colName: str) -> Column:
        """The columns whose names match a regular expression, for ``select``.

        Parameters
        ----------
        colName : str
            The regular expression, in backquotes (```(n|x)```).

        Returns
        -------
        Column
            To pass to :meth:`select`.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2, 3)], "n INT, x INT, y INT")
        >>> df.select(df.colRegex("`(n|x)`")).columns
        ['n', 'x']
        """
        from sparklet.sql._reshape import col_regex

        return col_regex(self, colName)

    def hint(self, name: str, *parameters: Any) -> "DataFrame":
        """A hint for Spark's planner (``broadcast``, ``merge``, ``coalesce`` ...).

        Hints choose how Spark runs a join, never what it gives; sparklet's
        planner chooses on its own, so the DataFrame is returned unchanged.

        Parameters
        ----------
        name : str
            The hint.
        *parameters
            Its parameters.

        Returns
        -------
        DataFrame
            This DataFrame.

        Examples
        --------
        >>> small = spark.createDataFrame([(1, "a")], "id INT, v STRING")
        >>> spark.range(3).join(small.hint("broadcast"), "id").collect()
        [Row(id=1, v='a')]
        """
        if not isinstance(name, str):
            raise not_expected_type("name", "str", name)
        for p in _flatten(parameters):
            if not isinstance(p, (str, float, int, Column, list)):
                raise PySparkTypeError(
                    "[DISALLOWED_TYPE_FOR_CONTAINER] Argument `parameters`(type: tuple) should only contain a "
                    f"type in [str, float, int, Column, list], got {type(p).__name__}",
                    "DISALLOWED_TYPE_FOR_CONTAINER",
                )
        return self

    # ---- set operations and samples -----------------------------------
    def intersect(self, other: "DataFrame") -> "DataFrame":
        """The distinct rows found in both DataFrames (columns matched by position).

        Parameters
        ----------
        other : DataFrame
            The other rows.

        Returns
        -------
        DataFrame
            Each common row once.

        Examples
        --------
        >>> a = spark.createDataFrame([(1,), (1,), (2,)], "n INT")
        >>> b = spark.createDataFrame([(1,), (3,)], "n INT")
        >>> a.intersect(b).collect()
        [Row(n=1)]
        """
        return self._wrap(self._native.set_op(other._native, "intersect"), other)

    def intersectAll(self, other: "DataFrame") -> "DataFrame":
        """The rows found in both DataFrames, each as often as both have it.

        Parameters
        ----------
        other : DataFrame
            The other rows.

        Returns
        -------
        DataFrame
            The common rows, with duplicates.

        Examples
        --------
        >>> a = spark.createDataFrame([(1,), (1,), (2,)], "n INT")
        >>> b = spark.createDataFrame([(1,), (1,), (3,)], "n INT")
        >>> a.intersectAll(b).collect()
        [Row(n=1), Row(n=1)]
        """
        return self._wrap(self._native.set_op(other._native, "intersectAll"), other)

    def subtract(self, other: "DataFrame") -> "DataFrame":
        """The distinct rows not in another DataFrame (SQL's ``EXCEPT``).

        Parameters
        ----------
        other : DataFrame
            The rows to take away.

        Returns
        -------
        DataFrame
            Each remaining row once.

        Examples
        --------
        >>> a = spark.createDataFrame([(1,), (2,), (2,)], "n INT")
        >>> a.subtract(spark.createDataFrame([(1,)], "n INT")).collect()
        [Row(n=2)]
        """
        return self._wrap(self._native.set_op(other._native, "subtract"), other)

    def exceptAll(self, other: "DataFrame") -> "DataFrame":
        """The rows less another DataFrame's, copy for copy (SQL's ``EXCEPT ALL``).

        Parameters
        ----------
        other : DataFrame
            The rows to take away.

        Returns
        -------
        DataFrame
            The remaining rows, with duplicates.

        Examples
        --------
        >>> a = spark.createDataFrame([(1,), (2,), (2,)], "n INT")
        >>> a.exceptAll(spark.createDataFrame([(2,)], "n INT")).orderBy("n").collect()
        [Row(n=1), Row(n=2)]
        """
        return self._wrap(self._native.set_op(other._native, "exceptAll"), other)

    def sample(
        self,
        withReplacement: bool | float | None = None,
        fraction: float | int | None = None,
        seed: int | None = None,
    ) -> "DataFrame":
        """A random sample of about a fraction of the rows.

        With a seed, the same sample each run over the same input; not the rows
        Spark would pick (its generator is not reproduced, docs/differences.md).

        Parameters
        ----------
        withReplacement : bool, optional
            Sample with replacement (each row a Poisson number of times).
        fraction : float
            The expected share of rows.
        seed : int, optional
            The seed.

        Returns
        -------
        DataFrame
            The sample.

        Examples
        --------
        >>> n = spark.range(1000).sample(fraction=0.5, seed=7).count()
        >>> 400 < n < 600
        True
        """
        from sparklet.sql._reshape import sample

        return sample(self, withReplacement, fraction, seed)

    def randomSplit(self, weights: list[float], seed: int | None = None) -> list["DataFrame"]:
        """The rows split at random into DataFrames sized by weights.

        Parameters
        ----------
        weights : list of float
            The relative sizes (normalised to sum to 1).
        seed : int, optional
            The same split each run over the same input.

        Returns
        -------
        list of DataFrame
            One per weight; together they hold every row once.

        Examples
        --------
        >>> train, test = spark.range(100).randomSplit([0.8, 0.2], seed=1)
        >>> train.count() + test.count()
        100
        """
        from sparklet.sql._reshape import random_split

        return random_split(self, weights, seed)

    # ---- actions ------------------------------------------------------
    def toArrow(self) -> pa.Table:
        """Run the query; its result as a pyarrow Table (no copy of the engine's
        batches).

        Returns
        -------
        pyarrow.Table
            The rows; timestamps carry the session time zone.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").toArrow().to_pydict()
        {'id': [1], 'name': ['a']}
        """
        return self._native.collect()

    def collect(self) -> list[Row]:
        """Run the query; all its rows.

        Returns
        -------
        list of Row
            The rows (timestamps as naive datetimes in the session time zone, as
            PySpark).

        Raises
        ------
        AnalysisException
            For a streaming DataFrame, which runs only through
            ``writeStream.start()``.

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").collect()
        [Row(id=1, name='a')]
        """
        return table_to_rows(self.toArrow())

    def toPandas(self) -> Any:
        """Run the query; its result as a pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            The rows (timestamps naive in the session time zone, as PySpark).

        Examples
        --------
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").toPandas()
           id name
        0   1    a
        """
        tz = self.sparkSession.conf.get("spark.sql.session.timeZone", "UTC") or "UTC"
        return table_to_pandas(self.toArrow(), tz)

    def count(self) -> int:
        """Run the query; the number of rows.

        Returns
        -------
        int
            How many rows.

        Examples
        --------
        >>> spark.range(42).count()
        42
        """
        return int(self._native.count())

    def take(self, num: int) -> list[Row]:
        """Run the query; its first rows.

        Parameters
        ----------
        num : int
            How many.

        Returns
        -------
        list of Row
            At most ``num`` rows.

        Examples
        --------
        >>> spark.range(5).take(2)
        [Row(id=0), Row(id=1)]
        """
        return self.limit(num).collect()

    @overload
    def head(self) -> Row | None: ...

    @overload
    def head(self, n: int) -> list[Row]: ...

    def head(self, n: int | None = None) -> Row | None | list[Row]:
        """Run the query; its first row, or first rows.

        Parameters
        ----------
        n : int, optional
            How many rows; without it, the first row alone.

        Returns
        -------
        Row, None or list of Row
            The first row (None without rows), or a list of at most ``n`` rows.

        Examples
        --------
        >>> df = spark.range(3)
        >>> df.head()
        Row(id=0)
        >>> df.head(2)
        [Row(id=0), Row(id=1)]
        """
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Row | None:
        """Run the query; its first row.

        Returns
        -------
        Row or None
            The first row, None when there are none.

        Examples
        --------
        >>> spark.range(3).first()
        Row(id=0)
        >>> spark.range(0).first() is None
        True
        """
        return self.head()

    def isEmpty(self) -> bool:
        """Whether the result has no rows (it reads at most one).

        Returns
        -------
        bool
            True without rows.

        Examples
        --------
        >>> spark.range(0).isEmpty(), spark.range(1).isEmpty()
        (True, False)
        """
        return len(self.take(1)) == 0

    def transpose(self, indexColumn: ColumnOrName | None = None) -> "DataFrame":
        """Turn columns into rows: the values of an index column become the
        column names.

        Parameters
        ----------
        indexColumn : str or Column, optional
            The column whose values name the new columns (the first column by
            default).

        Returns
        -------
        DataFrame
            A column ``key`` naming each other column, then one column per
            index value.

        Examples
        --------
        >>> df = spark.createDataFrame([("x", 1, 2), ("y", 3, 4)], "name STRING, a INT, b INT")
        >>> df.transpose().collect()
        [Row(key='a', x=1, y=3), Row(key='b', x=2, y=4)]
        """
        from sparklet.sql._reshape import transpose

        return transpose(self, indexColumn)

    def zip(self, other: "DataFrame") -> "DataFrame":
        """Put the columns of two DataFrames side by side, row by row.

        Both must be projections (``select``, ``withColumn`` ...) of the same
        plan, so their rows pair up.

        Parameters
        ----------
        other : DataFrame
            The other columns.

        Returns
        -------
        DataFrame
            This DataFrame's columns, then ``other``'s.

        Examples
        --------
        >>> base = spark.range(2)
        >>> base.select((base.id * 10).alias("ten")).zip(base.select((base.id + 1).alias("next"))).collect()
        [Row(ten=0, next=1), Row(ten=10, next=2)]
        """
        from sparklet.sql._reshape import zip_frames

        return zip_frames(self, other)

    def nearestByJoin(
        self,
        other: "DataFrame",
        rankingExpression: Column,
        numResults: int,
        mode: str,
        direction: str,
        *,
        joinType: str = "inner",
    ) -> "DataFrame":
        """For each row, the rows of another DataFrame ranked first by an expression.

        Both modes evaluate the whole cross product (exact nearest neighbours).

        Parameters
        ----------
        other : DataFrame
            The candidates.
        rankingExpression : Column
            A number per pair of rows: a distance or a similarity.
        numResults : int
            How many candidates per row.
        mode : str
            ``"exact"`` or ``"approx"`` (both exact here).
        direction : str
            ``"distance"`` (smallest first) or ``"similarity"`` (largest first).
        joinType : str, default "inner"
            ``"inner"``, or ``"leftouter"`` to keep rows without candidates.

        Returns
        -------
        DataFrame
            Each row with its nearest candidates, one output row per pair.

        Examples
        --------
        >>> points = spark.createDataFrame([(1, 0.0), (2, 10.0)], "id INT, x DOUBLE")
        >>> sites = spark.createDataFrame([("a", 1.0), ("b", 9.0)], "site STRING, sx DOUBLE")
        >>> near = points.nearestByJoin(sites, F.abs(points.x - sites.sx), 1, "exact", "distance")
        >>> near.select("id", "site").orderBy("id").collect()
        [Row(id=1, site='a'), Row(id=2, site='b')]
        """
        from sparklet.sql._reshape import nearest_by_join

        return nearest_by_join(self, other, rankingExpression, numResults, mode, direction, joinType)

    def zipWithIndex(self, indexColName: str = "index") -> "DataFrame":
        """The rows with their 0-based position appended.

        Parameters
        ----------
        indexColName : str, default "index"
            The new column's name.

        Returns
        -------
        DataFrame
            The rows and their positions.

        Examples
        --------
        >>> spark.createDataFrame([("a",), ("b",)], "v STRING").zipWithIndex().collect()
        [Row(v='a', index=0), Row(v='b', index=1)]
        """
        from sparklet.sql._reshape import zip_with_index

        return zip_with_index(self, indexColName)

    def tail(self, num: int) -> list[Row]:
        """Run the query; its last rows.

        Parameters
        ----------
        num : int
            How many.

        Returns
        -------
        list of Row
            At most ``num`` rows, in order.

        Examples
        --------
        >>> spark.range(5).tail(2)
        [Row(id=3), Row(id=4)]
        """
        rows = self.collect()
        return rows[len(rows) - num :] if num > 0 else []

    @property
    def rdd(self) -> "RDD[Row]":
        """The rows as a local RDD, partition by partition.

        Returns
        -------
        RDD
            sparklet's in-process RDD (``map``, ``filter``, ``collect`` ...).

        Examples
        --------
        >>> spark.createDataFrame([(1,), (2,)], "n INT").rdd.map(lambda r: r.n * 10).collect()
        [10, 20]
        """
        from sparklet.core.rdd import RDD

        native = self._native
        return RDD(
            self.sparkSession.sparkContext,
            lambda: [table_to_rows(t) for t in native.collect_partitions()],
            lambda: native.num_partitions(),
        )

    def toJSON(self, use_unicode: bool = True) -> "RDD[str]":
        """Each row as a JSON object, as Spark's ``to_json`` writes it.

        Parameters
        ----------
        use_unicode : bool, default True
            Accepted for PySpark's signature.

        Returns
        -------
        RDD of str
            One JSON text per row (PySpark warns that it will become a
            DataFrame).

        Examples
        --------
        >>> import warnings
        >>> df = spark.createDataFrame([(1, "a")], "id INT, name STRING")
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     df.toJSON().collect()
        ['{"id":1,"name":"a"}']
        """
        import warnings

        from sparklet.sql import functions as F

        warnings.warn(
            "The return type of DataFrame.toJSON will be changed from RDD to DataFrame in future releases.",
            stacklevel=2,
        )

        return self.select(F.to_json(F.struct(*[F.col(f"`{c}`") for c in self.columns]))).rdd.map(lambda r: r[0])

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[Row]:
        """Run the query; its rows one at a time.

        Rows are converted a record batch at a time, so a large result is not
        held as Python objects all at once.

        Parameters
        ----------
        prefetchPartitions : bool, default False
            Accepted for PySpark's signature.

        Returns
        -------
        iterator of Row
            The rows.

        Examples
        --------
        >>> [r.id for r in spark.range(3).toLocalIterator()]
        [0, 1, 2]
        """
        for batch in self.toArrow().to_batches():
            yield from table_to_rows(pa.Table.from_batches([batch]))

    def foreach(self, f: Callable[[Row], None]) -> None:
        """Run the query; call a function with each row.

        Parameters
        ----------
        f : callable
            Takes a Row; its result is ignored.

        Examples
        --------
        >>> import os
        >>> seen = os.path.abspath("seen")
        >>> os.makedirs(seen)
        >>> def mark(row):  # one file per row (on Spark it runs in worker processes)
        ...     open(os.path.join(seen, str(row.id)), "w").close()
        >>> spark.range(2).foreach(mark)
        >>> sorted(os.listdir(seen))
        ['0', '1']
        """
        for row in self.toLocalIterator():
            f(row)

    def foreachPartition(self, f: Callable[[Iterator[Row]], None]) -> None:
        """Run the query; call a function with an iterator over the rows of each
        partition (in one process, the whole result is one partition's worth).

        Parameters
        ----------
        f : callable
            Takes an iterator of Row.

        Examples
        --------
        >>> import os
        >>> sizes = os.path.abspath("sizes")
        >>> os.makedirs(sizes)
        >>> def count(rows):  # a file named after the partition's size
        ...     open(os.path.join(sizes, str(sum(1 for _ in rows))), "w").close()
        >>> spark.range(5).coalesce(1).foreachPartition(count)
        >>> os.listdir(sizes)
        ['5']
        """
        f(self.toLocalIterator())

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow PyCapsule stream of the result, so ``pyarrow.table(df)``,
        ``polars.from_arrow(df)`` and DuckDB read it without a copy."""
        return self.toArrow().__arrow_c_stream__(requested_schema)

    # ---- persistence ----------------------------------------------------
    def persist(self, storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_DESER) -> "DataFrame":
        """Keep the result once computed.

        The first action computes it; later actions on this DataFrame, and on
        DataFrames built from it afterwards, read the kept batches. Every level
        keeps them in memory here.

        Parameters
        ----------
        storageLevel : StorageLevel, default MEMORY_AND_DISK_DESER
            Accepted and reported by :attr:`storageLevel`.

        Returns
        -------
        DataFrame
            This DataFrame, persisted.

        Examples
        --------
        >>> from sparklet import StorageLevel
        >>> df = spark.range(3).persist(StorageLevel.MEMORY_ONLY)
        >>> df.is_cached, df.count()
        (True, 3)
        """
        if not isinstance(storageLevel, StorageLevel):
            raise not_expected_type("storageLevel", "StorageLevel", storageLevel)
        if self._unpersisted is None:
            self._unpersisted = self._native
            self._native = self._native.cache()
        self._storage = storageLevel
        return self

    def cache(self) -> "DataFrame":
        """:meth:`persist` at the default level.

        Returns
        -------
        DataFrame
            This DataFrame, persisted.

        Examples
        --------
        >>> df = spark.range(3).cache()
        >>> df.is_cached
        True
        """
        return self.persist()

    def unpersist(self, blocking: bool = False) -> "DataFrame":
        """Forget the kept result; later actions compute the plan again.

        Parameters
        ----------
        blocking : bool, default False
            Accepted for PySpark's signature.

        Returns
        -------
        DataFrame
            This DataFrame.

        Examples
        --------
        >>> df = spark.range(3).cache()
        >>> df.unpersist().is_cached
        False
        """
        if self._unpersisted is not None:
            self._native, self._unpersisted = self._unpersisted, None
        self._storage = StorageLevel.NONE
        return self

    @property
    def storageLevel(self) -> StorageLevel:
        """The level given to :meth:`persist`.

        Returns
        -------
        StorageLevel
            ``StorageLevel.NONE`` when not persisted.

        Examples
        --------
        >>> from sparklet import StorageLevel
        >>> spark.range(1).cache().storageLevel == StorageLevel.MEMORY_AND_DISK_DESER
        True
        """
        return self._storage

    @property
    def is_cached(self) -> bool:
        """Whether the DataFrame is persisted.

        Returns
        -------
        bool
            True after :meth:`persist` or :meth:`cache`.

        Examples
        --------
        >>> spark.range(1).is_cached
        False
        """
        return self._unpersisted is not None

    def checkpoint(self, eager: bool = True) -> "DataFrame":
        """Compute the result now and drop its plan: later actions read the
        computed batches.

        They are kept in memory: Spark writes them to the checkpoint folder so
        they survive an executor's loss, which one process does not need.

        Parameters
        ----------
        eager : bool, default True
            Compute now (else at the first action).

        Returns
        -------
        DataFrame
            The checkpointed DataFrame.

        Examples
        --------
        >>> spark.sparkContext.setCheckpointDir("checkpoints")  # Spark needs one
        >>> df = spark.range(3).withColumn("sq", F.col("id") * F.col("id")).checkpoint()
        >>> df.collect()
        [Row(id=0, sq=0), Row(id=1, sq=1), Row(id=2, sq=4)]
        """
        return self._wrap(self._native.checkpoint())

    def localCheckpoint(self, eager: bool = True, storageLevel: StorageLevel | None = None) -> "DataFrame":
        """:meth:`checkpoint`, kept in memory (as Spark's local checkpoint).

        Parameters
        ----------
        eager : bool, default True
            Compute now.
        storageLevel : StorageLevel, optional
            Accepted for PySpark's signature.

        Returns
        -------
        DataFrame
            The checkpointed DataFrame.

        Examples
        --------
        >>> spark.range(2).localCheckpoint().count()
        2
        """
        return self.checkpoint(eager)

    def inputFiles(self) -> list[str]:
        """The files the DataFrame's reads take rows from.

        Returns
        -------
        list of str
            ``file:`` URIs, listed when each read was defined.

        Examples
        --------
        >>> spark.range(2).coalesce(1).write.parquet("doc_input_files")
        >>> [f.rsplit("/", 1)[0].endswith("doc_input_files") for f in spark.read.parquet("doc_input_files").inputFiles()]
        [True]
        """
        return sorted(self._inputs)

    def isLocal(self) -> bool:
        """Whether ``collect`` and ``take`` run without executors.

        As Spark answers it: true only for rows held as they are (Spark's
        local relation: a DataFrame made from pandas or pyarrow, the result
        of a catalog statement such as ``SHOW TABLES``), not for anything
        computed from them, nor for ``createDataFrame`` of a list (Spark
        distributes those rows).

        Returns
        -------
        bool
            Whether the DataFrame is such a local relation.

        Examples
        --------
        >>> import pandas as pd
        >>> df = spark.createDataFrame(pd.DataFrame({"n": [1, 2]}))
        >>> df.isLocal(), df.filter("n > 1").isLocal()
        (True, False)
        """
        return self._local

    def sameSemantics(self, other: "DataFrame") -> bool:
        """Whether two DataFrames' plans compute the same rows, output names aside.

        Parameters
        ----------
        other : DataFrame
            The other DataFrame.

        Returns
        -------
        bool
            True when the plans are the same once normalised.

        Examples
        --------
        >>> df = spark.range(10)
        >>> df.filter(df.id > 2).sameSemantics(df.filter(df.id > 2)), df.sameSemantics(df.filter(df.id > 2))
        (True, False)
        """
        if not isinstance(other, DataFrame):
            raise not_expected_type("other", "DataFrame", other)
        return bool(self._native.semantic_plan() == other._native.semantic_plan())

    def semanticHash(self) -> int:
        """A hash of the plan, equal for DataFrames :meth:`sameSemantics` finds the
        same.

        Returns
        -------
        int
            The hash.

        Examples
        --------
        >>> df = spark.range(10)
        >>> df.select("id").semanticHash() == df.select("id").semanticHash()
        True
        """
        import zlib

        return zlib.crc32(self._native.semantic_plan().encode()) - 2**31

    def registerTempTable(self, name: str) -> None:
        """Deprecated name of :meth:`createOrReplaceTempView`.

        Parameters
        ----------
        name : str
            The view's name.

        Examples
        --------
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     spark.range(1).registerTempTable("doc_old_view")
        >>> spark.table("doc_old_view").count()
        1
        """
        import warnings

        warnings.warn("Deprecated in 2.0, use createOrReplaceTempView instead.", FutureWarning, stacklevel=2)
        self.createOrReplaceTempView(name)

    def _show_string(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> str:
        if not isinstance(n, int) or isinstance(n, bool):
            raise not_expected_type("n", "int", n)
        if not isinstance(truncate, (bool, int)):
            raise not_expected_type("truncate", "bool", truncate)
        if not isinstance(vertical, bool):
            raise not_expected_type("vertical", "bool", vertical)
        width = (20 if truncate else 0) if isinstance(truncate, bool) else max(truncate, 0)
        table = self.limit(n + 1).toArrow()
        time_zone = self.sparkSession.conf.get("spark.sql.session.timeZone")
        return _native.show_string(table, n, width, vertical, time_zone)

    def show(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> None:
        """Run the query; print its first rows as a table.

        Parameters
        ----------
        n : int, default 20
            How many rows.
        truncate : bool or int, default True
            Cut cells to 20 characters (right-aligned); an int: to that many;
            False: whole.
        vertical : bool, default False
            One block per row.

        Examples
        --------
        >>> df = spark.createDataFrame([(1, "a"), (2, "bb")], "id INT, name STRING")
        >>> df.show()
        +---+----+
        | id|name|
        +---+----+
        |  1|   a|
        |  2|  bb|
        +---+----+
        <BLANKLINE>
        >>> df.show(1, vertical=True)  # doctest: +NORMALIZE_WHITESPACE
        -RECORD 0---
         id   | 1
         name | a
        only showing top 1 row
        """
        print(self._show_string(n, truncate, vertical))

    def explain(self, extended: bool | str | None = None, mode: str | None = None) -> None:
        """Print the plan the query would run.

        Parameters
        ----------
        extended : bool or str, optional
            True: the parsed and optimized logical plans before the physical one;
            a string is read as ``mode``.
        mode : str, optional
            ``"simple"`` (the physical plan), ``"extended"``, ``"codegen"``,
            ``"cost"`` or ``"formatted"`` (accepted: as ``"simple"`` or
            ``"extended"``).

        Examples
        --------
        >>> spark.range(3).filter("id > 0").explain()  # doctest: +ELLIPSIS
        == Physical Plan ==
        ...
        """
        full = bool(extended) or mode in ("extended", "formatted", "cost")
        print(self._native.explain_string(full))

    def createOrReplaceTempView(self, name: str) -> None:
        """Register the DataFrame as a temporary view, for ``spark.sql`` and
        ``spark.table``; a view of that name is replaced.

        The view lives as long as the session. A streaming DataFrame gives a
        streaming view.

        Parameters
        ----------
        name : str
            The view's name.

        Examples
        --------
        >>> spark.range(3).createOrReplaceTempView("doc_ids")
        >>> spark.sql("SELECT max(id) AS top FROM doc_ids").collect()
        [Row(top=2)]
        """
        self._native.create_or_replace_temp_view(name)

    def createTempView(self, name: str) -> None:
        """Register the DataFrame as a temporary view; an error if one of that
        name exists.

        Parameters
        ----------
        name : str
            The view's name.

        Raises
        ------
        AnalysisException
            ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS``.

        Examples
        --------
        >>> spark.range(1).createTempView("doc_once")
        >>> spark.range(1).createTempView("doc_once")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.AnalysisException: [TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] ...
        """
        if name in self.sparkSession._native.table_names():
            raise AnalysisException(
                f"[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{name}` because it already exists.",
                "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
            )
        self.createOrReplaceTempView(name)

    def createGlobalTempView(self, name: str) -> None:
        """Register the DataFrame as a global temporary view
        (``global_temp.<name>``), seen by every session; an error if one of that
        name exists.

        Parameters
        ----------
        name : str
            The view's name.

        Raises
        ------
        AnalysisException
            ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS``.

        Examples
        --------
        >>> spark.range(2).createGlobalTempView("doc_global")
        >>> spark.newSession().table("global_temp.doc_global").count()
        2
        """
        if name.lower() in self.sparkSession._native.table_names("global_temp"):
            raise AnalysisException(
                f"[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{name}` because it "
                "already exists.",
                "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
            )
        self.createOrReplaceGlobalTempView(name)

    def createOrReplaceGlobalTempView(self, name: str) -> None:
        """Register the DataFrame as a global temporary view
        (``global_temp.<name>``), replacing one of that name.

        Parameters
        ----------
        name : str
            The view's name.

        Examples
        --------
        >>> spark.range(2).createOrReplaceGlobalTempView("doc_global_again")
        >>> spark.range(3).createOrReplaceGlobalTempView("doc_global_again")
        >>> spark.table("global_temp.doc_global_again").count()
        3
        """
        self.sparkSession._native.create_database("global_temp")
        self._native.create_or_replace_temp_view(f"global_temp.{name}")

    @property
    def write(self) -> "DataFrameWriter":
        """The batch writer: files, tables, Kafka, Delta, Python data sources.

        Returns
        -------
        DataFrameWriter
            A new writer of this DataFrame.

        Examples
        --------
        >>> spark.range(2).write.mode("overwrite").json("doc_write_prop")
        >>> spark.read.json("doc_write_prop").count()
        2
        """
        from sparklet.sql.readwriter import DataFrameWriter

        return DataFrameWriter(self)

    def writeTo(self, table: str) -> "DataFrameWriterV2":
        """The V2 writer of a warehouse table.

        Parameters
        ----------
        table : str
            The table's name.

        Returns
        -------
        DataFrameWriterV2
            ``create`` (with ``using``, ``partitionedBy``,
            ``tableProperty``); ``createOrReplace``, ``append``,
            ``overwrite`` and ``overwritePartitions`` raise Spark's errors
            for tables of files (V2 tables such as Delta's through this
            writer are not built: docs/differences.md).

        Examples
        --------
        >>> spark.range(2).writeTo("doc_v2").using("parquet").create()
        >>> spark.table("doc_v2").count()
        2
        """
        from sparklet.sql.readwriter import DataFrameWriterV2

        return DataFrameWriterV2(self, table)

    @property
    def writeStream(self) -> "DataStreamWriter":
        """The streaming writer: starts a query over this streaming DataFrame.

        Returns
        -------
        DataStreamWriter
            A new writer (sink, output mode, trigger, checkpoint).

        Examples
        --------
        >>> df = spark.readStream.format("rate").load()
        >>> q = df.writeStream.format("noop").start()
        >>> q.isActive
        True
        >>> q.stop()
        """
        from sparklet.sql.streaming.readwriter import DataStreamWriter

        return DataStreamWriter(self)

    def __repr__(self) -> str:
        return "DataFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"

    def mapInPandas(self, func: Any, schema: StructType | str, barrier: bool = False) -> DataFrame:
        """Pass the rows through a function of pandas DataFrames.

        On a stream it runs on each micro-batch.

        Parameters
        ----------
        func : callable
            Takes an iterator of pandas DataFrames, yields pandas DataFrames with
            the columns of ``schema`` (any number of rows).
        schema : StructType or str
            The output's schema.
        barrier : bool, default False
            Accepted for PySpark's signature.

        Returns
        -------
        DataFrame
            The rows ``func`` yields.

        Examples
        --------
        >>> def doubled(frames):
        ...     for pdf in frames:
        ...         yield pdf.assign(n=pdf.n * 2)
        >>> spark.createDataFrame([(1,), (2,)], "n INT").mapInPandas(doubled, "n INT").collect()
        [Row(n=2), Row(n=4)]
        """
        arrow_schema = to_struct_type(schema)._to_arrow_schema()

        def run(table: Any) -> Any:
            frames = (b.to_pandas() for b in table.to_batches())
            out = [_frame_to_table(f, arrow_schema) for f in func(frames)]
            return pa.concat_tables(out) if out else arrow_schema.empty_table()

        return self._wrap(self._native.map_batches(run, arrow_schema, False))

    def mapInArrow(self, func: Any, schema: StructType | str, barrier: bool = False) -> DataFrame:
        """Pass the rows through a function of pyarrow record batches.

        Parameters
        ----------
        func : callable
            Takes an iterator of ``pyarrow.RecordBatch``, yields record batches
            with the columns of ``schema``.
        schema : StructType or str
            The output's schema.
        barrier : bool, default False
            Accepted for PySpark's signature.

        Returns
        -------
        DataFrame
            The rows ``func`` yields.

        Examples
        --------
        >>> def ids(batches):
        ...     for batch in batches:
        ...         yield batch.select(["id"])
        >>> spark.createDataFrame([(1, "a")], "id INT, name STRING").mapInArrow(ids, "id INT").collect()
        [Row(id=1)]
        """
        arrow_schema = to_struct_type(schema)._to_arrow_schema()

        def run(table: Any) -> Any:
            out = [_frame_to_table(pa.Table.from_batches([b]), arrow_schema) for b in func(iter(table.to_batches()))]
            return pa.concat_tables(out) if out else arrow_schema.empty_table()

        return self._wrap(self._native.map_batches(run, arrow_schema, True))

    def observe(self, observation: Observation | str, *exprs: Column) -> DataFrame:
        """Compute aggregates of the rows as they pass, unchanged.

        On a batch DataFrame pass an :class:`~sparklet.sql.Observation`, whose
        ``get`` holds the values once an action ran. On a stream pass a name:
        each micro-batch's values appear in the query's progress as
        ``observedMetrics[name]``.

        Parameters
        ----------
        observation : Observation or str
            Where the values go.
        *exprs : Column
            Aggregates, each named with ``alias``.

        Returns
        -------
        DataFrame
            The same rows.

        Examples
        --------
        >>> from sparklet.sql import Observation
        >>> stats = Observation("stats")
        >>> df = spark.range(5).observe(stats, F.count(F.lit(1)).alias("rows"), F.max("id").alias("top"))
        >>> df.count()
        5
        >>> stats.get
        {'rows': 5, 'top': 4}
        """
        from sparklet.sql.observation import Observation

        if isinstance(observation, Observation):
            return observation._on(self, *exprs)
        if not isinstance(observation, str):
            raise PySparkTypeError(
                "[NOT_EXPECTED_TYPE] Argument `observation` should be Observation or str, "
                f"got {type(observation).__name__}.",
                "NOT_EXPECTED_TYPE",
            )
        if not exprs:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one exprs must be specified.", "CANNOT_BE_EMPTY")
        return self._wrap(self._native.observe(observation, [e._expr for e in exprs]))

    def _repr_html_(self) -> str:
        """Jupyter: the first rows as a table, values as ``show()`` prints them
        (``spark.sql.repl.eagerEval.maxNumRows`` rows, 20, cut to
        ``spark.sql.repl.eagerEval.truncate`` characters, 20)."""
        from sparklet.sql._html import dataframe_html

        conf = self.sparkSession.conf
        n = int(conf.get("spark.sql.repl.eagerEval.maxNumRows", "20") or 20)
        return dataframe_html(self, n, int(conf.get("spark.sql.repl.eagerEval.truncate", "20") or 20))


def _frame_to_table(frame: Any, schema: pa.Schema) -> pa.Table:
    """A function's output (pandas DataFrame or Arrow table) as a table of
    ``schema``; other columns than declared are an error naming them."""
    names = frame.column_names if isinstance(frame, pa.Table) else list(frame.columns)
    missing = sorted(str(n) for n in set(schema.names) - set(names))
    unexpected = sorted(str(n) for n in set(names) - set(schema.names))
    if missing or unexpected:
        raise PySparkRuntimeError(
            "[RESULT_COLUMN_NAMES_MISMATCH] Column names of the returned data do not match specified schema."
            + (f" Missing: {', '.join(missing)}." if missing else "")
            + (f" Unexpected: {', '.join(unexpected)}." if unexpected else ""),
            "RESULT_COLUMN_NAMES_MISMATCH",
        )
    if isinstance(frame, pa.Table):
        return frame.select(schema.names).cast(schema)
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
