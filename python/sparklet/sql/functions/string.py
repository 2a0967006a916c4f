"""String functions, as PySpark's (string arguments name columns unless
the parameter is a pattern, format or literal by nature)."""

from __future__ import annotations

from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, _lit_or_col, lit

__all__ = [
    "upper", "lower", "ucase", "lcase", "trim", "ltrim", "rtrim", "btrim", "length", "char_length",
    "character_length", "bit_length", "octet_length", "reverse", "initcap", "concat", "concat_ws",
    "split", "split_part", "substring", "substr", "substring_index", "left", "right",
    "regexp_extract", "regexp_extract_all", "regexp_replace", "regexp_count", "regexp_substr",
    "regexp_like", "regexp", "rlike", "like", "ilike", "lpad", "rpad", "repeat", "replace",
    "translate", "instr", "locate", "position", "contains", "startswith", "endswith", "ascii",
    "char", "base64", "unbase64", "format_string", "printf", "levenshtein", "soundex", "space",
    "quote", "elt", "find_in_set", "overlay", "decode", "encode", "is_valid_utf8", "make_valid_utf8", "parse_url", "try_parse_url", "url_decode", "url_encode", "try_url_decode", "regexp_instr", "to_char", "to_varchar", "to_binary", "try_to_binary",
 "mask", "format_number",
 "to_base32", "from_base32", "jaro_winkler_similarity", "sentences",
 "to_number", "try_to_number",
]  # fmt: skip


def upper(col: ColumnOrName) -> Column:
    """``col`` in upper case.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the strings in upper case

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.upper("s")).show()
    +---------+
    | upper(s)|
    +---------+
    |SPARK SQL|
    |  PYSPARK|
    +---------+
    <BLANKLINE>
    """
    return _fn("upper", col)


def lower(col: ColumnOrName) -> Column:
    """``col`` in lower case.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the strings in lower case

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.lower("s")).show()
    +---------+
    | lower(s)|
    +---------+
    |spark sql|
    |  pyspark|
    +---------+
    <BLANKLINE>
    """
    return _fn("lower", col)


