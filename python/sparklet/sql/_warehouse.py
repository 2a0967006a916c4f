"""The local catalog of persistent tables, kept in the warehouse folder
(``spark.sql.warehouse.dir``, Spark's default ``spark-warehouse``) so that
tables survive the process.

Layout (see docs/tables.md): a managed table's files are in
``<warehouse>/<table>`` (database ``default``) or
``<warehouse>/<db>.db/<table>``, as Spark lays them out; the catalog is one
JSON document per database and per table under
``<warehouse>/_sparklet_catalog/`` (a folder Spark's readers skip, its name
starting with ``_``). Writes replace a document atomically (a temporary
file renamed over it)."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sparklet.errors import AnalysisException

DEFAULT_DB = "default"
CATALOG_NAME = "spark_catalog"
#: The catalog's folder in the warehouse.
META = "_sparklet_catalog"
#: The document format's version (bumped on incompatible changes).
VERSION = 1


@dataclass
class TableInfo:
    """A persistent table or view, as the warehouse catalog stores it."""

    name: str
    database: str
    #: ``MANAGED``, ``EXTERNAL`` or ``VIEW``
    kind: str
    #: the data source (``parquet``, ``csv``, ...); None for a view
    format: str | None = None
    location: str | None = None
    #: the schema as a DDL string (``struct<a:int,b:string>``)
    schema: str = "struct<>"
    partition_by: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    #: a view's query
    view_text: str | None = None
    created: float = field(default_factory=time.time)
    version: int = VERSION


@dataclass
class DatabaseInfo:
    """A database (namespace) of the warehouse catalog."""

    name: str
    location: str
    comment: str | None = None
    properties: dict[str, str] = field(default_factory=dict)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value, indent=1, sort_keys=True))
    os.replace(tmp, path)


class Warehouse:
    """The warehouse folder and its catalog documents."""

    def __init__(self, root: str) -> None:
        self.root = Path(root).absolute()

    def _meta(self) -> Path:
        return self.root / META

    # ---- databases --------------------------------------------------------
    def database_location(self, name: str) -> Path:
        return self.root if name == DEFAULT_DB else self.root / f"{name}.db"

    def databases(self) -> list[DatabaseInfo]:
        found = {DEFAULT_DB: DatabaseInfo(DEFAULT_DB, str(self.root), "default database")}
        meta = self._meta()
        if meta.is_dir():
            for doc in sorted(meta.glob("*/_database.json")):
                info = DatabaseInfo(**json.loads(doc.read_text()))
                found[info.name] = info
        return [found[k] for k in sorted(found)]

    def database(self, name: str) -> DatabaseInfo | None:
        return next((d for d in self.databases() if d.name == name), None)

    def create_database(self, info: DatabaseInfo) -> None:
        Path(info.location).mkdir(parents=True, exist_ok=True)
        _write_json(self._meta() / info.name / "_database.json", asdict(info))

    def drop_database(self, name: str) -> None:
        info = self.database(name)
        shutil.rmtree(self._meta() / name, ignore_errors=True)
        if info is not None and name != DEFAULT_DB:
            shutil.rmtree(info.location, ignore_errors=True)

    # ---- tables -------------------------------------------------------------
    def _doc(self, database: str, name: str) -> Path:
        return self._meta() / database / f"{name}.json"

    def tables(self, database: str) -> list[TableInfo]:
        folder = self._meta() / database
        if not folder.is_dir():
            return []
        out = []
        for doc in sorted(folder.glob("*.json")):
            if doc.name != "_database.json":
                out.append(self._load(doc))
        return out

    def table(self, database: str, name: str) -> TableInfo | None:
        doc = self._doc(database, name)
        return self._load(doc) if doc.is_file() else None

    def _load(self, doc: Path) -> TableInfo:
        try:
            data = json.loads(doc.read_text())
            if data.get("version", 0) > VERSION:
                raise ValueError(f"catalog version {data['version']} is newer than this sparklet's ({VERSION})")
            return TableInfo(**data)
        except (ValueError, TypeError) as e:
            raise AnalysisException(
                f"[CORRUPT_CATALOG] The warehouse catalog document {doc} cannot be read: {e}", "CORRUPT_CATALOG"
            ) from e

    def put(self, info: TableInfo) -> None:
        _write_json(self._doc(info.database, info.name), asdict(info))

    def remove(self, info: TableInfo, delete_files: bool) -> None:
        self._doc(info.database, info.name).unlink(missing_ok=True)
        if delete_files and info.kind == "MANAGED" and info.location:
            shutil.rmtree(info.location, ignore_errors=True)

    def default_location(self, database: str, name: str) -> str:
        return str(self.database_location(database) / name)
