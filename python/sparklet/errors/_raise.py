"""Builders of the errors sparklet's Python API raises, worded as PySpark 4.3's."""

from __future__ import annotations

from sparklet.errors.exceptions import PySparkTypeError, PySparkValueError


def not_expected_type(arg_name: str, expected_type: str, value: object) -> PySparkTypeError:
    """``NOT_EXPECTED_TYPE``: argument ``arg_name`` got ``value``, which is
    not ``expected_type`` (PySpark's wording: ``"Column or str"``)."""
    got = type(value).__name__
    return PySparkTypeError(
        f"[NOT_EXPECTED_TYPE] Argument `{arg_name}` should be {expected_type}, got {got}.",
        "NOT_EXPECTED_TYPE",
        {"arg_name": arg_name, "expected_type": expected_type, "arg_type": got},
    )


def value_not_allowed(arg_name: str, allowed: list[str]) -> PySparkValueError:
    """``VALUE_NOT_ALLOWED``: argument ``arg_name`` is none of ``allowed``."""
    values = repr(allowed)
    return PySparkValueError(
        f"[VALUE_NOT_ALLOWED] Value for `{arg_name}` has to be amongst the following values: {values}.",
        "VALUE_NOT_ALLOWED",
        {"arg_name": arg_name, "allowed_values": values},
    )
