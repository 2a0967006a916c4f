"""sparklet's :mod:`pyspark.pipelines` (Spark Declarative Pipelines): the
decorators that define a pipeline's datasets and flows. The graph runs in
this process (:mod:`sparklet.pipelines.graph`)."""

from sparklet.pipelines.api import (
    append_flow,
    create_sink,
    create_streaming_table,
    materialized_view,
    table,
    temporary_view,
)

__all__ = [
    "append_flow",
    "create_sink",
    "create_streaming_table",
    "materialized_view",
    "table",
    "temporary_view",
]
