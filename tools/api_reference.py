"""Generate the reference pages from the code: docs/api.md from the public
modules' docstrings, docs/configuration.md from the engine's keys.

    python tools/api_reference.py          # write both
    python tools/api_reference.py --check  # exit 1 if either is stale

The API reference lists, per public module, each name of its ``__all__``:
classes with their public methods and properties, functions with their
signatures, each with its docstring. The configuration page lists the keys
the engine reads (``rust/engine/src/conf.rs``: name and doc comment) with a
new session's defaults. ``tests_py/test_docs.py`` checks that both are up to
date and that nothing public lacks a docstring.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "api.md"
CONF_TARGET = ROOT / "docs" / "configuration.md"
CONF_SOURCE = ROOT / "rust" / "engine" / "src" / "conf.rs"

#: The public modules, in the order the reference lists them.
MODULES = [
    "sparklet.sql",
    "sparklet.sql.functions",
    "sparklet.sql.types",
    "sparklet.sql.streaming",
    "sparklet.sql.datasource",
    "sparklet.sql.streaming.datasource",
    "sparklet.streaming",
    "sparklet.pipelines",
    "sparklet.testing",
    "sparklet.errors",
    "sparklet.delta.tables",
]


def public_names(module: object) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:  # sparklet.sql.functions: every public function
        names = [
            n
            for n, v in vars(module).items()
            if not n.startswith("_") and inspect.isfunction(v) and v.__module__.startswith("sparklet")
        ]
    return sorted(set(names), key=str.lower)


def _field_names(cls: type) -> set[str]:
    """A dataclass's fields (a default such as ``error = Exception`` is a
    value, not a nested class)."""
    return set(getattr(cls, "__dataclass_fields__", {}))


def members(cls: type) -> Iterator[tuple[str, object]]:
    """A class's own public methods and properties (not inherited from object)."""
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if inspect.isfunction(value) or isinstance(value, property):
            yield name, value
        elif inspect.isclass(value) and not name.startswith("_") and name not in _field_names(cls):
            yield name, value  # a nested class (SparkSession.Builder)


class _Text(str):
    """An annotation shown as written (string annotations print quoted)."""

    def __repr__(self) -> str:
        return str(self)


def signature(obj: object) -> str:
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "(...)"

    def plain(a: object) -> object:
        return _Text(a.replace("'", "").replace('"', "")) if isinstance(a, str) else a

    params = [
        p.replace(annotation=plain(p.annotation)) for p in sig.parameters.values() if p.name not in ("self", "cls")
    ]
    return str(sig.replace(parameters=params, return_annotation=plain(sig.return_annotation)))


def doc(obj: object) -> str:
    """The object's own docstring (a function's is not looked up in bases)."""
    text = obj.__doc__ if inspect.isfunction(obj) else inspect.getdoc(obj)
    return inspect.cleandoc(text or "")


def render_class(lines: list[str], qualname: str, cls: type, depth: int) -> None:
    lines += [f"{'#' * depth} `{qualname}`", ""]
    if doc(cls):
        lines += [doc(cls), ""]
    for name, value in members(cls):
        if name == "__init__" and not doc(value):
            continue
        if inspect.isclass(value):
            render_class(lines, f"{qualname}.{name}", value, depth + 1)
            continue
        if isinstance(value, property):
            lines += [f"- **`{name}`** (property): {doc(value)}".rstrip(), ""]
            continue
        shown = qualname if name == "__init__" else f"{qualname}.{name}"
        lines += [f"- **`{shown}{signature(value)}`**", ""]
        if doc(value):
            lines += ["  " + line if line else "" for line in doc(value).splitlines()] + [""]


