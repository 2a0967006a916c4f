"""``Observation``: named metrics of a batch DataFrame's action, read with ``get``."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from sparklet.errors import (
    IllegalArgumentException,
    PySparkAssertionError,
    PySparkTypeError,
    PySparkValueError,
)

if TYPE_CHECKING:
    from sparklet.sql.column import Column
    from sparklet.sql.dataframe import DataFrame

__all__ = ["Observation"]


class Observation:
    """Aggregates (``F.count``, ``F.max``, ...) observed on a batch DataFrame
    with ``df.observe(observation, *exprs)``, read back as a dict with ``get``.

    Streaming DataFrames report theirs in each batch's progress instead
    (``observe`` with a name); an Observation on a stream is refused, as in Spark.

    Parameters
    ----------
    name : str, optional
        The observation's name (a random UUID when omitted).

    Examples
    --------
    >>> from sparklet.sql import SparkSession, Observation, functions as F
    >>> spark = SparkSession.builder.getOrCreate()
    >>> obs = Observation("stats")
    >>> df = spark.createDataFrame([(1,), (5,)], "age INT")
    >>> df.observe(obs, F.count(F.lit(1)).alias("count"), F.max("age")).count()
    2
    >>> obs.get
    {'count': 2, 'max(age)': 5}
    """

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            if not isinstance(name, str):
                raise PySparkTypeError(
                    f"[NOT_EXPECTED_TYPE] Argument `name` should be str, got {type(name).__name__}.",
                    "NOT_EXPECTED_TYPE",
                )
            if name == "":
                raise PySparkValueError(
                    "[VALUE_NOT_NON_EMPTY_STR] Value for `name` must be a non-empty string, got ''.",
                    "VALUE_NOT_NON_EMPTY_STR",
                )
        self._name = name
        self._observed: tuple[DataFrame, tuple[Column, ...]] | None = None
        self._metrics: dict[str, Any] | None = None

    def _on(self, df: DataFrame, *exprs: Column) -> DataFrame:
        """Attach to ``df``: the observed DataFrame (its rows unchanged)."""
        if self._observed is not None:
            raise PySparkAssertionError(
                "[REUSE_OBSERVATION] An Observation can be used with a DataFrame only once.", "REUSE_OBSERVATION"
            )
        if df.isStreaming:
            raise IllegalArgumentException(
                "Observation does not support streaming Datasets.This is because there will be multiple observed "
                "metrics as microbatches are constructed. Please register a StreamingQueryListener and get the "
                "metric for each microbatch in QueryProgressEvent.progress, or use query.lastProgress or "
                "query.recentProgress."
            )
        observed = df.observe(self._name or str(uuid.uuid4()), *exprs)  # checks the expressions
        self._observed = (df, exprs)
        return observed

    @property
    def get(self) -> dict[str, Any]:
        """The observed metrics, by name.

        Spark computes them during the observed DataFrame's first action;
        sparklet computes them over the same rows when first asked (a batch
        DataFrame's rows are the same each time it runs), and keeps them.

        Returns
        -------
        dict
            Each aggregate's name to its value.

        Raises
        ------
        PySparkAssertionError
            ``NO_OBSERVE_BEFORE_GET`` before ``df.observe(observation, ...)``.

        Examples
        --------
        >>> from sparklet.sql import Observation
        >>> obs = Observation("sizes")
        >>> df = spark.range(4).observe(obs, F.sum("id").alias("total"))
        >>> df.count()
        4
        >>> obs.get
        {'total': 6}
        """
        if self._observed is None:
            raise PySparkAssertionError(
                "[NO_OBSERVE_BEFORE_GET] Should observe by calling `DataFrame.observe` before `get`.",
                "NO_OBSERVE_BEFORE_GET",
            )
        if self._metrics is None:
            df, exprs = self._observed
            self._metrics = df.agg(*exprs).collect()[0].asDict(recursive=False)
        return dict(self._metrics)
