"""Tables read on a terminal keep every value whole: run in a real pseudo-terminal of 60, 80 and 120 columns (its
size set as ``stty cols`` does, no ``$COLUMNS``), every value of the command's JSON rows appears whole on the screen,
no line is wider than the terminal, nothing is cut with ``…``; 6 significant digits by default and ``--digits N``;
rounding toward the safe side on request (``.6g↑``)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from dpcalc.report._text import DEFAULT_NUMBER, format_number, number_with_digits, text_cell, text_width
from dpcalc.report.fit import fit_lines, wrap
from dpcalc.report.render import Column, Result
from tests.support.cli_runner import run

ROOT = Path(__file__).resolve().parents[2]
RUN = ["--dataset-size", "60000", "--batch-size", "256", "--epochs", "60"]  # an MNIST-like training run
COMMANDS = {
    "account": ["account", *RUN, "-z", "1.1", "--delta", "1e-5"],
    "account-pld": ["account", *RUN, "-z", "1.1", "--delta", "1e-5", "-a", "pld"],
    "calibrate": ["calibrate", *RUN, "--eps", "3", "--delta", "1e-5", "-a", "rdp", "-a", "gdp-clt"],
    "plot-list": ["plot", "list"],
    "risk-attack": ["risk", "attack", *RUN, "-z", "1.1", "--delta", "1e-5"],  # a header "(ε = 2.382, …)"
}
#: row fields for programs, not repeated in the table: the event's description (its fields are the header), the
#: PLD's met flag and notes (said in the note), the calibration's field and tolerance (the title and the note)
JSON_ONLY = frozenset({"event", "met", "notes", "solve_for", "rtol"})
#: a calibration's table shows the answer's ε (its upper end); the bracket and the RDP order are in the JSON row
CALIBRATION_ONLY = frozenset({"eps_lower", "eps_upper", "order"})
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _screen(args: list[str], columns: int) -> str:
    """What ``dpcalc ARGS`` shows on a terminal ``columns`` wide (stdout and stderr, colours removed)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    # the transient progress bar (stderr) is erased when the work ends: not part of the screen read here
    env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "DPCALC_PROGRESS": "0"}
    proc = subprocess.Popen([sys.executable, "-c", "from dpcalc.cli.main import main; main()", *args],
                            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal closed (EIO): the program ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait() == 0, b"".join(chunks).decode(errors="replace")
    return _ANSI.sub("", b"".join(chunks).decode().replace("\r\n", "\n"))


def _words(value: object) -> list[set[str]]:
    """How a JSON value shows in a table, word by word, each word's accepted forms: a number in 6 significant
    digits (rounded to nearest, or toward its safe side: a bound's column rounds up or down), text word by word,
    None as —."""
    if value is None:
        return [{"—"}]
    if isinstance(value, bool):
        return [{str(value)}]
    if isinstance(value, int | float):
        return [{text_cell(value), format_number(float(value), ".6g↑"), format_number(float(value), ".6g↓")}]
    return [{w} for w in str(value).split()]


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_value_whole_in_a_real_terminal(name: str, columns: int) -> None:
    args = COMMANDS[name]
    code, out, err = run(*args, "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    screen = _screen(args, columns)
    for line in screen.splitlines():
        assert text_width(line) <= columns, f"{name} at {columns}: a line of {text_width(line)} cells:\n{line}"
    assert "…" not in screen
    tokens = set(re.split(r"[\s│┃]+", screen))
    empty = {key for key in rows[0] if all(r.get(key) is None for r in rows)}  # a column of — is left out
    for row in rows:
        for key, value in row.items():
            if key in JSON_ONLY or key in empty or (name == "calibrate" and key in CALIBRATION_ONLY):
                continue
            for word in _words(value):
                assert word & tokens, f"{name} at {columns} columns: {key} = {value!r} not whole ({word!r})\n{screen}"


def test_the_mnist_run_at_80_columns_is_a_table_of_whole_numbers() -> None:
    """The shared setting above, the accountants below: ε 2.59666 (was "2.5…"), every column kept."""
    screen = _screen(COMMANDS["account"], 80)
    assert "z (noise multiplier): 1.1" in screen and "T (steps):" in screen and "14063" in screen
    assert re.search(r"│ rdp +│ +2\.59666 │", screen) and re.search(r"│ pld +│ +2\.38208 │ +2\.38124 │", screen)
    assert "gdp-clt value is an estimate, not a bound" in screen  # the estimate said so in the note, wrapped
    assert all(text_width(x) <= 80 for x in screen.splitlines())


def _result(n: int = 3, width_words: int = 1) -> Result:
    rows = [{"name": f"row-{k}", "value": 1 / (k + 3), "text": " ".join(["word"] * width_words), "same": 0.5}
            for k in range(n)]
    return Result(columns=[Column("name", "identifier name", text=True), Column("value", "a value (units)"),
                           Column("text", "words", text=True), Column("same", "shared")], rows=rows, title="T")


def test_layouts_from_table_to_blocks() -> None:
    """Wide: the table as is; narrower: wrapped headers, then the shared column above, then one block per row;
    never a word or a number cut."""
    r = _result(width_words=3)
    wide = fit_lines(r, 200)
    assert any("identifier name" in x for x in wide) and not any(x.startswith("shared:") for x in wide)
    wrapped = fit_lines(r, 60)  # the headers wrap before any cell does
    assert wrapped[2].startswith("┃") and wrapped[3].startswith("┃")  # a header on two lines …
    assert sum("│ word word word │" in x for x in wrapped) == 3  # … and every cell on one
    narrow = fit_lines(r, 30)
    assert "words:  word word word" in narrow and "shared: 0.5" in narrow and any("┏" in x for x in narrow)
    blocks = fit_lines(r, 24)
    assert "── 1 of 3 " in blocks[3] and "identifier name: row-0" in blocks
    for lines, width in ((wide, 200), (wrapped, 60), (narrow, 30), (blocks, 24)):
        assert all(text_width(x) <= width for x in lines), lines
        text = " ".join(lines)
        assert "0.333333" in text and "0.2" in text and "row-2" in text


def test_wrapping_keeps_words_assignments_and_citations_whole() -> None:
    lines = wrap("a note where T = 14063 and Thm 9 of the paper must stay together " * 3, 22)
    assert all(len(x) <= 22 for x in lines)
    joined = "\n".join(lines)
    assert "T = 14063" in joined and "Thm 9" in joined
    assert wrap("  - an item that is rather long indeed", 20) == ["  - an item that is", "    rather long",
                                                               "    indeed"]


def test_digits_default_option_and_directed_rounding() -> None:
    assert DEFAULT_NUMBER == ".6g" and text_cell(2.99999999999626) == "3" and text_cell(0.004266666666666667) == \
        "0.00426667"
    assert number_with_digits("", 8) == ".8g" and number_with_digits(".3e", 4) == ".3e"
    assert number_with_digits(".6g↑", 3) == ".3g↑" and number_with_digits(",.2f", 9) == ",.2f"
    # a bound shown on its safe side: never below (↑) or above (↓) the value
    assert format_number(3.00000000551007, ".6g↑") == "3.00001" and format_number(3.00000000551007, ".6g") == "3"
    assert format_number(2.99999999999626, ".6g↑") == "3" and format_number(2.99999999999626, ".6g↓") == "2.99999"
    assert format_number(9.9999999, ".6g↑") == "10" and format_number(-2.5e-7, ".3e↓") == "-2.500e-07"
    for x in (0.1, 1 / 3, 2.718281828459045, 1e-300, 123456789.0, -0.7):
        assert float(format_number(x, ".4g↑")) >= x and float(format_number(x, ".4g↓")) <= x
    code, out, _ = run("gdp", "eps", "--mu", "1", "--delta", "1e-5")
    assert code == 0 and "4.37718" in out and "4.377178" not in out
    code, out, _ = run("gdp", "eps", "--mu", "1", "--delta", "1e-5", "--digits", "12")
    assert code == 0 and "4.37717809568" in out
    code, out, _ = run("gdp", "eps", "--mu", "1", "--delta", "1e-5", "--digits", "12", "--json")
    assert json.loads(out)["rows"][0]["eps"] == pytest.approx(4.377178095681224, rel=1e-15)  # JSON: every digit
    code, _, err = run("gdp", "eps", "--mu", "1", "--delta", "1e-5", "--digits", "0")
    assert code == 2 and "--digits" in err and err.count("\n") == 1


# Calls the library fuzz found (tests/support/fuzz_library.py): one-line errors naming the argument.
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"text": "1,2", "width": [2.0, 2.0], "indent": "1"}, "width must be an integer"),  # truth value of an array
    ({"text": "x y", "width": [4e17, 5.2e16, 0.5], "indent": "bogus"}, "width must be an integer"),  # TypeError
    ({"text": 1.5, "width": 0}, "text must be a string"),  # AttributeError
    ({"text": "1:3", "width": 10, "indent": [1.0, 2.0]}, "indent must be a string"),  # UFuncTypeError
    ({"text": "x", "width": 2.5}, "width must be an integer"),
    ({"text": "x", "width": float("nan")}, "width must be an integer"),
])
def test_wrap_bad_input_is_one_line(kwargs: dict[str, object], message: str) -> None:
    from dpcalc.errors import DomainError

    with pytest.raises(DomainError) as info:
        wrap(**kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_wrap_takes_an_integral_float_width() -> None:
    assert wrap("a b", 2.0) == wrap("a b", 2) == ["a", "b"]
