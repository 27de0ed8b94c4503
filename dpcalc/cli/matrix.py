"""``dpcalc matrix sensitivity|epsilon|calibrate|compare``: matrix-mechanism accounting — DP-FTRL tree
aggregation with or without restarts (Kairouz et al. 2021), banded and general strategies (Denisov et al. 2022;
Choquette-Choo et al. 2023). The library is `dpcalc.matrix`; this module reads the options.

A participation pattern is --participations k at least --separation b steps apart over --steps n, or the training
terms --clients --clients-per-round --rounds (cohorts cycled: b = ⌊N/n⌋, k = ⌈R/b⌉).
"""

from __future__ import annotations

from typing import Any

from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import Opt, axis, choice, integer, one, path, vector
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_DELTA_FORMULA = "matrix.delta"
_FORMULAS = ["matrix.delta", "matrix.tree_sensitivity", "matrix.banded_sensitivity"]

STRATEGY = choice("strategy", ("tree", "banded", "matrix", "identity"), formula="-", default="tree",
                  help="tree (DP-FTRL; --restart for restarts), banded (Toeplitz: --coefficients or --bands of the "
                       "prefix-sum square root), matrix (a lower-triangular C from --strategy-file), identity")
STEPS = integer("steps", formula="-", default=None, help="Steps (rounds) n")
PARTICIPATIONS = integer("participations", formula="-", default=1, help="Participations k of one user, at most")
SEPARATION = integer("separation", formula="-", default=1,
                     help="Minimum steps b between two participations (TensorFlow Privacy's min_separation + 1)")
RESTART = integer("restart", formula="-", default=None, help="Tree: restart every this many steps")
BANDS = integer("bands", formula="-", default=None, help="Banded: number of bands of the prefix-sum square root")
COEFFICIENTS = vector("coefficients", formula="-", default=None, help="Banded: the first column's coefficients")
FILE = path("strategy_file", formula="-", default=None,
            help="Matrix: a square lower-triangular strategy (.npy or a text table)")
CLIENTS = integer("clients", formula="-", default=None, help="Federated clients N (cohorts of --clients-per-round)")
PER_ROUND = integer("clients_per_round", formula="-", default=None, help="Clients n per round")
ROUNDS = integer("rounds", formula="-", default=None, help="Rounds R (the steps)")
NEIGHBOURS = Opt("neighbours", "text", formula="-", default="add-remove",
                 help="add-remove (a user's contribution moves by one clipping norm per participation), "
                      "replace-special, or replace-one (twice)")
_PATTERN = (STRATEGY, STEPS, PARTICIPATIONS, SEPARATION, RESTART, BANDS, COEFFICIENTS, FILE, CLIENTS, PER_ROUND,
            ROUNDS)


def _setup(a: Args) -> tuple[Any, Any]:
    """The strategy and participation the options describe."""
    from dpcalc.matrix import Participation, Strategy, from_training, load_strategy

    if a.clients is not None or a.clients_per_round is not None or a.rounds is not None:
        if None in (a.clients, a.clients_per_round, a.rounds):
            raise DomainError("give --clients, --clients-per-round and --rounds together")
        if a.steps is not None:
            raise DomainError("give either --steps or the training terms (--rounds are the steps), not both")
        part = from_training(a.clients, a.clients_per_round, a.rounds)
    else:
        if a.steps is None:
            raise DomainError("give --steps (or --clients, --clients-per-round and --rounds)")
        part = Participation(a.steps, a.participations, a.separation)
    n = int(part.steps)
    if a.strategy == "matrix":
        if a.strategy_file is None:
            raise DomainError("--strategy matrix needs --strategy-file")
        c = load_strategy(a.strategy_file, "strategy_file")
        if c.shape[0] != n:
            raise DomainError(f"--strategy-file has {c.shape[0]} steps but the run has {n}")
        return Strategy("matrix", n, matrix_=c), part
    if a.strategy == "banded":
        coef = None if a.coefficients is None else tuple(float(x) for x in a.coefficients)
        return Strategy("banded", n, coefficients=coef, bands=a.bands), part
    return Strategy(a.strategy, n, restart=a.restart if a.strategy == "tree" else None), part


def _relation(a: Args) -> str:
    from dpcalc.accounting.events.relation import relation

    return relation(a.neighbours)


