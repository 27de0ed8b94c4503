"""The event model and its reader: dp-accounting's to_named_tuple() form, the short spelling, duck-typed objects,
round trips, one-line errors."""

from __future__ import annotations

import json
import math

import pytest

from dpcalc.accounting import events as ev
from dpcalc.errors import DomainError

dpa = pytest.importorskip("dp_accounting")
de = dpa.dp_event


def _peer_events() -> list[object]:
    g = de.GaussianDpEvent(1.0)
    return [de.NoOpDpEvent(), de.NonPrivateDpEvent(), de.UnsupportedDpEvent(), de.RandomizedResponseDpEvent(0.5, 4),
            g, de.LaplaceDpEvent(1.0), de.DiscreteLaplaceDpEvent(0.5, 2),
            de.ComposedDpEvent([g, de.LaplaceDpEvent(2.0)]), de.SelfComposedDpEvent(g, 3),
            de.PoissonSampledDpEvent(0.01, g), de.SampledWithReplacementDpEvent(100, 10, g),
            de.SampledWithoutReplacementDpEvent(100, 10, g), de.SingleEpochTreeAggregationDpEvent(1.0, [3, 4]),
            de.SingleEpochTreeAggregationDpEvent(1.0, 7), de.RepeatAndSelectDpEvent(g, 3.0, math.inf),
            de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), de.ZCDpEvent(0.1, 0.2),
            de.TruncatedSubsampledGaussianDpEvent(100, 0.1, 20, 1.0)]


def test_every_peer_class_is_read() -> None:
    import inspect

    peer = {n for n, c in inspect.getmembers(de, inspect.isclass) if issubclass(c, de.DpEvent) and c is not de.DpEvent}
    assert peer <= set(ev.EVENT_CLASSES)
    assert {type(e).__name__ for e in _peer_events()} == peer


@pytest.mark.parametrize("peer", _peer_events(), ids=lambda e: type(e).__name__)
def test_duck_typed_named_tuple_and_json_round_trip(peer: object) -> None:
    event = ev.as_event(peer)
    assert event.CLASS_NAME == type(peer).__name__
    assert ev.as_event(peer.to_named_tuple()) == event  # type: ignore[attr-defined]
    again = ev.from_dict(json.loads(json.dumps(ev.to_dict(event))))
    assert again == event
    # and back into dp-accounting: the dictionary is its named-tuple form
    assert _to_peer(ev.to_dict(event)) == peer


def _to_peer(d: object) -> object:
    if isinstance(d, dict):
        cls = getattr(de, d["class_name"])
        kw = {k: _to_peer(v) for k, v in d.items() if k != "class_name"}
        if "shape" in kw and kw["shape"] == "inf":
            kw["shape"] = math.inf
        return cls(**kw)
    if isinstance(d, list):
        return [_to_peer(x) for x in d]
    return d


def test_issue_example_and_short_spelling() -> None:
    long = {"class_name": "SelfComposedDpEvent", "count": 1000, "module_name": "dp_accounting.dp_event",
            "event": {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
                      "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}}
    short = {"type": "self_composed", "count": 1000,
             "event": {"type": "PoissonSampled", "sampling_probability": 0.01,
                       "event": {"type": "gaussian", "noise_multiplier": 1}}}
    want = ev.SelfComposed(ev.PoissonSampled(0.01, ev.Gaussian(1.0)), 1000)
    assert ev.from_dict(long) == ev.from_dict(short) == want
    assert isinstance(want.event, ev.PoissonSampled) and want.event.sampling_probability == 0.01


@pytest.mark.parametrize(("data", "message"), [
    ({"class_name": "GaussianDpEvent", "noise_multiplier": -1}, "noise_multiplier must be a finite number > 0"),
    ({"class_name": "FooDpEvent"}, "unknown event class 'FooDpEvent'; dpcalc reads"),
    ({"class_name": "GaussianDpEvent"}, "GaussianDpEvent needs noise_multiplier"),
    ({"class_name": "GaussianDpEvent", "noise": 1}, "has no field 'noise'"),
    ({"type": "poisson_sampled", "sampling_probability": 1.5, "event": {"type": "gaussian", "noise_multiplier": 1}},
     "sampling_probability must be"),
    ({"type": "poisson_sampled", "sampling_probability": 0.1, "event": {"type": "gaussian", "noise_multiplier": "x"}},
     "event.event: GaussianDpEvent.noise_multiplier must be a number"),
    ({"type": "sampled_without_replacement", "source_dataset_size": 10, "sample_size": 11,
      "event": {"type": "gaussian", "noise_multiplier": 1}}, "sample_size must be <= source_dataset_size"),
    ({"type": "mixture_of_gaussians", "standard_deviation": 1, "sensitivities": [1], "sampling_probs": [0.5]},
     "must sum to 1"),
    ({"type": "composed", "events": [1]}, "events[0]"),
    ([1, 2], "event must be"),
])
def test_bad_input_is_one_line(data: object, message: str) -> None:
    with pytest.raises(DomainError, match=None) as info:
        ev.as_event(data)
    text = str(info.value)
    assert message in text and "\n" not in text


def test_events_are_immutable_and_hashable() -> None:
    e = ev.Composed([ev.Gaussian(1.0), ev.Laplace(2.0)])  # type: ignore[arg-type]
    assert isinstance(e.events, tuple)
    with pytest.raises(AttributeError):
        e.events = ()  # type: ignore[misc]
    assert hash(e) == hash(ev.Composed((ev.Gaussian(1.0), ev.Laplace(2.0))))


@pytest.mark.parametrize(("name", "want"), [("add-remove", "add_remove"), ("ADD_OR_REMOVE_ONE", "add_remove"),
                                            ("replace-one", "replace_one"), ("REPLACE_SPECIAL", "replace_special")])
def test_relation_spellings(name: str, want: str) -> None:
    assert ev.relation(name) == want


def test_relation_enum_and_bad() -> None:
    from dp_accounting import privacy_accountant

    assert ev.relation(privacy_accountant.NeighboringRelation.REPLACE_ONE) == "replace_one"
    with pytest.raises(DomainError, match="neighbours must be one of"):
        ev.relation("swap")


def test_load_json_and_toml(tmp_path: object) -> None:
    from pathlib import Path

    p = Path(str(tmp_path))
    (p / "e.json").write_text(json.dumps({"type": "gaussian", "noise_multiplier": 2}))
    (p / "e.toml").write_text('class_name = "SelfComposedDpEvent"\ncount = 3\n[event]\nclass_name = "LaplaceDpEvent"\n'
                              "noise_multiplier = 1.5\n")
    assert ev.load(p / "e.json") == ev.Gaussian(2.0)
    assert ev.load(p / "e.toml") == ev.SelfComposed(ev.Laplace(1.5), 3)
    (p / "bad.json").write_text("{")
    with pytest.raises(DomainError, match="not valid JSON"):
        ev.load(p / "bad.json")