def ucase(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's parameter name
    """``str`` in upper case.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings in upper case

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.ucase("s")).show()
    +---------+
    | ucase(s)|
    +---------+
    |SPARK SQL|
    |  PYSPARK|
    +---------+
    <BLANKLINE>
    """
    return _fn("ucase", str)


def lcase(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` in lower case.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings in lower case

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.lcase("s")).show()
    +---------+
    | lcase(s)|
    +---------+
    |spark sql|
    |  pyspark|
    +---------+
    <BLANKLINE>
    """
    return _fn("lcase", str)


def trim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without leading and trailing spaces (or ``trim``'s characters).

    Parameters
    ----------
    col : Column or str
        the strings
    trim : Column or str, optional
        the characters to remove (default: spaces)

    Returns
    -------
    Column
        the strings with the characters removed at both ends

    Examples
    --------
    >>> df = spark.createDataFrame([("  Spark  ",), ("xxSQLxx",)], ["s"])
    >>> df.select(F.trim("s"), F.trim("s", F.lit("x"))).show()
    +-------+-------------------+
    |trim(s)|TRIM(BOTH x FROM s)|
    +-------+-------------------+
    |  Spark|            Spark  |
    |xxSQLxx|                SQL|
    +-------+-------------------+
    <BLANKLINE>
    """
    return _fn("trim", col) if trim is None else _call("trim", _to_col(col), _to_col(trim))


def ltrim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without leading spaces (or ``trim``'s characters).

    Parameters
    ----------
    col : Column or str
        the strings
    trim : Column or str, optional
        the characters to remove (default: spaces)

    Returns
    -------
    Column
        the strings with the characters removed at the start

    Examples
    --------
    >>> df = spark.createDataFrame([("  Spark  ",), ("xxSQLxx",)], ["s"])
    >>> df.select(F.ltrim("s"), F.ltrim("s", F.lit("x"))).show()
    +--------+----------------------+
    |ltrim(s)|TRIM(LEADING x FROM s)|
    +--------+----------------------+
    | Spark  |               Spark  |
    | xxSQLxx|                 SQLxx|
    +--------+----------------------+
    <BLANKLINE>
    """
    return _fn("ltrim", col) if trim is None else _call("ltrim", _to_col(col), _to_col(trim))


def rtrim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without trailing spaces (or ``trim``'s characters).

    Parameters
    ----------
    col : Column or str
        the strings
    trim : Column or str, optional
        the characters to remove (default: spaces)

    Returns
    -------
    Column
        the strings with the characters removed at the end

    Examples
    --------
    >>> df = spark.createDataFrame([("  Spark  ",), ("xxSQLxx",)], ["s"])
    >>> df.select(F.rtrim("s"), F.rtrim("s", F.lit("x"))).show()
    +--------+-----------------------+
    |rtrim(s)|TRIM(TRAILING x FROM s)|
    +--------+-----------------------+
    |   Spark|                Spark  |
    | xxSQLxx|                  xxSQL|
    +--------+-----------------------+
    <BLANKLINE>
    """
    return _fn("rtrim", col) if trim is None else _call("rtrim", _to_col(col), _to_col(trim))


def btrim(str: ColumnOrName, trim: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``str`` without leading and trailing spaces (or ``trim``'s characters).

    Parameters
    ----------
    str : Column or str
        the strings
    trim : Column or str, optional
        the characters to remove (default: spaces)

    Returns
    -------
    Column
        the strings with the characters removed at both ends

    Examples
    --------
    >>> df = spark.createDataFrame([("  Spark  ",), ("xxSQLxx",)], ["s"])
    >>> df.select(F.btrim("s"), F.btrim("s", F.lit("x"))).show()
    +--------+-----------+
    |btrim(s)|btrim(s, x)|
    +--------+-----------+
    |   Spark|    Spark  |
    | xxSQLxx|        SQL|
    +--------+-----------+
    <BLANKLINE>
    """
    return _fn("btrim", str) if trim is None else _fn("btrim", str, trim)


def length(col: ColumnOrName) -> Column:
    """Characters in a string (bytes in a binary value).

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the number of characters (bytes for binary values)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.length("s")).show()
    +---------+
    |length(s)|
    +---------+
    |        9|
    |        7|
    +---------+
    <BLANKLINE>
    """
    return _fn("length", col)


def char_length(str: ColumnOrName) -> Column:  # noqa: A002
    """Characters in a string.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the number of characters

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.char_length("s")).show()
    +--------------+
    |char_length(s)|
    +--------------+
    |             9|
    |             7|
    +--------------+
    <BLANKLINE>
    """
    return _fn("char_length", str)


def character_length(str: ColumnOrName) -> Column:  # noqa: A002
    """Characters in a string.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the number of characters

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.character_length("s")).show()
    +-------------------+
    |character_length(s)|
    +-------------------+
    |                  9|
    |                  7|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("character_length", str)


def bit_length(col: ColumnOrName) -> Column:
    """Bits in a string's UTF-8 bytes.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the number of bits

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.bit_length("s")).show()
    +-------------+
    |bit_length(s)|
    +-------------+
    |           72|
    |           56|
    +-------------+
    <BLANKLINE>
    """
    return _fn("bit_length", col)


def octet_length(col: ColumnOrName) -> Column:
    """Bytes in a string's UTF-8 encoding.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the number of bytes

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.octet_length("s")).show()
    +---------------+
    |octet_length(s)|
    +---------------+
    |              9|
    |              7|
    +---------------+
    <BLANKLINE>
    """
    return _fn("octet_length", col)


def reverse(col: ColumnOrName) -> Column:
    """A string's characters (or an array's elements) in reverse order.

    Parameters
    ----------
    col : Column or str
        the strings (or arrays)

    Returns
    -------
    Column
        the strings with their characters in reverse order (arrays: elements)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.reverse("s")).show()
    +----------+
    |reverse(s)|
    +----------+
    | LQS krapS|
    |   krapsyp|
    +----------+
    <BLANKLINE>
    """
    return _fn("reverse", col)


def initcap(col: ColumnOrName) -> Column:
    """Each word with its first letter in upper case, the rest in lower case.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the strings with each word's first letter in upper case and the rest in lower case

    Examples
    --------
    >>> df = spark.createDataFrame([("spark sql",), ("PYSPARK",)], ["s"])
    >>> df.select(F.initcap("s")).show()
    +----------+
    |initcap(s)|
    +----------+
    | Spark Sql|
    |   Pyspark|
    +----------+
    <BLANKLINE>
    """
    return _fn("initcap", col)


def concat(*cols: ColumnOrName) -> Column:
    """Concatenate strings; null if any input is null.

    Parameters
    ----------
    *cols : Column or str
        the columns (or their names)

    Returns
    -------
    Column
        the values joined end to end (null if any is null)

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", "SQL")], ["a", "b"])
    >>> df.select(F.concat("a", F.lit(" "), "b")).show()
    +---------------+
    |concat(a,  , b)|
    +---------------+
    |      Spark SQL|
    +---------------+
    <BLANKLINE>
    """
    return _fn("concat", *cols)


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    """Concatenate with a separator, skipping nulls.

    Parameters
    ----------
    sep : str
        the separator put between the values
    *cols : Column or str
        the strings (or arrays of strings) to join

    Returns
    -------
    Column
        the non-null values joined with ``sep``

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark", None, "SQL")], "a string, b string, c string")
    >>> df.select(F.concat_ws("-", "a", "b", "c")).show()
    +---------------------+
    |concat_ws(-, a, b, c)|
    +---------------------+
    |            Spark-SQL|
    +---------------------+
    <BLANKLINE>
    """
    return _call("concat_ws", lit(sep), *[_to_col(c) for c in cols])


def split(str: ColumnOrName, pattern: str | Column, limit: int | ColumnOrName = -1) -> Column:  # noqa: A002
    """Split around matches of the regular expression ``pattern`` (a
    literal, or a Column), into at most ``limit`` parts if positive (an
    int, or a Column or column name).

    Parameters
    ----------
    str : Column or str
        the strings
    pattern : str or Column
        a regular expression (Java syntax) that separates the parts
    limit : int or Column or str, optional
        at most this many parts (the last keeps the rest); -1 or 0: all

    Returns
    -------
    Column
        an array of strings

    Examples
    --------
    >>> df = spark.createDataFrame([("a,b,,c",)], ["s"])
    >>> df.select(F.split("s", ","), F.split("s", ",", 2)).show()
    +---------------+--------------+
    |split(s, ,, -1)|split(s, ,, 2)|
    +---------------+--------------+
    |    [a, b, , c]|     [a, b,,c]|
    +---------------+--------------+
    <BLANKLINE>
    """
    n = lit(limit) if isinstance(limit, int) else _to_col(limit)
    return _call("split", _to_col(str), lit(pattern), n)


def split_part(src: ColumnOrName, delimiter: ColumnOrName, partNum: ColumnOrName) -> Column:
    """Part ``partNum`` (1-based; negative from the end) of ``src`` split by ``delimiter``.

    Parameters
    ----------
    src : Column or str
        the strings
    delimiter : Column or str
        the separator (not a pattern)
    partNum : Column or str
        which part, from 1 (negative: from the end)

    Returns
    -------
    Column
        the part of each string, or the empty string when there are fewer parts

    Examples
    --------
    >>> df = spark.createDataFrame([("a.b.c",)], ["s"])
    >>> df.select(F.split_part("s", F.lit("."), F.lit(2))).show()
    +-------------------+
    |split_part(s, ., 2)|
    +-------------------+
    |                  b|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("split_part", src, delimiter, partNum)


def substring(str: ColumnOrName, pos: int | ColumnOrName, len: int | ColumnOrName) -> Column:  # noqa: A002
    """Substring from 1-based ``pos`` of ``len`` characters.

    Parameters
    ----------
    str : Column or str
        the strings
    pos : int or Column or str
        where the substring starts, from 1 (negative: from the end)
    len : int or Column or str
        its length in characters

    Returns
    -------
    Column
        the substrings

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.substring("s", 1, 5)).show()
    +------------------+
    |substring(s, 1, 5)|
    +------------------+
    |             Spark|
    |             pyspa|
    +------------------+
    <BLANKLINE>
    """
    return _call("substring", _to_col(str), _int_or_col(pos), _int_or_col(len))


def substr(str: ColumnOrName, pos: ColumnOrName, len: ColumnOrName | None = None) -> Column:  # noqa: A002
    """Substring from 1-based ``pos`` (of ``len`` characters, else to the end).

    Parameters
    ----------
    str : Column or str
        the strings
    pos : Column or str
        where the substring starts, from 1 (negative: from the end)
    len : Column or str, optional
        its length in characters (default: to the end)

    Returns
    -------
    Column
        the substrings

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.substr("s", F.lit(7)), F.substr("s", F.lit(1), F.lit(3))).show()
    +------------------------+---------------+
    |substr(s, 7, 2147483647)|substr(s, 1, 3)|
    +------------------------+---------------+
    |                     SQL|            Spa|
    |                       k|            pys|
    +------------------------+---------------+
    <BLANKLINE>
    """
    if len is None:
        return _fn("substr", str, pos)
    return _fn("substr", str, pos, len)


def substring_index(str: ColumnOrName, delim: str, count: int) -> Column:  # noqa: A002
    """What comes before the ``count``-th ``delim`` (after it, counting from the end, when negative).

    Parameters
    ----------
    str : Column or str
        the strings
    delim : str
        the separator
    count : int
        how many separators to keep before the cut (negative: count from the end)

    Returns
    -------
    Column
        the substrings

    Examples
    --------
    >>> df = spark.createDataFrame([("www.apache.org",)], ["s"])
    >>> df.select(F.substring_index("s", ".", 2), F.substring_index("s", ".", -1)).show()
    +------------------------+-------------------------+
    |substring_index(s, ., 2)|substring_index(s, ., -1)|
    +------------------------+-------------------------+
    |              www.apache|                      org|
    +------------------------+-------------------------+
    <BLANKLINE>
    """
    return _call("substring_index", _to_col(str), lit(delim), lit(count))


def left(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002
    """The leftmost ``len`` characters.

    Parameters
    ----------
    str : Column or str
        the strings
    len : Column or str
        how many characters

    Returns
    -------
    Column
        the first ``len`` characters of each string

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.left("s", F.lit(3))).show()
    +----------+
    |left(s, 3)|
    +----------+
    |       Spa|
    |       pys|
    +----------+
    <BLANKLINE>
    """
    return _fn("left", str, len)


def right(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002
    """The rightmost ``len`` characters.

    Parameters
    ----------
    str : Column or str
        the strings
    len : Column or str
        how many characters

    Returns
    -------
    Column
        the last ``len`` characters of each string

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.right("s", F.lit(3))).show()
    +-----------+
    |right(s, 3)|
    +-----------+
    |        SQL|
    |        ark|
    +-----------+
    <BLANKLINE>
    """
    return _fn("right", str, len)


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002
    r"""Group ``idx`` of the first match of ``pattern`` ("" when none).

    Parameters
    ----------
    str : Column or str
        the strings
    pattern : str
        a regular expression (Java syntax)
    idx : int
        the group to extract (0: the whole match)

    Returns
    -------
    Column
        the group's text in the first match, or the empty string when nothing matches

    Examples
    --------
    >>> df = spark.createDataFrame([("100-200",)], ["s"])
    >>> df.select(F.regexp_extract("s", r"(\d+)-(\d+)", 2)).show()
    +---------------------------------+
    |regexp_extract(s, (\d+)-(\d+), 2)|
    +---------------------------------+
    |                              200|
    +---------------------------------+
    <BLANKLINE>
    """
    return _call("regexp_extract", _to_col(str), lit(pattern), lit(idx))


def regexp_extract_all(str: ColumnOrName, regexp: ColumnOrName, idx: int | Column | None = None) -> Column:  # noqa: A002
    r"""Group ``idx`` (default 1) of every match of ``regexp``.

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)
    idx : int or Column, optional
        the group to extract (default 1; 0: the whole match)

    Returns
    -------
    Column
        an array of the group's text in each match

    Examples
    --------
    >>> df = spark.createDataFrame([("100-200, 300-400",)], ["s"])
    >>> df.select(F.regexp_extract_all("s", F.lit(r"(\d+)-(\d+)"), F.lit(1))).show()
    +-------------------------------------+
    |regexp_extract_all(s, (\d+)-(\d+), 1)|
    +-------------------------------------+
    |                           [100, 300]|
    +-------------------------------------+
    <BLANKLINE>
    """
    args = [_to_col(str), _to_col(regexp)] + ([] if idx is None else [_lit_or_col(idx)])
    return _call("regexp_extract_all", *args)


def regexp_replace(
    string: ColumnOrName, pattern: str | Column, replacement: str | Column, position: int | Column | None = None
) -> Column:
    r"""Replace every match of ``pattern`` with ``replacement`` (from 1-based ``position`` on).

    Parameters
    ----------
    string : Column or str
        the strings
    pattern : str or Column
        a regular expression (Java syntax)
    replacement : str or Column
        the replacement, in which ``$1`` refers to a group
    position : int or Column, optional
        where the search starts, from 1

    Returns
    -------
    Column
        the strings with every match replaced

    Examples
    --------
    >>> df = spark.createDataFrame([("100-200",)], ["s"])
    >>> df.select(F.regexp_replace("s", r"(\d+)", "<$1>")).show()
    +---------------------------------+
    |regexp_replace(s, (\d+), <$1>, 1)|
    +---------------------------------+
    |                      <100>-<200>|
    +---------------------------------+
    <BLANKLINE>
    """
    args = [_to_col(string), _lit_or_col(pattern), _lit_or_col(replacement)]
    if position is not None:
        args.append(_lit_or_col(position))
    return _call("regexp_replace", *args)


def regexp_count(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    r"""How many times ``regexp`` matches.

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)

    Returns
    -------
    Column
        an ``int`` column: how many times the pattern matches

    Examples
    --------
    >>> df = spark.createDataFrame([("1a 2b 14m",)], ["s"])
    >>> df.select(F.regexp_count("s", F.lit(r"\d+"))).show()
    +--------------------+
    |regexp_count(s, \d+)|
    +--------------------+
    |                   3|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("regexp_count", str, regexp)


def regexp_substr(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    r"""The first match of ``regexp`` (null when none).

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)

    Returns
    -------
    Column
        the first match, or null when there is none

    Examples
    --------
    >>> df = spark.createDataFrame([("1a 2b 14m",)], ["s"])
    >>> df.select(F.regexp_substr("s", F.lit(r"\d+"))).show()
    +---------------------+
    |regexp_substr(s, \d+)|
    +---------------------+
    |                    1|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("regexp_substr", str, regexp)


def regexp_like(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``.

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)

    Returns
    -------
    Column
        a ``boolean`` column: whether the pattern matches somewhere in the string

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.regexp_like("s", F.lit("^[A-Z]"))).show()
    +----------------------+
    |REGEXP_LIKE(s, ^[A-Z])|
    +----------------------+
    |                  true|
    |                 false|
    +----------------------+
    <BLANKLINE>
    """
    return _fn("regexp_like", str, regexp)


def regexp(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``.

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)

    Returns
    -------
    Column
        a ``boolean`` column: whether the pattern matches somewhere in the string

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.regexp("s", F.lit("^[A-Z]"))).show()
    +-----------------+
    |REGEXP(s, ^[A-Z])|
    +-----------------+
    |             true|
    |            false|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("regexp", str, regexp)


def rlike(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``.

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)

    Returns
    -------
    Column
        a ``boolean`` column: whether the pattern matches somewhere in the string

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.rlike("s", F.lit("^[A-Z]"))).show()
    +----------------+
    |RLIKE(s, ^[A-Z])|
    +----------------+
    |            true|
    |           false|
    +----------------+
    <BLANKLINE>
    """
    return _fn("rlike", str, regexp)


def like(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002
    r"""SQL ``LIKE``: ``%`` any characters, ``_`` one.

    Parameters
    ----------
    str : Column or str
        the strings
    pattern : Column or str
        a SQL LIKE pattern: ``%`` any characters, ``_`` one character
    escapeChar : Column, optional
        the character that escapes ``%`` and ``_`` (default ``\``)

    Returns
    -------
    Column
        a ``boolean`` column: whether the whole string matches

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.like("s", F.lit("Spark%"))).show()
    +-------------+
    |s LIKE Spark%|
    +-------------+
    |         true|
    |        false|
    +-------------+
    <BLANKLINE>
    """
    args = [_to_col(str), _to_col(pattern)] + ([] if escapeChar is None else [escapeChar])
    return _call("like", *args)


def ilike(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002
    r"""``LIKE`` ignoring case.

    Parameters
    ----------
    str : Column or str
        the strings
    pattern : Column or str
        a SQL LIKE pattern: ``%`` any characters, ``_`` one character
    escapeChar : Column, optional
        the character that escapes ``%`` and ``_`` (default ``\``)

    Returns
    -------
    Column
        a ``boolean`` column: whether the whole string matches, ignoring case

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.ilike("s", F.lit("spark%"))).show()
    +----------------+
    |ilike(s, spark%)|
    +----------------+
    |            true|
    |           false|
    +----------------+
    <BLANKLINE>
    """
    args = [_to_col(str), _to_col(pattern)] + ([] if escapeChar is None else [escapeChar])
    return _call("ilike", *args)


def lpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    """``col`` left-padded with ``pad`` to ``len`` characters (cut to it when longer).

    Parameters
    ----------
    col : Column or str
        the strings
    len : int or Column
        the length of the result (longer strings are cut)
    pad : str or Column
        the characters to pad with

    Returns
    -------
    Column
        the strings padded on the left to ``len`` characters

    Examples
    --------
    >>> df = spark.createDataFrame([("7",), ("123",)], ["s"])
    >>> df.select(F.lpad("s", 4, "0")).show()
    +-------------+
    |lpad(s, 4, 0)|
    +-------------+
    |         0007|
    |         0123|
    +-------------+
    <BLANKLINE>
    """
    return _call("lpad", _to_col(col), _lit_or_col(len), _lit_or_col(pad))


def rpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    """``col`` right-padded with ``pad`` to ``len`` characters (cut to it when longer).

    Parameters
    ----------
    col : Column or str
        the strings
    len : int or Column
        the length of the result (longer strings are cut)
    pad : str or Column
        the characters to pad with

    Returns
    -------
    Column
        the strings padded on the right to ``len`` characters

    Examples
    --------
    >>> df = spark.createDataFrame([("7",), ("123",)], ["s"])
    >>> df.select(F.rpad("s", 4, ".")).show()
    +-------------+
    |rpad(s, 4, .)|
    +-------------+
    |         7...|
    |         123.|
    +-------------+
    <BLANKLINE>
    """
    return _call("rpad", _to_col(col), _lit_or_col(len), _lit_or_col(pad))


def repeat(col: ColumnOrName, n: int | ColumnOrName) -> Column:
    """``col`` repeated ``n`` times.

    Parameters
    ----------
    col : Column or str
        the strings
    n : int or Column or str
        how many times

    Returns
    -------
    Column
        the strings repeated ``n`` times

    Examples
    --------
    >>> df = spark.createDataFrame([("ab",)], ["s"])
    >>> df.select(F.repeat("s", 3)).show()
    +------------+
    |repeat(s, 3)|
    +------------+
    |      ababab|
    +------------+
    <BLANKLINE>
    """
    return _call("repeat", _to_col(col), _int_or_col(n))


def replace(src: ColumnOrName, search: ColumnOrName, replace: ColumnOrName | None = None) -> Column:
    """Every ``search`` in ``src`` replaced by ``replace`` (removed without one).

    Parameters
    ----------
    src : Column or str
        the strings
    search : Column or str
        the text to find (not a pattern)
    replace : Column or str, optional
        its replacement (default: the empty string)

    Returns
    -------
    Column
        the strings with every occurrence replaced

    Examples
    --------
    >>> df = spark.createDataFrame([("a-b-c",)], ["s"])
    >>> df.select(F.replace("s", F.lit("-"), F.lit("+")), F.replace("s", F.lit("-"))).show()
    +----------------+---------------+
    |replace(s, -, +)|replace(s, -, )|
    +----------------+---------------+
    |           a+b+c|            abc|
    +----------------+---------------+
    <BLANKLINE>
    """
    return _call("replace", _to_col(src), _to_col(search), lit("") if replace is None else _to_col(replace))


def translate(srcCol: ColumnOrName, matching: str, replace: str) -> Column:
    """Each character of ``matching`` replaced by the one at its place in ``replace`` (removed past its end).

    Parameters
    ----------
    srcCol : Column or str
        the strings
    matching : str
        the characters to replace
    replace : str
        their replacements, by position (characters without one are removed)

    Returns
    -------
    Column
        the strings with the characters replaced

    Examples
    --------
    >>> df = spark.createDataFrame([("translate",)], ["s"])
    >>> df.select(F.translate("s", "rnlt", "123")).show()
    +-----------------------+
    |translate(s, rnlt, 123)|
    +-----------------------+
    |                1a2s3ae|
    +-----------------------+
    <BLANKLINE>
    """
    return _call("translate", _to_col(srcCol), lit(matching), lit(replace))


def instr(
    str: ColumnOrName,  # noqa: A002
    substr: Column | str,
    start: Column | int | None = None,
    occurrence: Column | int | None = None,
) -> Column:
    """1-based position of the first ``substr`` (a literal) in ``str`` (the
    ``occurrence``-th at or after ``start``); 0 when absent.

    Parameters
    ----------
    str : Column or str
        the strings
    substr : Column or str
        the text to find
    start : Column or int, optional
        where the search starts, from 1
    occurrence : Column or int, optional
        which occurrence to find, from 1

    Returns
    -------
    Column
        an ``int`` column: the 1-based position of the first occurrence, 0 when absent

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.instr("s", "S")).show()
    +-----------+
    |instr(s, S)|
    +-----------+
    |          1|
    |          0|
    +-----------+
    <BLANKLINE>
    """
    args = [_to_col(str), _lit_or_col(substr)]
    if start is not None or occurrence is not None:
        args.append(_lit_or_col(1 if start is None else start))
    if occurrence is not None:
        args.append(_lit_or_col(occurrence))
    return _call("instr", *args)


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:  # noqa: A002
    """1-based position of the first ``substr`` at or after ``pos``; 0 when absent.

    Parameters
    ----------
    substr : str
        the text to find
    str : Column or str
        the strings
    pos : int, optional
        where the search starts, from 1

    Returns
    -------
    Column
        an ``int`` column: the 1-based position, 0 when absent

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.locate("S", "s"), F.locate("S", "s", 2)).show()
    +---------------+---------------+
    |locate(S, s, 1)|locate(S, s, 2)|
    +---------------+---------------+
    |              1|              7|
    |              0|              0|
    +---------------+---------------+
    <BLANKLINE>
    """
    return _call("locate", lit(substr), _to_col(str), lit(pos))


def position(substr: ColumnOrName, str: ColumnOrName, start: ColumnOrName | None = None) -> Column:  # noqa: A002
    """1-based position of the first ``substr`` (after ``start``); 0 when absent.

    Parameters
    ----------
    substr : Column or str
        the text to find
    str : Column or str
        the strings
    start : Column or str, optional
        where the search starts, from 1

    Returns
    -------
    Column
        an ``int`` column: the 1-based position, 0 when absent

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.position(F.lit("S"), "s")).show()
    +-----------------+
    |position(S, s, 1)|
    +-----------------+
    |                1|
    |                0|
    +-----------------+
    <BLANKLINE>
    """
    args = [_to_col(substr), _to_col(str)] + ([] if start is None else [_to_col(start)])
    return _call("position", *args)


def contains(left: ColumnOrName, right: ColumnOrName) -> Column:
    """True where ``right`` occurs in ``left``.

    Parameters
    ----------
    left : Column or str
        the strings
    right : Column or str
        the text to find

    Returns
    -------
    Column
        a ``boolean`` column: whether ``right`` occurs in ``left``

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.contains("s", F.lit("SQL"))).show()
    +----------------+
    |contains(s, SQL)|
    +----------------+
    |            true|
    |           false|
    +----------------+
    <BLANKLINE>
    """
    return _fn("contains", left, right)


def startswith(str: ColumnOrName, prefix: ColumnOrName) -> Column:  # noqa: A002
    """True where ``str`` starts with ``prefix``.

    Parameters
    ----------
    str : Column or str
        the strings
    prefix : Column or str
        the prefix

    Returns
    -------
    Column
        a ``boolean`` column: whether the strings start with ``prefix``

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.startswith("s", F.lit("Spark"))).show()
    +--------------------+
    |startswith(s, Spark)|
    +--------------------+
    |                true|
    |               false|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("startswith", str, prefix)


