"""Spark's XML data source (built in since Spark 4.0): ``spark.read.xml``
and ``df.write.xml``, with the standard library's XML parser.

Rows are the elements named by ``rowTag``; attributes become fields named
with ``attributePrefix`` (``_``), an element's text beside attributes or
children becomes ``valueTag`` (``_VALUE``), repeated children an array and
nested elements a struct. Inference gives ``long``, ``double``,
``boolean``, ``timestamp`` or ``string`` per field (mixed numbers widen to
``double``, other mixes to ``string``), fields sorted by name as Spark's.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import uuid
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from sparklet.errors import AnalysisException
from sparklet.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DateType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame
    from sparklet.sql.session import SparkSession

__all__ = ["read_xml", "write_xml"]

_LONG = re.compile(r"[+-]?\d+")
_DOUBLE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(NaN|Infinity|INF)")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?")


class _Options:
    """The XML options a read or write takes (case-insensitive keys)."""

    def __init__(self, options: dict[str, Any], tag_required: bool) -> None:
        o = {k.lower(): v for k, v in options.items() if v is not None}
        self.row_tag = o.get("rowtag")
        if not self.row_tag and tag_required:
            raise AnalysisException(
                "[XML_ROW_TAG_MISSING] `rowTag` option is required for reading/writing files in XML format.",
                "XML_ROW_TAG_MISSING",
            )
        self.root_tag = o.get("roottag", "ROWS")
        self.prefix = o.get("attributeprefix", "_")
        self.value_tag = o.get("valuetag", "_VALUE")
        self.null_value = o.get("nullvalue")
        self.exclude_attributes = str(o.get("excludeattribute", "false")).lower() == "true"
        self.infer = str(o.get("inferschema", "true")).lower() == "true"
        self.declaration = o.get("declaration", 'version="1.0" encoding="UTF-8" standalone="yes"')
        self.tz: Any = None


# ---- reading ---------------------------------------------------------------
def _element_value(e: ET.Element, opts: _Options) -> Any:
    """An element as a scalar (its text) or a dict (attributes, children)."""
    fields: dict[str, Any] = {}
    if not opts.exclude_attributes:
        for k, v in e.attrib.items():
            fields[opts.prefix + k] = v
    for child in e:
        value = _element_value(child, opts)
        if child.tag in fields:
            prev = fields[child.tag]
            fields[child.tag] = (prev if isinstance(prev, list) else [prev]) + [value]
        else:
            fields[child.tag] = value
    text = (e.text or "").strip()
    if not fields:
        # an empty element is an empty string, as Spark reads it
        return None if text == opts.null_value else text
    if text:
        fields[opts.value_tag] = text
    return fields


def _rows_of(text: str, opts: _Options) -> list[dict[str, Any]]:
    root = ET.fromstring(text)
    # without a rowTag (texts of a DataFrame) each text's root is a row
    elements = [root] if root.tag == opts.row_tag or not opts.row_tag else list(root.iter(opts.row_tag))
    rows = []
    for e in elements:
        value = _element_value(e, opts)
        rows.append(value if isinstance(value, dict) else ({opts.value_tag: value} if value is not None else {}))
    return rows


def _scalar_type(v: str) -> DataType | None:
    if v == "":
        return None
    if v.lower() in ("true", "false"):
        return BooleanType()
    if _LONG.fullmatch(v) and -(2**63) <= int(v) < 2**63:
        return LongType()
    if _DOUBLE.fullmatch(v):
        return DoubleType()
    if _TIMESTAMP.fullmatch(v):
        return TimestampType()
    return StringType()


def _infer(v: Any) -> DataType | None:
    if v is None:
        return None
    if isinstance(v, list):
        element = None
        for x in v:
            element = _merge(element, _infer(x))
        return ArrayType(element or StringType())
    if isinstance(v, dict):
        return StructType([StructField(k, _infer(x) or StringType()) for k, x in sorted(v.items())])
    return _scalar_type(v)


def _merge(a: DataType | None, b: DataType | None) -> DataType | None:
    if a is None or b is None:
        return a or b
    if a == b:
        return a
    if isinstance(a, ArrayType) or isinstance(b, ArrayType):
        # a single element where others repeat: an array of both
        ea = a.elementType if isinstance(a, ArrayType) else a
        eb = b.elementType if isinstance(b, ArrayType) else b
        return ArrayType(_merge(ea, eb) or StringType())
    if isinstance(a, StructType) and isinstance(b, StructType):
        fields = {f.name: f.dataType for f in a.fields}
        for f in b.fields:
            fields[f.name] = _merge(fields.get(f.name), f.dataType) or StringType()
        return StructType([StructField(k, t) for k, t in sorted(fields.items())])
    if {type(a), type(b)} == {LongType, DoubleType}:
        return DoubleType()
    return StringType()


def _convert(v: Any, t: DataType) -> Any:
    if v is None:
        return None
    if isinstance(t, ArrayType):
        return [_convert(x, t.elementType) for x in (v if isinstance(v, list) else [v])]
    if isinstance(t, StructType):
        d = v if isinstance(v, dict) else {}
        return tuple(_convert(d.get(f.name), f.dataType) for f in t.fields)
    if isinstance(v, (dict, list)) or (v == "" and not isinstance(t, StringType)):
        return None
    try:
        if isinstance(t, BooleanType):
            return v.lower() == "true" if v.lower() in ("true", "false") else None
        if isinstance(t, LongType) or t.typeName() in ("integer", "short", "byte"):
            return int(v)
        if isinstance(t, DoubleType) or t.typeName() in ("float", "decimal"):
            return float(v.replace("INF", "inf").replace("Infinity", "inf"))
        if isinstance(t, TimestampType):
            return dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        if isinstance(t, DateType):
            return dt.date.fromisoformat(v)
    except ValueError:
        return None
    return v


def _texts(spark: "SparkSession", path: Any) -> list[str]:
    from sparklet.sql.dataframe import DataFrame

    if isinstance(path, DataFrame):
        return [r[0] for r in path.collect() if r[0] is not None]
    from sparklet.sql.readwriter import _data_files

    paths = [path] if isinstance(path, str) else list(path)
    for p in paths:
        if not os.path.exists(p):
            raise AnalysisException(
                f"[PATH_NOT_FOUND] Path does not exist: file:{os.path.abspath(p)}.", "PATH_NOT_FOUND"
            )
    from urllib.parse import unquote, urlparse

    local = [unquote(urlparse(u).path) for u in _data_files(paths)]
    # the largest first, as Spark reads a scan's files
    files = sorted(local, key=lambda f: (-os.path.getsize(f), f))
    out = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            out.append(fh.read())
    return out


def read_xml(spark: "SparkSession", path: Any, schema: StructType | None, options: dict[str, Any]) -> "DataFrame":
    """``spark.read.xml(path or a DataFrame of XML strings)``."""
    from sparklet.sql.dataframe import DataFrame

    opts = _Options(options, tag_required=not isinstance(path, DataFrame))
    rows: list[dict[str, Any]] = []
    for text in _texts(spark, path):
        rows.extend(_rows_of(text, opts))
    if schema is None:
        inferred: DataType | None = StructType([])
        for r in rows:
            inferred = _merge(inferred, _infer(r) if opts.infer else _as_strings(r))
        schema = inferred if isinstance(inferred, StructType) else StructType([])
    data = [tuple(_convert(r.get(f.name), f.dataType) for f in schema.fields) for r in rows]
    return spark.createDataFrame(data, schema)


def _as_strings(v: Any) -> DataType:
    if isinstance(v, dict):
        return StructType([StructField(k, _as_strings(x)) for k, x in sorted(v.items())])
    if isinstance(v, list):
        return ArrayType(StringType())
    return StringType()


# ---- writing ---------------------------------------------------------------
def _text(v: Any, tz: Any = None) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dt.datetime):
        # Spark's default timestampFormat, in the session time zone
        if v.tzinfo is None and tz is not None:
            v = v.replace(tzinfo=tz)
        text: str = v.isoformat(timespec="milliseconds")
        return text.replace("+00:00", "Z")
    return str(v)


def _write_value(out: list[str], tag: str, v: Any, opts: _Options, depth: int) -> None:
    pad = "    " * depth
    if v is None:
        if opts.null_value is not None:
            out.append(f"{pad}<{tag}>{_escape(opts.null_value)}</{tag}>")
        return
    if isinstance(v, list):
        for x in v:
            _write_value(out, tag, x, opts, depth)
        return
    if hasattr(v, "asDict"):
        v = v.asDict()
    if isinstance(v, dict):
        attrs = "".join(
            f' {k[len(opts.prefix) :]}="{_escape(_text(x, opts.tz))}"'
            for k, x in v.items()
            if k.startswith(opts.prefix) and k != opts.value_tag and x is not None
        )
        children = {k: x for k, x in v.items() if not k.startswith(opts.prefix) and k != opts.value_tag}
        value = v.get(opts.value_tag)
        if not children:
            body = "" if value is None else _escape(_text(value, opts.tz))
            out.append(f"{pad}<{tag}{attrs}>{body}</{tag}>" if body else f"{pad}<{tag}{attrs}/>")
            return
        out.append(f"{pad}<{tag}{attrs}>")
        if value is not None:
            out.append(f"{pad}    {_escape(_text(value, opts.tz))}")
        for k, x in children.items():
            _write_value(out, k, x, opts, depth + 1)
        out.append(f"{pad}</{tag}>")
        return
    out.append(f"{pad}<{tag}>{_escape(_text(v, opts.tz))}</{tag}>")


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write_xml(df: "DataFrame", path: str, mode: str, options: dict[str, Any]) -> None:
    """``df.write.xml(path)``: one file of the rows under ``rootTag``, Spark's
    save modes, ``_SUCCESS``."""
    import shutil
    from zoneinfo import ZoneInfo

    opts = _Options(options, tag_required=True)
    opts.tz = ZoneInfo(df.sparkSession.conf.get("spark.sql.session.timeZone", "UTC") or "UTC")
    if os.path.exists(path):
        if mode in ("error", "errorifexists", "default"):
            raise AnalysisException(
                f"[PATH_ALREADY_EXISTS] Path file:{os.path.abspath(path)} already exists. "
                'Set mode as "overwrite" to overwrite the existing path.',
                "PATH_ALREADY_EXISTS",
            )
        if mode == "ignore":
            return
        if mode == "overwrite":
            shutil.rmtree(path)
    os.makedirs(path, exist_ok=True)
    lines = [f"<?xml {opts.declaration}?>"] if opts.declaration else []
    lines.append(f"<{opts.root_tag}>")
    for row in df.collect():
        _write_value(lines, str(opts.row_tag), row.asDict(recursive=True), opts, 1)
    lines.append(f"</{opts.root_tag}>")
    name = os.path.join(path, f"part-00000-{uuid.uuid4()}-c000.xml")
    with open(name, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    open(os.path.join(path, "_SUCCESS"), "w").close()
