"""Batch reads: json, csv, parquet, text, with Spark's parse modes."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import write_json
from sparklet.errors import AnalysisException
from sparklet.sql import Row, SparkSession
from sparklet.sql import functions as F


def test_json_with_and_without_schema(spark: SparkSession, tmp_path: Path) -> None:
    write_json(tmp_path, "a.json", [{"b": "x", "a": 1}, {"a": 2}])
    inferred = spark.read.json(str(tmp_path))
    assert inferred.dtypes == [("a", "bigint"), ("b", "string")]  # sorted by name, as Spark infers
    typed = spark.read.schema("a INT, b STRING").json(str(tmp_path))
    assert typed.orderBy("a").collect() == [Row(a=1, b="x"), Row(a=2, b=None)]


def test_json_parse_modes(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text('{"a": 1}\n{broken\n{"a": 3}\n')
    schema = "a INT, _corrupt_record STRING"
    rows = spark.read.schema(schema).json(str(tmp_path)).collect()
    assert rows == [
        Row(a=1, _corrupt_record=None),
        Row(a=None, _corrupt_record="{broken"),
        Row(a=3, _corrupt_record=None),
    ]
    dropped = spark.read.schema("a INT").option("mode", "DROPMALFORMED").json(str(tmp_path))
    assert [r.a for r in dropped.collect()] == [1, 3]
    # PySpark raises the JVM's SparkException as a Py4JJavaError
    with pytest.raises(Exception, match="FAILFAST") as err:
        spark.read.schema("a INT").option("mode", "FAILFAST").json(str(tmp_path)).collect()
    assert "m.json" in str(err.value)


def test_json_multiline(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "doc.json").write_text('[\n {"a": 1},\n {"a": 2}\n]\n')
    df = spark.read.option("multiLine", True).schema("a INT").json(str(tmp_path))
    assert [r.a for r in df.collect()] == [1, 2]


def test_csv_header_infer_and_sep(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("name|score\nann|1.5\nbob|2\n")
    as_strings = spark.read.option("header", True).option("sep", "|").csv(str(tmp_path))
    assert as_strings.dtypes == [("name", "string"), ("score", "string")]
    inferred = spark.read.csv(str(tmp_path), header=True, sep="|", inferSchema=True)
    assert inferred.dtypes == [("name", "string"), ("score", "double")]
    assert inferred.collect()[1] == Row(name="bob", score=2.0)
    no_header = spark.read.csv(str(tmp_path), sep="|")
    assert no_header.columns == ["_c0", "_c1"] and no_header.count() == 3


def test_parquet_and_text(spark: SparkSession, tmp_path: Path) -> None:
    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "t.parquet")
    assert spark.read.parquet(str(tmp_path)).count() == 3
    assert spark.read.format("parquet").load(str(tmp_path / "t.parquet")).collect()[0] == Row(x=1)
    (tmp_path / "lines.txt").write_text("one\ntwo\n")
    text = spark.read.text(str(tmp_path / "lines.txt"))
    assert text.columns == ["value"] and [r.value for r in text.collect()] == ["one", "two"]


def test_missing_path_unknown_format_bad_option(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND.*nowhere"):
        spark.read.json(str(tmp_path / "nowhere"))
    # PySpark raises the JVM's SparkClassNotFoundException as a Py4JJavaError
    with pytest.raises(Exception, match="DATA_SOURCE_NOT_FOUND.*avro2"):
        spark.read.format("avro2").load(str(tmp_path))
    # an unknown parse mode is PERMISSIVE (Spark logs a warning)
    (tmp_path / "x.json").write_text('{"a": 1}\n{bad\n')
    rows = spark.read.option("mode", "SOMETIMES").schema("a INT").json(str(tmp_path)).collect()
    assert sorted(rows, key=lambda r: r.a is None) == [Row(a=1), Row(a=None)]


@pytest.mark.parametrize(
    ("schema", "column", "found"),
    [("x BIGINT", "x", "DOUBLE"), ("s BIGINT", "s", "BINARY"), ("x FLOAT", "x", "DOUBLE"), ("i STRING", "i", "INT32")],
)
def test_a_parquet_column_read_as_another_type_is_an_error_naming_file_and_column(
    spark: SparkSession, tmp_path: Path, schema: str, column: str, found: str
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"x": pa.array([1.5]), "s": pa.array(["a"]), "i": pa.array([1], pa.int32())})
    pq.write_table(table, tmp_path / "a.parquet")
    message = (
        rf"PARQUET_COLUMN_DATA_TYPE_MISMATCH.*a\.parquet.*Parquet column \[{column}\].*actual Parquet type {found}"
    )
    with pytest.raises(Exception, match=message):  # noqa: B017 - PySpark raises a Py4J error here
        spark.read.schema(schema).parquet(str(tmp_path)).collect()
    q = spark.readStream.schema(schema).parquet(str(tmp_path)).writeStream.format("noop").start()
    with pytest.raises(Exception, match=message):  # noqa: B017
        q.processAllAvailable()


def test_parquet_columns_widen_as_spark_reads_them(spark: SparkSession, tmp_path: Path) -> None:
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({"i": pa.array([1], pa.int32()), "f": pa.array([1.5], pa.float32())}), tmp_path / "a.parquet"
    )
    row = spark.read.schema("i BIGINT, f DOUBLE").parquet(str(tmp_path)).collect()[0]
    assert (row.i, row.f) == (1, 1.5)
    assert spark.read.schema("i DECIMAL(12,2)").parquet(str(tmp_path)).collect()[0].i == decimal.Decimal("1.00")


def test_a_csv_quote_left_open_ends_with_its_line(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text('id,name\n1,"ann\n2,bob\n3,"c,d"\n4,eve,extra\n')
    schema = "id INT, name STRING, _corrupt_record STRING"
    rows = spark.read.schema(schema).option("header", True).csv(str(tmp_path)).collect()
    assert [tuple(r) for r in rows] == [
        (1, "ann", None),
        (2, "bob", None),
        (3, "c,d", None),
        (4, "eve", "4,eve,extra"),  # too many fields: the line as written
    ]
    q = spark.readStream.schema(schema).option("header", True).csv(str(tmp_path)).writeStream.format("memory")
    q = q.queryName("open_quote").start()
    q.processAllAvailable()
    q.stop()
    assert sorted(tuple(r) for r in spark.table("open_quote").collect()) == [tuple(r) for r in rows]


@pytest.mark.parametrize("multi_line", [False, True])
def test_csv_quotes_in_odd_places_read_as_spark_reads_them(
    spark: SparkSession, tmp_path: Path, multi_line: bool
) -> None:
    # (line, value of its first field): Spark's parser keeps a quote that does
    # not close a field, and everything after it up to the separator
    cases = [
        ('"a,b"c,1', '"a,b"c'),
        ('"a\\"b"x,2', '"a"b"x'),
        ('"ab" ,3', "ab"),
        ('x"y"z,4', 'x"y"z'),
        ('"""",5', '""'),
        ('"a""",6', 'a""'),
        ('"d""e",7', '"d""e"'),
        ('  "ab",8', '  "ab"'),
        ('"a\\\\b",9', "a\\b"),
    ]
    (tmp_path / "q.csv").write_text("".join(f"{line}\n" for line, _ in cases))
    read = spark.read.schema("s STRING, n INT").option("multiLine", multi_line).csv(str(tmp_path))
    assert sorted((r.n, r.s) for r in read.collect()) == [(i + 1, want) for i, (_, want) in enumerate(cases)]
    stream = spark.readStream.schema("s STRING, n INT").option("multiLine", multi_line).csv(str(tmp_path))
    q = stream.writeStream.format("memory").queryName(f"csv_quotes_{multi_line}").start()
    q.processAllAvailable()
    q.stop()
    assert sorted(tuple(r) for r in spark.table(f"csv_quotes_{multi_line}").collect()) == sorted(
        tuple(r) for r in read.collect()
    )