def endswith(str: ColumnOrName, suffix: ColumnOrName) -> Column:  # noqa: A002
    """True where ``str`` ends with ``suffix``.

    Parameters
    ----------
    str : Column or str
        the strings
    suffix : Column or str
        the suffix

    Returns
    -------
    Column
        a ``boolean`` column: whether the strings end with ``suffix``

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.endswith("s", F.lit("SQL"))).show()
    +----------------+
    |endswith(s, SQL)|
    +----------------+
    |            true|
    |           false|
    +----------------+
    <BLANKLINE>
    """
    return _fn("endswith", str, suffix)


def ascii(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The code point of the first character.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        an ``int`` column: the code point of each string's first character

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.ascii("s")).show()
    +--------+
    |ascii(s)|
    +--------+
    |      83|
    |     112|
    +--------+
    <BLANKLINE>
    """
    return _fn("ascii", col)


def char(col: ColumnOrName) -> Column:
    """The character of a code point (modulo 256).

    Parameters
    ----------
    col : Column or str
        the code points

    Returns
    -------
    Column
        the character with each code point (modulo 256)

    Examples
    --------
    >>> df = spark.createDataFrame([(65,), (97,)], ["n"])
    >>> df.select(F.char("n")).show()
    +-------+
    |char(n)|
    +-------+
    |      A|
    |      a|
    +-------+
    <BLANKLINE>
    """
    return _fn("char", col)


def base64(col: ColumnOrName) -> Column:
    """A binary (or string's UTF-8) value in base64.

    Parameters
    ----------
    col : Column or str
        the strings or binary values

    Returns
    -------
    Column
        the values' bytes encoded in base 64

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.base64("s")).show()
    +------------+
    |   base64(s)|
    +------------+
    |U3BhcmsgU1FM|
    |cHlzcGFyaw==|
    +------------+
    <BLANKLINE>
    """
    return _fn("base64", col)


def unbase64(col: ColumnOrName) -> Column:
    """The binary value of a base64 string.

    Parameters
    ----------
    col : Column or str
        base 64 text

    Returns
    -------
    Column
        a ``binary`` column: the decoded bytes

    Examples
    --------
    >>> df = spark.createDataFrame([("U3Bhcms=",)], ["s"])
    >>> df.select(F.unbase64("s")).show()
    +----------------+
    |     unbase64(s)|
    +----------------+
    |[53 70 61 72 6B]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("unbase64", col)


