"""Regenerate the outputs of the example table specs: ``python docs/examples/regenerate.py``.

For every ``docs/examples/*.toml`` it writes ``NAME.md`` (Markdown) and ``NAME.tex`` (LaTeX table float) next to
the spec. ``tests/report/test_table.py`` checks that the committed outputs equal what this produces.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUTS = {"md": "markdown", "tex": "latex"}


def outputs(spec: Path) -> dict[Path, str]:
    """What the example ``spec`` renders to, by output path."""
    from dpcalc.report import table
    from dpcalc.report.render import Format

    result = table.build(table.read(spec))
    return {spec.with_suffix(f".{ext}"): table.render_table(result, Format(fmt)) for ext, fmt in OUTPUTS.items()}


def main() -> None:
    for spec in sorted(HERE.glob("*.toml")):
        for path, text in outputs(spec).items():
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
