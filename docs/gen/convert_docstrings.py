"""Convert the reStructuredText left in dpcalc's docstrings to the Markdown that mkdocstrings renders:
``python docs/gen/convert_docstrings.py [ROOT]`` (default: the repository's ``dpcalc/``). Idempotent.

* Sphinx roles become code spans: ``:func:`~dpcalc.a.f``` → ```f```, ``:mod:`dpcalc.a``` → ```dpcalc.a```,
  ``:class:`text <target>``` → ```text```;
* simple reST tables (rows between ``====  ====`` rules; a row whose first cell is blank continues the previous
  one) become Markdown tables, at the same indentation.

Prints each file it changes and the number of roles and tables converted.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const|ref|term):"
                  r"`(~?)([^`<]*?)\s*(?:<([^`>]*)>)?`")
RULE = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")


def _role(m: re.Match[str]) -> str:
    tilde, text, target = m.group(1), m.group(2).strip(), m.group(3)
    if target is not None and text:
        return f"`{text}`"
    name = (target or text).lstrip("~")
    return f"`{name.rsplit('.', 1)[-1] if tilde else name}`"


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = []
    for k, (start, end) in enumerate(spans):
        stop = spans[k + 1][0] if k + 1 < len(spans) else len(line)
        cells.append(line[start:stop].strip() if k + 1 < len(spans) else line[start:].strip())
        del end
    return cells


def _row(indent: str, cells: list[str]) -> str:
    return indent + "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def tables(text: str) -> tuple[str, int]:
    """Every simple reST table of ``text`` as a Markdown table; (new text, number of tables)."""
    lines, out, k, count = text.split("\n"), [], 0, 0
    while k < len(lines):
        m = RULE.match(lines[k])
        ends = [j for j in range(k + 1, len(lines)) if lines[j].strip() == lines[k].strip()][:2] if m else []
        if not m or len(ends) < 2:
            out.append(lines[k])
            k += 1
            continue
        indent = m.group(1)
        spans = [(x.start(), x.end()) for x in re.finditer(r"=+", lines[k])]
        header = _cells(lines[k + 1], spans)
        rows: list[list[str]] = []
        for line in lines[ends[0] + 1:ends[1]]:
            if not line.strip():
                continue
            cells = _cells(line, spans)
            if rows and not cells[0]:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)

        out += [_row(indent, header), indent + "|" + "|".join("---" for _ in spans) + "|",
                *(_row(indent, r) for r in rows)]
        k = ends[1] + 1
        count += 1
    return "\n".join(out), count


def convert(path: Path) -> tuple[int, int]:
    text = path.read_text(encoding="utf-8")
    new, roles = ROLE.subn(_role, text)
    new, n_tables = tables(new)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return roles, n_tables


def main(root: str) -> None:
    total = [0, 0]
    for path in sorted(Path(root).rglob("*.py")):
        roles, n_tables = convert(path)
        if roles or n_tables:
            print(f"{path}: {roles} roles, {n_tables} tables")
            total[0] += roles
            total[1] += n_tables
    print(f"converted {total[0]} roles and {total[1]} tables")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[2] / "dpcalc"))
