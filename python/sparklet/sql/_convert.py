"""Conversions between Python data, pandas and Arrow tables."""

from __future__ import annotations

import datetime
import decimal
import sys
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    LongType,
    MapType,
    NullType,
    Row,
    StringType,
    StructField,
    StructType,
    TimestampType,
    from_arrow_schema,
)


def infer_type(value: Any) -> DataType:
    """Spark's type for a Python value (``int`` is ``bigint``, as in PySpark)."""
    if value is None:
        return NullType()
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, int):
        return LongType()
    if isinstance(value, float):
        return DoubleType()
    if isinstance(value, str):
        return StringType()
    if isinstance(value, datetime.datetime):
        return TimestampType()
    if isinstance(value, datetime.date):
        return DateType()
    if isinstance(value, decimal.Decimal):
        return DecimalType(38, 18)
    if isinstance(value, (bytes, bytearray)):
        return BinaryType()
    if isinstance(value, Row) and value.__fields__:
        return StructType([StructField(k, infer_type(v)) for k, v in zip(value.__fields__, value)])
    if isinstance(value, dict):
        items = [(k, v) for k, v in value.items() if v is not None]
        if not items:
            return MapType(StringType(), StringType())
        return MapType(_merged(infer_type(k) for k, _ in items), _merged(infer_type(v) for _, v in items))
    if isinstance(value, tuple):
        # a tuple (or a Row without names) is a struct of _1, _2, ..., as PySpark infers it
        return StructType([StructField(f"_{i + 1}", infer_type(v)) for i, v in enumerate(value)])
    if isinstance(value, list):
        return ArrayType(_merged(infer_type(v) for v in value if v is not None))
    raise PySparkTypeError(
        f"[CANNOT_INFER_TYPE_FOR_FIELD] Unable to infer the type of value {value!r} ({type(value).__name__}).",
        "CANNOT_INFER_TYPE_FOR_FIELD",
    )


def _merge(a: DataType, b: DataType) -> DataType:
    """The type values of types ``a`` and ``b`` both take, as PySpark merges
    inferred types: null takes the other, an atomic value and a string make
    a string, arrays, maps and structs merge element by element."""
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType) or a == b:
        return a
    if {type(a), type(b)} == {LongType, DoubleType}:
        return DoubleType()
    if isinstance(a, StringType) and _atomic(b) or isinstance(b, StringType) and _atomic(a):
        return StringType()
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return ArrayType(_merge(a.elementType, b.elementType))
    if isinstance(a, MapType) and isinstance(b, MapType):
        return MapType(_merge(a.keyType, b.keyType), _merge(a.valueType, b.valueType))
    if isinstance(a, StructType) and isinstance(b, StructType):
        theirs = {f.name: f.dataType for f in b.fields}
        fields = [StructField(f.name, _merge(f.dataType, theirs.pop(f.name, NullType()))) for f in a.fields]
        return StructType(fields + [StructField(n, t) for n, t in theirs.items()])
    return a


def _atomic(t: DataType) -> bool:
    return not isinstance(t, (ArrayType, MapType, StructType, NullType))


def _merged(types: Any) -> DataType:
    out: DataType = NullType()
    for t in types:
        out = _merge(out, t)
    return out


def _row_values(row: Any, names: list[str] | None) -> list[Any]:
    if isinstance(row, Row) and row.__fields__ and names is not None:
        return [row[n] if n in row.__fields__ else None for n in names]
    if isinstance(row, dict):
        return [row.get(n) for n in (names or list(row.keys()))]
    if isinstance(row, (list, tuple)):
        return list(row)
    return [row]


