"""The package's import graph: layers without back-arrows, and no circles; small modules; events that own their
mathematics.

Every ``import`` of a ``dpcalc`` module is an edge — at module level, inside a function (a lazy import is still a
dependency) or under ``if TYPE_CHECKING:`` (an annotation names the module all the same). The layers, bottom to
top:

======== ============================================================================================================
core     errors, numerics, validation, the root finders, limits, progress, units, file I/O (``dpcalc.files``)
accounting  the privacy notions and accountants (``dpcalc.accounting``), with the mathematics of the samplers and of
         distributed noise their events use (``dpcalc.accounting.samplers``, ``dpcalc.accounting.distributed``)
sim      the Monte Carlo core (``dpcalc.sim``)
families the five papers' families (midp, gaussian_mi, cuag, nbafl, secagg), attack risk and audits, matrix
         mechanisms, the samplers (``dpcalc.samplers``) and distributed DP (``dpcalc.distributed``, with its noise
         beside secure aggregation's, ``dpcalc.distributed.secagg_link``)
catalog  the formula catalog (``dpcalc.catalog``)
checks   verification recipes and the ``verify`` driver
report   columns, grids, rendering, table specs
plot     figures
api      the verbs at the top (``dpcalc.api``: epsilon, delta, account, calibrate, statement)
cli      the command line (and ``python -m dpcalc``)
======== ============================================================================================================

A module may import its own layer and the layers below it, never a layer above; the graph over all modules must
be acyclic (a circle held apart only by imports inside functions or under TYPE_CHECKING is still a circle). No
module has over 450 lines of code (docstrings not counted: documenting a function does not make a module do more).
In ``dpcalc.accounting`` no code dispatches on an event's type (an accountant calls the event's privacy maps), and
each mechanism class is named in at most three files.
"""

from __future__ import annotations

import ast
from pathlib import Path

import dpcalc

PACKAGE = Path(dpcalc.__file__).parent

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("dpcalc", "dpcalc.errors", "dpcalc._numerics", "dpcalc._validate", "dpcalc._roots", "dpcalc._roots_mp",
              "dpcalc._repr", "dpcalc._rounding",
              "dpcalc._limits", "dpcalc._progress", "dpcalc.units", "dpcalc.files", "dpcalc.typing")),
    ("accounting", ("dpcalc.accounting",)),
    ("sim", ("dpcalc.sim",)),
    ("families", ("dpcalc.midp", "dpcalc.gaussian_mi", "dpcalc.cuag", "dpcalc.nbafl", "dpcalc.secagg",
                  "dpcalc.risk", "dpcalc.audit", "dpcalc.samplers", "dpcalc.distributed", "dpcalc.matrix")),
    ("catalog", ("dpcalc.catalog",)),
    ("checks", ("dpcalc.checks", "dpcalc.verify")),
    ("report", ("dpcalc.report",)),
    ("plot", ("dpcalc.plot",)),
    ("api", ("dpcalc.api",)),
    ("cli", ("dpcalc.cli", "dpcalc.__main__")),
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


def _imports(name: str, path: Path) -> set[str]:
    """The dpcalc modules ``name`` imports (``from dpcalc import x`` counts as importing ``dpcalc.x`` when x is a
    module, else the package ``dpcalc``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
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


MAX_LINES = 450


def _code_lines(path: Path) -> int:
    """Lines of ``path`` outside the docstrings of the module, its classes and its functions."""
    text = path.read_text(encoding="utf-8")
    docs: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return sum(1 for k in range(1, len(text.splitlines()) + 1) if k not in docs)


def test_no_module_is_over_450_lines_of_code() -> None:
    long = {m: n for m, p in MODULES.items() if (n := _code_lines(p)) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines of code: {long}"


def _named(path: Path, name: str) -> bool:
    """Whether the code of ``path`` names ``name`` (an identifier, an attribute, a class, an import), not prose."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if ((isinstance(node, ast.Name) and node.id == name)
                or (isinstance(node, ast.Attribute) and node.attr == name)
                or (isinstance(node, ast.ClassDef) and node.name == name)
                or (isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names))):
            return True
    return False


def test_accounting_calls_the_events_maps_instead_of_dispatching_on_their_types() -> None:
    """``isinstance`` against a mechanism, sampling or composition class: none in dpcalc.accounting (the base class
    ``Event`` is allowed: tree walks and validation; at most 15 such sites). Each mechanism class is named in at most
    three files there: its module, the package's export line, and one user (the training run, user level)."""
    from dpcalc.accounting import events

    accounting = PACKAGE / "accounting"
    classes = {c.__name__ for c in events.EVENT_CLASSES.values()} | {"Event", "FixedSizeSample"}
    sites = []
    for path in accounting.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance" and len(node.args) == 2:
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} | {
                    n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
                if named & classes:
                    sites.append((path.relative_to(PACKAGE.parent).as_posix(), node.lineno, named & classes))
    dispatch = [s for s in sites if s[2] - {"Event"}]
    assert dispatch == [], f"dispatch on event types: {dispatch}"
    assert len(sites) <= 15, sites
    mechanisms = {c.__name__ for c in events.EVENT_CLASSES.values()
                  if c.__module__.startswith("dpcalc.accounting.events.mechanisms.")}
    assert len(mechanisms) >= 15
    spread = {m: files for m in sorted(mechanisms)
              if len(files := [p.relative_to(accounting).as_posix() for p in accounting.rglob("*.py")
                               if _named(p, m)]) > 3}
    assert spread == {}, f"mechanism classes named in more than three files: {spread}"


def test_moved_modules_keep_their_former_paths() -> None:
    """The samplers' and distributed noise's bounds moved under `dpcalc.accounting`; their former dotted paths still
    import, and name the same module objects (not copies)."""
    import importlib

    for old, new in [("dpcalc.samplers.shuffle", "dpcalc.accounting.samplers.shuffle"),
                     ("dpcalc.samplers.allocation_rdp", "dpcalc.accounting.samplers.allocation_rdp"),
                     ("dpcalc.samplers.allocation_pld", "dpcalc.accounting.samplers.allocation_pld"),
                     ("dpcalc.samplers.allocation_law", "dpcalc.accounting.samplers.allocation_law"),
                     ("dpcalc.samplers.params", "dpcalc.accounting.samplers.params"),
                     ("dpcalc.distributed.noise", "dpcalc.accounting.distributed.noise"),
                     ("dpcalc.distributed.rounding", "dpcalc.accounting.distributed.rounding")]:
        assert importlib.import_module(old) is importlib.import_module(new)
    from dpcalc.distributed.noise import ddg_rdp
    from dpcalc.samplers.shuffle import epsilon_lower

    assert callable(ddg_rdp) and callable(epsilon_lower)
