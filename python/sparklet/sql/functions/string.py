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
    """``col`` in upper case."""
    return _fn("upper", col)


def lower(col: ColumnOrName) -> Column:
    """``col`` in lower case."""
    return _fn("lower", col)


def ucase(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's parameter name
    """``str`` in upper case."""
    return _fn("ucase", str)


def lcase(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` in lower case."""
    return _fn("lcase", str)


def trim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without leading and trailing spaces (or ``trim``'s characters)."""
    return _fn("trim", col) if trim is None else _call("btrim", _to_col(col), _to_col(trim))


def ltrim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without leading spaces (or ``trim``'s characters)."""
    return _fn("ltrim", col) if trim is None else _call("ltrim", _to_col(col), _to_col(trim))


def rtrim(col: ColumnOrName, trim: ColumnOrName | None = None) -> Column:
    """``col`` without trailing spaces (or ``trim``'s characters)."""
    return _fn("rtrim", col) if trim is None else _call("rtrim", _to_col(col), _to_col(trim))


def btrim(str: ColumnOrName, trim: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``str`` without leading and trailing spaces (or ``trim``'s characters)."""
    return _fn("btrim", str) if trim is None else _fn("btrim", str, trim)


def length(col: ColumnOrName) -> Column:
    """Characters in a string (bytes in a binary value)."""
    return _fn("length", col)


def char_length(str: ColumnOrName) -> Column:  # noqa: A002
    """Characters in a string."""
    return _fn("char_length", str)


def character_length(str: ColumnOrName) -> Column:  # noqa: A002
    """Characters in a string."""
    return _fn("character_length", str)


def bit_length(col: ColumnOrName) -> Column:
    """Bits in a string's UTF-8 bytes."""
    return _fn("bit_length", col)


def octet_length(col: ColumnOrName) -> Column:
    """Bytes in a string's UTF-8 encoding."""
    return _fn("octet_length", col)


def reverse(col: ColumnOrName) -> Column:
    """A string's characters (or an array's elements) in reverse order."""
    return _fn("reverse", col)


def initcap(col: ColumnOrName) -> Column:
    """Each word with its first letter in upper case, the rest in lower case."""
    return _fn("initcap", col)


def concat(*cols: ColumnOrName) -> Column:
    """Concatenate strings; null if any input is null."""
    return _fn("concat", *cols)


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    """Concatenate with a separator, skipping nulls."""
    return _call("concat_ws", lit(sep), *[_to_col(c) for c in cols])


def split(str: ColumnOrName, pattern: str | Column, limit: int | ColumnOrName = -1) -> Column:  # noqa: A002
    """Split around matches of the regular expression ``pattern`` (a
    literal, or a Column), into at most ``limit`` parts if positive (an
    int, or a Column or column name)."""
    n = lit(limit) if isinstance(limit, int) else _to_col(limit)
    return _call("split", _to_col(str), lit(pattern), n)


def split_part(src: ColumnOrName, delimiter: ColumnOrName, partNum: ColumnOrName) -> Column:
    """Part ``partNum`` (1-based; negative from the end) of ``src`` split by ``delimiter``."""
    return _fn("split_part", src, delimiter, partNum)


def substring(str: ColumnOrName, pos: int | ColumnOrName, len: int | ColumnOrName) -> Column:  # noqa: A002
    """Substring from 1-based ``pos`` of ``len`` characters."""
    return _call("substring", _to_col(str), _int_or_col(pos), _int_or_col(len))


def substr(str: ColumnOrName, pos: ColumnOrName, len: ColumnOrName | None = None) -> Column:  # noqa: A002
    """Substring from 1-based ``pos`` (of ``len`` characters, else to the end)."""
    if len is None:
        return _fn("substr", str, pos)
    return _fn("substr", str, pos, len)


def substring_index(str: ColumnOrName, delim: str, count: int) -> Column:  # noqa: A002
    """What comes before the ``count``-th ``delim`` (after it, counting from the end, when negative)."""
    return _call("substring_index", _to_col(str), lit(delim), lit(count))


def left(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002
    """The leftmost ``len`` characters."""
    return _fn("left", str, len)


def right(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002
    """The rightmost ``len`` characters."""
    return _fn("right", str, len)


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002
    """Group ``idx`` of the first match of ``pattern`` ("" when none)."""
    return _call("regexp_extract", _to_col(str), lit(pattern), lit(idx))


def regexp_extract_all(str: ColumnOrName, regexp: ColumnOrName, idx: int | Column | None = None) -> Column:  # noqa: A002
    """Group ``idx`` (default 1) of every match of ``regexp``."""
    args = [_to_col(str), _to_col(regexp)] + ([] if idx is None else [_lit_or_col(idx)])
    return _call("regexp_extract_all", *args)


def regexp_replace(
    string: ColumnOrName, pattern: str | Column, replacement: str | Column, position: int | Column | None = None
) -> Column:
    """Replace every match of ``pattern`` with ``replacement`` (from 1-based ``position`` on)."""
    args = [_to_col(string), _lit_or_col(pattern), _lit_or_col(replacement)]
    if position is not None:
        args.append(_lit_or_col(position))
    return _call("regexp_replace", *args)


def regexp_count(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """How many times ``regexp`` matches."""
    return _fn("regexp_count", str, regexp)


def regexp_substr(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """The first match of ``regexp`` (null when none)."""
    return _fn("regexp_substr", str, regexp)


def regexp_like(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``."""
    return _fn("regexp_like", str, regexp)


def regexp(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``."""
    return _fn("regexp", str, regexp)


def rlike(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002
    """True where ``regexp`` matches somewhere in ``str``."""
    return _fn("rlike", str, regexp)


def like(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002
    """SQL ``LIKE``: ``%`` any characters, ``_`` one."""
    args = [_to_col(str), _to_col(pattern)] + ([] if escapeChar is None else [escapeChar])
    return _call("like", *args)


def ilike(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002
    """``LIKE`` ignoring case."""
    args = [_to_col(str), _to_col(pattern)] + ([] if escapeChar is None else [escapeChar])
    return _call("ilike", *args)


def lpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    """``col`` left-padded with ``pad`` to ``len`` characters (cut to it when longer)."""
    return _call("lpad", _to_col(col), _lit_or_col(len), _lit_or_col(pad))


def rpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    """``col`` right-padded with ``pad`` to ``len`` characters (cut to it when longer)."""
    return _call("rpad", _to_col(col), _lit_or_col(len), _lit_or_col(pad))


def repeat(col: ColumnOrName, n: int | ColumnOrName) -> Column:
    """``col`` repeated ``n`` times."""
    return _call("repeat", _to_col(col), _int_or_col(n))


def replace(src: ColumnOrName, search: ColumnOrName, replace: ColumnOrName | None = None) -> Column:
    """Every ``search`` in ``src`` replaced by ``replace`` (removed without one)."""
    return _call("replace", _to_col(src), _to_col(search), lit("") if replace is None else _to_col(replace))


def translate(srcCol: ColumnOrName, matching: str, replace: str) -> Column:
    """Each character of ``matching`` replaced by the one at its place in ``replace`` (removed past its end)."""
    return _call("translate", _to_col(srcCol), lit(matching), lit(replace))


def instr(
    str: ColumnOrName,  # noqa: A002
    substr: Column | str,
    start: Column | int | None = None,
    occurrence: Column | int | None = None,
) -> Column:
    """1-based position of the first ``substr`` (a literal) in ``str`` (the
    ``occurrence``-th at or after ``start``); 0 when absent."""
    args = [_to_col(str), _lit_or_col(substr)]
    if start is not None or occurrence is not None:
        args.append(_lit_or_col(1 if start is None else start))
    if occurrence is not None:
        args.append(_lit_or_col(occurrence))
    return _call("instr", *args)


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:  # noqa: A002
    """1-based position of the first ``substr`` at or after ``pos``; 0 when absent."""
    return _call("locate", lit(substr), _to_col(str), lit(pos))


def position(substr: ColumnOrName, str: ColumnOrName, start: ColumnOrName | None = None) -> Column:  # noqa: A002
    """1-based position of the first ``substr`` (after ``start``); 0 when absent."""
    args = [_to_col(substr), _to_col(str)] + ([] if start is None else [_to_col(start)])
    return _call("position", *args)


def contains(left: ColumnOrName, right: ColumnOrName) -> Column:
    """True where ``right`` occurs in ``left``."""
    return _fn("contains", left, right)


def startswith(str: ColumnOrName, prefix: ColumnOrName) -> Column:  # noqa: A002
    """True where ``str`` starts with ``prefix``."""
    return _fn("startswith", str, prefix)


def endswith(str: ColumnOrName, suffix: ColumnOrName) -> Column:  # noqa: A002
    """True where ``str`` ends with ``suffix``."""
    return _fn("endswith", str, suffix)


def ascii(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The code point of the first character."""
    return _fn("ascii", col)


def char(col: ColumnOrName) -> Column:
    """The character of a code point (modulo 256)."""
    return _fn("char", col)


def base64(col: ColumnOrName) -> Column:
    """A binary (or string's UTF-8) value in base64."""
    return _fn("base64", col)


def unbase64(col: ColumnOrName) -> Column:
    """The binary value of a base64 string."""
    return _fn("unbase64", col)


def format_string(format: str, *cols: ColumnOrName) -> Column:  # noqa: A002
    """``format`` (printf style) applied to the columns."""
    return _call("format_string", lit(format), *[_to_col(c) for c in cols])


def printf(format: ColumnOrName, *cols: ColumnOrName) -> Column:  # noqa: A002
    """``format`` (printf style) applied to the columns."""
    return _fn("printf", format, *cols)


def levenshtein(left: ColumnOrName, right: ColumnOrName, threshold: int | None = None) -> Column:
    """The edit distance of two strings (-1 when over ``threshold``)."""
    args = [_to_col(left), _to_col(right)] + ([] if threshold is None else [lit(threshold)])
    return _call("levenshtein", *args)


def soundex(col: ColumnOrName) -> Column:
    """The Soundex code of a string."""
    return _fn("soundex", col)


def space(n: ColumnOrName) -> Column:
    """``n`` spaces."""
    return _fn("space", n)


def quote(col: ColumnOrName) -> Column:
    """A string quoted as a SQL literal."""
    return _fn("quote", col)


def elt(*inputs: ColumnOrName) -> Column:
    """The ``n``-th (1-based) of the inputs after the first, ``n``."""
    return _fn("elt", *inputs)


def find_in_set(str: ColumnOrName, str_array: ColumnOrName) -> Column:  # noqa: A002
    """1-based position of ``str`` in the comma-separated list; 0 when absent."""
    return _fn("find_in_set", str, str_array)


def overlay(
    src: ColumnOrName,
    replace: ColumnOrName,
    pos: int | ColumnOrName,
    len: int | ColumnOrName = -1,  # noqa: A002
) -> Column:
    """``src`` with ``len`` characters from 1-based ``pos`` replaced by ``replace``."""
    return _call("overlay", _to_col(src), _to_col(replace), _int_or_col(pos), _int_or_col(len))


def _int_or_col(value: int | ColumnOrName) -> Column:
    return lit(value) if isinstance(value, int) else _to_col(value)


def decode(col: ColumnOrName, charset: str) -> Column:
    """Binary ``col`` decoded as text in ``charset``."""
    return _call("decode", _to_col(col), lit(charset))


def encode(col: ColumnOrName, charset: str) -> Column:
    """Text ``col`` encoded as binary in ``charset``."""
    return _call("encode", _to_col(col), lit(charset))


def is_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's parameter name
    """True where ``str`` is valid UTF-8."""
    return _fn("is_valid_utf8", str)


def make_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` with invalid UTF-8 sequences replaced by U+FFFD."""
    return _fn("make_valid_utf8", str)


def _url_part(name: str, url: ColumnOrName, part: ColumnOrName, key: ColumnOrName | None) -> Column:
    args = [url, part] if key is None else [url, part, key]
    return _fn(name, *args)


def parse_url(url: ColumnOrName, partToExtract: ColumnOrName, key: ColumnOrName | None = None) -> Column:
    """A part of a URL (``HOST``, ``PATH``, ``QUERY``, ...; a query parameter with ``key``)."""
    return _url_part("parse_url", url, partToExtract, key)


def try_parse_url(url: ColumnOrName, partToExtract: ColumnOrName, key: ColumnOrName | None = None) -> Column:
    """As :func:`parse_url`, null where the URL is not valid."""
    return _url_part("try_parse_url", url, partToExtract, key)


def url_decode(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` decoded from ``application/x-www-form-urlencoded``."""
    return _fn("url_decode", str)


def url_encode(str: ColumnOrName) -> Column:  # noqa: A002
    """``str`` encoded as ``application/x-www-form-urlencoded``."""
    return _fn("url_encode", str)


def try_url_decode(str: ColumnOrName) -> Column:  # noqa: A002
    """As :func:`url_decode`, null where ``str`` is not validly encoded."""
    return _fn("try_url_decode", str)


def regexp_instr(str: ColumnOrName, regexp: ColumnOrName, idx: int | Column | None = None) -> Column:  # noqa: A002
    """The 1-based position of the first match of ``regexp`` in ``str`` (0 when none)."""
    args = [_to_col(str), _to_col(regexp)]
    if idx is not None:
        args.append(lit(idx))
    return _call("regexp_instr", *args)


def to_char(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """``col`` (a number, date or timestamp) as text by ``format``."""
    return _fn("to_char", col, format)


def to_varchar(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """``col`` (a number, date or timestamp) as text by ``format``."""
    return _fn("to_varchar", col, format)


def to_binary(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``col`` as binary, read by ``format``: ``'hex'`` (the default), ``'utf-8'`` or ``'base64'``."""
    return _fn("to_binary", col) if format is None else _fn("to_binary", col, format)


def try_to_binary(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """As :func:`to_binary`."""
    return _fn("try_to_binary", col) if format is None else _fn("try_to_binary", col, format)


def mask(
    col: ColumnOrName,
    upperChar: ColumnOrName | None = None,
    lowerChar: ColumnOrName | None = None,
    digitChar: ColumnOrName | None = None,
    otherChar: ColumnOrName | None = None,
) -> Column:
    """The text with upper-case letters as ``X``, lower-case as ``x`` and
    digits as ``n`` (or the given characters; ``otherChar`` masks the rest)."""
    defaults = [("X", upperChar), ("x", lowerChar), ("n", digitChar), (None, otherChar)]
    args = [_to_col(col)] + [lit(d) if c is None else _to_col(c) for d, c in defaults]
    return _call("mask", *args)


def format_number(col: ColumnOrName, d: int) -> Column:
    """The number formatted as ``#,###,###.##`` with ``d`` decimals (rounded half to even)."""
    return _call("format_number", _to_col(col), lit(d))


def to_base32(col: ColumnOrName) -> Column:
    """The bytes (or a string's UTF-8 bytes) as RFC 4648 base32 text."""
    return _fn("to_base32", col)


def from_base32(col: ColumnOrName) -> Column:
    """The bytes of base32 text (null where it is not base32)."""
    return _fn("from_base32", col)


def jaro_winkler_similarity(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The Jaro-Winkler similarity of two strings, from 0 to 1."""
    return _fn("jaro_winkler_similarity", left, right)


def sentences(
    string: ColumnOrName, language: ColumnOrName | None = None, country: ColumnOrName | None = None
) -> Column:
    """The text's sentences, each an array of its words."""
    args = [_to_col(string)]
    if language is not None or country is not None:
        args.append(lit("") if language is None else _to_col(language))
    if country is not None:
        args.append(_to_col(country))
    return _call("sentences", *args)


def to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """Text in a number ``format`` (``$99.99``, ``999,999S``) as a decimal;
    text that does not match is an error."""
    return _fn("to_number", col, format)


def try_to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002
    """As :func:`to_number`, null where the text does not match."""
    return _fn("try_to_number", col, format)
