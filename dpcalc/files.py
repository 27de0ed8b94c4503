"""The one file reader (numbers from text/CSV/``.npy``; JSON and TOML documents) and the one atomic output writer
of every command.

Every failure is a one-line `DomainError` naming the option and the file: a missing
file, a directory, a device, pipe or socket (``/dev/zero`` would never end), a file over its size cap (read with a
bound, so a file that grows while it is read cannot exceed it), a non-UTF-8 text, a short row, an empty / complex /
non-numeric ``.npy``, a path too long for the file system, a document nested deeper than `MAX_NESTING` levels
(checked without recursion before the parser, which recurses once per level, sees it: `check_nesting`; and on the
parsed data: `check_depth`). The writer checks the target *before* the computation (`check_output`), writes
through a temporary file in the target's own directory and ``os.replace`` (so a reader never sees half a
file and an error leaves nothing behind), gives a new file the mode the umask allows (``0666 & ~umask``, as
``open`` would), keeps an existing file's mode, writes *through* a symlink to its target (the link stays a
link), and never names its temporary file in a message.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from dpcalc import _limits
from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_NESTING", "check_depth", "check_nesting", "check_output", "nesting",
           "open_atomic", "parse_document", "read_columns", "read_document", "read_matrix", "read_numbers",
           "read_table", "read_text", "read_vector", "write_atomic"]

MAX_DOCUMENT_BYTES = 16 * 1024**2
"""Largest JSON or TOML document (an event file, a table SPEC) read: 16 MiB (parsed, a document takes up to ~20 times
its size in memory)."""

MAX_NESTING = 64
"""Deepest nesting of arrays, objects and tables in a JSON or TOML document (an event tree a few levels deep needs
under 10; the parsers recurse once per level and fail near 1,000)."""

_TEXT_SUFFIXES = (".csv", ".txt", ".tsv", ".dat", "")


def _show(path: str | Path) -> str:
    """The path for a message: quoted, control characters escaped, very long paths shortened in the middle."""
    text = repr(str(path))
    return text if len(text) <= 120 else text[:58] + "…" + text[-58:]


def _os_error(option: str, path: str | Path, exc: OSError, verb: str) -> DomainError:
    reason = exc.strerror or type(exc).__name__
    if exc.errno == errno.ENAMETOOLONG:
        reason = "file name too long"
    return DomainError(f"{option}: cannot {verb} {_show(path)}: {reason}")


# ----------------------------------------------------------------------------------------------- reading


_TEXT_FACTOR = 4  # the bytes and the decoded str (up to 4 bytes a character) of a text read whole
_NUMBERS_FACTOR = 30  # numbers parsed from text: Python floats and lists
_NPY_FACTOR = 2  # .npy: load + float64 copy


def _check_readable(option: str, path: Path, factor: float | None = None) -> int:
    """Stat ``path``; one-line errors for missing files, directories, devices, pipes, sockets and unreadable paths;
    the memory of reading it (``factor`` times its size; default: numbers, from text or .npy) checked against the cap.
    Returns its size."""
    if "\x00" in str(path):
        raise DomainError(f"{option}: {_show(path)} is not a file name (it contains a NUL byte)")
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise DomainError(f"{option}: file {_show(path)} does not exist") from None
        raise _os_error(option, path, exc, "read") from None
    _check_regular(option, path, st.st_mode)
    if factor is None:
        factor = _NPY_FACTOR if path.suffix.lower() == ".npy" else _NUMBERS_FACTOR
    _limits.check_memory(f"{option}: reading {_show(path)} ({_limits.human(st.st_size)})", st.st_size * factor)
    return st.st_size


def _check_regular(option: str, path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise DomainError(f"{option}: {_show(path)} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise DomainError(f"{option}: {_show(path)} is not a regular file (a device, pipe or socket, which may never "
                          "end); save the input to a file")


def _read_bounded(option: str, path: Path, most: int) -> bytes:
    """At most ``most`` bytes of the regular file ``path`` (opened without blocking and checked again once open: a
    pipe put in its place after the check is refused too); one byte more is an error naming the cap."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _os_error(option, path, exc, "read") from None
    chunks: list[bytes] = []
    total = 0
    with os.fdopen(fd, "rb") as fh:
        try:
            _check_regular(option, path, os.fstat(fd).st_mode)
            while chunk := fh.read(min(1 << 20, most + 1 - total)):  # 1 MiB at a time: no buffer of the cap's size
                chunks.append(chunk)
                total += len(chunk)
                if total > most:
                    raise DomainError(f"{option}: {_show(path)} is over {_limits.human(most)}, the most read from "
                                      "such a file")
        except OSError as exc:
            raise _os_error(option, path, exc, "read") from None
    return b"".join(chunks)


