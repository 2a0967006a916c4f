"""``writeStream.foreach(f)``: a function per row, or an object with
``open(partition_id, epoch_id)``, ``process(row)`` and ``close(error)``,
called as Spark calls them, on top of the micro-batch sink.

Per micro-batch (epoch) and partition: ``open`` (when defined); if it
returns false, no row is processed; else ``process`` for each row; then
``close(None)``, or ``close(error)`` with the exception ``open`` or
``process`` raised (which then fails the query). A batch is one partition
(id 0) here. In the real-time and continuous modes an epoch is a
long-running batch: ``open`` before its first rows, ``process`` as rows
arrive, ``close`` when the batch ends. Like Spark's, the sink is
at-least-once: after a crash the last epoch may be processed again with
the same ``epoch_id``, which a writer can use to skip what it already wrote.
"""

from __future__ import annotations

from typing import Any

from sparklet.errors import PySparkAttributeError


def _method(writer: Any, name: str, required: bool = False) -> Any:
    m = getattr(writer, name, None)
    if (m is None and required) or (m is not None and not callable(m)):
        # `f`: the argument of foreach(f), as PySpark names it (a missing
        # process() is reported as not callable too, as PySpark does)
        raise PySparkAttributeError(
            f"[ATTRIBUTE_NOT_CALLABLE] Attribute `{name}` in provided object `f` is not callable.",
            "ATTRIBUTE_NOT_CALLABLE",
            {"attr_name": name, "obj_name": "f"},
        )
    return m


class ForeachWriter:
    """The ``foreachBatch`` function that drives a ``foreach`` writer."""

    def __init__(self, f: Any) -> None:
        if callable(f) and not hasattr(f, "process"):
            self._open, self._process, self._close = None, f, None
            return
        process = _method(f, "process", required=True)
        self._open, self._process, self._close = _method(f, "open"), process, _method(f, "close")

    #: The epoch open now, and whether ``open`` accepted it.
    _epoch: int | None = None
    _accepted = False

    def __call__(self, table: Any, epoch_id: int) -> None:
        """Process ``table``'s rows for epoch ``epoch_id`` (opening it first)."""
        from sparklet.sql._convert import table_to_rows

        try:
            if self._epoch != epoch_id:
                self._epoch = epoch_id
                # a writer without open() processes every partition
                self._accepted = self._open is None or bool(self._open(0, epoch_id))
            if self._accepted:
                for row in table_to_rows(table):
                    self._process(row)
        except BaseException as e:
            self._epoch = None
            if self._close is not None:
                self._close(e)
            raise

    def end_epoch(self, epoch_id: int) -> None:
        """Epoch ``epoch_id`` is over: ``close(None)``."""
        if self._epoch != epoch_id:
            return
        self._epoch = None
        if self._close is not None:
            self._close(None)
