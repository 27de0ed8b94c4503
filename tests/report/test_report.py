"""The report layer: catalog-derived columns, meta.units a dict, the thin-command helper."""

from __future__ import annotations

import json

import pytest

from dpcalc.cli.command import callback, command
from dpcalc.cli.options import text
from dpcalc.report.columns import column, columns_for, unicode_symbol
from dpcalc.report.render import Column, Format, Result, render


@pytest.mark.parametrize(("latex", "text"), [
    (r"\epsilon", "ε"), (r"\sigma_{s,t}", "σ_s,t"), (r"\sigma^2", "σ²"), (r"\mu_{\mathrm{eff}}", "μ_eff"),
    (r"\lVert w_k^t\rVert", "‖w_k^t‖"), (r"\sum_k p_k^2", "Σ_k p_k²"), (r"\ln\delta", "ln δ"),
])
def test_unicode_symbol(latex: str, text: str) -> None:
    assert unicode_symbol(latex) == text


def test_columns_come_from_the_catalog() -> None:
    cols = columns_for("midp.server_sigma", units={"eps": "bits"})
    assert [c.key for c in cols] == ["eps", "d", "C", "p_max", "sigma"]
    eps, d, _, _, sigma = cols
    assert (eps.label, eps.latex, eps.unit) == ("ε (bits)", r"$\epsilon$ (bits)", "bits")
    assert d.integer and d.unit == "" and d.label == "d"
    assert sigma.unit == "parameter units (same as C)" and sigma.label == "σ_s (parameter units)"
    renamed = column("midp.client_sigma", "sigma", key="sigma_client", label="σ_c")
    assert (renamed.key, renamed.header) == ("sigma_client", "σ_c")
    with pytest.raises(KeyError, match="no input or output 'nope'"):
        column("midp.server_sigma", "nope")


def test_meta_units_is_always_a_dict() -> None:
    result = Result(columns=[Column("a", unit="nats"), Column("b")], rows=[{"a": 1.0, "b": 2.0}],
                    units={"c": "bits"})
    assert json.loads(render(result, Format.json))["meta"]["units"] == {"a": "nats", "c": "bits"}
    result.units = "bits"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="must be a dict"):
        render(result, Format.json)


@pytest.mark.parametrize("name", ["fmt", "json_", "output", "force"])
def test_command_rejects_an_option_named_like_an_output_option(name: str) -> None:
    def bad(a: object) -> Result:
        raise AssertionError

    with pytest.raises(TypeError, match="output options"):
        callback(command("bad", text(name, formula="-"))(bad))


def test_output_in_a_missing_directory_names_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The message quoted only the directory, not the path the caller gave (library fuzz: names no parameter)."""
    from dpcalc.errors import DomainError
    from dpcalc.files import check_output

    target = tmp_path / "no" / "such" / "dir.csv"
    with pytest.raises(DomainError) as info:
        check_output(target, True)
    assert str(info.value) == (f"--output: cannot write {str(target)!r}: directory {str(target.parent)!r} does not "
                               "exist")