def render() -> str:
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `tools/api_reference.py` (do not edit;",
        "`tests_py/test_docs.py` fails when it is stale). The names follow",
        "PySpark's; where sparklet differs, the docstring says so.",
        "",
    ]
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        lines += [f"## `{module_name}`", ""]
        if doc(module):
            lines += [doc(module), ""]
        for name in public_names(module):
            value = getattr(module, name)
            if inspect.isclass(value):
                render_class(lines, name, value, 3)
            elif callable(value):
                lines += [f"- **`{name}{signature(value)}`**", ""]
                if doc(value):
                    lines += ["  " + line if line else "" for line in doc(value).splitlines()] + [""]
            elif inspect.ismodule(value):
                continue  # listed as its own section
    return "\n".join(lines).rstrip() + "\n"


def engine_keys() -> list[tuple[str, str]]:
    """(key, doc comment) of each key the engine reads, from conf.rs."""
    source = CONF_SOURCE.read_text()
    found = re.findall(r'((?:\s*///[^\n]*\n)+)\s*pub const [A-Z_]+: &str =\s*"([^"]+)";', source)
    return [
        (key, " ".join(line.strip()[3:].strip() for line in comment.strip().splitlines())) for comment, key in found
    ]


def render_configuration() -> str:
    from sparklet.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    lines = [
        "# Configuration",
        "",
        "Generated by `tools/api_reference.py` from the keys the engine reads",
        "(`rust/engine/src/conf.rs`) and a new session's defaults (do not edit).",
        "Set them as in PySpark: `SparkSession.builder.config(key, value)` or",
        "`spark.conf.set(key, value)`; sparklet accepts any other key too",
        "(`spark.conf.get` returns it) and ignores those it does not read.",
        "",
        "| key | default | meaning |",
        "| --- | --- | --- |",
    ]
    for key, meaning in sorted(engine_keys()):
        default = spark.conf.get(key, None)
        shown = f"`{default}`" if default is not None else "unset"
        lines.append(f"| `{key}` | {shown} | {meaning} |")
    lines += [
        "",
        "Where sparklet's default differs from Spark's: `spark.sql.shuffle.partitions`",
        "is 4 (Spark: 200; each partition is a state store, and one machine wants",
        "about one per core) and `spark.sql.session.timeZone` is UTC (Spark: the",
        "JVM's zone), so results do not depend on the machine; the web UI is off",
        "unless `spark.ui.enabled` is set. See `differences.md`.",
        "",
        "More keys, documented with their features:",
        "",
        "- `spark.sql.streaming.stateStore.rocksdb.*`: the RocksDB state store's",
        "  memory and compression settings, with Spark's names and defaults",
        "  (`state-stores.md`).",
        "- `spark.sql.repl.eagerEval.enabled` and `.maxNumRows`: DataFrames shown",
        "  as tables in notebooks (`monitoring.md`).",
        "- Per query, `writeStream.option(...)` and `readStream.option(...)` take",
        "  the source's and sink's options (`checkpoints.md`, `kafka.md`).",
        "",
        "## Memory allocator",
        "",
        "The engine allocates with mimalloc, set as the extension loads to keep",
        "freed memory for 10 s before handing it back (micro-batches reuse it; memory",
        "handed back returns as fresh pages the kernel zeroes) and not to ask for",
        "transparent huge pages (a fault on one zeroes 2 MiB: Nexmark q5 took 1.7 s",
        "with them, 1.1 s without). mimalloc's own environment variables override",
        "both: `MIMALLOC_PURGE_DELAY` (ms; `-1` never hands memory back) and",
        "`MIMALLOC_ALLOW_THP` (`1` allows huge pages), set before Python starts. On a",
        "machine short of memory, `MIMALLOC_PURGE_DELAY=0` trades speed for it: a",
        "deduplication over 16M events with a few million keys in state peaks at",
        "about 480 MB instead of 650-710 MB, but takes 1.5-1.8x as long (a",
        "2M-event join, at a 1 s delay, 8% longer; see `bench/README.md`).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="exit 1 if a page is not what the code gives")
    args = ap.parse_args()
    stale = []
    for target, text in ((TARGET, render()), (CONF_TARGET, render_configuration())):
        if not args.check:
            target.write_text(text)
        elif not target.exists() or target.read_text() != text:
            stale.append(target)
    for target in stale:
        print(f"{target} is stale: run python tools/api_reference.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
