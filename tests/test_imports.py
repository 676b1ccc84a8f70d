"""The house rules for imports: they go one way (no cycle in verifier/ or prover/, function-level
imports included), and the verifier keeps at most MAX_VERIFIER_LAZY imports inside functions,
each with a one-line reason on the line above it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"verifier": "luminair.verifier", "prover": "luminair.prover"}
MAX_VERIFIER_LAZY = 10


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    parts[0] = PACKAGES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for folder in PACKAGES for p in (ROOT / folder).rglob("*.py")}


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines inside `if TYPE_CHECKING:` blocks (annotations only: never run)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, ast.stmt, bool]]:
    """(imported module, the statement, whether it runs inside a function) for every import of a
    project module."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for child in ast.walk(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    inside.add(id(child))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in skip:
            continue
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for t in targets:
            while t and t not in modules:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name:
                out.append((t, node, id(node) in inside))
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {t for t, _, _ in _imports(name, path, modules)} for name, path in modules.items()}


def test_no_import_cycle_in_the_verifier_or_the_prover():
    cycles = _cycles(import_graph())
    assert not cycles, "import cycles (function-level imports included):\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_verifiers_function_level_imports_are_few_and_explained():
    modules = _modules()
    lazy = []
    for name, path in modules.items():
        if not name.startswith("luminair.verifier"):
            continue
        lines = path.read_text().splitlines()
        seen = set()
        for _, node, inside in _imports(name, path, modules):
            if inside and id(node) not in seen:  # one entry a statement
                seen.add(id(node))
                above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
                lazy.append((f"{path.relative_to(ROOT)}:{node.lineno}", above.startswith("#")))
    unexplained = [where for where, ok in lazy if not ok]
    assert len(lazy) <= MAX_VERIFIER_LAZY, f"{len(lazy)} function-level imports in the verifier: {[w for w, _ in lazy]}"
    assert not unexplained, f"function-level imports without a reason on the line above: {unexplained}"
