"""Spark SQL data types (as :mod:`pyspark.sql.types`), mapped to Arrow.

Every type converts to and from a :mod:`pyarrow` type; ``TimestampType`` is
``timestamp[us, tz=UTC]`` and ``TimestampNTZType`` is ``timestamp[us]``.
DDL strings such as ``"id INT, ts TIMESTAMP"`` parse into a
:class:`StructType`.

Examples
--------
>>> from sparklet.sql.types import StructType, StructField, LongType, StringType
>>> schema = StructType([StructField("id", LongType()), StructField("name", StringType())])
>>> df = spark.createDataFrame([(1, "a")], schema)
>>> df.printSchema()
root
 |-- id: long (nullable = true)
 |-- name: string (nullable = true)
<BLANKLINE>
>>> df.schema.simpleString()
'struct<id:bigint,name:string>'
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn, Self

import pyarrow as pa

from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql import _remote

__all__ = [
    "DataType",
    "NumericType",
    "IntegralType",
    "FractionalType",
    "NullType",
    "StringType",
    "BinaryType",
    "BooleanType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "FloatType",
    "DoubleType",
    "DecimalType",
    "TimeType",
    "CalendarIntervalType",
    "VariantType",
    "DayTimeIntervalType",
    "YearMonthIntervalType",
    "DateType",
    "TimestampType",
    "TimestampNTZType",
    "ArrayType",
    "MapType",
    "StructField",
    "StructType",
    "Row",
]


class DataType:
    """Base class of data types.

    Examples
    --------
    >>> from sparklet.sql.types import IntegerType, DataType
    >>> isinstance(IntegerType(), DataType)
    True
    >>> IntegerType() == IntegerType()
    True
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:  # noqa: D102
        # with a Spark Connect session from SparkSession.builder.remote(),
        # PySpark's type of the same name (see sparklet.sql._remote)
        if _remote.active():
            args = tuple(_remote.pyspark_type(a) for a in args)
            kwargs = {k: _remote.pyspark_type(v) for k, v in kwargs.items()}
            # typed as this class: the two have the same methods
            remote: Self = getattr(importlib.import_module("pyspark.sql.types"), cls.__name__)(*args, **kwargs)
            return remote
        return super().__new__(cls)

    def simpleString(self) -> str:
        """Return the short SQL name, e.g. ``int``.

        Returns
        -------
        str
            the type as DDL writes it

        Examples
        --------
        >>> from sparklet.sql.types import IntegerType
        >>> IntegerType().simpleString()
        'int'
        """
        return self.typeName()

    @classmethod
    def typeName(cls) -> str:
        """Return the type's name, e.g. ``integer``.

        Returns
        -------
        str
            the type's name as Spark's JSON schema writes it

        Examples
        --------
        >>> from sparklet.sql.types import IntegerType
        >>> IntegerType.typeName()
        'integer'
        """
        return cls.__name__[: -len("Type")].lower()

    def _to_arrow(self) -> pa.DataType:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(repr(self))


class NumericType(DataType):
    """Base class of the numeric types.

    Examples
    --------
    >>> from sparklet.sql.types import NumericType, IntegerType
    >>> isinstance(IntegerType(), NumericType)
    True
    """


class IntegralType(NumericType):
    """Base class of the integer types.

    Examples
    --------
    >>> from sparklet.sql.types import IntegralType, LongType
    >>> isinstance(LongType(), IntegralType)
    True
    """


class FractionalType(NumericType):
    """Base class of the floating and decimal types.

    Examples
    --------
    >>> from sparklet.sql.types import FractionalType, DoubleType
    >>> isinstance(DoubleType(), FractionalType)
    True
    """


class NullType(DataType):
    """The type of ``None``.

    Examples
    --------
    >>> from sparklet.sql.types import NullType
    >>> NullType().simpleString(), NullType().typeName()
    ('void', 'void')
    """

    @classmethod
    def typeName(cls) -> str:
        """Return ``void``, Spark's name.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import NullType
        >>> NullType().typeName()
        'void'
        """
        return "void"

    def simpleString(self) -> str:
        """Return ``void``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import NullType
        >>> NullType().simpleString()
        'void'
        """
        return "void"

    def _to_arrow(self) -> pa.DataType:
        return pa.null()


