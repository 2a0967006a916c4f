"""Reading a streaming file sink's output outside Spark.

A file sink commits each micro-batch by appending to ``<path>/_spark_metadata``;
files not listed there (left by a crashed attempt) are not part of the
output. :func:`committed_files` lists the committed ones, e.g. for pyarrow::

    import pyarrow.parquet as pq
    table = pq.read_table(committed_files("out/"))
"""

from __future__ import annotations

from sparklet import _native

__all__ = ["committed_files"]


def committed_files(path: str) -> list[str]:
    """The data files a streaming file sink at ``path`` has committed, in batch order.

    Raises :class:`FileNotFoundError` when ``path`` has no ``_spark_metadata``.
    """
    files = _native.committed_files(path)
    if files is None:
        raise FileNotFoundError(f"{path}/_spark_metadata does not exist: {path} is not a streaming file sink output")
    return list(files)
