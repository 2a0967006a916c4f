"""The ``nexmark`` source and the Nexmark queries of ``bench/nexmark``,
checked against pandas computations over the same events."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pandas as pd
import pytest

from sparklet.errors import IllegalArgumentException
from sparklet.sql import SparkSession

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "nexmark"))
from queries import BATCH_ONLY, SQL, dataframe_query, sql_query  # noqa: E402

pytestmark = pytest.mark.sparklet_only(reason="the nexmark source is sparklet's (docs/differences.md)")

# 20 s of event time (1,000 events a second), so that windows close
OPTIONS = {"numEvents": "20000", "eventsPerSecond": "1000"}


def events(spark: SparkSession, **options: str):  # noqa: ANN201
    return spark.read.format("nexmark").options(**{**OPTIONS, **options}).load()


def kind(spark: SparkSession, name: str) -> pd.DataFrame:
    code = {"person": 0, "auction": 1, "bid": 2}[name]
    return events(spark).where(f"event_type = {code}").select(f"{name}.*").toPandas()


def test_events_follow_the_reference_generator(spark: SparkSession) -> None:
    all_events = events(spark).toArrow()
    assert events(spark).toArrow().equals(all_events)  # deterministic
    types = all_events.column("event_type").to_pylist()
    # persons, auctions and bids 1:3:46, in that order within every 50 events
    assert (types.count(0), types.count(1), types.count(2)) == (400, 1200, 18400)
    assert types[:5] == [0, 1, 1, 1, 2]
    persons, auctions, bids = kind(spark, "person"), kind(spark, "auction"), kind(spark, "bid")
    assert persons["id"].tolist() == list(range(1000, 1400))
    assert auctions["id"].tolist() == list(range(1000, 2200))
    assert set(auctions["category"]) <= set(range(10, 15))
    # sellers and bidders are people who exist; bids go to recent auctions
    assert auctions["seller"].between(1000, 1400 + 10).all()
    assert bids["bidder"].between(1000, 1400 + 10).all()
    assert bids["auction"].between(1000, 2200 + 10).all()
    # event n happens at n / eventsPerSecond after 2024-01-01
    times = all_events.column("dateTime").to_pylist()
    assert times[0] == dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    assert times[1500] == dt.datetime(2024, 1, 1, 0, 0, 1, 500000, tzinfo=dt.UTC)
    assert bids["price"].min() >= 100 and bids["price"].max() <= 100_000_000
    # half the bids go to hot auctions (ids divisible by 100 after the first id)
    hot = ((bids["auction"] - 1000) % 100 == 0).mean()
    assert 0.45 < hot < 0.6
    other = events(spark, seed="7").where("event_type = 2").select("bid.price").toPandas()
    assert other["price"].tolist() != bids["price"].tolist()


def test_a_stream_delivers_every_event_once_across_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    seen: list[dict] = []

    def run(num_events: int) -> None:
        stream = (
            spark.readStream.format("nexmark")
            .options(**{**OPTIONS, "numEvents": str(num_events), "maxEventsPerTrigger": "3000"})
            .load()
        )
        q = (
            stream.select("event_type", "person.id", "dateTime")
            .writeStream.foreachBatch(lambda tbl, _: seen.extend(tbl.to_pylist()))
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .trigger(availableNow=True)
            .start()
        )
        q.awaitTermination()
        return q

    q = run(10_000)
    assert [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]] == [3000, 3000, 3000, 1000]
    run(20_000)  # the same stream, longer: the next 10,000 events only
    assert len(seen) == 20_000
    expected = events(spark).select("event_type", "person.id", "dateTime").toArrow().to_pylist()
    key = lambda r: (r["dateTime"], r["event_type"], r["id"] or 0)  # noqa: E731
    assert sorted(seen, key=key) == sorted(expected, key=key)


def test_bad_options_are_named(spark: SparkSession) -> None:
    with pytest.raises(IllegalArgumentException, match="numEvents"):
        spark.read.format("nexmark").load()
    with pytest.raises(IllegalArgumentException, match="(?i)unknown option 'numEvent'"):
        spark.readStream.format("nexmark").option("numEvent", 10).load()
    with pytest.raises(IllegalArgumentException, match="eventsPerSecond"):
        spark.readStream.format("nexmark").option("eventsPerSecond", 0).load()


def run_query(spark: SparkSession, name: str, form: str) -> pd.DataFrame:
    """The query's output over the small stream (a batch for batch queries)."""
    if name in BATCH_ONLY:
        df, _ = (dataframe_query if form == "df" else sql_query)(name, spark, events(spark))
        return df.toPandas()
    stream = spark.readStream.format("nexmark").options(**OPTIONS, maxEventsPerTrigger="4000").load()
    df, mode = (dataframe_query if form == "df" else sql_query)(name, spark, stream)
    parts: list[pd.DataFrame] = []
    q = df.writeStream.outputMode(mode).foreachBatch(lambda tbl, _: parts.append(tbl.to_pandas())).start()
    q.processAllAvailable()
    q.stop()
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def closed(starts: pd.Series, size_s: int, bids: pd.DataFrame) -> pd.Series:
    """Windows of ``size_s`` starting at ``starts`` that the final watermark
    (the newest bid less 1 s) closed."""
    watermark = bids["dateTime"].max() - pd.Timedelta(seconds=1)
    return starts + pd.Timedelta(seconds=size_s) <= watermark


