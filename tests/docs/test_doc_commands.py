"""Every ``$ dpcalc …`` line of the README and of every page under ``docs/`` runs, and the output the page shows
for it is what it prints.

Pages are found by walking ``docs/`` (a page added tomorrow is checked the day it lands). A command is a line
``$ dpcalc ARGS`` in a fenced code block; the lines after it, up to the next ``$`` line or the end of the block,
are its shown output, and a trailing ``# comment`` is shown output too (except its parenthesised remarks, such as
"(the paper prints 0.92)"). Every number shown must appear in the real output, in the same order, to the digits
shown (0.710489 matches 0.7104893346; ``0.315…`` matches a number it begins). A shown
``dpcalc: error:`` line means the command must fail with exit code 2. A command runs as a subprocess in a
scratch directory of its own holding ``docs/`` (so ``-o`` files land there and ``docs/examples/…`` paths resolve)
and every file the page showed before it with ``$ cat NAME`` (the lines after that line are the file).

Forms with placeholders (``[--x]``, ``a|b``, ``FILE``) are synopses, not commands: they are fenced as
```` ```text title="Synopsis" ```` without ``$``, and a ``$`` line with a placeholder fails here.

Own code rather than Sybil: Sybil runs Python examples (doctest, code blocks); a shell line with a
number-by-number comparison would be a custom Sybil parser of the same size as this file, plus a dependency.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import processes
from tests.support.numbers import same_number

ROOT = Path(__file__).resolve().parents[2]
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_PLACEHOLDER = re.compile(r"\[--|\s[\w-]+\|[\w-]+\s|\b(?:FILE|SPEC|ID|ARGS|VALUES?)\b|<[a-z_]+>")


@dataclass(frozen=True)
class DocCommand:
    path: str
    line: int
    text: str
    shown: str
    files: tuple[tuple[str, str], ...] = ()  # (name, content) of the page's ``$ cat NAME`` blocks before it

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def args(self) -> list[str]:
        lexer = shlex.shlex(self.text[len("$ dpcalc"):], posix=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md"))]


def blocks(text: str) -> list[tuple[int, str, list[str]]]:
    """Fenced code blocks: (1-based line number of the first content line, info string, content lines)."""
    lines, out, k = text.splitlines(), [], 0
    while k < len(lines):
        m = _FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        fence, info, end = m.group(1), m.group(2).strip(), k + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        out.append((k + 2, info, lines[k + 1:end]))
        k = end + 1
    return out


def commands(path: Path) -> list[DocCommand]:
    rel = path.relative_to(ROOT).as_posix()
    found = []
    files: dict[str, str] = {}
    for first, _info, lines in blocks(path.read_text(encoding="utf-8")):
        starts = [k for k, line in enumerate(lines) if line.strip().startswith("$ ")] + [len(lines)]
        for k, nxt in itertools.pairwise(starts):
            text = lines[k].strip()
            if text.startswith("$ cat ") and len(text.split()) == 3:
                files[text.split()[2]] = "\n".join(lines[k + 1:nxt]) + "\n"
                continue
            if not text.startswith("$ dpcalc"):
                continue
            comment = re.sub(r"\([^()]*\)", "", text.split(" # ", 1)[1]) if " # " in text else ""
            shown = "\n".join(([comment] if comment else []) + lines[k + 1:nxt])
            found.append(DocCommand(rel, first + k, text, shown, tuple(files.items())))
    return found


ALL = [c for p in doc_files() for c in commands(p)]


def numbers(text: str) -> list[str]:
    return [n.replace("−", "-") for n in _NUMBER.findall(text)]


def _same(shown: str, real: str) -> bool:
    """Equal, equal once the real number is rounded to the shown number's decimals (fixed notation), or both long
    and within a relative 1e-8 (`tests.support.numbers.same_number`: FFT round-off varies with the NumPy build)."""
    if same_number(shown, real):
        return True
    try:
        if float(shown) == float(real):
            return True
    except ValueError:
        return False
    if "e" in shown.lower() or "e" in real.lower() or "." not in shown:
        return False
    decimals = len(shown.split(".")[1])
    return len(real.split(".")[1] if "." in real else "") > decimals and f"{float(real):.{decimals}f}" == shown


def shown_matches(shown: str, real: str) -> str | None:
    """None when every number shown appears in the real output in order; else the first one missing. A number
    followed by ``…`` matches a real number it begins."""
    want = [(m.group(0).replace("−", "-"), shown[m.end():m.end() + 1] == "…")
            for m in _NUMBER.finditer(shown)]
    have = numbers(real)
    k = 0
    for value, prefix in want:
        while k < len(have) and not (_same(value, have[k]) or (prefix and have[k].startswith(value))):
            k += 1
        if k == len(have):
            return f"{value} (shown) is not in the real output in this order"
        k += 1
    return None


def test_every_page_has_been_read() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in doc_files()}
    assert {"README.md", "docs/tutorial.md", "docs/accounting.md"} <= names
    assert len(ALL) >= 20, len(ALL)


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.path}:{c.line}" for c in ALL])
def test_no_synopsis_is_written_as_a_command(cmd: DocCommand) -> None:
    hit = _PLACEHOLDER.search(cmd.text.split(" # ", 1)[0] + " ")
    assert hit is None, (f"{cmd.path}:{cmd.line}: {cmd.text!r} has a placeholder {hit.group(0)!r}: a "
                         "synopsis goes in a ```text title=\"Synopsis\" block without '$'")


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.path}:{c.line}" for c in ALL])
def test_doc_command_runs_and_shows_its_real_output(cmd: DocCommand, tmp_path: Path) -> None:
    (tmp_path / "docs").symlink_to(ROOT / "docs", target_is_directory=True)
    for name, content in cmd.files:
        (tmp_path / name).write_text(content, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "COLUMNS": "200", "NO_COLOR": "1"}
    proc = processes.run([sys.executable, "-m", "dpcalc.cli.main", *cmd.args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, cpu_seconds=600)
    real = proc.stdout + proc.stderr
    expected_code = 2 if "dpcalc: error:" in cmd.shown else 0
    assert proc.returncode == expected_code, f"{cmd.path}:{cmd.line}: {cmd.text}\n{real[-2000:]}"
    if expected_code == 2:
        assert real.strip().splitlines()[-1] in cmd.shown, f"{cmd.path}:{cmd.line}: the error changed:\n{real}"
    problem = shown_matches(cmd.shown, real)
    assert problem is None, f"{cmd.where}: {cmd.text}: {problem}\nreal output:\n{real}"
