"""PySpark's core API in one process: :class:`SparkContext` and :class:`RDD`."""

from sparklet.core.context import SparkContext
from sparklet.core.rdd import RDD

__all__ = ["RDD", "SparkContext"]