def _read_npy(option: str, path: Path) -> NDArray[np.float64]:
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, UnicodeError) as exc:
        raise DomainError(f"{option}: {_show(path)} is not a readable .npy array of numbers "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if not isinstance(data, np.ndarray):
        raise DomainError(f"{option}: {_show(path)} must hold one array (got {type(data).__name__})")
    if np.iscomplexobj(data):
        raise DomainError(f"{option}: {_show(path)} holds complex numbers; give real numbers")
    if data.dtype.kind not in "biuf":
        raise DomainError(f"{option}: {_show(path)} must hold numbers (got dtype {data.dtype})")
    return np.asarray(data, dtype=np.float64)


def _tokens(line: str) -> list[str]:
    return line.split("#")[0].replace(",", " ").replace(";", " ").replace("\t", " ").split()


def read_text(option: str, path: str | Path, hint: str = "save it as UTF-8 or .npy", most: int | None = None) -> str:
    """The UTF-8 text of a file, at most ``most`` bytes (default: what the memory cap allows); missing files,
    directories, devices and pipes, larger, unreadable or non-UTF-8 files are one line naming ``option`` and the path
    (``hint``: what to do about a non-UTF-8 file).

    Parameters
    ----------
    option : str
    path : str | Path
    hint : str
    most : int | None

    Returns
    -------
    str

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    path = Path(path)
    size = _check_readable(option, path, _TEXT_FACTOR)
    cap = int(_limits.max_memory() // _TEXT_FACTOR) if most is None else _count("most", most)
    if size > cap:
        raise DomainError(f"{option}: {_show(path)} ({_limits.human(size)}) is over {_limits.human(cap)}, the most "
                          "read from such a file")
    raw = _read_bounded(option, path, cap)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DomainError(f"{option}: {_show(path)} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                          f"{exc.start}); {hint}") from None


# ----------------------------------------------------------------------------------------------- documents

#: What does not nest in a text: JSON strings; TOML strings (four kinds) and comments; mathtext's escaped
#: brackets (``\{`` is a literal brace).
_SKIP = {
    "JSON": re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL),
    "TOML": re.compile(r"'''.*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|#[^\n]*", re.DOTALL),
    "mathtext": re.compile(r"\\[{}\[\]]"),
}
_LEFT_RIGHT = re.compile(r"\\(left|right)(?![a-zA-Z])")  # mathtext's \left( … \right) nest like braces
_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]], _STEP[[ord("]"), ord("}")]] = 1, -1


def nesting(text: str, kind: str) -> int:
    """The deepest nesting of brackets and braces in ``text`` (``kind``: "JSON", "TOML" or "mathtext"), strings,
    comments and escapes left out: counted without recursion, in time linear in the text.

    Parameters
    ----------
    text : str
    kind : str

    Returns
    -------
    int

    Raises
    ------
    DomainError
        An input (``text``, ``kind``) outside its domain; the one-line message names it and the allowed range.
    """
    body = _SKIP[v.choice("kind", kind, tuple(_SKIP))].sub(" ", v.text("text", text))
    if kind == "mathtext":
        body = _LEFT_RIGHT.sub(lambda m: "{" if m.group(1) == "left" else "}", body)
    steps = _STEP[np.frombuffer(body.encode("utf-8", "replace"), dtype=np.uint8)]
    return int(np.cumsum(steps, dtype=np.int64).max(initial=0))


def check_nesting(where: str, text: str, kind: str, most: int = MAX_NESTING) -> None:
    """A one-line `DomainError` naming ``where`` if ``text`` nests deeper than ``most`` levels (`nesting`).

    Parameters
    ----------
    where : str
    text : str
    kind : str
    most : int

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    depth, most = nesting(text, kind), _count("most", most)
    if depth > most:
        what = "braces or \\left…\\right" if kind == "mathtext" else "arrays, objects or tables"
        raise DomainError(f"{where}: {what} nested too deeply ({depth} levels; at most {most})")


def check_depth(where: str, data: Any, most: int = MAX_NESTING) -> None:
    """A one-line `DomainError` naming ``where`` if the parsed ``data`` (dicts and lists) nests deeper than ``most``
    levels; walked with a stack, not recursion (a TOML header ``[a.b.c…]`` nests without brackets).

    Parameters
    ----------
    where : str
    data : Any
    most : int

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    most = _count("most", most)
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth >= most:
                    raise DomainError(f"{where}: arrays, objects or tables nested too deeply (more than {most} "
                                      "levels)")
                stack.append((child, depth + 1))


def parse_document(where: str, text: str, kind: str) -> Any:
    """The data of the JSON or TOML (``kind``) document ``text``, its nesting checked before and after parsing;
    a one-line `DomainError` naming ``where`` for a syntax error or deep nesting.

    Parameters
    ----------
    where : str
    text : str
    kind : str

    Returns
    -------
    Any

    Raises
    ------
    DomainError
        An input (``kind``) outside its domain; the one-line message names it and the allowed range.
    """
    check_nesting(where, text, v.choice("kind", kind, ("JSON", "TOML")))
    try:
        if kind == "TOML":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover
                import tomli as tomllib
            data = tomllib.loads(text)
        else:
            import json

            data = json.loads(text)
    except ValueError as exc:  # TOMLDecodeError, JSONDecodeError, an integer of over 4,300 digits
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DomainError(f"{where}: not valid {kind}: {reason}") from None
    check_depth(where, data)
    return data


def read_document(option: str, path: str | Path, hint: str = "save it as UTF-8") -> Any:
    """The data of a JSON or TOML file (TOML by the suffix ``.toml``): a regular file of at most `MAX_DOCUMENT_BYTES`,
    nested at most `MAX_NESTING` levels (`parse_document`); errors name ``option`` and the path.

    Parameters
    ----------
    option : str
    path : str | Path
    hint : str

    Returns
    -------
    Any

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    p = Path(path)
    text = read_text(option, p, hint, most=MAX_DOCUMENT_BYTES)
    return parse_document(f"{option} {_show(p)}", text, "TOML" if p.suffix.lower() == ".toml" else "JSON")


def _count(name: str, value: Any) -> int:
    """A whole number >= 0 (a cap, a depth), else a one-line `DomainError` naming ``name``."""
    return int(v.scalar(name, v.integer_at_least(name, value, 0)))


def _read_text(option: str, path: Path) -> tuple[list[str], list[list[float]]]:
    text = read_text(option, path)
    rows: list[list[float]] = []
    header: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        toks = _tokens(line)
        if not toks:
            continue
        values = []
        for tok in toks:
            try:
                values.append(float(tok))
            except ValueError:
                values = []
                break
        if not values:
            if rows:  # a header is allowed only before the numbers
                raise DomainError(f"{option}: {_show(path)} line {lineno}: {line.strip()[:40]!r} is not a row of "
                                  "numbers")
            header = header or toks
            continue
        rows.append(values)
    return header, rows


def read_numbers(option: str, path: str | Path) -> NDArray[np.float64]:
    """All numbers of a file as a float64 array (see `read_table`; the header, if any, is dropped).

    Parameters
    ----------
    option : str
    path : str | Path

    Returns
    -------
    NDArray[np.float64]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return read_table(option, path)[1]


def read_table(option: str, path: str | Path) -> tuple[list[str], NDArray[np.float64]]:
    """(header, numbers) of a file: ``.npy`` as stored (no header); text/CSV as a rectangular 2-D table.

    Text: comma, semicolon, tab or space separated, ``#`` comments, one optional header line (its names are
    returned, else ``[]``). Every row must have the same number of values. Raises a one-line
    `DomainError` on any problem (missing, directory, not UTF-8, short row, empty, complex, NaN/inf).

    Parameters
    ----------
    option : str
    path : str | Path

    Returns
    -------
    tuple[list[str], NDArray[np.float64]]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    p = Path(path)
    _check_readable(option, p)
    suffix = p.suffix.lower()
    header: list[str] = []
    if suffix == ".npy":
        data = _read_npy(option, p)
    elif suffix in _TEXT_SUFFIXES:
        header, rows = _read_text(option, p)
        widths = {len(r) for r in rows}
        if len(widths) > 1:
            first = len(rows[0])
            short = next(i for i, r in enumerate(rows) if len(r) != first)
            raise DomainError(f"{option}: {_show(p)} row {short + 1} has {len(rows[short])} values, row 1 has "
                              f"{first} (the table must be rectangular)")
        data = np.array(rows, dtype=np.float64).reshape(len(rows), widths.pop() if widths else 0)
    else:
        raise DomainError(f"{option}: {_show(p)} must be .npy or .csv (or text: .txt, .tsv, .dat)")
    if data.size == 0:
        raise DomainError(f"{option}: {_show(p)} holds no numbers")
    nonfinite = ~np.isfinite(data)
    if nonfinite.any():
        raise DomainError(f"{option}: {_show(p)} holds a non-finite value ({data[nonfinite].flat[0]:g}); every value "
                          "must be finite")
    return header, data


