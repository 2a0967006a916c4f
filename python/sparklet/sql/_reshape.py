"""DataFrame reshaping and sampling built from other DataFrame operations:
``unpivot``/``melt``, ``colRegex``, ``sample``, ``randomSplit``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sparklet import _native
from sparklet.errors import AnalysisException, IllegalArgumentException, PySparkValueError
from sparklet.errors._raise import not_expected_type
from sparklet.sql.column import Column, _to_col
from sparklet.sql.types import (
    ByteType,
    DataType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
)

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame

#: Numeric types in the order Spark widens them.
_WIDENING = (ByteType, ShortType, IntegerType, LongType, DecimalType, FloatType, DoubleType)


class _ColumnList(Column):
    """Several columns by name (``colRegex``), expanded by ``select``."""

    def __init__(self, names: list[str]) -> None:
        from sparklet.sql import functions as F

        super().__init__(_native.col(f"`{names[0]}`") if names else F.lit(None)._expr)
        self._names = names


def col_regex(df: DataFrame, pattern: str) -> Column:
    """``df.colRegex``: a name in backquotes is a regex over the column names
    (matched whole); otherwise the one column of that name."""
    if not isinstance(pattern, str):
        raise not_expected_type("colName", "str", pattern)
    m = re.fullmatch(r"`(.+)`", pattern, flags=re.S)
    if not m:
        return df[pattern]
    regex = re.compile(m.group(1))
    return _ColumnList([n for n in df.columns if regex.fullmatch(n)])


def _widest(types: list[DataType]) -> DataType | None:
    """The type every value column widens to, or None."""
    first = types[0]
    if all(t == first for t in types):
        return first
    ranks = []
    for t in types:
        rank = next((i for i, k in enumerate(_WIDENING) if isinstance(t, k)), None)
        if rank is None:
            return None
        ranks.append(rank)
    return types[ranks.index(max(ranks))]


def unpivot(df: DataFrame, ids: Any, values: Any, variable: str, value: str) -> DataFrame:
    """``df.unpivot``: per input row, a row per value column in order."""
    from sparklet.sql import functions as F

    def columns(arg: Any) -> list[Column]:
        if arg is None:
            return []
        items = list(arg) if isinstance(arg, (list, tuple)) else [arg]
        return [_to_col(c) for c in items]

    id_cols = columns(ids)
    id_names = [c._expr.name() for c in id_cols]
    value_cols = columns(values) if values is not None else [F.col(f"`{n}`") for n in df.columns if n not in id_names]
    if not value_cols:
        raise AnalysisException(
            "[UNPIVOT_REQUIRES_VALUE_COLUMNS] At least one value column needs to be specified for UNPIVOT, "
            "all columns specified as ids.",
            "UNPIVOT_REQUIRES_VALUE_COLUMNS",
        )
    value_names = [c._expr.name() for c in value_cols]
    typed = df.select(*value_cols).schema.fields
    widest = _widest([f.dataType for f in typed])
    if widest is None:
        listed = ", ".join(f"`{f.name}` {f.dataType.simpleString().upper()}" for f in typed)
        raise AnalysisException(
            f"[UNPIVOT_VALUE_DATA_TYPE_MISMATCH] Unpivot value columns must share a least common type, "
            f"some types do not: [{listed}].",
            "UNPIVOT_VALUE_DATA_TYPE_MISMATCH",
        )
    pairs = F.array(
        *[F.struct(F.lit(n).alias(variable), c.cast(widest).alias(value)) for n, c in zip(value_names, value_cols)]
    )
    exploded = df.select(*id_cols, F.explode(pairs).alias("__pair"))
    return exploded.select(
        *[F.col(f"`{n}`") for n in id_names],
        F.col("__pair").getField(variable).alias(variable),
        F.col("__pair").getField(value).alias(value),
    )


def sample(df: DataFrame, with_replacement: Any, fraction: Any, seed: Any) -> DataFrame:
    """``df.sample`` with PySpark's argument forms (``sample(0.5)``,
    ``sample(0.5, 3)``, ``sample(True, 0.5, 3)``)."""
    from sparklet.sql import functions as F

    given_flag = isinstance(with_replacement, bool) and isinstance(fraction, (float, int))
    flag_as_keyword = with_replacement is None and isinstance(fraction, (float, int))
    fraction_first = isinstance(with_replacement, (float, int)) and not isinstance(with_replacement, bool)
    if not (given_flag or flag_as_keyword or fraction_first):
        raise not_expected_type("withReplacement", "bool, float or int", with_replacement)
    if fraction_first:
        if fraction is not None:
            seed = fraction
        fraction, with_replacement = with_replacement, False
    replace = bool(with_replacement)
    fraction = float(fraction)
    if fraction < 0 or (not replace and fraction > 1):
        bound = "must be nonnegative" if replace else "must be on interval [0, 1] without replacement"
        # the JVM's require(): an IllegalArgumentException without a condition
        raise IllegalArgumentException(f"requirement failed: Sampling fraction ({fraction}) {bound}")
    seed = None if seed is None else int(seed)
    if not replace:
        return df if fraction >= 1.0 else df.filter(F.rand(seed) < F.lit(fraction))
    return _poisson_sample(df, fraction, seed)


def _poisson_sample(df: DataFrame, fraction: float, seed: int | None) -> DataFrame:
    """Each row repeated a Poisson(``fraction``) number of times: the count
    is the inverse of Poisson's distribution function at a seeded uniform
    draw, so a seed gives the same sample each run."""
    import math

    from sparklet.sql import functions as F

    u = F.col("__u")
    count: Any = F.lit(0)
    term, cdf, k = math.exp(-fraction), 0.0, 0
    while cdf < 1 - 1e-12 and k < 10_000:
        cdf += term
        count = count + F.when(u > F.lit(cdf), 1).otherwise(0)
        k += 1
        term *= fraction / k
    drawn = df.withColumn("__u", F.rand(seed))
    repeated = drawn.withColumn("__copies", F.array_repeat(F.lit(0), count)).drop("__u")
    return repeated.withColumn("__copies", F.explode("__copies")).drop("__copies")


def random_split(df: DataFrame, weights: list[float], seed: int | None) -> list[DataFrame]:
    """``df.randomSplit``: one draw per row decides its part, so the parts
    are disjoint and cover the rows."""
    from sparklet.sql import functions as F

    for w in weights:
        if w < 0.0:
            raise PySparkValueError(
                f"[VALUE_NOT_POSITIVE] Value for `weights` must be positive, got '{w}'.", "VALUE_NOT_POSITIVE"
            )
    total = sum(weights)
    if total <= 0:
        raise IllegalArgumentException("requirement failed: Sum of weights must be positive")
    seed = int(seed) if seed is not None else int.from_bytes(__import__("os").urandom(4), "little")
    # the draws are made once and kept, so every part reads the same ones
    drawn = df.withColumn("__draw", F.rand(seed)).persist()
    parts, low = [], 0.0
    for w in weights:
        high = low + w / total
        part = drawn.filter((F.col("__draw") >= F.lit(low)) & (F.col("__draw") < F.lit(high)))
        parts.append(part.drop("__draw"))
        low = high
    return parts


def transpose(df: DataFrame, index: Any) -> DataFrame:
    """``df.transpose(index)``: a row per other column (named in ``key``), a
    column per non-null value of ``index``, in ascending order of it. The
    result is computed now (its columns are the data's values)."""
    import pyarrow as pa

    from sparklet.sql import functions as F

    index_col = _to_col(index) if index is not None else F.col(f"`{df.columns[0]}`")
    index_name = index_col._expr.name()
    values = [n for n in df.columns if n != index_name]
    widest = _widest([df.schema[n].dataType for n in values]) if values else None
    if values and widest is None:
        listed = ", ".join(f"`{n}` {df.schema[n].dataType.simpleString().upper()}" for n in values)
        raise AnalysisException(
            f"[TRANSPOSE_NO_LEAST_COMMON_TYPE] Transpose requires non-index columns to share a least common "
            f"type, but {listed} do not.",
            "TRANSPOSE_NO_LEAST_COMMON_TYPE",
        )
    rows = (
        df.filter(index_col.isNotNull())
        .orderBy(index_col.asc())
        .select(
            index_col.cast("string").alias("__index"),
            *[F.col(f"`{n}`").cast(widest).alias(n) for n in values],  # type: ignore[arg-type]
        )
        .collect()
    )
    arrow_type = widest._to_arrow() if widest is not None else pa.null()
    columns = {"key": pa.array(values, pa.string())}
    for row in rows:
        columns[row["__index"]] = pa.array([row[n] for n in values], arrow_type)
    return df.sparkSession.createDataFrame(pa.table(columns))


def zip_with_index(df: DataFrame, name: str) -> DataFrame:
    """``df.zipWithIndex(name)``: the rows in order, with their 0-based
    position as a last ``bigint`` column (computed now)."""
    import pyarrow as pa

    table = df.toArrow()
    index = pa.array(range(table.num_rows), pa.int64())
    return df.sparkSession.createDataFrame(table.append_column(pa.field(name, pa.int64(), False), index))


def _nearest_error(kind: str, message: str) -> AnalysisException:
    return AnalysisException(f"[NEAREST_BY_JOIN.{kind}] Invalid nearest-by join. {message}", f"NEAREST_BY_JOIN.{kind}")


def nearest_by_join(
    left: DataFrame, other: DataFrame, ranking: Any, num: int, mode: str, direction: str, join_type: str
) -> DataFrame:
    """``left.nearestByJoin(...)``: for each left row, the ``num`` rows of
    ``other`` ranked first by ``ranking`` (smallest for ``distance``,
    largest for ``similarity``), over the whole cross product."""
    from sparklet.sql import functions as F
    from sparklet.sql.window import Window

    if not 1 <= num <= 100000:
        raise _nearest_error(
            "NUM_RESULTS_OUT_OF_RANGE",
            f"The number of results {num} must be between 1 and 100000. Update the literal in "
            f"`APPROX NEAREST {num} BY ...` (or `EXACT NEAREST {num} BY ...`) to fall within that range.",
        )
    if mode.lower() not in ("approx", "exact"):
        raise _nearest_error(
            "UNSUPPORTED_MODE",
            f"Unsupported nearest-by join mode '{mode}'. Supported modes include: 'approx', 'exact'.",
        )
    if direction.lower() not in ("distance", "similarity"):
        raise _nearest_error(
            "UNSUPPORTED_DIRECTION",
            f"Unsupported nearest-by join direction '{direction}'. Supported nearest-by join directions "
            "include: 'distance', 'similarity'.",
        )
    how = join_type.lower().replace("_", "")
    if how not in ("inner", "leftouter", "left"):
        raise _nearest_error(
            "UNSUPPORTED_JOIN_TYPE",
            f"Unsupported nearest-by join type {join_type}. Supported types: 'INNER', 'LEFT OUTER'.",
        )
    row, key, rank = "__nearest_row", "__nearest_key", "__nearest_rank"
    joined = left.zipWithIndex(row).join(other, F.lit(True), "inner" if how == "inner" else "left")
    # the ranking as a column first: the window orders by a plain column
    joined = joined.withColumn(key, ranking)
    order = F.col(key).asc() if direction.lower() == "distance" else F.col(key).desc()
    ranked = joined.withColumn(rank, F.row_number().over(Window.partitionBy(row).orderBy(order)))
    return ranked.where(F.col(rank) <= num).drop(row, key, rank)


def zip_frames(left: DataFrame, right: DataFrame) -> DataFrame:
    """``left.zip(right)``: the columns of both side by side, row by row;
    both must be projections of the same plan."""
    import pyarrow as pa

    if left._native.projection_base() != right._native.projection_base():
        raise AnalysisException(
            "[ZIP_PLANS_NOT_MERGEABLE] The two DataFrames in zip() cannot be merged. They must produce the "
            "same canonicalized plan after stripping outer Project chains, and must not contain non-scalar "
            "Python UDFs.",
            "ZIP_PLANS_NOT_MERGEABLE",
        )
    a, b = left.toArrow(), right.toArrow()
    table = pa.Table.from_arrays(a.columns + b.columns, schema=pa.schema(list(a.schema) + list(b.schema)))
    return left.sparkSession.createDataFrame(table)
