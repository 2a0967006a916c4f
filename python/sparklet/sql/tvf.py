"""``spark.tvf``: Spark's table-valued functions called from Python (as
:class:`pyspark.sql.tvf.TableValuedFunction`): each returns the DataFrame
the function of the same name gives in SQL's ``FROM`` clause."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparklet.sql import functions as F
from sparklet.sql.column import Column

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

__all__ = ["TableValuedFunction"]


class TableValuedFunction:
    """The table-valued functions of a session (``spark.tvf``): each returns the DataFrame the function of the same name gives in SQL's ``FROM`` clause.

    Examples
    --------
    >>> spark.tvf.range(3).show()
    +---+
    | id|
    +---+
    |  0|
    |  1|
    |  2|
    +---+
    <BLANKLINE>
    """

    def __init__(self, sparkSession: SparkSession) -> None:
        self._spark = sparkSession

    def _generate(self, generator: Column) -> DataFrame:
        # a generator over one row: its rows, under the generator's names
        return self._spark.range(1).select(generator)

    def range(self, start: int, end: int | None = None, step: int = 1, numPartitions: int | None = None) -> DataFrame:
        """``range(start, end, step)``: a ``bigint`` column ``id``.

        Parameters
        ----------
        start : int
            the first value (the end, from 0, when ``end`` is omitted)
        end : int, optional
            the end (excluded)
        step : int, default 1
            the increment
        numPartitions : int, optional
            accepted; sparklet plans the partitions itself

        Returns
        -------
        DataFrame
            one row per value

        Examples
        --------
        >>> spark.tvf.range(1, 7, 2).show()
        +---+
        | id|
        +---+
        |  1|
        |  3|
        |  5|
        +---+
        <BLANKLINE>
        """
        return self._spark.range(start, end, step, numPartitions)

    def explode(self, collection: Column) -> DataFrame:
        """A row per element of an array (column ``col``) or entry of a map (``key``, ``value``).

        Parameters
        ----------
        collection : Column
            an array or map (usually a literal: ``F.array(...)``, ``F.create_map(...)``)

        Returns
        -------
        DataFrame
            one row per element; none for an empty or null collection

        Examples
        --------
        >>> spark.tvf.explode(F.array(F.lit(1), F.lit(2))).show()
        +---+
        |col|
        +---+
        |  1|
        |  2|
        +---+
        <BLANKLINE>
        >>> spark.tvf.explode(F.create_map(F.lit("a"), F.lit(1))).show()
        +---+-----+
        |key|value|
        +---+-----+
        |  a|    1|
        +---+-----+
        <BLANKLINE>
        """
        return self._generate(F.explode(collection))

    def explode_outer(self, collection: Column) -> DataFrame:
        """As :meth:`explode`, with a row of nulls for an empty or null collection.

        Parameters
        ----------
        collection : Column
            an array or map (usually a literal: ``F.array(...)``, ``F.create_map(...)``)

        Returns
        -------
        DataFrame
            one row per element, or one of nulls

        Examples
        --------
        >>> spark.tvf.explode_outer(F.array().cast("array<int>")).show()
        +----+
        | col|
        +----+
        |NULL|
        +----+
        <BLANKLINE>
        """
        return self._generate(F.explode_outer(collection))

    def posexplode(self, collection: Column) -> DataFrame:
        """As :meth:`explode`, with the position (``pos``, from 0) first.

        Parameters
        ----------
        collection : Column
            an array or map (usually a literal: ``F.array(...)``, ``F.create_map(...)``)

        Returns
        -------
        DataFrame
            columns ``pos`` and ``col`` (or ``key``, ``value``)

        Examples
        --------
        >>> spark.tvf.posexplode(F.array(F.lit("x"), F.lit("y"))).show()
        +---+---+
        |pos|col|
        +---+---+
        |  0|  x|
        |  1|  y|
        +---+---+
        <BLANKLINE>
        """
        return self._generate(F.posexplode(collection))

    def posexplode_outer(self, collection: Column) -> DataFrame:
        """As :meth:`posexplode`, with a row of nulls for an empty or null collection.

        Parameters
        ----------
        collection : Column
            an array or map (usually a literal: ``F.array(...)``, ``F.create_map(...)``)

        Returns
        -------
        DataFrame
            columns ``pos`` and ``col``, one row of nulls for an empty collection

        Examples
        --------
        >>> spark.tvf.posexplode_outer(F.array().cast("array<string>")).show()
        +----+----+
        | pos| col|
        +----+----+
        |NULL|NULL|
        +----+----+
        <BLANKLINE>
        """
        return self._generate(F.posexplode_outer(collection))

    def inline(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """A row per struct of an array of structs, a column per field.

        Parameters
        ----------
        input : Column
            an array of structs

        Returns
        -------
        DataFrame
            the structs' fields as columns

        Examples
        --------
        >>> spark.tvf.inline(F.array(F.struct(F.lit(1).alias("n"), F.lit("a").alias("s")))).show()
        +---+---+
        |  n|  s|
        +---+---+
        |  1|  a|
        +---+---+
        <BLANKLINE>
        """
        return self._generate(F.inline(input))

    def inline_outer(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """As :meth:`inline`, with a row of nulls for an empty or null array.

        Parameters
        ----------
        input : Column
            an array of structs

        Returns
        -------
        DataFrame
            the structs' fields as columns

        Examples
        --------
        >>> spark.tvf.inline_outer(F.array().cast("array<struct<n:int,s:string>>")).show()
        +----+----+
        |   n|   s|
        +----+----+
        |NULL|NULL|
        +----+----+
        <BLANKLINE>
        """
        return self._generate(F.inline_outer(input))

    def stack(self, n: Column, *fields: Column) -> DataFrame:
        """``fields`` laid out in ``n`` rows (columns ``col0``, ``col1``, ...).

        Parameters
        ----------
        n : Column
            how many rows (a literal)
        *fields : Column
            the values, filling the rows in order

        Returns
        -------
        DataFrame
            ``n`` rows of ``len(fields) / n`` columns

        Examples
        --------
        >>> spark.tvf.stack(F.lit(2), F.lit(1), F.lit("a"), F.lit(2), F.lit("b")).show()
        +----+----+
        |col0|col1|
        +----+----+
        |   1|   a|
        |   2|   b|
        +----+----+
        <BLANKLINE>
        """
        return self._generate(F.stack(n, *fields))
