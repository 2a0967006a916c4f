"""sparklet: PySpark Structured Streaming in one process, on a Rust core.

Use it as you use PySpark::

    from sparklet.sql import SparkSession, functions as F
"""

from sparklet._native import __version__
from sparklet.storagelevel import StorageLevel

__all__ = ["StorageLevel", "__version__"]

# a PySpark worker of a `pytest --engine=pyspark` run: the tests' sparklet is PySpark
if __import__("os").environ.get("SPARKLET_AS_PYSPARK") == "1":
    from sparklet.testing.pyspark_engine import alias_modules

    alias_modules()
