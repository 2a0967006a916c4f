"""Hashing, JSON, null handling and conditional functions, as PySpark's."""

from __future__ import annotations

from typing import Any

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, lit
from sparklet.sql.types import ArrayType, DataType, MapType, _parse_datatype_string, to_struct_type

__all__ = [
    "md5", "sha", "sha1", "sha2", "crc32", "hash", "xxhash64", "to_json", "from_json",
    "get_json_object", "json_tuple", "ifnull", "nvl", "nvl2", "nullif", "nullifzero", "zeroifnull",
    "equal_null", "typeof", "bitmap_bit_position", "bitmap_bucket_number", "bitmap_count",
 "json_array_length", "json_object_keys", "validate_utf8", "try_validate_utf8", "collation", "assert_true", "raise_error", "call_udf",
 "xpath", "xpath_boolean", "xpath_double", "xpath_float", "xpath_int", "xpath_long", "xpath_number", "xpath_short", "xpath_string",
 "hmac",
 "parse_json", "try_parse_json", "variant_get", "try_variant_get", "is_variant_null", "is_valid_variant", "schema_of_variant", "to_variant_object", "variant_set", "try_variant_set", "variant_insert", "try_variant_insert", "variant_delete", "variant_array_append", "try_variant_array_append", "variant_strip_nulls",
 "aes_encrypt", "aes_decrypt", "try_aes_decrypt",
 "schema_of_json", "spark_partition_id",
]  # fmt: skip


def md5(col: ColumnOrName) -> Column:
    """The MD5 digest, as 32 hex digits.

    Parameters
    ----------
    col : Column or str
        the strings or binary values

    Returns
    -------
    Column
        the MD5 digests as 32 hexadecimal digits

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.md5("s")).show(truncate=False)
    +--------------------------------+
    |md5(s)                          |
    +--------------------------------+
    |14ab8df5135825bc9f5ff7c30609f02f|
    +--------------------------------+
    <BLANKLINE>
    """
    return _fn("md5", col)


def sha(col: ColumnOrName) -> Column:
    """The SHA-1 digest, as 40 hex digits.

    Parameters
    ----------
    col : Column or str
        the strings or binary values

    Returns
    -------
    Column
        the SHA-1 digests as 40 hexadecimal digits

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.sha("s")).show(truncate=False)
    +----------------------------------------+
    |sha(s)                                  |
    +----------------------------------------+
    |032e50ab7e1a2421a1515810b22938320751dce4|
    +----------------------------------------+
    <BLANKLINE>
    """
    return _fn("sha", col)


def sha1(col: ColumnOrName) -> Column:
    """The SHA-1 digest, as 40 hex digits.

    Parameters
    ----------
    col : Column or str
        the strings or binary values

    Returns
    -------
    Column
        the SHA-1 digests as 40 hexadecimal digits

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.sha1("s")).show(truncate=False)
    +----------------------------------------+
    |sha1(s)                                 |
    +----------------------------------------+
    |032e50ab7e1a2421a1515810b22938320751dce4|
    +----------------------------------------+
    <BLANKLINE>
    """
    return _fn("sha1", col)


def sha2(col: ColumnOrName, numBits: int) -> Column:
    """The SHA-2 digest of ``numBits`` (224, 256, 384, 512; 0 is 256) as hex digits.

    Parameters
    ----------
    col : Column or str
        the strings or binary values
    numBits : int
        224, 256 (or 0), 384 or 512

    Returns
    -------
    Column
        the SHA-2 digests in hexadecimal

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.sha2("s", 256)).show(truncate=False)
    +----------------------------------------------------------------+
    |sha2(s, 256)                                                    |
    +----------------------------------------------------------------+
    |95e053f9451c5f73215101a92682782327c69bca5f1450419c606b09b26534ab|
    +----------------------------------------------------------------+
    <BLANKLINE>
    """
    return _call("sha2", _to_col(col), lit(numBits))


def crc32(col: ColumnOrName) -> Column:
    """The CRC-32 checksum, as a bigint.

    Parameters
    ----------
    col : Column or str
        the strings or binary values

    Returns
    -------
    Column
        a ``bigint`` column: the CRC-32 checksums

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.crc32("s")).show()
    +----------+
    |  crc32(s)|
    +----------+
    |2521631539|
    +----------+
    <BLANKLINE>
    """
    return _fn("crc32", col)


