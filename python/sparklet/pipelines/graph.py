"""A pipeline's dataflow graph (datasets and the flows that write them),
its checks, and its run in dependency order in this process.

Dependencies are found as Spark finds them: by running each flow's query
function, whose reads of a pipeline dataset by name
(``spark.read.table``, ``spark.readStream.table``, ``spark.table``) are
seen. A dataset is resolved (and, in a run, written) before the flows that
read it; a read that comes back to a dataset being resolved is a cycle."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparklet.errors import AnalysisException

__all__ = ["Dataset", "Flow", "Graph", "RunResult", "active_graph", "defining"]


@dataclass
class Dataset:
    """A streaming table (``table``), materialized view, temporary view or sink."""

    name: str
    kind: str
    comment: str | None = None
    spark_conf: dict[str, str] = field(default_factory=dict)
    table_properties: dict[str, str] = field(default_factory=dict)
    partition_cols: list[str] | None = None
    format: str | None = None
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class Flow:
    """A query function writing to ``target``."""

    name: str
    target: str
    func: Callable[[], Any]
    spark_conf: dict[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    """What a run did: each flow's rows written, in the order run."""

    flows: list[tuple[str, str, int]] = field(default_factory=list)
    seconds: float = 0.0


class Graph:
    """The datasets and flows one pipeline defines."""

    def __init__(self) -> None:
        self.datasets: dict[str, Dataset] = {}
        self.flows: dict[str, Flow] = {}

    def add_dataset(self, dataset: Dataset) -> None:
        """Add ``dataset`` (its name must be new)."""
        if dataset.name in self.datasets:
            raise AnalysisException(
                f"[PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT] A duplicate identifier was found for elements "
                f"registered in the pipeline's dataflow graph: output '{dataset.name}' is defined more than once.",
                "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
            )
        self.datasets[dataset.name] = dataset

    def add_flow(self, flow: Flow) -> None:
        """Add ``flow`` (its name must be new)."""
        if flow.name in self.flows:
            raise AnalysisException(
                f"[PIPELINE_DUPLICATE_IDENTIFIERS.FLOW] A duplicate identifier was found for elements "
                f"registered in the pipeline's dataflow graph: flow '{flow.name}' is defined more than once.",
                "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
            )
        self.flows[flow.name] = flow

    def flows_of(self, dataset: str) -> list[Flow]:
        """The flows writing ``dataset``, in definition order."""
        return [f for f in self.flows.values() if f.target == dataset]

    def check(self) -> None:
        """The checks that need no query: every flow's target defined, every
        dataset written by a flow, one flow per materialized view."""
        for flow in self.flows.values():
            if flow.target not in self.datasets:
                raise AnalysisException(
                    f"[PIPELINE_RUN_FAILED] Flow '{flow.name}' writes to '{flow.target}', which the pipeline "
                    "does not define (create_streaming_table or create_sink).",
                    "PIPELINE_RUN_FAILED",
                )
        for d in self.datasets.values():
            flows = self.flows_of(d.name)
            if not flows and d.kind != "sink":
                raise AnalysisException(
                    f"[PIPELINE_DATASET_WITHOUT_FLOW] Pipeline dataset `{d.name}` does not have any defined flows.",
                    "PIPELINE_DATASET_WITHOUT_FLOW",
                )
            if d.kind == "materialized_view" and len(flows) > 1:
                raise AnalysisException(
                    f"[MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES] Invalid destination `{d.name}` with multiple "
                    f"flows: {', '.join(f.name for f in flows)}.",
                    "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES",
                )
        if not any(d.kind != "temporary_view" for d in self.datasets.values()):
            raise AnalysisException(
                "[RUN_EMPTY_PIPELINE] Pipelines are expected to have at least one non-temporary dataset "
                "defined (tables, persisted views) but no non-temporary datasets were found in your pipeline.",
                "RUN_EMPTY_PIPELINE",
            )


_ACTIVE: ContextVar[Graph | None] = ContextVar("pipeline_graph", default=None)
_DEFAULT = Graph()


def active_graph() -> Graph:
    """The graph definitions go to (the one being loaded, else a default)."""
    return _ACTIVE.get() or _DEFAULT


@contextmanager
def defining(graph: Graph) -> Iterator[Graph]:
    """Definitions made in the block go to ``graph``."""
    token = _ACTIVE.set(graph)
    try:
        yield graph
    finally:
        _ACTIVE.reset(token)


