"""The package's modules import each other without a cycle (issue 17 item 7:
``_checks`` and ``_generated/types`` used to import each other). Every
import counts, also one inside a function: a lazy import hides a cycle, it
does not remove it."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "webhook_retry_policy"


def _module(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                base = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if n.endswith("__init__") or n == "webhook_retry_policy":
                continue  # the package's own __init__ re-exports; its submodules never need it
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_checks_and_the_generated_types_no_longer_import_each_other():
    g = _graph()
    assert "webhook_retry_policy._generated.types" in g["webhook_retry_policy._generated.abi"]
    assert "webhook_retry_policy._checks" in g["webhook_retry_policy._generated.types"]
    assert not g["webhook_retry_policy._checks"] & {"webhook_retry_policy._generated.types"}


def test_no_module_of_the_package_imports_itself_through_others():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])
