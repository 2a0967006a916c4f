"""Read limits a Python streaming source's ``latestOffset(start, limit)``
gets (PySpark's ``pyspark.sql.streaming.datasource``), and the mixin for
``Trigger.AvailableNow``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

__all__ = [
    "ReadLimit",
    "ReadAllAvailable",
    "ReadMinRows",
    "ReadMaxRows",
    "ReadMaxFiles",
    "ReadMaxBytes",
    "SupportsTriggerAvailableNow",
]


class ReadLimit:
    """How much a micro-batch may take; one of the classes below."""


@dataclass
class ReadAllAvailable(ReadLimit):
    """Everything there is (also what ``Trigger.Once`` asks for)."""


@dataclass
class ReadMinRows(ReadLimit):
    """At least ``min_rows`` rows: with fewer, no batch yet."""

    min_rows: int


@dataclass
class ReadMaxRows(ReadLimit):
    """At most ``max_rows`` rows."""

    max_rows: int


@dataclass
class ReadMaxFiles(ReadLimit):
    """At most ``max_files`` files."""

    max_files: int


@dataclass
class ReadMaxBytes(ReadLimit):
    """At most ``max_bytes`` bytes."""

    max_bytes: int


class SupportsTriggerAvailableNow(ABC):
    """A stream reader that can stop at what exists when an ``availableNow``
    query starts (mix it into a stream reader)."""

    @abstractmethod
    def prepareForTriggerAvailableNow(self) -> None:
        """Note the newest offset now: ``latestOffset`` must not go past
        it, and must come to rest there."""
        ...
