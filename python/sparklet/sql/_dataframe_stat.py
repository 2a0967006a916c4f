"""Statistics of a DataFrame: ``df.stat`` (:class:`DataFrameStatFunctions`),
``corr``, ``cov``, ``crosstab``, ``freqItems``, ``approxQuantile``,
``sampleBy``, and ``describe``/``summary``. Each is one aggregate query;
the small result is shaped in Python as Spark shapes it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparklet.errors import PySparkTypeError, PySparkValueError
from sparklet.errors._raise import not_expected_type, value_not_allowed
from sparklet.sql.column import Column
from sparklet.sql.types import NumericType, StringType

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame

__all__ = ["DataFrameStatFunctions"]


def _name(col: Any, argument: str) -> str:
    if not isinstance(col, str):
        raise not_expected_type(argument, "str", col)
    return col


def _quoted(name: str) -> Column:
    from sparklet.sql import functions as F

    return F.col(f"`{name}`")


def corr(df: DataFrame, col1: str, col2: str, method: str | None = None) -> float | None:
    """Pearson's correlation of two columns (the only method Spark has)."""
    from sparklet.sql import functions as F

    _name(col1, "col1"), _name(col2, "col2")
    if method is not None and method != "pearson":
        raise value_not_allowed("method", ["pearson"])
    row = df.agg(F.corr(_quoted(col1), _quoted(col2))).first()
    value: float | None = row[0] if row is not None else None
    return value


def cov(df: DataFrame, col1: str, col2: str) -> float | None:
    """The sample covariance of two columns."""
    from sparklet.sql import functions as F

    _name(col1, "col1"), _name(col2, "col2")
    row = df.agg(F.covar_samp(_quoted(col1), _quoted(col2))).first()
    value: float | None = row[0] if row is not None else None
    return value


