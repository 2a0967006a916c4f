"""Delta Lake with delta-spark's Python names: :mod:`sparklet.delta.tables`
(``DeltaTable``), and :func:`configure_spark_with_delta_pip` so a session
builder written for delta-spark runs unchanged."""

from __future__ import annotations

from typing import Any

from sparklet.delta.tables import DeltaTable

__all__ = ["DeltaTable", "configure_spark_with_delta_pip"]


def configure_spark_with_delta_pip(spark_session_builder: Any, extra_packages: list[str] | None = None) -> Any:
    """delta-spark's helper adds the Delta jars to a builder; sparklet reads
    and writes Delta without them, so the builder is returned as it is."""
    return spark_session_builder
