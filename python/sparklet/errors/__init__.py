"""sparklet's exceptions, named as in :mod:`pyspark.errors`."""

from sparklet.errors.exceptions import (
    AnalysisException,
    IllegalArgumentException,
    ParseException,
    PySparkAssertionError,
    PySparkAttributeError,
    PySparkException,
    PySparkRuntimeError,
    PySparkTypeError,
    PySparkValueError,
    PythonException,
    SparkNoSuchElementException,
    SparkRuntimeException,
    StreamingQueryException,
)

__all__ = [
    "PySparkException",
    "AnalysisException",
    "ParseException",
    "IllegalArgumentException",
    "StreamingQueryException",
    "SparkRuntimeException",
    "PythonException",
    "SparkNoSuchElementException",
    "PySparkValueError",
    "PySparkTypeError",
    "PySparkRuntimeError",
    "PySparkAttributeError",
    "PySparkAssertionError",
]