def test_dates_without_a_pattern_read_as_spark_casts_them(spark: SparkSession, tmp_path: Path) -> None:
    # a year alone, a year and month, and a date followed by anything after a blank or T
    cases = [
        ("2024-01-01 00:00:20NaN", dt.date(2024, 1, 1)),
        ("2024-01-01Tjunk", dt.date(2024, 1, 1)),
        ("2024-01-01x", None),
        ("2024-1-2", dt.date(2024, 1, 2)),
        ("2024", dt.date(2024, 1, 1)),
        ("2024-01", dt.date(2024, 1, 1)),
        ("2024 x", None),
        ("+2024-01-01", dt.date(2024, 1, 1)),
    ]
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "d.csv").write_text("".join(f"{i},{text}\n" for i, (text, _) in enumerate(cases)))
    (tmp_path / "json").mkdir()
    lines = [json.dumps({"i": i, "d": text}) for i, (text, _) in enumerate(cases)]
    (tmp_path / "json" / "d.json").write_text("\n".join(lines) + "\n")
    want = [(i, d) for i, (_, d) in enumerate(cases)]
    for fmt in ("csv", "json"):
        rows = spark.read.schema("i INT, d DATE").format(fmt).load(str(tmp_path / fmt)).collect()
        assert sorted((r.i, r.d) for r in rows) == want, fmt
    texts = spark.createDataFrame([(t,) for t, _ in cases], "t STRING").selectExpr("try_cast(t AS DATE) AS d")
    assert [r.d for r in texts.collect()] == [d for _, d in cases]


