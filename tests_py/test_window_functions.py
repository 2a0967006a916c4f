"""Window functions over `Window` specs on batch DataFrames: values and
Spark's column names, the same on both engines (pytest --engine=pyspark);
a stream refuses them with Spark's error, naming the column."""

from __future__ import annotations

import pytest

from sparklet.sql import SparkSession, Window
from sparklet.sql import functions as F

SPEC = "PARTITION BY k ORDER BY v ASC NULLS FIRST"


@pytest.fixture(scope="module")
def scores(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame(
        [("a", 1, 10.0), ("a", 2, 20.0), ("a", 2, 5.0), ("a", 4, None), ("b", 3, 5.0)],
        "k STRING, v INT, x DOUBLE",
    )


def test_ranking_functions(scores) -> None:  # noqa: ANN001
    w = Window.partitionBy("k").orderBy("v")
    out = scores.select(
        "k",
        "v",
        F.rank().over(w),
        F.dense_rank().over(w),
        F.percent_rank().over(w),
        F.cume_dist().over(w),
        F.ntile(2).over(w),
    )
    rows_frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    assert out.columns == [
        "k",
        "v",
        f"RANK() OVER ({SPEC} {rows_frame})",
        f"DENSE_RANK() OVER ({SPEC} {rows_frame})",
        f"PERCENT_RANK() OVER ({SPEC} {rows_frame})",
        f"cume_dist() OVER ({SPEC} RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        f"ntile(2) OVER ({SPEC} {rows_frame})",
    ]
    rows = sorted(tuple(r) for r in out.collect())
    assert rows == [
        ("a", 1, 1, 1, 0.0, 0.25, 1),
        ("a", 2, 2, 2, 1 / 3, 0.75, 1),
        ("a", 2, 2, 2, 1 / 3, 0.75, 2),
        ("a", 4, 4, 3, 1.0, 1.0, 2),
        ("b", 3, 1, 1, 0.0, 1.0, 1),
    ]


def test_row_number_lag_and_lead(scores) -> None:  # noqa: ANN001
    # ordered by v and x: no ties, so every row's neighbours are fixed
    w = Window.partitionBy("k").orderBy("v", F.desc("x"))
    out = scores.select(
        "k",
        "x",
        F.row_number().over(w).alias("n"),
        F.lag("x").over(w).alias("prev"),
        F.lag("x", 2, 0.0).over(w).alias("prev2"),
        F.lead("x").over(w).alias("next"),
    )
    rows = sorted((tuple(r) for r in out.collect()), key=lambda r: (r[0], r[2]))
    assert rows == [
        ("a", 10.0, 1, None, 0.0, 20.0),
        ("a", 20.0, 2, 10.0, 0.0, 5.0),
        ("a", 5.0, 3, 20.0, 10.0, None),
        ("a", None, 4, 5.0, 20.0, None),
        ("b", 5.0, 1, None, 0.0, None),
    ]
    named = scores.select(F.lag("x", 2, 0.0).over(w), F.lead("x").over(w))
    order = "PARTITION BY k ORDER BY v ASC NULLS FIRST, x DESC NULLS LAST"
    assert named.columns == [
        f"lag(x, 2, 0.0) OVER ({order} ROWS BETWEEN -2 FOLLOWING AND -2 FOLLOWING)",
        f"lead(x, 1, NULL) OVER ({order} ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING)",
    ]


def test_aggregates_over_windows(scores) -> None:  # noqa: ANN001
    ordered = Window.partitionBy("k").orderBy("v")
    out = scores.select(
        "k",
        "v",
        "x",
        F.sum("x").over(ordered).alias("running"),
        F.sum("x").over(Window.partitionBy("k")).alias("total"),
        F.count("*").over(ordered.rowsBetween(-1, 1)).alias("around"),
        F.max("v").over(ordered.rangeBetween(Window.currentRow, 1)).alias("ahead"),
        F.first("x", True).over(ordered.rowsBetween(Window.unboundedPreceding, 0)).alias("first"),
    )
    rows = sorted((tuple(r) for r in out.collect()), key=lambda r: (r[0], r[1], r[2] or 0))
    assert [r[:5] for r in rows] == [
        ("a", 1, 10.0, 10.0, 35.0),
        ("a", 2, 5.0, 35.0, 35.0),
        ("a", 2, 20.0, 35.0, 35.0),
        ("a", 4, None, 35.0, 35.0),
        ("b", 3, 5.0, 5.0, 5.0),
    ]
    assert [r[5] for r in rows] == [2, 3, 3, 2, 1]
    assert [r[6] for r in rows] == [2, 2, 2, 4, 3]
    assert all(r[7] == 10.0 for r in rows[:4]) and rows[4][7] == 5.0
    named = scores.select(F.sum("x").over(ordered), F.avg("x").over(ordered.rowsBetween(-1, 1)))
    assert named.columns == [
        f"sum(x) OVER ({SPEC} RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        f"avg(x) OVER ({SPEC} ROWS BETWEEN -1 FOLLOWING AND 1 FOLLOWING)",
    ]
    whole = scores.select(F.sum("v").over(Window.partitionBy("k")))
    assert whole.columns == ["sum(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"]


def test_a_stream_refuses_window_functions(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    from sparklet.errors import AnalysisException

    stream = spark.readStream.format("rate").load()
    ranked = stream.select(F.row_number().over(Window.orderBy("value")).alias("rn"))
    with pytest.raises(AnalysisException) as e:
        ranked.writeStream.format("console").option("checkpointLocation", str(tmp_path)).start()
    message = str(e.value)
    assert "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING" in message
    assert "ROW_NUMBER() (as column `rn`)" in message
    assert "(window specification: (ORDER BY VALUE ASC NULLS FIRST ROWS BETWEEN" in message


def test_over_takes_a_window_spec(spark: SparkSession) -> None:
    from sparklet.errors import PySparkTypeError

    with pytest.raises(PySparkTypeError, match="NOT_EXPECTED_TYPE"):
        F.row_number().over("k")  # type: ignore[arg-type]


def test_ranking_functions_give_ints_named_as_spark_names_them(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "x"), (2, "x"), (2, "y")], "a INT, g STRING")
    w = Window.partitionBy("g").orderBy("a")
    out = df.select(
        "a",
        F.row_number().over(w),
        F.rank().over(w).alias("r"),
        F.dense_rank().over(w).alias("d"),
        F.ntile(2).over(w).alias("n"),
    )
    assert [(f.name, f.dataType.simpleString()) for f in out.schema.fields] == [
        ("a", "int"),
        (
            "row_number() OVER (PARTITION BY g ORDER BY a ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
            "int",
        ),
        ("r", "int"),
        ("d", "int"),
        ("n", "int"),
    ]
    assert sorted(tuple(r)[1:] for r in out.collect()) == [(1, 1, 1, 1), (1, 1, 1, 1), (2, 2, 2, 2)]
