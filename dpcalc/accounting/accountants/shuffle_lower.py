"""The shuffle lower bound (``shuffle-lower``): a certified lower bound on ε(δ) of DP-SGD on shuffled fixed-size
batches (each epoch reshuffled, the N mod b left over unused), from one pair of neighbouring datasets seen through the
binned maximum of the batch sums and the PLD accountant's lower end (Chua et al. 2024;
`dpcalc.accounting.samplers.shuffle`). Its answers are ``lower``: the true ε of the shuffled run is at least this;
never a guarantee.
"""

from __future__ import annotations

from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult

__all__ = ["ShuffleLower"]

_NEEDS = "needs DP-SGD on shuffled fixed-size batches (a training run with sampling shuffle)"


@register
class ShuffleLower(Accountant):
    name = "shuffle-lower"
    kind = "lower"
    quiet = True
    description = "certified lower bound for shuffled batches (Chua et al. 2024)"
    reference = "Chua et al. 2024, 'How private are DP-SGD implementations?'"

    def supports(self, event: Event, relation: Relation) -> str | None:
        if event.shuffled_batches() is None:
            return f"shuffle-lower {_NEEDS}"
        if relation == "replace_one":
            return "shuffle-lower bounds shuffled batches under add-remove or replace-special"
        return None

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting.samplers.shuffle import epsilon_lower

        run = event.shuffled_batches()
        if run is None:
            raise NotAccountable(f"shuffle-lower cannot account {event.CLASS_NAME}: it {_NEEDS}")
        z, n, b, epochs = run
        low = epsilon_lower(z, n, b, epochs, delta, relation)
        return self.result(event, relation, low.eps_lower, delta=delta, lower=low.eps_lower,
                           details={"pair": list(low.pair), "num_steps": low.num_steps},
                           notes=("shuffle-lower is a lower bound: the shuffled run's true ε is at least this (one "
                                  f"pair of datasets, MoG({low.pair[0]:g}) against MoG({low.pair[1]:g}), seen "
                                  "through the largest batch sum)",))
