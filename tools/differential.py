"""Differential testing against PySpark: random inputs read by sparklet and
by PySpark (local mode) in one process, compared row by row.

    python tools/differential.py readers --cases 500 [--seed 1]   (make differential)
    python tools/differential.py pipelines --cases 500 [--seed 1]

``readers``: random JSON files, each line a record of random, mistyped,
extreme or malformed values for a random schema (numbers of every size,
strings, booleans, NaN and the infinities, nested objects and arrays,
dates and times, broken syntax), and random CSV files (fields of values,
separators, quotes, doubled and escaped quotes, backslashes and blanks in
every place, too few or too many fields, with and without multiLine),
read in PERMISSIVE and DROPMALFORMED mode with a corrupt-record column. A case whose rows differ is shrunk (lines and
fields dropped while the engines still disagree) and written to
``build/differential/`` as the file, the schema and both engines' rows; the
run prints each such case and exits 1 when there is one. Seeded: the same
``--seed`` draws the same cases.

``pipelines``: random streaming pipelines (tools/differential_pipelines.py)
over random files, run to the end with availableNow on both engines (with a
restart from the checkpoint part way), each micro-batch's rows, the result's
schema and any error's condition compared. A disagreement is shrunk and
written to ``build/differential/`` as a regression case in the form
``tests_py/differential_cases/`` holds (PySpark's outcome as the expectation).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "differential"

TYPES = [
    "BIGINT",
    "INT",
    "SMALLINT",
    "DOUBLE",
    "FLOAT",
    "STRING",
    "BOOLEAN",
    "DECIMAL(10,2)",
    "DECIMAL(5,0)",
    "DATE",
    "TIMESTAMP",
    "ARRAY<INT>",
    "ARRAY<STRING>",
    "STRUCT<a: INT, b: STRING>",
    "MAP<STRING, INT>",
    "BINARY",
]

# JSON texts of values of every kind, right and wrong for each type
VALUES = [
    "0", "1", "-1", "42", "2147483647", "2147483648", "-9223372036854775808", "9223372036854775808",
    "1.5", "-0.0", "1e2", "1E+2", "3.4e39", "1e-7", "12345678.999", "0.005", "2.675", "99999.5",
    "NaN", "Infinity", "-Infinity", '"NaN"', '"-INF"', '"Infinity"',
    '""', '"x"', '"12"', '"1.5"', '"true"', '"2024-01-01"', '"2024-01-01T00:00:20"', '"2024-01-01 10:00:00.123"',
    '"9999-12-31"', '"0001-01-01T00:00:00"', '"not a date"', '"aGVsbG8="', '"\\u00e9\\n"',
    "true", "false", "null",
    "[]", "[1, 2]", '[1, "x"]', '["a", null]', "{}", '{"a": 1, "b": "x"}', '{"a": "y"}', '{"k": 1, "j": 2}',
    '{"a": {"b": 1}}',
]  # fmt: skip

BROKEN = ['{"a": ', "{,}", "[1, 2", "nope", "{'q': 1}", '{"a": 1} x', ""]


CSV_TYPES = ["STRING", "STRING", "INT", "BIGINT", "DOUBLE", "BOOLEAN", "DECIMAL(10,2)", "DATE", "TIMESTAMP"]

# pieces CSV fields are made of: values, and the characters that shape fields
CSV_PIECES = [
    '"', '""', '\\"', "\\\\", "\\", ",", " ", "a", "b c", "1", "-2", "1.5", "NaN", "true",
    "2024-01-01", "2024-01-01 00:00:20", "", "x,y",
]  # fmt: skip


@dataclass
class Case:
    schema: list[tuple[str, str]]
    lines: list[str]
    mode: str
    fmt: str = "json"
    multi_line: bool = False

    def ddl(self) -> str:
        return ", ".join(f"`{n}` {t}" for n, t in self.schema) + ", _corrupt_record STRING"


def draw(rng: random.Random) -> Case:
    return draw_csv(rng) if rng.random() < 0.4 else draw_json(rng)


def draw_csv(rng: random.Random) -> Case:
    schema = [(f"c{i}", rng.choice(CSV_TYPES)) for i in range(rng.randint(1, 4))]
    lines = []
    for _ in range(rng.randint(1, 8)):
        fields = []
        for _ in range(max(1, len(schema) + rng.choice([0, 0, 0, 0, -1, 1]))):
            text = "".join(rng.choice(CSV_PIECES) for _ in range(rng.randint(0, 3)))
            fields.append(f'"{text}"' if rng.random() < 0.35 else text)
        lines.append(",".join(fields))
    mode = rng.choice(["PERMISSIVE", "DROPMALFORMED"])
    return Case(schema, lines, mode, "csv", rng.random() < 0.3)


def draw_json(rng: random.Random) -> Case:
    names = [f"c{i}" for i in range(rng.randint(1, 4))]
    schema = [(n, rng.choice(TYPES)) for n in names]
    lines = []
    for _ in range(rng.randint(1, 8)):
        roll = rng.random()
        if roll < 0.08:
            lines.append(rng.choice(BROKEN))
        elif roll < 0.12:
            lines.append(rng.choice(VALUES))  # a top-level scalar or array
        else:
            fields = [f'"{n}": {rng.choice(VALUES)}' for n in names if rng.random() < 0.8]
            lines.append("{" + ", ".join(fields) + "}")
    return Case(schema, lines, rng.choice(["PERMISSIVE", "DROPMALFORMED"]))


class Engines:
    """A sparklet session and a PySpark session, both in UTC."""

    def __init__(self) -> None:
        import differential_pipelines as dp

        self.sparklet, self.pyspark = dp.sessions()

    def read(self, which: str, case: Case, folder: Path) -> list[tuple] | str:
        spark = getattr(self, which)
        try:
            reader = spark.read.schema(case.ddl()).option("mode", case.mode)
            if case.fmt == "csv":
                df = reader.option("multiLine", case.multi_line).csv(str(folder))
            else:
                df = reader.json(str(folder))
            # as text: Python's datetime cannot hold every value both read
            casts = [
                f"CAST(`{n}` AS STRING) AS `{n}`" if t in ("DATE", "TIMESTAMP") else f"`{n}`" for n, t in case.schema
            ]
            rows = df.selectExpr(*casts, "_corrupt_record").collect()
        except Exception as e:  # noqa: BLE001 - the error is part of the result
            return f"error: {type(e).__name__}"
        return sorted((tuple(plain(v) for v in r) for r in rows), key=repr)


def plain(v: Any) -> Any:
    """A value in a form both engines' rows compare equal in."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if hasattr(v, "asDict"):
        return tuple(plain(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, plain(x)) for k, x in v.items()))
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def outcome(engines: Engines, case: Case) -> tuple[Any, Any]:
    folder = Path(tempfile.mkdtemp(prefix="sparklet-diff-"))
    try:
        (folder / f"a.{case.fmt}").write_text("".join(line + "\n" for line in case.lines))
        return engines.read("sparklet", case, folder), engines.read("pyspark", case, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def differs(engines: Engines, case: Case) -> bool:
    ours, theirs = outcome(engines, case)
    return ours != theirs


def shrink(engines: Engines, case: Case) -> Case:
    """Drop lines, then fields, while the engines still disagree."""
    changed = True
    while changed:
        changed = False
        for i in range(len(case.lines)):
            smaller = replace(case, lines=case.lines[:i] + case.lines[i + 1 :])
            if smaller.lines and differs(engines, smaller):
                case, changed = smaller, True
                break
        for i in range(len(case.schema)):
            smaller = replace(case, schema=case.schema[:i] + case.schema[i + 1 :])
            if not changed and smaller.schema and differs(engines, smaller):
                case, changed = smaller, True
                break
    return case


def readers(cases: int, seed: int) -> int:
    rng = random.Random(seed)
    engines = Engines()
    OUT.mkdir(parents=True, exist_ok=True)
    found = 0
    for n in range(cases):
        case = draw(rng)
        if not differs(engines, case):
            continue
        found += 1
        small = shrink(engines, case)
        ours, theirs = outcome(engines, small)
        report = {"format": small.fmt, "multiLine": small.multi_line, "schema": small.ddl(), "mode": small.mode}
        report |= {"lines": small.lines, "sparklet": ours, "pyspark": theirs}
        (OUT / f"readers-{seed}-{n}.json").write_text(json.dumps(report, indent=2, default=repr))
        print(json.dumps(report, default=repr), flush=True)
    print(f"readers: {cases} cases (seed {seed}), {found} disagreements")
    return 1 if found else 0


def pipelines(cases: int, seed: int) -> int:
    import differential_pipelines as dp

    rng = random.Random(seed)
    engines = dp.Engines()
    OUT.mkdir(parents=True, exist_ok=True)
    found = 0
    errors: dict[str, int] = {}
    for n in range(cases):
        if n and n % 50 == 0:
            print(f"pipelines: {n} cases, {found} disagreements", flush=True)
        case = dp.draw(rng)
        ours, theirs = engines.both(case)
        if "error" in theirs:
            errors[theirs["error"]] = errors.get(theirs["error"], 0) + 1
        if not dp.disagree(ours, theirs):
            continue
        found += 1
        small = dp.shrink(engines, case)
        ours, theirs = engines.both(small)
        report = dp.as_case(small, json.loads(json.dumps(theirs)))
        report["sparklet"] = ours
        (OUT / f"pipelines-{seed}-{n}.json").write_text(json.dumps(report, indent=1, default=repr))
        print(json.dumps(report, default=repr), flush=True)
    print(f"pipelines: {cases} cases (seed {seed}), {found} disagreements; PySpark refused {errors}")
    return 1 if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["readers", "pipelines"])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    return (readers if args.what == "readers" else pipelines)(args.cases, args.seed)


if __name__ == "__main__":
    sys.exit(main())