def hash(*cols: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """Spark's Murmur3 hash of the columns (seed 42), as an int.

    Parameters
    ----------
    *cols : Column or str
        the values to hash together

    Returns
    -------
    Column
        an ``int`` column: Spark's Murmur3 hash (seed 42), the same as Spark's for the same values

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", 1)], ["s", "n"])
    >>> df.select(F.hash("s"), F.hash("s", "n")).show()
    +---------+----------+
    |  hash(s)|hash(s, n)|
    +---------+----------+
    |228093765|-660272343|
    +---------+----------+
    <BLANKLINE>
    """
    return _fn("hash", *cols)


def xxhash64(*cols: ColumnOrName) -> Column:
    """Spark's xxHash64 of the columns (seed 42), as a bigint.

    Parameters
    ----------
    *cols : Column or str
        the values to hash together

    Returns
    -------
    Column
        a ``bigint`` column: Spark's xxHash64 (seed 42)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", 1)], ["s", "n"])
    >>> df.select(F.xxhash64("s"), F.xxhash64("s", "n")).show()
    +--------------------+--------------------+
    |         xxhash64(s)|      xxhash64(s, n)|
    +--------------------+--------------------+
    |-4294468057691064905|-3786025766646407443|
    +--------------------+--------------------+
    <BLANKLINE>
    """
    return _fn("xxhash64", *cols)


def to_json(col: ColumnOrName, options: dict[str, Any] | None = None) -> Column:
    """A struct, array or map as a JSON string.

    Parameters
    ----------
    col : Column or str
        structs, maps or arrays
    options : dict[str, Any], optional
        JSON options, such as ``{"timestampFormat": ...}`` or ``{"ignoreNullFields": False}``

    Returns
    -------
    Column
        the values as JSON text

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["a", "b"])
    >>> df.select(F.to_json(F.struct("a", "b")).alias("json")).show()
    +---------------+
    |           json|
    +---------------+
    |{"a":1,"b":"x"}|
    +---------------+
    <BLANKLINE>
    """
    return _fn("to_json", col)


def from_json(col: ColumnOrName, schema: DataType | str, options: dict[str, Any] | None = None) -> Column:
    """Parse a JSON string column into a struct, a map or an array (``schema``
    a type or DDL string; null when malformed).

    Parameters
    ----------
    col : Column or str
        JSON text
    schema : DataType or str
        the type to read, as a DDL string or a DataType
    options : dict[str, Any], optional
        JSON options, such as ``{"mode": "FAILFAST"}``

    Returns
    -------
    Column
        the parsed values (null fields where the text lacks them)

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.from_json("j", "a INT, b ARRAY<INT>").alias("parsed")).show()
    +-----------+
    |     parsed|
    +-----------+
    |{1, [1, 2]}|
    +-----------+
    <BLANKLINE>
    """
    target = _parse_datatype_string(schema) if isinstance(schema, str) else schema
    if not isinstance(target, (MapType, ArrayType)):
        target = to_struct_type(schema)
    return Column(_native.from_json(_to_col(col)._expr, target._to_arrow()))


def get_json_object(col: ColumnOrName, path: str) -> Column:
    """Extract a value from a JSON string by path (``$.a.b[0]``).

    Parameters
    ----------
    col : Column or str
        JSON text
    path : str
        a JSON path, such as ``$.a`` or ``$.b[0]``

    Returns
    -------
    Column
        the value at the path as JSON text (strings unquoted), null when absent

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.get_json_object("j", "$.b[1]")).show()
    +--------------------------+
    |get_json_object(j, $.b[1])|
    +--------------------------+
    |                         2|
    +--------------------------+
    <BLANKLINE>
    """
    return _call("get_json_object", _to_col(col), lit(path))


def json_tuple(col: ColumnOrName, *fields: str) -> Column:
    """The top-level ``fields`` of a JSON string, one column each (``c0``, ``c1``, ...).

    Parameters
    ----------
    col : Column or str
        JSON text
    *fields : str
        the top-level fields to extract

    Returns
    -------
    Column
        columns ``c0``, ``c1``, ...: the fields' values as text

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.json_tuple("j", "a", "b")).show()
    +---+-----+
    | c0|   c1|
    +---+-----+
    |  1|[1,2]|
    +---+-----+
    <BLANKLINE>
    """
    values = _call("json_tuple", _to_col(col), *[lit(f) for f in fields])
    return Column(_native.explode(_call("array", values)._expr, "inline"))


def ifnull(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where it is null.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        ``col1``, or ``col2`` where it is null

    Examples
    --------
    >>> df = spark.createDataFrame([(None, 2), (1, 3)], "a int, b int")
    >>> df.select(F.ifnull("a", "b")).show()
    +------------+
    |ifnull(a, b)|
    +------------+
    |           2|
    |           1|
    +------------+
    <BLANKLINE>
    """
    return _fn("ifnull", col1, col2)


def nvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where it is null.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        ``col1``, or ``col2`` where it is null

    Examples
    --------
    >>> df = spark.createDataFrame([(None, 2), (1, 3)], "a int, b int")
    >>> df.select(F.nvl("a", "b")).show()
    +---------+
    |nvl(a, b)|
    +---------+
    |        2|
    |        1|
    +---------+
    <BLANKLINE>
    """
    return _fn("nvl", col1, col2)


def nvl2(col1: ColumnOrName, col2: ColumnOrName, col3: ColumnOrName) -> Column:
    """``col2`` where ``col1`` is not null, else ``col3``.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the values where ``col1`` is not null
    col3 : Column or str
        the values where ``col1`` is null

    Returns
    -------
    Column
        ``col2`` where ``col1`` is not null, else ``col3``

    Examples
    --------
    >>> df = spark.createDataFrame([(None, 2, 3), (1, 2, 3)], "a int, b int, c int")
    >>> df.select(F.nvl2("a", "b", "c")).show()
    +-------------+
    |nvl2(a, b, c)|
    +-------------+
    |            3|
    |            2|
    +-------------+
    <BLANKLINE>
    """
    return _fn("nvl2", col1, col2, col3)


def nullif(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """Null where ``col1`` equals ``col2``, else ``col1``.

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        null where the two are equal, else ``col1``

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 1), (1, 2)], ["a", "b"])
    >>> df.select(F.nullif("a", "b")).show()
    +------------+
    |nullif(a, b)|
    +------------+
    |        NULL|
    |           1|
    +------------+
    <BLANKLINE>
    """
    return _fn("nullif", col1, col2)


def nullifzero(col: ColumnOrName) -> Column:
    """Null where ``col`` is 0, else ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        null where the number is 0, else the number

    Examples
    --------
    >>> df = spark.createDataFrame([(0,), (5,)], ["n"])
    >>> df.select(F.nullifzero("n")).show()
    +-------------+
    |nullifzero(n)|
    +-------------+
    |         NULL|
    |            5|
    +-------------+
    <BLANKLINE>
    """
    return _fn("nullifzero", col)


def zeroifnull(col: ColumnOrName) -> Column:
    """0 where ``col`` is null, else ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        0 where the number is null, else the number

    Examples
    --------
    >>> df = spark.createDataFrame([(None,), (5,)], "n int")
    >>> df.select(F.zeroifnull("n")).show()
    +-------------+
    |zeroifnull(n)|
    +-------------+
    |            0|
    |            5|
    +-------------+
    <BLANKLINE>
    """
    return _fn("zeroifnull", col)


def equal_null(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1 = col2``, with two nulls equal (never null).

    Parameters
    ----------
    col1 : Column or str
        the first values
    col2 : Column or str
        the second values

    Returns
    -------
    Column
        a ``boolean`` column: equality where two nulls are equal (never null)

    Examples
    --------
    >>> df = spark.createDataFrame([(None, None), (1, None), (1, 1)], "a int, b int")
    >>> df.select(F.equal_null("a", "b")).show()
    +----------------+
    |equal_null(a, b)|
    +----------------+
    |            true|
    |           false|
    |            true|
    +----------------+
    <BLANKLINE>
    """
    return _fn("equal_null", col1, col2)


def typeof(col: ColumnOrName) -> Column:
    """The Spark type name of the value (``int``, ``string``, ...).

    Parameters
    ----------
    col : Column or str
        the values

    Returns
    -------
    Column
        the values' Spark SQL type names

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x", [1.5])], ["n", "s", "a"])
    >>> df.select(F.typeof("n"), F.typeof("s"), F.typeof("a")).show()
    +---------+---------+-------------+
    |typeof(n)|typeof(s)|    typeof(a)|
    +---------+---------+-------------+
    |   bigint|   string|array<double>|
    +---------+---------+-------------+
    <BLANKLINE>
    """
    return _fn("typeof", col)


def bitmap_bit_position(col: ColumnOrName) -> Column:
    """The bit position of ``col`` within its bitmap bucket.

    Parameters
    ----------
    col : Column or str
        the values (bigint)

    Returns
    -------
    Column
        a ``bigint`` column: the value's bit within its bucket of 32768

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (32768,), (32769,)], ["n"])
    >>> df.select(F.bitmap_bit_position("n"), F.bitmap_bucket_number("n")).show()
    +----------------------+-----------------------+
    |bitmap_bit_position(n)|bitmap_bucket_number(n)|
    +----------------------+-----------------------+
    |                     0|                      1|
    |                 32767|                      1|
    |                     0|                      2|
    +----------------------+-----------------------+
    <BLANKLINE>
    """
    return _fn("bitmap_bit_position", col)


def bitmap_bucket_number(col: ColumnOrName) -> Column:
    """The bitmap bucket number of ``col``.

    Parameters
    ----------
    col : Column or str
        the values (bigint)

    Returns
    -------
    Column
        a ``bigint`` column: the value's bucket of 32768

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (32768,), (32769,)], ["n"])
    >>> df.select(F.bitmap_bucket_number("n")).show()
    +-----------------------+
    |bitmap_bucket_number(n)|
    +-----------------------+
    |                      1|
    |                      1|
    |                      2|
    +-----------------------+
    <BLANKLINE>
    """
    return _fn("bitmap_bucket_number", col)


def bitmap_count(col: ColumnOrName) -> Column:
    """The number of bits set in bitmap ``col``.

    Parameters
    ----------
    col : Column or str
        bitmaps

    Returns
    -------
    Column
        a ``bigint`` column: the bits set

    Examples
    --------
    >>> df = spark.createDataFrame([("0B",)], ["h"])
    >>> df.select(F.bitmap_count(F.unhex("h"))).show()
    +----------------------+
    |bitmap_count(unhex(h))|
    +----------------------+
    |                     3|
    +----------------------+
    <BLANKLINE>
    """
    return _fn("bitmap_count", col)


def json_array_length(col: ColumnOrName) -> Column:
    """The number of elements of a JSON array (null for other text).

    Parameters
    ----------
    col : Column or str
        JSON text

    Returns
    -------
    Column
        an ``int`` column: the outer array's elements (null when not an array)

    Examples
    --------
    >>> df = spark.createDataFrame([("[1, 2, [3]]",), ("{}",)], ["j"])
    >>> df.select(F.json_array_length("j")).show()
    +--------------------+
    |json_array_length(j)|
    +--------------------+
    |                   3|
    |                NULL|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("json_array_length", col)


