"""Exception classes mirroring :mod:`pyspark.errors`.

Every error sparklet raises on purpose is a :class:`PySparkException`; the
engine raises the same classes PySpark does, with Spark's error condition
(``getCondition()``), so ``except AnalysisException`` works unchanged.
"""

from __future__ import annotations

import warnings

from sparklet.errors._sql_states import SQL_STATES

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

    Every error sparklet raises on purpose is one, with Spark's condition.

    Parameters
    ----------
    message : str, optional
        The full message.
    errorClass : str, optional
        Spark's error condition, e.g. ``"UNRESOLVED_COLUMN.WITH_SUGGESTION"``.
    messageParameters : dict, optional
        Parameters of the message template.

    Examples
    --------
    >>> from sparklet.errors import PySparkException
    >>> try:
    ...     spark.range(1).select("nope")
    ... except PySparkException as e:
    ...     print(type(e).__name__, e.getCondition())
    AnalysisException UNRESOLVED_COLUMN.WITH_SUGGESTION
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
        """Return Spark's error condition.

        Returns
        -------
        str or None
            The condition, sub-condition included
            (``"UNRESOLVED_COLUMN.WITH_SUGGESTION"``); ``None`` when there is none.

        Examples
        --------
        >>> from sparklet.errors import AnalysisException
        >>> try:
        ...     spark.sql("SELECT * FROM no_such_table_here")
        ... except AnalysisException as e:
        ...     print(e.getCondition())
        TABLE_OR_VIEW_NOT_FOUND
        """
        return self._errorClass

    def getErrorClass(self) -> str | None:
        """Return the error condition (deprecated since Spark 4.0).

        Returns
        -------
        str or None
            What :meth:`getCondition` returns, after a ``FutureWarning`` (as
            PySpark's): use :meth:`getCondition`.

        Examples
        --------
        >>> import warnings
        >>> from sparklet.errors import AnalysisException
        >>> try:
        ...     spark.range(1).select("nope")
        ... except AnalysisException as e:
        ...     with warnings.catch_warnings():
        ...         warnings.simplefilter("ignore", FutureWarning)
        ...         print(e.getErrorClass())
        UNRESOLVED_COLUMN.WITH_SUGGESTION
        """
        warnings.warn("Deprecated in 4.0.0, use getCondition instead.", FutureWarning, stacklevel=2)
        return self._errorClass

    def getMessageParameters(self) -> dict[str, str]:
        """Return the parameters of the condition's message.

        Returns
        -------
        dict
            Parameter name to value; sparklet fills them for errors its
            Python API raises, and leaves them empty for the engine's (see
            docs/differences.md).

        Examples
        --------
        >>> from sparklet.errors import PySparkValueError
        >>> e = PySparkValueError("bad n", "VALUE_NOT_POSITIVE", {"arg_name": "n", "arg_value": "-1"})
        >>> e.getMessageParameters()
        {'arg_name': 'n', 'arg_value': '-1'}
        """
        return dict(self._messageParameters)

    def getMessage(self) -> str:
        """Return the full message.

        Returns
        -------
        str
            The message, led by the condition in brackets when there is one.

        Examples
        --------
        >>> from sparklet.errors import AnalysisException
        >>> try:
        ...     spark.range(1).select("nope")
        ... except AnalysisException as e:
        ...     print(e.getMessage().startswith("[UNRESOLVED_COLUMN.WITH_SUGGESTION]"))
        True
        """
        condition = f"[{self._errorClass}]"
        if self._errorClass is None or self._message.lstrip().startswith(condition):
            return self._message
        return f"{condition} {self._message}"

    def getSqlState(self) -> str | None:
        """Return the SQLSTATE Spark declares for the error condition.

        Returns
        -------
        str or None
            Five characters (``"42703"`` for an unresolved column, ``"22012"``
            for a division by zero); ``None`` when the condition has none.

        Examples
        --------
        >>> from sparklet.errors import AnalysisException
        >>> try:
        ...     spark.range(1).select("nope")
        ... except AnalysisException as e:
        ...     print(e.getSqlState())
        42703
        """
        if self._errorClass is None:
            return None
        # declared on the main condition: a sub-condition inherits it, as in Spark
        return SQL_STATES.get(self._errorClass.split(".")[0])

    def getQueryContext(self) -> list[object]:
        """Return the query context.

        Returns
        -------
        list
            Empty: sparklet does not point into the query text.

        Examples
        --------
        >>> from sparklet.errors import PySparkValueError
        >>> PySparkValueError("bad n", "VALUE_NOT_POSITIVE").getQueryContext()
        []
        """
        return []

    def getBreakingChangeInfo(self) -> object | None:
        """Return breaking-change information.

        Returns
        -------
        None
            No condition sparklet raises has any.

        Examples
        --------
        >>> from sparklet.errors import PySparkValueError
        >>> print(PySparkValueError("bad n", "VALUE_NOT_POSITIVE").getBreakingChangeInfo())
        None
        """
        return None

    def __str__(self) -> str:
        # as written: an error the engine raises is worded as the JVM's
        # (a UDF's PythonException reads without its condition in PySpark too)
        return self._message


