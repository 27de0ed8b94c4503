"""The tests' one-accountant call: `dpcalc.epsilon` with the accountant named (RDP unless said otherwise) and the
relation given, returning the `PrivacyResult`."""

from __future__ import annotations

from typing import Any

import dpcalc
from dpcalc.accounting.result import PrivacyResult


def account(event: Any, *, delta: float, accountant: str = "rdp", neighbours: Any = "add_remove",
            **options: Any) -> PrivacyResult:
    """``event``'s result under one accountant (`dpcalc.epsilon`)."""
    return dpcalc.epsilon(event, delta=delta, accountant=accountant, neighbours=neighbours, **options)
