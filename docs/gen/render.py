"""How text that was not written as Markdown reaches a page: catalog prose, command output and plain-text math.

* `inline` / `prose`: catalog text (a title, note, erratum, a cell) as inline HTML that Markdown leaves alone —
  every character Markdown would read as syntax (``*`` of ``q*sqrt(T*…``, ``|`` of ``|D_n|``, ``_``, brackets) is
  an entity, code spans are ``<code>``, and `prose` sets plain-text exponents and subscripts (``X^{-i}``,
  ``sigma_m^2``) as ``<sup>``/``<sub>``;
* `cli_markdown`: a command's ``--format markdown`` output with its cells, note and warnings escaped the same way;
* `console_blocks`: a ``console`` block whose ``$ dpcalc`` output is a table — a terminal box table or Markdown —
  keeps the command in the console block and shows the table as a table (`box_table` reads a box table);
* `loose_lists`: a list right after a paragraph line starts a list (Markdown needs a blank line before it);
* `html_text`: the rendered page's text outside code and math: plain-text TeX exponents and subscripts
  (``e^{(α−1)ε(α)}``, ``P_{K≤k₀}``) as ``<sup>``/``<sub>``, ``\\|`` as ``|``, and break opportunities (``<wbr>``)
  inside long identifiers of table cells, so that a cell wraps after ``.``, ``_`` or ``(`` or between camelCase
  words, never inside a word.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# ------------------------------------------------------------------------------------------ inline text

_ENTITIES = str.maketrans({"*": "&#42;", "_": "&#95;", "`": "&#96;", "[": "&#91;", "]": "&#93;", "|": "&#124;",
                           "\\": "&#92;", "~": "&#126;", "$": "&#36;", "#": "&#35;"})
_SUP = re.compile(r"(?<=\S)\^(?:\{([^{}]*)\}|([A-Za-z0-9α-ωΑ-Ω]))(?![A-Za-z0-9])")
_SUB = re.compile(r"(?<=[A-Za-zα-ωΑ-Ω])_(?:\{([^{}]*)\}|([A-Za-z0-9]))(?![A-Za-z0-9_])")


def _group(m: re.Match[str]) -> str:
    return m.group(1) if m.group(1) is not None else m.group(2)


def scripts(text: str) -> str:
    """Plain-text exponents and subscripts (``X^{-i}``, ``sigma_m^2``, ``2^{2eps}``) as ``<sup>``/``<sub>``."""
    text = _SUP.sub(lambda m: f"<sup>{_group(m)}</sup>", text)
    return _SUB.sub(lambda m: f"<sub>{_group(m)}</sub>", text)


def inline(text: object, math: bool = False) -> str:
    """``text`` as inline HTML that Markdown leaves as it is: one line, HTML-escaped, every Markdown character an
    entity, ```code``` spans as ``<code>``; with ``math``, plain-text exponents and subscripts outside code set as
    ``<sup>``/``<sub>``."""
    parts = str(text).replace("\n", " ").split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is a character
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    out = []
    for k, part in enumerate(parts):
        escaped = html.escape(part, quote=False)
        if k % 2:
            out.append(f"<code>{escaped.translate(_ENTITIES)}</code>")
            continue
        if math:
            escaped = scripts(escaped)
            # the tags just made keep their own characters; the text between them is escaped
            pieces = re.split(r"(</?su[bp]>)", escaped)
            escaped = "".join(p if p.startswith("<") else p.translate(_ENTITIES) for p in pieces)
        else:
            escaped = escaped.translate(_ENTITIES)
        out.append(escaped)
    return "".join(out)


def prose(text: object) -> str:
    """Catalog prose (a title, note, erratum, unit): `inline` with exponents and subscripts set."""
    return inline(text, math=True)


# ------------------------------------------------------------------------------------------ command output

_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
_DOLLARS = re.compile(r"(\$[^$\n]+\$)")


def _cell(text: str) -> str:
    """A table cell of command output: `inline`, except its ``$…$`` math (a figure title's math text), which the
    page renders as math."""
    parts = _DOLLARS.split(text)
    return "".join(p.replace("|", r"\vert ") if k % 2 else inline(p) for k, p in enumerate(parts))


#: A result this wide (columns) with this few rows (or fewer) is shown turned: one row per column, one column per
#: row — twelve columns of long numbers do not fit the content column, two columns of twelve rows do.
TURN_COLUMNS, TURN_ROWS = 11, 4


def markdown_table(head: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    """A Markdown table of cells that are already inline HTML. A wide table (`TURN_COLUMNS`) of two or more rows first
    shows the columns every row shares on a line above it (as the terminal does); one still wide of few rows is
    turned."""
    if len(head) >= TURN_COLUMNS and len(rows) >= 2:
        shared = [j for j in range(len(head)) if len({r[j] for r in rows}) == 1 and rows[0][j] not in ("", "—")]
        if shared and len(shared) < len(head):
            keep = [j for j in range(len(head)) if j not in shared]
            line = " · ".join(f"{head[j]}: {rows[0][j]}" for j in shared)
            return [line, "", *markdown_table([head[j] for j in keep], [[r[j] for j in keep] for r in rows],
                                              [align[j] for j in keep])]
    if len(head) >= TURN_COLUMNS and 0 < len(rows) <= TURN_ROWS:
        out = ["| " + " | ".join(["", *(f"{k + 1}" for k in range(len(rows)))]) + " |",
               "|---|" + "|".join("---:" for _ in rows) + "|"]
        out += ["| **" + h + "** | " + " | ".join(r[j] for r in rows) + " |" for j, h in enumerate(head)]
        return out
    return ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|", *("| " + " | ".join(r) + " |" for r in rows)]


def cli_markdown(text: str) -> str:
    """A command's ``--format markdown`` output, safe to insert in a page. A result (a table, then its note and
    ``> warning:`` lines) has plain text in its cells and lines: each is escaped (`inline`). Other Markdown (the
    privacy statement's bold labels and lists) is kept as Markdown, its headings set in bold."""
    lines = text.rstrip().splitlines()
    if not lines or not lines[0].startswith("|"):  # headings of the output are not sections of the page
        return re.sub(r"^#{1,6}[ \t]+(.+?)[ \t]*#*$", r"**\1**", text.rstrip(), flags=re.M)
    out: list[str] = []
    table = [line for line in lines if line.startswith("|")]
    rows = [[_cell(c.strip()) for c in line.strip().strip("|").split(" | ")] for line in table
            if not _SEPARATOR.match(line)]
    align = [c.strip() for c in next((line for line in table if _SEPARATOR.match(line)), "|").strip("|").split("|")]
    out += markdown_table(rows[0], rows[1:], align) if rows else []
    for line in lines:
        if line.startswith("|"):
            continue
        if line.startswith("> "):
            out.append("> " + inline(line[2:]))
        else:
            out.append(inline(line) if line.strip() else "")
    return "\n".join(out)


_BOX_TOP = "┏┌╭╔"
_BOX_BOTTOM = "┗└╰╚"
_BOX_RULE = "┡├╞╟┣"
_BOX_BARS = "┃│║"
_JUNCTIONS = "┳┬╦╤╥"


def box_table(lines: list[str]) -> tuple[list[str], list[str], list[str]] | None:
    """A terminal box table (rich) in ``lines`` as a Markdown table: (lines before it, the table's lines, lines
    after it), or None when ``lines`` hold no box table. A header cell spread over several lines is joined; a
    column whose cells are padded on the left is right-aligned."""
    top = next((k for k, line in enumerate(lines) if line.lstrip()[:1] in _BOX_TOP and len(line.strip()) > 2), None)
    if top is None:
        return None
    bottom = next((k for k in range(top + 1, len(lines)) if lines[k].lstrip()[:1] in _BOX_BOTTOM), None)
    if bottom is None:
        return None
    border = lines[top]
    cuts = [border.index(border.lstrip()[0])] + [k for k, ch in enumerate(border) if ch in _JUNCTIONS]
    cuts.append(len(border.rstrip()) - 1)
    header: list[list[str]] = []
    rows: list[list[str]] = []
    right = [0] * (len(cuts) - 1)
    seen_rule = False
    for line in lines[top + 1:bottom]:
        first = line.lstrip()[:1]
        if first in _BOX_RULE:
            seen_rule = True
            continue
        if first not in _BOX_BARS:
            continue
        raw = [line[cuts[j] + 1:cuts[j + 1]] for j in range(len(cuts) - 1)]
        cells = [c.strip() for c in raw]
        if seen_rule:
            rows.append(cells)
            for j, c in enumerate(raw):
                if c.strip() and len(c) - len(c.lstrip()) > len(c) - len(c.rstrip()):
                    right[j] += 1
        else:
            header.append(cells)
    if not seen_rule:  # no header rule: every line is a row
        rows, header = header, [[""] * (len(cuts) - 1)]
    head = [" ".join(h[j] for h in header if h[j]) for j in range(len(cuts) - 1)]
    align = ["---:" if 2 * r > len(rows) else "---" for r in right]
    table = markdown_table([inline(h) for h in head], [[inline(c) for c in row] for row in rows], align)
    return lines[:top], table, lines[bottom + 1:]


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})console[ \t]*\n(?P<body>.*?)"
                    r"^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
