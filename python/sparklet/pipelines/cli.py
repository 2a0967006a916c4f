"""``sparklet-pipelines`` (and ``python -m sparklet.pipelines``): Spark's
``spark-pipelines`` command in one process: ``init``, ``run`` (with
``--full-refresh``, ``--full-refresh-all``, ``--refresh``, ``--continuous``)
and ``dry-run``, reading Spark's pipeline spec (``spark-pipeline.yml``)."""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparklet.errors import AnalysisException, PySparkException

SPEC_FILE_NAMES = ("spark-pipeline.yaml", "spark-pipeline.yml")
FIELDS = ("name", "storage", "catalog", "database", "schema", "configuration", "libraries")

SPEC_TEMPLATE = """name: {name}
storage: {storage}
libraries:
  - glob:
      include: transformations/**
"""

EXAMPLE = """from sparklet import pipelines as dp   # PySpark: from pyspark import pipelines as dp
from sparklet.sql import DataFrame


@dp.materialized_view
def example_python_materialized_view() -> DataFrame:
    return spark.range(10)
"""

SQL_EXAMPLE = """CREATE MATERIALIZED VIEW example_sql_materialized_view AS
SELECT id FROM example_python_materialized_view
WHERE id % 2 = 0
"""


@dataclass
class PipelineSpec:
    """A pipeline spec file's contents."""

    name: str
    storage: str
    catalog: str | None = None
    database: str | None = None
    configuration: dict[str, str] = field(default_factory=dict)
    libraries: list[str] = field(default_factory=list)


def _error(condition: str, message: str) -> PySparkException:
    return PySparkException(f"[{condition}] {message}", condition)


def _glob(pattern: str) -> str:
    """Spark's allowed globs: a plain path, or ``folder/**`` (every file under it)."""
    if not glob.has_magic(pattern):
        return pattern
    if pattern.endswith("/**") and not glob.has_magic(pattern[:-3]):
        return pattern + "/*"
    raise _error(
        "PIPELINE_SPEC_INVALID_GLOB_PATTERN",
        f"Invalid glob pattern `{pattern}`: only a file path or a folder followed by /** is allowed.",
    )


