"""One way for every CLI test to run ``dpcalc``: in-process through Typer's test runner."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from dpcalc.cli.main import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Run ``dpcalc *args``; return (exit code, stdout, stderr)."""
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def run_json(*args: str) -> dict[str, Any]:
    """Run ``dpcalc *args --json``, require exit code 0, and return the parsed document."""
    code, out, err = run(*args, "--json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc
