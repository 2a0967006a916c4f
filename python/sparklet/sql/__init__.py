"""sparklet's :mod:`pyspark.sql`: sessions, DataFrames, columns, types."""

from sparklet.sql import functions, types
from sparklet.sql.column import Column
from sparklet.sql.dataframe import DataFrame, GroupedData
from sparklet.sql.observation import Observation
from sparklet.sql.readwriter import DataFrameReader
from sparklet.sql.session import SparkSession
from sparklet.sql.types import Row
from sparklet.sql.window import Window, WindowSpec

__all__ = [
    "SparkSession",
    "DataFrame",
    "GroupedData",
    "Column",
    "Row",
    "Observation",
    "DataFrameReader",
    "functions",
    "types",
    "Window",
    "WindowSpec",
]
