"""One way for every CLI test to run ``dpcalc``: in-process through the real console entry point.

``run`` calls :func:`dpcalc.cli.main.main` with ``argv`` — the function the ``dpcalc`` console script runs,
so the tests exercise its trimmed command building and fast option coercion (``dpcalc.cli._fastparse``) —
with stdout/stderr captured by Typer's test-runner isolation. Unexpected exceptions propagate (a traceback
in a test, never a silent exit code 1).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from typer.testing import CliRunner

from dpcalc.cli.main import main

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Run ``dpcalc *args``; return (exit code, stdout, stderr)."""
    with runner.isolation() as (out, err, _):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    return code, stdout, stderr


def run_json(*args: str) -> dict[str, Any]:
    """Run ``dpcalc *args --json``, require exit code 0, and return the parsed document."""
    code, out, err = run(*args, "--json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc
