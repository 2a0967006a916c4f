"""``MemoryStream``: a streaming source fed from Python, for tests and notebooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sparklet.sql._convert import to_table
from sparklet.sql.dataframe import DataFrame
from sparklet.sql.types import StructType, to_struct_type

if TYPE_CHECKING:
    from sparklet.sql.session import SparkSession

__all__ = ["MemoryStream"]


class MemoryStream:
    """A stream whose rows come from :meth:`addData`.

    Each ``addData`` call is one offset; a running query picks the new rows
    up in its next micro-batch. It is Spark's ``MemoryStream`` (a Scala
    test class) for Python; on PySpark, ``pytest --engine=pyspark`` hands
    tests a stand-in with the same methods.

    Parameters
    ----------
    spark : SparkSession
        The session whose queries read the stream.
    schema : StructType or str
        The rows' schema, as a ``StructType`` or a DDL string.

    Examples
    --------
    >>> from sparklet.testing import MemoryStream
    >>> stream = MemoryStream(spark, "id INT, word STRING")
    >>> stream.addData([(1, "a"), (2, "b")])
    0
    >>> q = stream.toDF().writeStream.format("memory").queryName("doc_words").start()
    >>> q.processAllAvailable()
    >>> spark.table("doc_words").count()
    2
    >>> q.stop()
    """

    def __init__(self, spark: "SparkSession", schema: StructType | str) -> None:
        self._spark = spark
        self._schema = to_struct_type(schema)
        self._native, self._df_native = spark._native.memory_stream(self._schema._to_arrow_schema())

    @property
    def schema(self) -> StructType:
        """The rows' schema.

        Returns
        -------
        StructType
            The schema given to the constructor, parsed.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> MemoryStream(spark, "id INT, word STRING").schema.simpleString()
        'struct<id:int,word:string>'
        """
        return self._schema

    def toDF(self) -> DataFrame:
        """The streaming DataFrame over this stream.

        Each call returns a DataFrame over the same stream; every query
        started from one reads all the rows added, from the first offset.

        Returns
        -------
        DataFrame
            A streaming DataFrame (``isStreaming`` is true) with the stream's
            schema.

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> df = MemoryStream(spark, "id INT").toDF()
        >>> df.isStreaming
        True
        >>> df.columns
        ['id']
        """
        return DataFrame(self._df_native, self._spark)

    def addData(self, *data: Any) -> int:
        """Append rows to the stream as one new offset.

        Parameters
        ----------
        *data : list, pandas.DataFrame, pyarrow.Table or rows
            A list of tuples, ``Row`` objects or dicts; a pandas DataFrame or
            a pyarrow Table; or the rows as separate arguments. Values are
            converted to the stream's schema.

        Returns
        -------
        int
            The offset the rows were added at: 0 for the first call, then
            one more for each call.

        Raises
        ------
        PySparkTypeError
            A value does not fit its column's type
            (``FIELD_DATA_TYPE_UNACCEPTABLE``).
        PySparkValueError
            A row has more or fewer values than the schema has columns
            (``LENGTH_SHOULD_BE_THE_SAME``).

        Examples
        --------
        >>> from sparklet.testing import MemoryStream
        >>> stream = MemoryStream(spark, "id INT, word STRING")
        >>> stream.addData([(1, "a")])
        0
        >>> stream.addData((2, "b"), (3, "c"))
        1
        >>> stream.addData([{"id": 4, "word": "d"}])
        2
        >>> stream.addData([(5,)])
        Traceback (most recent call last):
            ...
        sparklet.errors.exceptions.PySparkValueError: [LENGTH_SHOULD_BE_THE_SAME] Row (5,) has 1 fields but the schema has 2.
        >>> q = stream.toDF().writeStream.format("memory").queryName("doc_added").start()
        >>> q.processAllAvailable()
        >>> sorted(r.id for r in spark.table("doc_added").collect())
        [1, 2, 3, 4]
        >>> q.stop()
        """
        payload: Any = data[0] if len(data) == 1 and not isinstance(data[0], tuple) else list(data)
        table = to_table(payload, self._schema)
        return int(self._native.add_data(table))
