"""Nexmark queries q0-q8 (q6 left out: see below), each with the DataFrame
API and with SQL, for sparklet and PySpark alike (the module only uses
PySpark's API; the caller passes the session and the events DataFrame).

The events are one row per event, as the ``nexmark`` source and its Parquet
copy have them: ``event_type`` (0 person, 1 auction, 2 bid), the structs
``person``, ``auction``, ``bid`` (the others null) and ``dateTime``.

Each query returns ``(DataFrame, output mode)``. Queries that Spark's
streaming engine can run as a stream (q0-q3, q5, q7, q8) are written for
it: windowed aggregations on a watermark, in append mode. q4 (average
closing price per category: an aggregation over an aggregation that is not
windowed) cannot be a Spark stream; ``BATCH_ONLY`` names it, and it runs
over the bounded input as a batch query. q6 (average of each seller's last
ten closed auctions) needs a row-count window over a stream, which neither
engine has, so it is not in the suite.
"""

from __future__ import annotations

from typing import Any

#: Queries that run as batch queries over the bounded input.
BATCH_ONLY = {"q4"}
#: How late an event may be (the generator's events are in order unless
#: ``outOfOrderGroupSize`` is set).
WATERMARK = "1 second"


def views(spark: Any, events: Any) -> tuple[Any, Any, Any]:
    """The persons, auctions and bids of ``events``, registered as the SQL
    views ``person``, ``auction`` and ``bid`` too."""
    from_kind = {0: "person", 1: "auction", 2: "bid"}
    out = []
    for kind, name in from_kind.items():
        df = events.where(f"event_type = {kind}").select(f"{name}.*")
        df.createOrReplaceTempView(name)
        out.append(df)
    return out[0], out[1], out[2]


def dataframe_query(name: str, spark: Any, events: Any) -> tuple[Any, str]:
    """Query ``name`` written with the DataFrame API."""
    F = _functions(spark)
    persons, auctions, bids = views(spark, events)
    if name == "q0":  # pass-through
        return bids.select("auction", "bidder", "price", "dateTime", "extra"), "append"
    if name == "q1":  # currency conversion: dollars to euros
        return bids.select("auction", "bidder", (F.col("price") * 0.908).alias("price"), "dateTime", "extra"), "append"
    if name == "q2":  # selection
        return bids.where(F.col("auction") % 123 == 0).select("auction", "price"), "append"
    if name == "q3":  # local item suggestion: sellers in three states, category 10
        a = auctions.where(F.col("category") == 10).select(F.col("id").alias("auction_id"), "seller")
        p = persons.where(F.col("state").isin("OR", "ID", "CA")).select(
            F.col("id").alias("person_id"), "name", "city", "state"
        )
        joined = a.join(p, F.col("seller") == F.col("person_id"))
        return joined.select("name", "city", "state", "auction_id"), "append"
    if name == "q4":  # average closing price per category (batch)
        a = auctions.select(F.col("id").alias("a_id"), "category", F.col("dateTime").alias("a_time"), "expires")
        winning = (
            a.join(
                bids, (F.col("auction") == F.col("a_id")) & F.col("dateTime").between(F.col("a_time"), F.col("expires"))
            )
            .groupBy("a_id", "category")
            .agg(F.max("price").alias("final"))
        )
        return winning.groupBy("category").agg(F.avg("final").alias("avg_final")), "complete"
    if name == "q5":  # hot items: bids per auction in 10 s windows every 2 s
        counts = (
            bids.withWatermark("dateTime", WATERMARK)
            .groupBy(F.window("dateTime", "10 seconds", "2 seconds"), "auction")
            .agg(F.count("*").alias("num"))
        )
        return counts.groupBy("window").agg(F.max("num").alias("maxn")), "append"
    if name == "q7":  # highest bid per 10 s window
        return (
            bids.withWatermark("dateTime", WATERMARK)
            .groupBy(F.window("dateTime", "10 seconds"))
            .agg(F.max("price").alias("maxprice"), F.count("*").alias("bids")),
            "append",
        )
    if name == "q8":  # new users: persons who opened an auction in the 10 s window they joined in
        p = persons.withWatermark("dateTime", WATERMARK).select(
            F.col("id").alias("person_id"), "name", F.window("dateTime", "10 seconds").alias("pw")
        )
        a = auctions.withWatermark("dateTime", WATERMARK).select(
            "seller", F.window("dateTime", "10 seconds").alias("aw")
        )
        joined = p.join(a, (F.col("person_id") == F.col("seller")) & (F.col("pw") == F.col("aw")))
        return joined.select("person_id", "name", F.col("pw.start").alias("start")), "append"
    raise ValueError(f"unknown query {name}")