class StringType(DataType):
    """UTF-8 strings.

    Examples
    --------
    >>> from sparklet.sql.types import StringType
    >>> StringType().simpleString(), StringType().typeName()
    ('string', 'string')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.string()


class BinaryType(DataType):
    """Byte strings.

    Examples
    --------
    >>> from sparklet.sql.types import BinaryType
    >>> BinaryType().simpleString(), BinaryType().typeName()
    ('binary', 'binary')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.binary()


class BooleanType(DataType):
    """Booleans.

    Examples
    --------
    >>> from sparklet.sql.types import BooleanType
    >>> BooleanType().simpleString(), BooleanType().typeName()
    ('boolean', 'boolean')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.bool_()


class ByteType(IntegralType):
    """8-bit integers.

    Examples
    --------
    >>> from sparklet.sql.types import ByteType
    >>> ByteType().simpleString(), ByteType().typeName()
    ('tinyint', 'byte')
    """

    def simpleString(self) -> str:
        """Return ``tinyint``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import ByteType
        >>> ByteType().simpleString()
        'tinyint'
        """
        return "tinyint"

    def _to_arrow(self) -> pa.DataType:
        return pa.int8()


class ShortType(IntegralType):
    """16-bit integers.

    Examples
    --------
    >>> from sparklet.sql.types import ShortType
    >>> ShortType().simpleString(), ShortType().typeName()
    ('smallint', 'short')
    """

    def simpleString(self) -> str:
        """Return ``smallint``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import ShortType
        >>> ShortType().simpleString()
        'smallint'
        """
        return "smallint"

    def _to_arrow(self) -> pa.DataType:
        return pa.int16()


class IntegerType(IntegralType):
    """32-bit integers.

    Examples
    --------
    >>> from sparklet.sql.types import IntegerType
    >>> IntegerType().simpleString(), IntegerType().typeName()
    ('int', 'integer')
    """

    def simpleString(self) -> str:
        """Return ``int``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import IntegerType
        >>> IntegerType().simpleString()
        'int'
        """
        return "int"

    def _to_arrow(self) -> pa.DataType:
        return pa.int32()


class LongType(IntegralType):
    """64-bit integers.

    Examples
    --------
    >>> from sparklet.sql.types import LongType
    >>> LongType().simpleString(), LongType().typeName()
    ('bigint', 'long')
    """

    def simpleString(self) -> str:
        """Return ``bigint``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import LongType
        >>> LongType().simpleString()
        'bigint'
        """
        return "bigint"

    def _to_arrow(self) -> pa.DataType:
        return pa.int64()


class FloatType(FractionalType):
    """32-bit floats.

    Examples
    --------
    >>> from sparklet.sql.types import FloatType
    >>> FloatType().simpleString(), FloatType().typeName()
    ('float', 'float')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.float32()


class DoubleType(FractionalType):
    """64-bit floats.

    Examples
    --------
    >>> from sparklet.sql.types import DoubleType
    >>> DoubleType().simpleString(), DoubleType().typeName()
    ('double', 'double')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.float64()


class DecimalType(FractionalType):
    """Fixed-point decimals (default ``decimal(10,0)``).

    Examples
    --------
    >>> from sparklet.sql.types import DecimalType
    >>> DecimalType(10, 2).simpleString(), DecimalType(10, 2).typeName()
    ('decimal(10,2)', 'decimal')
    """

    def __init__(self, precision: int = 10, scale: int = 0) -> None:
        self.precision = precision
        self.scale = scale

    def simpleString(self) -> str:
        """Return ``decimal(p,s)``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import DecimalType
        >>> DecimalType(10, 2).simpleString()
        'decimal(10,2)'
        """
        return f"decimal({self.precision},{self.scale})"

    def __repr__(self) -> str:
        return f"DecimalType({self.precision}, {self.scale})"

    def _to_arrow(self) -> pa.DataType:
        return pa.decimal128(self.precision, self.scale)


class VariantType(DataType):
    """Semi-structured values (``parse_json``); sparklet holds one as its
    JSON text.

    Examples
    --------
    >>> from sparklet.sql.types import VariantType
    >>> VariantType().simpleString(), VariantType().typeName()
    ('variant', 'variant')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.string()