def read_columns(option: str, path: str | Path, names: tuple[str, ...]) -> dict[str, NDArray[np.float64]]:
    """Named columns of a text table whose header line holds (at least) ``names``.

    Parameters
    ----------
    option : str
    path : str | Path
    names : tuple[str, ...]

    Returns
    -------
    dict[str, NDArray[np.float64]]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if isinstance(names, str) or not isinstance(names, tuple | list) or not all(isinstance(n, str) for n in names):
        raise DomainError(f"names must be a tuple of column names (got {v.brief(names)})")
    header, data = read_table(option, path)
    missing = [n for n in names if n not in header]
    if missing or data.ndim != 2 or len(header) != data.shape[1]:
        raise DomainError(f"{option}: {_show(path)} must be a CSV with a header line naming the columns "
                          f"{', '.join(names)}" + (f" (missing {', '.join(missing)})" if missing else ""))
    return {n: data[:, header.index(n)] for n in names}


def read_vector(option: str, path: str | Path) -> NDArray[np.float64]:
    """A 1-D vector from a file: one row, one column, or a 1-D ``.npy``.

    Parameters
    ----------
    option : str
    path : str | Path

    Returns
    -------
    NDArray[np.float64]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    data = read_numbers(option, path)
    if data.ndim == 2 and 1 in data.shape:
        data = data.ravel()
    if data.ndim != 1:
        raise DomainError(f"{option}: {_show(path)} must hold one row or one column of numbers (got shape "
                          f"{data.shape})")
    return data