def format_string(format: str, *cols: ColumnOrName) -> Column:  # noqa: A002
    """``format`` (printf style) applied to the columns.

    Parameters
    ----------
    format : str
        a printf-style format, as Java's ``String.format``
    *cols : Column or str
        the values the format refers to

    Returns
    -------
    Column
        the formatted strings

    Examples
    --------
    >>> df = spark.createDataFrame([(5, "apples")], ["n", "s"])
    >>> df.select(F.format_string("%d %s", "n", "s")).show()
    +--------------------------+
    |format_string(%d %s, n, s)|
    +--------------------------+
    |                  5 apples|
    +--------------------------+
    <BLANKLINE>
    """
    return _call("format_string", lit(format), *[_to_col(c) for c in cols])


def printf(format: ColumnOrName, *cols: ColumnOrName) -> Column:  # noqa: A002
    """``format`` (printf style) applied to the columns.

    Parameters
    ----------
    format : Column or str
        a printf-style format, as Java's ``String.format``
    *cols : Column or str
        the values the format refers to

    Returns
    -------
    Column
        the formatted strings

    Examples
    --------
    >>> df = spark.createDataFrame([(5, "apples")], ["n", "s"])
    >>> df.select(F.printf(F.lit("%d %s"), "n", "s")).show()
    +-------------------+
    |printf(%d %s, n, s)|
    +-------------------+
    |           5 apples|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("printf", format, *cols)


def levenshtein(left: ColumnOrName, right: ColumnOrName, threshold: int | None = None) -> Column:
    """The edit distance of two strings (-1 when over ``threshold``).

    Parameters
    ----------
    left : Column or str
        the first strings
    right : Column or str
        the second strings
    threshold : int, optional
        when the distance is larger, -1 instead

    Returns
    -------
    Column
        an ``int`` column: the edit distance between the two strings

    Examples
    --------
    >>> df = spark.createDataFrame([("kitten", "sitting")], ["a", "b"])
    >>> df.select(F.levenshtein("a", "b"), F.levenshtein("a", "b", 2)).show()
    +-----------------+--------------------+
    |levenshtein(a, b)|levenshtein(a, b, 2)|
    +-----------------+--------------------+
    |                3|                  -1|
    +-----------------+--------------------+
    <BLANKLINE>
    """
    args = [_to_col(left), _to_col(right)] + ([] if threshold is None else [lit(threshold)])
    return _call("levenshtein", *args)


def soundex(col: ColumnOrName) -> Column:
    """The Soundex code of a string.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the strings' Soundex codes

    Examples
    --------
    >>> df = spark.createDataFrame([("Robert",), ("Rupert",)], ["s"])
    >>> df.select(F.soundex("s")).show()
    +----------+
    |soundex(s)|
    +----------+
    |      R163|
    |      R163|
    +----------+
    <BLANKLINE>
    """
    return _fn("soundex", col)


def space(n: ColumnOrName) -> Column:
    """``n`` spaces.

    Parameters
    ----------
    n : Column or str
        how many spaces

    Returns
    -------
    Column
        strings of ``n`` spaces

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.concat(F.lit("["), F.space(F.lit(3)), F.lit("]"))).show()
    +----------------------+
    |concat([, space(3), ])|
    +----------------------+
    |                 [   ]|
    +----------------------+
    <BLANKLINE>
    """
    return _fn("space", n)


def quote(col: ColumnOrName) -> Column:
    r"""A string quoted as a SQL literal.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the strings in single quotes, inner quotes escaped

    Examples
    --------
    >>> df = spark.createDataFrame([("it's",)], ["s"])
    >>> df.select(F.quote("s")).show()
    +--------+
    |quote(s)|
    +--------+
    | 'it\'s'|
    +--------+
    <BLANKLINE>
    """
    return _fn("quote", col)


def elt(*inputs: ColumnOrName) -> Column:
    """The ``n``-th (1-based) of the inputs after the first, ``n``.

    Parameters
    ----------
    *inputs : Column or str
        an index from 1, then the values to pick from

    Returns
    -------
    Column
        the value at the index, null when out of range

    Examples
    --------
    >>> df = spark.createDataFrame([(2, "a", "b")], ["i", "x", "y"])
    >>> df.select(F.elt("i", "x", "y")).show()
    +------------+
    |elt(i, x, y)|
    +------------+
    |           b|
    +------------+
    <BLANKLINE>
    """
    return _fn("elt", *inputs)


def find_in_set(str: ColumnOrName, str_array: ColumnOrName) -> Column:  # noqa: A002
    """1-based position of ``str`` in the comma-separated list; 0 when absent.

    Parameters
    ----------
    str : Column or str
        the strings to find
    str_array : Column or str
        comma-separated lists

    Returns
    -------
    Column
        an ``int`` column: the 1-based position in the list, 0 when absent

    Examples
    --------
    >>> df = spark.createDataFrame([("b", "a,b,c")], ["s", "list"])
    >>> df.select(F.find_in_set("s", "list")).show()
    +--------------------+
    |find_in_set(s, list)|
    +--------------------+
    |                   2|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("find_in_set", str, str_array)