def json_object_keys(col: ColumnOrName) -> Column:
    """The keys of a JSON object, in order (null for other text).

    Parameters
    ----------
    col : Column or str
        JSON text

    Returns
    -------
    Column
        an array of the outer object's keys (null when not an object)

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.json_object_keys("j")).show()
    +-------------------+
    |json_object_keys(j)|
    +-------------------+
    |             [a, b]|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("json_object_keys", col)


def validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string, which is valid UTF-8 (as every string of sparklet's is).

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings, or an error for invalid UTF-8

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.validate_utf8("s")).show()
    +----------------+
    |validate_utf8(s)|
    +----------------+
    |       Spark SQL|
    +----------------+
    <BLANKLINE>
    """
    return _fn("validate_utf8", str)


def try_validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string if it is valid UTF-8 (as every string of sparklet's is), else null.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings, null where they are not valid UTF-8

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.try_validate_utf8("s")).show()
    +--------------------+
    |try_validate_utf8(s)|
    +--------------------+
    |           Spark SQL|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("try_validate_utf8", str)


def collation(col: ColumnOrName) -> Column:
    """The collation of a string column: Spark's default, ``SYSTEM.BUILTIN.UTF8_BINARY``.

    Parameters
    ----------
    col : Column or str
        the values

    Returns
    -------
    Column
        the collation's full name

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",)], ["s"])
    >>> df.select(F.collation("s")).show()
    +--------------------+
    |        collation(s)|
    +--------------------+
    |SYSTEM.BUILTIN.UT...|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("collation", col)


def assert_true(col: ColumnOrName, errMsg: Column | str | None = None) -> Column:
    """Null where ``col`` is true; an error (``errMsg``) where it is not.

    Parameters
    ----------
    col : Column or str
        the condition to check
    errMsg : Column or str, optional
        the message of the error (default: the condition's text)

    Returns
    -------
    Column
        a null column when the condition holds on every row; otherwise the query fails

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,)], ["n"])
    >>> df.select(F.assert_true(F.col("n") > 0)).show()
    +--------------------------------------------+
    |assert_true((n > 0), '(n > 0)' is not true!)|
    +--------------------------------------------+
    |                                        NULL|
    |                                        NULL|
    +--------------------------------------------+
    <BLANKLINE>
    """
    if errMsg is None:
        return _fn("assert_true", col)
    return _call("assert_true", _to_col(col), errMsg if isinstance(errMsg, Column) else lit(errMsg))


def raise_error(errMsg: Column | str) -> Column:
    """An error with message ``errMsg`` where the column is evaluated.

    Parameters
    ----------
    errMsg : Column or str
        the error's message

    Returns
    -------
    Column
        never a value: the query fails with ``errMsg``

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.raise_error("bad row")).collect()  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
        ...
    sparklet.errors.exceptions.SparkRuntimeException: [USER_RAISED_EXCEPTION] bad row
    """
    return _call("raise_error", errMsg if isinstance(errMsg, Column) else lit(errMsg))


def call_udf(udfName: str, *cols: ColumnOrName) -> Column:
    """The user-defined function registered as ``udfName`` over ``cols``.

    Parameters
    ----------
    udfName : str
        the name a UDF was registered under (``spark.udf.register``)
    *cols : Column or str
        its arguments

    Returns
    -------
    Column
        the UDF's result

    Examples
    --------
    >>> _ = spark.udf.register("plus_one", lambda x: x + 1, "int")
    >>> spark.createDataFrame([(1,)], ["n"]).select(F.call_udf("plus_one", "n")).show()
    +-----------+
    |plus_one(n)|
    +-----------+
    |          2|
    +-----------+
    <BLANKLINE>
    """
    from sparklet.sql.functions._core import call_function

    return call_function(udfName, *cols)


def xpath(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The values of the nodes the XPath ``path`` selects in ``xml`` (an element's is null).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        an array of the matching nodes' text

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath("x", F.lit("a/b/text()"))).show()
    +--------------------+
    |xpath(x, a/b/text())|
    +--------------------+
    |              [1, 2]|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("xpath", xml, path)


def xpath_boolean(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """Whether the XPath ``path`` is true of ``xml`` (a node set: whether it is non-empty).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``boolean`` column: whether something matches

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b></a>",)], ["x"])
    >>> df.select(F.xpath_boolean("x", F.lit("a/b"))).show()
    +---------------------+
    |xpath_boolean(x, a/b)|
    +---------------------+
    |                 true|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("xpath_boolean", xml, path)