class AnalysisException(PySparkException):
    """The query is invalid: unknown column or function, unsupported operation.

    Raised when a DataFrame is built or a query starts, before any data is read.

    Examples
    --------
    >>> from sparklet.errors import AnalysisException
    >>> try:
    ...     spark.range(1).select("nope")
    ... except AnalysisException as e:
    ...     print(e.getCondition(), e.getSqlState())
    UNRESOLVED_COLUMN.WITH_SUGGESTION 42703
    """


class ParseException(AnalysisException):
    """SQL text could not be parsed.

    Examples
    --------
    >>> from sparklet.errors import ParseException
    >>> try:
    ...     spark.sql("SELEC 1")
    ... except ParseException as e:
    ...     print(e.getCondition(), e.getSqlState())
    PARSE_SYNTAX_ERROR 42601
    """


class IllegalArgumentException(PySparkException):
    """An option or argument has an invalid value.

    Examples
    --------
    >>> from sparklet.errors import IllegalArgumentException
    >>> try:
    ...     spark.range(3).sample(fraction=-1.0).collect()
    ... except IllegalArgumentException:
    ...     print("refused")
    refused
    """


class StreamingQueryException(PySparkException):
    """A streaming query stopped with an error.

    Its condition is ``STREAM_FAILED``, its parameters ``id``, ``runId``
    and ``message``; ``__cause__`` holds the original where user code raised.

    Examples
    --------
    >>> from sparklet.errors import StreamingQueryException
    >>> def fail(batch, batch_id):
    ...     raise ValueError("bad batch")
    >>> q = spark.readStream.format("rate").load().writeStream.foreachBatch(fail).start()
    >>> try:
    ...     q.awaitTermination(60)
    ... except StreamingQueryException as e:
    ...     print(e.getCondition(), e.getSqlState(), sorted(e.getMessageParameters()))
    STREAM_FAILED XXKST ['id', 'message', 'runId']
    """


class SparkRuntimeException(PySparkException):
    """An error while a query runs (malformed input under FAILFAST, I/O, ``raise_error``).

    Examples
    --------
    >>> from sparklet.errors import SparkRuntimeException
    >>> try:
    ...     spark.range(1).select(F.raise_error("boom")).collect()
    ... except SparkRuntimeException as e:
    ...     print(e.getCondition(), e.getSqlState())
    USER_RAISED_EXCEPTION P0001
    """


class ArithmeticException(PySparkException):
    """Arithmetic that ANSI SQL refuses while a query runs.

    ``DIVIDE_BY_ZERO``, ``REMAINDER_BY_ZERO``, ``ARITHMETIC_OVERFLOW``, ``CAST_OVERFLOW``, as
    Spark's ``SparkArithmeticException``.

    Examples
    --------
    >>> from sparklet.errors import ArithmeticException
    >>> try:
    ...     spark.sql("SELECT 1 / 0").collect()
    ... except ArithmeticException as e:
    ...     print(e.getCondition(), e.getSqlState())
    DIVIDE_BY_ZERO 22012
    """


class ArrayIndexOutOfBoundsException(PySparkException):
    """An array read past its end while a query runs.

    ``INVALID_ARRAY_INDEX`` (``col[i]``), ``INVALID_ARRAY_INDEX_IN_ELEMENT_AT``
    (``element_at``; ``try_element_at`` gives null instead).

    Examples
    --------
    >>> from sparklet.errors import ArrayIndexOutOfBoundsException
    >>> try:
    ...     spark.sql("SELECT element_at(array(1, 2), 5)").collect()
    ... except ArrayIndexOutOfBoundsException as e:
    ...     print(e.getCondition(), e.getSqlState())
    INVALID_ARRAY_INDEX_IN_ELEMENT_AT 22003
    """


