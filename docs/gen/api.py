"""The API reference: one page per public module of dpcalc (mkdocstrings), an overview, and their navigation.

A public module is one whose dotted name has no part starting with ``_`` (the command line, ``dpcalc.cli``, and
the verification recipes, ``dpcalc.checks``, have their own pages). A module exports its ``__all__`` (else the
functions, classes and constants it defines). Every object is documented once, on the page of the shallowest
module that exports it — where a reader imports it from (``dpcalc.nbafl.optimal_t``, not
``dpcalc.nbafl.optimal.optimal_t``); the module that defines it links there.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import OrderedDict
from types import ModuleType
from typing import Any

ROOT = "reference/api"

#: The overview's groups and the navigation's sections: (title, module prefixes), in order; the rest goes last.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Top level", ("dpcalc",)),
    ("Paper families", ("dpcalc.midp", "dpcalc.gaussian_mi", "dpcalc.cuag", "dpcalc.nbafl", "dpcalc.secagg")),
    ("Accounting", ("dpcalc.accounting",)),
    ("Formula catalog and verification", ("dpcalc.catalog", "dpcalc.verify")),
    ("Tables and figures", ("dpcalc.report", "dpcalc.plot")),
    ("Simulation", ("dpcalc.sim",)),
    ("Errors, units, types, files", ("dpcalc.errors", "dpcalc.units", "dpcalc.typing", "dpcalc.files")),
)

OPTIONS = """    options:
      members: {members}
      show_root_heading: false
      show_root_toc_entry: false
      show_submodules: false
      heading_level: 2
"""


def public_modules() -> list[str]:
    """Every public module's dotted name, sorted."""
    import dpcalc

    names = ["dpcalc"]
    for info in pkgutil.walk_packages(dpcalc.__path__, "dpcalc."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] in ("cli", "checks"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency is missing
            continue
        parent, _, leaf = info.name.rpartition(".")
        if getattr(importlib.import_module(parent), leaf, module) is not module:
            continue  # shadowed by a function of its package (events.relation): its objects are on the package's page
        names.append(info.name)
    return sorted(names)


def exported(module: ModuleType) -> list[str]:
    """The names ``module`` exports: its ``__all__``, else what it defines (functions, classes, constants); never
    a submodule."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, o in vars(module).items() if not n.startswith("_") and not inspect.ismodule(o)
                 and (getattr(o, "__module__", module.__name__) == module.__name__)
                 and (inspect.isfunction(o) or inspect.isclass(o) or n.isupper())]
    return [n for n in names if hasattr(module, n) and not inspect.ismodule(getattr(module, n))]


def _key(module: ModuleType, name: str) -> tuple[Any, ...]:
    obj = getattr(module, name)
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return (obj.__module__, obj.__qualname__)
    return (name, id(obj))


def _lazy_top() -> frozenset[str]:
    import dpcalc

    return frozenset(dpcalc._TOP)


LAZY_TOP = _lazy_top()


def homes(names: list[str]) -> dict[str, dict[str, str]]:
    """For each module, its exported names mapped to the module whose page documents them."""
    modules = {n: importlib.import_module(n) for n in names}
    order = sorted(names, key=lambda n: (n.count("."), n))
    home: dict[tuple[Any, ...], str] = {}
    for n in order:
        for name in exported(modules[n]):
            if n == "dpcalc" and name in LAZY_TOP:
                continue  # loaded on first access (PEP 562): the static reader cannot document it at the top
            home.setdefault(_key(modules[n], name), n)
    return {n: {name: home[_key(modules[n], name)] for name in exported(modules[n])} for n in names}


def page_path(module: str) -> str:
    return f"{ROOT}/{module}.md"


def _summary(module: ModuleType) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def module_page(module: str, where: dict[str, str], submodules: list[str]) -> str:
    """The page of ``module``: its docstring and the objects it documents (mkdocstrings), then links to the ones
    documented on another module's page, and to its submodules."""
    own = [n for n, home in where.items() if home == module]
    out = [f"# {module}\n", f"::: {module}", OPTIONS.format(members="[" + ", ".join(own) + "]" if own else "false")]
    elsewhere = [(n, home) for n, home in where.items() if home != module]
    if elsewhere:
        out.append("## Also exported here\n")
        out.append("| Name | Documented in |\n|---|---|")
        out += [f"| [`{n}`][{home}.{n}] | [{home}]({home}.md) |" for n, home in elsewhere]
        out.append("")
    if submodules:
        out.append("## Submodules\n")
        out += [f"- [{s}]({s}.md): {_summary(importlib.import_module(s))}" for s in submodules]
        out.append("")
    return "\n".join(out) + "\n"


def _group(module: str) -> str:
    for title, prefixes in GROUPS:
        if any(module == p or (p != "dpcalc" and module.startswith(p + ".")) for p in prefixes):
            return title
    return "Other modules"


def _children(names: list[str], module: str) -> list[str]:
    """The submodules of ``module`` (the top-level package lists none: every module is under it)."""
    return [] if module == "dpcalc" else [n for n in names if n.rpartition(".")[0] == module]


def overview(names: list[str], where: dict[str, dict[str, str]]) -> str:
    out = ["# API reference\n",
           "One page per public module, generated from the docstrings when the site is built. Import from the "
           "module a page is named after: each function, class and constant is documented once, on the page of "
           "the shortest module path that exports it (`from dpcalc.nbafl import optimal_t`). Every function "
           "lists its parameters, what it returns, the errors it raises and the warnings it may emit; most end "
           "with an example whose output the test suite checks. Types in signatures are the public aliases of "
           "[dpcalc.typing](dpcalc.typing.md).\n"]
    groups: OrderedDict[str, list[str]] = OrderedDict((t, []) for t, _ in GROUPS)
    for n in names:
        groups.setdefault(_group(n), []).append(n)
    for title, members in groups.items():
        if not members:
            continue
        out += [f"## {title}\n", "| Module | Objects | What it holds |", "|---|---:|---|"]
        for n in members:
            count = sum(1 for home in where[n].values() if home == n)
            out.append(f"| [{n}]({n}.md) | {count} | {_summary(importlib.import_module(n))} |")
        out.append("")
    return "\n".join(out)


def pages() -> dict[str, str]:
    """Every page of the API reference, by path."""
    names = public_modules()
    where = homes(names)
    out = {f"{ROOT}/index.md": overview(names, where)}
    for n in names:
        out[page_path(n)] = module_page(n, where[n], _children(names, n))
    return out


def nav() -> list[Any]:
    """The API reference's navigation: the overview, then one section per group, a package with its submodules."""
    names = public_modules()

    def entry(module: str) -> Any:
        kids = _children(names, module)
        if not kids:
            return {module: page_path(module)}
        return {module: [{module: page_path(module)}, *[entry(k) for k in kids]]}

    groups: OrderedDict[str, list[Any]] = OrderedDict((t, []) for t, _ in GROUPS)
    for n in names:
        parent = n.rpartition(".")[0]
        if parent in names and parent != "dpcalc":
            continue  # under its package
        groups.setdefault(_group(n), []).append(entry(n))
    return [{"Overview": f"{ROOT}/index.md"}, *[{t: items} for t, items in groups.items() if items]]
