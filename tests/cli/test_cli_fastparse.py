"""The console script's fast path: trimmed command building, Pydantic-free option coercion, plain tables.

``dpcalc.cli.main.main`` builds only the command named on the command line and coerces plain options
without Typer's Pydantic layer (``dpcalc.cli._fastparse``). These tests run the same commands through that
path and through Typer's own (``CliRunner`` on ``app``) and require identical behaviour.
"""

from __future__ import annotations

import enum
import json
import subprocess
import sys

import pytest
import typer.testing
from typer.testing import CliRunner

from dpcalc.cli import _fastparse
from dpcalc.cli.main import app, build_command
from dpcalc.report.render import Column, Result, _plain_table, _text_width

TYPER = CliRunner()


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
]


@pytest.mark.parametrize("args", SAME_BEHAVIOUR, ids=lambda a: " ".join(a))
def test_fast_path_behaves_like_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    slow = TYPER.invoke(app, args, prog_name="dpcalc")
    fast = fast_invoke(args, monkeypatch)
    assert fast.exit_code == slow.exit_code
    # Pydantic prefixes its messages with "Value error, "; the light coercer says the same without it.
    assert fast.output == slow.output.replace("Value error, ", "")


def test_every_plain_option_gets_the_light_coercer() -> None:
    command = build_command([])  # the full app
    seen = 0
    for cmd in _fastparse._commands(command):
        for param in _fastparse._params_with_help(cmd):
            if _fastparse._is_plain(param.type_descriptor.annotation):
                assert param._runtime_param is not None, f"{cmd.name} {param.name}"
                seen += 1
    assert seen > 20


def test_trimmed_build_holds_only_the_named_command() -> None:
    assert set(build_command(["sigma", "--eps", "5"]).commands) == {"sigma"}
    assert set(build_command(["midp", "leakage"]).commands) == {"midp"}
    assert "sigma" in build_command(["no-such-command"]).commands  # unknown: full app, Click reports it


def test_light_coercer_types() -> None:
    class Colour(str, enum.Enum):
        red = "red"

    base = _fastparse._runtime_base()
    assert base is not None
    coercer = _fastparse._make_coercer_class(base)
    from typer.models import OptionInfo

    def coerce(kind: type, value: object) -> object:
        return coercer(parameter_info=OptionInfo(), annotation=kind)._coerce_value(value, None, None)

    assert coerce(int, "7") == 7
    assert coerce(float, "0.5") == 0.5
    assert coerce(bool, "yes") is True and coerce(bool, "0") is False
    assert coerce(Colour, "red") is Colour.red
    from typer import BadParameter

    for kind, bad in ((int, "x"), (bool, "maybe"), (Colour, "blue")):
        with pytest.raises(BadParameter):
            coerce(kind, bad)


def test_console_script_does_not_import_pydantic_or_rich() -> None:
    code = ("import sys; from dpcalc.cli.main import main\n"
            "sys.argv = ['dpcalc', 'sigma', '--eps', '5', '--d', '1000']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print([m for m in ('pydantic', 'rich', 'scipy', 'sympy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_command_map_matches_what_the_families_register() -> None:
    """``COMMANDS`` names, for each top-level command, the one family module the console script imports."""
    import importlib

    import typer

    from dpcalc.cli import main as cli_main

    registered: dict[str, str] = {}
    for family in cli_main.FAMILIES:
        probe = typer.Typer()
        importlib.import_module(f"dpcalc.cli.{family}").register(probe)
        for info in [*probe.registered_commands, *probe.registered_groups]:
            registered[cli_main._name(info)] = family
    assert registered == cli_main.COMMANDS


def test_sigma_imports_no_other_family() -> None:
    code = ("import sys; from dpcalc.cli.main import main\n"
            "try:\n    main(['sigma', '--eps', '5', '--d', '1000'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('dpcalc.cli.') and m not in\n"
            "      ('dpcalc.cli.main', 'dpcalc.cli.midp', 'dpcalc.cli._common', 'dpcalc.cli._fastparse')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_plain_table_layout() -> None:
    result = Result(columns=[Column("a", "ε (nats)"), Column("b", "w̄")], rows=[{"a": 1.5, "b": 2}], title="T")
    lines = _plain_table(result).splitlines()
    assert lines[0] == "T"
    assert lines[1] == "┏━━━━━━━━━━┳━━━┓"
    assert lines[2] == "┃ ε (nats) ┃ w̄ ┃"  # the combining bar takes no cell
    assert lines[4] == "│      1.5 │ 2 │"
    assert len({_text_width(x) for x in lines[1:]}) == 1
    assert "\x1b[1m" in _plain_table(result, styled=True)


def test_json_through_the_fast_path_is_parseable(monkeypatch: pytest.MonkeyPatch) -> None:
    res = fast_invoke(["sigma", "--eps", "5", "--d", "1000", "--json"], monkeypatch)
    assert json.loads(res.output)["rows"][0]["sigma"] == pytest.approx(0.31543752682891, rel=1e-13)


def test_installed_typer_is_in_the_pinned_range() -> None:
    """The fast path relies on Typer private names; pyproject pins the range it was tested with."""
    import re
    from importlib.metadata import version
    from pathlib import Path

    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    lo, hi = re.search(r'"typer>=([\d.]+),<([\d.]+)"', pyproject).groups()  # type: ignore[union-attr]

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in v.split(".")[:3])

    assert key(lo) <= key(version("typer")) < key(hi)
    assert _fastparse.install(build_command(["sigma"])) == 0  # already installed by build_command …
    assert _fastparse._runtime_base() is not None  # … because the private layer exists in this range


def test_sigma_reads_one_catalog_entry_not_the_catalog() -> None:
    """Column labels come from the catalog, but start-up parses only the entries the command names."""
    code = ("import sys; from dpcalc.cli.main import main\n"
            "try:\n    main(['sigma', '--eps', '5', '--d', '1000'])\nexcept SystemExit:\n    pass\n"
            "from dpcalc.catalog import raw\n"
            "print(int('dpcalc.catalog.schema' in sys.modules), raw.entry.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    schema_loaded, entries = map(int, out.strip().splitlines()[-1].split())
    assert schema_loaded == 0 and 1 <= entries <= 3
