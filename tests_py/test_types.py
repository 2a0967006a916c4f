"""Types: DDL strings, Arrow mapping, Row."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparklet.errors import ParseException
from sparklet.sql.types import (
    ArrayType,
    DecimalType,
    IntegerType,
    LongType,
    MapType,
    Row,
    StringType,
    StructField,
    StructType,
    TimestampType,
    _parse_datatype_string,
)


def test_ddl_field_list_and_nested_types() -> None:
    st = _parse_datatype_string(
        "id INT, tags array<string>, m map<string,bigint>, p struct<x:double,y:double>, d decimal(10,2) NOT NULL"
    )
    assert st.names == ["id", "tags", "m", "p", "d"]
    assert st["id"].dataType == IntegerType()
    assert st["tags"].dataType == ArrayType(StringType())
    assert st["m"].dataType == MapType(StringType(), LongType())
    assert st["p"].dataType.simpleString() == "struct<x:double,y:double>"
    assert st["d"].dataType == DecimalType(10, 2) and st["d"].nullable is False
    assert _parse_datatype_string("a: int, b: string").names == ["a", "b"]
    assert _parse_datatype_string("bigint") == LongType()


def test_bad_ddl_names_the_problem() -> None:
    with pytest.raises(ParseException) as err:
        _parse_datatype_string("id integr")
    assert err.value.getCondition() == "UNSUPPORTED_DATATYPE"
    assert 'Unsupported data type "INTEGR"' in str(err.value) and "(line 1, pos 3)" in str(err.value)


@pytest.mark.sparklet_only(
    reason="sparklet.sql.types.from_arrow_schema (PySpark's is internal, in pyspark.sql.pandas.types)"
)
def test_arrow_round_trip() -> None:
    from sparklet.sql.types import from_arrow_schema

    st = StructType([StructField("ts", TimestampType()), StructField("n", LongType(), False)])
    schema = st._to_arrow_schema()
    assert schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert from_arrow_schema(schema) == st
    assert st.add("s", "string").names == ["ts", "n", "s"]


def test_row_behaves_like_pyspark_row() -> None:
    r = Row(name="Alice", age=11)
    assert r.name == "Alice" and r["age"] == 11 and r[0] == "Alice"
    assert r.asDict() == {"name": "Alice", "age": 11}
    assert repr(r) == "Row(name='Alice', age=11)"
    assert r == ("Alice", 11)
    assert "name" in r
