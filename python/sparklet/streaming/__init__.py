"""sparklet's :mod:`pyspark.streaming`: the legacy DStream API
(:class:`StreamingContext`, :class:`DStream`), run in batches over local RDDs."""

from sparklet.streaming.context import StreamingContext
from sparklet.streaming.dstream import DStream

__all__ = ["DStream", "StreamingContext"]