def _text(value: Any) -> str:
    """A value as Spark's crosstab names it (null as ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def crosstab(df: DataFrame, col1: str, col2: str) -> DataFrame:
    """Pair counts of two columns: a row per value of ``col1`` (named
    ``col1_col2``), a column per value of ``col2`` (sorted as text)."""
    from sparklet.sql import functions as F

    _name(col1, "col1"), _name(col2, "col2")
    counts = (
        df.select(_quoted(col1).cast("string").alias("a"), _quoted(col2).cast("string").alias("b"))
        .groupBy("a", "b")
        .agg(F.count(F.lit(1)).alias("n"))
        .collect()
    )
    columns = sorted({_text(r["b"]) for r in counts})
    rows: dict[str, dict[str, int]] = {}
    for r in counts:
        rows.setdefault(_text(r["a"]), {})[_text(r["b"])] = r["n"]
    data = {f"{col1}_{col2}": pa.array(list(rows), pa.string())}
    for c in columns:
        data[c] = pa.array([rows[k].get(c, 0) for k in rows], pa.int64())
    schema = pa.schema([pa.field(n, a.type, nullable=(i == 0)) for i, (n, a) in enumerate(data.items())])
    return df.sparkSession.createDataFrame(pa.Table.from_arrays(list(data.values()), schema=schema))


def freq_items(df: DataFrame, cols: Any, support: float | None = None) -> DataFrame:
    """The values of each column seen in at least ``support`` (default 1%)
    of the rows, as a column ``<col>_freqItems`` of arrays."""
    from sparklet.sql import functions as F

    if isinstance(cols, tuple):
        cols = list(cols)
    if not isinstance(cols, list):
        raise not_expected_type("cols", "list or tuple", cols)
    support = 0.01 if support is None else support
    if support < 1e-4:
        raise PySparkValueError(
            f"[INVALID_SUPPORT] Minimum support ({support}) must be greater than 1e-4.", "INVALID_SUPPORT"
        )
    total = df.count()
    out = []
    for c in cols:
        counted = df.groupBy(_quoted(c).alias("v")).agg(F.count(F.lit(1)).alias("n"))
        frequent = counted.filter(F.col("n") >= F.lit(support * total))
        out.append(frequent.agg(F.collect_list("v").alias(f"{c}_freqItems")))
    result = out[0]
    for o in out[1:]:
        result = result.crossJoin(o)
    return result


def approx_quantile(df: DataFrame, col: Any, probabilities: Any, relativeError: float) -> list[Any]:
    """Quantiles of numeric columns within ``relativeError`` (0: exact),
    nulls ignored; a list per column when ``col`` is a list."""
    from sparklet.sql import functions as F

    single = isinstance(col, str)
    if not single and not (isinstance(col, (list, tuple)) and all(isinstance(c, str) for c in col)):
        raise not_expected_type("col", "list, str or tuple", col)
    if not isinstance(probabilities, (list, tuple)):
        raise not_expected_type("probabilities", "list or tuple", probabilities)
    for p in probabilities:
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise not_expected_type("probabilities", "list[float, int]", p)
    if not isinstance(relativeError, (int, float)) or relativeError < 0:
        raise PySparkValueError(
            f"[NEGATIVE_VALUE] Value for `relativeError` must be greater than or equal to 0, got '{relativeError}'.",
            "NEGATIVE_VALUE",
        )
    cols = [col] if single else list(col)
    accuracy = 2**31 - 1 if relativeError == 0 else max(1, int(1 / relativeError))
    probs = [float(p) for p in probabilities]
    row = df.agg(
        *[F.percentile_approx(_quoted(c).cast("double"), probs, accuracy).alias(f"q{i}") for i, c in enumerate(cols)]
    ).first()
    result = [list(row[i] or []) for i in range(len(cols))]  # type: ignore[index]
    return result[0] if single else result


def sample_by(df: DataFrame, col: Any, fractions: dict[Any, float], seed: int | None = None) -> DataFrame:
    """A stratified sample: each row of stratum ``k`` (its ``col`` value)
    kept with probability ``fractions[k]`` (0 for strata not listed)."""
    from sparklet.sql import functions as F

    if isinstance(col, str):
        col = _quoted(col)
    if not isinstance(col, Column):
        raise not_expected_type("col", "Column or str", col)
    if not isinstance(fractions, dict):
        raise not_expected_type("fractions", "dict", fractions)
    for k, v in fractions.items():
        if not isinstance(k, (float, int, str)):
            raise PySparkTypeError(
                f"[DISALLOWED_TYPE_FOR_CONTAINER] Argument `fractions`(type: dict) should only contain a type in "
                f"[float, int, str], got {type(k).__name__}",
                "DISALLOWED_TYPE_FOR_CONTAINER",
            )
        if not 0 <= v <= 1:
            raise PySparkValueError(
                f"[INVALID_FRACTION] Fractions must be in [0, 1], got {v} for {k!r}.", "INVALID_FRACTION"
            )
    fraction: Any = F.lit(0.0)
    for k, v in fractions.items():
        fraction = F.when(col == F.lit(k), F.lit(float(v))).otherwise(fraction)
    return df.filter(F.rand(seed) < fraction)


_STATISTICS = ("count", "mean", "stddev", "min", "25%", "50%", "75%", "max")


def summary(df: DataFrame, statistics: list[str], default: tuple[str, ...] = _STATISTICS) -> DataFrame:
    """``summary``/``describe``: a row per statistic, a string column per
    numeric or string column (``summary`` first)."""

    statistics = list(statistics) or list(default)
    fields = [f for f in df.schema.fields if isinstance(f.dataType, (NumericType, StringType))]
    exprs: list[Column] = []
    for i, f in enumerate(fields):
        c = _quoted(f.name)
        numeric = isinstance(f.dataType, NumericType)
        for j, s in enumerate(statistics):
            exprs.append(_statistic(c, s, numeric).cast("string").alias(f"s{i}_{j}"))
    if not exprs:
        values: Any = [[] for _ in statistics]
    else:
        row = df.agg(*exprs).first()
        values = [[row[f"s{i}_{j}"] for i in range(len(fields))] for j in range(len(statistics))]  # type: ignore[index]
    names = ["summary", *[f.name for f in fields]]
    table = pa.table(
        {n: pa.array([([s, *v])[k] for s, v in zip(statistics, values)], pa.string()) for k, n in enumerate(names)}
    )
    return df.sparkSession.createDataFrame(table)


def _statistic(c: Column, name: str, numeric: bool) -> Column:
    from sparklet.sql import functions as F

    # strings count by their numeric values where they have one, as Spark's
    # implicit cast in avg/stddev/percentile_approx reads them
    if not numeric and name not in ("count", "min", "max", "count_distinct", "approx_count_distinct"):
        c = c.try_cast("double")
    if name == "count":
        return F.count(c)
    if name == "mean":
        return F.avg(c)
    if name == "stddev":
        return F.stddev(c)
    if name == "min":
        return F.min(c)
    if name == "max":
        return F.max(c)
    if name == "count_distinct":
        return F.count_distinct(c)
    if name == "approx_count_distinct":
        return F.approx_count_distinct(c)
    if name.endswith("%"):
        try:
            p = float(name[:-1]) / 100
        except ValueError:
            p = -1.0
        if 0 <= p <= 1:
            return F.percentile_approx(c, p, 10000)
    raise PySparkValueError(f"{name} is not a recognised statistic.", "ILLEGAL_ARGUMENT")


class DataFrameStatFunctions:
    """``df.stat``: the statistics functions of a DataFrame (the same as its ``corr``, ``cov``, ``crosstab``, ...).

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
    >>> round(df.stat.corr("x", "y"), 4)
    0.9934
    """

    def __init__(self, df: DataFrame) -> None:
        self.df = df

    def approxQuantile(self, col: Any, probabilities: Any, relativeError: float) -> list[Any]:
        """See :meth:`DataFrame.approxQuantile`.

        Parameters
        ----------
        col : str or list of str
            the numeric column(s)
        probabilities : list of float
            the quantiles, each from 0 to 1
        relativeError : float
            the precision allowed (0: exact)

        Returns
        -------
        list
            the quantiles (a list per column when ``col`` is a list)

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> df.stat.approxQuantile("y", [0.0, 0.5, 1.0], 0.0)
        [2.0, 4.0, 7.0]
        """
        return approx_quantile(self.df, col, probabilities, relativeError)

    def corr(self, col1: str, col2: str, method: str | None = None) -> float | None:
        """See :meth:`DataFrame.corr`.

        Parameters
        ----------
        col1 : str
            the first column
        col2 : str
            the second column
        method : str, optional
            ``pearson``, the only one

        Returns
        -------
        float
            the Pearson correlation coefficient

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> round(df.stat.corr("x", "y"), 4)
        0.9934
        """
        return corr(self.df, col1, col2, method)

    def cov(self, col1: str, col2: str) -> float | None:
        """See :meth:`DataFrame.cov`.

        Parameters
        ----------
        col1 : str
            the first column
        col2 : str
            the second column

        Returns
        -------
        float
            the sample covariance

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> df.stat.cov("x", "y")
        2.5
        """
        return cov(self.df, col1, col2)

    def crosstab(self, col1: str, col2: str) -> DataFrame:
        """See :meth:`DataFrame.crosstab`.

        Parameters
        ----------
        col1 : str
            the column whose values make the rows
        col2 : str
            the column whose values make the columns

        Returns
        -------
        DataFrame
            the counts of each pair, in a column ``col1_col2`` and one column per value of ``col2``

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> df.stat.crosstab("k", "x").orderBy("k_x").show()
        +---+---+---+---+
        |k_x|  1|  2|  3|
        +---+---+---+---+
        |  a|  1|  1|  0|
        |  b|  0|  0|  1|
        +---+---+---+---+
        <BLANKLINE>
        """
        return crosstab(self.df, col1, col2)

    def freqItems(self, cols: Any, support: float | None = None) -> DataFrame:
        """See :meth:`DataFrame.freqItems`.

        Parameters
        ----------
        cols : list of str
            the columns
        support : float, optional
            the smallest share of rows an item must have (default 0.01)

        Returns
        -------
        DataFrame
            one row of ``<col>_freqItems`` arrays (may hold false positives)

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> sorted(df.stat.freqItems(["k"], 0.6).first()[0])
        ['a']
        """
        return freq_items(self.df, cols, support)

    def sampleBy(self, col: Any, fractions: dict[Any, float], seed: int | None = None) -> DataFrame:
        """See :meth:`DataFrame.sampleBy`.

        Parameters
        ----------
        col : str or Column
            the column that makes the strata
        fractions : dict
            the share of rows to keep per value (missing values: 0)
        seed : int, optional
            the random seed

        Returns
        -------
        DataFrame
            a stratified sample, without replacement

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 2.0, "a"), (2, 4.0, "a"), (3, 7.0, "b")], ["x", "y", "k"])
        >>> df.stat.sampleBy("k", {"a": 1.0, "b": 0.0}, seed=1).orderBy("x").show()
        +---+---+---+
        |  x|  y|  k|
        +---+---+---+
        |  1|2.0|  a|
        |  2|4.0|  a|
        +---+---+---+
        <BLANKLINE>
        """
        return sample_by(self.df, col, fractions, seed)


# the class is shown as sparklet.sql.dataframe's (as PySpark's); its
# methods' examples are this module's
__test__ = {"DataFrameStatFunctions": DataFrameStatFunctions}
