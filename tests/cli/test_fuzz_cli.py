"""Fuzz every ``dpcalc`` command through the console entry point and hold the bad-input contract.

Budget: ``DPCALC_FUZZ_EXAMPLES`` vectors per command (default 12, about a minute in all on two cores); a deep
run is ``DPCALC_FUZZ_EXAMPLES=1000 python -m pytest -n 2 tests/cli/test_fuzz_cli.py``. The default run is
derandomized (the same vectors every time); set ``DPCALC_FUZZ_RANDOM=1`` for fresh ones.
``DPCALC_FUZZ_CPU_SECONDS`` (default 120) is the CPU time a single vector may take — CPU, not wall time, so that a
loaded machine cannot trip it (it did: ``test_contract_holds[verify]`` hit a 60 s wall limit under ``-n 2``);
``DPCALC_FUZZ_SHRINK=1`` shrinks a failing vector to a minimal one (off by default: each rerun of a slow vector
costs its full time). Contract: see ``tests/support/fuzz_cli.py``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.fuzz_cli import Files, argv_for, commands, exists, invoke, output_of, violations

EXAMPLES = int(os.environ.get("DPCALC_FUZZ_EXAMPLES", "12"))
RANDOM = os.environ.get("DPCALC_FUZZ_RANDOM", "") == "1"
SHRINK = os.environ.get("DPCALC_FUZZ_SHRINK", "") == "1"  # minimal reproducers, at the cost of many reruns
COMMANDS = commands()

_files_root = Path(tempfile.mkdtemp(prefix="dpcalc-fuzz-"))
FILES = Files(_files_root / "in")


def test_every_command_is_discovered() -> None:
    ids = {c.id for c in COMMANDS}
    assert {"sigma", "account", "calibrate", "verify", "gdp eps", "cuag audit", "formulas show"} <= ids


@pytest.mark.parametrize("command", COMMANDS, ids=[c.id for c in COMMANDS])
def test_contract_holds(command: object) -> None:
    out_root = Path(tempfile.mkdtemp(prefix="out-", dir=_files_root))

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not RANDOM,
              suppress_health_check=list(HealthCheck),
              phases=[Phase.explicit, Phase.generate, *([Phase.shrink] if SHRINK else [])])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        case_dir = Path(tempfile.mkdtemp(dir=out_root))
        argv = data.draw(argv_for(command, FILES, case_dir), label="argv")  # type: ignore[arg-type]
        output = output_of(argv)
        existed = output is not None and exists(output)
        outcome = invoke(argv, case_dir)
        problems = violations(command, outcome, output, existed)  # type: ignore[arg-type]
        shutil.rmtree(case_dir, ignore_errors=True)
        assert not problems, f"dpcalc {' '.join(map(repr, argv))}: {problems}; stderr={outcome.err[:300]!r}"

    check()


# Vectors the deep runs found (each a class fixed at its root); they run on every suite run.
REGRESSIONS: list[list[str]] = [
    ["nbafl", "bound", "--eps", "1,0.5,5e-324", "--C", "5e-324", "--c-scale", "10", "--theta", "5e-324", "--format",
     "markdown"],  # the row's reason said "NaN" and listed 13 inputs as "of shape (1, …, 1)"
    ["matrix", "compare", "--clients", "100", "--clients-per-round", "10", "-z", "10", "--delta", "1e-5", "--epochs",
     "1,1000"],  # one strategy too long for 1,000 epochs refused the whole table, naming no option (found with
    # --clients 1000 and the default epochs, whose dense strategies take half a minute to build)
    ["statement", "--noise-multiplier", "-0.5", "--delta", "1e-3", "--q", "0.01", "--steps", "1", "-a", "gdp-clt"],
    # named TrainingRunDpEvent.noise_multiplier, not --noise-multiplier
    ["audit", "one-run", "--canaries", "10", "--guesses", "1", "--correct", "1", "--delta", "1e-5", "--stream",
     "out.csv"],  # "a sweep needs at least one value per option (got sizes [])"
    ["cuag", "uplink", "--model", "0.5"],  # the error named the library's layer_sizes, not --model
    ["gdp", "clt", "--q", "0.01", "-z", "-1,1.1", "--steps", "10"],  # named sigma, not --noise-multiplier
    ["secagg", "divergence", "--dmu", "10", "--lam1", "10", "--lam2", "1", "--json"],  # JSON inf without reason
    ["cuag", "uplink", "--rounds", "0.5"],  # named the library's T, not --rounds
    ["gauss", "figure", "4", "--seed", "-2679"],  # traceback: SeedSequence's ValueError
    ["account", "-z", "1,5e-324,1", "--q", "0.1", "--steps", "1", "--delta", "1e-10", "-a", "rdp"],  # ZeroDivision
    ["cuag", "matrix", "--layer-size", "1.7976931348623157e308,0.5,10,1"],  # OverflowError allocating the blocks
    ["nbafl", "accounting", "--eps", "1e-300", "--delta", "0.5", "--data-size", "1"],  # PLD's OverflowError
    ["table", ""],  # named ".", not the SPEC argument
    # minutes of swapping: the K scan over 3e8 clients is capped before allocating
    ["nbafl", "optimal-k", "--eps", "1,1:3", "--n", "3e8", "--c-scale", "1", "--pl", "0.5", "--lipschitz", "0.5"],
    ["nbafl", "optimal-t", "--eps", "1", "--t-max", "1000000000"],  # 8 GB scan: capped before allocating
    ["nbafl", "accounting", "--eps", "1:1e6:1", "--data-size", "1"],  # hours: a million accountant comparisons
    ["nbafl", "accounting", "--eps", "1:3", "--C", "1.7976931348623157e308", "--json"],  # inf sigma_U, NaN saved
    ["table", "\x00"],  # a NUL byte in SPEC: ValueError traceback from pathlib
    # over a minute: a 9e6-row sweep (the work estimate counts writing the rows), a 3,000-value list of a (Σ a²),
    # a million layer norms (the list's values counted)
    ["cuag", "sigma", "--mu", "0.25", "--lam", "0.1", "--B", "10", "--data-size", "500", "--P", "1:3000:1", "--t",
     "1:3000:1"],
    ["cuag", "coherence", "--rate", "1", "--a", ",".join(str(i) for i in range(1, 3001))],
    ["cuag", "coherence", "--a", "1.7976931348623157e308"],  # OverflowError: a² in the work estimate
    ["table", ",".join(str(i) for i in range(1, 400))],  # OSError: file name too long, from Path.is_dir
    ["cuag", "rates", "--layer-norms", "0,1:1e6:1"],
    ["eval", "nbafl.c_constant", "--as-published", "--json"],  # the error named no option
    # an empty --scheduler was taken as "no scheduler", and the simulation's estimate (29 s) missed the noise draws
    # and per-round work (it said 2 s); refused in one line now
    ["nbafl", "simulate", "--data-size", "1", "--dim", "1000", "--delta", "1e-5", "--prox-mu", "0.5", "--non-iid",
     "0.5", "--scheduler", "", "--theta", "0.5", "--workers", "1"],
    ["nbafl", "bound", "--eps", "1:3", "--scheduler", " "],
]
_BY_ID = {c.id: c for c in COMMANDS}


@pytest.mark.parametrize("argv", REGRESSIONS, ids=[" ".join(a) for a in REGRESSIONS])
def test_regression_vectors(argv: list[str]) -> None:
    command = next(_BY_ID[" ".join(argv[:n])] for n in (2, 1) if " ".join(argv[:n]) in _BY_ID)
    output = output_of(argv)
    existed = output is not None and exists(output)
    outcome = invoke(argv, Path(tempfile.mkdtemp(dir=_files_root)))
    problems = violations(command, outcome, output, existed)
    assert not problems, f"dpcalc {' '.join(map(repr, argv))}: {problems}; stderr={outcome.err[:300]!r}"
