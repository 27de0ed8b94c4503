"""dpcalc.units: one units type, one conversion, one default per notion."""

from __future__ import annotations

import math

import pytest

from dpcalc import units
from dpcalc.errors import DomainError


def test_defaults_per_notion() -> None:
    assert units.default("dp") == "nats"
    assert units.default("mi-dp") == "nats"
    assert units.default("gaussian-mi") == "bits"


def test_round_trip_and_factor() -> None:
    assert float(units.to_nats(1.0, "bits")) == math.log(2.0)
    assert float(units.from_nats(units.to_nats(3.5, "bits"), "bits")) == pytest.approx(3.5, rel=1e-16)
    assert float(units.to_nats(2.0, "nats")) == 2.0
    assert units.check("BITS") == "bits"


def test_bad_units_one_line_error() -> None:
    with pytest.raises(DomainError, match=r"^units must be 'nats' or 'bits' \(got 'hartley'\)$"):
        units.check("hartley")