class CalendarIntervalType(DataType):
    """Intervals of months, days and microseconds (``INTERVAL 1 YEAR 2 DAYS``
    in sparklet's SQL, ``make_interval``).

    Examples
    --------
    >>> from sparklet.sql.types import CalendarIntervalType
    >>> CalendarIntervalType().simpleString(), CalendarIntervalType().typeName()
    ('interval', 'interval')
    """

    def simpleString(self) -> str:
        """Return ``interval``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import CalendarIntervalType
        >>> CalendarIntervalType().simpleString()
        'interval'
        """
        return "interval"

    @classmethod
    def typeName(cls) -> str:
        """Return ``interval``, as PySpark's.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import CalendarIntervalType
        >>> CalendarIntervalType().typeName()
        'interval'
        """
        return "interval"

    def _to_arrow(self) -> pa.DataType:
        return pa.month_day_nano_interval()


class DayTimeIntervalType(DataType):
    """Intervals of days to seconds (microseconds); fields ``DAY`` (0),
    ``HOUR`` (1), ``MINUTE`` (2), ``SECOND`` (3).

    Examples
    --------
    >>> from sparklet.sql.types import DayTimeIntervalType
    >>> DayTimeIntervalType().simpleString(), DayTimeIntervalType().typeName()
    ('interval day to second', 'daytimeinterval')
    """

    DAY, HOUR, MINUTE, SECOND = 0, 1, 2, 3
    _FIELDS = ("day", "hour", "minute", "second")

    def __init__(self, startField: int = 0, endField: int | None = None) -> None:
        self.startField = startField
        self.endField = 3 if endField is None else endField

    def simpleString(self) -> str:
        """Return e.g. ``interval day to second``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import DayTimeIntervalType
        >>> DayTimeIntervalType().simpleString()
        'interval day to second'
        """
        start, end = self._FIELDS[self.startField], self._FIELDS[self.endField]
        return f"interval {start}" if start == end else f"interval {start} to {end}"

    def __repr__(self) -> str:
        return f"DayTimeIntervalType({self.startField}, {self.endField})"

    def _to_arrow(self) -> pa.DataType:
        return pa.duration("us")


class YearMonthIntervalType(DataType):
    """Intervals of years and months; fields ``YEAR`` (0), ``MONTH`` (1).

    Examples
    --------
    >>> from sparklet.sql.types import YearMonthIntervalType
    >>> YearMonthIntervalType().simpleString(), YearMonthIntervalType().typeName()
    ('interval year to month', 'yearmonthinterval')
    """

    YEAR, MONTH = 0, 1
    _FIELDS = ("year", "month")

    def __init__(self, startField: int = 0, endField: int | None = None) -> None:
        self.startField = startField
        self.endField = 1 if endField is None else endField

    def simpleString(self) -> str:
        """Return e.g. ``interval year to month``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import YearMonthIntervalType
        >>> YearMonthIntervalType().simpleString()
        'interval year to month'
        """
        start, end = self._FIELDS[self.startField], self._FIELDS[self.endField]
        return f"interval {start}" if start == end else f"interval {start} to {end}"

    def __repr__(self) -> str:
        return f"YearMonthIntervalType({self.startField}, {self.endField})"

    def _to_arrow(self) -> pa.DataType:
        return pa.month_day_nano_interval()


