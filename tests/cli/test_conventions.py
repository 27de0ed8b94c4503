"""The conventions of docs/conventions.md that a test can check, over every command of the app.

* every command's documented example runs (exit 0, through the console entry point) and its ``meta.formula``
  names real catalog ids; ``meta.units`` is a dict;
* no two options of the app differ only by case; ``--sigma`` is always a noise std, a DP-SGD noise multiplier is
  ``--noise-multiplier``/``-z``;
* every command has the shared output options exactly once.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from dpcalc import catalog
from dpcalc.cli.main import app
from tests.support.cli_runner import run, run_json

# Examples that need files, or are too slow for the suite, run with these arguments instead (same command).
SUBSTITUTES = {
    "gauss custom": None,  # needs covariance files: tests/cli/test_gauss_cli.py::test_custom_files runs it
    "audit scores": None,  # needs a scores file: tests/cli/test_risk_audit_cli.py::test_audit_scores_file runs it
    "secagg span-check": ["secagg", "span-check", "--gradients", "1,0;0,1;0,0", "--g-new", "0.3,0.4,0.1"],
    "verify": ["verify", "midp.server_sigma", "gdp.delta_from_eps", "--samples", "2000", "--workers", "1"],
    # figures are written to a file: into the temporary directory, not the working tree
    "plot preset": ["plot", "preset", "001-fig5", "-o", str(Path(tempfile.gettempdir()) / "dpcalc-conv.svg"),
                    "--force"],
    "plot sweep": ["plot", "sweep", "midp.server_sigma_equal", "--x", "eps=0.5:5:0.5", "--by", "N=1,10", "--set",
                   "d=100", "--set", "C=1", "-o", str(Path(tempfile.gettempdir()) / "dpcalc-conv.png"), "--force"],
}
# Commands whose output is not a table of catalog quantities (their meta.formula may be empty).
NO_FORMULA = {"gauss custom"}  # the log-det engine evaluates the definitions for any covariance
NOT_A_TABLE = {"formulas show",  # prints one catalog entry (JSON document or text)
               "statement",  # the privacy statement (a document: text, JSON, Markdown or LaTeX)
               "plot preset", "plot sweep"}  # write a figure (--format png|svg|pdf, --output, --force; no --json)


def _commands(group: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, cmd in getattr(group, "commands", {}).items():
        path = f"{prefix} {name}".strip()
        if getattr(cmd, "commands", None):
            yield from _commands(cmd, path)
        else:
            yield path, cmd


COMMANDS = dict(_commands(typer.main.get_command(app)))


def _examples(path: str, cmd: Any) -> list[list[str]]:
    """The ``dpcalc …`` invocations after 'Example:' in the command's help (several may be separated by ';')."""
    text = " ".join((cmd.help or "").split())
    found = []
    for chunk in re.findall(r"Example:(.*)", text):
        for call in re.findall(r"dpcalc ([^();]+?)(?=\s{2,}|\s*\(|;|$)", chunk.replace("\n", " ")):
            found.append(shlex.split(call))
    return found


def test_every_command_has_an_example() -> None:
    missing = [p for p, c in COMMANDS.items() if not _examples(p, c)]
    assert missing == [], f"commands without 'Example: dpcalc …' in their help: {missing}"


def _cases() -> list[tuple[str, list[str]]]:
    cases = []
    for path, cmd in COMMANDS.items():
        if path in SUBSTITUTES:
            if SUBSTITUTES[path] is not None:
                cases.append((path, SUBSTITUTES[path]))
            continue
        cases += [(path, args) for args in _examples(path, cmd)]
    return cases


@pytest.mark.parametrize(("path", "args"), _cases(), ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_documented_example_runs_and_cites_real_formulas(path: str, args: list[str]) -> None:
    if path in NOT_A_TABLE:
        code, _, err = run(*args)
        assert code == 0, err
        return
    doc = run_json(*args)
    formulas = doc["meta"]["formula"]
    ids = [formulas] if isinstance(formulas, str) else formulas
    known = catalog.load()
    assert all(i in known for i in ids), f"{path}: meta.formula cites unknown ids {[i for i in ids if i not in known]}"
    assert ids or path in NO_FORMULA, f"{path}: meta.formula is empty"
    assert isinstance(doc["meta"]["units"], dict)


def _options(cmd: Any) -> list[str]:
    return [o for p in cmd.params for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]


def test_no_two_options_differ_only_by_case() -> None:
    """Across the whole app (one name per quantity): --d/--D, --t/--T, --n/--N would be two quantities or one."""
    seen: dict[str, set[str]] = {}
    for cmd in COMMANDS.values():
        for opt in _options(cmd):
            seen.setdefault(opt.lower(), set()).add(opt)
    clashes = {k: sorted(v) for k, v in seen.items() if len(v) > 1}
    assert clashes == {}


def test_sigma_is_a_noise_std_and_noise_multiplier_is_its_own_option() -> None:
    for path, cmd in COMMANDS.items():
        for p in cmd.params:
            if "--sigma" in p.opts:
                assert "std" in (p.help or ""), f"{path}: --sigma must be a noise standard deviation"
            if "--noise-multiplier" in p.opts:
                assert "-z" in p.opts, path
    for path in ("account", "gdp clt"):
        assert "--noise-multiplier" in _options(COMMANDS[path]), path


def test_shared_output_options_once() -> None:
    for path, cmd in COMMANDS.items():
        if path in NOT_A_TABLE:
            continue
        opts = _options(cmd)
        for shared in ("--format", "--json", "--output", "--force", "--digits"):
            assert opts.count(shared) == 1, f"{path}: {shared}"
    for path in ("plot preset", "plot sweep"):  # every figure command: its size, resolution and face
        opts = _options(COMMANDS[path])
        assert all(opts.count(o) == 1 for o in ("--width", "--dpi", "--font")), path
