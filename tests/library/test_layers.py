"""The package's import graph: layers without back-arrows, and no circles.

Every ``import`` of a ``dpcalc`` module is an edge — at module level or inside a function (a lazy import is still a
dependency), except under ``if TYPE_CHECKING:`` (annotations only). The layers, bottom to top:

======== ============================================================================================================
core     errors, numerics, validation, the root finders, limits, progress, units, file I/O (``dpcalc.files``)
accounting  the privacy notions and accountants (``dpcalc.accounting``)
sim      the Monte Carlo core (``dpcalc.sim``)
families the five papers' families (midp, gaussian_mi, cuag, nbafl, secagg)
catalog  the formula catalog (``dpcalc.catalog``)
checks   verification recipes and the ``verify`` driver
report   columns, grids, rendering, table specs
plot     figures
cli      the command line
======== ============================================================================================================

A module may import its own layer and the layers below it, never a layer above; the graph over all modules must
be acyclic (a circle held apart only by imports inside functions is still a circle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import dpcalc

PACKAGE = Path(dpcalc.__file__).parent

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("dpcalc", "dpcalc.errors", "dpcalc._numerics", "dpcalc._validate", "dpcalc._roots", "dpcalc._roots_mp",
              "dpcalc._repr",
              "dpcalc._limits", "dpcalc._progress", "dpcalc.units", "dpcalc.files", "dpcalc.typing")),
    ("accounting", ("dpcalc.accounting",)),
    ("sim", ("dpcalc.sim",)),
    ("families", ("dpcalc.midp", "dpcalc.gaussian_mi", "dpcalc.cuag", "dpcalc.nbafl", "dpcalc.secagg")),
    ("catalog", ("dpcalc.catalog",)),
    ("checks", ("dpcalc.checks", "dpcalc.verify")),
    ("report", ("dpcalc.report",)),
    ("plot", ("dpcalc.plot",)),
    ("cli", ("dpcalc.cli",)),
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` (imports there are for annotations only)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


def _imports(name: str, path: Path) -> set[str]:
    """The dpcalc modules ``name`` imports (``from dpcalc import x`` counts as importing ``dpcalc.x`` when x is a
    module, else the package ``dpcalc``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(head + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # `import dpcalc.x.y` where y is a name: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    """Index of the layer that owns ``module`` (the longest matching prefix)."""
    best, best_len = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = i, len(prefix)
    return best


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if layer_of(m) < 0] == []


def test_no_import_reaches_up_a_layer() -> None:
    back = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) -> {t} ({LAYERS[layer_of(t)][0]})"
                  for m, targets in GRAPH.items() for t in targets if layer_of(t) > layer_of(m))
    assert back == [], "imports from a lower layer to a higher one:\n" + "\n".join(back)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            child = next(it, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_circles() -> None:
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