class DateTimeException(PySparkException):
    """A date or timestamp that cannot be made while a query runs.

    Text cast to a date or timestamp (``CAST_INVALID_INPUT``), a field out
    of range (``DATETIME_FIELD_OUT_OF_BOUNDS``).

    Examples
    --------
    >>> from sparklet.errors import DateTimeException
    >>> try:
    ...     spark.sql("SELECT make_date(2024, 13, 1)").collect()
    ... except DateTimeException as e:
    ...     print(e.getCondition(), e.getSqlState())
    DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION 22023
    """


class NumberFormatException(IllegalArgumentException):
    """Text cast to a number that is not one (``CAST_INVALID_INPUT``).

    As Spark's ``SparkNumberFormatException``.

    Examples
    --------
    >>> from sparklet.errors import NumberFormatException
    >>> try:
    ...     spark.sql("SELECT CAST('x' AS INT)").collect()
    ... except NumberFormatException as e:
    ...     print(e.getCondition(), e.getSqlState())
    CAST_INVALID_INPUT 22018
    """


class PythonException(PySparkException):
    """Python code the engine called raised (``PYTHON_EXCEPTION``).

    A UDF, ``mapInPandas``, a state function; the message carries its
    traceback and ``__cause__`` is the original exception.

    Examples
    --------
    >>> from sparklet.errors import PythonException
    >>> divide = F.udf(lambda x: 1 // x, "int")
    >>> try:
    ...     spark.range(1).select(divide("id")).collect()
    ... except PythonException as e:
    ...     print(e.getCondition(), e.getSqlState(), "ZeroDivisionError" in str(e))
    PYTHON_EXCEPTION 38000 True
    """


class SparkNoSuchElementException(PySparkException):
    """A lookup of something that does not exist (an unknown SQL config key).

    Examples
    --------
    >>> from sparklet.errors import SparkNoSuchElementException
    >>> try:
    ...     spark.conf.get("spark.sql.no.such.key")
    ... except SparkNoSuchElementException as e:
    ...     print(e.getCondition(), e.getSqlState())
    SQL_CONF_NOT_FOUND 42K0I
    """


class PySparkValueError(PySparkException, ValueError):
    """A bad value passed to the Python API (also a ``ValueError``).

    Examples
    --------
    >>> from sparklet.errors import PySparkValueError
    >>> try:
    ...     spark.range(1).dropna(how="some")
    ... except PySparkValueError as e:
    ...     print(e.getCondition(), isinstance(e, ValueError))
    VALUE_NOT_ALLOWED True
    """


class PySparkTypeError(PySparkException, TypeError):
    """A value of the wrong type passed to the Python API (also a ``TypeError``).

    Examples
    --------
    >>> from sparklet.errors import PySparkTypeError
    >>> try:
    ...     spark.range(1).withColumn("b", 1)
    ... except PySparkTypeError as e:
    ...     print(e.getCondition(), e.getSqlState(), isinstance(e, TypeError))
    NOT_EXPECTED_TYPE 42K09 True
    """


class PySparkRuntimeError(PySparkException, RuntimeError):
    """A runtime error in the Python API (also a ``RuntimeError``).

    Examples
    --------
    >>> from sparklet.errors import PySparkRuntimeError
    >>> isinstance(PySparkRuntimeError("no session"), RuntimeError)
    True
    """


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """A feature of PySpark's API that is not built (also a ``NotImplementedError``).

    Examples
    --------
    >>> from sparklet.errors import PySparkNotImplementedError
    >>> isinstance(PySparkNotImplementedError("not built"), NotImplementedError)
    True
    """


class PySparkAttributeError(PySparkException, AttributeError):
    """An attribute of the wrong kind (also an ``AttributeError``).

    Examples
    --------
    >>> from sparklet.errors import PySparkAttributeError
    >>> isinstance(PySparkAttributeError("no such attribute"), AttributeError)
    True
    """


class PySparkAssertionError(PySparkException, AssertionError):
    """A failed ``assertDataFrameEqual`` or ``assertSchemaEqual``.

    An ``AssertionError``, so pytest reports it as a failed assertion.

    Examples
    --------
    >>> from sparklet.errors import PySparkAssertionError
    >>> from sparklet.testing import assertDataFrameEqual
    >>> try:
    ...     assertDataFrameEqual(spark.range(2), spark.range(3))
    ... except PySparkAssertionError as e:
    ...     print(e.getCondition(), isinstance(e, AssertionError))
    DIFFERENT_ROWS True
    """
