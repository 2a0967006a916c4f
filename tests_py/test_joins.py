"""Joins: batch DataFrames and stream-static joins."""

from __future__ import annotations

import pytest

from sparklet.errors import AnalysisException, IllegalArgumentException
from sparklet.sql import DataFrame, SparkSession
from sparklet.sql import functions as F
from sparklet.testing import MemoryStream


@pytest.fixture
def people(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, "ann"), (2, "bob"), (3, "cid")], "id INT, name STRING")


@pytest.fixture
def orders(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, 10.0), (1, 5.0), (4, 7.0)], "id INT, amount DOUBLE")


def rows(df: DataFrame) -> list[tuple]:
    """Rows in a fixed order (nulls included)."""
    return sorted((tuple(r) for r in df.collect()), key=lambda r: [(v is None, v) for v in r])


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("inner", [(1, "ann", 5.0), (1, "ann", 10.0)]),
        ("left", [(1, "ann", 5.0), (1, "ann", 10.0), (2, "bob", None), (3, "cid", None)]),
        ("right_outer", [(1, "ann", 5.0), (1, "ann", 10.0), (4, None, 7.0)]),
        ("full", [(1, "ann", 5.0), (1, "ann", 10.0), (2, "bob", None), (3, "cid", None), (4, None, 7.0)]),
    ],
)
def test_using_join_outputs_each_key_once(people: DataFrame, orders: DataFrame, how: str, expected: list) -> None:
    joined = people.join(orders, "id", how)
    assert joined.columns == ["id", "name", "amount"]
    assert rows(joined) == expected


def test_semi_and_anti_joins_keep_left_columns(people: DataFrame, orders: DataFrame) -> None:
    assert rows(people.join(orders, ["id"], "left_semi")) == [(1, "ann")]
    assert rows(people.join(orders, "id", "anti")) == [(2, "bob"), (3, "cid")]


def test_join_on_a_condition_keeps_both_sides(people: DataFrame, orders: DataFrame) -> None:
    joined = people.join(orders, people["id"] == orders["id"], "inner").select(people["name"], orders["amount"])
    assert rows(joined) == [("ann", 5.0), ("ann", 10.0)]
    big = people.join(orders, [people.id == orders.id, orders.amount > 6], "left")
    assert rows(big.select("name", "amount")) == [("ann", 10.0), ("bob", None), ("cid", None)]


def test_cross_join(people: DataFrame, orders: DataFrame) -> None:
    assert people.crossJoin(orders).count() == 9


def test_bad_join_arguments(people: DataFrame, orders: DataFrame) -> None:
    with pytest.raises(AnalysisException, match="Unsupported join type 'sideways'") as e:
        people.join(orders, "id", "sideways")
    assert e.value.getCondition() == "UNSUPPORTED_JOIN_TYPE"
    with pytest.raises(AnalysisException, match="USING column `nope` cannot be resolved on the left side") as e:
        people.join(orders, "nope")
    assert e.value.getCondition() == "UNRESOLVED_USING_COLUMN_FOR_JOIN"


def test_stream_static_join_enriches_each_batch(spark: SparkSession, people: DataFrame) -> None:
    ms = MemoryStream(spark, "id INT, clicks INT")
    enriched = ms.toDF().join(people, "id", "left")
    q = enriched.writeStream.format("memory").queryName("enriched").start()
    ms.addData([(1, 3), (9, 1)])
    q.processAllAvailable()
    ms.addData([(2, 4)])
    q.processAllAvailable()
    assert rows(spark.table("enriched")) == [(1, 3, "ann"), (2, 4, "bob"), (9, 1, None)]
    q.stop()


def test_stream_static_aggregation(spark: SparkSession, people: DataFrame) -> None:
    ms = MemoryStream(spark, "id INT, clicks INT")
    per_name = ms.toDF().join(people, "id").groupBy("name").agg(F.sum("clicks").alias("clicks"))
    q = per_name.writeStream.outputMode("complete").format("memory").queryName("per_name").start()
    ms.addData([(1, 3), (2, 1), (1, 2)])
    q.processAllAvailable()
    assert rows(spark.table("per_name")) == [("ann", 5), ("bob", 1)]
    q.stop()


@pytest.mark.parametrize(
    ("stream_left", "how"), [(True, "right"), (True, "full"), (False, "left"), (False, "left_anti")]
)
def test_unsupported_stream_static_joins(spark: SparkSession, people: DataFrame, stream_left: bool, how: str) -> None:
    stream = MemoryStream(spark, "id INT, clicks INT").toDF()
    joined = stream.join(people, "id", how) if stream_left else people.join(stream, "id", how)
    with pytest.raises(
        AnalysisException, match=r"static DataFrame|LeftAnti joins with a streaming DataFrame/Dataset on the right"
    ) as e:
        joined.writeStream.format("noop").start()
    assert e.value.getCondition() == "_LEGACY_ERROR_TEMP_3102"  # Spark 4's UnsupportedOperationChecker


