"""Mathematical functions, as PySpark's."""

from __future__ import annotations

from sparklet.sql.column import Column, _to_col
from sparklet.sql.functions._core import ColumnOrName, _call, _fn, _lit_or_col, _num_or_col, lit

__all__ = [
    "abs", "sqrt", "cbrt", "exp", "expm1", "log", "ln", "log10", "log2", "log1p", "floor", "ceil",
    "ceiling", "signum", "sign", "round", "bround", "rint", "pow", "power", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cot", "csc", "sec",
    "degrees", "radians", "e", "pi", "factorial", "hypot", "greatest", "least", "nanvl", "negate",
    "negative", "positive", "pmod", "hex", "unhex", "bin", "conv", "width_bucket", "try_add",
    "try_subtract", "try_multiply", "try_divide", "try_mod", "bitwise_not", "bit_count", "bit_get",
    "getbit", "shiftleft", "shiftright", "shiftrightunsigned",
 "vector_inner_product", "vector_cosine_similarity", "vector_l2_distance", "vector_norm", "vector_normalize",
 "rand", "randn",
]  # fmt: skip


def abs(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The absolute value.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        the absolute values, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.abs("i"), F.abs("x")).show()
    +------+------+
    |abs(i)|abs(x)|
    +------+------+
    |     1|   2.5|
    |     4|   0.5|
    +------+------+
    <BLANKLINE>
    """
    return _fn("abs", col)


def sqrt(col: ColumnOrName) -> Column:
    """The square root.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column (NaN for negative numbers)

    Examples
    --------
    >>> df = spark.createDataFrame([(4,), (2,)], ["n"])
    >>> df.select(F.sqrt("n")).show()
    +------------------+
    |           SQRT(n)|
    +------------------+
    |               2.0|
    |1.4142135623730951|
    +------------------+
    <BLANKLINE>
    """
    return _fn("sqrt", col)


def cbrt(col: ColumnOrName) -> Column:
    """The cube root.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(27,), (-8,)], ["n"])
    >>> df.select(F.cbrt("n")).show()
    +-------+
    |CBRT(n)|
    +-------+
    |    3.0|
    |   -2.0|
    +-------+
    <BLANKLINE>
    """
    return _fn("cbrt", col)


def exp(col: ColumnOrName) -> Column:
    """e raised to ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0,), (1,)], ["n"])
    >>> df.select(F.exp("n")).show()
    +------------------+
    |            EXP(n)|
    +------------------+
    |               1.0|
    |2.7182818284590455|
    +------------------+
    <BLANKLINE>
    """
    return _fn("exp", col)


def expm1(col: ColumnOrName) -> Column:
    """e raised to ``col``, minus one.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0,), (1,)], ["n"])
    >>> df.select(F.expm1("n")).show()
    +-----------------+
    |         EXPM1(n)|
    +-----------------+
    |              0.0|
    |1.718281828459045|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("expm1", col)


def log(arg1: ColumnOrName | float, arg2: ColumnOrName | None = None) -> Column:
    """Natural logarithm, or ``log(base, col)``.

    Parameters
    ----------
    arg1 : Column or str or float
        the numbers, or with ``arg2`` the base
    arg2 : Column or str, optional
        the numbers when ``arg1`` is the base

    Returns
    -------
    Column
        a ``double`` column (null for numbers not above 0)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (100,)], ["n"])
    >>> df.select(F.log("n"), F.log(10.0, "n")).show()
    +-----------------+------------+
    |            ln(n)|LOG(10.0, n)|
    +-----------------+------------+
    |              0.0|         0.0|
    |4.605170185988092|         2.0|
    +-----------------+------------+
    <BLANKLINE>
    """
    if arg2 is None:
        return _call("ln", _to_col(arg1))  # type: ignore[arg-type]
    return _call("log", lit(arg1), _to_col(arg2))


def ln(col: ColumnOrName) -> Column:
    """The natural logarithm.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column (null for numbers not above 0)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (10,)], ["n"])
    >>> df.select(F.ln("n")).show()
    +-----------------+
    |            ln(n)|
    +-----------------+
    |              0.0|
    |2.302585092994046|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("ln", col)


def log10(col: ColumnOrName) -> Column:
    """The base-10 logarithm.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column (null for numbers not above 0)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (1000,)], ["n"])
    >>> df.select(F.log10("n")).show()
    +--------+
    |LOG10(n)|
    +--------+
    |     0.0|
    |     3.0|
    +--------+
    <BLANKLINE>
    """
    return _fn("log10", col)


def log2(col: ColumnOrName) -> Column:
    """The base-2 logarithm.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column (null for numbers not above 0)

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (8,)], ["n"])
    >>> df.select(F.log2("n")).show()
    +-------+
    |LOG2(n)|
    +-------+
    |    0.0|
    |    3.0|
    +-------+
    <BLANKLINE>
    """
    return _fn("log2", col)


def log1p(col: ColumnOrName) -> Column:
    """The natural logarithm of ``col`` plus one.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0,), (1,)], ["n"])
    >>> df.select(F.log1p("n")).show()
    +------------------+
    |          LOG1P(n)|
    +------------------+
    |               0.0|
    |0.6931471805599453|
    +------------------+
    <BLANKLINE>
    """
    return _fn("log1p", col)


def floor(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The largest integer (or value of ``scale`` decimals) not above ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers
    scale : Column or int, optional
        digits after the decimal point (negative: before it)

    Returns
    -------
    Column
        a ``bigint`` column (with ``scale``: a decimal)

    Examples
    --------
    >>> df = spark.createDataFrame([(2.567,), (-2.5,)], ["x"])
    >>> df.select(F.floor("x"), F.floor("x", 1)).show()
    +--------+-----------+
    |FLOOR(x)|floor(x, 1)|
    +--------+-----------+
    |       2|        2.5|
    |      -3|       -2.5|
    +--------+-----------+
    <BLANKLINE>
    """
    return _fn("floor", col) if scale is None else _call("floor", _to_col(col), _lit_or_col(scale))