def overlay(
    src: ColumnOrName,
    replace: ColumnOrName,
    pos: int | ColumnOrName,
    len: int | ColumnOrName = -1,  # noqa: A002
) -> Column:
    """``src`` with ``len`` characters from 1-based ``pos`` replaced by ``replace``.

    Parameters
    ----------
    src : Column or str
        the strings
    replace : Column or str
        the text put in
    pos : int or Column or str
        where it goes, from 1
    len : int or Column or str, optional
        how many characters it replaces (default: its own length)

    Returns
    -------
    Column
        the strings with the part replaced

    Examples
    --------
    >>> df = spark.createDataFrame([("SPARK_SQL", "CORE")], ["s", "r"])
    >>> df.select(F.overlay("s", "r", 7), F.overlay("s", "r", 7, 0)).show()
    +--------------------+-------------------+
    |overlay(s, r, 7, -1)|overlay(s, r, 7, 0)|
    +--------------------+-------------------+
    |          SPARK_CORE|      SPARK_CORESQL|
    +--------------------+-------------------+
    <BLANKLINE>
    """
    return _call("overlay", _to_col(src), _to_col(replace), _int_or_col(pos), _int_or_col(len))


def _int_or_col(value: int | ColumnOrName) -> Column:
    return lit(value) if isinstance(value, int) else _to_col(value)