_MARKDOWN_FORMAT = re.compile(r"(?:^|\s)(?:--format[ =]|-f\s*)(?:markdown|md)\b")


def output_box(markdown: str, indent: str = "") -> str:
    """Command output shown as rendered Markdown, in a box under its console line."""
    body = "\n".join((indent + line) if line.strip() else "" for line in markdown.splitlines())
    return f'{indent}<div class="cli-output" markdown>\n\n{body}\n\n{indent}</div>\n'


def _console(lines: list[str], indent: str, fence: str) -> str:
    body = "".join(indent + line + "\n" for line in lines)
    return f"{indent}{fence}console\n{body}{indent}{fence}\n"


def _segments(body: list[str]) -> list[list[str]]:
    """The lines of a console block, one list per ``$`` command (the lines before the first one apart)."""
    out: list[list[str]] = [[]]
    for line in body:
        if line.startswith("$ ") and out[-1]:
            out.append([])
        out[-1].append(line)
    return [s for s in out if s]


def _convert(segment: list[str], indent: str) -> str | None:
    """A ``$ dpcalc`` segment whose output is a table, as its console line and the rendered output; else None."""
    command, output = segment[0], segment[1:]
    if not command.startswith("$ dpcalc ") or not output:
        return None
    if _MARKDOWN_FORMAT.search(command[len("$ dpcalc"):]):
        return output_box(cli_markdown("\n".join(output)), indent)
    found = box_table(output)
    if found is None:
        return None
    before, table, after = found
    parts = [f'<p class="cli-title">{inline(line.strip())}</p>' for line in before if line.strip()]
    parts += ["", *table, ""]
    parts += [inline(line.strip()) + "\n" for line in after if line.strip()]
    return output_box("\n".join(parts), indent)