class DateType(DataType):
    """Calendar dates.

    Examples
    --------
    >>> from sparklet.sql.types import DateType
    >>> DateType().simpleString(), DateType().typeName()
    ('date', 'date')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.date32()


class TimestampType(DataType):
    """Instants (microseconds), shown in the session time zone.

    Examples
    --------
    >>> from sparklet.sql.types import TimestampType
    >>> TimestampType().simpleString(), TimestampType().typeName()
    ('timestamp', 'timestamp')
    """

    def _to_arrow(self) -> pa.DataType:
        return pa.timestamp("us", tz="UTC")


class TimestampNTZType(DataType):
    """Timestamps without time zone (microseconds).

    Examples
    --------
    >>> from sparklet.sql.types import TimestampNTZType
    >>> TimestampNTZType().simpleString(), TimestampNTZType().typeName()
    ('timestamp_ntz', 'timestamp_ntz')
    """

    def simpleString(self) -> str:
        """Return ``timestamp_ntz``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import TimestampNTZType
        >>> TimestampNTZType().simpleString()
        'timestamp_ntz'
        """
        return "timestamp_ntz"

    @classmethod
    def typeName(cls) -> str:
        """Return ``timestamp_ntz``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import TimestampNTZType
        >>> TimestampNTZType().typeName()
        'timestamp_ntz'
        """
        return "timestamp_ntz"

    def _to_arrow(self) -> pa.DataType:
        return pa.timestamp("us")


class TimeType(DataType):
    """Times of day (microseconds; ``precision`` digits of a second kept,
    6 by default). PySpark 4.3 takes them with
    ``spark.sql.timeType.enabled``; sparklet always does.

    Examples
    --------
    >>> from sparklet.sql.types import TimeType
    >>> TimeType().simpleString(), TimeType().typeName()
    ('time(6)', 'time')
    """

    def __init__(self, precision: int = 6) -> None:
        self.precision = precision

    def simpleString(self) -> str:
        """Return ``time(p)``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import TimeType
        >>> TimeType().simpleString()
        'time(6)'
        """
        return f"time({self.precision})"

    def __repr__(self) -> str:
        return f"TimeType({self.precision})"

    def _to_arrow(self) -> pa.DataType:
        return pa.time64("us")


class ArrayType(DataType):
    """Arrays of ``elementType``.

    Examples
    --------
    >>> from sparklet.sql.types import ArrayType, StringType
    >>> ArrayType(StringType()).simpleString(), ArrayType(StringType()).typeName()
    ('array<string>', 'array')
    """

    def __init__(self, elementType: DataType, containsNull: bool = True) -> None:
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self) -> str:
        """Return ``array<...>``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import ArrayType, StringType
        >>> ArrayType(StringType()).simpleString()
        'array<string>'
        """
        return f"array<{self.elementType.simpleString()}>"

    def __repr__(self) -> str:
        return f"ArrayType({self.elementType!r}, {self.containsNull})"

    def _to_arrow(self) -> pa.DataType:
        return pa.list_(pa.field("item", self.elementType._to_arrow(), self.containsNull))


class MapType(DataType):
    """Maps from ``keyType`` to ``valueType``.

    Examples
    --------
    >>> from sparklet.sql.types import MapType, StringType, LongType
    >>> MapType(StringType(), LongType()).simpleString(), MapType(StringType(), LongType()).typeName()
    ('map<string,bigint>', 'map')
    """

    def __init__(self, keyType: DataType, valueType: DataType, valueContainsNull: bool = True) -> None:
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self) -> str:
        """Return ``map<k,v>``.

        Returns
        -------
        str
            the type's name in DDL (``simpleString``) or JSON (``typeName``)

        Examples
        --------
        >>> from sparklet.sql.types import MapType, StringType, LongType
        >>> MapType(StringType(), LongType()).simpleString()
        'map<string,bigint>'
        """
        return f"map<{self.keyType.simpleString()},{self.valueType.simpleString()}>"

    def __repr__(self) -> str:
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"

    def _to_arrow(self) -> pa.DataType:
        return pa.map_(self.keyType._to_arrow(), self.valueType._to_arrow())


class StructField(DataType):
    """A named, typed field of a :class:`StructType`.

    Examples
    --------
    >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
    >>> f = StructField("id", LongType(), False)
    >>> f.name, f.dataType, f.nullable
    ('id', LongType(), False)
    """

    def __init__(
        self,
        name: str,
        dataType: DataType,
        nullable: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(dataType, DataType):
            raise not_expected_type("dataType", "DataType", dataType)
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:
        """Return ``name:type``.

        Returns
        -------
        str
            ``name:type``

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
        >>> StructField("id", LongType()).simpleString()
        'id:bigint'
        """
        return f"{self.name}:{self.dataType.simpleString()}"

    def __repr__(self) -> str:
        return f"StructField('{self.name}', {self.dataType!r}, {self.nullable})"

    def _to_arrow_field(self) -> pa.Field:
        metadata = {_METADATA_KEY: json.dumps(self.metadata)} if self.metadata else None
        return pa.field(self.name, self.dataType._to_arrow(), self.nullable, metadata=metadata)

    def _to_arrow(self) -> pa.DataType:
        return self.dataType._to_arrow()


class StructType(DataType):
    """A row type: an ordered list of :class:`StructField`.

    Examples
    --------
    >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
    >>> schema = StructType([StructField("id", LongType()), StructField("name", StringType())])
    >>> spark.createDataFrame([(1, 'a')], schema).schema == schema
    True
    """

    def __init__(self, fields: list[StructField] | None = None) -> None:
        self.fields: list[StructField] = list(fields or [])

    def add(
        self,
        field: str | StructField,
        data_type: str | DataType | None = None,
        nullable: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> "StructType":
        """Append a field (by StructField, or by name and type) and return self.

        Parameters
        ----------
        field : str or StructField
            the field, or its name
        data_type : DataType or str, optional
            its type (a DDL string or a DataType) when ``field`` is a name
        nullable : bool, default True
            whether it may be null
        metadata : dict, optional
            its metadata

        Returns
        -------
        StructType
            this schema, with the field added

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
        >>> StructType().add("id", LongType(), False).add("name", "string").simpleString()
        'struct<id:bigint,name:string>'
        """
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if data_type is None:
                raise PySparkValueError("[ARGUMENT_REQUIRED] Argument `data_type` is required.", "ARGUMENT_REQUIRED")
            dt = _parse_datatype_string(data_type) if isinstance(data_type, str) else data_type
            self.fields.append(StructField(field, dt, nullable, metadata))
        return self

    @property
    def names(self) -> list[str]:
        """Return the field names.

        Returns
        -------
        list of str
            the fields' names, in order

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
        >>> StructType().add("id", "long").add("name", "string").names
        ['id', 'name']
        """
        return [f.name for f in self.fields]

    def fieldNames(self) -> list[str]:
        """Return the field names.

        Returns
        -------
        list of str
            the fields' names, in order

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
        >>> StructType().add("id", "long").add("name", "string").fieldNames()
        ['id', 'name']
        """
        return self.names

    def __iter__(self) -> Iterator[StructField]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, key: str | int) -> StructField:
        if isinstance(key, int):
            return self.fields[key]
        for f in self.fields:
            if f.name == key:
                return f
        raise KeyError(f"No StructField named {key}")

    def simpleString(self) -> str:
        """Return ``struct<a:int,...>``.

        Returns
        -------
        str
            ``struct<name:type,...>``

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType
        >>> StructType().add("id", "long").add("name", "string").simpleString()
        'struct<id:bigint,name:string>'
        """
        return "struct<" + ",".join(f.simpleString() for f in self.fields) + ">"

    def __repr__(self) -> str:
        return "StructType([" + ", ".join(repr(f) for f in self.fields) + "])"

    def _to_arrow(self) -> pa.DataType:
        return pa.struct([f._to_arrow_field() for f in self.fields])

    def _to_arrow_schema(self) -> pa.Schema:
        return pa.schema([f._to_arrow_field() for f in self.fields])

    def treeString(self, level: int | None = None) -> str:
        """Return the schema as ``printSchema`` shows it (nested fields down
        to ``level``, all when None).

        Parameters
        ----------
        level : int, optional
            how many levels of nested fields to show (default: all)

        Returns
        -------
        str
            the tree ``printSchema`` prints

        Examples
        --------
        >>> from sparklet.sql.types import StructField, StructType, StringType, LongType, ArrayType
        >>> print(StructType().add("id", "long", False).add("tags", ArrayType(StringType())).treeString())
        root
         |-- id: long (nullable = false)
         |-- tags: array (nullable = true)
         |    |-- element: string (containsNull = true)
        <BLANKLINE>
        """
        lines = ["root"]

        def walk(dt: DataType, prefix: str) -> None:
            if level is not None and level > 0 and prefix.count("|") >= level:
                return
            if isinstance(dt, StructType):
                for f in dt.fields:
                    lines.append(
                        f"{prefix}|-- {f.name}: {_tree_type(f.dataType)} (nullable = {str(f.nullable).lower()})"
                    )
                    walk(f.dataType, prefix + "|    ")
            elif isinstance(dt, ArrayType):
                lines.append(
                    f"{prefix}|-- element: {_tree_type(dt.elementType)} (containsNull = {str(dt.containsNull).lower()})"
                )
                walk(dt.elementType, prefix + "|    ")

        walk(self, " ")
        return "\n".join(lines) + "\n"


def _tree_type(dt: DataType) -> str:
    if isinstance(dt, (StructType, ArrayType, MapType)):
        return dt.typeName()
    return dt.simpleString() if isinstance(dt, (DecimalType, TimeType)) else dt.typeName()


def from_arrow_type(t: pa.DataType) -> DataType:
    """Return the Spark type of Arrow type ``t``."""
    if pa.types.is_null(t):
        return NullType()
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return StringType()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return BinaryType()
    if pa.types.is_boolean(t):
        return BooleanType()
    if t == pa.int8():
        return ByteType()
    if t in (pa.int16(), pa.uint8()):
        return ShortType()
    if t in (pa.int32(), pa.uint16()):
        return IntegerType()
    if pa.types.is_integer(t):
        return LongType()
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return FloatType()
    if pa.types.is_float64(t):
        return DoubleType()
    if pa.types.is_decimal(t):
        return DecimalType(t.precision, t.scale)
    if pa.types.is_date(t):
        return DateType()
    if pa.types.is_timestamp(t):
        return TimestampType() if t.tz is not None else TimestampNTZType()
    if pa.types.is_time(t):
        return TimeType()
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return ArrayType(from_arrow_type(t.value_type), t.value_field.nullable)
    if pa.types.is_map(t):
        return MapType(from_arrow_type(t.key_type), from_arrow_type(t.item_type))
    if pa.types.is_struct(t):
        return StructType([_struct_field(f) for f in t])
    if pa.types.is_dictionary(t):
        return from_arrow_type(t.value_type)
    if pa.types.is_interval(t):
        return CalendarIntervalType()
    if pa.types.is_duration(t):
        return DayTimeIntervalType()
    raise PySparkTypeError(f"[UNSUPPORTED_DATA_TYPE] Unsupported Arrow type {t}.", "UNSUPPORTED_DATA_TYPE")


def from_arrow_schema(schema: pa.Schema) -> StructType:
    """Return the :class:`StructType` of an Arrow schema."""
    return StructType([_struct_field(f) for f in schema])


#: The Arrow field metadata key holding a Spark field's metadata (JSON).
_METADATA_KEY = "sparklet.metadata"


def _struct_field(f: pa.Field) -> StructField:
    """The :class:`StructField` of an Arrow field, its Spark metadata included."""
    raw = (f.metadata or {}).get(_METADATA_KEY.encode())
    return StructField(f.name, _field_type(f), f.nullable, json.loads(raw) if raw else None)


def _field_type(f: pa.Field) -> DataType:
    """A field's Spark type: a string field marked as a variant is one."""
    if f.metadata and f.metadata.get(b"sparklet.variant") is not None:
        return VariantType()
    return from_arrow_type(f.type)


