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
    """The table-valued functions of a session (``spark.tvf``)."""

    def __init__(self, sparkSession: SparkSession) -> None:
        self._spark = sparkSession

    def _generate(self, generator: Column) -> DataFrame:
        # a generator over one row: its rows, under the generator's names
        return self._spark.range(1).select(generator)

    def range(self, start: int, end: int | None = None, step: int = 1, numPartitions: int | None = None) -> DataFrame:
        """``range(start, end, step)``: a ``bigint`` column ``id``."""
        return self._spark.range(start, end, step, numPartitions)

    def explode(self, collection: Column) -> DataFrame:
        """A row per element of an array (column ``col``) or entry of a map (``key``, ``value``)."""
        return self._generate(F.explode(collection))

    def explode_outer(self, collection: Column) -> DataFrame:
        """As :meth:`explode`, with a row of NULLs for an empty or NULL collection."""
        return self._generate(F.explode_outer(collection))

    def posexplode(self, collection: Column) -> DataFrame:
        """As :meth:`explode`, with the position (``pos``) first."""
        return self._generate(F.posexplode(collection))

    def posexplode_outer(self, collection: Column) -> DataFrame:
        """As :meth:`posexplode`, with a row of NULLs for an empty or NULL collection."""
        return self._generate(F.posexplode_outer(collection))

    def inline(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """A row per struct of an array of structs, a column per field."""
        return self._generate(F.inline(input))

    def inline_outer(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        """As :meth:`inline`, with a row of NULLs for an empty or NULL array."""
        return self._generate(F.inline_outer(input))

    def stack(self, n: Column, *fields: Column) -> DataFrame:
        """``fields`` laid out in ``n`` rows (columns ``col0``, ``col1``, ...)."""
        return self._generate(F.stack(n, *fields))
