"""Run a test suite written against sparklet on Apache Spark instead.

``pytest --engine=pyspark`` (the option of sparklet's pytest plugin) calls
:func:`install` before any test module is imported: from then on
``sparklet.sql``, ``sparklet.sql.functions``, ``sparklet.sql.types``,
``sparklet.sql.streaming`` and ``sparklet.errors`` are PySpark's modules,
and ``sparklet.testing`` is this module, so the unchanged tests build their
pipelines with PySpark on a local Spark session. A test passes on both
engines only if the pipeline code means the same to both, which is the
claim it checks.

What cannot be PySpark's: :class:`MemoryStream` has no Python API in
PySpark, so here it is a folder of Parquet files read by Spark's file
source (one file per ``addData``, so one offset each, as Spark's
``MemoryStream``). ``testStream`` and its actions are sparklet's own, run
on PySpark's queries (all but the manual clock). sparklet's other test
helpers (``GroupStateTester``, ...) have no PySpark counterpart: importing
one gives a stand-in that raises when used, so a module importing them
still loads and its tests that use them are marked ``sparklet_only``.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MemoryStream", "assertDataFrameEqual", "assertSchemaEqual", "install", "session"]

#: Settings that make a local Spark session behave as sparklet's defaults.
SPARK_DEFAULTS = {
    "spark.master": "local[2]",
    "spark.sql.shuffle.partitions": "4",
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
}


def session() -> Any:
    """The local Spark session the suite runs on (created on first use)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("sparklet-portability")
    for key, value in SPARK_DEFAULTS.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


#: Set by :func:`install`: the run's PySpark workers (which inherit it)
#: alias the modules too when they import the tests' modules.
AS_PYSPARK = "SPARKLET_AS_PYSPARK"


def install() -> None:
    """Make ``sparklet``'s public modules PySpark's for this process and
    its PySpark workers, and start the local Spark session."""
    alias_modules()
    os.environ[AS_PYSPARK] = "1"
    # created now with sparklet's defaults: the suite's getOrCreate() gets it
    session()


def alias_modules() -> None:
    """Make ``sparklet``'s public modules PySpark's in this process (a test
    module's classes unpickled in a worker subclass PySpark's, as Spark
    checks)."""
    import pyspark.errors
    import pyspark.sql
    import pyspark.sql.datasource
    import pyspark.sql.functions
    import pyspark.sql.streaming
    import pyspark.sql.streaming.datasource
    import pyspark.sql.streaming.listener
    import pyspark.sql.types
    import pyspark.storagelevel
    import pyspark.streaming
    import pyspark.testing

    import sparklet
    import sparklet.testing.stream_test  # sparklet's DSL, loaded before the names below go to PySpark

    global _DSL
    _DSL = sparklet.testing.stream_test
    aliases = {
        "sparklet.sql": pyspark.sql,
        "sparklet.sql.functions": pyspark.sql.functions,
        "sparklet.sql.types": pyspark.sql.types,
        "sparklet.sql.streaming": pyspark.sql.streaming,
        "sparklet.sql.streaming.listener": pyspark.sql.streaming.listener,
        "sparklet.sql.datasource": pyspark.sql.datasource,
        "sparklet.sql.streaming.datasource": pyspark.sql.streaming.datasource,
        "sparklet.streaming": pyspark.streaming,
        "sparklet.errors": pyspark.errors,
        "sparklet.storagelevel": pyspark.storagelevel,
        "sparklet.testing": sys.modules[__name__],
        "sparklet.sql.streaming.files": sys.modules[__name__],
    }
    sys.modules.update(aliases)
    sparklet.sql = pyspark.sql
    sparklet.errors = pyspark.errors
    sparklet.StorageLevel = pyspark.storagelevel.StorageLevel  # type: ignore[misc, assignment]
    sparklet.testing = sys.modules[__name__]


