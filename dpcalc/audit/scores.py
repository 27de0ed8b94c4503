"""ε lower bounds from an attack's scores: the threshold test "score ≥ t ⇒ in" at the best threshold, with the
price of choosing it stated.

Choosing the threshold that maximises the bound on the same data makes the Clopper–Pearson confidence optimistic
(a multiple-testing problem). Three ways (``method``):

* ``split`` (default, rigorous): a seeded, stratified random half of the trials chooses the threshold, the other
  half is counted (`dpcalc.audit.counts`) at that one threshold: the confidence holds as stated;
* ``bonferroni``: every distinct threshold of the data at confidence 1 − (1 − c)/K (K thresholds) and the best
  kept — the union bound over K tests; the thresholds come from the data, so this is the usual practice
  (Nasr et al. 2021; jax_privacy's auditor) rather than a theorem;
* ``best``: the best threshold at the stated confidence, with no correction — optimistic, reported as such.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._validate import FloatArray
from dpcalc.audit.binomial import check_confidence
from dpcalc.audit.counts import _ends, _eps_from_rates
from dpcalc.errors import DomainError

__all__ = ["METHODS", "ScoresAudit", "audit_scores", "read_scores", "roc_counts"]

METHODS = ("split", "bonferroni", "best")


@short_repr
@dataclass(frozen=True)
class ScoresAudit:
    """The best threshold's ε lower bound, its counts, and how the threshold was chosen (``method``, ``caveat``)."""

    eps_lower: float
    confidence: float
    delta: float
    method: str
    threshold: float
    tp: int
    positives: int
    fp: int
    negatives: int
    thresholds_tested: int
    caveat: str


def _checked(scores: ArrayLike, labels: ArrayLike) -> tuple[FloatArray, FloatArray]:
    s = v.as_array("scores", scores).ravel()
    lab = v.as_array("labels", labels).ravel()
    if s.size != lab.size:
        raise DomainError(f"scores and labels must have the same length (got {s.size} and {lab.size})")
    if not np.all((lab == 0.0) | (lab == 1.0)):
        raise DomainError("labels must be 1 (the target was in) or 0 (out)")
    n_in = int(lab.sum())
    if n_in == 0 or n_in == lab.size:
        which = "0 (out)" if n_in == lab.size else "1 (in)"
        raise DomainError(f"labels must contain both classes, 1 (in) and 0 (out): no trial is labelled {which}")
    return s, lab


