"""Column functions, as :mod:`pyspark.sql.functions`.

String arguments name columns (``F.upper("name")``) unless the parameter is
a pattern, format or literal by nature (``F.regexp_extract(c, "(\\d+)", 1)``).
The functions are kept by family (``string``, ``math``, ``datetime``,
``collection``, ``aggregates``, ``sketches``, ``misc``); all are names of this module, as
in PySpark.

Examples
--------
>>> from sparklet.sql import functions as F
>>> df = spark.createDataFrame([("a", 1), ("a", 3), ("b", 5)], ["k", "v"])
>>> df.groupBy(F.upper("k").alias("K")).agg(F.sum("v").alias("total")).orderBy("K").show()
+---+-----+
|  K|total|
+---+-----+
|  A|    4|
|  B|    5|
+---+-----+
<BLANKLINE>
"""

from __future__ import annotations

from sparklet.sql import _remote
from sparklet.sql.functions import (
    _core,
    aggregates,
    collection,
    datetime,
    higher_order,
    math,
    misc,
    sketches,
    string,
    windowing,
)
from sparklet.sql.functions._core import *  # noqa: F403
from sparklet.sql.functions._core import ColumnOrName  # noqa: F401 - for annotations, as PySpark has it
from sparklet.sql.functions.aggregates import *  # noqa: F403
from sparklet.sql.functions.collection import *  # noqa: F403
from sparklet.sql.functions.datetime import *  # noqa: F403
from sparklet.sql.functions.higher_order import *  # noqa: F403
from sparklet.sql.functions.math import *  # noqa: F403
from sparklet.sql.functions.misc import *  # noqa: F403
from sparklet.sql.functions.sketches import *  # noqa: F403
from sparklet.sql.functions.string import *  # noqa: F403
from sparklet.sql.functions.windowing import *  # noqa: F403
from sparklet.sql.udf import PandasUDFType, pandas_udf, udf  # noqa: F401 - PySpark exports them here

_FAMILIES = (_core, aggregates, collection, datetime, higher_order, math, misc, sketches, string, windowing)

__all__ = sorted({name for family in _FAMILIES for name in family.__all__} | {"udf", "pandas_udf"})

# with a Spark Connect session from SparkSession.builder.remote(), each
# function builds PySpark's column instead (see sparklet.sql._remote)
_remote.forward_functions(globals(), [n for n in __all__ if n not in ("udf", "pandas_udf")] + ["udf", "pandas_udf"])


def _implementation(name: str) -> str | None:
    """The library that implements Spark's function ``name`` in sparklet
    (``sparklet``, ``datafusion-spark`` or ``datafusion``), for the docs'
    coverage table (``tools/docstring_examples.py --coverage``)."""
    from sparklet import _native

    return _native.function_implementation(name)
