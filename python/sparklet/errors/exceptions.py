"""Exception classes mirroring :mod:`pyspark.errors`.

Every error sparklet raises on purpose is a :class:`PySparkException`; the
engine raises the same classes PySpark does, with Spark's error condition
(``getCondition()``), so ``except AnalysisException`` works unchanged.
"""

from __future__ import annotations

import warnings

__all__ = [
    "PySparkException",
    "PySparkNotImplementedError",
    "AnalysisException",
    "ParseException",
    "IllegalArgumentException",
    "StreamingQueryException",
    "SparkRuntimeException",
    "ArithmeticException",
    "ArrayIndexOutOfBoundsException",
    "DateTimeException",
    "NumberFormatException",
    "PythonException",
    "SparkNoSuchElementException",
    "PySparkValueError",
    "PySparkTypeError",
    "PySparkRuntimeError",
    "PySparkAttributeError",
    "PySparkAssertionError",
]


class PySparkException(Exception):
    """Base class of sparklet's (and PySpark's) exceptions.

    Parameters
    ----------
    message : str, optional
        The full message.
    errorClass : str, optional
        Spark's error condition, e.g. ``"UNRESOLVED_COLUMN.WITH_SUGGESTION"``.
    messageParameters : dict, optional
        Parameters of the message template.
    """

    def __init__(
        self,
        message: str | None = None,
        errorClass: str | None = None,
        messageParameters: dict[str, str] | None = None,
    ) -> None:
        self._message = message or ""
        self._errorClass = errorClass
        self._messageParameters = dict(messageParameters or {})
        super().__init__(self._message)

    def getCondition(self) -> str | None:
        """Return Spark's error condition (``None`` when there is none)."""
        return self._errorClass

    def getErrorClass(self) -> str | None:
        """Return the error condition (deprecated since Spark 4.0: a
        ``FutureWarning``, as PySpark's; use :meth:`getCondition`)."""
        warnings.warn("Deprecated in 4.0.0, use getCondition instead.", FutureWarning, stacklevel=2)
        return self._errorClass

    def getMessageParameters(self) -> dict[str, str]:
        """Return the message parameters."""
        return dict(self._messageParameters)

    def getMessage(self) -> str:
        """Return the full message."""
        return self._message

    def getSqlState(self) -> str | None:
        """Return the SQLSTATE of the error condition (``None`` when unknown)."""
        return None

    def getQueryContext(self) -> list[object]:
        """Return the query context (sparklet has none to give)."""
        return []

    def getBreakingChangeInfo(self) -> object | None:
        """Return breaking-change information (``None``: there is none)."""
        return None

    def __str__(self) -> str:
        return self._message


class AnalysisException(PySparkException):
    """The query is invalid: unknown column or function, unsupported operation."""


class ParseException(AnalysisException):
    """SQL text could not be parsed."""


class IllegalArgumentException(PySparkException):
    """An option or argument has an invalid value."""


class StreamingQueryException(PySparkException):
    """A streaming query stopped with an error (``STREAM_FAILED``; its
    parameters ``id``, ``runId`` and ``message``); ``__cause__`` holds the
    original."""

    def getSqlState(self) -> str | None:
        """Return ``STREAM_FAILED``'s SQLSTATE."""
        return "XXKST" if self._errorClass == "STREAM_FAILED" else None


class SparkRuntimeException(PySparkException):
    """An error while executing a query (malformed input under FAILFAST, I/O)."""


class ArithmeticException(PySparkException):
    """Arithmetic that ANSI SQL refuses while a query runs (``DIVIDE_BY_ZERO``,
    ``ARITHMETIC_OVERFLOW``, ``CAST_OVERFLOW``), as Spark's
    ``SparkArithmeticException``."""


class ArrayIndexOutOfBoundsException(PySparkException):
    """An array read past its end while a query runs (``INVALID_ARRAY_INDEX``,
    ``INVALID_ARRAY_INDEX_IN_ELEMENT_AT``)."""


class DateTimeException(PySparkException):
    """A date or timestamp that cannot be made while a query runs: text cast
    to a date or timestamp (``CAST_INVALID_INPUT``), a field out of range
    (``DATETIME_FIELD_OUT_OF_BOUNDS``)."""


class NumberFormatException(IllegalArgumentException):
    """Text cast to a number that is not one (``CAST_INVALID_INPUT``), as
    Spark's ``SparkNumberFormatException``."""


class PythonException(PySparkException):
    """Python code the engine called (a UDF, ``mapInPandas``, a state
    function) raised (``PYTHON_EXCEPTION``); the message carries its
    traceback and ``__cause__`` is the original exception."""

    def getSqlState(self) -> str | None:
        """Return ``PYTHON_EXCEPTION``'s SQLSTATE."""
        return "38000" if self._errorClass == "PYTHON_EXCEPTION" else None


class SparkNoSuchElementException(PySparkException):
    """A lookup of something that does not exist (an unknown SQL config key)."""


class PySparkValueError(PySparkException, ValueError):
    """A bad value passed to the Python API."""


class PySparkTypeError(PySparkException, TypeError):
    """A value of the wrong type passed to the Python API."""


class PySparkRuntimeError(PySparkException, RuntimeError):
    """A runtime error in the Python API."""


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """A feature of PySpark's API that is not built (PySpark's name)."""


class PySparkAttributeError(PySparkException, AttributeError):
    """An attribute of the wrong kind (PySpark's name)."""


class PySparkAssertionError(PySparkException, AssertionError):
    """A failed ``assertDataFrameEqual``/``assertSchemaEqual`` (an
    ``AssertionError``, so pytest reports it as a failed assertion)."""
