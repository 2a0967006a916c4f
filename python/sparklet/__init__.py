"""sparklet: PySpark Structured Streaming in one process, on a Rust core.

Use it as you use PySpark::

    from sparklet.sql import SparkSession, functions as F
"""

from sparklet._native import __version__
from sparklet.storagelevel import StorageLevel

__all__ = ["StorageLevel", "__version__"]
