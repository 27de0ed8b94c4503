"""The event accountant's verify recipes: every events entry passes at the default settings, and each recipe fails
when its closed form is off by 5 % either way (400 000 samples, 99.9 % intervals for the Monte Carlo recipes, whose
intervals are 0.3–1.7 % relative at the check points; the exact recipes' tolerances are 1e-9 or the one-sided
[exact, exact·(1 + 1e-3)] of a certified upper end)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc import verify as V
from dpcalc.checks import events_mc
from tests.support.cli_runner import run

EVENTS = [f for f in catalog.load().values() if f.paper.family == "events"]
IDS = [f.id for f in EVENTS]


def test_events_entries_cover_every_mechanism_sampling_and_composition() -> None:
    """One entry per new mechanism, sampling scheme and composition of the event accountant."""
    assert {"events.discrete_laplace_rdp", "events.discrete_laplace_delta", "events.discrete_gaussian_rdp",
            "events.randomized_response_delta", "events.mixture_of_gaussians_delta", "events.zcdp_rdp",
            "events.optimal_composition_delta", "events.laplace_delta", "events.laplace_rdp", "events.pure_dp_rdp",
            "events.poisson_laplace_rdp", "events.poisson_laplace_delta", "events.without_replacement_gaussian_rdp",
            "events.without_replacement_gaussian_delta", "events.with_replacement_gaussian_delta",
            "events.tree_aggregation_delta", "events.repeat_and_select_rdp",
            "events.truncated_gaussian_delta", "events.approx_dp_composed_delta",
            "events.discrete_gaussian_delta"} <= set(IDS)


def test_every_events_entry_passes_at_the_defaults() -> None:
    rows = V.verify(EVENTS)
    assert [(r.id, r.verdict, r.detail) for r in rows if r.verdict != "pass"] == []
    methods = {r.id: r.method for r in rows}
    assert sum(m == "monte-carlo" for m in methods.values()) == 6


def _scaled(real: Callable[..., Any], factor: float) -> Callable[..., Any]:
    def wrong(self: catalog.Formula, published: bool = False) -> Callable[..., Any]:
        fn = real(self, published)
        return lambda *a, **k: np.asarray(fn(*a, **k), dtype=np.float64) * factor

    return wrong


@pytest.mark.parametrize("factor", [0.95, 1.05])
@pytest.mark.parametrize("fid", IDS)
def test_five_per_cent_off_is_flagged(monkeypatch: pytest.MonkeyPatch, fid: str, factor: float) -> None:
    monkeypatch.setattr(catalog.Formula, "function", _scaled(catalog.Formula.function, factor))
    row = V.run_check(catalog.get(fid))
    assert row.verdict == "fail", row


@pytest.mark.parametrize("steps", [1, 2, 3, 4, 7, 8, 10, 1023, 1024, 4095])
def test_tree_node_count_by_enumeration(steps: int) -> None:
    """The Monte Carlo recipe counts the worst leaf's completed nodes itself: ⌈log₂(T + 1)⌉."""
    assert events_mc.tree_nodes(steps) == int(np.ceil(np.log2(steps + 1)))


def test_cli_paper_events_selects_every_events_entry() -> None:
    """``dpcalc verify --paper events`` runs the family's entries (one paper id or a family name selects)."""
    code, out, _ = run("verify", "--paper", "events", "--json", "--samples", "20000")
    doc = json.loads(out)
    assert code == 0 and [r["id"] for r in doc["rows"]] == IDS
    assert all(r["verdict"] == "pass" for r in doc["rows"])
    code, out, _ = run("verify", "--paper", "events_zhu2022", "--json", "--samples", "20000")
    assert code == 0 and len(json.loads(out)["rows"]) == 4
    code, _, err = run("verify", "--paper", "no_such_paper")
    assert code == 2 and "families:" in err and "events" in err and len(err.strip().splitlines()) == 1