def ceil(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The smallest integer (or value of ``scale`` decimals) not below ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers
    scale : Column or int, optional
        digits after the decimal point (negative: before it)

    Returns
    -------
    Column
        a ``bigint`` column (with ``scale``: a decimal)

    Examples
    --------
    >>> df = spark.createDataFrame([(2.567,), (-2.5,)], ["x"])
    >>> df.select(F.ceil("x"), F.ceil("x", 1)).show()
    +-------+----------+
    |CEIL(x)|ceil(x, 1)|
    +-------+----------+
    |      3|       2.6|
    |     -2|      -2.5|
    +-------+----------+
    <BLANKLINE>
    """
    return _fn("ceil", col) if scale is None else _call("ceil", _to_col(col), _lit_or_col(scale))


def ceiling(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The smallest integer (or value of ``scale`` decimals) not below ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers
    scale : Column or int, optional
        digits after the decimal point (negative: before it)

    Returns
    -------
    Column
        a ``bigint`` column (with ``scale``: a decimal)

    Examples
    --------
    >>> df = spark.createDataFrame([(2.567,), (-2.5,)], ["x"])
    >>> df.select(F.ceiling("x"), F.ceiling("x", 1)).show()
    +----------+-------------+
    |ceiling(x)|ceiling(x, 1)|
    +----------+-------------+
    |         3|          2.6|
    |        -2|         -2.5|
    +----------+-------------+
    <BLANKLINE>
    """
    return _fn("ceiling", col) if scale is None else _call("ceiling", _to_col(col), _lit_or_col(scale))


def signum(col: ColumnOrName) -> Column:
    """-1.0, 0.0 or 1.0 by the sign of ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.signum("i"), F.signum("x")).show()
    +---------+---------+
    |SIGNUM(i)|SIGNUM(x)|
    +---------+---------+
    |      1.0|      1.0|
    |     -1.0|      1.0|
    +---------+---------+
    <BLANKLINE>
    """
    return _fn("signum", col)


def sign(col: ColumnOrName) -> Column:
    """-1.0, 0.0 or 1.0 by the sign of ``col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.sign("i"), F.sign("x")).show()
    +-------+-------+
    |sign(i)|sign(x)|
    +-------+-------+
    |    1.0|    1.0|
    |   -1.0|    1.0|
    +-------+-------+
    <BLANKLINE>
    """
    return _fn("sign", col)


def round(col: ColumnOrName, scale: Column | int | None = None) -> Column:  # noqa: A001
    """Round to ``scale`` decimal places (half up).

    Parameters
    ----------
    col : Column or str
        the numbers
    scale : Column or int, optional
        digits after the decimal point (negative: before it)

    Returns
    -------
    Column
        the rounded numbers, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([(2.5,), (-2.567,)], ["x"])
    >>> df.select(F.round("x"), F.round("x", 2)).show()
    +-----------+-----------+
    |round(x, 0)|round(x, 2)|
    +-----------+-----------+
    |        3.0|        2.5|
    |       -3.0|      -2.57|
    +-----------+-----------+
    <BLANKLINE>
    """
    return _call("round", _to_col(col), lit(0) if scale is None else _lit_or_col(scale))


def bround(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """Round to ``scale`` decimal places, halves to even.

    Parameters
    ----------
    col : Column or str
        the numbers
    scale : Column or int, optional
        digits after the decimal point (negative: before it)

    Returns
    -------
    Column
        the rounded numbers, of the input's type

    Examples
    --------
    >>> df = spark.createDataFrame([(2.5,), (3.5,)], ["x"])
    >>> df.select(F.bround("x"), F.bround("x", 1)).show()
    +------------+------------+
    |bround(x, 0)|bround(x, 1)|
    +------------+------------+
    |         2.0|         2.5|
    |         4.0|         3.5|
    +------------+------------+
    <BLANKLINE>
    """
    return _call("bround", _to_col(col), lit(0) if scale is None else _lit_or_col(scale))


def rint(col: ColumnOrName) -> Column:
    """The closest integer value, as a double (halves to even).

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(2.5,), (3.7,)], ["x"])
    >>> df.select(F.rint("x")).show()
    +-------+
    |rint(x)|
    +-------+
    |    2.0|
    |    4.0|
    +-------+
    <BLANKLINE>
    """
    return _fn("rint", col)


def pow(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:  # noqa: A001
    """``col1`` raised to ``col2``.

    Parameters
    ----------
    col1 : Column or str or float
        the bases (a column, its name, or a number)
    col2 : Column or str or float
        the exponents (a column, its name, or a number)

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.select(F.pow("a", "b"), F.pow(2.0, "a")).show()
    +-----------+-------------+
    |POWER(a, b)|POWER(2.0, a)|
    +-----------+-------------+
    |        1.0|          2.0|
    |       81.0|          8.0|
    |   390625.0|         32.0|
    +-----------+-------------+
    <BLANKLINE>
    """
    return _call("pow", _num_or_col(col1), _num_or_col(col2))


def power(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """``col1`` raised to ``col2``.

    Parameters
    ----------
    col1 : Column or str or float
        the bases (a column, its name, or a number)
    col2 : Column or str or float
        the exponents (a column, its name, or a number)

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (3, 4), (5, 8)], ["a", "b"])
    >>> df.select(F.power("a", "b")).show()
    +-----------+
    |POWER(a, b)|
    +-----------+
    |        1.0|
    |       81.0|
    |   390625.0|
    +-----------+
    <BLANKLINE>
    """
    return _call("power", _num_or_col(col1), _num_or_col(col2))


def sin(col: ColumnOrName) -> Column:
    """The sine of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.5707963267948966,)], ["r"])
    >>> df.select(F.sin("r")).show()
    +------+
    |SIN(r)|
    +------+
    |   0.0|
    |   1.0|
    +------+
    <BLANKLINE>
    """
    return _fn("sin", col)


def cos(col: ColumnOrName) -> Column:
    """The cosine of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (3.141592653589793,)], ["r"])
    >>> df.select(F.cos("r")).show()
    +------+
    |COS(r)|
    +------+
    |   1.0|
    |  -1.0|
    +------+
    <BLANKLINE>
    """
    return _fn("cos", col)


def tan(col: ColumnOrName) -> Column:
    """The tangent of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (0.7853981633974483,)], ["r"])
    >>> df.select(F.round(F.tan("r"), 6)).show()
    +----------------+
    |round(TAN(r), 6)|
    +----------------+
    |             0.0|
    |             1.0|
    +----------------+
    <BLANKLINE>
    """
    return _fn("tan", col)


def asin(col: ColumnOrName) -> Column:
    """The inverse sine, in radians.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column: angles in radians (NaN outside [-1, 1])

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.asin("n")).show()
    +------------------+
    |           ASIN(n)|
    +------------------+
    |               0.0|
    |1.5707963267948966|
    +------------------+
    <BLANKLINE>
    """
    return _fn("asin", col)


def acos(col: ColumnOrName) -> Column:
    """The inverse cosine, in radians.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column: angles in radians (NaN outside [-1, 1])

    Examples
    --------
    >>> df = spark.createDataFrame([(1.0,), (0.0,)], ["n"])
    >>> df.select(F.acos("n")).show()
    +------------------+
    |           ACOS(n)|
    +------------------+
    |               0.0|
    |1.5707963267948966|
    +------------------+
    <BLANKLINE>
    """
    return _fn("acos", col)


def atan(col: ColumnOrName) -> Column:
    """The inverse tangent, in radians.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column: angles in radians

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.atan("n")).show()
    +------------------+
    |           ATAN(n)|
    +------------------+
    |               0.0|
    |0.7853981633974483|
    +------------------+
    <BLANKLINE>
    """
    return _fn("atan", col)


def atan2(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """The angle (radians) of the point (``col2``, ``col1``).

    Parameters
    ----------
    col1 : Column or str or float
        the y coordinates (a column, its name, or a number)
    col2 : Column or str or float
        the x coordinates (a column, its name, or a number)

    Returns
    -------
    Column
        a ``double`` column: angles in radians, from -pi to pi

    Examples
    --------
    >>> df = spark.createDataFrame([(1.0, 1.0)], ["y", "x"])
    >>> df.select(F.atan2("y", "x")).show()
    +------------------+
    |       ATAN2(y, x)|
    +------------------+
    |0.7853981633974483|
    +------------------+
    <BLANKLINE>
    """
    return _call("atan2", _num_or_col(col1), _num_or_col(col2))


def sinh(col: ColumnOrName) -> Column:
    """The hyperbolic sine.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.sinh("n")).show()
    +------------------+
    |           SINH(n)|
    +------------------+
    |               0.0|
    |1.1752011936438014|
    +------------------+
    <BLANKLINE>
    """
    return _fn("sinh", col)


def cosh(col: ColumnOrName) -> Column:
    """The hyperbolic cosine.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.cosh("n")).show()
    +-----------------+
    |          COSH(n)|
    +-----------------+
    |              1.0|
    |1.543080634815244|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("cosh", col)


def tanh(col: ColumnOrName) -> Column:
    """The hyperbolic tangent.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.tanh("n")).show()
    +------------------+
    |           TANH(n)|
    +------------------+
    |               0.0|
    |0.7615941559557649|
    +------------------+
    <BLANKLINE>
    """
    return _fn("tanh", col)


def asinh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic sine.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (1.0,)], ["n"])
    >>> df.select(F.asinh("n")).show()
    +-----------------+
    |         ASINH(n)|
    +-----------------+
    |              0.0|
    |0.881373587019543|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("asinh", col)


def acosh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic cosine.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1.0,), (2.0,)], ["n"])
    >>> df.select(F.acosh("n")).show()
    +------------------+
    |          ACOSH(n)|
    +------------------+
    |               0.0|
    |1.3169578969248166|
    +------------------+
    <BLANKLINE>
    """
    return _fn("acosh", col)


def atanh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic tangent.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,), (0.5,)], ["n"])
    >>> df.select(F.atanh("n")).show()
    +------------------+
    |          ATANH(n)|
    +------------------+
    |               0.0|
    |0.5493061443340548|
    +------------------+
    <BLANKLINE>
    """
    return _fn("atanh", col)


def cot(col: ColumnOrName) -> Column:
    """The cotangent of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.7853981633974483,)], ["r"])
    >>> df.select(F.round(F.cot("r"), 6)).show()
    +----------------+
    |round(COT(r), 6)|
    +----------------+
    |             1.0|
    +----------------+
    <BLANKLINE>
    """
    return _fn("cot", col)


def csc(col: ColumnOrName) -> Column:
    """The cosecant of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(1.5707963267948966,)], ["r"])
    >>> df.select(F.csc("r")).show()
    +------+
    |CSC(r)|
    +------+
    |   1.0|
    +------+
    <BLANKLINE>
    """
    return _fn("csc", col)


def sec(col: ColumnOrName) -> Column:
    """The secant of an angle in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column

    Examples
    --------
    >>> df = spark.createDataFrame([(0.0,)], ["r"])
    >>> df.select(F.sec("r")).show()
    +------+
    |SEC(r)|
    +------+
    |   1.0|
    +------+
    <BLANKLINE>
    """
    return _fn("sec", col)


def degrees(col: ColumnOrName) -> Column:
    """Radians in degrees.

    Parameters
    ----------
    col : Column or str
        the angles, in radians

    Returns
    -------
    Column
        a ``double`` column: the angles in degrees

    Examples
    --------
    >>> df = spark.createDataFrame([(3.141592653589793,)], ["r"])
    >>> df.select(F.degrees("r")).show()
    +----------+
    |DEGREES(r)|
    +----------+
    |     180.0|
    +----------+
    <BLANKLINE>
    """
    return _fn("degrees", col)


def radians(col: ColumnOrName) -> Column:
    """Degrees in radians.

    Parameters
    ----------
    col : Column or str
        the angles, in degrees

    Returns
    -------
    Column
        a ``double`` column: the angles in radians

    Examples
    --------
    >>> df = spark.createDataFrame([(180.0,)], ["d"])
    >>> df.select(F.radians("d")).show()
    +-----------------+
    |       RADIANS(d)|
    +-----------------+
    |3.141592653589793|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("radians", col)