def _to_arrow_value(v: Any, t: DataType | None = None) -> Any:
    """``v`` as pyarrow takes it for a column of ``t``: a struct from a Row,
    a dict or a tuple/list by position (as PySpark takes them), a map from a
    dict, timestamps as UTC."""
    if v is None:
        return None
    if isinstance(t, StructType):
        if isinstance(v, Row) and v.__fields__:
            items = dict(zip(v.__fields__, v))
        elif isinstance(v, dict):
            items = v
        elif isinstance(v, (list, tuple)):
            items = dict(zip(t.names, v))
        else:
            return v
        return {f.name: _to_arrow_value(items.get(f.name), f.dataType) for f in t.fields}
    if isinstance(t, MapType) and isinstance(v, dict):
        return [(k, _to_arrow_value(x, t.valueType)) for k, x in v.items()]
    if isinstance(t, ArrayType) and isinstance(v, (list, tuple)):
        return [_to_arrow_value(x, t.elementType) for x in v]
    if isinstance(t, StringType) and not isinstance(v, str):
        # a value merged into a string column (`[1, "a"]`), as Spark writes it
        return str(v).lower() if isinstance(v, bool) else str(v)
    if isinstance(v, Row) and v.__fields__:
        return {k: _to_arrow_value(x) for k, x in zip(v.__fields__, v)}
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.UTC).replace(tzinfo=None)
    if isinstance(v, dict):
        return [(k, _to_arrow_value(x)) for k, x in v.items()]
    if isinstance(v, (list, tuple)) and not isinstance(v, Row):
        return [_to_arrow_value(x) for x in v]
    return v


def rows_to_table(data: Sequence[Any], schema: StructType | None, names: list[str] | None = None) -> pa.Table:
    """Build an Arrow table from rows (tuples, lists, Rows, dicts)."""
    rows = list(data)
    if schema is None:
        first = rows[0] if rows else None
        if names is None:
            if isinstance(first, Row) and first.__fields__:
                names = list(first.__fields__)
            elif isinstance(first, dict):
                names = sorted(first.keys())  # PySpark infers a dict's fields in key order
        width = len(names) if names else (len(_row_values(first, None)) if first is not None else 0)
        names = names or [f"_{i + 1}" for i in range(width)]
        types: list[DataType] = [NullType()] * len(names)
        for r in rows:
            for i, v in enumerate(_row_values(r, names)[: len(names)]):
                types[i] = _merge(types[i], infer_type(v))
        for n, t in zip(names, types):
            if isinstance(t, NullType):
                raise PySparkValueError(
                    f"[CANNOT_DETERMINE_TYPE] Some of types cannot be determined after inferring (column `{n}`).",
                    "CANNOT_DETERMINE_TYPE",
                )
        schema = StructType([StructField(n, t) for n, t in zip(names, types)])
    names = schema.names
    columns: list[list[Any]] = [[] for _ in names]
    for r in rows:
        values = _row_values(r, names)
        if len(values) != len(names):
            raise PySparkValueError(
                f"[LENGTH_SHOULD_BE_THE_SAME] Row {r!r} has {len(values)} fields but the schema has {len(names)}.",
                "LENGTH_SHOULD_BE_THE_SAME",
            )
        for i, (v, f) in enumerate(zip(values, schema.fields)):
            columns[i].append(_to_arrow_value(v, f.dataType))
    arrays = []
    for f, values in zip(schema.fields, columns):
        try:
            arrays.append(pa.array(values, type=f.dataType._to_arrow()))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as e:
            raise PySparkTypeError(
                f"[FIELD_DATA_TYPE_UNACCEPTABLE] field {f.name}: {f.dataType.simpleString()} "
                f"can not accept the given values: {e}",
                "FIELD_DATA_TYPE_UNACCEPTABLE",
            ) from e
    return pa.Table.from_arrays(arrays, schema=schema._to_arrow_schema())


def conform(table: pa.Table, schema: StructType | None) -> pa.Table:
    """Cast ``table`` to ``schema`` (by position, renaming to its names)."""
    if schema is None:
        return table
    target = schema._to_arrow_schema()
    if table.num_columns != len(target):
        raise PySparkValueError(
            f"[LENGTH_SHOULD_BE_THE_SAME] The data has {table.num_columns} columns but the schema has {len(target)}.",
            "LENGTH_SHOULD_BE_THE_SAME",
        )
    table = table.rename_columns(target.names)
    try:
        return table.cast(target)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
        raise PySparkTypeError(
            f"[FIELD_DATA_TYPE_UNACCEPTABLE] The data cannot be converted to the schema {schema.simpleString()}: {e}",
            "FIELD_DATA_TYPE_UNACCEPTABLE",
        ) from e


