"""The decorators and functions of ``pyspark.pipelines`` (Spark Declarative
Pipelines): each defines a dataset or a flow of the active pipeline graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparklet.errors import PySparkTypeError
from sparklet.pipelines.graph import Dataset, Flow, active_graph

QueryFunction = Callable[[], Any]

__all__ = [
    "append_flow",
    "create_sink",
    "create_streaming_table",
    "materialized_view",
    "table",
    "temporary_view",
]


def _check_name(name: Any, arg: str = "name") -> None:
    if name is not None and type(name) is not str:
        raise PySparkTypeError(
            f"[NOT_EXPECTED_TYPE] The argument `{arg}` should be a str, got {type(name).__name__}.",
            "NOT_EXPECTED_TYPE",
        )


def _decorator(kind: str, query_function: QueryFunction | None, **details: Any) -> Any:
    _check_name(details.get("name"))

    def outer(func: QueryFunction) -> None:
        if not callable(func):
            raise PySparkTypeError(
                f"[DECORATOR_ARGUMENT_NOT_CALLABLE] The first positional argument passed to @{kind} must be "
                "callable. Either add @" + kind + " with no parameters to your function, or pass options "
                "to @" + kind + " using keyword arguments (e.g. " + kind + "(name='table_a')).",
                "DECORATOR_ARGUMENT_NOT_CALLABLE",
            )
        name = details.pop("name", None) or func.__name__
        graph = active_graph()
        graph.add_dataset(Dataset(name=name, kind=kind, **details))
        graph.add_flow(Flow(name=name, target=name, func=func))

    if query_function is not None:
        outer(query_function)
        return None
    return outer


def table(
    query_function: QueryFunction | None = None,
    *,
    name: str | None = None,
    comment: str | None = None,
    spark_conf: dict[str, str] | None = None,
    table_properties: dict[str, str] | None = None,
    partition_cols: list[str] | None = None,
    cluster_by: list[str] | None = None,
    schema: Any = None,
    format: str | None = None,  # noqa: A002
) -> Any:
    """Define a streaming table whose flow is the decorated function's
    streaming DataFrame (kept up to date incrementally: a checkpointed
    streaming query per flow)."""
    return _decorator(
        "table",
        query_function,
        name=name,
        comment=comment,
        spark_conf=spark_conf or {},
        table_properties=table_properties or {},
        partition_cols=partition_cols,
        format=format,
    )


def materialized_view(
    query_function: QueryFunction | None = None,
    *,
    name: str | None = None,
    comment: str | None = None,
    spark_conf: dict[str, str] | None = None,
    table_properties: dict[str, str] | None = None,
    partition_cols: list[str] | None = None,
    cluster_by: list[str] | None = None,
    schema: Any = None,
    format: str | None = None,  # noqa: A002
) -> Any:
    """Define a materialized view: the decorated function's batch
    DataFrame, recomputed whole at each run."""
    return _decorator(
        "materialized_view",
        query_function,
        name=name,
        comment=comment,
        spark_conf=spark_conf or {},
        table_properties=table_properties or {},
        partition_cols=partition_cols,
        format=format,
    )


def temporary_view(
    query_function: QueryFunction | None = None,
    *,
    name: str | None = None,
    comment: str | None = None,
    spark_conf: dict[str, str] | None = None,
) -> Any:
    """Define a view other datasets of the run read (not stored)."""
    return _decorator("temporary_view", query_function, name=name, comment=comment, spark_conf=spark_conf or {})


def create_streaming_table(
    name: str,
    *,
    comment: str | None = None,
    table_properties: dict[str, str] | None = None,
    partition_cols: list[str] | None = None,
    cluster_by: list[str] | None = None,
    schema: Any = None,
    format: str | None = None,  # noqa: A002
) -> None:
    """Define a streaming table that ``append_flow`` s write to."""
    _check_name(name)
    active_graph().add_dataset(
        Dataset(
            name=name,
            kind="table",
            comment=comment,
            table_properties=table_properties or {},
            partition_cols=partition_cols,
            format=format,
        )
    )


def create_sink(name: str, format: str, options: dict[str, str] | None = None) -> None:  # noqa: A002
    """Define a sink (a ``writeStream`` format and its options) that
    ``append_flow`` s write to."""
    _check_name(name)
    active_graph().add_dataset(Dataset(name=name, kind="sink", format=format, options=dict(options or {})))


def append_flow(
    *, target: str, name: str | None = None, spark_conf: dict[str, str] | None = None
) -> Callable[[QueryFunction], None]:
    """Make the decorated function a flow appending its streaming DataFrame
    to ``target`` (a streaming table or a sink)."""
    _check_name(name)

    def outer(func: QueryFunction) -> None:
        active_graph().add_flow(Flow(name=name or func.__name__, target=target, func=func, spark_conf=spark_conf or {}))

    return outer