def _sens_row(strategy: Any, part: Any) -> dict[str, Any]:
    s = strategy.sensitivity(part)
    return {"strategy": strategy.kind + (f" (restart {strategy.restart})" if strategy.restart else ""),
            "steps": part.steps, "participations": part.max_participations, "separation": part.separation,
            "sensitivity": s.value, "lower": s.lower, "exact": "exact" if s.exact else "upper bound",
            "method": s.method}


_SENS_COLUMNS = [Column("strategy", "strategy", "strategy", text=True), Column("steps", "n", "$n$", integer=True),
                 Column("participations", "k", "$k$", integer=True),
                 Column("separation", "b", "$b$", integer=True),
                 Column("sensitivity", "sensitivity", "$s$", unit="clipping norms"),
                 Column("lower", "lower end", r"$s_{\mathrm{lo}}$", unit="clipping norms"),
                 Column("exact", "kind", "kind", text=True), Column("method", "method", "method", text=True)]


@command("sensitivity", *_PATTERN, formula="matrix.tree_sensitivity", work=3.0)
def sensitivity_command(a: Args) -> Result:
    """The ℓ2 sensitivity of a strategy under a participation pattern (exact where proven, else a labelled
    bracket).

    Example: dpcalc matrix sensitivity --strategy tree --steps 24 --participations 8 --separation 3
    """
    strategy, part = _setup(a)
    return Result(columns=_SENS_COLUMNS, rows=[_sens_row(strategy, part)], title="Sensitivity of the strategy",
                  formula=_FORMULAS, note="Units of the clipping norm, add/remove (one participation moves the input "
                                          "by one clipping norm). Trees: exact dynamic program; banded with b bands "
                                          "under b-min-sep: exact; other matrices: upper bound (Choquette-Choo et "
                                          "al. 2023, Alg. 4) with the best fixed-epoch pattern as lower end.")


_EPS_COLUMNS = [Column("noise_multiplier", "z", "$z$", unit="noise std / clipping norm"),
                Column("mu", "μ", r"$\mu$"), Column("eps", "ε (nats)", r"$\epsilon$", unit="nats"),
                Column("delta", "δ", r"$\delta$")]


@command("epsilon", axis("noise_multiplier", formula="-", short="-z", help="Noise std / clipping norm on Cx"),
         one("delta", formula="-", help="Target δ"), *_PATTERN, NEIGHBOURS,
         one("sampling_prob", formula="-", default=None,
             help="Banded strategies: b-min-sep Poisson sampling at this rate within each of the b groups "
                  "(amplification, Choquette-Choo et al. 2023, NeurIPS, Thm. 4; add/remove)"),
         formula=_DELTA_FORMULA, work=3.0)
def epsilon_command(a: Args) -> Result:
    """ε of the matrix mechanism: μ-GDP with μ = sensitivity/z (exact), or the amplified banded mechanism.

    Example: dpcalc matrix epsilon -z 5 --delta 1e-5 --restart 10 --clients 1000 --clients-per-round 100 --rounds 2000
    """
    from dpcalc import matrix

    strategy, part = _setup(a)
    row = _sens_row(strategy, part)
    rel = _relation(a)
    rows = []
    for z in a.noise_multiplier:
        if a.sampling_prob is not None:
            if rel != "add_remove":
                raise DomainError("--sampling-prob (amplification) is proven for add-remove neighbours only")
            eps = matrix.amplified_epsilon(strategy.matrix(), z, a.sampling_prob, int(part.separation), a.delta)
            mu = None
        else:
            mu = float(matrix.mu(z, row["sensitivity"], rel))
            eps = float(matrix.epsilon(z, row["sensitivity"], a.delta, rel))
        rows.append({**row, "noise_multiplier": z, "mu": mu, "eps": eps, "delta": a.delta})
    note = ("μ-GDP with μ = s/z (2s/z under replace-one), exact for adaptive inputs (Denisov et al. 2022; "
            "Choquette-Choo et al. 2023, ICML); ε from the Gaussian profile." if a.sampling_prob is None else
            "Amplified banded MF: the PLD accountant's ε of ⌈n/b⌉ Poisson-subsampled Gaussian steps at noise z/max "
            "column norm (Choquette-Choo et al. 2023, NeurIPS, Thm. 4).")
    return Result(columns=[*_SENS_COLUMNS[:5], Column("exact", "sensitivity kind", "kind", text=True), *_EPS_COLUMNS],
                  rows=rows, title="ε of the matrix mechanism", formula=_FORMULAS, note=note)