def console_blocks(markdown: str) -> str:
    """Every ``console`` block: a ``$ dpcalc`` command whose output is a table (a terminal box table, or the
    Markdown of ``--format markdown``) keeps its command line in a console block, and its output is shown rendered,
    in a box; other commands and their output stay as they are."""

    def repl(m: re.Match[str]) -> str:
        indent, fence = m.group("indent"), m.group("fence")
        body = [line[len(indent):] if line.startswith(indent) else line for line in m.group("body").splitlines()]
        out, plain = [], []
        for segment in _segments(body):
            converted = _convert(segment, indent)
            if converted is None:
                plain += segment
                continue
            if plain:
                out.append(_console(plain, indent, fence))
                plain = []
            out += [_console(segment[:1], indent, fence), converted]
        if plain:
            out.append(_console(plain, indent, fence))
        return "\n".join(out).rstrip("\n")

    return _FENCE.sub(repl, markdown)


# ------------------------------------------------------------------------------------------ page Markdown

_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+\S")
_OPEN_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def loose_lists(markdown: str) -> str:
    """A blank line before a list that follows a paragraph line directly ("Command options:" then "- …"), which
    Markdown would otherwise run into the paragraph; code blocks, display math and tables are left alone."""
    out: list[str] = []
    fence = ""
    in_math = in_list = False
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) and stripped.strip(fence[0]) == "" else fence
            out.append(line)
            continue
        opened = _OPEN_FENCE.match(line)
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        if stripped == "$$" or (stripped.startswith("$$") != stripped.endswith("$$") and "$$" in stripped):
            in_math = not in_math
        if in_math or stripped.startswith("|"):
            out.append(line)
            continue
        if _ITEM.match(line):
            previous = out[-1].strip() if out else ""
            if previous and not in_list and not previous.startswith(("|", "<", "!!!", "???")):
                out.append("")
            in_list = True
        elif not stripped:
            pass
        elif not line[:1].isspace():
            in_list = False
        out.append(line)
    return "\n".join(out)


_STAR = re.compile(r"(?<!\*)\*(?!\*)")


