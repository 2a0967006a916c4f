"""A trigger's progress, as :mod:`pyspark.sql.streaming.listener` has it:
:class:`StreamingQueryProgress` and the :class:`StateOperatorProgress`,
:class:`SourceProgress` and :class:`SinkProgress` it holds.

Each is a ``dict`` of Spark's field names (as in PySpark 4) with an
attribute per field, built from the JSON the engine writes (Spark's
``StreamingQueryProgress.json``) by ``fromJson``. As in PySpark: a field
Spark leaves out of the JSON when empty (``eventTime``, ``durationMs``,
``observedMetrics``, ``metrics``, ``customMetrics``) is an empty dict;
``progress.id`` is a :class:`uuid.UUID` and ``progress["id"]`` its string;
a source's offsets are JSON text; ``observedMetrics`` holds
:class:`~sparklet.sql.Row` values; ``json`` is the JSON it was built from.
"""

from __future__ import annotations

import json as _json
import uuid
from typing import Any

__all__ = ["SinkProgress", "SourceProgress", "StateOperatorProgress", "StreamingQueryProgress"]


class _FromJson(dict):  # type: ignore[type-arg]
    """A progress part: its fields as a dict and as attributes, and the JSON
    it came from."""

    #: fields that are dicts left out of Spark's JSON when empty
    _EMPTY_WHEN_ABSENT: tuple[str, ...] = ()

    def __init__(self, fields: dict[str, Any], source: dict[str, Any] | None = None) -> None:
        super().__init__(fields)
        self._jdict = source if source is not None else fields

    def __getattr__(self, item: str) -> Any:
        if item.startswith("_"):
            raise AttributeError(item)
        try:
            return dict.__getitem__(self, item)
        except KeyError:
            raise AttributeError(item) from None

    @classmethod
    def _defaults(cls, j: dict[str, Any]) -> dict[str, Any]:
        out = dict(j)
        for name in cls._EMPTY_WHEN_ABSENT:
            out[name] = dict(j.get(name) or {})
        return out

    @property
    def json(self) -> str:
        """The JSON this progress was built from."""
        return _json.dumps(self._jdict)

    @property
    def prettyJson(self) -> str:
        """The same JSON, indented."""
        return _json.dumps(self._jdict, indent=4)

    def __str__(self) -> str:
        return self.prettyJson

    def __repr__(self) -> str:
        return self.prettyJson


class StateOperatorProgress(_FromJson):
    """A stateful operator's figures for one trigger (``operatorName``,
    ``numRowsTotal``, ``numRowsUpdated``, ``numRowsRemoved``,
    ``numRowsDroppedByWatermark``, ``memoryUsedBytes``, ``customMetrics``, ...)."""

    _EMPTY_WHEN_ABSENT = ("customMetrics",)

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> StateOperatorProgress:
        """From a ``stateOperators`` entry of Spark's progress JSON."""
        return cls(cls._defaults(j), j)


class SourceProgress(_FromJson):
    """A source's part of a trigger: ``description``, the ``startOffset``,
    ``endOffset`` and ``latestOffset`` (JSON text, as PySpark gives them),
    ``numInputRows``, the row rates and ``metrics``."""

    _EMPTY_WHEN_ABSENT = ("metrics",)

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> SourceProgress:
        """From a ``sources`` entry of Spark's progress JSON."""
        fields = cls._defaults(j)
        for name in ("startOffset", "endOffset", "latestOffset"):
            value = j.get(name)
            fields[name] = value if isinstance(value, str) else _json.dumps(value)
        return cls(fields, j)


class SinkProgress(_FromJson):
    """The sink's part of a trigger: ``description``, ``numOutputRows``, ``metrics``."""

    _EMPTY_WHEN_ABSENT = ("metrics",)

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> SinkProgress:
        """From the ``sink`` entry of Spark's progress JSON."""
        return cls(cls._defaults(j), j)


class StreamingQueryProgress(_FromJson):
    """One trigger's progress (``q.lastProgress``, ``onQueryProgress``):
    ``id``, ``runId``, ``name``, ``timestamp``, ``batchId``,
    ``batchDuration``, ``durationMs``, ``eventTime``, ``stateOperators``,
    ``sources``, ``sink``, ``numInputRows``, ``inputRowsPerSecond``,
    ``processedRowsPerSecond``, ``observedMetrics``; by key (Spark's JSON
    names) or as attributes. ``json``/``prettyJson`` give Spark's JSON.

    Examples
    --------
    >>> from sparklet.testing import MemoryStream
    >>> stream = MemoryStream(spark, "n INT")
    >>> q = stream.toDF().writeStream.format("noop").queryName("progress_demo").start()
    >>> _ = stream.addData([(1,), (2,)])
    >>> q.processAllAvailable()
    >>> p = q.lastProgress
    >>> p["name"], p["batchId"], p["numInputRows"]
    ('progress_demo', 0, 2)
    >>> q.stop()
    """

    _EMPTY_WHEN_ABSENT = ("durationMs", "eventTime")

    @classmethod
    def fromJson(cls, j: dict[str, Any]) -> StreamingQueryProgress:
        """A progress from Spark's progress JSON, parsed.

        Parameters
        ----------
        j : dict
            the JSON, parsed (``json.loads(progress.json)``)

        Returns
        -------
        StreamingQueryProgress
            the progress it describes

        Examples
        --------
        >>> import json
        >>> from sparklet.testing import MemoryStream
        >>> from sparklet.sql.streaming.listener import StreamingQueryProgress
        >>> stream = MemoryStream(spark, "n INT")
        >>> q = stream.toDF().writeStream.format("noop").start()
        >>> _ = stream.addData([(1,), (2,)])
        >>> q.processAllAvailable()
        >>> again = StreamingQueryProgress.fromJson(json.loads(q.lastProgress.json))
        >>> again.numInputRows, again.batchId
        (2, 0)
        >>> q.stop()
        """
        from sparklet.sql.types import Row

        fields = cls._defaults(j)
        fields["id"] = uuid.UUID(j["id"])
        fields["runId"] = uuid.UUID(j["runId"])
        fields["stateOperators"] = [StateOperatorProgress.fromJson(s) for s in j.get("stateOperators", [])]
        fields["sources"] = [SourceProgress.fromJson(s) for s in j.get("sources", [])]
        fields["sink"] = SinkProgress.fromJson(j["sink"])
        for name in ("numInputRows", "inputRowsPerSecond", "processedRowsPerSecond"):
            fields[name] = j.get(name)
        fields["observedMetrics"] = {name: Row(**values) for name, values in (j.get("observedMetrics") or {}).items()}
        return cls(fields, j)

    def __getitem__(self, key: str) -> Any:
        # PySpark: ids are strings by key (as before Spark 4), UUIDs as attributes
        value = dict.__getitem__(self, key)
        return str(value) if key in ("id", "runId") else value