@command("calibrate", one("eps", formula="-", help="Target ε (nats)"), one("delta", formula="-", help="Target δ"),
         *_PATTERN, NEIGHBOURS, formula=_DELTA_FORMULA, work=3.0)
def calibrate_command(a: Args) -> Result:
    """The noise multiplier z whose ε at δ is the target (safe side: z = s/μ(ε, δ)).

    Example: dpcalc matrix calibrate --eps 8 --delta 1e-5 --restart 10 --steps 2000 --participations 200 --separation 10
    """
    from dpcalc import matrix

    strategy, part = _setup(a)
    row = _sens_row(strategy, part)
    rel = _relation(a)
    z = float(matrix.calibrate_noise(row["sensitivity"], a.eps, a.delta, rel))
    row.update(noise_multiplier=z, mu=float(matrix.mu(z, row["sensitivity"], rel)),
               eps=float(matrix.epsilon(z, row["sensitivity"], a.delta, rel)), delta=a.delta)
    return Result(columns=[*_SENS_COLUMNS[:5], *_EPS_COLUMNS], rows=[row], title="Noise multiplier for a target ε",
                  formula=_FORMULAS, note="z is on the safe side: its ε is at most the target.")


@command("compare", axis("epochs", formula="-", sweep="1,5,20,50,100,200", help="Epochs (passes over the clients)"),
         integer("clients", formula="-", help="Federated clients N"),
         integer("clients_per_round", formula="-", help="Clients n per round"),
         one("noise_multiplier", formula="-", short="-z", help="Noise std / clipping norm (both mechanisms)"),
         one("delta", formula="-", help="Target δ"), formula=_DELTA_FORMULA, work=5.0)
def compare_command(a: Args) -> Result:
    """DP-FTRL (tree with restarts, one tree, banded) against DP-SGD with Poisson sampling of clients, epoch by
    epoch, at the same noise multiplier.

    Example: dpcalc matrix compare --epochs 1,20,200 --clients 1000 --clients-per-round 100 -z 3 --delta 1e-5
    """
    from dpcalc.matrix.training import dpsgd_epsilon_for_epochs, ftrl_epsilon_for_epochs

    rows = []
    left_out: dict[str, str] = {}  # a strategy a run is too long for: its cells empty, the reason in the note
    for e in a.epochs:
        row: dict[str, Any] = {"epochs": e}
        for name in ("tree-restart", "tree", "banded"):
            try:
                row[name.replace("-", "_")] = float(ftrl_epsilon_for_epochs(e, a.clients, a.clients_per_round,
                                                                            a.noise_multiplier, a.delta, name))
            except DomainError as exc:
                row[name.replace("-", "_")] = None
                left_out.setdefault(name, f"{name} at --epochs {e:g} (--clients/--clients-per-round rounds each): "
                                          f"{exc}")
        row["dpsgd"] = float(dpsgd_epsilon_for_epochs(e, a.clients, a.clients_per_round, a.noise_multiplier,
                                                      a.delta))
        rows.append(row)
    cols = [Column("epochs", "epochs", "$E$", integer=True),
            Column("tree_restart", "ε DP-FTRL tree, restarts", r"$\epsilon_{\mathrm{restart}}$", unit="nats"),
            Column("tree", "ε DP-FTRL one tree", r"$\epsilon_{\mathrm{tree}}$", unit="nats"),
            Column("banded", "ε banded MF (b = N/n)", r"$\epsilon_{\mathrm{band}}$", unit="nats"),
            Column("dpsgd", "ε DP-SGD (Poisson)", r"$\epsilon_{\mathrm{SGD}}$", unit="nats")]
    return Result(columns=cols, rows=rows, title="DP-FTRL against DP-SGD", formula=_FORMULAS,
                  note=f"N = {a.clients}, n = {a.clients_per_round} per round, z = {a.noise_multiplier:g}, δ = "
                       f"{a.delta:g}. DP-FTRL: cohorts cycled, one participation per epoch; DP-SGD: Poisson sampling "
                       "q = n/N every round (PLD accountant). The same z is not the same utility: DP-FTRL's noise "
                       "enters prefix sums, DP-SGD's every step."
                       + "".join(f" Not computed: {why}." for why in left_out.values()))


ENTRIES = (Group("matrix", "Matrix-mechanism accounting: DP-FTRL trees, banded and general strategies.",
                 (sensitivity_command, epsilon_command, calibrate_command, compare_command)),)