def _stars(text: str) -> str:
    """Escape the single ``*`` of plain text that cannot be emphasis: one glued to the word before it (``T*``,
    ``q*sqrt``) that does not close an emphasis opened earlier on the line (``*up*`` stays)."""
    out, last, opened = [], 0, False
    for m in _STAR.finditer(text):
        k = m.start()
        before = text[k - 1] if k else " "
        after = text[k + 1] if k + 1 < len(text) else " "
        if (before.isspace() or before in "([{\"'") and not after.isspace():
            opened = True
        elif before.isalnum() or before in ")]}":
            if opened:
                opened = False
            else:
                out += [text[last:k], "\\*"]
                last = k + 1
    return "".join(out) + text[last:]


def literal_stars(markdown: str) -> str:
    """`_stars` on every line of prose: outside code blocks, code spans and math (``T*/K*``, ``U*, p_k*``)."""
    out, fence = [], ""
    for line in markdown.split("\n"):
        opened = _OPEN_FENCE.match(line)
        if fence or opened:
            if fence and line.strip().startswith(fence):
                fence = ""
            elif opened and not fence:
                fence = opened.group(1)
            out.append(line)
            continue
        parts = re.split(r"(`[^`]*`|\$[^$]*\$)", line)
        out.append("".join(p if p[:1] in "`$" else _stars(p) for p in parts))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ rendered HTML

_TAG = re.compile(r"(<!--.*?-->|<[^>]*>)", re.DOTALL)
_SKIP = {"pre", "code", "math", "script", "style", "kbd", "textarea"}
_TEX = re.compile(r"(?<=[^\s>])([_^])\{((?:[^{}]|\{[^{}]*\})*)\}")
_TEX_SUP1 = re.compile(r"(?<=[^\s^])\^([A-Za-z0-9α-ωΑ-Ω∞])(?![A-Za-z0-9])")
_LONG = re.compile(r"\S{16,}")
_NUMBER = re.compile(r"(?<![\w.])([-−]?\d[\d.]*[eE][-+−]?\d+)(?![\w.])")
_BREAK = re.compile(r"(?<=[_/(,=])(?=\S)|(?<=[A-Za-z]\.)(?=[A-Za-z])|(?<=[a-z])(?=[A-Z][a-z])")


def tex_scripts(text: str) -> str:
    """Plain-text TeX exponents and subscripts of prose (``e^{(α−1)ε(α)}``, ``P_{K≤k₀}``, ``e^ε``) as HTML."""
    def tag(m: re.Match[str]) -> str:
        name = "sup" if m.group(1) == "^" else "sub"
        return f"<{name}>{m.group(2)}</{name}>"

    for _ in range(3):  # nested: H_{e^{ε}}
        new = _TEX.sub(tag, text)
        if new == text:
            break
        text = new
    return _TEX_SUP1.sub(r"<sup>\1</sup>", text)


def breaks(text: str) -> str:
    """Break opportunities in the long tokens of a table cell: after ``_ / ( , =``, after the dot of a dotted
    name (not of a number) and between camelCase words; a number in exponent form (``1e-05``) is kept whole."""
    text = _LONG.sub(lambda m: _BREAK.sub("<wbr>", m.group(0)), text)
    return _NUMBER.sub(r'<span class="nobreak">\1</span>', text)


def html_text(content: str, extra: Callable[[str], str] | None = None) -> str:
    """Rewrite the text of rendered HTML: `tex_scripts` outside code and math, ``\\|`` → ``|`` outside code
    blocks, `breaks` inside table cells (code included)."""
    tokens = _TAG.split(content)
    stack: list[str] = []
    cells = 0
    for k, token in enumerate(tokens):
        if k % 2:  # a tag
            m = re.match(r"<(/?)([A-Za-z][\w:-]*)", token)
            if not m or token.endswith("/>"):
                continue
            closing, name = m.group(1) == "/", m.group(2).lower()
            if name in ("td", "th"):
                cells += -1 if closing else 1
            elif name in _SKIP:
                if closing:
                    while stack and stack.pop() != name:
                        pass
                else:
                    stack.append(name)
            continue
        if not token:
            continue
        if "pre" in stack or "math" in stack:
            continue
        text = html.escape(html.unescape(token), quote=False).replace("\\|", "|")
        if not stack:
            text = tex_scripts(text)
            if extra is not None:
                text = extra(text)
        if cells > 0:  # break opportunities in the text between the tags just made
            text = "".join(p if p.startswith("<") else breaks(p) for p in _TAG.split(text))
        tokens[k] = text
    return "".join(tokens)
