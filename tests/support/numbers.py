"""Comparing printed numbers across platforms: the last digits of an FFT-composed value (the PLD's bracket ends, a
calibration on them) vary with the NumPy build (numpy 2.4.6 moved ε of 1,000 Poisson-subsampled Gaussian steps by
2.7e-10 relative), so recorded outputs with many digits are compared to `REL` in their long numbers; every other
token, and every number printed with fewer than `LONG` significant digits, must match exactly."""

from __future__ import annotations

import re

REL = 1e-8
LONG = 9  # significant digits from which a printed number is compared to REL
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def significant_digits(token: str) -> int:
    mantissa = re.split(r"[eE]", token.lstrip("+-"))[0].replace(".", "").lstrip("0")
    return len(mantissa)


def same_number(shown: str, real: str, rel: float = REL) -> bool:
    """Equal as written, or both long (>= `LONG` significant digits) and within ``rel`` of each other."""
    if shown == real:
        return True
    try:
        a, b = float(shown), float(real)
    except ValueError:
        return False
    if a == b:
        return True
    if min(significant_digits(shown), significant_digits(real)) < LONG:
        return False
    return abs(a - b) <= rel * max(abs(a), abs(b))


def same_text(want: str, got: str, rel: float = REL) -> bool:
    """``want`` and ``got`` equal up to whitespace, their long numbers compared to ``rel`` (`same_number`)."""
    wt, gt = want.split(), got.split()
    if len(wt) != len(gt):
        return False
    for w, g in zip(wt, gt, strict=True):
        if w == g:
            continue
        wn, gn = _NUMBER.split(w), _NUMBER.split(g)
        if wn != gn:  # the text around the numbers differs
            return False
        if not all(same_number(x, y, rel) for x, y in zip(_NUMBER.findall(w), _NUMBER.findall(g), strict=True)):
            return False
    return True