def write_users(folder, name: str, rows: list[tuple]) -> None:  # noqa: ANN001
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("".join(f'{{"id": {i}, "name": "{n}"}}\n' for i, n in rows))


@pytest.mark.sparklet_only(reason="sparklet.refreshOnChange and sparklet.refreshInterval are sparklet's options")
@pytest.mark.parametrize("option", [("sparklet.refreshOnChange", "true"), ("sparklet.refreshInterval", "1")])
def test_static_side_can_follow_its_files(spark: SparkSession, tmp_path, option: tuple) -> None:  # noqa: ANN001
    users_dir = tmp_path / "users"
    write_users(users_dir, "a.json", [(1, "ann")])
    users = spark.read.schema("id INT, name STRING").option(*option).json(str(users_dir))
    ms = MemoryStream(spark, "id INT, clicks INT")
    q = ms.toDF().join(users, "id", "left").writeStream.format("memory").queryName("followed").start()
    ms.addData([(1, 1), (2, 1)])
    q.processAllAvailable()
    write_users(users_dir, "b.json", [(2, "bob")])  # reference data grows
    ms.addData([(2, 5)])
    q.processAllAvailable()
    assert rows(spark.table("followed")) == [(1, 1, "ann"), (2, 1, None), (2, 5, "bob")]
    q.stop()


def test_static_side_is_a_snapshot_by_default(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    users_dir = tmp_path / "users"
    write_users(users_dir, "a.json", [(1, "ann")])
    users = spark.read.schema("id INT, name STRING").json(str(users_dir))
    ms = MemoryStream(spark, "id INT, clicks INT")
    q = ms.toDF().join(users, "id", "left").writeStream.format("memory").queryName("snapshot").start()
    ms.addData([(1, 1)])
    q.processAllAvailable()
    write_users(users_dir, "b.json", [(2, "bob")])
    ms.addData([(2, 5)])
    q.processAllAvailable()
    assert rows(spark.table("snapshot")) == [(1, 1, "ann"), (2, 5, None)]  # as Spark: files listed at read time
    q.stop()


@pytest.mark.sparklet_only(reason="sparklet.refreshOnChange and sparklet.refreshInterval are sparklet's options")
def test_bad_refresh_option(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    write_users(tmp_path / "u", "a.json", [(1, "ann")])
    with pytest.raises(IllegalArgumentException, match="refreshInterval"):
        spark.read.option("sparklet.refreshInterval", "0").json(str(tmp_path / "u"))


@pytest.mark.parametrize("auctions_first", [True, False])
def test_a_join_of_one_file_filtered_two_ways_matches_pandas(
    spark: SparkSession,
    tmp_path,  # noqa: ANN001
    auctions_first: bool,
) -> None:
    """Nexmark q4's shape: one Parquet input, a few auctions and many bids
    (more than the engine reads before it picks the smaller side to build
    its hash table on), joined on the auction with a time condition; the
    result is the same whichever side is written first."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 1_300_000
    kind = [1 if i % 20 == 0 else 2 for i in range(n)]
    pq.write_table(
        pa.table(
            {
                "kind": kind,
                "auction": [i % 5003 for i in range(n)],
                "t": list(range(n)),
                "price": [i % 997 for i in range(n)],
            }
        ),
        tmp_path / "events.parquet",
        row_group_size=65536,
    )
    events = spark.read.parquet(str(tmp_path))
    auctions = events.where("kind = 1").select(F.col("auction").alias("a_id"), F.col("t").alias("opened"))
    bids = events.where("kind = 2").select("auction", "t", "price")
    on = (F.col("auction") == F.col("a_id")) & (F.col("t") > F.col("opened"))
    joined = auctions.join(bids, on) if auctions_first else bids.join(auctions, on)
    got = joined.groupBy("a_id").agg(F.count("*").alias("n"), F.max("price").alias("top")).toPandas()

    df = events.toPandas()
    a = df[df.kind == 1].rename(columns={"auction": "a_id", "t": "opened"})[["a_id", "opened"]]
    b = df[df.kind == 2][["auction", "t", "price"]]
    m = a.merge(b, left_on="a_id", right_on="auction")
    m = m[m.t > m.opened]
    expected = m.groupby("a_id").agg(n=("price", "size"), top=("price", "max")).reset_index()
    assert len(expected) > 4000
    got = got.sort_values("a_id").reset_index(drop=True)
    assert got.a_id.tolist() == expected.a_id.tolist()
    assert got.n.tolist() == expected.n.tolist()
    assert got.top.tolist() == expected.top.tolist()
