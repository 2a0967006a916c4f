"""Option handling shared by readers and writers."""

from __future__ import annotations

from typing import Any

from sparklet.sql.types import StructType, to_struct_type


def to_str(value: Any) -> str | None:
    """An option value as Spark stores it (booleans lower-case)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


class OptionsMixin:
    """``format``/``option``/``options``/``schema`` shared by the readers."""

    _format: str | None
    _options: dict[str, str]
    _schema: StructType | None

    def _init_options(self) -> None:
        self._format = None
        self._options = {}
        self._schema = None

    def _set(self, **options: Any) -> None:
        for k, v in options.items():
            s = to_str(v)
            if s is not None:
                self._options[k] = s

    def _set_schema(self, schema: StructType | str | None) -> None:
        if schema is not None:
            self._schema = to_struct_type(schema)

    def _arrow_schema(self) -> Any:
        return self._schema._to_arrow_schema() if self._schema is not None else None