def load_spec(path: Path) -> PipelineSpec:
    """Read and check a spec file."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    for key in data:
        if key not in FIELDS:
            raise _error("PIPELINE_SPEC_UNEXPECTED_FIELD", f"Pipeline spec field `{key}` is unexpected.")
    for key in ("name", "storage"):
        if key not in data:
            raise _error("PIPELINE_SPEC_MISSING_REQUIRED_FIELD", f"Pipeline spec is missing required field `{key}`.")
    configuration = data.get("configuration") or {}
    if not isinstance(configuration, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in configuration.items()
    ):
        raise _error("PIPELINE_SPEC_FIELD_NOT_DICT", "Pipeline spec field `configuration` must map text to text.")
    return PipelineSpec(
        name=str(data["name"]),
        storage=str(data["storage"]),
        catalog=data.get("catalog"),
        database=data.get("database", data.get("schema")),
        configuration=configuration,
        libraries=[_glob(entry["glob"]["include"]) for entry in data.get("libraries") or []],
    )


def find_spec(start: Path) -> Path:
    """The spec file in ``start`` or the nearest folder above it."""
    for folder in (start, *start.parents):
        found = [folder / n for n in SPEC_FILE_NAMES if (folder / n).is_file()]
        if len(found) > 1:
            raise _error("MULTIPLE_PIPELINE_SPEC_FILES_FOUND", f"Multiple pipeline spec files found in {folder}.")
        if found:
            return found[0]
    raise _error("PIPELINE_SPEC_FILE_NOT_FOUND", f"No {' or '.join(SPEC_FILE_NAMES)} found in {start} or above.")


@contextmanager
def _in_folder(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _storage_path(storage: str) -> str:
    return storage[len("file://") :] if storage.startswith("file://") else storage


def load_graph(spark: Any, spec_path: Path, spec: PipelineSpec, log: Any = print) -> Any:
    """Import the spec's Python files (``spark`` defined in each) and read
    its SQL files, their definitions collected into a new graph."""
    from sparklet.pipelines.graph import Graph, defining
    from sparklet.pipelines.sql_files import load_sql_definitions

    root = spec_path.parent.resolve()
    graph = Graph()
    with _in_folder(root), defining(graph):
        log(f"Loading definitions. Root directory: '{root}'.")
        for pattern in spec.libraries:
            files = sorted(p for p in root.glob(pattern) if p.is_file() and "__pycache__" not in p.parts)
            log(f"Found {len(files)} files matching glob '{pattern}'")
            for file in files:
                if file.suffix == ".sql":
                    log(f"Registering SQL file {file}...")
                    load_sql_definitions(spark, graph, file.read_text(encoding="utf-8"), str(file.relative_to(root)))
                    continue
                if file.suffix != ".py":
                    raise _error(
                        "PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION",
                        f"Unsupported pipeline definitions file: {file} (definitions are .py or .sql files).",
                    )
                log(f"Importing {file}...")
                module_spec = importlib.util.spec_from_file_location(file.stem, str(file))
                if module_spec is None or module_spec.loader is None:
                    raise _error("PIPELINE_RUN_FAILED", f"Cannot import {file}.")
                module = importlib.util.module_from_spec(module_spec)
                module.__dict__["spark"] = spark
                module_spec.loader.exec_module(module)
    return graph


def run(
    spec_path: Path,
    dry_run: bool = False,
    full_refresh: Sequence[str] = (),
    full_refresh_all: bool = False,
    refresh: Sequence[str] = (),
    log: Any = print,
    continuous: str | None = None,
) -> Any:
    """Run (or check) the pipeline of ``spec_path``; each flow's rows.
    ``continuous`` (a trigger interval) keeps the streaming flows running
    after the first pass, until Ctrl-C."""
    from sparklet.pipelines.graph import Runner
    from sparklet.sql import SparkSession

    if full_refresh_all and (full_refresh or refresh):
        raise _error(
            "CONFLICTING_PIPELINE_REFRESH_OPTIONS",
            "--full-refresh-all cannot be given with --full-refresh or --refresh.",
        )
    spec = load_spec(spec_path)
    spark = SparkSession.builder.appName(spec.name).getOrCreate()
    for key, value in spec.configuration.items():
        spark.conf.set(key, value)
    if spec.database:
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {spec.database}")
        spark.catalog.setCurrentDatabase(spec.database)
    graph = load_graph(spark, spec_path, spec, log)
    storage = _storage_path(spec.storage)
    if not os.path.isabs(storage):
        storage = str((spec_path.parent / storage).resolve())
    everything = set(graph.datasets) if full_refresh_all else set(full_refresh)
    selected = (set(refresh) | set(full_refresh)) if (refresh or full_refresh) and not full_refresh_all else None
    with _in_folder(spec_path.parent.resolve()):
        result = Runner(
            spark,
            graph,
            storage,
            dry_run=dry_run,
            full_refresh=everything,
            refresh=selected,
            log=log,
            continuous=continuous,
        ).run()
    verb = "validated" if dry_run else "completed"
    log(f"Run is {verb}: {len(result.flows)} flows, {sum(r for _, _, r in result.flows)} rows, {result.seconds:.2f} s.")
    return result


def init(name: str) -> Path:
    """A new project folder ``name``: a spec and two example definitions (Python and SQL)."""
    project = Path.cwd() / name
    if project.exists():
        raise FileExistsError(f"Directory '{name}' already exists. Please choose a different name.")
    (project / "pipeline-storage").mkdir(parents=True)
    (project / "transformations").mkdir()
    storage = f"file://{(project / 'pipeline-storage').resolve()}"
    (project / "spark-pipeline.yml").write_text(SPEC_TEMPLATE.format(name=name, storage=storage))
    (project / "transformations" / "example_python_materialized_view.py").write_text(EXAMPLE)
    (project / "transformations" / "example_sql_materialized_view.sql").write_text(SQL_EXAMPLE)
    print(f"Pipeline project '{name}' created successfully. To run your pipeline:")
    print(f"cd '{name}'")
    print("sparklet-pipelines run")
    return project


def _tables(value: str) -> list[str]:
    return [t.strip() for t in value.split(",") if t.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(prog="sparklet-pipelines", description="Run Spark Declarative Pipelines locally.")
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="Run the pipeline (incrementally unless told otherwise).")
    run_parser.add_argument("--spec", help="Path to the pipeline spec.")
    run_parser.add_argument(
        "--full-refresh",
        type=_tables,
        action="extend",
        default=[],
        help="Datasets to reset and recompute (comma-separated).",
    )
    run_parser.add_argument("--full-refresh-all", action="store_true", help="Reset and recompute every dataset.")
    run_parser.add_argument(
        "--refresh", type=_tables, action="extend", default=[], help="Datasets to update (comma-separated)."
    )
    run_parser.add_argument(
        "--continuous",
        nargs="?",
        const="0 seconds",
        metavar="INTERVAL",
        help="After catching up, keep the streaming flows running (a processing-time trigger of INTERVAL, "
        "'0 seconds' by default) and refresh the materialized views as they take rows, until Ctrl-C.",
    )
    dry = commands.add_parser("dry-run", help="Check the graph without writing anything.")
    dry.add_argument("--spec", help="Path to the pipeline spec.")
    init_parser = commands.add_parser("init", help="Create an example pipeline project.")
    init_parser.add_argument("--name", required=True, help="The project's folder, made under the current one.")
    args = parser.parse_args(argv)
    try:
        if args.command == "init":
            init(args.name)
            return 0
        spec_path = Path(args.spec) if args.spec else find_spec(Path.cwd())
        if not spec_path.is_file():
            raise _error("PIPELINE_SPEC_FILE_NOT_FOUND", f"Pipeline spec file `{spec_path}` does not exist.")
        if args.command == "dry-run":
            run(spec_path, dry_run=True)
        else:
            run(
                spec_path,
                full_refresh=args.full_refresh,
                full_refresh_all=args.full_refresh_all,
                refresh=args.refresh,
                continuous=args.continuous,
            )
    except (PySparkException, AnalysisException, FileExistsError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