def to_table(data: Any, schema: StructType | None, names: list[str] | None = None) -> pa.Table:
    """Build an Arrow table from pandas, pyarrow or Python rows."""
    # a pandas DataFrame means pandas is imported: importing it here would
    # cost ~0.4 s the first time a foreachBatch callback wraps its Arrow batch
    # (imported, not read from sys.modules: another thread may be importing
    # it, and the import statement waits for that to finish)
    pd: Any = None
    if "pandas" in sys.modules:
        import pandas

        pd = pandas
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if isinstance(data, pa.Table):
        table = data
    elif pd is not None and isinstance(data, pd.DataFrame):
        table = pa.Table.from_pandas(data, preserve_index=False)
        if schema is None:
            # pandas datetimes are naive session-time values: mark them UTC
            fields = []
            for f in table.schema:
                t = f.type
                if pa.types.is_timestamp(t):
                    t = pa.timestamp("us", tz=t.tz or "UTC")
                elif pa.types.is_large_string(t) or pa.types.is_string_view(t):
                    t = pa.string()
                fields.append(pa.field(f.name, t, f.nullable))
            table = table.cast(pa.schema(fields))
    elif hasattr(data, "__arrow_c_stream__"):
        table = pa.table(data)
    elif isinstance(data, (list, tuple)):
        return rows_to_table(data, schema, names)
    elif hasattr(data, "__iter__") and not isinstance(data, (str, bytes, dict)):
        # any other iterable of rows (zip, a generator), as PySpark reads it
        return rows_to_table(list(data), schema, names)
    else:
        raise PySparkTypeError(
            f"[INVALID_TYPE] Cannot build a DataFrame from {type(data).__name__}; "
            "pass a list of rows, a pandas DataFrame or a pyarrow Table.",
            "INVALID_TYPE",
        )
    if names is not None and schema is None:
        table = table.rename_columns(names)
    return conform(table, schema)


def _naive(v: Any) -> Any:
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.UTC).replace(tzinfo=None)
    return v


def _py_value(v: Any, t: DataType) -> Any:
    if v is None:
        return None
    if isinstance(t, StructType):
        return Row._from_pairs(t.names, [_py_value(v.get(f.name), f.dataType) for f in t.fields])
    if isinstance(t, ArrayType):
        return [_py_value(x, t.elementType) for x in v]
    if isinstance(t, MapType):
        return {k: _py_value(x, t.valueType) for k, x in v}
    if isinstance(t, TimestampType):
        return _naive(v)
    return v


def _plain(t: pa.DataType) -> bool:
    """Whether ``to_pylist`` gives a column of ``t`` as ``collect()`` does
    (no zoned timestamps, structs or maps, which it gives tz-aware, as dicts,
    as pairs)."""
    if pa.types.is_timestamp(t):
        return t.tz is None and t.unit != "ns"  # naive datetimes as they are
    if pa.types.is_struct(t) or pa.types.is_map(t):
        return False
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _plain(t.value_type)
    return True


#: The numpy type of the values buffer of the Arrow types numpy's ``tolist``
#: gives as ``collect()`` does (many times faster than ``to_pylist``, a
#: scalar object a value); timestamps and booleans are read apart.
_BUFFER_DTYPES = {
    pa.int8(): "i1",
    pa.int16(): "i2",
    pa.int32(): "i4",
    pa.int64(): "i8",
    pa.uint8(): "u1",
    pa.uint16(): "u2",
    pa.uint32(): "u4",
    pa.uint64(): "u8",
    pa.float32(): "f4",
    pa.float64(): "f8",
    pa.date32(): "i4",
}


def _unpacked(bits: pa.Buffer, offset: int, n: int) -> Any:
    """``n`` bits of an Arrow bitmap from ``offset``, a numpy array of 0 and 1."""
    import numpy as np

    return np.unpackbits(np.frombuffer(bits, np.uint8), count=offset + n, bitorder="little")[offset:]