_SIMPLE: dict[str, DataType] = {
    "string": StringType(),
    "varchar": StringType(),
    "char": StringType(),
    "binary": BinaryType(),
    "boolean": BooleanType(),
    "bool": BooleanType(),
    "tinyint": ByteType(),
    "byte": ByteType(),
    "smallint": ShortType(),
    "short": ShortType(),
    "int": IntegerType(),
    "integer": IntegerType(),
    "bigint": LongType(),
    "long": LongType(),
    "float": FloatType(),
    "real": FloatType(),
    "double": DoubleType(),
    "date": DateType(),
    "timestamp": TimestampType(),
    "timestamp_ltz": TimestampType(),
    "timestamp_ntz": TimestampNTZType(),
    "void": NullType(),
    "null": NullType(),
}


class _DDLParser:
    """Recursive-descent parser for Spark DDL type strings."""

    _TOKEN = re.compile(r"\s*(`[^`]*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:])")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        self.starts: list[int] = []  # where each token starts in the text
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = self._TOKEN.match(text, pos)
            if not m:
                self._fail(f"unexpected character {text[pos:].strip()[0]!r}")
            self.tokens.append(m.group(1))
            self.starts.append(m.start(1))
            pos = m.end()
        self.i = 0

    def _fail(self, why: str) -> NoReturn:
        raise PySparkValueError(
            f"[PARSE_SYNTAX_ERROR] Cannot parse the data type {self.text!r}: {why}.", "PARSE_SYNTAX_ERROR"
        )

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None:
            self._fail("unexpected end of input")
        assert tok is not None
        if expected is not None and tok.lower() != expected:
            self._fail(f"expected {expected!r}, got {tok!r}")
        self.i += 1
        return tok

    def data_type(self) -> DataType:
        name = self.take().lower()
        if name == "array":
            self.take("<")
            elem = self.data_type()
            self.take(">")
            return ArrayType(elem)
        if name == "map":
            self.take("<")
            k = self.data_type()
            self.take(",")
            v = self.data_type()
            self.take(">")
            return MapType(k, v)
        if name == "struct":
            self.take("<")
            fields = []
            while self.peek() != ">":
                fname = self.take().strip("`")
                if self.peek() == ":":
                    self.take(":")
                fields.append(StructField(fname, self.data_type()))
                if self.peek() == ",":
                    self.take(",")
            self.take(">")
            return StructType(fields)
        if name in ("decimal", "dec", "numeric"):
            if self.peek() == "(":
                self.take("(")
                p = int(self.take())
                s = 0
                if self.peek() == ",":
                    self.take(",")
                    s = int(self.take())
                self.take(")")
                return DecimalType(p, s)
            return DecimalType()
        if name in ("varchar", "char") and self.peek() == "(":
            self.take("(")
            self.take()
            self.take(")")
        if name not in _SIMPLE:
            from sparklet.errors import ParseException

            # Spark's ParseException: the type, and where it stands
            at = self.starts[self.i - 1] if self.i else 0
            raise ParseException(
                f'[UNSUPPORTED_DATATYPE] Unsupported data type "{name.upper()}". (line 1, pos {at})\n\n'
                f"== SQL ==\n{self.text}\n{'-' * at}^^^",
                "UNSUPPORTED_DATATYPE",
            )
        return _SIMPLE[name]

    def fields(self) -> StructType:
        out = []
        while self.peek() is not None:
            fname = self.take().strip("`")
            if self.peek() == ":":
                self.take(":")
            dt = self.data_type()
            nullable = True
            if self.peek() is not None and self.peek().lower() == "not":  # type: ignore[union-attr]
                self.take()
                self.take("null")
                nullable = False
            out.append(StructField(fname, dt, nullable))
            if self.peek() == ",":
                self.take(",")
            elif self.peek() is not None:
                self._fail(f"expected ',' before {self.peek()!r}")
        return StructType(out)


