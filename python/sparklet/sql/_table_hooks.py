"""A hook on reads of tables by name, for code that defines what a name
means while it runs (a pipeline resolving its datasets' queries)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparklet.sql.dataframe import DataFrame

#: ``hook(name, streaming)``: a DataFrame for ``name``, or None for the usual read.
TABLE_READ_HOOK: ContextVar[Callable[[str, bool], "DataFrame | None"] | None] = ContextVar(
    "table_read_hook", default=None
)


def hooked(name: str, streaming: bool) -> "DataFrame | None":
    """What the active hook gives for a read of ``name`` (None: read it as usual)."""
    hook = TABLE_READ_HOOK.get()
    return hook(name, streaming) if hook is not None else None
