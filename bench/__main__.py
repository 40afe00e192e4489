"""``make bench``: run every ``bench/bench_*.py`` module, print a table, write ``bench/results.json``.

Each module has ``run() -> list[dict]``; a row has ``name``, ``median`` and ``unit``, and may add
``target``, ``ratio`` and other measured numbers. Medians, not means: this machine is shared and noisy.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def main(argv: list[str]) -> int:
    only = set(argv)
    rows: list[dict[str, Any]] = []
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem.removeprefix("bench_") not in only:
            continue
        module = importlib.import_module(f"bench.{path.stem}")
        started = time.perf_counter()
        for row in module.run():
            row.setdefault("suite", path.stem.removeprefix("bench_"))
            rows.append(row)
            print(_format(row), flush=True)
        print(f"# {path.stem}: {time.perf_counter() - started:.1f} s", flush=True)
    out = HERE / "results.json"
    if only and out.exists():  # a partial run keeps the other suites' rows from the last run
        ran = {row["suite"] for row in rows}
        kept = [
            row
            for row in json.loads(out.read_text(encoding="utf-8")).get("rows", [])
            if row["suite"] not in ran
        ]
        rows = kept + rows
    results = {
        "machine": {"python": platform.python_version(), "processor": platform.machine(), "cpus": _cpus()},
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rows": rows,
    }
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


def _cpus() -> int:
    import os

    return os.cpu_count() or 0


def _format(row: dict[str, Any]) -> str:
    target = f"  (target {row['target']})" if "target" in row else ""
    shown = {"name", "median", "unit", "target", "suite"}
    extra = "".join(f"  {k}={v}" for k, v in row.items() if k not in shown)
    return f"{row['suite']:>10}  {row['name']:<52} {row['median']:>12.4g} {row['unit']:<4}{target}{extra}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
