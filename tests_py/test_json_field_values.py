"""How the JSON reader turns each value into its column's type, in
PERMISSIVE and DROPMALFORMED mode, batch and streaming alike: Spark 4's
rules (a value that cannot be converted is null, marks the record malformed
and leaves the record's other fields as read). These run on both engines;
the expected rows are what PySpark 4.3 gives."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from pathlib import Path

import pytest

from sparklet.sql import SparkSession

SCHEMA = (
    "id BIGINT, s STRING, d DOUBLE, dec DECIMAL(10,2), ts TIMESTAMP, dt DATE, b BOOLEAN, "
    "arr ARRAY<INT>, st STRUCT<x: STRING>, f FLOAT, i INT, bin BINARY, _corrupt_record STRING"
)

# (line, the fields it gives, whether the record is malformed)
CASES = [
    ('{"id": 1, "s": "plain"}', {"id": 1, "s": "plain"}, False),
    ('{"id": 2, "s": 123}', {"id": 2, "s": "123"}, False),
    ('{"id": 3, "s": {"a": 1,  "b": [1, 2]}}', {"id": 3, "s": '{"a": 1,  "b": [1, 2]}'}, False),
    ('{"id": 4, "s": [1, "x"]}', {"id": 4, "s": '[1, "x"]'}, False),
    ('{"id": 5, "s": true}', {"id": 5, "s": "true"}, False),
    ('{"id": 6, "s": 1.50}', {"id": 6, "s": "1.50"}, False),
    ('{"id": 7, "d": NaN}', {"id": 7, "d": math.nan}, False),
    ('{"id": 8, "d": -Infinity}', {"id": 8, "d": -math.inf}, False),
    ('{"id": 9, "d": "Infinity"}', {"id": 9, "d": math.inf}, False),
    ('{"id": 10, "d": "1.5"}', {"id": 10}, True),
    ('{"id": 11, "d": 1}', {"id": 11, "d": 1.0}, False),
    ('{"id": "three", "s": "c"}', {"s": "c"}, True),
    ('{"id": 1.5, "s": "f"}', {"s": "f"}, True),
    ('{"id": "12", "s": "g"}', {"s": "g"}, True),
    ('{"id": 14, "dec": 12345678.999}', {"id": 14, "dec": Decimal("12345679.00")}, False),
    ('{"id": 15, "dec": 0.005}', {"id": 15, "dec": Decimal("0.01")}, False),
    ('{"id": 16, "dec": 2.675}', {"id": 16, "dec": Decimal("2.68")}, False),
    ('{"id": 17, "dec": "3.14159"}', {"id": 17, "dec": Decimal("3.14")}, False),
    ('{"id": 18, "dec": 123456789012.5}', {"id": 18}, True),
    ('{"id": 19, "ts": "9999-12-31T00:00:00"}', {"id": 19, "ts": dt.datetime(9999, 12, 31)}, False),
    ('{"id": 20, "ts": 5}', {"id": 20, "ts": dt.datetime(1970, 1, 1, 0, 0, 5)}, False),
    ('{"id": 21, "ts": 5.5}', {"id": 21}, True),
    ('{"id": 22, "dt": "9999-12-31"}', {"id": 22, "dt": dt.date(9999, 12, 31)}, False),
    ('{"id": 23, "dt": 5}', {"id": 23}, True),
    ('{"id": 24, "b": "true"}', {"id": 24}, True),
    ('{"id": 25, "arr": [1, "x", 3]}', {"id": 25}, True),
    ('{"id": 26, "st": {"x": "y"}}', {"id": 26, "st": ("y",)}, False),
    ('{"id": 27, "st": 5}', {"id": 27}, True),
    ("{'id': 28, 's': 'single'}", {"id": 28, "s": "single"}, False),
    ('{"id": 29, "f": 3.4e39}', {"id": 29, "f": math.inf}, False),
    ('{"id": 30, "i": 3000000000}', {"id": 30}, True),
    ('{"id": 31, "i": ""}', {"id": 31}, True),
    ('{"id": 32, "s": ""}', {"id": 32, "s": ""}, False),
    ('{"id": 33, "bin": "aGVsbG8="}', {"id": 33, "bin": b"hello"}, False),
    ('[{"id": 34}, {"id": 35}]', [{"id": 34}, {"id": 35}], False),
    # found by tools/differential.py
    ('{"id": 37, "s": "t"} trailing', {"id": 37, "s": "t"}, False),  # what follows the first value is not read
    ('{"id": 38, "bin": Infinity}', {"id": 38}, True),  # a bare infinity is a number, not a string
    ('{"id": 39, "s": NaN}', {"id": 39, "s": "NaN"}, False),
    ('{"id": 40, "ts": -9223372036854775808}', {"id": 40, "ts": dt.datetime(1970, 1, 1)}, False),  # Spark's overflow
    ('{"id": 41, "dt": "12"}', {"id": 41, "dt": dt.date(1970, 1, 13)}, False),  # days since the epoch
    ('{"id": 42, "ts": "12"}', {"id": 42}, True),
    ('{"id": 43, "s": "kept?", "bin": "x"}', {}, True),  # bad base64 fails the whole record
    ("36", {}, True),
]


def expected(mode: str) -> list[dict]:
    rows = []
    for line, fields, bad in CASES:
        if bad and mode == "DROPMALFORMED":
            continue
        for f in fields if isinstance(fields, list) else [fields]:
            rows.append({**f, "_corrupt_record": line} if bad else dict(f))
    return rows


def plain(row) -> dict:  # noqa: ANN001
    out = {}
    for k, v in row.asDict().items():
        if v is None:
            continue
        if k == "ts":
            v = v.replace(tzinfo=None) if v.tzinfo is None else v.astimezone(dt.UTC).replace(tzinfo=None)
        out[k] = tuple(v) if k == "st" else v
    return out


def same(got: list[dict], want: list[dict]) -> bool:
    def key(r: dict) -> str:
        return repr(sorted((k, "nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()))

    return sorted(map(key, got)) == sorted(map(key, want))


@pytest.fixture
def utc(spark: SparkSession):  # noqa: ANN201
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "cases.json").write_text("".join(line + "\n" for line, _, _ in CASES))
    return tmp_path / "in"


@pytest.mark.usefixtures("utc")
@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_batch_reads_convert_each_field_as_spark(spark: SparkSession, folder: Path, mode: str) -> None:
    rows = spark.read.schema(SCHEMA).option("mode", mode).json(str(folder)).collect()
    assert same([plain(r) for r in rows], expected(mode))


@pytest.mark.usefixtures("utc")
@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_streams_convert_each_field_as_spark(spark: SparkSession, folder: Path, mode: str) -> None:
    name = f"json_values_{mode.lower()}"
    q = (
        spark.readStream.schema(SCHEMA)
        .option("mode", mode)
        .json(str(folder))
        .writeStream.format("memory")
        .queryName(name)
        .start()
    )
    q.processAllAvailable()
    q.stop()
    assert same([plain(r) for r in spark.sql(f"SELECT * FROM {name}").collect()], expected(mode))


def test_lines_ended_by_a_carriage_return_are_records(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "cr.json").write_bytes(b'{"id": 1}\r{"id": 2}\r\n{"id": 3}\n')
    rows = spark.read.schema("id BIGINT, _corrupt_record STRING").json(str(tmp_path / "cr.json")).collect()
    assert [(r.id, r._corrupt_record) for r in rows] == [(1, None), (2, None), (3, None)]


def test_single_quotes_and_bare_nan_can_be_refused(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{\'id\': 1}\n{"id": 2, "d": NaN}\n')
    schema = "id BIGINT, d DOUBLE, _corrupt_record STRING"
    strict = spark.read.schema(schema).options(allowSingleQuotes=False, allowNonNumericNumbers=False)
    assert [r._corrupt_record is not None for r in strict.json(str(tmp_path)).collect()] == [True, True]
    lenient = spark.read.schema(schema).json(str(tmp_path)).collect()
    assert [r.id for r in lenient] == [1, 2] and math.isnan(lenient[1].d)


# a binary field's string: its bytes, a failed field, or (base64 cut short
# inside a group) a failed record, as Jackson's decoder reads them
BASE64 = [
    ("aGVsbG8=", b"hello", "field"),
    ("", b"", "field"),
    ("true", b"\xb6\xbb\x9e", "field"),
    ("12", None, "field"),
    ("a b", None, "field"),
    ("a=", None, "field"),
    ("aGVsbG8", None, "field"),
    ("x", None, "record"),
    ("abcde", None, "record"),
    ("YQ=", None, "record"),
]


@pytest.mark.parametrize(("text", "value", "fails"), BASE64, ids=[t or "empty" for t, _, _ in BASE64])
def test_a_binary_field_reads_base64_as_spark_does(
    spark: SparkSession, tmp_path: Path, text: str, value: bytes | None, fails: str
) -> None:
    import json

    (tmp_path / "a.json").write_text(json.dumps({"i": 1, "b": text, "j": 2}) + "\n")
    (row,) = spark.read.schema("i INT, b BINARY, j INT, _corrupt_record STRING").json(str(tmp_path)).collect()
    assert row.b == value
    assert (row.i, row.j) == ((None, None) if fails == "record" else (1, 2))
    assert (row._corrupt_record is not None) == (value is None)