def e() -> Column:
    """Euler's number.

    Returns
    -------
    Column
        a ``double`` column: 2.718281828459045 on every row

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.e()).show()
    +-----------------+
    |              E()|
    +-----------------+
    |2.718281828459045|
    +-----------------+
    <BLANKLINE>
    """
    return _call("e")


def pi() -> Column:
    """Pi.

    Returns
    -------
    Column
        a ``double`` column: 3.141592653589793 on every row

    Examples
    --------
    >>> df = spark.range(1)
    >>> df.select(F.pi()).show()
    +-----------------+
    |             PI()|
    +-----------------+
    |3.141592653589793|
    +-----------------+
    <BLANKLINE>
    """
    return _call("pi")


def factorial(col: ColumnOrName) -> Column:
    """``col``! for 0 to 20 (null otherwise).

    Parameters
    ----------
    col : Column or str
        the integers, from 0 to 20

    Returns
    -------
    Column
        a ``bigint`` column (null outside 0 to 20)

    Examples
    --------
    >>> df = spark.createDataFrame([(5,), (21,), (-1,)], ["n"])
    >>> df.select(F.factorial("n")).show()
    +------------+
    |factorial(n)|
    +------------+
    |         120|
    |        NULL|
    |        NULL|
    +------------+
    <BLANKLINE>
    """
    return _fn("factorial", col)


