""":class:`StorageLevel`, as :mod:`pyspark.storagelevel`: how a persisted
DataFrame is kept. In one process every level keeps the computed batches in
memory; the level is recorded and reported (``df.storageLevel``) as Spark
reports it."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["StorageLevel"]


class StorageLevel:
    """Flags for where a persisted DataFrame is kept, and its replication."""

    DISK_ONLY: ClassVar[StorageLevel]
    DISK_ONLY_2: ClassVar[StorageLevel]
    DISK_ONLY_3: ClassVar[StorageLevel]
    MEMORY_ONLY: ClassVar[StorageLevel]
    MEMORY_ONLY_2: ClassVar[StorageLevel]
    MEMORY_AND_DISK: ClassVar[StorageLevel]
    MEMORY_AND_DISK_2: ClassVar[StorageLevel]
    OFF_HEAP: ClassVar[StorageLevel]
    MEMORY_AND_DISK_DESER: ClassVar[StorageLevel]
    NONE: ClassVar[StorageLevel]

    def __init__(
        self, useDisk: bool, useMemory: bool, useOffHeap: bool, deserialized: bool, replication: int = 1
    ) -> None:
        self.useDisk = useDisk
        self.useMemory = useMemory
        self.useOffHeap = useOffHeap
        self.deserialized = deserialized
        self.replication = replication

    def _flags(self) -> tuple[bool, bool, bool, bool, int]:
        return (self.useDisk, self.useMemory, self.useOffHeap, self.deserialized, self.replication)

    def __repr__(self) -> str:
        return "StorageLevel({}, {}, {}, {}, {})".format(*self._flags())

    def __str__(self) -> str:
        where = [
            "Disk" if self.useDisk else "",
            "Memory" if self.useMemory else "",
            "OffHeap" if self.useOffHeap else "",
        ]
        kept = " ".join(w for w in where if w)
        form = "Deserialized" if self.deserialized else "Serialized"
        return f"{kept} {form} {self.replication}x Replicated"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StorageLevel) and self._flags() == other._flags()

    def __hash__(self) -> int:
        return hash(self._flags())


StorageLevel.DISK_ONLY = StorageLevel(True, False, False, False)
StorageLevel.DISK_ONLY_2 = StorageLevel(True, False, False, False, 2)
StorageLevel.DISK_ONLY_3 = StorageLevel(True, False, False, False, 3)
StorageLevel.MEMORY_ONLY = StorageLevel(False, True, False, False)
StorageLevel.MEMORY_ONLY_2 = StorageLevel(False, True, False, False, 2)
StorageLevel.MEMORY_AND_DISK = StorageLevel(True, True, False, False)
StorageLevel.MEMORY_AND_DISK_2 = StorageLevel(True, True, False, False, 2)
StorageLevel.OFF_HEAP = StorageLevel(True, True, True, False, 1)
StorageLevel.MEMORY_AND_DISK_DESER = StorageLevel(True, True, False, True)
StorageLevel.NONE = StorageLevel(False, False, False, False)
