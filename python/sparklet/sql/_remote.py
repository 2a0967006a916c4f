"""Spark Connect: ``SparkSession.builder.remote("sc://host:port")`` returns
a session of PySpark's Spark Connect client, so a script moves to a Spark
cluster by changing its builder line.

While such a session is active, sparklet's column functions
(``sparklet.sql.functions``) call PySpark's namesakes and sparklet's data
types build PySpark's, so the rest of the script builds a PySpark pipeline.
Data types built before the builder line stay sparklet's: PySpark's methods
do not take them (pass a DDL string, or build the schema after the session).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["active", "connect", "forward_functions", "pyspark_type"]

#: The PySpark Connect session made through ``remote()`` (None: none).
_session: Any = None

_INSTALL = "pip install 'sparklet[connect]'"


def active() -> bool:
    """Whether a Spark Connect session made through ``remote()`` is in use."""
    return _session is not None and not getattr(_session, "is_stopped", False)


def connect(url: str, conf: dict[str, str]) -> Any:
    """PySpark's Spark Connect session at ``url`` with the builder's settings."""
    global _session
    try:
        from pyspark.sql import SparkSession as PySparkSession
    except ImportError as e:
        raise ImportError(
            f"SparkSession.builder.remote({url!r}) needs PySpark's Spark Connect client: {_INSTALL}"
        ) from e
    builder = PySparkSession.builder.remote(url)
    for key, value in conf.items():
        if key != "spark.master":  # the cluster's, not the client's
            builder = builder.config(key, value)
    _session = builder.getOrCreate()
    return _session


def pyspark_type(value: Any) -> Any:
    """A sparklet data type as PySpark's (anything else unchanged)."""
    from sparklet.sql import types as ours

    if not isinstance(value, ours.DataType):
        return value
    theirs = importlib.import_module("pyspark.sql.types")
    if isinstance(value, ours.StructType):
        return theirs.StructType([pyspark_type(f) for f in value.fields])
    if isinstance(value, ours.StructField):
        return theirs.StructField(value.name, pyspark_type(value.dataType), value.nullable)
    if isinstance(value, ours.ArrayType):
        return theirs.ArrayType(pyspark_type(value.elementType), value.containsNull)
    if isinstance(value, ours.MapType):
        return theirs.MapType(pyspark_type(value.keyType), pyspark_type(value.valueType), value.valueContainsNull)
    if isinstance(value, ours.DecimalType):
        return theirs.DecimalType(value.precision, value.scale)
    return getattr(theirs, type(value).__name__)()


def forward_functions(namespace: dict[str, Any], names: list[str]) -> None:
    """Make each function ``names`` of a module's ``namespace`` call
    ``pyspark.sql.functions``' namesake while a remote session is active."""
    for name in names:
        namespace[name] = _forwarding(name, namespace[name])


def _forwarding(name: str, ours: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(ours)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not active():
            return ours(*args, **kwargs)
        theirs = getattr(importlib.import_module("pyspark.sql.functions"), name)
        return theirs(*[pyspark_type(a) for a in args], **{k: pyspark_type(v) for k, v in kwargs.items()})

    return call