def read_matrix(option: str, path: str | Path) -> NDArray[np.float64]:
    """A 2-D matrix from a file (text table or 2-D ``.npy``).

    Parameters
    ----------
    option : str
    path : str | Path

    Returns
    -------
    NDArray[np.float64]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    data = read_numbers(option, path)
    if data.ndim != 2:
        raise DomainError(f"{option}: {_show(path)} must hold a 2-D table of numbers (got shape {data.shape})")
    return data


# ----------------------------------------------------------------------------------------------- writing


def _target(path: Path, option: str) -> Path:
    """The file actually written: ``path`` itself, or the file a symlink points to."""
    if path.is_symlink():
        real = Path(os.path.realpath(path))
        if not real.parent.is_dir():
            raise DomainError(f"{option}: {_show(path)} is a symlink to {_show(real)}, whose directory does not "
                              "exist")
        return real
    return path


def check_output(path: Path, force: bool, option: str = "--output") -> None:
    """Everything that can be known about writing ``path`` before computing; one-line DomainError if it fails.

    Parameters
    ----------
    path : Path
    force : bool
    option : str

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    path = Path(path)
    if "\x00" in str(path):
        raise DomainError(f"{option}: {_show(path)} is not a file name (it contains a NUL byte)")
    try:
        exists = path.exists() or path.is_symlink()
        if path.is_dir():
            raise DomainError(f"{option}: {_show(path)} is a directory; give a file name")
        target = _target(path, option)
        if exists and not force:
            raise DomainError(f"{option}: {_show(path)} exists; pass --force to overwrite")
        if target.exists() and not target.is_file():
            raise DomainError(f"{option}: {_show(path)} is not a regular file (a device, pipe or socket); give a file "
                              "name")
        directory = target.parent
        if not directory.is_dir():
            raise DomainError(f"{option}: cannot write {_show(path)}: directory {_show(directory)} does not exist")
        name_max = os.pathconf(directory, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
        if len(os.fsencode(target.name)) > name_max:
            raise DomainError(f"{option}: file name too long ({len(os.fsencode(target.name))} bytes, at most "
                              f"{name_max})")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise DomainError(f"{option}: cannot write in {_show(directory)}: permission denied")
        if target.exists() and not os.access(target, os.W_OK) and not os.access(directory, os.W_OK):
            raise DomainError(f"{option}: {_show(path)} is not writable")
    except OSError as exc:
        raise _os_error(option, path, exc, "write") from None


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def open_atomic(path: str | Path, force: bool, option: str = "--output", *, binary: bool = False) -> Iterator[IO[Any]]:
    """A file to write ``path`` through, atomically (text, or bytes with ``binary``): checked first (`check_output`:
    an existing file is never touched without ``force``, a device or pipe never), written to a temporary file in the
    target's own directory and moved onto the target (``os.replace``) only when the block ends without an error; on
    any failure the temporary file is removed and the target, existing or not, is left as it was. Write errors (a
    full disk, a read-only file system) are one-line `DomainError`s naming ``option``.

    Parameters
    ----------
    path : str | Path
    force : bool
    option : str
    binary : bool

    Returns
    -------
    Iterator[IO[Any]]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    path = Path(path)
    check_output(path, force, option)
    target = _target(path, option)
    try:
        mode = target.stat().st_mode & 0o7777 if target.exists() else _new_file_mode()
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".dpcalc-", suffix=".tmp")
    except OSError as exc:
        raise _os_error(option, path, exc, "write") from None
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")) as fh:
            os.fchmod(fh.fileno(), mode)
            yield fh
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _os_error(option, path, exc, "write") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, content: str | bytes | Iterable[str], force: bool, option: str = "--output") -> None:
    """Write ``content`` (a string, bytes such as a PNG, or an iterable of chunks, streamed) to ``path`` atomically
    (`open_atomic`): refuses to overwrite without ``force``; if producing or writing the content fails, nothing is
    left behind and the target is untouched.

    Parameters
    ----------
    path : Path
    content : str | bytes | Iterable[str]
    force : bool
    option : str

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    with open_atomic(path, force, option, binary=isinstance(content, bytes)) as fh:
        if isinstance(content, str | bytes):
            fh.write(content)
        else:
            for chunk in content:
                fh.write(chunk)
