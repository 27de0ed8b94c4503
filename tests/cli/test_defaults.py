"""Library defaults are the CLI defaults, from one place: the catalog inputs (or the library, for the rest).

* every catalog entry: each input's ``default`` equals its implementation's signature default (a ``None`` default in
  the signature means "optional, something else decides": no catalog default);
* every command: an option bound to a catalog input has the input's default (or none: required), an option whose
  default comes from a library function or dataclass has that default, and a command's own default is either
  ``None`` (optional), a sweep of several values, or belongs to an option no library or catalog declares.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from typing import Any

import pytest
import typer.main

from dpcalc import catalog
from dpcalc.cli import options
from dpcalc.cli.command import Command, Group, resolved
from dpcalc.cli.main import FAMILIES, app, entries
from dpcalc.report.grid import parse_values


def _implementation(formula: Any) -> Any:
    module, _, name = formula.implementation.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _signature_default(formula: Any, name: str) -> Any:
    param = inspect.signature(_implementation(formula)).parameters.get(name)
    if param is None or param.default is inspect.Parameter.empty or param.default is None:
        return None
    return float(param.default)


ENTRIES = sorted(catalog.load().values(), key=lambda f: f.id)


@pytest.mark.parametrize("formula", ENTRIES, ids=[f.id for f in ENTRIES])
def test_catalog_default_is_the_implementations(formula: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = {i.name: (i.default, _signature_default(formula, i.name)) for i in formula.inputs}
    assert {n: c for n, (c, _) in pairs.items()} == {n: s for n, (_, s) in pairs.items()}


def _commands() -> list[tuple[str, Command]]:
    found = []
    for family in FAMILIES:
        for entry in entries(family):
            found += ([(f"{entry.name} {c.name}", c) for c in entry.commands] if isinstance(entry, Group)
                      else [(entry.name, entry)])
    return found


COMMANDS = _commands()


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_option_defaults_come_from_their_source(path: str, cmd: Command) -> None:
    for r in resolved(cmd):
        o = r.opt
        source = options.source_default(o, r.input)
        shown = None if r.required else r.default
        if o.sweep:
            assert len(parse_values(r.option, o.sweep)) >= 2, f"{path} {r.option}: a sweep has several values"
            assert source is inspect.Parameter.empty or source is None, f"{path} {r.option}: the source has a default"
        elif o.default is not options.FROM_SOURCE:  # the command's own default
            bound = r.input is not None or o.default_from is not None
            assert o.default in (None, False) or not bound, \
                f"{path} {r.option}: a default of its own ({o.default!r}) beside a catalog or library default"
        elif source is inspect.Parameter.empty:
            wanted = False if o.kind == "flag" else None  # a flag no source declares is off; anything else required
            assert shown is wanted and r.required == (wanted is None), f"{path} {r.option}: {shown!r}"
        elif source is None:
            assert shown is None, f"{path} {r.option}: optional in its source, optional here"
        elif o.kind in ("axis", "vector", "one"):
            wanted = [float(x) for x in source] if isinstance(source, tuple | list) else [float(source)]
            assert parse_values(r.option, shown) == wanted, f"{path} {r.option}: {shown!r} != {source!r}"
        else:
            value = source if o.choices is None or source is None else o.choices(source)
            assert shown == value, f"{path} {r.option}: {shown!r} != {value!r}"


def test_the_typer_defaults_are_the_resolved_ones() -> None:
    """What ``--help`` shows is what the declarations resolved to (no default set anywhere else)."""
    root = typer.main.get_command(app)
    for path, cmd in COMMANDS:
        click_cmd = root
        for word in path.split():
            click_cmd = click_cmd.commands[word]  # type: ignore[attr-defined]
        by_name = {p.name: p for p in click_cmd.params}
        for r in resolved(cmd):
            p = by_name[r.name]
            assert p.required == (r.required and r.default is inspect.Parameter.empty), (path, r.name)
            if not r.required and not r.positional:
                assert p.default == r.default, (path, r.name, p.default, r.default)


def test_nbafl_library_and_cli_share_table1() -> None:
    """Wei et al. 2020, Table 1: δ = 0.01, C = 20, m = 100, N = 50, T = 25, c_scale = 1.25 (T* at ε = 10 is 9)."""
    from dpcalc import nbafl
    from tests.support.cli_runner import run_json

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = nbafl.optimal_t(10.0).t_star
    assert library == run_json("nbafl", "optimal-t", "--eps", "10")["rows"][0]["t_star"] == 9
    sig = inspect.signature(nbafl.server_sigma).parameters
    assert {k: sig[k].default for k in ("delta", "C", "m", "N", "T", "c_scale")} == \
        {"delta": 0.01, "C": 20, "m": 100, "N": 50, "T": 25, "c_scale": 1.25}
