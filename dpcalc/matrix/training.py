"""Training terms for the matrix mechanism, and the comparison with DP-SGD (the figure of ε against epochs).

N clients, n per round, ``epochs`` passes: b = ⌊N/n⌋ rounds per epoch, T = epochs·b rounds. DP-FTRL cycles fixed
cohorts, so a client takes part once per epoch, b rounds apart (`dpcalc.matrix.from_training`); DP-SGD samples each
client with probability q = n/N every round (Poisson), accounted by the PLD accountant.
"""

from __future__ import annotations

from functools import partial

from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.matrix.accounting import dpsgd_epsilon, epsilon
from dpcalc.matrix.participation import from_training
from dpcalc.matrix.strategy import Strategy

__all__ = ["STRATEGIES", "banded_epsilon_for_epochs", "dpsgd_epsilon_for_epochs", "ftrl_epsilon_for_epochs",
           "restart_epsilon_for_epochs", "tree_epsilon_for_epochs"]

#: DP-FTRL variants by name: the tree restarted every epoch, one tree over all rounds, a banded Toeplitz strategy
#: (the prefix-sum square root's first b coefficients, b = rounds per epoch).
STRATEGIES: tuple[str, ...] = ("tree-restart", "tree", "banded")


def _rounds_per_epoch(clients: int, clients_per_round: int) -> int:
    big_n = int(v.scalar("clients", v.integer_at_least("clients", clients, 1)))
    n = int(v.scalar("clients_per_round", v.integer_at_least("clients_per_round", clients_per_round, 1)))
    if n > big_n:
        raise DomainError(f"clients_per_round must be <= clients ({big_n}) (got {n})")
    return big_n // n


def ftrl_epsilon_for_epochs(epochs: ArrayLike, clients: int, clients_per_round: int, noise_multiplier: float,
                            delta: float, strategy: str = "tree-restart") -> float | v.FloatArray:
    """ε at δ of DP-FTRL after ``epochs`` epochs of cycled cohorts (one participation per epoch, b = ⌊N/n⌋ rounds
    apart), noise multiplier z on every release: μ = sens/z, exact.

    Examples:
        >>> from dpcalc.matrix.training import ftrl_epsilon_for_epochs
        >>> round(ftrl_epsilon_for_epochs(200, 1000, 100, 10.0, 1e-5), 4)
        15.4562
    """
    which = v.choice("strategy", strategy, STRATEGIES, "the DP-FTRL strategy")
    b = _rounds_per_epoch(clients, clients_per_round)
    z = float(v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier)))

    def one(epochs: float) -> float:
        e = int(epochs)
        part = from_training(int(clients), int(clients_per_round), e * b)
        s = {"tree-restart": Strategy("tree", e * b, b), "tree": Strategy("tree", e * b),
             "banded": Strategy("banded", e * b, bands=b)}[which]
        return float(epsilon(z, s.sensitivity(part).value, delta))

    return v.elementwise(one, epochs=v.integer_at_least("epochs", epochs, 1))


def dpsgd_epsilon_for_epochs(epochs: ArrayLike, clients: int, clients_per_round: int, noise_multiplier: float,
                             delta: float) -> float | v.FloatArray:
    """ε at δ of DP-SGD (DP-FedAvg) with Poisson sampling of clients at q = n/N for epochs·⌊N/n⌋ rounds (the PLD
    accountant, `dpcalc.accounting.pld.epsilon`).

    Examples:
        >>> from dpcalc.matrix.training import dpsgd_epsilon_for_epochs
        >>> round(dpsgd_epsilon_for_epochs(200, 1000, 100, 1.0, 1e-5), 2)
        39.6
    """
    b = _rounds_per_epoch(clients, clients_per_round)
    q = int(clients_per_round) / int(clients)

    def one(epochs: float) -> float:
        return dpsgd_epsilon(noise_multiplier, q, int(epochs) * b, delta)

    return v.elementwise(one, epochs=v.integer_at_least("epochs", epochs, 1))


# One function per strategy, numeric inputs only (figure presets pass numbers): `ftrl_epsilon_for_epochs` with the
# strategy fixed.
restart_epsilon_for_epochs = partial(ftrl_epsilon_for_epochs, strategy="tree-restart")
tree_epsilon_for_epochs = partial(ftrl_epsilon_for_epochs, strategy="tree")
banded_epsilon_for_epochs = partial(ftrl_epsilon_for_epochs, strategy="banded")
