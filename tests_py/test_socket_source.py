"""format("socket"): lines from a TCP server on 127.0.0.1, with and without
their arrival time, and the errors a bad address or option gives."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from conftest import wait_until
from sparklet.errors import AnalysisException, IllegalArgumentException
from sparklet.sql import SparkSession


class LineServer:
    """A TCP server that sends lines to the one client it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.client: socket.socket | None = None
        self.accepted = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.client, _ = self.server.accept()
        self.accepted.set()

    def send(self, *lines: str) -> None:
        assert self.accepted.wait(10), "the source did not connect"
        assert self.client is not None
        self.client.sendall("".join(line + "\n" for line in lines).encode())

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.server.close()


@pytest.fixture()
def server() -> Iterator[LineServer]:
    s = LineServer()
    yield s
    s.close()


def table(spark: SparkSession, name: str) -> list[tuple]:
    return [tuple(r) for r in spark.table(name).collect()]


def test_lines_arrive_as_rows_batch_after_batch(spark: SparkSession, server: LineServer) -> None:
    lines = spark.readStream.format("socket").option("host", "127.0.0.1").option("port", server.port).load()
    assert lines.isStreaming and lines.columns == ["value"]
    words = lines.selectExpr("explode(split(value, ' ')) AS word").groupBy("word").count()
    q = words.writeStream.outputMode("complete").format("memory").queryName("socket_words").start()
    server.send("a b", "b")
    wait_until(lambda: sorted(table(spark, "socket_words")) == [("a", 1), ("b", 2)])
    assert sorted(table(spark, "socket_words")) == [("a", 1), ("b", 2)]
    server.send("c b")
    wait_until(lambda: ("c", 1) in table(spark, "socket_words"))
    assert sorted(table(spark, "socket_words")) == [("a", 1), ("b", 3), ("c", 1)]
    # the last batch's progress may follow its rows into the table
    wait_until(lambda: sum(p["numInputRows"] for p in q.recentProgress) == 3)
    assert q.lastProgress["sources"][0]["description"] == f"TextSocketV2[host: 127.0.0.1, port: {server.port}]"
    q.stop()


def test_include_timestamp_adds_each_line_arrival_time(spark: SparkSession, server: LineServer) -> None:
    df = (
        spark.readStream.format("socket")
        .option("host", "127.0.0.1")
        .option("port", str(server.port))
        .option("includeTimestamp", True)
        .load()
    )
    assert df.dtypes == [("value", "string"), ("timestamp", "timestamp")]
    q = df.writeStream.format("memory").queryName("socket_ts").start()
    server.send("x")
    wait_until(lambda: len(table(spark, "socket_ts")) == 1)
    [(value, ts)] = table(spark, "socket_ts")
    assert value == "x" and ts is not None
    q.stop()


@pytest.mark.sparklet_only(
    reason="refused at start() (Spark: the query fails when it first reads; docs/differences.md)"
)
def test_an_unreachable_server_fails_the_start(spark: SparkSession) -> None:
    free = socket.create_server(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()  # nothing listens there now
    df = spark.readStream.format("socket").option("host", "127.0.0.1").option("port", port).load()
    with pytest.raises(IllegalArgumentException, match=f"Cannot connect to the socket source at 127.0.0.1:{port}"):
        df.writeStream.format("noop").start()


def test_host_and_port_are_required(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="Set a host"):
        spark.readStream.format("socket").option("port", 1).load()
    with pytest.raises(IllegalArgumentException, match='For input string: "http"'):
        spark.readStream.format("socket").option("host", "127.0.0.1").option("port", "http").load()


@pytest.mark.sparklet_only(reason="real-time mode over a socket source (Spark 4.3: Kafka only; docs/differences.md)")
def test_lines_are_counted_as_they_arrive_in_real_time_mode(
    spark: SparkSession, server: LineServer, memory_sink_in_real_time: None
) -> None:
    lines = spark.readStream.format("socket").option("host", "127.0.0.1").option("port", server.port).load()
    words = lines.selectExpr("explode(split(value, ' ')) AS word").groupBy("word").count()
    q = (
        words.writeStream.outputMode("update")
        .format("memory")
        .queryName("socket_rt")
        .trigger(realTime="5 minutes")
        .start()
    )

    def latest() -> dict:
        return {r.word: r["count"] for r in spark.table("socket_rt").collect()}

    server.send("a b", "b")
    wait_until(lambda: latest() == {"a": 1, "b": 2})
    server.send("a")
    wait_until(lambda: latest().get("a") == 2)
    # within the first five-minute batch: results arrived before any checkpoint
    assert q.lastProgress is None
    q.stop()
    assert latest() == {"a": 2, "b": 2}


def test_a_byte_that_is_not_utf8_is_replaced_and_no_line_is_lost(spark: SparkSession, server: LineServer) -> None:
    lines = spark.readStream.format("socket").option("host", "127.0.0.1").option("port", server.port).load()
    q = lines.writeStream.format("memory").queryName("socket_bytes").start()
    assert server.accepted.wait(10)
    assert server.client is not None
    server.client.sendall(b"before\nbad \xff byte\nafter\n")
    wait_until(lambda: len(table(spark, "socket_bytes")) == 3)
    assert sorted(table(spark, "socket_bytes")) == [("after",), ("bad \ufffd byte",), ("before",)]
    assert q.isActive and q.exception() is None
