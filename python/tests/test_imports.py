"""The package's modules import one way: no module imports one that imports it back, at the top or inside a
function (a loop hidden in function-level imports works until someone moves one of them to the top)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mha_explorer"


def package_imports(path):
    """The package's own modules that `path` imports anywhere in its body (relative imports)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module)
            else:
                names.update(a.name for a in node.names)
    return names


def test_the_modules_import_one_way():
    graph = {p.stem: package_imports(p) for p in PACKAGE.glob("*.py")}
    assert {"_view", "_widget", "_output", "_weights"} <= set(graph)

    def cycle_from(start):
        stack = [(start, [start])]
        while stack:
            name, path = stack.pop()
            for nxt in sorted(graph.get(name, ())):
                if nxt == start:
                    return path + [nxt]
                if nxt not in path:
                    stack.append((nxt, path + [nxt]))
        return None

    for name in sorted(graph):
        loop = cycle_from(name)
        assert loop is None, "mha_explorer imports in a loop: " + " → ".join(loop)
