"""Grouped aggregate pandas UDFs: ``Series -> scalar`` functions used in
``groupBy().agg(...)``. A group's values are gathered, then the function is
called once per group with them as pandas Series."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from sparklet import _native
from sparklet.sql.column import Column, _to_col
from sparklet.sql.types import DataType


class AggregatePandasUDF:
    """A ``pandas_udf`` of ``Series -> scalar``: call it with columns inside ``agg``."""

    def __init__(self, func: Callable[..., Any], returnType: DataType | str) -> None:
        from sparklet.sql.udf import _data_type

        self.func = func
        self.returnType = _data_type(returnType)
        self._name = getattr(func, "__name__", type(func).__name__)

    def _runner(self) -> Callable[[pa.Table, int], pa.Array]:
        f, returns = self.func, self.returnType._to_arrow()

        def run(table: pa.Table, n: int) -> pa.Array:
            return pa.array([f(*(c.to_pandas() for c in table.columns))], type=returns)

        return run

    def __call__(self, *cols: Column | str) -> Column:
        exprs = [_to_col(c)._expr for c in cols]
        call = _native.udaf_call(self._name, self._runner(), self.returnType._to_arrow(), exprs)
        return Column(call).alias(f"{self._name}({', '.join(e.name() for e in exprs)})")