def _null_positions(arr: pa.Array) -> Any:
    """Where ``arr`` (with nulls) is null, from its validity bitmap."""
    import numpy as np

    return np.flatnonzero(_unpacked(arr.buffers()[0], arr.offset, len(arr)) == 0)


def _buffer_values(arr: pa.Array) -> list[Any] | None:
    """A fixed-width array's values read from its buffers by numpy, without
    copies (``to_numpy`` would import pandas, whose objects then slow every
    full collection of Python's garbage collector); None for other types."""
    import numpy as np

    t, n, offset = arr.type, len(arr), arr.offset
    if n == 0:
        return []  # its buffers may be absent
    if pa.types.is_timestamp(t) and t.unit != "ns":
        # any zone's instants as naive UTC datetimes, as collect() gives them
        values = np.frombuffer(arr.buffers()[1], f"datetime64[{t.unit}]", count=offset + n)[offset:]
    elif pa.types.is_boolean(t):
        values = _unpacked(arr.buffers()[1], offset, n).astype(bool)
    elif t in _BUFFER_DTYPES:
        values = np.frombuffer(arr.buffers()[1], _BUFFER_DTYPES[t], count=offset + n)[offset:]
        if pa.types.is_date32(t):
            values = values.astype("datetime64[D]")
    else:
        return None
    out: list[Any] = values.tolist()
    if arr.null_count:
        # a null's slot holds any value
        for i in _null_positions(arr):
            out[i] = None
    return out


def _struct_values(arr: pa.StructArray) -> list[Any]:
    """A struct array's values as Rows, field by field (``flatten`` carries
    the struct's nulls into its fields)."""
    names = tuple(f.name for f in arr.type)
    fields = [_array_values(f) for f in arr.flatten()]
    rows: list[Any] = (
        [Row._from_pairs(names, v) for v in zip(*fields)]
        if fields
        else [Row._from_pairs(names, ()) for _ in range(len(arr))]
    )
    if arr.null_count:
        for i in _null_positions(arr):
            rows[i] = None
    return rows


def _array_values(arr: pa.Array) -> list[Any]:
    if pa.types.is_struct(arr.type):
        return _struct_values(arr)
    fixed = _buffer_values(arr)
    if fixed is not None:
        return fixed
    values: list[Any] = arr.to_pylist()
    if _plain(arr.type):
        return values
    st = from_arrow_schema(pa.schema([pa.field("c", arr.type)])).fields[0].dataType
    return [_py_value(v, st) for v in values]


def column_values(column: Any) -> list[Any]:
    """A column's (``pa.Array`` or ``pa.ChunkedArray``) values as Python
    objects, as ``collect()`` gives them (naive UTC timestamps, structs as
    Rows, maps as dicts). A foreach sink and a Python UDF turn every row
    into Python objects, so this is their speed."""
    if isinstance(column, pa.Array):
        return _array_values(column)
    values: list[Any] = []
    for chunk in column.chunks:
        values.extend(_array_values(chunk))
    return values


def table_to_rows(table: pa.Table) -> list[Row]:
    """Rows as ``collect()`` returns them (timestamps naive, in UTC)."""
    names = tuple(table.schema.names)
    if not names:
        return [Row._from_pairs(names, ()) for _ in range(table.num_rows)]
    # column by column, then one tuple a row: a foreach sink turns every
    # row of a stream into a Row, so this is its speed
    cols = [column_values(table.column(i)) for i in range(table.num_columns)]
    return [Row._from_pairs(names, values) for values in zip(*cols)]


def table_to_pandas(table: pa.Table, time_zone: str = "UTC") -> Any:
    """A pandas DataFrame as PySpark's ``toPandas`` gives: naive timestamps in the session zone."""
    pdf = table.to_pandas()
    for f in table.schema:
        if pa.types.is_timestamp(f.type) and f.type.tz is not None:
            pdf[f.name] = pdf[f.name].dt.tz_convert(time_zone).dt.tz_localize(None).astype("datetime64[ns]")
    return pdf
