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
    """The MD5 digest, as 32 hex digits."""
    return _fn("md5", col)


def sha(col: ColumnOrName) -> Column:
    """The SHA-1 digest, as 40 hex digits."""
    return _fn("sha", col)


def sha1(col: ColumnOrName) -> Column:
    """The SHA-1 digest, as 40 hex digits."""
    return _fn("sha1", col)


def sha2(col: ColumnOrName, numBits: int) -> Column:
    """The SHA-2 digest of ``numBits`` (224, 256, 384, 512; 0 is 256) as hex digits."""
    return _call("sha2", _to_col(col), lit(numBits))


def crc32(col: ColumnOrName) -> Column:
    """The CRC-32 checksum, as a bigint."""
    return _fn("crc32", col)


def hash(*cols: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """Spark's Murmur3 hash of the columns (seed 42), as an int."""
    return _fn("hash", *cols)


def xxhash64(*cols: ColumnOrName) -> Column:
    """Spark's xxHash64 of the columns (seed 42), as a bigint."""
    return _fn("xxhash64", *cols)


def to_json(col: ColumnOrName, options: dict[str, Any] | None = None) -> Column:
    """A struct, array or map as a JSON string."""
    return _fn("to_json", col)


def from_json(col: ColumnOrName, schema: DataType | str, options: dict[str, Any] | None = None) -> Column:
    """Parse a JSON string column into a struct, a map or an array (``schema``
    a type or DDL string; null when malformed)."""
    target = _parse_datatype_string(schema) if isinstance(schema, str) else schema
    if not isinstance(target, (MapType, ArrayType)):
        target = to_struct_type(schema)
    return Column(_native.from_json(_to_col(col)._expr, target._to_arrow()))


def get_json_object(col: ColumnOrName, path: str) -> Column:
    """Extract a value from a JSON string by path (``$.a.b[0]``)."""
    return _call("get_json_object", _to_col(col), lit(path))


def json_tuple(col: ColumnOrName, *fields: str) -> Column:
    """The top-level ``fields`` of a JSON string, one column each (``c0``, ``c1``, ...)."""
    values = _call("json_tuple", _to_col(col), *[lit(f) for f in fields])
    return Column(_native.explode(_call("array", values)._expr, "inline"))


def ifnull(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where it is null."""
    return _fn("ifnull", col1, col2)


def nvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where it is null."""
    return _fn("nvl", col1, col2)


def nvl2(col1: ColumnOrName, col2: ColumnOrName, col3: ColumnOrName) -> Column:
    """``col2`` where ``col1`` is not null, else ``col3``."""
    return _fn("nvl2", col1, col2, col3)


def nullif(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """Null where ``col1`` equals ``col2``, else ``col1``."""
    return _fn("nullif", col1, col2)


def nullifzero(col: ColumnOrName) -> Column:
    """Null where ``col`` is 0, else ``col``."""
    return _fn("nullifzero", col)


def zeroifnull(col: ColumnOrName) -> Column:
    """0 where ``col`` is null, else ``col``."""
    return _fn("zeroifnull", col)


def equal_null(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1 = col2``, with two nulls equal (never null)."""
    return _fn("equal_null", col1, col2)


def typeof(col: ColumnOrName) -> Column:
    """The Spark type name of the value (``int``, ``string``, ...)."""
    return _fn("typeof", col)


def bitmap_bit_position(col: ColumnOrName) -> Column:
    """The bit position of ``col`` within its bitmap bucket."""
    return _fn("bitmap_bit_position", col)


def bitmap_bucket_number(col: ColumnOrName) -> Column:
    """The bitmap bucket number of ``col``."""
    return _fn("bitmap_bucket_number", col)


def bitmap_count(col: ColumnOrName) -> Column:
    """The number of bits set in bitmap ``col``."""
    return _fn("bitmap_count", col)


def json_array_length(col: ColumnOrName) -> Column:
    """The number of elements of a JSON array (null for other text)."""
    return _fn("json_array_length", col)


def json_object_keys(col: ColumnOrName) -> Column:
    """The keys of a JSON object, in order (null for other text)."""
    return _fn("json_object_keys", col)


def validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string, which is valid UTF-8 (as every string of sparklet's is)."""
    return _fn("validate_utf8", str)


def try_validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string if it is valid UTF-8 (as every string of sparklet's is), else null."""
    return _fn("try_validate_utf8", str)


def collation(col: ColumnOrName) -> Column:
    """The collation of a string column: Spark's default, ``SYSTEM.BUILTIN.UTF8_BINARY``."""
    return _fn("collation", col)


def assert_true(col: ColumnOrName, errMsg: Column | str | None = None) -> Column:
    """Null where ``col`` is true; an error (``errMsg``) where it is not."""
    if errMsg is None:
        return _fn("assert_true", col)
    return _call("assert_true", _to_col(col), errMsg if isinstance(errMsg, Column) else lit(errMsg))


def raise_error(errMsg: Column | str) -> Column:
    """An error with message ``errMsg`` where the column is evaluated."""
    return _call("raise_error", errMsg if isinstance(errMsg, Column) else lit(errMsg))


def call_udf(udfName: str, *cols: ColumnOrName) -> Column:
    """The user-defined function registered as ``udfName`` over ``cols``."""
    from sparklet.sql.functions._core import call_function

    return call_function(udfName, *cols)


def xpath(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The values of the nodes the XPath ``path`` selects in ``xml`` (an element's is null)."""
    return _fn("xpath", xml, path)


def xpath_boolean(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """Whether the XPath ``path`` is true of ``xml`` (a node set: whether it is non-empty)."""
    return _fn("xpath_boolean", xml, path)


def xpath_double(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a double (NaN where it is not a number)."""
    return _fn("xpath_double", xml, path)


def xpath_float(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a float."""
    return _fn("xpath_float", xml, path)


def xpath_int(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as an int (truncated; 0 where not a number)."""
    return _fn("xpath_int", xml, path)


def xpath_long(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a bigint (truncated; 0 where not a number)."""
    return _fn("xpath_long", xml, path)


def xpath_number(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a double (NaN where it is not a number)."""
    return _fn("xpath_number", xml, path)


def xpath_short(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The XPath ``path`` over ``xml`` as a smallint (truncated; 0 where not a number)."""
    return _fn("xpath_short", xml, path)


def xpath_string(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The string value of the XPath ``path`` over ``xml`` (of its first node)."""
    return _fn("xpath_string", xml, path)


def hmac(key: ColumnOrName, message: ColumnOrName, algorithm: ColumnOrName | None = None) -> Column:
    """The HMAC of ``message`` with ``key`` (``SHA-256`` by default; also
    ``SHA-1``, ``SHA-224``, ``SHA-384``, ``SHA-512``, ``MD5``)."""
    if algorithm is None:
        return _fn("hmac", key, message)
    return _fn("hmac", key, message, algorithm)


def _path(path: Column | str) -> Column:
    return path if isinstance(path, Column) else lit(path)


def parse_json(col: ColumnOrName) -> Column:
    """A variant of JSON text (malformed text is an error)."""
    return _fn("parse_json", col)


def try_parse_json(col: ColumnOrName) -> Column:
    """A variant of JSON text, null where it is malformed."""
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
    convert is an error)."""
    return _variant_get("variant_get", v, path, targetType, False)


def try_variant_get(v: ColumnOrName, path: Column | str, targetType: str) -> Column:
    """As :func:`variant_get`, null where the value does not convert."""
    return _variant_get("try_variant_get", v, path, targetType, True)


def is_variant_null(v: ColumnOrName) -> Column:
    """Whether the variant is JSON ``null``."""
    return _fn("is_variant_null", v)


def is_valid_variant(v: ColumnOrName) -> Column:
    """Whether the value is a well-formed variant."""
    return _fn("is_valid_variant", v)


def schema_of_variant(v: ColumnOrName) -> Column:
    """The variant's type, as Spark writes it (``OBJECT<a: BIGINT>``)."""
    return _fn("schema_of_variant", v)


def to_variant_object(col: ColumnOrName) -> Column:
    """A struct, map or array as a variant object."""
    return _fn("to_variant_object", col)


def variant_set(v: ColumnOrName, path: Column | str, value: ColumnOrName, create_if_missing: bool = True) -> Column:
    """The variant with ``value`` at ``path`` (a missing key added unless
    ``create_if_missing`` is false)."""
    return _call("variant_set", _to_col(v), _path(path), _to_col(value), lit(create_if_missing))


def try_variant_set(v: ColumnOrName, path: Column | str, value: ColumnOrName, create_if_missing: bool = True) -> Column:
    """As :func:`variant_set`, null where it fails."""
    return _call("try_variant_set", _to_col(v), _path(path), _to_col(value), lit(create_if_missing))


def variant_insert(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """The variant with ``value`` added at ``path`` (an existing key is an error)."""
    return _call("variant_insert", _to_col(v), _path(path), _to_col(value))


def try_variant_insert(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """As :func:`variant_insert`, null where it fails."""
    return _call("try_variant_insert", _to_col(v), _path(path), _to_col(value))


def variant_delete(v: ColumnOrName, *paths: Column | str) -> Column:
    """The variant without the values at ``paths``."""
    return _call("variant_delete", _to_col(v), *[_path(p) for p in paths])


def variant_array_append(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """The variant with ``value`` appended to the array at ``path``."""
    return _call("variant_array_append", _to_col(v), _path(path), _to_col(value))


def try_variant_array_append(v: ColumnOrName, path: Column | str, value: ColumnOrName) -> Column:
    """As :func:`variant_array_append`, null where it fails."""
    return _call("try_variant_array_append", _to_col(v), _path(path), _to_col(value))


def variant_strip_nulls(v: ColumnOrName, include_arrays: bool = True) -> Column:
    """The variant without its null object fields (and array elements,
    unless ``include_arrays`` is false)."""
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
    ``mode`` GCM (default), CBC or ECB; a random IV unless ``iv`` is given."""
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("aes_encrypt", *args, _or_lit(iv, ""), _or_lit(aad, ""))


def aes_decrypt(
    input: ColumnOrName,  # noqa: A002 - PySpark's name
    key: ColumnOrName,
    mode: ColumnOrName | None = None,
    padding: ColumnOrName | None = None,
    aad: ColumnOrName | None = None,
) -> Column:
    """``input`` (as :func:`aes_encrypt` wrote it) decrypted; an error when it does not decrypt."""
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("aes_decrypt", *args, _or_lit(aad, ""))


def try_aes_decrypt(
    input: ColumnOrName,  # noqa: A002 - PySpark's name
    key: ColumnOrName,
    mode: ColumnOrName | None = None,
    padding: ColumnOrName | None = None,
    aad: ColumnOrName | None = None,
) -> Column:
    """As :func:`aes_decrypt`, null where the input does not decrypt."""
    args = [_to_col(input), _to_col(key), _or_lit(mode, "GCM"), _or_lit(padding, "DEFAULT")]
    return _call("try_aes_decrypt", *args, _or_lit(aad, ""))


def schema_of_json(json: Column | str, options: dict[str, Any] | None = None) -> Column:
    """The type Spark infers for a JSON text (``STRUCT<a: BIGINT>``); the
    option ``allowUnquotedFieldNames`` reads unquoted field names."""
    text = json if isinstance(json, Column) else lit(json)
    unquoted = str((options or {}).get("allowUnquotedFieldNames", "false")).lower() == "true"
    if unquoted:
        return _call("schema_of_json", text, lit(True))
    return _call("schema_of_json", text)


def spark_partition_id() -> Column:
    """The index of the partition a row is in (see ``DataFrame.repartition``)."""
    return _call("spark_partition_id")
