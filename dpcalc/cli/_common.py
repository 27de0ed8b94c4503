"""What every command shares: output options, error handling (exit 2, one line), warning capture.

A command declares only its own inputs and returns a :class:`~dpcalc.report.render.Result`; :func:`command`
registers it with the shared output options (``--format/-f``, ``--json``, ``--output/-o``, ``--force``),
turns input errors into one stderr line and exit code 2, and collects the warnings raised while it runs::

    @command(midp_app, "leakage")
    def leakage_command(sigma: SigmaOpt, d: DOpt = "1") -> Result:
        \"""Help text; Example: dpcalc midp leakage --sigma 0.3154 --d 1000\"""
        axes = grid({"sigma": parse_values("--sigma", sigma), "d": parse_values("--d", d)})
        out = {"eps": midp.server_leakage(axes["sigma"], axes["d"])}
        return Result(columns_for("midp.server_leakage", ["sigma", "d", "eps"]), flatten(axes, out),
                      formula="midp.server_leakage")

See docs/conventions.md ("How to add a command").
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import typing
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from dpcalc.errors import DpcalcError
from dpcalc.files import check_output
from dpcalc.report.render import Format, Result, emit

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_VERIFY_FAILED, EXIT_BAD_INPUT = 0, 1, 2

FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Shorthand for --format json.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE (atomically).",
                                                  dir_okay=False)]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")]
UnitsOpt = Annotated[str, typer.Option("--units", help="Information units of ε: nats or bits.")]
NoiseMultiplierOpt = Annotated[str, typer.Option(
    "--noise-multiplier", "-z", help="Noise multiplier z = noise std / L2 sensitivity (DP-SGD), > 0 (value, list "
                                     "a,b or range a:b:step).")]
AsPublishedOpt = Annotated[bool, typer.Option("--as-published",
                                              help="Also show the paper's published (erroneous) form.")]


def pick_format(fmt: Format, json_flag: bool) -> Format:
    """``--json`` wins over ``--format``."""
    return Format.json if json_flag else fmt


def fail(message: str) -> typer.Exit:
    """Print one line to stderr and return the Exit(2) to raise."""
    print(f"dpcalc: error: {message}", file=sys.stderr)
    return typer.Exit(EXIT_BAD_INPUT)


#: Library parameter names that a command's option spells differently: option keyword -> (library name, gloss, a
#: word that shows the message already speaks of the option). A library message naming the parameter gets the gloss
#: appended, so the user sees which option it means.
_LIBRARY_NAMES = {"noise_multiplier": ("sigma", "the noise multiplier, --noise-multiplier/-z", "noise")}


def _with_option_names(message: str, kwargs: dict[str, Any]) -> str:
    """``message`` with "(sigma: the noise multiplier, --noise-multiplier/-z)" appended where a library parameter
    it names is an option of another name in this command (and the message does not already say so)."""
    for option, (name, gloss, said) in _LIBRARY_NAMES.items():
        if option in kwargs and re.search(rf"\b{name}\b", message) and said not in message:
            message += f" ({name}: {gloss})"
    return message


def handle_errors(func: F) -> F:
    """Turn dpcalc input errors (``ValueError`` subclasses) into one stderr line and exit code 2.

    A command's ``--output`` is checked first (exists without ``--force``, a directory, a missing directory,
    a name too long), so a bad target fails at once instead of after the computation.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            if kwargs.get("output") is not None:  # "exists", directory, name length: before any computation
                check_output(Path(kwargs["output"]), bool(kwargs.get("force")))
            return func(*args, **kwargs)
        except DpcalcError as exc:
            raise fail(_with_option_names(str(exc), kwargs)) from None
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            raise fail(f"{exc.strerror}: {exc.filename}") from None

    return wrapper  # type: ignore[return-value]


@contextmanager
def capture_warnings() -> Iterator[list[str]]:
    """Collect the messages of warnings raised inside (deduplicated, in order)."""
    collected: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield collected
    for w in caught:
        msg = str(w.message)
        if msg not in collected:
            collected.append(msg)


def check_units(units: str) -> typing.Literal["nats", "bits"]:
    """Validate a --units value."""
    u = units.lower()
    if u == "nats":
        return "nats"
    if u == "bits":
        return "bits"
    raise fail(f"--units must be 'nats' or 'bits' (got {units!r})")


_OUTPUT_PARAMETERS = (
    inspect.Parameter("fmt", inspect.Parameter.KEYWORD_ONLY, default=Format.table, annotation=FormatOpt),
    inspect.Parameter("json_", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=JsonOpt),
    inspect.Parameter("output", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=OutputOpt),
    inspect.Parameter("force", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=ForceOpt),
)
OUTPUT_OPTIONS = tuple(p.name for p in _OUTPUT_PARAMETERS)


def output_command(func: Callable[..., Result]) -> Callable[..., None]:
    """Wrap a function returning a :class:`Result` into a Typer callback with the shared output options.

    The callback's signature is ``func``'s own parameters followed by ``--format/-f``, ``--json``,
    ``--output/-o`` and ``--force``; it captures warnings (listed before the result's own), renders the result,
    exits with ``result.exit_code`` when it is not 0, and maps dpcalc input errors to one line on stderr and exit
    code 2. A command whose rows depend on the format (e.g. ``verify``: more columns in JSON/CSV) declares a
    keyword ``output_format: Format``; it receives the chosen format and is not a command-line option.
    """
    hints = typing.get_type_hints(func, include_extras=True)
    signature = inspect.signature(func).parameters
    wants_format = "output_format" in signature
    own = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.values()
           if p.name != "output_format"]
    clash = {p.name for p in own} & set(OUTPUT_OPTIONS)
    if clash:
        raise TypeError(f"{func.__qualname__}: parameters {sorted(clash)} are the shared output options")
    params = [*own, *_OUTPUT_PARAMETERS]

    @functools.wraps(func)
    def callback(**kwargs: Any) -> None:
        fmt, json_flag, output, force = (kwargs.pop(name) for name in OUTPUT_OPTIONS)
        chosen = pick_format(fmt, json_flag)
        with capture_warnings() as warns:
            result = func(**kwargs, **({"output_format": chosen} if wants_format else {}))
        result.warnings = [*warns, *(w for w in result.warnings if w not in warns)]
        emit(result, chosen, output, force)
        if result.exit_code:
            raise typer.Exit(result.exit_code)

    del callback.__wrapped__  # Typer reads the signature below, not func's
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__annotations__ = {p.name: p.annotation for p in params}
    return handle_errors(callback)


def command(app: typer.Typer, name: str | None = None, **kwargs: Any) -> Callable[[Callable[..., Result]], Any]:
    """Decorator: register ``func`` (returning a :class:`Result`) as command ``name`` of ``app``.

    See :func:`output_command`; ``kwargs`` go to ``app.command`` (e.g. ``help``).
    """

    def decorator(func: Callable[..., Result]) -> Callable[..., Result]:
        app.command(name, **kwargs)(output_command(func))
        return func

    return decorator
