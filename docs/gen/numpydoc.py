"""Rewrite the docstrings of public functions in numpy style: Parameters, Returns, Raises, Warns, Examples.

Maintainer tool, run by hand: ``python docs/gen/numpydoc.py FILE.py ...`` (``--check``: list what would change).
Idempotent: a docstring already in numpy style is left alone. For each public function (exported by its module's
``__all__`` when it has one) the tool keeps the prose and writes

* **Parameters** — every parameter of the signature with its annotation as type (the public aliases of
  `dpcalc.typing`); the description from the docstring's ``Args:`` section, else from the formula catalog entry the
  function implements (description, unit, domain), else from `COMMON`, else the parameter is listed without one;
* **Returns** — the return annotation; the description from ``Returns:``, else the catalog output, else the
  docstring's first line;
* **Raises** — ``DomainError`` when the function validates its input (a ``dpcalc._validate`` call, a raise of
  ``DomainError``, directly or through a function of the same module), ``InfeasibleError`` when it raises one;
* **Warns** — the dpcalc warning classes its body (or a helper of its module) names;
* **Examples** — the ``Examples:`` block, unchanged (the test suite runs it with doctest).
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

WIDTH = 120
SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Raises|Examples|Example|Warns):\s*$")
VALIDATORS = {"positive", "nonnegative", "probability", "check_range", "integer_at_least", "scalar", "vector",
              "weights", "choice", "text", "seed", "finite_result", "named_shapes", "scalar_params", "as_array",
              "broadcast", "evaluate", "elementwise"}
WARNINGS = {"OutOfDomainWarning": "a result outside the formula's proven domain",
            "ErratumWarning": "the paper's published (wrong) form was asked for",
            "EstimateWarning": "an approximation, not a bound"}
RAISES = {"DomainError": "an input outside its domain; the one-line message names the input and the allowed range",
          "InfeasibleError": "no value of the unknown reaches the target"}
COMMON = {
    "units": '``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities',
    "delta": "δ of (ε, δ)-DP, in (0, 1)",
    "seed": "seed of the random generator (an int, or a NumPy ``SeedSequence``/``Generator``)",
    "rtol": "relative tolerance of the root finder",
    "samples": "number of Monte Carlo samples",
    "workers": "worker processes (1: in this process)",
    "orders": "the Rényi orders α > 1 to evaluate",
    "sensitivity": "L2 sensitivity of the released quantity, > 0",
    "noise_multiplier": "noise standard deviation over the L2 sensitivity, > 0",
    "q": "sampling probability, in (0, 1]",
    "steps": "number of compositions T, an integer >= 1",
    "alpha": "Rényi order α > 1",
    "sigma": "noise standard deviation, > 0",
    "eps": "privacy level ε",
    "mu": "μ of μ-GDP, > 0",
    "rho": "ρ of ρ-zCDP, > 0",
    "as_published": "True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's",
}


def catalog_entries() -> dict[str, Any]:
    """Catalog formulas by implementation path (``dpcalc.midp.server_sigma``)."""
    from dpcalc import catalog

    out: dict[str, Any] = {}
    for f in catalog.load().values():
        out.setdefault(f.implementation, f)
    return out


def _module_name(path: Path) -> str:
    parts = list(path.resolve().with_suffix("").parts)
    parts = parts[parts.index("dpcalc"):]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _names(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _facts(tree: ast.Module) -> dict[str, dict[str, bool]]:
    """Per module-level function: does it validate, raise InfeasibleError, name each warning — directly or through
    a function of the module it calls (a fixed point)."""
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    facts: dict[str, dict[str, Any]] = {}
    calls: dict[str, set[str]] = {}
    for name, fn in funcs.items():
        names = _names(fn)
        checks = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and isinstance(n.func.value, ast.Name) and n.func.value.id == "v" and n.func.attr in VALIDATORS]
        validates = bool(checks) or "DomainError" in names or any(
            isinstance(d, ast.Attribute) and d.attr in VALIDATORS for d in fn.decorator_list)
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        checked = {c.args[0].value for c in checks
                   if c.args and isinstance(c.args[0], ast.Constant) and c.args[0].value in params}
        facts[name] = {"DomainError": validates, "InfeasibleError": "InfeasibleError" in names,
                       "checked": checked, **{w: w in names for w in WARNINGS}}
        calls[name] = {c for c in names if c in funcs and c != name}
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            for c in called:
                for key, value in facts[c].items():
                    if key == "checked":
                        continue
                    if value and not facts[name][key]:
                        facts[name][key] = changed = True
    return facts


def _sections(doc: str) -> tuple[list[str], dict[str, list[str]]]:
    """The prose lines and the Google-like sections (name → body lines, dedented) of a cleaned docstring."""
    lines = doc.split("\n")
    prose: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        m = SECTION.match(line)
        if m:
            key = {"Arguments": "Args", "Parameters": "Args", "Return": "Returns", "Example": "Examples"}.get(
                m.group(1), m.group(1))
            current = sections.setdefault(key, [])
            continue
        if current is not None and (not line.strip() or line[:1].isspace()):
            current.append(line)
            continue
        current = None
        prose.append(line)
    return prose, {k: textwrap.dedent("\n".join(v)).strip("\n").split("\n") for k, v in sections.items()}


def _entries(lines: list[str]) -> dict[str, str]:
    """``name: text`` entries of an ``Args:``/``Raises:`` section (continuation lines indented)."""
    out: dict[str, str] = {}
    key = None
    for line in lines:
        m = re.match(r"^(\*{0,2}\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if m and not line[:1].isspace():
            key = m.group(1).lstrip("*")
            out[key] = m.group(2).strip()
        elif key is not None and line.strip():
            out[key] += " " + line.strip()
    return out


def _type(node: ast.expr | None) -> str:
    return "" if node is None else ast.unparse(node).replace("v.FloatArray", "FloatArray").strip("'\"")


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH - len(indent), break_long_words=False, break_on_hyphens=False) or [""]


def _catalog_text(item: Any, name: str = "") -> str:
    text = str(getattr(item, "description", "") or "").rstrip(".") or COMMON.get(name, "")
    if not text:
        return ""
    unit = str(getattr(item, "unit", "") or "")
    if unit and unit != "dimensionless" and unit not in text:
        text += f" ({unit})"
    domain = getattr(item, "domain", "")
    if domain:
        text += f", in ``{domain}``"
    return text


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def numpy_docstring(fn: ast.FunctionDef, doc: str, facts: dict[str, Any], entry: Any, indent: str) -> str | None:
    if re.search(r"^\s*-{3,}\s*$", doc, re.M):
        return None  # already numpy style
    prose, sections = _sections(doc)
    args = _entries(sections.get("Args", []))
    raises = _entries(sections.get("Raises", []))
    inputs = {i.name: i for i in entry.inputs} if entry is not None else {}
    out = [*prose]
    while out and not out[-1].strip():
        out.pop()
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    params = [p for p in params if p.arg not in ("self", "cls")]
    if fn.args.vararg is not None and fn.args.vararg.arg in args:
        params.append(fn.args.vararg)
    if fn.args.kwarg is not None and fn.args.kwarg.arg in args:
        params.append(fn.args.kwarg)
    sub = indent + "    "
    if params:
        out += ["", "Parameters", "----------"]
        for p in params:
            typ = _type(p.annotation)
            out.append(f"{p.arg} : {typ}" if typ else p.arg)
            text = args.get(p.arg) or (_catalog_text(inputs[p.arg], p.arg) if p.arg in inputs else "") \
                or COMMON.get(p.arg, "")
            if text:
                out += ["    " + line for line in _wrap(_sentence(text), sub)]
    ret = _type(fn.returns)
    if ret and ret != "None":
        returns = " ".join(line.strip() for line in sections.get("Returns", []) if line.strip())
        if not returns and entry is not None:
            returns = str(getattr(entry.output, "description", "") or entry.title)
            unit = getattr(entry.output, "unit", "")
            returns += f" ({unit})" if unit and unit != "dimensionless" else ""
        if ret.endswith("FloatOrArray"):
            returns += ("; a" if returns else "A") + " float for scalar inputs, else an array of their broadcast shape"
        out += ["", "Returns", "-------", ret]
        if returns:
            out += ["    " + line for line in _wrap(_sentence(returns), sub)]
    errors = {k: v for k, v in RAISES.items() if facts.get(k)}
    if "DomainError" in errors:
        checked = facts.get("checked", set())
        named = [p.arg for p in params if p.arg in checked or p.arg in inputs]
        if named:
            listed = ", ".join(f"``{n}``" for n in named)
            errors["DomainError"] = f"An input ({listed}) outside its domain; the one-line message names it and the " \
                                    "allowed range"
    errors.update(raises)
    if errors:
        out += ["", "Raises", "------"]
        for name, text in errors.items():
            out.append(name)
            out += ["    " + line for line in _wrap(_sentence(text), sub)]
    warns = [w for w in WARNINGS if facts.get(w)]
    if warns:
        out += ["", "Warns", "-----"]
        for w in warns:
            out += [w, "    " + _sentence(WARNINGS[w])]
    if sections.get("Examples"):
        out += ["", "Examples", "--------", *sections["Examples"]]
    if sections.get("Warns"):
        out += ["", *sections["Warns"]]
    body = "\n".join((indent + line) if line.strip() else "" for line in out)
    return body.lstrip() + "\n" + indent


def convert(path: Path, entries: dict[str, Any], write: bool = True) -> int:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    module = _module_name(path)
    exported = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported = set(ast.literal_eval(node.value))
    facts = _facts(tree)
    lines = source.split("\n")
    edits: list[tuple[int, int, str]] = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
            continue
        if exported is not None and fn.name not in exported:
            continue
        doc = ast.get_docstring(fn, clean=True)
        node = fn.body[0]
        if not doc or not isinstance(node, ast.Expr):
            continue
        indent = " " * node.col_offset
        entry = entries.get(f"{module}.{fn.name}")
        new = numpy_docstring(fn, doc, facts.get(fn.name, {}), entry, indent)
        if new is None:
            continue
        first = lines[node.lineno - 1]
        prefix = first[node.col_offset:first.index('"""')]
        if "\\" in new and "r" not in prefix.lower():
            new = new.replace("\\", "\\\\")
        edits.append((node.lineno - 1, node.end_lineno or node.lineno, f'{indent}{prefix}"""{new}"""'))
    for start, end, text in reversed(edits):
        lines[start:end] = text.split("\n")
    if edits and write:
        path.write_text("\n".join(lines), encoding="utf-8")
    return len(edits)


def main(argv: list[str]) -> None:
    write = "--check" not in argv
    entries = catalog_entries()
    for name in [a for a in argv if a != "--check"]:
        n = convert(Path(name), entries, write)
        print(f"{name}: {n} docstrings {'rewritten' if write else 'to rewrite'}")


if __name__ == "__main__":
    main(sys.argv[1:])
