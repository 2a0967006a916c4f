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
    """The absolute value."""
    return _fn("abs", col)


def sqrt(col: ColumnOrName) -> Column:
    """The square root."""
    return _fn("sqrt", col)


def cbrt(col: ColumnOrName) -> Column:
    """The cube root."""
    return _fn("cbrt", col)


def exp(col: ColumnOrName) -> Column:
    """e raised to ``col``."""
    return _fn("exp", col)


def expm1(col: ColumnOrName) -> Column:
    """e raised to ``col``, minus one."""
    return _fn("expm1", col)


def log(arg1: ColumnOrName | float, arg2: ColumnOrName | None = None) -> Column:
    """Natural logarithm, or ``log(base, col)``."""
    if arg2 is None:
        return _call("ln", _to_col(arg1))  # type: ignore[arg-type]
    return _call("log", lit(arg1), _to_col(arg2))


def ln(col: ColumnOrName) -> Column:
    """The natural logarithm."""
    return _fn("ln", col)


def log10(col: ColumnOrName) -> Column:
    """The base-10 logarithm."""
    return _fn("log10", col)


def log2(col: ColumnOrName) -> Column:
    """The base-2 logarithm."""
    return _fn("log2", col)


def log1p(col: ColumnOrName) -> Column:
    """The natural logarithm of ``col`` plus one."""
    return _fn("log1p", col)


