"""sparklet's pytest plugin (registered by the package's ``pytest11`` entry
point): a session-wide ``spark`` fixture, and every streaming query a test
leaves running stopped after it, so one test's query never feeds the next.
A project's own ``spark`` fixture (in its conftest) takes precedence.

``--engine=pyspark`` runs the same tests on Apache Spark (PySpark and Java
installed): ``sparklet``'s public modules become PySpark's before the test
modules are imported (see :mod:`sparklet.testing.pyspark_engine`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--engine``: the engine the pipelines under test run on."""
    parser.addoption(
        "--engine",
        choices=("sparklet", "pyspark"),
        default="sparklet",
        help="run the tests' pipelines on sparklet (default) or on PySpark (Apache Spark, local mode)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """With ``--engine=pyspark``, alias sparklet's modules to PySpark's
    before any conftest or test module imports them."""
    if getattr(early_config.known_args_namespace, "engine", "sparklet") == "pyspark":
        from sparklet.testing import pyspark_engine

        pyspark_engine.install()


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ``sparklet_only`` marker. On PySpark, its warning about
    the pandas version is not a failure (a suite that turns warnings into
    errors would fail every pandas call)."""
    config.addinivalue_line(
        "markers",
        "sparklet_only(reason): checks sparklet's own behaviour (a sparklet-only feature, or a"
        " deliberate difference in docs/differences.md); not collected with --engine=pyspark",
    )
    if config.getoption("engine", "sparklet") == "pyspark":
        config.addinivalue_line("filterwarnings", "ignore:PySpark does not yet fully support pandas:FutureWarning")
        # PySpark 4.3 warns for every udf whose function has plain type hints
        config.addinivalue_line("filterwarnings", "ignore:Cannot infer the eval type from type hints:UserWarning")
        # its Python workers' subprocess handles, collected while they still run
        config.addinivalue_line("filterwarnings", "ignore:subprocess .* is still running:ResourceWarning")
        config.addinivalue_line("filterwarnings", "ignore::pytest.PytestUnraisableExceptionWarning")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every ``sparklet_only`` test must say why; with ``--engine=pyspark``
    they are deselected (so a portability run counts them apart)."""
    marked = [item for item in items if item.get_closest_marker("sparklet_only") is not None]
    for item in marked:
        mark = item.get_closest_marker("sparklet_only")
        if mark is None or not (mark.kwargs.get("reason") or mark.args):
            raise pytest.UsageError(f"{item.nodeid}: sparklet_only needs a reason")
    if config.getoption("engine", "sparklet") == "pyspark" and marked:
        config.hook.pytest_deselected(items=marked)
        items[:] = [item for item in items if item.get_closest_marker("sparklet_only") is None]


def pytest_report_header(config: pytest.Config) -> str:
    """Name the engine in pytest's header."""
    return f"sparklet engine: {config.getoption('engine', 'sparklet')}"


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """A local session for the test run (stopped at the end)."""
    from sparklet.sql import SparkSession

    session = SparkSession.builder.appName("pytest").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _sparklet_stop_queries() -> Iterator[None]:
    """Stop the queries a test left running (of the active session, if any)."""
    yield
    from sparklet.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is None:
        return
    for q in active.streams.active:
        q.stop()
    active.streams.resetTerminated()
