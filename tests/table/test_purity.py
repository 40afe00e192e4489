"""The rules core imports only the standard library, so it runs anywhere (and fast)."""

import ast
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parents[2] / "table"


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_table_imports_only_the_standard_library_and_itself():
    files = sorted(TABLE.glob("*.py"))
    assert len(files) > 5
    for path in files:
        foreign = imported_roots(path) - set(sys.stdlib_module_names) - {"table", "__future__"}
        assert not foreign, f"{path.name} imports {sorted(foreign)}"


def test_the_check_finds_a_foreign_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import numpy as np\nfrom flask import Flask\nimport json\n", encoding="utf-8")
    assert imported_roots(sample) - set(sys.stdlib_module_names) == {"numpy", "flask"}