def expected(spark: SparkSession, name: str) -> pd.DataFrame:
    persons, auctions, bids = kind(spark, "person"), kind(spark, "auction"), kind(spark, "bid")
    if name == "q0":
        return bids[["auction", "bidder", "price", "dateTime", "extra"]]
    if name == "q1":
        return bids.assign(price=bids["price"] * 0.908)[["auction", "bidder", "price", "dateTime", "extra"]]
    if name == "q2":
        return bids[bids["auction"] % 123 == 0][["auction", "price"]]
    if name == "q3":
        a = auctions[auctions["category"] == 10]
        p = persons[persons["state"].isin(["OR", "ID", "CA"])]
        m = a.merge(p, left_on="seller", right_on="id", suffixes=("_a", ""))
        return m.rename(columns={"id_a": "auction_id"})[["name", "city", "state", "auction_id"]]
    if name == "q4":
        m = auctions.merge(bids, left_on="id", right_on="auction", suffixes=("_a", ""))
        m = m[(m["dateTime"] >= m["dateTime_a"]) & (m["dateTime"] <= m["expires"])]
        final = m.groupby(["id", "category"])["price"].max().reset_index()
        return final.groupby("category")["price"].mean().reset_index().rename(columns={"price": "avg_final"})
    if name == "q5":
        rows = []
        step = pd.Timedelta(seconds=2)
        for t, auction in zip(bids["dateTime"], bids["auction"]):
            first = t.floor("2s") - pd.Timedelta(seconds=8)
            for k in range(5):
                rows.append((first + k * step, auction))
        per = pd.DataFrame(rows, columns=["start", "auction"]).value_counts().reset_index(name="num")
        top = per.groupby("start")["num"].max().reset_index(name="maxn")
        return top[closed(top["start"], 10, bids)].reset_index(drop=True)
    if name == "q7":
        g = bids.assign(start=bids["dateTime"].dt.floor("10s")).groupby("start")
        out = g.agg(maxprice=("price", "max"), bids=("price", "size")).reset_index()
        return out[closed(out["start"], 10, bids)].reset_index(drop=True)
    if name == "q8":
        p = persons.assign(start=persons["dateTime"].dt.floor("10s"))
        a = auctions.assign(start=auctions["dateTime"].dt.floor("10s"))
        m = p.merge(a, left_on=["id", "start"], right_on=["seller", "start"], suffixes=("", "_a"))
        return m.rename(columns={"id": "person_id"})[["person_id", "name", "start"]]
    raise ValueError(name)


def normalize(df: pd.DataFrame) -> tuple[list[str], list[tuple]]:
    """Column names and rows, in a fixed order; a window struct as its
    start, floats rounded, times without a zone."""
    if "window" in df.columns:
        df = df.assign(start=[w["start"] for w in df["window"]]).drop(columns=["window"])
    columns = sorted(df.columns)

    def plain(v: object) -> object:
        if isinstance(v, float):
            return round(v, 6)
        if isinstance(v, (pd.Timestamp, dt.datetime)):
            return pd.Timestamp(v).tz_localize(None) if pd.Timestamp(v).tzinfo else pd.Timestamp(v)
        return v

    rows = [tuple(plain(v) for v in row) for row in df[columns].itertuples(index=False)]
    return columns, sorted(rows, key=repr)


QUERY_FORMS = [(q, "df") for q in ("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8")] + [(q, "sql") for q in SQL]


@pytest.mark.parametrize(("name", "form"), QUERY_FORMS)
def test_query_results_match_pandas(spark: SparkSession, name: str, form: str) -> None:
    want = normalize(expected(spark, name))
    assert want[1], "the input must exercise the query"
    assert normalize(run_query(spark, name, form)) == want


def test_a_where_above_a_stream_join_bounds_its_state(spark: SparkSession) -> None:
    # q3 in SQL filters after the join; the filters go below it before the
    # join's state is planned, so it holds what the DataFrame form holds
    held = {}
    for form in ("df", "sql"):
        stream = spark.readStream.format("nexmark").options(**OPTIONS, maxEventsPerTrigger="4000").load()
        df, mode = (dataframe_query if form == "df" else sql_query)("q3", spark, stream)
        q = df.writeStream.outputMode(mode).format("noop").start()
        q.processAllAvailable()
        held[form] = q.lastProgress["stateOperators"][0]["numRowsTotal"]
        q.stop()
    auctions, persons = kind(spark, "auction"), kind(spark, "person")
    kept = (auctions["category"] == 10).sum() + persons["state"].isin(["OR", "ID", "CA"]).sum()
    assert held == {"df": kept, "sql": kept}