def test_csv_numbers_and_booleans_read_as_spark_reads_them(spark: SparkSession, tmp_path: Path) -> None:
    # integers, decimals and booleans take no blanks; doubles do (Java's
    # parseDouble), with Inf and a d/f suffix; a decimal drops grouping commas
    texts = [" 2", "2 ", "1,000", "+5", "1.5d", "Inf", "-Inf", "TRUE", " true", "12.345", "-0.005"]
    (tmp_path / "n.csv").write_text("".join(f'"{t}"\n' for t in texts))
    inf, D = float("inf"), decimal.Decimal
    expected = {
        "INT": [None, None, None, 5, None, None, None, None, None, None, None],
        "DOUBLE": [2.0, 2.0, None, 5.0, 1.5, inf, -inf, None, None, 12.345, -0.005],
        "BOOLEAN": [None, None, None, None, None, None, None, True, None, None, None],
        "DECIMAL(10,2)": [None, None, D("1000.00"), D("5.00"), None, None, None, None, None, D("12.35"), D("-0.01")],
    }
    for type_name, want in expected.items():
        rows = spark.read.schema(f"v {type_name}, i INT").csv(str(tmp_path)).collect()
        assert [r.v for r in rows] == want, type_name


def test_a_csv_line_of_an_empty_quoted_field_is_a_record(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text('""\n\n   \n1,"\n')
    rows = spark.read.schema("a STRING, b STRING, _corrupt_record STRING").csv(str(tmp_path)).collect()
    # blank lines are skipped; a record ending in an opening quote reads the quote
    assert sorted((tuple(r) for r in rows), key=repr) == sorted([(None, None, '""'), ("1", '"', None)], key=repr)


def test_a_csv_record_with_too_many_fields_keeps_its_line(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text('id,name\n1,"a, b"\n5,x,y\n6,r\n')
    rows = spark.read.schema("id INT, name STRING, _corrupt_record STRING").option("header", True).csv(str(tmp_path))
    assert [tuple(r) for r in rows.collect()] == [(1, "a, b", None), (5, "x", "5,x,y"), (6, "r", None)]


def test_csv_null_value_reads_as_null(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("1,NA\n2,x\n3,\n")
    df = spark.read.csv(str(tmp_path), schema="id INT, s STRING", nullValue="NA")
    assert sorted(tuple(r) for r in df.collect()) == [(1, None), (2, "x"), (3, None)]


def test_input_files_are_the_data_files_read(spark: SparkSession, tmp_path: Path) -> None:
    from urllib.parse import urlparse

    spark.createDataFrame([(1,), (2,)], "id INT").coalesce(1).write.json(str(tmp_path / "a"))
    spark.createDataFrame([(3,)], "id INT").coalesce(1).write.json(str(tmp_path / "b"))
    a, b = spark.read.json(str(tmp_path / "a")), spark.read.json(str(tmp_path / "b"))
    files = a.filter("id > 0").union(b).inputFiles()
    assert len(files) == 2 and all(urlparse(f).scheme == "file" for f in files)
    assert sorted(Path(urlparse(f).path).parent.name for f in files) == ["a", "b"]  # no _SUCCESS


def test_json_of_a_dataframe_of_texts(spark: SparkSession) -> None:
    texts = spark.createDataFrame([('{"name": "Alice", "age": 25}',), ('{"name": "Bob"}',)], schema="value STRING")
    df = spark.read.json(texts)
    assert df.columns == ["age", "name"]
    assert sorted((r.name, r.age) for r in df.collect()) == [("Alice", 25), ("Bob", None)]
    typed = spark.read.json(texts, schema="name STRING")
    assert [r.name for r in typed.collect()] == ["Alice", "Bob"]
    assert df.inputFiles() == []


def test_parquet_merge_schema(spark: SparkSession, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    spark.createDataFrame([("Alice", 1)], "name string, age int").write.parquet(str(one))
    spark.createDataFrame([("Bob", 80)], "name string, height int").write.parquet(str(two))
    merged = spark.read.option("mergeSchema", "true").parquet(str(one), str(two))
    assert sorted(merged.columns) == ["age", "height", "name"]
    got = sorted(tuple(r) for r in merged.select("name", "age", "height").collect())
    assert got == [("Alice", 1, None), ("Bob", None, 80)]
    # without it, one file's schema: the other file's own columns are not read
    assert len(spark.read.parquet(str(one), str(two)).columns) == 2


def test_xml_rows_attributes_and_inferred_types(spark: SparkSession) -> None:
    texts = spark.createDataFrame(
        [
            (
                '<book id="b1"><title lang="en">T</title><tag>a</tag><tag>b</tag><price>1.5</price>'
                "<n>3</n><ok>true</ok><e></e></book>",
            ),
            ('<book id="2"><price>2</price></book>',),
        ],
        "value STRING",
    )
    df = spark.read.option("rowTag", "book").xml(texts)
    assert df.dtypes == [
        ("_id", "string"),
        ("e", "string"),
        ("n", "bigint"),
        ("ok", "boolean"),
        ("price", "double"),
        ("tag", "array<string>"),
        ("title", "struct<_VALUE:string,_lang:string>"),
    ]
    first, second = df.collect()
    assert first == Row(_id="b1", e="", n=3, ok=True, price=1.5, tag=["a", "b"], title=Row(_VALUE="T", _lang="en"))
    assert (second._id, second.price, second.tag) == ("2", 2.0, None)
    # a text's root is its row when no rowTag is given
    assert spark.read.xml(texts.limit(1).select(F.lit("<r><x>1</x></r>"))).collect() == [Row(x=1)]


def test_xml_written_and_read_back(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame(
        [(1, Row(a=1, b="x"), [1, 2], None, dt.datetime(2024, 1, 2, 3, 4, 5))],
        "id LONG, s STRUCT<a: LONG, b: STRING>, l ARRAY<LONG>, n STRING, ts TIMESTAMP",
    )
    out = tmp_path / "xml"
    df.write.mode("overwrite").xml(str(out), rowTag="r")
    text = "".join(p.read_text() for p in out.iterdir() if p.name.endswith(".xml") and "<l>" in p.read_text())
    assert text.startswith('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ROWS>\n    <r>\n')
    assert "        <l>1</l>\n        <l>2</l>\n" in text and "<n>" not in text
    back = spark.read.option("rowTag", "r").format("xml").load(str(out))
    assert back.columns == ["id", "l", "s", "ts"]
    assert back.select("id", "l", "s.b").collect() == [Row(id=1, l=[1, 2], b="x")]
    with pytest.raises(AnalysisException, match="PATH_ALREADY_EXISTS"):
        df.write.xml(str(out), rowTag="r")
    with pytest.raises(AnalysisException, match="XML_ROW_TAG_MISSING"):
        spark.read.xml(str(out)).collect()
    with pytest.raises(AnalysisException, match="XML_ROW_TAG_MISSING"):
        df.write.mode("overwrite").xml(str(out))