def hypot(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """sqrt(``col1``² + ``col2``²) without overflow in between.

    Parameters
    ----------
    col1 : Column or str or float
        one leg (a column, its name, or a number)
    col2 : Column or str or float
        the other leg (a column, its name, or a number)

    Returns
    -------
    Column
        a ``double`` column: ``sqrt(col1² + col2²)`` without overflow in between

    Examples
    --------
    >>> df = spark.createDataFrame([(3, 4)], ["a", "b"])
    >>> df.select(F.hypot("a", "b")).show()
    +-----------+
    |HYPOT(a, b)|
    +-----------+
    |        5.0|
    +-----------+
    <BLANKLINE>
    """
    return _call("hypot", _num_or_col(col1), _num_or_col(col2))


def greatest(*cols: ColumnOrName) -> Column:
    """The largest value, skipping nulls.

    Parameters
    ----------
    *cols : Column or str
        two or more columns (or names) of comparable types

    Returns
    -------
    Column
        the largest non-null value of each row (null when all are null)

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 4, None)], "a int, b int, c int")
    >>> df.select(F.greatest("a", "b", "c")).show()
    +-----------------+
    |greatest(a, b, c)|
    +-----------------+
    |                4|
    +-----------------+
    <BLANKLINE>
    """
    return _fn("greatest", *cols)


def least(*cols: ColumnOrName) -> Column:
    """The smallest value, skipping nulls.

    Parameters
    ----------
    *cols : Column or str
        two or more columns (or names) of comparable types

    Returns
    -------
    Column
        the smallest non-null value of each row (null when all are null)

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 4, None)], "a int, b int, c int")
    >>> df.select(F.least("a", "b", "c")).show()
    +--------------+
    |least(a, b, c)|
    +--------------+
    |             1|
    +--------------+
    <BLANKLINE>
    """
    return _fn("least", *cols)


def nanvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where ``col1`` is NaN.

    Parameters
    ----------
    col1 : Column or str
        the numbers (float or double)
    col2 : Column or str
        what replaces NaN

    Returns
    -------
    Column
        ``col1``, or ``col2`` where ``col1`` is NaN

    Examples
    --------
    >>> df = spark.createDataFrame([(float("nan"), 1.0), (2.0, 3.0)], ["a", "b"])
    >>> df.select(F.nanvl("a", "b")).show()
    +-----------+
    |nanvl(a, b)|
    +-----------+
    |        1.0|
    |        2.0|
    +-----------+
    <BLANKLINE>
    """
    return _fn("nanvl", col1, col2)


def negate(col: ColumnOrName) -> Column:
    """``-col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        the numbers with their sign flipped

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.negate("i")).show()
    +-----------+
    |negative(i)|
    +-----------+
    |         -1|
    |          4|
    +-----------+
    <BLANKLINE>
    """
    return _fn("negative", col)


def negative(col: ColumnOrName) -> Column:
    """``-col``.

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        the numbers with their sign flipped

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.negative("x")).show()
    +-----------+
    |negative(x)|
    +-----------+
    |       -2.5|
    |       -0.5|
    +-----------+
    <BLANKLINE>
    """
    return _fn("negative", col)


def positive(col: ColumnOrName) -> Column:
    """``+col`` (the value itself).

    Parameters
    ----------
    col : Column or str
        the numbers

    Returns
    -------
    Column
        the numbers unchanged

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.5), (-4, 0.5)], ["i", "x"])
    >>> df.select(F.positive("i")).show()
    +-----+
    |(+ i)|
    +-----+
    |    1|
    |   -4|
    +-----+
    <BLANKLINE>
    """
    return _fn("positive", col)


def pmod(dividend: ColumnOrName | float, divisor: ColumnOrName | float) -> Column:
    """The positive remainder of ``dividend`` / ``divisor``.

    Parameters
    ----------
    dividend : Column or str or float
        the dividends (a column, its name, or a number)
    divisor : Column or str or float
        the divisors (a column, its name, or a number)

    Returns
    -------
    Column
        the remainders, never negative for a positive divisor

    Examples
    --------
    >>> df = spark.createDataFrame([(7, 3), (-7, 3)], ["a", "b"])
    >>> df.select(F.pmod("a", "b"), (F.col("a") % F.col("b"))).show()
    +----------+-------+
    |pmod(a, b)|(a % b)|
    +----------+-------+
    |         1|      1|
    |         2|     -1|
    +----------+-------+
    <BLANKLINE>
    """
    return _call("pmod", _num_or_col(dividend), _num_or_col(divisor))


def hex(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """A number, string or binary value in hexadecimal.

    Parameters
    ----------
    col : Column or str
        the integers, strings or binary values

    Returns
    -------
    Column
        hexadecimal strings in upper case

    Examples
    --------
    >>> df = spark.createDataFrame([(255, "Spark")], ["n", "s"])
    >>> df.select(F.hex("n"), F.hex("s")).show()
    +------+----------+
    |hex(n)|    hex(s)|
    +------+----------+
    |    FF|537061726B|
    +------+----------+
    <BLANKLINE>
    """
    return _fn("hex", col)


def unhex(col: ColumnOrName) -> Column:
    """The binary value of a hexadecimal string.

    Parameters
    ----------
    col : Column or str
        hexadecimal strings

    Returns
    -------
    Column
        a ``binary`` column: the bytes (null for malformed text)

    Examples
    --------
    >>> df = spark.createDataFrame([("537061726B",)], ["h"])
    >>> df.select(F.unhex("h")).show()
    +----------------+
    |        unhex(h)|
    +----------------+
    |[53 70 61 72 6B]|
    +----------------+
    <BLANKLINE>
    """
    return _fn("unhex", col)


def bin(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """A long's binary digits as a string.

    Parameters
    ----------
    col : Column or str
        the integers

    Returns
    -------
    Column
        the numbers' binary digits, as strings (two's complement for negative numbers)

    Examples
    --------
    >>> df = spark.createDataFrame([(5,), (-1,)], ["n"])
    >>> df.select(F.bin("n")).show()
    +--------------------+
    |              bin(n)|
    +--------------------+
    |                 101|
    |11111111111111111...|
    +--------------------+
    <BLANKLINE>
    """
    return _fn("bin", col)


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:
    """A number written in base ``fromBase`` rewritten in base ``toBase``.

    Parameters
    ----------
    col : Column or str
        the numbers, as text in ``fromBase``
    fromBase : int
        the base the text is in, 2 to 36
    toBase : int
        the base to write in, 2 to 36 (negative: signed)

    Returns
    -------
    Column
        the numbers as text in ``toBase``

    Examples
    --------
    >>> df = spark.createDataFrame([("ff",), ("100",)], ["s"])
    >>> df.select(F.conv("s", 16, 10)).show()
    +---------------+
    |conv(s, 16, 10)|
    +---------------+
    |            255|
    |            256|
    +---------------+
    <BLANKLINE>
    """
    return _call("conv", _to_col(col), lit(fromBase), lit(toBase))


def width_bucket(v: ColumnOrName, min: ColumnOrName, max: ColumnOrName, numBucket: ColumnOrName | int) -> Column:  # noqa: A002
    """The bucket of ``v`` among ``numBucket`` equal buckets from ``min`` to ``max``.

    Parameters
    ----------
    v : Column or str
        the values
    min : Column or str
        the lower bound of the histogram's range
    max : Column or str
        the upper bound of the histogram's range
    numBucket : Column or str or int
        how many equal-width buckets split the range

    Returns
    -------
    Column
        a ``bigint`` column: the bucket, 1 to ``numBucket`` (0 below the range, ``numBucket`` + 1 above)

    Examples
    --------
    >>> df = spark.createDataFrame([(5.3,), (-1.0,), (11.0,)], ["v"])
    >>> df.select(F.width_bucket("v", F.lit(0.0), F.lit(10.0), F.lit(5))).show()
    +-----------------------------+
    |width_bucket(v, 0.0, 10.0, 5)|
    +-----------------------------+
    |                            3|
    |                            0|
    |                            6|
    +-----------------------------+
    <BLANKLINE>
    """
    return _call("width_bucket", _to_col(v), _to_col(min), _to_col(max), _num_or_col(numBucket))


def try_add(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left + right``, null on overflow.

    Parameters
    ----------
    left : Column or str
        the left operand
    right : Column or str
        the right operand

    Returns
    -------
    Column
        the sums, null on overflow

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (9223372036854775807, 1)], ["a", "b"])
    >>> df.select(F.try_add("a", "b")).show()
    +-------------+
    |try_add(a, b)|
    +-------------+
    |            3|
    |         NULL|
    +-------------+
    <BLANKLINE>
    """
    return _fn("try_add", left, right)