SQL = {
    "q0": "SELECT auction, bidder, price, dateTime, extra FROM bid",
    "q1": "SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid",
    "q2": "SELECT auction, price FROM bid WHERE auction % 123 = 0",
    "q3": """SELECT P.name, P.city, P.state, A.id AS auction_id
             FROM auction A JOIN person P ON A.seller = P.id
             WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')""",
    "q4": """SELECT Q.category, AVG(Q.final) AS avg_final FROM (
               SELECT A.id, A.category, MAX(B.price) AS final
               FROM auction A JOIN bid B
                 ON A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
               GROUP BY A.id, A.category) Q
             GROUP BY Q.category""",
}


def sql_query(name: str, spark: Any, events: Any) -> tuple[Any, str] | None:
    """Query ``name`` written in SQL (None: only the DataFrame form, for
    the windowed queries, whose SQL needs the watermark set on the view)."""
    if name not in SQL:
        return None
    views(spark, events)
    return spark.sql(SQL[name]), "complete" if name == "q4" else "append"


def _functions(spark: Any) -> Any:
    """The functions module of the session's engine."""
    if type(spark).__module__.startswith("sparklet"):
        from sparklet.sql import functions
    else:
        from pyspark.sql import functions
    return functions


QUERIES = ["q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"]


#: Each query as one DuckDB SQL over the Parquet copy of the events
#: (``{events}``: a ``read_parquet`` of it), giving the rows the streaming
#: query emits by the end of an ``availableNow`` run: a window closes once
#: the watermark (the latest event time less ``WATERMARK``) passes its end,
#: so the windows still open at the end are left out, as the stream leaves
#: them. Used by run.py as a batch engine's reference time.
_PERSON = "(SELECT UNNEST(person) FROM {events} WHERE event_type = 0)"
_AUCTION = "(SELECT UNNEST(auction) FROM {events} WHERE event_type = 1)"
_BID = "(SELECT UNNEST(bid) FROM {events} WHERE event_type = 2)"
_CLOSED = "(SELECT max(dateTime) - INTERVAL 1 SECOND FROM {events} WHERE event_type = 2)"
DUCKDB = {
    "q0": f"SELECT auction, bidder, price, dateTime, extra FROM {_BID}",
    "q1": f"SELECT auction, bidder, CAST(price AS DOUBLE) * 0.908 AS price, dateTime, extra FROM {_BID}",
    "q2": f"SELECT auction, price FROM {_BID} WHERE auction % 123 = 0",
    "q3": f"""SELECT P.name, P.city, P.state, A.id AS auction_id
              FROM {_AUCTION} A JOIN {_PERSON} P ON A.seller = P.id
              WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')""",
    "q4": f"""SELECT Q.category, AVG(Q.final) AS avg_final FROM (
                SELECT A.id, A.category, MAX(B.price) AS final
                FROM {_AUCTION} A JOIN {_BID} B
                  ON A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
                GROUP BY A.id, A.category) Q
              GROUP BY Q.category""",
    # each bid in the five 10 s windows every 2 s that hold it
    "q5": f"""WITH W AS (
                SELECT time_bucket(INTERVAL 2 SECOND, dateTime) - INTERVAL 2 SECOND * k AS start, auction
                FROM {_BID}, range(5) AS r(k)),
              C AS (SELECT start, auction, count(*) AS num FROM W GROUP BY start, auction)
              SELECT start, max(num) AS maxn FROM C
              WHERE start + INTERVAL 10 SECOND <= {_CLOSED} GROUP BY start""",
    "q7": f"""SELECT time_bucket(INTERVAL 10 SECOND, dateTime) AS start, max(price) AS maxprice, count(*) AS bids
              FROM {_BID} GROUP BY start HAVING start + INTERVAL 10 SECOND <= {_CLOSED}""",
    "q8": f"""SELECT P.id AS person_id, P.name, time_bucket(INTERVAL 10 SECOND, P.dateTime) AS start
              FROM {_PERSON} P JOIN {_AUCTION} A
                ON P.id = A.seller
               AND time_bucket(INTERVAL 10 SECOND, P.dateTime) = time_bucket(INTERVAL 10 SECOND, A.dateTime)""",
}
