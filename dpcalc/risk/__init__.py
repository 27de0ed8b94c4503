"""From ε to what an attacker can do, and back: f-DP trade-off curves with certified bounds, operational risk
(membership-inference TPR at an FPR, advantage, Bayes success) and calibration to it.

* `dpcalc.risk.profile` — the certified privacy profile δ(ε) of a composition of PLD privacy losses, per orientation;
* `dpcalc.risk.duality` — β(α) from δ(ε) brackets (Dong, Roth & Su 2022, Prop. 2.12), both ends certified;
* `dpcalc.risk.curve` — the trade-off-curve interface; `gaussian` (exact G_μ), `approx` (the (ε, δ) curve,
  weaker), `pld_curve` (any composition: certified band);
* `dpcalc.risk.attack` — TPR at FPR, advantage, Bayes success, and the operational sentence;
* `dpcalc.risk.calibrate` — noise multiplier or steps for a risk target (Kulynych et al. 2024).

Input everywhere: a list of ``(dpcalc.accounting.pld.PrivacyLoss, count)`` components (DP-SGD:
``[(pld.poisson(pld.gaussian(z), q), T)]``, or `dpcalc.risk.calibrate.dpsgd_components`).
"""

from __future__ import annotations

from dpcalc.risk.approx import ApproxDpCurve
from dpcalc.risk.attack import (
    DEFAULT_FPRS,
    AttackRisk,
    advantage,
    attack_risk,
    bayes_success,
    membership_sentence,
    tpr_at,
)
from dpcalc.risk.calibrate import Calibration, dpsgd_components, dpsgd_curve, noise_for_risk, steps_for_risk
from dpcalc.risk.curve import TradeOffCurve
from dpcalc.risk.gaussian import GaussianCurve
from dpcalc.risk.pld_curve import PldCurve, tradeoff_curve

__all__ = ["DEFAULT_FPRS", "ApproxDpCurve", "AttackRisk", "Calibration", "GaussianCurve", "PldCurve",
           "TradeOffCurve", "advantage", "approx_dp_curve", "attack_risk", "bayes_success", "dpsgd_components",
           "dpsgd_curve", "gaussian_curve", "membership_sentence", "noise_for_risk", "steps_for_risk", "tpr_at",
           "tradeoff_curve"]


def gaussian_curve(mu: float) -> GaussianCurve:
    """G_μ, the exact curve of a μ-GDP mechanism."""
    from dpcalc import _validate as v

    return GaussianCurve(v.scalar("mu", v.nonnegative("mu", mu)))


def approx_dp_curve(eps: float, delta: float) -> ApproxDpCurve:
    """f_{ε,δ}, the curve of the (ε, δ)-DP guarantee alone (weaker than a mechanism's own)."""
    from dpcalc import _validate as v

    return ApproxDpCurve(v.scalar("eps", v.check_range("eps", eps, 0.0, 700.0)),
                         v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
