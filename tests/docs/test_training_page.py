"""docs/training.md ("From my training run"): every command on the page runs and prints what the page shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.support.cli_runner import run
from tests.support.numbers import same_text

PAGE = Path(__file__).resolve().parents[2] / "docs" / "training.md"
BLOCKS = re.findall(r"```console\n\$ dpcalc ([^\n]*)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_shows_the_run_from_terms_to_statement_and_calibration() -> None:
    commands = [c.split()[0] for c, _ in BLOCKS]
    assert commands.count("statement") == 3 and commands.count("calibrate") == 3 and "account" in commands
    assert any("--solve-for epochs" in c for c, _ in BLOCKS) and any("--clients" in c for c, _ in BLOCKS)


@pytest.mark.parametrize(("command", "shown"), BLOCKS, ids=[c[:60] for c, _ in BLOCKS])
def test_every_command_prints_what_the_page_shows(command: str, shown: str) -> None:
    code, out, err = run(*shlex.split(command))
    assert code == 0 and err == "", err
    # long numbers to a relative 1e-8: the last digits of the PLD's FFT-composed values vary with the NumPy build
    assert out == shown or same_text(shown, out), f"dpcalc {command}: the page shows another output"
