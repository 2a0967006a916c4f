"""sparklet: PySpark Structured Streaming in one process, on a Rust core.

Use it as you use PySpark::

    from sparklet.sql import SparkSession, functions as F
"""

from sparklet._native import __version__

__all__ = ["__version__"]
