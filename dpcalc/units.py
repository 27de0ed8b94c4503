"""Units of information and privacy loss: one type, one conversion, one default per notion.

Privacy losses and information quantities are computed in **nats** internally everywhere. A user-facing
function that accepts or returns them in another unit takes ``units: Units`` (keyword) whose default is the
default of its *notion* (`DEFAULTS`), never a per-module choice:

| notion | default | why |
|---|---|---|
| ``"dp"`` | nats | (ε, δ)-DP, RDP, zCDP, GDP: ε is a log-likelihood ratio (natural log) by definition |
| ``"mi-dp"`` | nats | He & He 2023: ε-MI-DP is stated in nats |
| ``"gaussian-mi"`` | bits | Zeng, Yang & Dai 2022 (Gaussian-prior MI): the paper's 2^{2ε} is in bits |

``to_nats(x, units)`` / ``from_nats(x, units)`` convert (bits → nats multiplies by ln 2); `check` validates
a units string with the one-line message every family and the CLI use.
"""

from __future__ import annotations

from typing import Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcalc import _validate as v
from dpcalc._numerics import LN2
from dpcalc.errors import DomainError

__all__ = ["BITS", "DEFAULTS", "LN2", "NATS", "UNITS", "Notion", "Units", "check", "default", "from_nats",
           "nats_per_unit", "to_nats"]

Units = Literal["nats", "bits"]
Notion = Literal["dp", "mi-dp", "gaussian-mi"]

#: All accepted units, in display order.
UNITS: tuple[Units, ...] = ("nats", "bits")
#: The default unit of each notion (see the module docstring).
DEFAULTS: dict[Notion, Units] = {"dp": "nats", "mi-dp": "nats", "gaussian-mi": "bits"}

NATS: Units = "nats"
BITS: Units = "bits"


def check(units: str, name: str = "units") -> Units:
    """Validate a units string (case-insensitive) and return it as `Units`; else a one-line DomainError.

    Parameters
    ----------
    units : str
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.
    name : str

    Returns
    -------
    Units

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    u = units.lower() if isinstance(units, str) else units
    if not isinstance(u, str) or u not in UNITS:  # an array: no ambiguous truth value
        raise DomainError(f"{name} must be 'nats' or 'bits' (got {v.brief(units)})")
    return cast(Units, u)


def default(notion: Notion) -> Units:
    """The default unit of a notion (``"dp"``, ``"mi-dp"``, ``"gaussian-mi"``).

    Parameters
    ----------
    notion : Notion

    Returns
    -------
    Units

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if not isinstance(notion, str) or notion not in DEFAULTS:
        raise DomainError(f"notion must be one of {', '.join(map(repr, DEFAULTS))} (got {v.brief(notion)})")
    return DEFAULTS[notion]


def nats_per_unit(units: str) -> float:
    """Nats in one ``units``: ln 2 for bits, 1 for nats (the factor ``to_nats`` multiplies by).

    Parameters
    ----------
    units : str
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return LN2 if check(units) == "bits" else 1.0


@v.named_shapes
def to_nats(x: ArrayLike, units: str) -> NDArray[np.float64]:
    """Convert an information quantity given in ``units`` to nats (bits · ln 2).

    Parameters
    ----------
    x : ArrayLike
    units : str
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    NDArray[np.float64]

    Raises
    ------
    DomainError
        An input (``x``) outside its domain; the one-line message names it and the allowed range.
    """
    return v.as_array("x", x) * nats_per_unit(units)


@v.named_shapes
def from_nats(x: ArrayLike, units: str) -> NDArray[np.float64]:
    """Convert an information quantity in nats to ``units`` (nats / ln 2 for bits).

    Parameters
    ----------
    x : ArrayLike
    units : str
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    NDArray[np.float64]

    Raises
    ------
    DomainError
        An input (``x``) outside its domain; the one-line message names it and the allowed range.
    """
    nats = v.as_array("x", x)
    with np.errstate(over="ignore"):
        out = nats / nats_per_unit(units)
    if np.any(np.isinf(out) & np.isfinite(nats)):
        raise DomainError("x is too large to express in bits (over 1.2e308 nats): it overflows float64")
    return out
