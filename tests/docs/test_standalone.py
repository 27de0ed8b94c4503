"""The repository stands alone: no text in it points at files outside it or at an issue tracker.

Every tracked text file under ``dpcalc/``, ``docs/``, ``formulas/``, ``tests/`` and ``bench/``, plus ``README.md``,
``mkdocs.yml`` and ``pyproject.toml``, is read line by line; a line fails when it names the shared working folder
beside the repository, one of its note files (or a section of one), a source-text file name of a paper (three
digits, an underscore, sixteen hex digits, ``.txt``), an issue number, a row label of the old working notes (a paper
number, a hyphen and a row number), or a paper by its working name ("seed" and its number) instead of its authors.
Papers are cited by author, year and equation; peer libraries by name, version and file. No file is exempt.

The patterns below are spelled so that this file does not match them itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED_DIRS = ("dpcalc", "docs", "formulas", "tests", "bench")
SCANNED_FILES = ("README.md", "mkdocs.yml", "pyproject.toml")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".yml", ".yaml", ".tex", ".html", ".cfg", ".ini", ".json", ".csv",
                 ".js", ".css", ".sh", ".rst", ""}

#: What a line must not name, each with the reason shown in the failure.
FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a path outside the repository", re.compile(r"\.\./shar[e]d|shar[e]d/(?:seed|note)s")),
    ("the working notes", re.compile(r"cros[s]check", re.IGNORECASE)),
    ("a note file", re.compile(r"\bseed00\d\.md|\banchor[s]\.md|\b[Aa]nchors? §")),
    ("a paper's source-text file", re.compile(r"\b00\d_[0-9a-f]{16}\.txt\b")),
    ("an issue number", re.compile(r"\b[Ii]ssue[-\s]+#?\d+")),
    ("a row label of the working notes", re.compile(r"(?<![\w.])00\d-\d+\b")),
    ("a paper by its working name", re.compile(
        r"\b[Ss]eeds?[- ]?00\d(?!\.md)|\b[Ss]eed(?:'s|s')\s"
        r"|\b[Ss]eed (?:Table|Fig|[Ee]q|Thm|Theorem|Lemma|Def|Cor|Alg|§)|\b[Ss]eed (?:paper|document|text)s?\b")),
)

def _tracked_files() -> list[str]:
    """Repository-relative paths of the scanned files: ``git ls-files`` in a checkout, else a walk of the tree."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        out = subprocess.run(["git", "ls-files", "--", *SCANNED_DIRS, *SCANNED_FILES], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        return sorted(line for line in out.splitlines() if (ROOT / line).is_file())
    found = [str(p.relative_to(ROOT)) for d in SCANNED_DIRS for p in (ROOT / d).rglob("*") if p.is_file()]
    found += [name for name in SCANNED_FILES if (ROOT / name).is_file()]
    return sorted(p for p in found if "__pycache__" not in p)


def _text_lines(rel: str) -> list[str]:
    path = ROOT / rel
    if path.suffix not in TEXT_SUFFIXES:
        return []
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:  # a binary file without a telling suffix
        return []


def findings(line: str) -> list[str]:
    """The reasons ``line`` fails (empty when it stands alone)."""
    return [reason for reason, pattern in FORBIDDEN if pattern.search(line)]


def test_no_line_points_outside_the_repository() -> None:
    files = _tracked_files()
    assert any(f.startswith("formulas/") for f in files) and "README.md" in files
    bad = [f"{rel}:{n}: {', '.join(reasons)}: {line.strip()[:120]}"
           for rel in files
           for n, line in enumerate(_text_lines(rel), 1) if (reasons := findings(line))]
    assert not bad, f"{len(bad)} line(s) point outside the repository:\n" + "\n".join(bad)


#: Lines each pattern must catch. Their test ids are numbers: an id holding the line would put it into the stored
#: timings (tests/data/durations.json), which this test scans too.
CAUGHT = (
    "see ../" "shared/" "notes/x", "values: " "anchors" ".md §9.2", "Cross" "check 00" "3-3", "seed" "002.md E15",
    "text from 004_" "c31d8aa7e6e45f57.txt", "the defect of issue" " 15", "Issue" " #13 wiring", "(row 00" "1-14)",
    "in shared/" "seeds/", "see " "00" "3-10",
    "Seed" " 001 is in bits", "as in the seed" "'s Table 1", "seed" "-000 σ", "seed" " Table 1", "seed" "004's Lemma 1",
    "(anchor" "s §9.2 to 1e-6)", "Anchor" " §9.2: μ = 0.41", "the issue" "-15 reproducers",
)


@pytest.mark.parametrize("line", CAUGHT, ids=[f"caught{i}" for i in range(len(CAUGHT))])
def test_the_patterns_catch_each_kind(line: str) -> None:
    assert findings(line), line


@pytest.mark.parametrize("line", [
    "dpcalc plot preset 002-audit", "preset 003-fig7 and 001-fig6-ratio", "seed = 1299", "--seed 0",
    "Wei et al. 2020, Table 1", "rng = np.random.default_rng(seed)", "δ = 1e-005", "the root seed (default 0)",
    "opacus#591 (a peer library's tracker)", "an optimiser cross-check",
    "the bracket's anchor point", "issues of the peer libraries",
])
def test_the_patterns_spare_ordinary_text(line: str) -> None:
    assert not findings(line), line