class Runner:
    """Resolves and (unless ``dry_run``) writes every dataset of ``graph``,
    each after the datasets its flows read."""

    def __init__(
        self,
        spark: Any,
        graph: Graph,
        storage: str,
        dry_run: bool = False,
        full_refresh: set[str] | None = None,
        refresh: set[str] | None = None,
        log: Callable[[str], None] = print,
        default_format: str = "delta",
        continuous: str | None = None,
    ) -> None:
        self.spark, self.graph, self.storage, self.dry_run, self.log = spark, graph, Path(storage), dry_run, log
        self.full_refresh = full_refresh or set()
        self.refresh = refresh
        self.default_format = default_format
        #: the continuous mode's processing-time trigger interval (None: one run)
        self.continuous = continuous
        self._resolved: dict[str, Any] = {}  # name -> the DataFrame its first flow gives
        self._resolving: list[str] = []
        # what the continuous mode runs again: streaming flows, and materialized views in order
        self._streams: list[tuple[Dataset, Flow, Any]] = []
        self._views: list[tuple[Dataset, Flow]] = []
        self._stop = threading.Event()
        self.result = RunResult()

    def run(self) -> RunResult:
        """Check, resolve and write the graph; the flows' row counts."""
        from sparklet.sql._table_hooks import TABLE_READ_HOOK

        started = time.perf_counter()
        self.graph.check()
        token = TABLE_READ_HOOK.set(self._read)
        try:
            for name in self.graph.datasets:
                self._resolve(name)
            if self.continuous is not None and not self.dry_run:
                self._run_continuously(self.continuous)
        finally:
            TABLE_READ_HOOK.reset(token)
        self.result.seconds = time.perf_counter() - started
        return self.result

    def stop(self) -> None:
        """End a continuous run (its queries stop after their batch)."""
        self._stop.set()

    def _run_continuously(self, interval: str) -> None:
        """After the first run caught up: every streaming flow as a query
        with a processing-time trigger of ``interval``, and the materialized
        views recomputed after the streaming tables took new rows, until
        :meth:`stop` (or Ctrl-C)."""
        queries = [self._start(d, f, df, {"processingTime": interval}) for d, f, df in self._streams]
        self.log(f"Running continuously: {len(queries)} streaming flows, trigger every {interval}. Ctrl-C stops.")
        seen = [len(q.recentProgress) for q in queries]
        try:
            while not self._stop.wait(0.2):
                for q in queries:
                    if not q.isActive and q.exception() is not None:
                        raise q.exception()
                progress = [q.recentProgress for q in queries]
                rows = sum(_rows_written(p) for ps, n in zip(progress, seen) for p in ps[n:])
                seen = [len(ps) for ps in progress]
                if rows and self._views:
                    self.log(f"Streaming flows wrote {rows} rows: refreshing {len(self._views)} materialized views.")
                    for dataset, flow in self._views:
                        self._write_view(dataset, flow, self._query(flow))
        except KeyboardInterrupt:
            self.log("Stopping the continuous run.")
        finally:
            for q in queries:
                q.stop()

    def _read(self, name: str, streaming: bool) -> Any:
        """A flow reads ``name``: a pipeline dataset is resolved first."""
        dataset = self.graph.datasets.get(name)
        if dataset is None:
            return None
        if name in self._resolving:
            reader = self._resolving[-1]
            raise AnalysisException(
                f"[PIPELINE_GRAPH_NOT_TOPOLOGICALLY_SORTED] There is a cycle between {reader} and {name}.",
                "PIPELINE_GRAPH_NOT_TOPOLOGICALLY_SORTED",
            )
        if streaming and dataset.kind == "materialized_view":
            raise AnalysisException(
                f"[INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW] A streaming read of "
                f"materialized view '{name}' (in the flow of '{self._resolving[-1]}'): a materialized view is "
                "read as a batch (spark.read.table).",
                "INVALID_FLOW_QUERY_TYPE",
            )
        df = self._resolve(name)
        if self.dry_run and not streaming and getattr(df, "isStreaming", False):
            # a batch read of a streaming table not written yet: its rows' shape, no rows
            return self.spark.createDataFrame([], df.schema)
        if dataset.kind == "temporary_view" or self.dry_run:
            return df
        return None  # written: read as the table it now is

    def _resolve(self, name: str) -> Any:
        if name in self._resolved:
            return self._resolved[name]
        dataset = self.graph.datasets[name]
        self._resolving.append(name)
        try:
            frames = [(flow, self._query(flow)) for flow in self.graph.flows_of(name)]
        finally:
            self._resolving.pop()
        for flow, df in frames:
            self._check_kind(dataset, flow, df)
        self._resolved[name] = frames[0][1] if frames else None
        if not self.dry_run:
            self._write(dataset, frames)
        return self._resolved[name]

    def _query(self, flow: Flow) -> Any:
        try:
            return flow.func()
        except AnalysisException as e:
            if e.getCondition() != "TABLE_OR_VIEW_NOT_FOUND":
                raise
            raise AnalysisException(
                f"[PIPELINE_RUN_FAILED] Failed to resolve flow '{flow.name}' of dataset '{flow.target}': {e}",
                "PIPELINE_RUN_FAILED",
            ) from e

    @staticmethod
    def _check_kind(dataset: Dataset, flow: Flow, df: Any) -> None:
        streaming = bool(getattr(df, "isStreaming", False))
        if dataset.kind in ("table", "sink") and not streaming:
            raise AnalysisException(
                f"[INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE] Flow '{flow.name}' returns a "
                f"batch DataFrame, but '{dataset.name}' is a streaming table: read its inputs with spark.readStream.",
                "INVALID_FLOW_QUERY_TYPE",
            )
        if dataset.kind == "materialized_view" and streaming:
            raise AnalysisException(
                f"[INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW] Flow '{flow.name}' returns "
                f"a streaming DataFrame, but '{dataset.name}' is a materialized view.",
                "INVALID_FLOW_QUERY_TYPE",
            )

    def _selected(self, name: str) -> bool:
        return self.refresh is None or name in self.refresh or name in self.full_refresh

    def _write(self, dataset: Dataset, frames: list[tuple[Flow, Any]]) -> None:
        name = dataset.name
        if dataset.kind == "temporary_view":
            frames[0][1].createOrReplaceTempView(name)
            return
        if not self._selected(name):
            self.log(f"Flow '{name}' skipped: not selected for refresh.")
            return
        if name in self.full_refresh:
            self.spark.sql(f"DROP TABLE IF EXISTS {name}")
            shutil.rmtree(self.storage / "checkpoints" / name, ignore_errors=True)
        for flow, df in frames:
            if dataset.kind == "materialized_view":
                self._views.append((dataset, flow))
                self._write_view(dataset, flow, df)
                continue
            self.log(f"Flow '{flow.name}' is RUNNING.")
            self._streams.append((dataset, flow, df))
            query = self._start(dataset, flow, df, {"availableNow": True})
            query.awaitTermination()
            rows = sum(_rows_written(p) for p in query.recentProgress)
            self.result.flows.append((flow.name, name, rows))
            self.log(f"Flow '{flow.name}' has COMPLETED: {rows} rows.")

    def _write_view(self, dataset: Dataset, flow: Flow, df: Any) -> None:
        """A materialized view's flow: its table overwritten with ``df``."""
        self.log(f"Flow '{flow.name}' is RUNNING.")
        writer = df.write.format(dataset.format or self.default_format).mode("overwrite")
        if dataset.partition_cols:
            writer = writer.partitionBy(*dataset.partition_cols)
        writer.saveAsTable(dataset.name)
        rows = self.spark.table(dataset.name).count()
        self.result.flows.append((flow.name, dataset.name, rows))
        self.log(f"Flow '{flow.name}' has COMPLETED: {rows} rows.")

    def _start(self, dataset: Dataset, flow: Flow, df: Any, trigger: dict[str, Any]) -> Any:
        """A streaming flow's query (checkpointed per flow), started."""
        writer = df.writeStream.option(
            "checkpointLocation", str(self.storage / "checkpoints" / dataset.name / flow.name)
        ).trigger(**trigger)
        if dataset.kind == "sink":
            return writer.format(dataset.format).options(**dataset.options).start()
        if dataset.partition_cols:
            writer = writer.partitionBy(*dataset.partition_cols)
        return writer.format(dataset.format or self.default_format).toTable(dataset.name)


def _rows_written(progress: Any) -> int:
    """A batch's rows written (its sink's count, or the rows read where the
    sink does not count)."""
    out = progress["sink"].get("numOutputRows", -1) if "sink" in progress else -1
    return int(out) if out is not None and int(out) >= 0 else int(progress["numInputRows"])
