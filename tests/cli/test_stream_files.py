"""The files a command writes (``--stream``, ``--output``) never touch a file dpcalc did not create without
``--force``, are written atomically, and leave nothing behind when the command fails (each case a fuzz reproducer).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dpcalc.errors import DomainError
from dpcalc.files import open_atomic
from tests.support.cli_runner import run

SPEC = Path(__file__).resolve().parents[2] / "docs" / "examples" / "midp_sigma.toml"
#: a streamed sweep that fails on its input, one that succeeds, and the table command
FAILING = ("gdp", "delta", "--mu", "-1", "--eps", "1")
GOOD = ("gdp", "delta", "--mu", "1,2", "--eps", "1")


def _one_line_error(code: int, err: str) -> None:
    assert code == 2 and err.startswith("dpcalc: error: ") and err.count("\n") == 1, err


def _listing(d: Path) -> list[str]:
    return sorted(os.listdir(d))


@pytest.mark.parametrize("argv", [FAILING, GOOD])
def test_an_existing_file_is_never_touched_without_force(argv: tuple[str, ...], tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x\n")
    code, _, err = run(*argv, "--stream", str(f))
    _one_line_error(code, err)
    assert "--stream" in err and "--force" in err
    assert f.read_text() == "x\n" and _listing(tmp_path) == ["f.txt"]


def test_a_failing_sweep_with_force_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x\n")
    code, _, err = run(*FAILING, "--stream", str(f), "--force")
    _one_line_error(code, err)
    assert "--mu" in err
    assert f.read_text() == "x\n" and _listing(tmp_path) == ["f.txt"]


def test_a_failing_sweep_creates_nothing(tmp_path: Path) -> None:
    code, _, err = run(*FAILING, "--stream", str(tmp_path / "new.csv"))
    _one_line_error(code, err)
    assert _listing(tmp_path) == []


def test_through_a_symlink_the_target_is_kept_until_replaced_with_force(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x\n")
    link = tmp_path / "l.csv"
    link.symlink_to(f)
    code, _, err = run(*GOOD, "--stream", str(link))
    _one_line_error(code, err)
    assert f.read_text() == "x\n"
    code, _, err = run(*FAILING, "--stream", str(link), "--force")
    _one_line_error(code, err)
    assert f.read_text() == "x\n" and link.is_symlink()
    code, _, err = run(*GOOD, "--stream", str(link), "--force")
    assert code == 0, err
    assert f.read_text().splitlines()[0] == "mu,eps,delta,log_delta" and len(f.read_text().splitlines()) == 3
    assert link.is_symlink() and _listing(tmp_path) == ["f.txt", "l.csv"]


def test_a_new_stream_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    code, _, err = run(*GOOD, "--stream", str(path))
    assert code == 0, err
    assert len(path.read_text().splitlines()) == 3 and _listing(tmp_path) == ["s.csv"]


@pytest.mark.parametrize("argv", [("table", str(SPEC)), GOOD])
def test_stream_and_output_on_one_file_are_refused_before_anything_is_written(argv: tuple[str, ...],
                                                                              tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    code, _, err = run(*argv, "--stream", str(path), "-o", str(path))
    _one_line_error(code, err)
    assert "same file" in err and _listing(tmp_path) == []


def test_table_stream_refuses_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("mine\n")
    code, _, err = run("table", str(SPEC), "--stream", str(path))
    _one_line_error(code, err)
    assert path.read_text() == "mine\n"
    code, _, err = run("table", str(SPEC), "--stream", str(path), "--force")
    assert code == 0, err
    assert path.read_text() != "mine\n"


@pytest.mark.parametrize("target", ["/dev/full", "/dev/null", "/proc/version", "/proc/new.csv"])
def test_devices_and_pseudo_files_are_refused_in_one_line(target: str) -> None:
    if not Path(target).parent.exists():
        pytest.skip(f"{Path(target).parent} does not exist on this system")
    for extra in ((), ("--force",)):
        code, _, err = run(*GOOD, "--stream", target, *extra)
        _one_line_error(code, err)
        assert "--stream" in err


def test_a_name_too_long_is_one_line(tmp_path: Path) -> None:
    code, _, err = run(*GOOD, "--stream", str(tmp_path / ("a" * 300 + ".csv")))
    _one_line_error(code, err)
    assert "too long" in err


def test_a_write_error_midway_leaves_nothing_and_the_target_intact(tmp_path: Path) -> None:
    """A full disk while writing (simulated: the write raises ENOSPC): one-line error, the old file intact, no
    temporary file left."""
    import errno

    f = tmp_path / "f.csv"
    f.write_text("old\n")
    with pytest.raises(DomainError, match=r"--stream: cannot write .*No space left"):
        with open_atomic(f, True, "--stream") as fh:
            fh.write("new,")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert f.read_text() == "old\n" and _listing(tmp_path) == ["f.csv"]


def test_an_interrupted_write_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with open_atomic(tmp_path / "n.csv", False, "--stream") as fh:
            fh.write("partial")
            raise KeyboardInterrupt
    assert _listing(tmp_path) == []