def xpath_double(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a double (NaN where it is not a number).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_double("x", F.lit("sum(a/b)"))).show()
    +-------------------------+
    |xpath_double(x, sum(a/b))|
    +-------------------------+
    |                      3.0|
    +-------------------------+
    <BLANKLINE>
    """
    return _fn("xpath_double", xml, path)


def xpath_float(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a float.

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``float`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_float("x", F.lit("sum(a/b)"))).show()
    +------------------------+
    |xpath_float(x, sum(a/b))|
    +------------------------+
    |                     3.0|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("xpath_float", xml, path)


def xpath_int(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as an int (truncated; 0 where not a number).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        an ``int`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_int("x", F.lit("sum(a/b)"))).show()
    +----------------------+
    |xpath_int(x, sum(a/b))|
    +----------------------+
    |                     3|
    +----------------------+
    <BLANKLINE>
    """
    return _fn("xpath_int", xml, path)


def xpath_long(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a bigint (truncated; 0 where not a number).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``bigint`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_long("x", F.lit("sum(a/b)"))).show()
    +-----------------------+
    |xpath_long(x, sum(a/b))|
    +-----------------------+
    |                      3|
    +-----------------------+
    <BLANKLINE>
    """
    return _fn("xpath_long", xml, path)


def xpath_number(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a double (NaN where it is not a number).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_number("x", F.lit("sum(a/b)"))).show()
    +-------------------------+
    |xpath_number(x, sum(a/b))|
    +-------------------------+
    |                      3.0|
    +-------------------------+
    <BLANKLINE>
    """
    return _fn("xpath_number", xml, path)


def xpath_short(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a smallint (truncated; 0 where not a number).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        a ``smallint`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_short("x", F.lit("sum(a/b)"))).show()
    +------------------------+
    |xpath_short(x, sum(a/b))|
    +------------------------+
    |                       3|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("xpath_short", xml, path)


def xpath_string(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The string value of the XPath ``path`` over ``xml`` (of its first node).

    Parameters
    ----------
    xml : Column or str
        XML text
    path : Column or str
        an XPath expression

    Returns
    -------
    Column
        the first match's text

    Examples
    --------
    >>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
    >>> df.select(F.xpath_string("x", F.lit("a/b"))).show()
    +--------------------+
    |xpath_string(x, a/b)|
    +--------------------+
    |                   1|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("xpath_string", xml, path)


def hmac(key: ColumnOrName, message: ColumnOrName, algorithm: ColumnOrName | None = None) -> Column:
    """The HMAC of ``message`` with ``key`` (``SHA-256`` by default; also
    ``SHA-1``, ``SHA-224``, ``SHA-384``, ``SHA-512``, ``MD5``).

    Parameters
    ----------
    key : Column or str
        the secret keys
    message : Column or str
        the messages
    algorithm : Column or str, optional
        ``SHA-256`` (default), ``SHA-384``, ``SHA-512`` or ``SHA-1``

    Returns
    -------
    Column
        a ``binary`` column: the HMAC

    Examples
    --------
    >>> df = spark.createDataFrame([("key", "message")], ["k", "m"])
    >>> df.select(F.hex(F.hmac("k", "m")).alias("mac")).show(truncate=False)
    +----------------------------------------------------------------+
    |mac                                                             |
    +----------------------------------------------------------------+
    |6E9EF29B75FFFC5B7ABAE527D58FDADB2FE42E7219011976917343065F58ED4A|
    +----------------------------------------------------------------+
    <BLANKLINE>
    """
    if algorithm is None:
        return _fn("hmac", key, message)
    return _fn("hmac", key, message, algorithm)


def _path(path: Column | str) -> Column:
    return path if isinstance(path, Column) else lit(path)


def parse_json(col: ColumnOrName) -> Column:
    """A variant of JSON text (malformed text is an error).

    Parameters
    ----------
    col : Column or str
        JSON text

    Returns
    -------
    Column
        a ``variant`` column (an error for malformed JSON)

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.parse_json("j").alias("v")).show()
    +-----------------+
    |                v|
    +-----------------+
    |{"a":1,"b":[1,2]}|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("parse_json", col)


def try_parse_json(col: ColumnOrName) -> Column:
    """A variant of JSON text, null where it is malformed.

    Parameters
    ----------
    col : Column or str
        JSON text

    Returns
    -------
    Column
        a ``variant`` column, null for malformed JSON

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1}',), ("{oops",)], ["j"])
    >>> df.select(F.try_parse_json("j").alias("v")).show()
    +-------+
    |      v|
    +-------+
    |{"a":1}|
    |   NULL|
    +-------+
    <BLANKLINE>
    """
    return _fn("try_parse_json", col)


def _variant_get(name: str, v: ColumnOrName, path: Column | str, targetType: str, lenient: bool) -> Column:
    value = _call("variant_get_text", _to_col(v), _path(path))
    if lenient and targetType.strip().lower() == "binary":
        # a variant's JSON values (numbers, strings, ...) do not convert to binary
        typed = lit(None).cast("binary")
    else:
        typed = value.try_cast(targetType) if lenient else value.cast(targetType)
    v_name, p_name = _to_col(v)._expr.name(), _path(path)._expr.name()
    return typed.alias(f"{name}({v_name}, {p_name}, {targetType})")


def variant_get(v: ColumnOrName, path: Column | str, targetType: str) -> Column:
    """The variant's value at JSON ``path`` (``$.a``, ``$.b[0]``) as
    ``targetType`` (null where the path is missing; a value that does not
    convert is an error).

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path, such as ``$.a`` or ``$.b[0]``
    targetType : str
        the type to cast the value to, as a DDL string

    Returns
    -------
    Column
        the value at the path (null when absent; an error when it does not cast)

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.variant_get(F.parse_json("j"), "$.b[1]", "int").alias("x")).show()
    +---+
    |  x|
    +---+
    |  2|
    +---+
    <BLANKLINE>
    """
    return _variant_get("variant_get", v, path, targetType, False)


def try_variant_get(v: ColumnOrName, path: Column | str, targetType: str) -> Column:
    """As :func:`variant_get`, null where the value does not convert.

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path, such as ``$.a`` or ``$.b[0]``
    targetType : str
        the type to cast the value to, as a DDL string

    Returns
    -------
    Column
        the value at the path, null when absent or it does not cast

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.try_variant_get(F.parse_json("j"), "$.a", "boolean").alias("x")).show()
    +----+
    |   x|
    +----+
    |true|
    +----+
    <BLANKLINE>
    """
    return _variant_get("try_variant_get", v, path, targetType, True)


def is_variant_null(v: ColumnOrName) -> Column:
    """Whether the variant is JSON ``null``.

    Parameters
    ----------
    v : Column or str
        variant values

    Returns
    -------
    Column
        a ``boolean`` column: whether the value is JSON ``null``

    Examples
    --------
    >>> df = spark.createDataFrame([("null",), ("1",)], ["j"])
    >>> df.select(F.is_variant_null(F.parse_json("j"))).show()
    +------------------------------+
    |is_variant_null(parse_json(j))|
    +------------------------------+
    |                          true|
    |                         false|
    +------------------------------+
    <BLANKLINE>
    """
    return _fn("is_variant_null", v)


def is_valid_variant(v: ColumnOrName) -> Column:
    """Whether the value is a well-formed variant.

    Parameters
    ----------
    v : Column or str
        variant values

    Returns
    -------
    Column
        a ``boolean`` column: whether the value is a well-formed variant

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.is_valid_variant(F.parse_json("j"))).show()
    +-------------------------------+
    |is_valid_variant(parse_json(j))|
    +-------------------------------+
    |                           true|
    +-------------------------------+
    <BLANKLINE>
    """
    return _fn("is_valid_variant", v)


def schema_of_variant(v: ColumnOrName) -> Column:
    """The variant's type, as Spark writes it (``OBJECT<a: BIGINT>``).

    Parameters
    ----------
    v : Column or str
        variant values

    Returns
    -------
    Column
        the values' schemas, as DDL strings

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": [1, 2]}',)], ["j"])
    >>> df.select(F.schema_of_variant(F.parse_json("j"))).show()
    +--------------------------------+
    |schema_of_variant(parse_json(j))|
    +--------------------------------+
    |            OBJECT<a: BIGINT,...|
    +--------------------------------+
    <BLANKLINE>
    """
    return _fn("schema_of_variant", v)


def to_variant_object(col: ColumnOrName) -> Column:
    """A struct, map or array as a variant object.

    Parameters
    ----------
    col : Column or str
        structs, maps or arrays

    Returns
    -------
    Column
        a ``variant`` column (structs become objects)

    Examples
    --------
    >>> df = spark.createDataFrame([(1, "x")], ["a", "b"])
    >>> df.select(F.to_variant_object(F.struct("a", "b")).alias("v")).show()
    +---------------+
    |              v|
    +---------------+
    |{"a":1,"b":"x"}|
    +---------------+
    <BLANKLINE>
    """
    return _fn("to_variant_object", col)


def variant_set(v: ColumnOrName, path: Column | str, value: ColumnOrName, create_if_missing: bool = True) -> Column:
    """The variant with ``value`` at ``path`` (a missing key added unless
    ``create_if_missing`` is false).

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path, such as ``$.a``
    value : Column or str
        the new value (a variant)
    create_if_missing : bool, optional
        add the path where it is absent

    Returns
    -------
    Column
        the variants with the value set

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1}',)], ["j"])
    >>> df.select(F.variant_set(F.parse_json("j"), "$.b", F.parse_json(F.lit("2"))).alias("v")).show()
    +-------------+
    |            v|
    +-------------+
    |{"a":1,"b":2}|
    +-------------+
    <BLANKLINE>
    """
    return _call("variant_set", _to_col(v), _path(path), _to_col(value), lit(create_if_missing))


def try_variant_set(v: ColumnOrName, path: Column | str, value: ColumnOrName, create_if_missing: bool = True) -> Column:
    """As :func:`variant_set`, null where it fails.

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path, such as ``$.a``
    value : Column or str
        the new value (a variant)
    create_if_missing : bool, optional
        add the path where it is absent

    Returns
    -------
    Column
        the variants with the value set, null where that fails

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1}',)], ["j"])
    >>> df.select(F.try_variant_set(F.parse_json("j"), "$.a", F.parse_json(F.lit("5"))).alias("v")).show()
    +-------+
    |      v|
    +-------+
    |{"a":5}|
    +-------+
    <BLANKLINE>
    """
    return _call("try_variant_set", _to_col(v), _path(path), _to_col(value), lit(create_if_missing))


def variant_insert(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """The variant with ``value`` added at ``path`` (an existing key is an error).

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path of an absent field or array slot
    value : Column or str
        the value (a variant)

    Returns
    -------
    Column
        the variants with the value inserted (an error where the path exists)

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": [1, 3]}',)], ["j"])
    >>> df.select(F.variant_insert(F.parse_json("j"), "$.a[1]", F.parse_json(F.lit("2"))).alias("v")).show()
    +-------------+
    |            v|
    +-------------+
    |{"a":[1,2,3]}|
    +-------------+
    <BLANKLINE>
    """
    return _call("variant_insert", _to_col(v), _path(path), _to_col(value))


def try_variant_insert(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """As :func:`variant_insert`, null where it fails.

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path of an absent field or array slot
    value : Column or str
        the value (a variant)

    Returns
    -------
    Column
        the variants with the value inserted, null where that fails

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1}',)], ["j"])
    >>> df.select(F.try_variant_insert(F.parse_json("j"), "$.b", F.parse_json(F.lit("2"))).alias("v")).show()
    +-------------+
    |            v|
    +-------------+
    |{"a":1,"b":2}|
    +-------------+
    <BLANKLINE>
    """
    return _call("try_variant_insert", _to_col(v), _path(path), _to_col(value))


def variant_delete(v: ColumnOrName, *paths: Column | str) -> Column:
    """The variant without the values at ``paths``.

    Parameters
    ----------
    v : Column or str
        variant values
    *paths : Column or str
        JSON paths to remove

    Returns
    -------
    Column
        the variants without those paths

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": 1, "b": 2}',)], ["j"])
    >>> df.select(F.variant_delete(F.parse_json("j"), "$.a").alias("v")).show()
    +-------+
    |      v|
    +-------+
    |{"b":2}|
    +-------+
    <BLANKLINE>
    """
    return _call("variant_delete", _to_col(v), *[_path(p) for p in paths])


def variant_array_append(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """The variant with ``value`` appended to the array at ``path``.

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path of an array
    value : Column or str
        the element (a variant)

    Returns
    -------
    Column
        the variants with the element appended

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": [1]}',)], ["j"])
    >>> df.select(F.variant_array_append(F.parse_json("j"), "$.a", F.parse_json(F.lit("2"))).alias("v")).show()
    +-----------+
    |          v|
    +-----------+
    |{"a":[1,2]}|
    +-----------+
    <BLANKLINE>
    """
    return _call("variant_array_append", _to_col(v), _path(path), _to_col(value))


def try_variant_array_append(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """As :func:`variant_array_append`, null where it fails.

    Parameters
    ----------
    v : Column or str
        variant values
    path : Column or str
        a JSON path of an array
    value : Column or str
        the element (a variant)

    Returns
    -------
    Column
        the variants with the element appended, null where that fails

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": [1]}',)], ["j"])
    >>> df.select(F.try_variant_array_append(F.parse_json("j"), "$.a", F.parse_json(F.lit("2"))).alias("v")).show()
    +-----------+
    |          v|
    +-----------+
    |{"a":[1,2]}|
    +-----------+
    <BLANKLINE>
    """
    return _call("try_variant_array_append", _to_col(v), _path(path), _to_col(value))


def variant_strip_nulls(v: ColumnOrName, include_arrays: bool = True) -> Column:
    """The variant without its null object fields (and array elements,
    unless ``include_arrays`` is false).

    Parameters
    ----------
    v : Column or str
        variant values
    include_arrays : bool, optional
        also remove null elements of arrays

    Returns
    -------
    Column
        the variants without null-valued fields

    Examples
    --------
    >>> df = spark.createDataFrame([('{"a": null, "b": [1, null]}',)], ["j"])
    >>> df.select(F.variant_strip_nulls(F.parse_json("j")).alias("v")).show()
    +---------+
    |        v|
    +---------+
    |{"b":[1]}|
    +---------+
    <BLANKLINE>
    """
    return _call("variant_strip_nulls", _to_col(v), lit(include_arrays))


def _or_lit(col: ColumnOrName | None, default: str) -> Column:
    return lit(default) if col is None else _to_col(col)


def aes_encrypt(
    input: ColumnOrName,  # noqa: A002 - PySpark's name
    key: ColumnOrName,
    mode: ColumnOrName | None = None,
    padding: ColumnOrName | None = None,
    iv: ColumnOrName | None = None,
    aad: ColumnOrName | None = None,
) -> Column:
    """``input`` encrypted by AES with ``key`` (16, 24 or 32 bytes) in
    ``mode`` GCM (default), CBC or ECB; a random IV unless ``iv`` is given.

    Parameters
    ----------
    input : Column or str
        the values to encrypt
    key : Column or str
        the key: 16, 24 or 32 bytes
    mode : Column or str, optional
        ``GCM`` (default), ``CBC`` or ``ECB``
    padding : Column or str, optional
        ``DEFAULT``, ``NONE`` or ``PKCS``
    iv : Column or str, optional
        the initialization vector (default: random)
    aad : Column or str, optional
        additional authenticated data (GCM)

    Returns
    -------
    Column
        a ``binary`` column: the ciphertext (with its IV)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", "abcdefghijklmnop")], ["s", "k"])
    >>> df.select(F.aes_decrypt(F.aes_encrypt("s", "k"), "k").cast("string").alias("round_trip")).show()
    +----------+
    |round_trip|
    +----------+
    |     Spark|
    +----------+
    <BLANKLINE>
    """
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("aes_encrypt", *args, _or_lit(iv, ""), _or_lit(aad, ""))


def aes_decrypt(
    input: ColumnOrName,  # noqa: A002 - PySpark's name
    key: ColumnOrName,
    mode: ColumnOrName | None = None,
    padding: ColumnOrName | None = None,
    aad: ColumnOrName | None = None,
) -> Column:
    """``input`` (as :func:`aes_encrypt` wrote it) decrypted; an error when it does not decrypt.

    Parameters
    ----------
    input : Column or str
        the ciphertexts
    key : Column or str
        the key: 16, 24 or 32 bytes
    mode : Column or str, optional
        ``GCM`` (default), ``CBC`` or ``ECB``
    padding : Column or str, optional
        ``DEFAULT``, ``NONE`` or ``PKCS``
    aad : Column or str, optional
        additional authenticated data (GCM)

    Returns
    -------
    Column
        a ``binary`` column: the plaintext (an error for a wrong key)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", "abcdefghijklmnop")], ["s", "k"])
    >>> df.select(F.aes_decrypt(F.aes_encrypt("s", "k", F.lit("ECB")), "k", F.lit("ECB")).cast("string").alias("back")).show()
    +-----+
    | back|
    +-----+
    |Spark|
    +-----+
    <BLANKLINE>
    """
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("aes_decrypt", *args, _or_lit(aad, ""))


def try_aes_decrypt(
    input: ColumnOrName,  # noqa: A002 - PySpark's name
    key: ColumnOrName,
    mode: ColumnOrName | None = None,
    padding: ColumnOrName | None = None,
    aad: ColumnOrName | None = None,
) -> Column:
    """As :func:`aes_decrypt`, null where the input does not decrypt.

    Parameters
    ----------
    input : Column or str
        the ciphertexts
    key : Column or str
        the key: 16, 24 or 32 bytes
    mode : Column or str, optional
        ``GCM`` (default), ``CBC`` or ``ECB``
    padding : Column or str, optional
        ``DEFAULT``, ``NONE`` or ``PKCS``
    aad : Column or str, optional
        additional authenticated data (GCM)

    Returns
    -------
    Column
        a ``binary`` column: the plaintext, null where decryption fails

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", "abcdefghijklmnop", "ponmlkjihgfedcba")], ["s", "k", "other"])
    >>> df.select(F.try_aes_decrypt(F.aes_encrypt("s", "k"), "other").alias("wrong_key")).show()
    +---------+
    |wrong_key|
    +---------+
    |     NULL|
    +---------+
    <BLANKLINE>
    """
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("try_aes_decrypt", *args, _or_lit(aad, ""))


def schema_of_json(json: Column | str, options: dict[str, Any] | None = None) -> Column:
    """The type Spark infers for a JSON text (``STRUCT<a: BIGINT>``); the
    option ``allowUnquotedFieldNames`` reads unquoted field names.

    Parameters
    ----------
    json : Column or str
        a JSON text (a literal)
    options : dict[str, Any], optional
        JSON options

    Returns
    -------
    Column
        the schema the text would be read with, as a DDL string

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.schema_of_json('{"a": 1, "b": ["x"]}')).show(truncate=False)
    +------------------------------------+
    |schema_of_json({"a": 1, "b": ["x"]})|
    +------------------------------------+
    |STRUCT<a: BIGINT, b: ARRAY<STRING>> |
    +------------------------------------+
    <BLANKLINE>
    """
    text = json if isinstance(json, Column) else lit(json)
    unquoted = str((options or {}).get("allowUnquotedFieldNames", "false")).lower() == "true"
    if unquoted:
        return _call("schema_of_json", text, lit(True))
    return _call("schema_of_json", text)


def spark_partition_id() -> Column:
    """The index of the partition a row is in (see ``DataFrame.repartition``).

    Returns
    -------
    Column
        an ``int`` column: the partition each row is in

    Examples
    --------
    >>> spark.range(3).coalesce(1).select(F.spark_partition_id()).distinct().show()
    +--------------------+
    |SPARK_PARTITION_ID()|
    +--------------------+
    |                   0|
    +--------------------+
    <BLANKLINE>
    """
    return _call("spark_partition_id")