def committed_files(path: str) -> list[str]:
    """``sparklet.sql.streaming.files.committed_files`` read from Spark's own
    file sink log (``_spark_metadata``: a JSON line per file after the
    version line; a ``.compact`` batch holds every file up to it)."""
    import json
    from urllib.parse import unquote, urlparse

    log = Path(path) / "_spark_metadata"
    if not log.is_dir():
        raise FileNotFoundError(f"{path}/_spark_metadata does not exist: {path} is not a streaming file sink output")
    batches = sorted(
        (int(f.name.split(".")[0]), f) for f in log.iterdir() if f.name.split(".")[0].isdigit() and "crc" not in f.name
    )
    files: list[str] = []
    for _, f in batches:
        if f.name.endswith(".compact"):
            files = []
        for line in f.read_text().splitlines()[1:]:
            entry = json.loads(line)
            if entry.get("action", "add") == "add":
                files.append(unquote(urlparse(entry["path"]).path))
    return files


#: sparklet's ``testStream`` DSL module (set by :func:`alias_modules`).
_DSL: Any = None


def __getattr__(name: str) -> Any:
    """The ``testStream`` DSL (sparklet's, run on PySpark's queries), or for
    another sparklet-only test helper a stand-in that raises when used."""
    if _DSL is not None and name in _DSL.__all__:
        return getattr(_DSL, name)
    # only sparklet's helper names (classes, testStream): pytest and doctest
    # probe modules for lowercase hooks (pytest_plugins, setup_module)
    if not (name[:1].isupper() or name == "testStream"):
        raise AttributeError(name)

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"sparklet.testing.{name} is sparklet-only: PySpark has no counterpart")

    unavailable.__name__ = name
    return unavailable


def assertDataFrameEqual(actual: Any, expected: Any, **kwargs: Any) -> None:  # noqa: N802 - PySpark's name
    """:func:`pyspark.testing.assertDataFrameEqual`."""
    from pyspark.testing import assertDataFrameEqual as check

    check(actual, expected, **kwargs)


def assertSchemaEqual(actual: Any, expected: Any, **kwargs: Any) -> None:  # noqa: N802 - PySpark's name
    """:func:`pyspark.testing.assertSchemaEqual`."""
    from pyspark.testing import assertSchemaEqual as check

    check(actual, expected, **kwargs)


class MemoryStream:
    """sparklet's ``MemoryStream`` for PySpark: each :meth:`addData` writes
    one Parquet file (atomically: written aside, then renamed in) to a
    folder that Spark's file source streams from."""

    _ids = itertools.count()

    def __init__(self, spark: Any, schema: Any) -> None:
        from pyspark.sql.types import StructType, _parse_datatype_string

        self._spark = spark
        self._schema = schema if isinstance(schema, StructType) else _parse_datatype_string(schema)
        self._folder = Path(tempfile.mkdtemp(prefix=f"sparklet-memory-stream-{next(self._ids)}-"))
        self._offset = -1

    def __del__(self) -> None:
        shutil.rmtree(getattr(self, "_folder", ""), ignore_errors=True)

    @property
    def schema(self) -> Any:
        """The rows' schema."""
        return self._schema

    def toDF(self) -> Any:  # noqa: N802 - the API's name
        """The streaming DataFrame over this stream."""
        return self._spark.readStream.schema(self._schema).parquet(str(self._folder))

    def addData(self, *data: Any) -> int:  # noqa: N802 - the API's name
        """Append rows (a list of tuples/Rows/dicts, a pandas DataFrame or a
        pyarrow Table, or rows as separate arguments). Returns the offset."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        payload: Any = data[0] if len(data) == 1 and not isinstance(data[0], tuple) else list(data)
        if isinstance(payload, pa.Table):
            payload = payload.to_pandas()
        table = self._spark.createDataFrame(payload, self._schema).toArrow()
        self._offset += 1
        name = f"part-{self._offset:06d}.parquet"
        pq.write_table(table, self._folder / f".{name}.tmp")
        os.rename(self._folder / f".{name}.tmp", self._folder / name)
        return self._offset
