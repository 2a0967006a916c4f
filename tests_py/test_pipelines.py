"""Spark Declarative Pipelines (``sparklet.pipelines``): a graph of a
streaming table from files, a streaming table derived from it and a
materialized view, run in dependency order and incrementally; append flows
into one streaming table; a temporary view; full refresh; and the graph's
errors, found before anything is written."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparklet.errors import AnalysisException, SparkRuntimeException
from sparklet.pipelines.graph import Graph, Runner, defining
from sparklet.sql import SparkSession
from sparklet.sql import functions as F

# PySpark runs pipelines only through a Spark Connect server and its CLI
pytestmark = pytest.mark.sparklet_only(reason="PySpark's pipelines need a Spark Connect server")


def add(folder: Path, name: str, rows: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(folder / name)


@pytest.fixture
def names(spark: SparkSession) -> Iterator[dict[str, str]]:
    """Table names of this test's own (the session's warehouse is shared)."""
    suffix = uuid.uuid4().hex[:6]
    made = {k: f"{k}_{suffix}" for k in ("raw", "clean", "totals", "view", "merged")}
    yield made
    for name in made.values():
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def three_datasets(spark: SparkSession, src: Path, n: dict[str, str]) -> Graph:
    from sparklet import pipelines as dp

    graph = Graph()
    with defining(graph):
        # defined out of order: the reads decide the order
        @dp.materialized_view(name=n["totals"])
        def totals():  # noqa: ANN202
            return spark.read.table(n["clean"]).groupBy("user").agg(F.sum("amount").alias("total"))

        @dp.table(name=n["clean"])
        def clean():  # noqa: ANN202
            return spark.readStream.table(n["raw"]).where("amount > 0")

        @dp.table(name=n["raw"])
        def raw():  # noqa: ANN202
            return spark.readStream.schema("user STRING, amount BIGINT").json(str(src))

    return graph


def test_a_pipeline_runs_in_dependency_order_and_incrementally(
    spark: SparkSession, tmp_path: Path, names: dict[str, str]
) -> None:
    src, storage = tmp_path / "in", tmp_path / "storage"
    add(src, "0.json", [{"user": "a", "amount": 3}, {"user": "b", "amount": -1}, {"user": "a", "amount": 2}])
    graph = three_datasets(spark, src, names)
    lines: list[str] = []
    first = Runner(spark, graph, str(storage), log=lines.append).run()
    assert [(f, rows) for f, _, rows in first.flows] == [(names["raw"], 3), (names["clean"], 2), (names["totals"], 1)]
    assert f"Flow '{names['totals']}' has COMPLETED: 1 rows." in lines
    assert [tuple(r) for r in spark.table(names["totals"]).collect()] == [("a", 5)]
    add(src, "1.json", [{"user": "b", "amount": 4}])
    second = Runner(spark, graph, str(storage), log=lines.append).run()
    # the streaming tables took only the new file; the view was computed again
    assert [(f, rows) for f, _, rows in second.flows] == [(names["raw"], 1), (names["clean"], 1), (names["totals"], 2)]
    assert sorted(tuple(r) for r in spark.table(names["totals"]).collect()) == [("a", 5), ("b", 4)]


def test_full_refresh_starts_a_table_again(spark: SparkSession, tmp_path: Path, names: dict[str, str]) -> None:
    src, storage = tmp_path / "in", tmp_path / "storage"
    add(src, "0.json", [{"user": "a", "amount": 1}])
    graph = three_datasets(spark, src, names)
    Runner(spark, graph, str(storage), log=lambda _: None).run()
    add(src, "1.json", [{"user": "b", "amount": 2}])
    again = {names["raw"], names["clean"]}
    Runner(spark, graph, str(storage), log=lambda _: None, full_refresh=again).run()
    # both rebuilt from all the input, once: no row twice
    assert spark.table(names["raw"]).count() == 2
    assert sorted(r.user for r in spark.table(names["clean"]).collect()) == ["a", "b"]
    # a table rebuilt under a stream that still follows the old one: Delta's error
    with pytest.raises(Exception, match="DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE"):
        Runner(spark, graph, str(storage), log=lambda _: None, full_refresh={names["raw"]}).run()


def test_append_flows_and_a_temporary_view(spark: SparkSession, tmp_path: Path, names: dict[str, str]) -> None:
    from sparklet import pipelines as dp

    graph = Graph()
    a, b = tmp_path / "a", tmp_path / "b"
    add(a, "0.json", [{"user": "a", "amount": 1}])
    add(b, "0.json", [{"user": "b", "amount": 2}, {"user": "c", "amount": 3}])
    with defining(graph):
        dp.create_streaming_table(names["merged"])

        @dp.append_flow(target=names["merged"])
        def from_a():  # noqa: ANN202
            return spark.readStream.schema("user STRING, amount BIGINT").json(str(a))

        @dp.append_flow(target=names["merged"])
        def from_b():  # noqa: ANN202
            return spark.readStream.schema("user STRING, amount BIGINT").json(str(b))

        @dp.temporary_view(name=names["view"])
        def big():  # noqa: ANN202
            return spark.read.table(names["merged"]).where("amount > 1")

        @dp.materialized_view(name=names["totals"])
        def totals():  # noqa: ANN202
            return spark.read.table(names["view"]).agg(F.sum("amount").alias("total"))

    result = Runner(spark, graph, str(tmp_path / "storage"), log=lambda _: None).run()
    assert [(f, t) for f, t, _ in result.flows][:2] == [("from_a", names["merged"]), ("from_b", names["merged"])]
    assert sorted(r.user for r in spark.table(names["merged"]).collect()) == ["a", "b", "c"]
    assert spark.table(names["totals"]).collect()[0].total == 5


def broken(spark: SparkSession, tmp_path: Path, kind: str) -> Graph:
    from sparklet import pipelines as dp

    graph = Graph()
    src = tmp_path / "in"
    add(src, "0.json", [{"x": 1}])
    with defining(graph):
        if kind == "cycle":

            @dp.table
            def ping():  # noqa: ANN202
                return spark.readStream.table("pong")

            @dp.table
            def pong():  # noqa: ANN202
                return spark.readStream.table("ping")

        elif kind == "missing":

            @dp.materialized_view
            def orphan():  # noqa: ANN202
                return spark.read.table("no_such_dataset_anywhere")

        elif kind == "stream of a view":

            @dp.materialized_view
            def snapshot():  # noqa: ANN202
                return spark.read.json(str(src))

            @dp.table
            def follower():  # noqa: ANN202
                return spark.readStream.table("snapshot")

        elif kind == "batch for a table":

            @dp.table
            def not_a_stream():  # noqa: ANN202
                return spark.read.json(str(src))

        elif kind == "no flow":
            dp.create_streaming_table("lonely")
    return graph


@pytest.mark.parametrize(
    ("kind", "condition", "named"),
    [
        ("cycle", "PIPELINE_GRAPH_NOT_TOPOLOGICALLY_SORTED", "ping"),
        ("missing", "PIPELINE_RUN_FAILED", "orphan"),
        ("stream of a view", "STREAMING_RELATION_FOR_MATERIALIZED_VIEW", "snapshot"),
        ("batch for a table", "BATCH_RELATION_FOR_STREAMING_TABLE", "not_a_stream"),
        ("no flow", "PIPELINE_DATASET_WITHOUT_FLOW", "lonely"),
    ],
)
def test_a_dry_run_finds_the_graphs_error_and_writes_nothing(
    spark: SparkSession, tmp_path: Path, kind: str, condition: str, named: str
) -> None:
    graph = broken(spark, tmp_path, kind)
    existed = spark.catalog.tableExists(named)  # another test's table of that name stays as it is
    with pytest.raises(AnalysisException, match=f"(?s){condition}.*{named}"):
        Runner(spark, graph, str(tmp_path / "storage"), dry_run=True, log=lambda _: None).run()
    assert not (tmp_path / "storage").exists()
    assert spark.catalog.tableExists(named) == existed


def test_names_are_defined_once(spark: SparkSession) -> None:
    from sparklet import pipelines as dp

    with defining(Graph()), pytest.raises(AnalysisException, match="PIPELINE_DUPLICATE_IDENTIFIERS"):

        @dp.materialized_view(name="twice")
        def one():  # noqa: ANN202
            return spark.range(1)

        @dp.materialized_view(name="twice")
        def two():  # noqa: ANN202
            return spark.range(2)


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pipeline"
EXAMPLE_TABLES = ("pipeline_orders", "pipeline_paid_orders", "pipeline_customer_totals")


@pytest.fixture
def project(spark: SparkSession, tmp_path: Path) -> Iterator[Path]:
    """A copy of examples/pipeline; its tables dropped afterwards."""
    import shutil

    copy = tmp_path / "pipeline"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("pipeline-storage", "spark-warehouse"))
    yield copy
    for name in EXAMPLE_TABLES:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_the_example_project_runs_and_runs_again_incrementally(
    spark: SparkSession, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sparklet.pipelines.cli import main

    assert main(["run", "--spec", str(project / "spark-pipeline.yml")]) == 0
    out = capsys.readouterr().out
    assert "Flow 'pipeline_orders' has COMPLETED: 3 rows." in out
    assert "Run is completed: 3 flows" in out
    assert sorted(tuple(r) for r in spark.table("pipeline_customer_totals").collect()) == [("ann", 15.0, 2)]
    add(project / "incoming", "0002.json", [{"order_id": 4, "customer": "bob", "amount": 7.0, "paid": True}])
    assert main(["run", "--spec", str(project / "spark-pipeline.yml")]) == 0
    out = capsys.readouterr().out
    assert "Flow 'pipeline_orders' has COMPLETED: 1 rows." in out
    assert sorted(tuple(r) for r in spark.table("pipeline_customer_totals").collect()) == [
        ("ann", 15.0, 2),
        ("bob", 7.0, 1),
    ]
    assert (project / "pipeline-storage" / "checkpoints" / "pipeline_orders").is_dir()


def test_dry_run_names_a_broken_graphs_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sparklet.pipelines.cli import main

    (project / "transformations" / "broken.py").write_text(
        "from sparklet import pipelines as dp\n\n\n"
        "@dp.materialized_view\n"
        "def pipeline_broken():\n"
        "    return spark.read.table('pipeline_nowhere')  # noqa: F821\n"
    )
    assert main(["dry-run", "--spec", str(project / "spark-pipeline.yml")]) == 1
    err = capsys.readouterr().err
    assert "PIPELINE_RUN_FAILED" in err and "pipeline_broken" in err
    assert not (project / "pipeline-storage" / "checkpoints").exists()


def test_init_makes_a_project_that_runs(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sparklet.pipelines.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["init", "--name", "demo"]) == 0
    assert (tmp_path / "demo" / "spark-pipeline.yml").is_file()
    monkeypatch.chdir(tmp_path / "demo")
    try:
        assert main(["run"]) == 0
        assert spark.table("example_python_materialized_view").count() == 10
        assert sorted(r.id for r in spark.table("example_sql_materialized_view").collect()) == [0, 2, 4, 6, 8]
    finally:
        spark.sql("DROP TABLE IF EXISTS example_python_materialized_view")
        spark.sql("DROP TABLE IF EXISTS example_sql_materialized_view")
    assert "COMPLETED: 10 rows" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--name", "demo"]) == 1  # the folder exists


def test_dry_run_of_the_example_project_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sparklet.pipelines.cli import main

    assert main(["dry-run", "--spec", str(project / "spark-pipeline.yml")]) == 0
    assert "Run is validated: 0 flows" in capsys.readouterr().out
    assert not (project / "pipeline-storage" / "checkpoints").exists()


def test_sql_definitions_build_the_same_graph(
    spark: SparkSession, tmp_path: Path, names: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A SQL file's CREATE STREAMING TABLE / MATERIALIZED VIEW / TEMPORARY
    VIEW / FLOW statements define the datasets their decorators would, read
    each other (STREAM(name) for a streaming read) and run in dependency order."""
    from sparklet.pipelines.cli import main

    n = names
    (tmp_path / "defs").mkdir()
    add(
        tmp_path / "in", "1.json", [{"user": "a", "amount": 5}, {"user": "b", "amount": -1}, {"user": "a", "amount": 2}]
    )
    (tmp_path / "defs" / "raw.py").write_text(
        "from sparklet import pipelines as dp\n\n\n"
        f"@dp.table(name='{n['raw']}')\n"
        "def raw():\n"
        "    return spark.readStream.schema('user STRING, amount BIGINT').json('in')  # noqa: F821\n"
    )
    (tmp_path / "defs" / "rest.sql").write_text(
        f"""-- defined before what it reads
CREATE MATERIALIZED VIEW {n["totals"]} COMMENT 'per user; a ; in a string' AS
SELECT user, sum(amount) AS total, count(*) AS n FROM {n["view"]} GROUP BY user;

CREATE TEMPORARY VIEW {n["view"]} AS SELECT * FROM {n["clean"]} WHERE user <> 'nobody';

CREATE STREAMING TABLE {n["clean"]} AS SELECT * FROM STREAM({n["raw"]}) WHERE amount > 0;

/* a streaming table fed by a flow */
CREATE STREAMING TABLE {n["merged"]};
CREATE FLOW into_merged AS INSERT INTO {n["merged"]} BY NAME SELECT user FROM STREAM {n["clean"]};
"""
    )
    (tmp_path / "spark-pipeline.yml").write_text(
        "name: sql\nstorage: storage\nlibraries:\n  - glob:\n      include: defs/**\n"
    )
    spec = str(tmp_path / "spark-pipeline.yml")
    assert main(["run", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "Registering SQL file" in out
    assert f"Flow '{n['clean']}' has COMPLETED: 2 rows." in out
    assert sorted(tuple(r) for r in spark.table(n["totals"]).collect()) == [("a", 7, 2)]
    assert sorted(r.user for r in spark.table(n["merged"]).collect()) == ["a", "a"]
    add(tmp_path / "in", "2.json", [{"user": "c", "amount": 4}])
    assert main(["run", "--spec", spec]) == 0
    assert "Flow 'into_merged' has COMPLETED: 1 rows." in capsys.readouterr().out
    assert sorted(tuple(r) for r in spark.table(n["totals"]).collect()) == [("a", 7, 2), ("c", 4, 1)]


def test_sql_definitions_errors_name_the_dataset(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sparklet.pipelines.cli import main

    (tmp_path / "defs").mkdir()
    (tmp_path / "spark-pipeline.yml").write_text("name: e\nstorage: s\nlibraries:\n  - glob:\n      include: defs/**\n")
    spec = str(tmp_path / "spark-pipeline.yml")
    (tmp_path / "defs" / "a.sql").write_text(
        "CREATE MATERIALIZED VIEW sql_cycle_a AS SELECT * FROM sql_cycle_b;\n"
        "CREATE MATERIALIZED VIEW sql_cycle_b AS SELECT * FROM sql_cycle_a;\n"
    )
    assert main(["dry-run", "--spec", spec]) == 1
    assert "PIPELINE_GRAPH_NOT_TOPOLOGICALLY_SORTED" in capsys.readouterr().err
    (tmp_path / "defs" / "a.sql").write_text("DROP TABLE somewhere;\n")
    assert main(["dry-run", "--spec", spec]) == 1
    err = capsys.readouterr().err
    assert "DROP TABLE somewhere" in err and "a.sql" in err


def test_a_continuous_run_keeps_the_tables_and_views_up_to_date(
    spark: SparkSession, tmp_path: Path, names: dict[str, str]
) -> None:
    import threading
    import time

    src = tmp_path / "src"
    add(src, "1.json", [{"user": "a", "amount": 1}])
    before = {q.id for q in spark.streams.active}
    graph = three_datasets(spark, src, names)
    runner = Runner(spark, graph, str(tmp_path / "storage"), log=lambda _: None, continuous="0 seconds")
    thread = threading.Thread(target=runner.run)
    thread.start()
    try:

        def totals() -> list:
            try:
                return sorted(tuple(r) for r in spark.table(names["totals"]).collect())
            except AnalysisException:
                return []
            except SparkRuntimeException as e:
                # read while the runner overwrites the table: a file listed
                # was replaced before it was read (a Parquet table is not
                # transactional; PySpark fails such a read alike)
                if "not found" not in str(e):
                    raise
                return []

        def reach(expected: list) -> list:
            # the last read is the one asserted: a read while the runner
            # overwrites the table may see its files in between
            deadline = time.time() + 60
            seen = totals()
            while seen != expected and time.time() < deadline:
                time.sleep(0.1)
                seen = totals()
            return seen

        assert reach([("a", 1)]) == [("a", 1)]
        add(src, "2.json", [{"user": "b", "amount": 3}, {"user": "a", "amount": -5}])
        assert reach([("a", 1), ("b", 3)]) == [("a", 1), ("b", 3)]
    finally:
        runner.stop()
        thread.join(60)
    assert not thread.is_alive()
    assert {q.id for q in spark.streams.active} == before  # its queries stopped