def decode(col: ColumnOrName, charset: str) -> Column:
    """Binary ``col`` decoded as text in ``charset``.

    Parameters
    ----------
    col : Column or str
        the binary values
    charset : str
        the character set, such as ``UTF-8`` or ``US-ASCII``

    Returns
    -------
    Column
        the bytes decoded as strings

    Examples
    --------
    >>> df = spark.createDataFrame([(b"abc",)], ["b"])
    >>> df.select(F.decode("b", "UTF-8")).show()
    +----------------+
    |decode(b, UTF-8)|
    +----------------+
    |             abc|
    +----------------+
    <BLANKLINE>
    """
    return _call("decode", _to_col(col), lit(charset))


def encode(col: ColumnOrName, charset: str) -> Column:
    """Text ``col`` encoded as binary in ``charset``.

    Parameters
    ----------
    col : Column or str
        the strings
    charset : str
        the character set, such as ``UTF-8`` or ``US-ASCII``

    Returns
    -------
    Column
        a ``binary`` column: the strings' bytes in the character set

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.encode("s", "UTF-8")).show()
    +--------------------+
    |    encode(s, UTF-8)|
    +--------------------+
    |[53 70 61 72 6B 2...|
    |[70 79 73 70 61 7...|
    +--------------------+
    <BLANKLINE>
    """
    return _call("encode", _to_col(col), lit(charset))


def is_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's parameter name
    """True where ``str`` is valid UTF-8.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        a ``boolean`` column: whether the bytes are valid UTF-8

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.is_valid_utf8("s")).show()
    +----------------+
    |is_valid_utf8(s)|
    +----------------+
    |            true|
    |            true|
    +----------------+
    <BLANKLINE>
    """
    return _fn("is_valid_utf8", str)


