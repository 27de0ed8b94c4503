"""The console script's fast path: trimmed command building, Pydantic-free option coercion, plain tables — and the
same behaviour without it.

``dpcalc.cli.main.main`` builds only the command named on the command line and coerces plain options without Typer's
Pydantic layer (``dpcalc.cli._fastparse``, which needs two private Typer names). These tests run the commands through
that path, through Typer's own (``CliRunner`` on ``app``), and with the private names missing (as a Typer release
without them would be), and require the same results.
"""

from __future__ import annotations

import enum
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.testing
from typer.testing import CliRunner

from dpcalc.cli import _fastparse
from dpcalc.cli.command import Group
from dpcalc.cli.main import COMMANDS, FAMILIES, app, build_command, entries, main
from dpcalc.report._text import text_width
from dpcalc.report.render import Column, Result, _plain_table
from tests.support.cli_runner import run

TYPER = CliRunner()
FAST = pytest.mark.skipif(not _fastparse.available(), reason="this Typer has no private coercion layer: the "
                                                               "console script runs on Typer's own coercion")


def fast_invoke(args: list[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run ``args`` through the console script's command (build_command), with Typer's test runner."""
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: build_command(args))
    return CliRunner().invoke(app, args, prog_name="dpcalc")


SAME_BEHAVIOUR = [
    ["sigma", "--eps", "1,5", "--d", "1000", "--json"],
    ["sigma", "--eps", "5", "--d", "1000", "--side", "both", "--format", "csv"],
    ["sigma", "--eps", "5", "--d", "1000", "--format", "nope"],  # bad enum value: exit 2
    ["sigma", "--eps", "-1", "--d", "1000"],  # bad number: exit 2
    ["midp", "leakage", "--sigma", "0.3", "--d", "1000", "--json"],
    ["formulas", "show", "midp.server_sigma", "--json"],
    # a repeated option (list[str]): coerced item by item, no Pydantic
    ["statement", "--dataset-size", "600", "--batch-size", "60", "--epochs", "1", "-z", "1.1", "--delta", "1e-5",
     "--accountant", "rdp", "--accountant", "pld", "--json"],
    ["statement", "--dataset-size", "600", "--batch-size", "60", "--epochs", "1", "-z", "1.1", "--delta", "1e-5",
     "--accountant", "nope"],
]


@pytest.mark.parametrize("args", SAME_BEHAVIOUR, ids=lambda a: " ".join(a))
def test_fast_path_behaves_like_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    slow = TYPER.invoke(app, args, prog_name="dpcalc")
    fast = fast_invoke(args, monkeypatch)
    assert fast.exit_code == slow.exit_code
    # Pydantic prefixes its messages with "Value error, "; the light coercer says the same without it.
    assert fast.output == slow.output.replace("Value error, ", "")


@FAST
def test_every_plain_option_gets_the_light_coercer() -> None:
    command = build_command([])  # the full app
    seen = 0
    for cmd in _fastparse._commands(command):
        for param in _fastparse._params_with_help(cmd):
            kind = param.type_descriptor.annotation
            if _fastparse._is_plain(kind) or _fastparse._item(kind) is not None:
                assert param._runtime_param is not None, f"{cmd.name} {param.name}"
                seen += 1
    assert seen > 20


def test_trimmed_build_holds_only_the_named_command() -> None:
    assert set(build_command(["sigma", "--eps", "5"]).commands) == {"sigma"}
    midp = build_command(["midp", "leakage"]).commands["midp"]
    assert set(build_command(["midp", "leakage"]).commands) == {"midp"} and set(midp.commands) == {"leakage"}
    assert len(build_command(["midp", "--help"]).commands["midp"].commands) > 1  # the group's help lists them all
    assert "sigma" in build_command(["no-such-command"]).commands  # unknown: full app, Click reports it


def test_light_coercer_types() -> None:
    class Colour(str, enum.Enum):
        red = "red"

    coerce = _fastparse.coerce_plain
    assert coerce(int, "7") == 7 and coerce(float, "0.5") == 0.5 and coerce(Path, "a") == Path("a")
    assert coerce(bool, "yes") is True and coerce(bool, "0") is False
    assert coerce(Colour, "red") is Colour.red
    for kind, bad in ((int, "x"), (bool, "maybe"), (Colour, "blue")):
        with pytest.raises(typer.BadParameter):
            coerce(kind, bad)


def test_console_script_does_not_import_pydantic_or_rich() -> None:
    code = ("import sys; from dpcalc.cli.main import main\n"
            "sys.argv = ['dpcalc', 'sigma', '--eps', '5', '--d', '1000']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print([m for m in ('pydantic', 'rich', 'scipy', 'sympy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == ("[]" if _fastparse.available() else "['pydantic']")


def test_command_map_matches_what_the_families_declare() -> None:
    """``COMMANDS`` names, for each top-level command, the one family module the console script imports."""
    declared = {e.name: family for family in FAMILIES for e in entries(family)}
    assert declared == COMMANDS


def test_sigma_imports_no_other_family() -> None:
    code = ("import sys; from dpcalc.cli.main import main\n"
            "try:\n    main(['sigma', '--eps', '5', '--d', '1000'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('dpcalc.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    shared = ["dpcalc.cli._fastparse", "dpcalc.cli.command", "dpcalc.cli.declare", "dpcalc.cli.main",
              "dpcalc.cli.options", "dpcalc.cli.output"]
    assert out.strip().splitlines()[-1] == str(sorted([*shared, "dpcalc.cli.sigma"]))


def test_plain_table_layout() -> None:
    result = Result(columns=[Column("a", "ε (nats)"), Column("b", "w̄")], rows=[{"a": 1.5, "b": 2}], title="T")
    lines = _plain_table(result).splitlines()
    assert lines[0] == "T"
    assert lines[1] == "┏━━━━━━━━━━┳━━━┓"
    assert lines[2] == "┃ ε (nats) ┃ w̄ ┃"  # the combining bar takes no cell
    assert lines[4] == "│      1.5 │ 2 │"
    assert len({text_width(x) for x in lines[1:]}) == 1
    assert "\x1b[1m" in _plain_table(result, styled=True)


def test_json_through_the_fast_path_is_parseable(monkeypatch: pytest.MonkeyPatch) -> None:
    res = fast_invoke(["sigma", "--eps", "5", "--d", "1000", "--json"], monkeypatch)
    assert json.loads(res.output)["rows"][0]["sigma"] == pytest.approx(0.31543752682891, rel=1e-13)


def test_typer_has_no_upper_pin() -> None:
    """No upper bound that exists only because of the private names: the fast path falls back without them."""
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    (spec,) = re.findall(r'"(typer[^"]*)"', pyproject)
    assert "<" not in spec and re.fullmatch(r"typer>=[\d.]+", spec), spec


def test_sigma_reads_one_catalog_entry_not_the_catalog() -> None:
    """Column labels come from the catalog, but start-up parses only the entries the command names."""
    code = ("import sys; from dpcalc.cli.main import main\n"
            "try:\n    main(['sigma', '--eps', '5', '--d', '1000'])\nexcept SystemExit:\n    pass\n"
            "from dpcalc.catalog import raw\n"
            "print(int('dpcalc.catalog.schema' in sys.modules), raw.entry.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    schema_loaded, entries_read = map(int, out.strip().splitlines()[-1].split())
    assert schema_loaded == 0 and 1 <= entries_read <= 3


def test_exit_freezes_the_collector_only_when_dpcalc_is_the_program() -> None:
    """The console script freezes its objects before exiting (Python's exit then skips one full collection);
    an in-process call (the tests) leaves the collector as it was."""
    code = ("import atexit, gc, sys\nfrom dpcalc.cli.main import main\n"
            "atexit.register(lambda: print('frozen', int(gc.get_freeze_count() > 0)))\n"
            "main(['sigma', '--eps', '5', '--d', '1000'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "frozen 1"
    import gc

    with pytest.raises(SystemExit):
        main(["sigma", "--eps", "5", "--d", "1000"])
    assert gc.get_freeze_count() == 0 and gc.isenabled()


# ------------------------------------------------------------------------------------------ without the private names

def _hide_private_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a Typer release without ``typer._coercion.RuntimeParam`` looks like to dpcalc."""
    monkeypatch.delattr("typer._coercion.RuntimeParam")  # the light coercer then is not installed
    assert not _fastparse.available() and _fastparse.install(build_command(["sigma"])) == 0


def _every_command() -> list[list[str]]:
    paths = []
    for family in FAMILIES:
        for e in entries(family):
            paths += [[e.name, c.name] for c in e.commands] if isinstance(e, Group) else [[e.name]]
    return paths


@pytest.mark.parametrize("path", _every_command(), ids=" ".join)
def test_every_command_parses_the_same_without_the_private_names(path: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Help (every option declared and parsed) and a bad option value: the same with Typer's own coercion."""
    fast_help, fast_bad = run(*path, "--help"), run(*path, "--format", "xml")
    _hide_private_names(monkeypatch)
    assert run(*path, "--help") == fast_help
    slow_bad = run(*path, "--format", "xml")
    assert slow_bad[0] == fast_bad[0] and slow_bad[1] == fast_bad[1] == ""
    assert slow_bad[2].count("\n") == fast_bad[2].count("\n") == 1


EXAMPLES = [
    ["sigma", "--eps", "1:3", "--d", "10,100", "--n", "3", "--side", "both", "--json"],
    ["midp", "clip", "--c0", "1", "--eta", "0.5", "--norms", "2,2,2", "--format", "csv"],
    ["gdp", "eps", "--mu", "0.25", "--delta", "1e-5", "--json"],
    ["gauss", "figure", "5", "--seed", "3", "--format", "markdown"],
    ["nbafl", "optimal-t", "--eps", "10", "--t-max", "200", "--lambda1", "comment", "--json"],
    ["cuag", "rates", "--layer-norms", "3,0.1,4,0.5", "--r-max", "0.5", "--rounding", "numpy", "--json"],
    ["secagg", "table1", "--n", "50", "--sigma2", "0.01", "--B", "32", "--C", "10", "--data-size", "1200",
     "--delta", "1e-4", "--rounds", "2", "--method", "lemma1", "--as-published", "--json"],
    ["account", "-z", "1", "--q", "0.01", "--steps", "100", "--delta", "1e-5", "-a", "rdp", "-a", "gdp-clt", "--json"],
    ["verify", "midp.server_sigma", "--samples", "2000", "--workers", "1", "--level", "0.99"],
    ["formulas", "list", "--paper", "000", "--format", "latex"],
    ["eval", "nbafl.client_sigma", "--eps", "1,2", "--data-size", "10", "--json"],
    ["plot", "list", "--json"],
]


@pytest.mark.parametrize("args", EXAMPLES, ids=" ".join)
def test_typed_options_give_the_same_output_without_the_private_names(args: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands with int, float, enum, flag, repeated and positional options: the same output both ways."""
    fast = run(*args)
    assert fast[0] == 0, fast[2]
    _hide_private_names(monkeypatch)
    slow = run(*args)
    strip = re.compile(r'seconds"?: [0-9.e-]+')  # verify's own timing
    assert (slow[0], strip.sub("", slow[1]), slow[2]) == (fast[0], strip.sub("", fast[1]), fast[2])
