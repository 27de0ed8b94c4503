"""Figure text (matplotlib mathtext, ``$\\sigma_m^2$``) as plain Unicode text for a terminal (``σₘ²``)."""

from __future__ import annotations

import re

__all__ = ["plain_text"]

_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma "
          "tau upsilon phi chi psi omega").split()
_SYMBOLS = {**{name: chr(0x3B1 + k) for k, name in enumerate(_GREEK)}, "varepsilon": "ε", "epsilon": "ε",
            "vartheta": "ϑ", "varphi": "φ", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
            "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "times": "×", "cdot": "·", "sim": "~",
            "approx": "≈", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "infty": "∞", "to": "→", "pm": "±",
            "ln": "ln", "log": "log", "exp": "exp", "max": "max", "min": "min", "sqrt": "√", "ell": "ℓ",
            "dots": "…", "ldots": "…", "neq": "≠", ",": " ", ";": " ", "!": "", " ": " "}
_SUPER = dict(zip("0123456789+-=()*nijT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾*ⁿⁱʲᵀ", strict=True))
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_SCRIPT = re.compile(r"([_^])(\{[^{}]*\}|\\[A-Za-z]+|.)")
_COMMAND = re.compile(r"\\(?:mathrm|mathit|mathbf|text|operatorname)\{([^{}]*)\}|\\([A-Za-z]+|[,;! ])")


def _script(m: re.Match[str]) -> str:
    kind, body = m.group(1), m.group(2).strip("{}")
    table = _SUPER if kind == "^" else _SUB
    if all(ch in table for ch in body) and (kind == "^" or len(body) == 1 or body.isdigit()):
        return "".join(table[ch] for ch in body)
    return f"{kind}{body}" if len(body) == 1 or body.isalnum() else f"{kind}({body})"


def plain_text(text: str) -> str:
    """``text`` with its ``$…$`` math written in Unicode: Greek letters, ×, ≤, super- and subscripts
    (``$\\sigma_m^2 \\sim U(0, 1)$`` → ``σₘ² ~ U(0, 1)``; ``$10^{-5}$`` → ``10⁻⁵``); text outside math unchanged."""
    def math(m: re.Match[str]) -> str:
        s = _COMMAND.sub(lambda c: c.group(1) if c.group(1) is not None else _SYMBOLS.get(c.group(2), c.group(2)),
                         m.group(1))
        s = _SCRIPT.sub(_script, s)
        return s.replace("{", "").replace("}", "")

    return re.sub(r"\$([^$]*)\$", math, text)