def _parse_datatype_string(s: str) -> DataType:
    """Parse a DDL string: a type (``"int"``, ``"array<string>"``) or a field list."""
    text = s.strip()
    parser = _DDLParser(text)
    # a single type name, or a field list "a INT, b STRING"
    if len(parser.tokens) >= 2 and parser.tokens[1] not in ("<", "("):
        return parser.fields()
    dt = parser.data_type()
    if parser.peek() is not None:
        return _DDLParser(text).fields()
    return dt


def to_struct_type(schema: StructType | str | DataType) -> StructType:
    """Return ``schema`` (a StructType or DDL string) as a StructType."""
    if isinstance(schema, StructType):
        return schema
    if isinstance(schema, str):
        dt = _parse_datatype_string(schema)
        if isinstance(dt, StructType):
            return dt
        return StructType([StructField("value", dt)])
    if isinstance(schema, DataType):
        return StructType([StructField("value", schema)])
    raise not_expected_type("schema", "str or struct type", schema)


class Row(tuple[Any, ...]):
    """A row of data, as :class:`pyspark.sql.Row`: a tuple with field names.

    ``Row(name="Alice", age=11)`` has fields ``name`` and ``age`` in that
    order; a field is read as an attribute, by name (``row["age"]``) or by
    position (``row[1]``). ``Row("name", "age")`` makes a row class, called
    with the values. What ``collect()`` returns; ``createDataFrame`` takes
    Rows too.

    Examples
    --------
    >>> from sparklet.sql import Row
    >>> row = Row(name="Alice", age=11)
    >>> row.name, row["age"], row[0]
    ('Alice', 11, 'Alice')
    >>> Person = Row("name", "age")
    >>> Person("Bob", 7)
    Row(name='Bob', age=7)
    >>> spark.createDataFrame([row]).collect()
    [Row(name='Alice', age=11)]
    """

    __fields__: tuple[str, ...]

    def __new__(cls, *args: Any, **kwargs: Any) -> "Row":
        if args and kwargs:
            raise PySparkValueError(
                "[CANNOT_SET_TOGETHER] args and kwargs should not be set together.", "CANNOT_SET_TOGETHER"
            )
        if kwargs:
            row = tuple.__new__(cls, list(kwargs.values()))
            row.__fields__ = tuple(kwargs.keys())
            return row
        row = tuple.__new__(cls, args)
        row.__fields__ = ()
        return row

    @classmethod
    def _from_pairs(cls, names: Sequence[str], values: Iterable[Any]) -> "Row":
        row = tuple.__new__(cls, values)
        row.__fields__ = tuple(names)
        return row

    def __call__(self, *args: Any) -> "Row":
        """``Row("name", "age")("Alice", 1)``: a row class of those fields, called with values."""
        if len(args) > len(self):
            raise PySparkValueError(
                f"[TOO_MANY_VALUES] Expected {len(self)} values for `fields`, got {len(args)}.", "TOO_MANY_VALUES"
            )
        return Row._from_pairs(list(self), list(args))

    def asDict(self, recursive: bool = False) -> dict[str, Any]:
        """The row as a dict of field name to value.

        Parameters
        ----------
        recursive : bool, default False
            Turn nested Rows (also inside lists and dicts) into dicts too.

        Returns
        -------
        dict
            Field names to values.

        Examples
        --------
        >>> from sparklet.sql import Row
        >>> Row(name="Alice", address=Row(city="Oslo")).asDict()
        {'name': 'Alice', 'address': Row(city='Oslo')}
        >>> Row(name="Alice", address=Row(city="Oslo")).asDict(recursive=True)
        {'name': 'Alice', 'address': {'city': 'Oslo'}}
        >>> Row(homes={"main": Row(city="Oslo")}, past=[Row(city="Bergen")]).asDict(recursive=True)
        {'homes': {'main': {'city': 'Oslo'}}, 'past': [{'city': 'Bergen'}]}
        """

        def conv(v: Any) -> Any:
            if recursive and isinstance(v, Row):
                return v.asDict(True)
            if recursive and isinstance(v, list):
                return [conv(x) for x in v]
            if recursive and isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v

        return {k: conv(v) for k, v in zip(self.__fields__, self)}

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        try:
            return self[self.__fields__.index(item)]
        except ValueError:
            raise AttributeError(item) from None

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, str):
            try:
                return tuple.__getitem__(self, self.__fields__.index(item))
            except ValueError:
                raise KeyError(item) from None
        return tuple.__getitem__(self, item)

    def __contains__(self, item: object) -> bool:
        return item in self.__fields__ if self.__fields__ else tuple.__contains__(self, item)

    def __repr__(self) -> str:
        if self.__fields__:
            return "Row(" + ", ".join(f"{k}={v!r}" for k, v in zip(self.__fields__, self)) + ")"
        return "<Row(" + ", ".join(repr(v) for v in self) + ")>"

    def __reduce__(self) -> Any:
        return (Row._from_pairs, (list(self.__fields__), list(self)))
