"""Memoised high-precision values of the catalog's SymPy forms (``Formula.evaluate_mp``), kept in ``tests/data``.

Evaluating a SymPy form symbolically at 50 digits costs up to a second a point (``Max``/``Sum`` simplification
before the numbers go in); the same seeded points are evaluated on every run. A value is a pure function of the
form's text (or the published form's), its input kinds, the point and the precision, so it is memoised under a
SHA-256 of exactly those: a changed form, point or precision is a different key and is evaluated afresh (and the
file keeps only the current form's values). One JSON file per entry, ``tests/data/mp_reference/<id>.json``,
written atomically (two test workers writing the same file lose at most an entry, recomputed next time).

The value is stored with 10 guard digits beyond ``dps`` and returned as an ``mpmath.mpf`` at that precision.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mpmath

from dpcalc.catalog import Formula

DATA = Path(__file__).resolve().parents[1] / "data" / "mp_reference"
GUARD = 10


def _form_key(formula: Formula, published: bool, dps: int) -> str:
    text = formula.erratum.published_sympy if published and formula.erratum else formula.sympy
    kinds = ",".join(f"{i.name}:{i.kind}" for i in formula.inputs)
    return hashlib.sha256(f"{text}|{kinds}|{formula.length}|{dps}|{published}".encode()).hexdigest()[:16]


def _point_key(values: Mapping[str, Any]) -> str:
    def exact(x: Any) -> Any:
        if isinstance(x, list | tuple):
            return [exact(e) for e in x]
        return float(x).hex()

    return json.dumps({k: exact(values[k]) for k in sorted(values)}, sort_keys=True)


def _load(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError):
        return {}


def _store(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)


def evaluate_mp(formula: Formula, values: Mapping[str, Any], dps: int = 50, published: bool = False) -> Any:
    """``formula.evaluate_mp(values, dps, published)``, memoised in ``tests/data/mp_reference``."""
    path = DATA / f"{formula.id}.json"
    form = _form_key(formula, published, dps)
    point = _point_key(values)
    cached = _load(path).get(form, {}).get(point)
    if cached is None:
        with mpmath.workdps(dps + GUARD):
            cached = mpmath.nstr(formula.evaluate_mp(values, dps=dps, published=published), dps + GUARD,
                                 strip_zeros=False)
        data = _load(path)  # re-read: another worker may have written meanwhile
        current = {_form_key(formula, pub, d) for pub in (False, True) for d in (30, 40, 50)}
        data = {k: v for k, v in data.items() if k in current}  # a changed form's old values go
        data[form] = {**data.get(form, {}), point: cached}
        _store(path, data)
    with mpmath.workdps(dps + GUARD):
        return mpmath.mpf(cached)