def try_subtract(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left - right``, null on overflow.

    Parameters
    ----------
    left : Column or str
        the left operand
    right : Column or str
        the right operand

    Returns
    -------
    Column
        the differences, null on overflow

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2), (-9223372036854775808, 1)], ["a", "b"])
    >>> df.select(F.try_subtract("a", "b")).show()
    +------------------+
    |try_subtract(a, b)|
    +------------------+
    |                -1|
    |              NULL|
    +------------------+
    <BLANKLINE>
    """
    return _fn("try_subtract", left, right)


def try_multiply(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left * right``, null on overflow.

    Parameters
    ----------
    left : Column or str
        the left operand
    right : Column or str
        the right operand

    Returns
    -------
    Column
        the products, null on overflow

    Examples
    --------
    >>> df = spark.createDataFrame([(3, 2), (9223372036854775807, 2)], ["a", "b"])
    >>> df.select(F.try_multiply("a", "b")).show()
    +------------------+
    |try_multiply(a, b)|
    +------------------+
    |                 6|
    |              NULL|
    +------------------+
    <BLANKLINE>
    """
    return _fn("try_multiply", left, right)


def try_divide(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left / right``, null when ``right`` is 0.

    Parameters
    ----------
    left : Column or str
        the left operand
    right : Column or str
        the right operand

    Returns
    -------
    Column
        the quotients (``double`` for numbers), null when the divisor is 0

    Examples
    --------
    >>> df = spark.createDataFrame([(6, 4), (1, 0)], ["a", "b"])
    >>> df.select(F.try_divide("a", "b")).show()
    +----------------+
    |try_divide(a, b)|
    +----------------+
    |             1.5|
    |            NULL|
    +----------------+
    <BLANKLINE>
    """
    return _fn("try_divide", left, right)


def try_mod(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left % right``, null when ``right`` is 0.

    Parameters
    ----------
    left : Column or str
        the left operand
    right : Column or str
        the right operand

    Returns
    -------
    Column
        the remainders, null when the divisor is 0

    Examples
    --------
    >>> df = spark.createDataFrame([(7, 3), (1, 0)], ["a", "b"])
    >>> df.select(F.try_mod("a", "b")).show()
    +-------------+
    |try_mod(a, b)|
    +-------------+
    |            1|
    |         NULL|
    +-------------+
    <BLANKLINE>
    """
    return _fn("try_mod", left, right)


def bitwise_not(col: ColumnOrName) -> Column:
    """``~col``.

    Parameters
    ----------
    col : Column or str
        the integers

    Returns
    -------
    Column
        the integers with every bit flipped

    Examples
    --------
    >>> df = spark.createDataFrame([(0,), (5,)], ["n"])
    >>> df.select(F.bitwise_not("n")).show()
    +---+
    | ~n|
    +---+
    | -1|
    | -6|
    +---+
    <BLANKLINE>
    """
    return _fn("bitwise_not", col)


def bit_count(col: ColumnOrName) -> Column:
    """How many bits are set.

    Parameters
    ----------
    col : Column or str
        the integers (or booleans)

    Returns
    -------
    Column
        an ``int`` column: how many bits are set

    Examples
    --------
    >>> df = spark.createDataFrame([(7,), (-1,)], ["n"])
    >>> df.select(F.bit_count("n")).show()
    +------------+
    |bit_count(n)|
    +------------+
    |           3|
    |          64|
    +------------+
    <BLANKLINE>
    """
    return _fn("bit_count", col)


def bit_get(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """The bit at ``pos`` (0 is the rightmost).

    Parameters
    ----------
    col : Column or str
        the integers
    pos : Column or str
        the bit's position, from 0 (the lowest)

    Returns
    -------
    Column
        a ``tinyint`` column: the bit, 0 or 1

    Examples
    --------
    >>> df = spark.createDataFrame([(5,)], ["n"])
    >>> df.select(F.bit_get("n", F.lit(0)), F.bit_get("n", F.lit(1))).show()
    +-------------+-------------+
    |bit_get(n, 0)|bit_get(n, 1)|
    +-------------+-------------+
    |            1|            0|
    +-------------+-------------+
    <BLANKLINE>
    """
    return _fn("bit_get", col, pos)


def getbit(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """The bit at ``pos`` (0 is the rightmost).

    Parameters
    ----------
    col : Column or str
        the integers
    pos : Column or str
        the bit's position, from 0 (the lowest)

    Returns
    -------
    Column
        a ``tinyint`` column: the bit, 0 or 1

    Examples
    --------
    >>> df = spark.createDataFrame([(5,)], ["n"])
    >>> df.select(F.getbit("n", F.lit(2))).show()
    +------------+
    |getbit(n, 2)|
    +------------+
    |           1|
    +------------+
    <BLANKLINE>
    """
    return _fn("getbit", col, pos)


def shiftleft(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted left by ``numBits``.

    Parameters
    ----------
    col : Column or str
        the integers
    numBits : int
        how many bits to shift

    Returns
    -------
    Column
        the integers shifted left

    Examples
    --------
    >>> df = spark.createDataFrame([(3,)], ["n"])
    >>> df.select(F.shiftleft("n", 2)).show()
    +---------------+
    |shiftleft(n, 2)|
    +---------------+
    |             12|
    +---------------+
    <BLANKLINE>
    """
    return _call("shiftleft", _to_col(col), lit(numBits))


def shiftright(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted right (signed) by ``numBits``.

    Parameters
    ----------
    col : Column or str
        the integers
    numBits : int
        how many bits to shift

    Returns
    -------
    Column
        the integers shifted right, keeping the sign

    Examples
    --------
    >>> df = spark.createDataFrame([(-16,)], ["n"])
    >>> df.select(F.shiftright("n", 2)).show()
    +----------------+
    |shiftright(n, 2)|
    +----------------+
    |              -4|
    +----------------+
    <BLANKLINE>
    """
    return _call("shiftright", _to_col(col), lit(numBits))


def shiftrightunsigned(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted right (unsigned) by ``numBits``.

    Parameters
    ----------
    col : Column or str
        the integers
    numBits : int
        how many bits to shift

    Returns
    -------
    Column
        the integers shifted right, zeros shifted in

    Examples
    --------
    >>> df = spark.createDataFrame([(-16,)], ["n"])
    >>> df.select(F.shiftrightunsigned("n", 60)).show()
    +-------------------------+
    |shiftrightunsigned(n, 60)|
    +-------------------------+
    |                       15|
    +-------------------------+
    <BLANKLINE>
    """
    return _call("shiftrightunsigned", _to_col(col), lit(numBits))


def vector_inner_product(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The inner (dot) product of two float vectors of one dimension.

    Parameters
    ----------
    left : Column or str
        the first vectors (arrays of float)
    right : Column or str
        the second vectors, of the same length

    Returns
    -------
    Column
        a ``float`` column: the dot products

    Examples
    --------
    >>> df = spark.createDataFrame([([1.0, 2.0], [3.0, 4.0])], "a array<float>, b array<float>")
    >>> df.select(F.vector_inner_product("a", "b")).show()
    +--------------------------+
    |vector_inner_product(a, b)|
    +--------------------------+
    |                      11.0|
    +--------------------------+
    <BLANKLINE>
    """
    return _fn("vector_inner_product", left, right)


def vector_cosine_similarity(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The cosine similarity of two float vectors of one dimension.

    Parameters
    ----------
    left : Column or str
        the first vectors (arrays of float)
    right : Column or str
        the second vectors, of the same length

    Returns
    -------
    Column
        a ``float`` column: the cosine of the angle between them

    Examples
    --------
    >>> df = spark.createDataFrame([([1.0, 0.0], [1.0, 1.0])], "a array<float>, b array<float>")
    >>> df.select(F.round(F.vector_cosine_similarity("a", "b"), 4)).show()
    +----------------------------------------+
    |round(vector_cosine_similarity(a, b), 4)|
    +----------------------------------------+
    |                                  0.7071|
    +----------------------------------------+
    <BLANKLINE>
    """
    return _fn("vector_cosine_similarity", left, right)


def vector_l2_distance(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The Euclidean distance between two float vectors of one dimension.

    Parameters
    ----------
    left : Column or str
        the first vectors (arrays of float)
    right : Column or str
        the second vectors, of the same length

    Returns
    -------
    Column
        a ``float`` column: the Euclidean distances

    Examples
    --------
    >>> df = spark.createDataFrame([([0.0, 0.0], [3.0, 4.0])], "a array<float>, b array<float>")
    >>> df.select(F.vector_l2_distance("a", "b")).show()
    +------------------------+
    |vector_l2_distance(a, b)|
    +------------------------+
    |                     5.0|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("vector_l2_distance", left, right)


def vector_norm(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    """The Lp norm of a float vector (``degree`` 2.0, Euclidean, by default).

    Parameters
    ----------
    vector : Column or str
        the vectors (arrays of float)
    degree : Column or str, optional
        the norm's degree (default 2.0; 1.0 sums absolute values, ``inf`` takes the largest)

    Returns
    -------
    Column
        a ``float`` column

    Examples
    --------
    >>> df = spark.createDataFrame([([3.0, 4.0],)], "v array<float>")
    >>> df.select(F.vector_norm("v"), F.vector_norm("v", F.lit(1.0).cast("float"))).show()
    +-------------------+----------------------------------+
    |vector_norm(v, 2.0)|vector_norm(v, CAST(1.0 AS FLOAT))|
    +-------------------+----------------------------------+
    |                5.0|                               7.0|
    +-------------------+----------------------------------+
    <BLANKLINE>
    """
    return _fn("vector_norm", vector) if degree is None else _fn("vector_norm", vector, degree)


def vector_normalize(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    """The float vector scaled to unit Lp norm (``degree`` 2.0 by default).

    Parameters
    ----------
    vector : Column or str
        the vectors (arrays of float)
    degree : Column or str, optional
        the norm's degree (default 2.0)

    Returns
    -------
    Column
        the vectors divided by their norm

    Examples
    --------
    >>> df = spark.createDataFrame([([3.0, 4.0],)], "v array<float>")
    >>> df.select(F.vector_normalize("v")).show()
    +------------------------+
    |vector_normalize(v, 2.0)|
    +------------------------+
    |              [0.6, 0.8]|
    +------------------------+
    <BLANKLINE>
    """
    return _fn("vector_normalize", vector) if degree is None else _fn("vector_normalize", vector, degree)


def rand(seed: int | None = None) -> Column:
    """Uniform random doubles in [0, 1): with a ``seed``, the same values
    each run over the same input (not Spark's values).

    Parameters
    ----------
    seed : int, optional
        the seed (default: a random one)

    Returns
    -------
    Column
        a ``double`` column of uniformly distributed values in [0, 1)

    Examples
    --------
    >>> df = spark.range(3)
    >>> df.select(F.rand(seed=42).between(0, 1).alias("in [0, 1)")).show()
    +---------+
    |in [0, 1)|
    +---------+
    |     true|
    |     true|
    |     true|
    +---------+
    <BLANKLINE>
    """
    return _call("rand") if seed is None else _call("rand", lit(seed))


def randn(seed: int | None = None) -> Column:
    """Standard normal random doubles: with a ``seed``, the same values each
    run over the same input (not Spark's values).

    Parameters
    ----------
    seed : int, optional
        the seed (default: a random one)

    Returns
    -------
    Column
        a ``double`` column of standard normally distributed values

    Examples
    --------
    >>> df = spark.range(3)
    >>> df.select(F.randn(seed=42).isNotNull().alias("drawn")).show()
    +-----+
    |drawn|
    +-----+
    | true|
    | true|
    | true|
    +-----+
    <BLANKLINE>
    """
    return _call("randn") if seed is None else _call("randn", lit(seed))