def roc_counts(scores: ArrayLike, labels: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(thresholds, tp, fp) of the test "score ≥ t" at every distinct score t, plus +inf (nothing flagged)."""
    s, lab = _checked(scores, labels)
    t = np.append(np.unique(s), np.inf)
    s_in, s_out = np.sort(s[lab == 1.0]), np.sort(s[lab == 0.0])
    tp = s_in.size - np.searchsorted(s_in, t, side="left")
    fp = s_out.size - np.searchsorted(s_out, t, side="left")
    return t, tp.astype(np.float64), fp.astype(np.float64)


def _best(t: FloatArray, tp: FloatArray, fp: FloatArray, n_in: int, n_out: int, confidence: float,
          delta: float) -> tuple[int, float]:
    lo, hi = _ends(tp, n_in, fp, n_out, confidence)
    eps = _eps_from_rates(lo, hi, delta)
    i = int(np.argmax(eps))
    return i, float(eps[i])


def audit_scores(scores: ArrayLike, labels: ArrayLike, *, confidence: float = 0.95, delta: float = 0.0,
                 method: str = "split", seed: int = 0) -> ScoresAudit:
    """ε lower bound of the threshold attack on (score, label) trials (label 1: the target was in).

    Examples:
        >>> import numpy as np
        >>> from dpcalc.audit import audit_scores
        >>> rng = np.random.default_rng(1)
        >>> labels = np.repeat([1, 0], 5000)
        >>> scores = rng.normal(2.0 * labels, 1.0)   # a 2-GDP attack
        >>> r = audit_scores(scores, labels, delta=1e-5)
        >>> r.method, round(r.eps_lower, 2)
        ('split', 3.68)
    """
    c = check_confidence(confidence)
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    m = v.choice("method", method, METHODS)
    s, lab = _checked(scores, labels)
    if m == "split":
        rng = np.random.default_rng(v.seed("seed", seed))
        pick = np.zeros(s.size, dtype=bool)
        for cls in (0.0, 1.0):  # stratified: half of each class chooses the threshold
            idx = np.flatnonzero(lab == cls)
            pick[rng.permutation(idx)[: idx.size // 2]] = True
        if not (np.any(lab[pick] == 1.0) and np.any(lab[pick] == 0.0) and np.any(lab[~pick] == 1.0)
                and np.any(lab[~pick] == 0.0)):
            raise DomainError("method 'split' needs at least two trials of each class; use 'bonferroni'")
        t, tp, fp = roc_counts(s[pick], lab[pick])
        i, _ = _best(t, tp, fp, int(lab[pick].sum()), int((lab[pick] == 0).sum()), c, d)
        thr = float(t[i])
        hs, hl = s[~pick], lab[~pick]
        n_in, n_out = int(hl.sum()), int((hl == 0).sum())
        tp_h, fp_h = int(np.sum((hs >= thr) & (hl == 1))), int(np.sum((hs >= thr) & (hl == 0)))
        lo, hi = _ends(tp_h, n_in, fp_h, n_out, c)
        eps = float(_eps_from_rates(np.atleast_1d(lo), np.atleast_1d(hi), d)[0])
        return ScoresAudit(eps, c, d, m, thr, tp_h, n_in, fp_h, n_out, 1,
                           "threshold chosen on a random half, counted on the other half: the confidence holds")
    t, tp, fp = roc_counts(s, lab)
    n_in, n_out = int(lab.sum()), int((lab == 0).sum())
    k = t.size
    level = 1.0 - (1.0 - c) / k if m == "bonferroni" else c
    i, eps = _best(t, tp, fp, n_in, n_out, level, d)
    caveat = (f"best of {k} thresholds, each at confidence 1 − (1 − {c:g})/{k} (Bonferroni; the thresholds come "
              "from the data)" if m == "bonferroni" else
              f"best of {k} thresholds with no correction: the {c:g} confidence is optimistic (multiple testing)")
    return ScoresAudit(eps, c, d, m, float(t[i]), int(tp[i]), n_in, int(fp[i]), n_out, k, caveat)


def read_scores(path: str | Path) -> tuple[FloatArray, FloatArray]:
    """(scores, labels) from a CSV file with a header naming the columns ``score`` and ``label`` (label 1: the target
    was in, 0: out); other columns are ignored. One line names the first bad row."""
    p = Path(path)
    try:
        with p.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            fields = [f.strip().lower() for f in (reader.fieldnames or [])]
            if "score" not in fields or "label" not in fields:
                raise DomainError(f"{p}: the CSV header must name the columns score and label (got "
                                  f"{', '.join(fields) or 'no header'})")
            key = {f.strip().lower(): f for f in reader.fieldnames or []}
            scores, labels = [], []
            for row_no, row in enumerate(reader, start=2):
                try:
                    sc, lb = float(row[key["score"]]), float(row[key["label"]])
                except (TypeError, ValueError):
                    raise DomainError(f"{p}, line {row_no}: score and label must be numbers (got "
                                      f"{row.get(key['score'])!r}, {row.get(key['label'])!r})") from None
                if not math.isfinite(sc):
                    raise DomainError(f"{p}, line {row_no}: score must be a finite number (got {sc})")
                scores.append(sc)
                labels.append(lb)
    except OSError as exc:
        raise DomainError(f"{p}: cannot read the scores file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise DomainError(f"{p}: not a UTF-8 text (CSV) file") from None
    if not scores:
        raise DomainError(f"{p}: no rows after the header")
    return np.array(scores), np.array(labels)
