"""Hostile argument vectors for every ``dpcalc`` command, and the bad-input contract they must satisfy.

Used by ``tests/cli/test_fuzz_cli.py``. Commands are discovered from the Typer app (so commands added later are
fuzzed too); each vector runs through the real console entry point :func:`dpcalc.cli.main.main` in-process.

The contract (README, DEVELOPERS.md): exit code 0 (ok), 1 (a verification failed) or 2 (bad input); on 2
exactly one stderr line ``dpcalc: error: …`` naming a parameter; never a traceback; no NaN anywhere and an
infinity only with a stated reason (a warning); no file left behind on error; at most ``DPCALC_FUZZ_CPU_SECONDS``
(default 120: twice the one-minute work cap) of CPU time per vector and no stall (`tests.support.call_limits`: CPU
time, not wall time, so a loaded machine cannot trip it).

Besides each command's own options the vectors reach: ``--scheduler`` addresses Dask cannot use or where no
scheduler answers (a closed port, ``tls://`` without settings, ``ucx://``, a server that greets with something
else, a silent one), ``--stream`` and ``--output`` targets that cannot be written (a directory, ``/dev/full``, a
missing directory, a long name), event files (JSON and TOML, valid, nested 10⁵ / 5,000 / 300 deep, over the size
cap, ``/dev/zero``, a named pipe) and the training terms (``--dataset-size --batch-size --epochs --clients
--clients-per-round --rounds --sampling --max-examples-per-user``) as consistent groups with typical and extreme
values.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import typer.main
from hypothesis import strategies as st

from dpcalc.cli import main as cli_main
from tests.support.call_limits import Slow, limits

REPO = Path(__file__).resolve().parents[2]
CPU_SECONDS_PER_VECTOR = float(os.environ.get("DPCALC_FUZZ_CPU_SECONDS", "120"))


# ------------------------------------------------------------------------------------------ discovery


@dataclass(frozen=True)
class Param:
    name: str  # python name
    opts: tuple[str, ...]
    required: bool
    kind: str  # "flag", "choice", "int", "float", "path", "str", "argument"
    choices: tuple[str, ...] = ()
    multiple: bool = False


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]
    params: tuple[Param, ...]
    examples: tuple[tuple[str, ...], ...] = ()  # the documented 'Example: dpcalc …' calls (argv after 'dpcalc')

    @property
    def id(self) -> str:
        return " ".join(self.path)


def _kind(p: Any) -> tuple[str, tuple[str, ...]]:
    if getattr(p, "is_flag", False):
        return "flag", ()
    desc = getattr(p, "type_descriptor", None)
    ann = getattr(desc, "annotation", None)
    if isinstance(ann, type):
        import enum

        if issubclass(ann, enum.Enum):
            return "choice", tuple(str(m.value) for m in ann)
        if issubclass(ann, bool):
            return "flag", ()
        if issubclass(ann, int):
            return "int", ()
        if issubclass(ann, float):
            return "float", ()
        if issubclass(ann, Path):
            return "path", ()
    return "str", ()


def commands() -> list[Command]:
    """Every leaf command of the app, with its parameters."""
    root = typer.main.get_command(cli_main.app)
    found: list[Command] = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                walk(sub, (*path, name))
            return
        params = []
        for p in cmd.params:
            kind, choices = _kind(p)
            if p.param_type_name == "argument":
                kind = "argument" if kind == "str" else kind
            params.append(Param(p.name, tuple(p.opts), bool(p.required), kind, choices, bool(p.multiple)))
        found.append(Command(path, tuple(params), _documented(cmd.help or "")))

    walk(root, ())
    return found


def _documented(help_text: str) -> tuple[tuple[str, ...], ...]:
    """The ``dpcalc …`` calls after 'Example:' in a command's help: valid vectors to start mutating from, so
    commands whose options only work in groups (``secagg rdp``'s eigenvalues + normalisation + data size) reach
    their success path too."""
    import shlex

    text = " ".join(help_text.split())
    calls = []
    for chunk in re.findall(r"Example:(.*)", text):
        for call in re.findall(r"dpcalc ([^();]+?)(?=\s{2,}|\s*\(|;|$)", chunk):
            calls.append(tuple(shlex.split(call)))
    return tuple(calls)


# ------------------------------------------------------------------------------------------ values

HOSTILE_NUMBERS = ["0", "-1", "-0.5", "1e-300", "5e-324", "1e-320", "1e300", "1e308", "1.7976931348623157e308",
                   "1e400", "-1e400", "nan", "NaN", "inf", "-inf", "", " ", "abc", "σ", "١", "0x10", "1_000",
                   "1e9", "3e8", "9007199254740993", "1e-9", "0.999999999999", "2.5", "1.1", "1,", ",1", "1,,2",
                   ",", ":", "1:", ":1", "1:2:0", "1:2:-1", "10:1", "1:1e6:1", "1:1e9", "0:1e308:1e-308", "1:2:3:4",
                   "a:b", "1e-5:1e-4:1e-6", "0.1,0.9", "1,2,3", "1;2", "1 2", "--", "-", "\x00", "é", "1e", "e5",
                   "+1", "1.", ".5", "00001", "1e-400",
                   # huge values and long lists (work that must be bounded or refused, echoes that must be short)
                   "-1e308", "1e308,1e308", ",".join(str(i) for i in range(1, 3001)), "1:3000:1", "x" * 100_000,
                   # ragged inline matrices
                   "1,2;3", "1;2,3", "1,2;3,4;5", ";", "1,2;;3,4"]

#: Figure titles matplotlib's mathtext cannot parse (``plot sweep --title``).
BAD_TITLES = ["$\\undefinedmacro$", "{" * 200, "$x^$", "$$", "$" * 7, "\\", "x" * 10_000]

TYPICAL: dict[str, list[str]] = {
    "eps": ["0.5", "1", "2", "5", "1:3", "0.5,1,2"], "delta": ["1e-5", "1e-3", "0.5", "1e-10"],
    "log_delta": ["-10", "-800", "-1"], "d": ["1", "10", "1000"], "n_clients": ["1", "10"], "N": ["1", "10"],
    "C": ["1", "2", "1,2"], "sigma": ["0.8", "1", "2", "0.5,1"], "q": ["0.01", "0.1", "1"],
    "steps": ["1", "10", "100"], "mu": ["0.25", "1", "2", "0.5,1"], "mus": ["0.5,0.5", "1", "0.5,0.5,0.7071"],
    "alpha": ["0", "0.5", "1", "0:1:0.25"], "lam": ["0.1", "0.5", "1"], "B": ["50", "10"], "D": ["500", "100"],
    "P": ["25", "1"], "t": ["1", "10", "1,300"], "T": ["300", "10", "1"], "n": ["2", "10", "101"],
    "var": ["2", "30", "1"], "cov": ["1.8", "2", "0.5", "0"], "variances": ["1,2", "1,0.5,0.25"],
    "weights": ["0.5,0.5", "0.2,0.3,0.5"], "norms": ["1,2,3", "0.5"], "c0": ["1", "0.5"], "eta": ["0.5", "0.1"],
    "orders": ["2,4,8", "2:64:1", "1.5,32"], "accountant": ["rdp", "zcdp", "analytic", "gdp-clt", "rdp-lemma1"],
    "units": ["nats", "bits"], "paper": ["000", "001", "002"], "samples": ["2000", "10000"],
    "seed": ["0", "1", "1299"], "workers": ["1"], "level": ["0.999", "0.9", "0.5"], "rtol": ["1e-6", "1e-3"],
    "number": ["1", "2", "3", "4"], "method": ["both", "dp-scaffold", "prifedsync"], "side": ["server", "client",
                                                                                               "both"],
    # plot sweep (a formula of two inputs, so that one --x with one --by or --set is a complete call), plot preset
    "formula": ["gdp.delta_from_eps"], "x": ["eps=0.5:3:0.5", "eps=1,2"], "by": ["mu=0.5,1"], "fixed": ["mu=1"],
    "fmt": ["svg", "png"], "g_new": ["0.3,0.4,0.1", "0.6,0.8", "1,0,0"],
    "name": ["001-fig5", "000-sigma-vs-eps", "002-fig4a"],
    # training terms (account, calibrate, statement): example level N, b, E and client level N, m, R
    "dataset_size": ["60000", "1000", "50000"], "batch_size": ["256", "64", "1000"], "epochs": ["1", "10", "0.5"],
    "clients": ["1000", "100"], "clients_per_round": ["10", "100"], "rounds": ["100", "10"],
    "max_examples_per_user": ["1", "5"], "sampling": ["poisson", "shuffle"],
}

TRAINING_TERMS = ("dataset_size", "batch_size", "epochs", "clients", "clients_per_round", "rounds", "sampling",
                  "max_examples_per_user")
#: Extreme training terms: huge step counts (epochs × N / b), b > N, m > N, counts past 2**53.
EXTREME_TERMS = ["0", "-1", "1", "1e12", "9007199254740993", "1e300", "0.5", "2.5", "100000000", "1e-9"]

#: Event files (``--event``), by name: valid ones first (the success path), then the hostile ones.
_GAUSSIAN = '{"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}'
GOOD_EVENTS = {
    "gaussian.json": '{"type": "gaussian", "noise_multiplier": 2}',
    "sampled.json": '{"class_name": "SelfComposedDpEvent", "count": 100, "event": {"class_name": '
                    '"PoissonSampledDpEvent", "sampling_probability": 0.01, "event": ' + _GAUSSIAN + '}}',
    "composed.toml": 'class_name = "SelfComposedDpEvent"\ncount = 3\n[event]\nclass_name = "LaplaceDpEvent"\n'
                     "noise_multiplier = 1.5\n",
}
BAD_EVENTS = {
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep.toml": "x = " + "[" * 5_000 + "]" * 5_000 + "\n",
    "selfcomposed300.json": '{"class_name": "SelfComposedDpEvent", "count": 2, "event": ' * 299 + _GAUSSIAN + "}" * 299,
    "dotted.toml": 'class_name = "GaussianDpEvent"\n[' + ".".join(["event"] * 300) + "]\nx = 1\n",
    "bad.json": "{", "empty.json": "", "list.json": "[1, 2]", "unknown.json": '{"type": "bogus"}',
    "negative.json": '{"type": "gaussian", "noise_multiplier": -1}', "bigint.json": "1" * 5000,
}


class Files:
    """Prepared input files (good and bad) in one directory, plus fresh output paths."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.paths: dict[str, str] = {}

        def text(name: str, body: str | bytes) -> None:
            p = root / name
            p.write_bytes(body.encode() if isinstance(body, str) else body)
            self.paths[name] = str(p)

        text("col.csv", "1\n2\n3\n")
        text("row.csv", "0.5,0.3,0.2\n")
        text("clients.csv", "eps,C\n1,1\n2,2\n5,4\n")
        text("matrix.csv", "2,1\n1,2\n")
        text("header.csv", "x\n")
        text("empty.csv", "")
        text("nonutf8.csv", b"\xff\xfe1,2\n")
        text("short.csv", "1,2\n3\n")
        text("nan.csv", "1,nan\n")
        text("words.txt", "hello world\n")
        text("clients_bad.csv", "eps,C\n1\n")
        text("spec.toml", 'title = "t"\n[grid]\neps = [1, 5]\n[inputs]\nd = 1000\nC = 1\nN = 10\n[[column]]\n'
                          'input = "eps"\n[[column]]\nformula = "midp.server_sigma_equal"\n')  # dpcalc table SPEC
        text("bad.toml", "[grid\n")
        text("nested.toml", "x = " + "[" * 3000 + "]" * 3000 + "\n")  # deeper than the TOML parser recurses
        text("ragged.csv", "1,2\n3\n")
        for name, arr in (("eye.npy", np.eye(2)), ("vec.npy", np.array([0.5, 0.5])), ("empty.npy", np.array([])),
                          ("complex.npy", np.array([1 + 2j, 3])), ("str.npy", np.array(["a", "b"])),
                          ("cube.npy", np.ones((2, 2, 2))), ("bool.npy", np.array([True, False]))):
            np.save(root / name, arr)
            self.paths[name] = str(root / name)
        # per-sample gradients for secagg span-check/theorem2 (K = 3 rows, D = 20 columns of norm <= 1): the
        # documented example's grads.npy, so that its success path is reached (7 of 1,000 vectors without it)
        rng = np.random.default_rng(0)
        grads = rng.normal(size=(2, 3, 20))
        grads /= np.linalg.norm(grads, axis=1, keepdims=True).max()
        np.save(root / "grads.npy", grads[0])
        self.paths["grads.npy"] = str(root / "grads.npy")
        np.save(root / "grads_users.npy", grads)
        self.paths["grads_users.npy"] = str(root / "grads_users.npy")
        (root / "corrupt.npy").write_bytes(b"\x93NUMPY\x01\x00garbage")
        self.paths["corrupt.npy"] = str(root / "corrupt.npy")
        self.paths["dir"] = str(root)
        self.paths["missing.csv"] = str(root / "missing.csv")
        self.paths["long"] = str(root / ("x" * 300 + ".csv"))
        self.paths["nodir"] = str(root / "no" / "such" / "dir.csv")
        for name, body in {**GOOD_EVENTS, **BAD_EVENTS}.items():
            text(name, body)
        with open(root / "huge.json", "w", encoding="utf-8") as fh:  # over the 16 MiB document cap, valid JSON
            fh.write('{"type": "gaussian", "noise_multiplier": 1, "pad": "' + "x" * (17 * 1024**2) + '"}')
        self.paths["huge.json"] = str(root / "huge.json")
        self.events_good = [self.paths[n] for n in GOOD_EVENTS]
        self.events_bad = [self.paths[n] for n in (*BAD_EVENTS, "huge.json")] + ["/dev/zero"]
        if hasattr(os, "mkfifo"):
            os.mkfifo(root / "pipe.json")
            self.events_bad.append(str(root / "pipe.json"))
        self.schedulers = _scheduler_addresses()

    def values(self) -> list[str]:
        return list(self.paths.values())


def _serve(greeting: bytes | None) -> int:
    """A TCP server on a free local port (a daemon thread): every connection gets ``greeting`` (None: nothing) and is
    held open — another service where a scheduler is expected."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    held = []

    def serve() -> None:
        while True:
            conn, _ = srv.accept()
            held.append(conn)
            if greeting is not None:
                conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    port: int = srv.getsockname()[1]
    return port


_KEEP: list[Any] = []


def _scheduler_addresses() -> list[str]:
    """``--scheduler`` values no Dask scheduler answers at (the tests of a live cluster: tests/sim)."""
    import socket

    # a port bound and never listened on refuses connections; kept bound for the process's life so that no other
    # program (a concurrent test suite's Dask cluster) can take it: a freed "closed" port was once reused by one
    _KEEP.append(socket.socket())
    _KEEP[-1].bind(("127.0.0.1", 0))
    closed = _KEEP[-1].getsockname()[1]
    return [f"tcp://127.0.0.1:{closed}", f"127.0.0.1:{closed}", f"tls://127.0.0.1:{closed}", "ucx://127.0.0.1:9",
            "foo://127.0.0.1:9", "tcp://127.0.0.1", "tcp://[::1", "inproc://nowhere", "", " ", "a b",
            f"tcp://127.0.0.1:{_serve(b'SSH-2.0-OpenSSH_9.6' + bytes([13, 10]))}", f"tcp://127.0.0.1:{_serve(None)}"]


def _formula_ids() -> list[str]:
    from dpcalc import catalog

    return sorted(catalog.load())


@st.composite
def value_for(draw: Any, param: Param, files: Files, out_dir: Path, hostile: bool) -> str:
    """One value for ``param``: typical (valid-looking) or, if ``hostile``, hostile numbers/lists/ranges/files."""
    typical = TYPICAL.get(param.name) or ["1", "0.5", "10"]
    if param.name in ("output", "stream"):  # files the command writes: a fresh path, never a prepared input
        if hostile and draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from([str(out_dir), "/dev/full", str(out_dir / ("x" * 300 + ".csv")),
                                         str(out_dir / "no" / "dir.csv")]))
        return str(out_dir / draw(st.sampled_from(["out.txt", "out.csv", "sub/out.txt"] if hostile else
                                                  ["out.txt", "out.csv", "out.svg"])))
    if param.name == "scheduler":
        return draw(st.sampled_from(files.schedulers))
    if param.name == "event":
        return draw(st.sampled_from(files.events_bad + files.values() if hostile else files.events_good))
    if param.name in ("dataset_size", "batch_size", "epochs", "clients", "clients_per_round", "rounds",
                      "max_examples_per_user") and hostile:
        return draw(st.sampled_from(EXTREME_TERMS))
    if param.name == "title" and hostile:
        return draw(st.sampled_from(BAD_TITLES))
    if param.kind == "choice":
        return draw(st.sampled_from(["bogus", "", "SERVER", *param.choices] if hostile else list(param.choices)))
    if param.name in ("formula_id", "ids"):
        return draw(st.sampled_from(["bogus.id", "", "midp", "../x"] if hostile else _formula_ids()))
    file_like = param.kind == "path" or param.name in ("weights", "variances", "norms", "mus", "file", "gradients",
                                                       "cov", "cov1", "cov2")
    if file_like:
        good = ([files.paths["grads.npy"], files.paths["grads_users.npy"], "0.6,0.8;0.8,-0.6"]
                if param.name == "gradients"
                else [files.paths["matrix.csv"], files.paths["eye.npy"], "2,1;1,2"]
                if param.name.startswith(("sigma_", "cov"))
                else [files.paths["clients.csv"]] if param.name == "file"
                else [files.paths["spec.toml"]] if param.name == "spec"
                else [files.paths["col.csv"], files.paths["row.csv"], files.paths["vec.npy"], *typical])
        if not hostile:
            return draw(st.sampled_from(good))
        return draw(st.one_of(st.sampled_from(files.values()), st.sampled_from(HOSTILE_NUMBERS)))
    if not hostile:
        return draw(st.sampled_from(typical))
    bad = st.sampled_from(HOSTILE_NUMBERS)
    if param.kind in ("int", "float"):
        bad = st.one_of(bad, st.integers(-10**20, 10**20).map(str), st.floats(allow_nan=True).map(repr))
    mix = st.lists(st.one_of(st.sampled_from(typical), bad), min_size=2, max_size=4).map(",".join)
    return draw(st.one_of(bad, mix))


def _mutated_example(draw: Any, command: Command, files: Files, out_dir: Path, rate: int) -> list[str]:
    """A documented example with one option's value redrawn (typical or hostile) or that option dropped; any
    ``--output`` goes to ``out_dir`` (an example never writes into the working tree)."""
    argv = [str(REPO / a) if (REPO / a).is_file() and not Path(a).is_absolute()  # e.g. a docs/ SPEC
            else files.paths.get(a, a)  # a file the example only names (grads.npy): the prepared one
            for a in draw(st.sampled_from(command.examples))]
    by_opt = {o: p for p in command.params for o in p.opts}
    spots = [i for i in range(len(command.path), len(argv) - 1)
             if argv[i] in by_opt and by_opt[argv[i]].kind != "flag"]
    for i in spots:
        if by_opt[argv[i]].name == "output":
            argv[i + 1] = draw(value_for(by_opt[argv[i]], files, out_dir, hostile=False))
    if spots:
        i = draw(st.sampled_from(spots))
        if draw(st.integers(0, 4)) == 0:
            del argv[i:i + 2]
        else:
            argv[i + 1] = draw(value_for(by_opt[argv[i]], files, out_dir, hostile=draw(st.integers(0, 99)) < rate))
    return argv


def _training_terms(draw: Any, command: Command, files: Files, out_dir: Path, rate: int, given: list[str]
                    ) -> list[str]:
    """Options describing the run in training terms: example level (N, b, E) or client level (N, m, R), with the
    sampling and (where there is one) a user-level bound; each value typical or, at ``rate`` percent, extreme."""
    by_name = {p.name: p for p in command.params}
    group = draw(st.sampled_from([("dataset_size", "batch_size", "epochs"),
                                  ("clients", "clients_per_round", "rounds")]))
    extra = [n for n in ("sampling", "max_examples_per_user") if n in by_name and draw(st.booleans())]
    argv: list[str] = []
    for name in (*group, *extra):
        p = by_name.get(name)
        if p is not None and not set(p.opts) & set(given):
            argv += [p.opts[0], draw(value_for(p, files, out_dir, hostile=draw(st.integers(0, 99)) < rate))]
    return argv


@st.composite
def argv_for(draw: Any, command: Command, files: Files, out_dir: Path) -> list[str]:
    """An argument vector for ``command``: each parameter omitted, typical or hostile; sometimes a usage error."""
    argv = list(command.path)
    rate = draw(st.sampled_from([0, 0, 5, 15, 50]))  # percent of options given hostile values in this vector
    if command.examples and draw(st.integers(0, 3)) == 0:  # 1 in 4: a documented example, one option changed
        argv = _mutated_example(draw, command, files, out_dir, rate)
    names = {p.name for p in command.params}
    # how a run is described (account, calibrate, statement): --q/--steps, training terms or an event file — one of
    # them, so that the success path is reached; "mixed" draws every option on its own (conflicts: one-line errors)
    mode = draw(st.sampled_from(["plain", "plain", "training", "event", "mixed"])) if "dataset_size" in names else ""
    skip = set() if mode in ("", "mixed") else {*TRAINING_TERMS, "event"} | (
        {"sigma", "q", "steps"} if mode == "event" else {"q", "steps"} if mode == "training" else set())
    for p in command.params if len(argv) == len(command.path) else ():
        if p.name == "help" or p.name in skip:
            continue
        if p.kind == "flag":
            # verify --all runs the whole catalog's exact checks (~18 s of CPU, the same work every time): 1 in 40
            if draw(st.integers(0, 39 if (command.id, p.name) == ("verify", "all") else 3)) == 0:
                argv.append(p.opts[0])
            continue
        present = (draw(st.integers(0, 39)) != 0 if p.required else
                   draw(st.integers(0, 9)) == 0 if p.name == "scheduler" else  # a refusal: not one vector in three
                   draw(st.integers(0, 2)) == 0)
        if not present:
            continue
        count = draw(st.integers(1, 2)) if p.multiple else 1
        for _ in range(count):
            value = draw(value_for(p, files, out_dir, hostile=draw(st.integers(0, 99)) < rate))
            if p.kind == "argument" or not p.opts or not p.opts[0].startswith("-"):
                argv.append(value)
            else:
                argv += [draw(st.sampled_from(p.opts)), value]
    if mode == "training" or (mode == "mixed" and draw(st.booleans())):  # the run in training terms, one group
        argv += _training_terms(draw, command, files, out_dir, rate, argv)
    if mode == "event" and "event" in names:
        argv += ["--event", draw(value_for(next(p for p in command.params if p.name == "event"), files, out_dir,
                                           hostile=draw(st.integers(0, 99)) < rate))]
    if "accountant" in names and "-a" not in argv and "--accountant" not in argv and draw(st.integers(0, 9)):
        argv += ["-a", draw(st.sampled_from(TYPICAL["accountant"]))]  # the all-accountant default (PLD) 1 in 10
    if "samples" in names and "--samples" not in argv:  # keep valid verify runs short (the default is 400k)
        argv += ["--samples", "2000"]
    if "workers" in names and "--workers" not in argv:
        argv += ["--workers", "1"]
    trouble = draw(st.sampled_from(range(25)))
    if trouble == 0:
        argv.insert(draw(st.integers(len(command.path), len(argv))), "--bogus-option")
    elif trouble == 1 and len(argv) > len(command.path):
        argv = argv[:-1]  # an option without its value (or a dropped value)
    elif trouble == 2:
        argv.append("extra-positional")
    elif trouble == 3:
        argv += ["--format", draw(st.sampled_from(["latex", "markdown", "csv", "json", "table", "xml"]))]
    return argv


# ------------------------------------------------------------------------------------------ running


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    out: str
    err: str
    crash: str = ""
    leaked: list[str] = field(default_factory=list)


def invoke(argv: list[str], cwd: Path | None = None) -> Outcome:
    """Run ``dpcalc *argv`` through the console entry point, in-process, capturing everything; in ``cwd`` if given
    (a figure written to its default name must not land in the working tree)."""
    out, err = io.StringIO(), io.StringIO()
    saved, saved_cwd = sys.argv, os.getcwd()
    sys.argv = ["dpcalc", *argv]
    if cwd is not None:
        os.chdir(cwd)
    code: int | None = None
    crash = ""
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with limits(CPU_SECONDS_PER_VECTOR):
                    cli_main.main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Slow as exc:
                crash = f"slow: {exc}"
            except BaseException as exc:  # a traceback the user would see
                crash = f"traceback: {type(exc).__name__}: {str(exc)[:200]}"
    finally:
        sys.argv = saved
        os.chdir(saved_cwd)
    leaked = [f"{w.category.__name__}: {w.message}" for w in caught]
    return Outcome(argv, code, out.getvalue(), err.getvalue(), crash, leaked)


TEXT_COMMANDS = {"formulas show"}  # prose (domains such as "(0, inf)"), not numeric results
#: a value printed as nan / inf: not part of a word, a number or a path (a temporary directory "tmpa4inf2ls" in a
#: --stream summary once read as inf)
_NAN = re.compile(r"(?<![\w/\\])(?<!\w\.)[-+]?nan(?![\w/\\]|\.\w)", re.IGNORECASE)
_INF = re.compile(r"(?<![\w/\\])(?<!\w\.)[-+]?(inf|infinity)(?![\w/\\]|\.\w)|\\infty", re.IGNORECASE)


def _json_nonfinite(doc: Any) -> bool:
    if isinstance(doc, float):
        return not math.isfinite(doc)
    if isinstance(doc, dict):
        return any(_json_nonfinite(v) for v in doc.values())
    if isinstance(doc, list):
        return any(_json_nonfinite(v) for v in doc)
    return False


def violations(command: Command, o: Outcome, output: Path | None, existed: bool) -> list[str]:
    """The ways outcome ``o`` breaks the contract (empty if none)."""
    found: list[str] = []
    if o.crash:
        return [o.crash]
    if o.code not in (0, 1, 2):
        found.append(f"exit code {o.code}")
    if "Traceback" in o.err:
        found.append("traceback on stderr")
    numpy_leaks = [w for w in o.leaked if w.startswith("RuntimeWarning")]
    if numpy_leaks and o.code == 0:
        found.append(f"NumPy warning leaked: {numpy_leaks[0][:120]}")
    if o.code == 2:
        lines = o.err.strip("\n").split("\n")
        no_help = o.err.startswith("Usage:")  # `dpcalc group` without a subcommand: help (not generated)
        if not no_help and (len(lines) != 1 or not lines[0].startswith("dpcalc: error: ")):
            found.append(f"exit 2 without exactly one 'dpcalc: error:' line: {o.err[:300]!r}")
        elif not no_help:
            msg = lines[0]
            names = {n for p in command.params for n in (*p.opts, p.name, p.name.replace("_", "-"))}
            generic = ("No such option", "requires an argument", "unexpected extra argument", "No such command",
                       "--", "Missing argument", "formula id")
            low = msg.lower()
            # a positional file argument (``dpcalc table SPEC``) is named by the path the user gave: "SPEC: …"
            if any(p.kind == "argument" or not p.opts[0].startswith("-") for p in command.params):
                body = msg.removeprefix("dpcalc: error: ")
                names |= {name for t in o.argv if not t.startswith("-")
                          for name in (t, Path(t).name) if body.startswith(f"{name}:")}
            if not any(n and n.lower() in low for n in names) and not any(g in msg for g in generic):
                found.append(f"error names no parameter: {msg[:200]!r}")
    text = o.out
    if output is not None and o.code == 0 and exists(output):
        try:
            text = output.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a figure (plot --format png|pdf): no text to check
            text = ""
    if o.code in (0, 1) and text and command.id not in TEXT_COMMANDS:
        warned = "warning" in o.err or '"warnings": [\n' in text
        if text.lstrip().startswith("{"):
            try:
                doc = json.loads(text)
            except ValueError as exc:
                found.append(f"invalid JSON output: {exc}")
            else:
                if _json_nonfinite(doc):
                    found.append("non-finite number in JSON")
                if doc.get("warnings"):
                    warned = True
        if _NAN.search(text):
            found.append("NaN in output")
        if _INF.search(text) and not warned:
            found.append("inf in output without a warning")
    if output is not None:
        leftovers = [p.name for p in output.parent.glob(".dpcalc-*")] if output.parent.is_dir() else []
        if leftovers:
            found.append(f"temporary file left behind: {leftovers}")
        if o.code == 2 and exists(output) and not existed:
            found.append("output file written although the command failed")
    return found


def exists(path: Path) -> bool:
    """``path.exists()``, False for a name the file system refuses (too long)."""
    try:
        return path.exists()
    except OSError:
        return False


def output_of(argv: list[str]) -> Path | None:
    for flag in ("--output", "-o"):
        if flag in argv:
            i = argv.index(flag)
            if i + 1 < len(argv):
                return Path(argv[i + 1])
    return None


def survey_command(command: Command, files: Files, root: Path, examples: int) -> dict[str, Any]:
    """Run ``examples`` vectors for one command without shrinking; tally violations by class."""
    import collections
    import shutil
    import tempfile

    from hypothesis import HealthCheck, Phase, given, settings

    from tests.support.call_limits import cpu_seconds

    tried, codes, found = 0, collections.Counter(), collections.defaultdict(list)
    t0 = cpu_seconds()

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: Any) -> None:
        nonlocal tried
        case_dir = Path(tempfile.mkdtemp(dir=root))
        argv = data.draw(argv_for(command, files, case_dir))
        output = output_of(argv)
        existed = output is not None and exists(output)
        o = invoke(argv, case_dir)
        tried += 1
        codes[o.code] += 1
        for problem in violations(command, o, output, existed):
            key = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", problem)[:90]
            found[key].append(argv)
        shutil.rmtree(case_dir, ignore_errors=True)

    run()
    return {"tried": tried, "codes": dict(codes), "cpu_seconds": round(cpu_seconds() - t0, 1),
            "found": {k: [len(v), v[0]] for k, v in found.items()}}


def survey(examples: int, only: list[str] | None = None) -> dict[str, Any]:
    """The deep run's report: ``examples`` vectors per command (or the commands in ``only``)."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="dpcalc-survey-"))
    files = Files(root / "in")
    report: dict[str, Any] = {}
    for command in commands():
        if only and command.id not in only:
            continue
        report[command.id] = survey_command(command, files, root, examples)
        print(json.dumps({command.id: report[command.id]}, default=str), flush=True)
    shutil.rmtree(root, ignore_errors=True)
    return report


if __name__ == "__main__":  # python -m tests.support.fuzz_cli 1000 [command ...]
    survey(int(sys.argv[1]), sys.argv[2:] or None)
