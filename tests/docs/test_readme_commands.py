"""The README's two set-up commands are what CI runs, word for word, in a new virtual environment.

``.ci/run`` creates a fresh virtual environment in a temporary directory and runs, in order, the README's
"install and run the main job" command and its test command. This test keeps the two files in step: a command
changed in one and not the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", setup, flags=re.S)]


def test_readme_has_the_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert commands[0].startswith("pip install -e . && dpcalc ")
    assert "pytest" in commands[1]


def test_ci_runs_exactly_the_readme_commands_in_a_fresh_venv() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    commands = _readme_commands()
    positions = [lines.index(c) for c in commands]  # each README command is a line of its own, verbatim
    assert positions == sorted(positions), "CI must run the main job first, then the tests"
    venv = next(i for i, line in enumerate(lines) if " -m venv " in line)
    activate = next(i for i, line in enumerate(lines) if "/bin/activate" in line)
    assert "mktemp -d" in script and venv < activate < positions[0], "the commands must run in a new venv"