def make_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` with invalid UTF-8 sequences replaced by U+FFFD.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings with invalid UTF-8 sequences replaced by U+FFFD

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.make_valid_utf8("s")).show()
    +------------------+
    |make_valid_utf8(s)|
    +------------------+
    |         Spark SQL|
    |           pyspark|
    +------------------+
    <BLANKLINE>
    """
    return _fn("make_valid_utf8", str)


def _url_part(name: str, url: ColumnOrName, part: ColumnOrName, key: ColumnOrName | None) -> Column:
    args = [url, part] if key is None else [url, part, key]
    return _fn(name, *args)


def parse_url(url: ColumnOrName, partToExtract: ColumnOrName, key: ColumnOrName | None = None) -> Column:
    """A part of a URL (``HOST``, ``PATH``, ``QUERY``, ...; a query parameter with ``key``).

    Parameters
    ----------
    url : Column or str
        the URLs
    partToExtract : Column or str
        HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY or USERINFO
    key : Column or str, optional
        with QUERY, the parameter whose value to extract

    Returns
    -------
    Column
        the part of each URL (null when absent)

    Examples
    --------
    >>> df = spark.createDataFrame([("https://spark.apache.org/docs?lang=py",)], ["u"])
    >>> df.select(F.parse_url("u", F.lit("HOST")), F.parse_url("u", F.lit("QUERY"), F.lit("lang"))).show()
    +------------------+-------------------------+
    |parse_url(u, HOST)|parse_url(u, QUERY, lang)|
    +------------------+-------------------------+
    |  spark.apache.org|                       py|
    +------------------+-------------------------+
    <BLANKLINE>
    """
    return _url_part("parse_url", url, partToExtract, key)


def try_parse_url(url: ColumnOrName, partToExtract: ColumnOrName, key: ColumnOrName | None = None) -> Column:
    """As :func:`parse_url`, null where the URL is not valid.

    Parameters
    ----------
    url : Column or str
        the URLs
    partToExtract : Column or str
        HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY or USERINFO
    key : Column or str, optional
        with QUERY, the parameter whose value to extract

    Returns
    -------
    Column
        the part of each URL (null when absent or the URL is malformed)

    Examples
    --------
    >>> df = spark.createDataFrame([("https://spark.apache.org/docs?lang=py",)], ["u"])
    >>> df.select(F.try_parse_url("u", F.lit("PATH"))).show()
    +----------------------+
    |try_parse_url(u, PATH)|
    +----------------------+
    |                 /docs|
    +----------------------+
    <BLANKLINE>
    """
    return _url_part("try_parse_url", url, partToExtract, key)


def url_decode(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` decoded from ``application/x-www-form-urlencoded``.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings decoded from ``application/x-www-form-urlencoded``

    Examples
    --------
    >>> df = spark.createDataFrame([("a%20b%26c",)], ["s"])
    >>> df.select(F.url_decode("s")).show()
    +-------------+
    |url_decode(s)|
    +-------------+
    |        a b&c|
    +-------------+
    <BLANKLINE>
    """
    return _fn("url_decode", str)


def url_encode(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` encoded as ``application/x-www-form-urlencoded``.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the strings encoded as ``application/x-www-form-urlencoded``

    Examples
    --------
    >>> df = spark.createDataFrame([("a b&c",)], ["s"])
    >>> df.select(F.url_encode("s")).show()
    +-------------+
    |url_encode(s)|
    +-------------+
    |      a+b%26c|
    +-------------+
    <BLANKLINE>
    """
    return _fn("url_encode", str)


def try_url_decode(str: ColumnOrName) -> Column:  # noqa: A002
    """As :func:`url_decode`, null where ``str`` is not validly encoded.

    Parameters
    ----------
    str : Column or str
        the strings

    Returns
    -------
    Column
        the decoded strings, null where the input is malformed

    Examples
    --------
    >>> df = spark.createDataFrame([("a%20b",), ("%zz",)], ["s"])
    >>> df.select(F.try_url_decode("s")).show()
    +-----------------+
    |try_url_decode(s)|
    +-----------------+
    |              a b|
    |             NULL|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("try_url_decode", str)


def regexp_instr(str: ColumnOrName, regexp: ColumnOrName, idx: int | Column | None = None) -> Column:  # noqa: A002
    r"""The 1-based position of the first match of ``regexp`` in ``str`` (0 when none).

    Parameters
    ----------
    str : Column or str
        the strings
    regexp : Column or str
        a regular expression (Java syntax)
    idx : int or Column, optional
        a group of the regex (checked; the position is the whole match's, as in Spark)

    Returns
    -------
    Column
        an ``int`` column: the 1-based position of the first match, 0 when none

    Examples
    --------
    >>> df = spark.createDataFrame([("1a 2b 14m",)], ["s"])
    >>> df.select(F.regexp_instr("s", F.lit(r"\d+[a-z]"))).show()
    +----------------------------+
    |regexp_instr(s, \d+[a-z], 0)|
    +----------------------------+
    |                           1|
    +----------------------------+
    <BLANKLINE>
    """
    args = [_to_col(str), _to_col(regexp)]
    if idx is not None:
        args.append(lit(idx))
    return _call("regexp_instr", *args)


def to_char(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """``col`` (a number, date or timestamp) as text by ``format``.

    Parameters
    ----------
    col : Column or str
        the numbers (or dates, timestamps, binary values)
    format : Column or str
        a number format such as ``'$99.99'`` (dates: a datetime pattern)

    Returns
    -------
    Column
        the values formatted as strings

    Examples
    --------
    >>> df = spark.createDataFrame([(78.12,)], ["n"])
    >>> df.select(F.to_char("n", F.lit("$99.99"))).show()
    +------------------+
    |to_char(n, $99.99)|
    +------------------+
    |            $78.12|
    +------------------+
    <BLANKLINE>
    """
    return _fn("to_char", col, format)


def to_varchar(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """``col`` (a number, date or timestamp) as text by ``format``.

    Parameters
    ----------
    col : Column or str
        the numbers (or dates, timestamps, binary values)
    format : Column or str
        a number format such as ``'$99.99'`` (dates: a datetime pattern)

    Returns
    -------
    Column
        the values formatted as strings

    Examples
    --------
    >>> df = spark.createDataFrame([(78.12,)], ["n"])
    >>> df.select(F.to_varchar("n", F.lit("$99.99"))).show()
    +------------------+
    |to_char(n, $99.99)|
    +------------------+
    |            $78.12|
    +------------------+
    <BLANKLINE>
    """
    return _fn("to_varchar", col, format)


def to_binary(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``col`` as binary, read by ``format``: ``'hex'`` (the default), ``'utf-8'`` or ``'base64'``.

    Parameters
    ----------
    col : Column or str
        the strings
    format : Column or str, optional
        ``hex`` (default), ``utf-8`` or ``base64``

    Returns
    -------
    Column
        a ``binary`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("abc",)], ["s"])
    >>> df.select(F.to_binary("s", F.lit("utf-8"))).show()
    +-------------------+
    |to_binary(s, utf-8)|
    +-------------------+
    |         [61 62 63]|
    +-------------------+
    <BLANKLINE>
    """
    return _fn("to_binary", col) if format is None else _fn("to_binary", col, format)


def try_to_binary(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """As :func:`to_binary`.

    Parameters
    ----------
    col : Column or str
        the strings
    format : Column or str, optional
        ``hex`` (default), ``utf-8`` or ``base64``

    Returns
    -------
    Column
        a ``binary`` column, null where the string is malformed

    Examples
    --------
    >>> df = spark.createDataFrame([("abc",)], ["s"])
    >>> df.select(F.try_to_binary("s", F.lit("hex"))).show()
    +---------------------+
    |try_to_binary(s, hex)|
    +---------------------+
    |              [0A BC]|
    +---------------------+
    <BLANKLINE>
    """
    return _fn("try_to_binary", col) if format is None else _fn("try_to_binary", col, format)


def mask(
    col: ColumnOrName,
    upperChar: ColumnOrName | None = None,
    lowerChar: ColumnOrName | None = None,
    digitChar: ColumnOrName | None = None,
    otherChar: ColumnOrName | None = None,
) -> Column:
    """The text with upper-case letters as ``X``, lower-case as ``x`` and
    digits as ``n`` (or the given characters; ``otherChar`` masks the rest).

    Parameters
    ----------
    col : Column or str
        the strings
    upperChar : Column or str, optional
        what replaces upper-case letters (default ``X``)
    lowerChar : Column or str, optional
        what replaces lower-case letters (default ``x``)
    digitChar : Column or str, optional
        what replaces digits (default ``n``)
    otherChar : Column or str, optional
        what replaces other characters (default: kept)

    Returns
    -------
    Column
        the masked strings

    Examples
    --------
    >>> df = spark.createDataFrame([("AbCD123-@$#",)], ["s"])
    >>> df.select(F.mask("s"), F.mask("s", F.lit("Y"), F.lit("y"), F.lit("d"), F.lit("*"))).show()
    +----------------------+-------------------+
    |mask(s, X, x, n, NULL)|mask(s, Y, y, d, *)|
    +----------------------+-------------------+
    |           XxXXnnn-@$#|        YyYYddd****|
    +----------------------+-------------------+
    <BLANKLINE>
    """
    defaults = [("X", upperChar), ("x", lowerChar), ("n", digitChar), (None, otherChar)]
    args = [_to_col(col)] + [lit(d) if c is None else _to_col(c) for d, c in defaults]
    return _call("mask", *args)


def format_number(col: ColumnOrName, d: int) -> Column:
    """The number formatted as ``#,###,###.##`` with ``d`` decimals (rounded half to even).

    Parameters
    ----------
    col : Column or str
        the numbers
    d : int
        digits after the decimal point

    Returns
    -------
    Column
        the numbers formatted like ``#,###,###.##``

    Examples
    --------
    >>> df = spark.createDataFrame([(1234567.891,)], ["n"])
    >>> df.select(F.format_number("n", 2)).show()
    +-------------------+
    |format_number(n, 2)|
    +-------------------+
    |       1,234,567.89|
    +-------------------+
    <BLANKLINE>
    """
    return _call("format_number", _to_col(col), lit(d))


def to_base32(col: ColumnOrName) -> Column:
    """The bytes (or a string's UTF-8 bytes) as RFC 4648 base32 text.

    Parameters
    ----------
    col : Column or str
        the strings

    Returns
    -------
    Column
        the values encoded in base 32

    Examples
    --------
    >>> df = spark.createDataFrame([("Spark SQL",), ("pyspark",)], ["s"])
    >>> df.select(F.to_base32("s")).show()
    +----------------+
    |    to_base32(s)|
    +----------------+
    |KNYGC4TLEBJVCTA=|
    |OB4XG4DBOJVQ====|
    +----------------+
    <BLANKLINE>
    """
    return _fn("to_base32", col)


def from_base32(col: ColumnOrName) -> Column:
    """The bytes of base32 text (null where it is not base32).

    Parameters
    ----------
    col : Column or str
        base 32 text

    Returns
    -------
    Column
        a ``binary`` column: the decoded bytes

    Examples
    --------
    >>> df = spark.createDataFrame([("KNYGC4TL",)], ["s"])
    >>> df.select(F.from_base32("s")).show()
    +----------------+
    |  from_base32(s)|
    +----------------+
    |[53 70 61 72 6B]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("from_base32", col)


def jaro_winkler_similarity(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The Jaro-Winkler similarity of two strings, from 0 to 1.

    Parameters
    ----------
    left : Column or str
        the first strings
    right : Column or str
        the second strings

    Returns
    -------
    Column
        a ``double`` column: the similarity, from 0 to 1

    Examples
    --------
    >>> df = spark.createDataFrame([("martha", "marhta")], ["a", "b"])
    >>> df.select(F.jaro_winkler_similarity("a", "b")).show()
    +-----------------------------+
    |jaro_winkler_similarity(a, b)|
    +-----------------------------+
    |           0.9611111111111111|
    +-----------------------------+
    <BLANKLINE>
    """
    return _fn("jaro_winkler_similarity", left, right)


def sentences(
    string: ColumnOrName, language: ColumnOrName | None = None, country: ColumnOrName | None = None
) -> Column:
    """The text's sentences, each an array of its words.

    Parameters
    ----------
    string : Column or str
        the strings
    language : Column or str, optional
        a language code for the locale
    country : Column or str, optional
        a country code for the locale

    Returns
    -------
    Column
        an array of sentences, each an array of words

    Examples
    --------
    >>> df = spark.createDataFrame([("Hi there! How are you?",)], ["s"])
    >>> df.select(F.sentences("s")).show(truncate=False)
    +------------------------------+
    |sentences(s, , )              |
    +------------------------------+
    |[[Hi, there], [How, are, you]]|
    +------------------------------+
    <BLANKLINE>
    """
    args = [_to_col(string)]
    if language is not None or country is not None:
        args.append(lit("") if language is None else _to_col(language))
    if country is not None:
        args.append(_to_col(country))
    return _call("sentences", *args)


def to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """Text in a number ``format`` (``$99.99``, ``999,999S``) as a decimal;
    text that does not match is an error.

    Parameters
    ----------
    col : Column or str
        the strings
    format : Column or str
        a number format such as ``'$99.99'``

    Returns
    -------
    Column
        a ``decimal`` column

    Examples
    --------
    >>> df = spark.createDataFrame([("$78.12",)], ["s"])
    >>> df.select(F.to_number("s", F.lit("$99.99"))).show()
    +--------------------+
    |to_number(s, $99.99)|
    +--------------------+
    |               78.12|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("to_number", col, format)


def try_to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """As :func:`to_number`, null where the text does not match.

    Parameters
    ----------
    col : Column or str
        the strings
    format : Column or str
        a number format such as ``'$99.99'``

    Returns
    -------
    Column
        a ``decimal`` column, null where the string does not match

    Examples
    --------
    >>> df = spark.createDataFrame([("$78.12",), ("x",)], ["s"])
    >>> df.select(F.try_to_number("s", F.lit("$99.99"))).show()
    +------------------------+
    |try_to_number(s, $99.99)|
    +------------------------+
    |                   78.12|
    |                    NULL|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("try_to_number", col, format)