def floor(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The largest integer (or value of ``scale`` decimals) not above ``col``."""
    return _fn("floor", col) if scale is None else _call("floor", _to_col(col), _lit_or_col(scale))


def ceil(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The smallest integer (or value of ``scale`` decimals) not below ``col``."""
    return _fn("ceil", col) if scale is None else _call("ceil", _to_col(col), _lit_or_col(scale))


def ceiling(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The smallest integer (or value of ``scale`` decimals) not below ``col``."""
    return _fn("ceiling", col) if scale is None else _call("ceiling", _to_col(col), _lit_or_col(scale))


def signum(col: ColumnOrName) -> Column:
    """-1.0, 0.0 or 1.0 by the sign of ``col``."""
    return _fn("signum", col)


def sign(col: ColumnOrName) -> Column:
    """-1.0, 0.0 or 1.0 by the sign of ``col``."""
    return _fn("sign", col)


def round(col: ColumnOrName, scale: Column | int | None = None) -> Column:  # noqa: A001
    """Round to ``scale`` decimal places (half up)."""
    return _call("round", _to_col(col), lit(0) if scale is None else _lit_or_col(scale))


def bround(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """Round to ``scale`` decimal places, halves to even."""
    return _call("bround", _to_col(col), lit(0) if scale is None else _lit_or_col(scale))


def rint(col: ColumnOrName) -> Column:
    """The closest integer value, as a double (halves to even)."""
    return _fn("rint", col)


def pow(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:  # noqa: A001
    """``col1`` raised to ``col2``."""
    return _call("pow", _num_or_col(col1), _num_or_col(col2))


def power(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """``col1`` raised to ``col2``."""
    return _call("power", _num_or_col(col1), _num_or_col(col2))


def sin(col: ColumnOrName) -> Column:
    """The sine of an angle in radians."""
    return _fn("sin", col)


def cos(col: ColumnOrName) -> Column:
    """The cosine of an angle in radians."""
    return _fn("cos", col)


def tan(col: ColumnOrName) -> Column:
    """The tangent of an angle in radians."""
    return _fn("tan", col)


def asin(col: ColumnOrName) -> Column:
    """The inverse sine, in radians."""
    return _fn("asin", col)


def acos(col: ColumnOrName) -> Column:
    """The inverse cosine, in radians."""
    return _fn("acos", col)


def atan(col: ColumnOrName) -> Column:
    """The inverse tangent, in radians."""
    return _fn("atan", col)


def atan2(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """The angle (radians) of the point (``col2``, ``col1``)."""
    return _call("atan2", _num_or_col(col1), _num_or_col(col2))


def sinh(col: ColumnOrName) -> Column:
    """The hyperbolic sine."""
    return _fn("sinh", col)


def cosh(col: ColumnOrName) -> Column:
    """The hyperbolic cosine."""
    return _fn("cosh", col)


def tanh(col: ColumnOrName) -> Column:
    """The hyperbolic tangent."""
    return _fn("tanh", col)


def asinh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic sine."""
    return _fn("asinh", col)


def acosh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic cosine."""
    return _fn("acosh", col)


def atanh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic tangent."""
    return _fn("atanh", col)


def cot(col: ColumnOrName) -> Column:
    """The cotangent of an angle in radians."""
    return _fn("cot", col)


def csc(col: ColumnOrName) -> Column:
    """The cosecant of an angle in radians."""
    return _fn("csc", col)


def sec(col: ColumnOrName) -> Column:
    """The secant of an angle in radians."""
    return _fn("sec", col)


def degrees(col: ColumnOrName) -> Column:
    """Radians in degrees."""
    return _fn("degrees", col)


def radians(col: ColumnOrName) -> Column:
    """Degrees in radians."""
    return _fn("radians", col)


def e() -> Column:
    """Euler's number."""
    return _call("e")


def pi() -> Column:
    """Pi."""
    return _call("pi")


def factorial(col: ColumnOrName) -> Column:
    """``col``! for 0 to 20 (null otherwise)."""
    return _fn("factorial", col)


def hypot(col1: ColumnOrName | float, col2: ColumnOrName | float) -> Column:
    """sqrt(``col1``² + ``col2``²) without overflow in between."""
    return _call("hypot", _num_or_col(col1), _num_or_col(col2))


def greatest(*cols: ColumnOrName) -> Column:
    """The largest value, skipping nulls."""
    return _fn("greatest", *cols)


def least(*cols: ColumnOrName) -> Column:
    """The smallest value, skipping nulls."""
    return _fn("least", *cols)


def nanvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1``, or ``col2`` where ``col1`` is NaN."""
    return _fn("nanvl", col1, col2)


def negate(col: ColumnOrName) -> Column:
    """``-col``."""
    return _fn("negative", col)


def negative(col: ColumnOrName) -> Column:
    """``-col``."""
    return _fn("negative", col)


def positive(col: ColumnOrName) -> Column:
    """``+col`` (the value itself)."""
    return _fn("positive", col)


def pmod(dividend: ColumnOrName | float, divisor: ColumnOrName | float) -> Column:
    """The positive remainder of ``dividend`` / ``divisor``."""
    return _call("pmod", _num_or_col(dividend), _num_or_col(divisor))


def hex(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """A number, string or binary value in hexadecimal."""
    return _fn("hex", col)


def unhex(col: ColumnOrName) -> Column:
    """The binary value of a hexadecimal string."""
    return _fn("unhex", col)


def bin(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """A long's binary digits as a string."""
    return _fn("bin", col)


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:
    """A number written in base ``fromBase`` rewritten in base ``toBase``."""
    return _call("conv", _to_col(col), lit(fromBase), lit(toBase))


def width_bucket(v: ColumnOrName, min: ColumnOrName, max: ColumnOrName, numBucket: ColumnOrName | int) -> Column:  # noqa: A002
    """The bucket of ``v`` among ``numBucket`` equal buckets from ``min`` to ``max``."""
    return _call("width_bucket", _to_col(v), _to_col(min), _to_col(max), _num_or_col(numBucket))


def try_add(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left + right``, null on overflow."""
    return _fn("try_add", left, right)


def try_subtract(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left - right``, null on overflow."""
    return _fn("try_subtract", left, right)


def try_multiply(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left * right``, null on overflow."""
    return _fn("try_multiply", left, right)


def try_divide(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left / right``, null when ``right`` is 0."""
    return _fn("try_divide", left, right)


def try_mod(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left % right``, null when ``right`` is 0."""
    return _fn("try_mod", left, right)


def bitwise_not(col: ColumnOrName) -> Column:
    """``~col``."""
    return _fn("bitwise_not", col)


def bit_count(col: ColumnOrName) -> Column:
    """How many bits are set."""
    return _fn("bit_count", col)


def bit_get(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """The bit at ``pos`` (0 is the rightmost)."""
    return _fn("bit_get", col, pos)


def getbit(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """The bit at ``pos`` (0 is the rightmost)."""
    return _fn("getbit", col, pos)


def shiftleft(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted left by ``numBits``."""
    return _call("shiftleft", _to_col(col), lit(numBits))


def shiftright(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted right (signed) by ``numBits``."""
    return _call("shiftright", _to_col(col), lit(numBits))


def shiftrightunsigned(col: ColumnOrName, numBits: int) -> Column:
    """``col`` shifted right (unsigned) by ``numBits``."""
    return _call("shiftrightunsigned", _to_col(col), lit(numBits))


def vector_inner_product(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The inner (dot) product of two float vectors of one dimension."""
    return _fn("vector_inner_product", left, right)


def vector_cosine_similarity(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The cosine similarity of two float vectors of one dimension."""
    return _fn("vector_cosine_similarity", left, right)


def vector_l2_distance(left: ColumnOrName, right: ColumnOrName) -> Column:
    """The Euclidean distance between two float vectors of one dimension."""
    return _fn("vector_l2_distance", left, right)


def vector_norm(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    """The Lp norm of a float vector (``degree`` 2.0, Euclidean, by default)."""
    return _fn("vector_norm", vector) if degree is None else _fn("vector_norm", vector, degree)


def vector_normalize(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    """The float vector scaled to unit Lp norm (``degree`` 2.0 by default)."""
    return _fn("vector_normalize", vector) if degree is None else _fn("vector_normalize", vector, degree)


def rand(seed: int | None = None) -> Column:
    """Uniform random doubles in [0, 1): with a ``seed``, the same values
    each run over the same input (not Spark's values)."""
    return _call("rand") if seed is None else _call("rand", lit(seed))


def randn(seed: int | None = None) -> Column:
    """Standard normal random doubles: with a ``seed``, the same values each
    run over the same input (not Spark's values)."""
    return _call("randn") if seed is None else _call("randn", lit(seed))
