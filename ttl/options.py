"""``ttl.CompilerOptions``: code-generation options, spelled as TT-Lang's ``--ttl-*`` flags.

An operation takes them as ``@ttl.operation(options="--no-ttl-maximize-dst")``
(a flag string or a :class:`CompilerOptions`); a JIT run also reads the
``TTLANG_COMPILER_OPTIONS`` environment variable and the program's own command
line, and a call may pass ``options=`` for that call. Later sources override
earlier ones field by field (:meth:`CompilerOptions.merge`): decorator, then
environment, then command line, then the call.

Only the options this compiler honours are accepted; every other flag, including
tt-lang flags that select transformations ttl-bazel does not have, is an error
that names the flags it knows (docs/language.md, "Compiler options").
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

ENV_VAR = "TTLANG_COMPILER_OPTIONS"


class OptionsError(ValueError):
    """A flag string that does not parse; the message says which token and what to write."""


@dataclasses.dataclass(frozen=True)
class _Flag:
    field: str
    flag: str  # without --/--no-
    help: str
    boolean: bool = True


_FLAGS = (
    _Flag(
        "maximize_dst",
        "ttl-maximize-dst",
        "fill DST with as many tiles per acquire/commit section as fit (default); "
        "--no-ttl-maximize-dst syncs after every tile",
    ),
    _Flag(
        "enable_fpu_binary_ops",
        "ttl-fpu-binary-ops",
        "use the FPU form of + - * (add_tiles, ...) when both operands are DFB tiles "
        "(default); --no-ttl-fpu-binary-ops copies them to DST and uses the SFPU form",
    ),
    _Flag(
        "compiler_dfbs",
        "ttl-compiler-dfbs",
        "let the compiler add DFBs for expression operands of @, reduce, broadcast and "
        "transpose (default); --no-ttl-compiler-dfbs makes that an error",
    ),
    _Flag(
        "l1_budget",
        "ttl-l1-budget",
        "L1 bytes per node the operation's DFBs may use (default: the target's L1 size)",
        boolean=False,
    ),
)


@dataclasses.dataclass(frozen=True)
class CompilerOptions:
    """Code-generation options of one compilation (frozen: usable in cache keys).

    ``_explicit`` records which fields a flag string set, so :meth:`merge` lets
    only those override; it takes no part in equality.
    """

    maximize_dst: bool = True
    enable_fpu_binary_ops: bool = True
    compiler_dfbs: bool = True
    l1_budget: int | None = None
    _explicit: frozenset[str] = dataclasses.field(
        default=frozenset(), compare=False, hash=False, repr=False
    )

    def __post_init__(self) -> None:
        for f in _FLAGS:
            value = getattr(self, f.field)
            if f.boolean and not isinstance(value, bool):
                raise OptionsError(
                    f"CompilerOptions.{f.field} must be True or False, not {value!r}"
                )
        budget = self.l1_budget
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0
        ):
            raise OptionsError(
                f"CompilerOptions.l1_budget must be a positive number of bytes, not {budget!r}"
            )

    @staticmethod
    def from_string(text: str | None) -> CompilerOptions:
        """Parses a flag string such as ``"--no-ttl-maximize-dst --ttl-l1-budget 65536"``.

        Later flags override earlier ones; an unknown flag raises :class:`OptionsError`.
        """
        values = _parse(text.split() if text else [], strict=True)
        return CompilerOptions(**values, _explicit=frozenset(values))

    @staticmethod
    def from_argv(argv: list[str]) -> CompilerOptions:
        """The ``--ttl-*`` flags among a program's arguments (others are the program's)."""
        values = _parse(argv, strict=False)
        return CompilerOptions(**values, _explicit=frozenset(values))

    @staticmethod
    def coerce(value: Any, what: str) -> CompilerOptions:
        """``value`` (None, a flag string or CompilerOptions) as CompilerOptions."""
        if value is None:
            return CompilerOptions()
        if isinstance(value, CompilerOptions):
            return value
        if isinstance(value, str):
            try:
                return CompilerOptions.from_string(value)
            except OptionsError as e:
                raise OptionsError(f"{what}: {e}") from None
        raise OptionsError(
            f"{what} must be a flag string or ttl.CompilerOptions, not {type(value).__name__}"
        )

    def merge(self, overrides: CompilerOptions) -> CompilerOptions:
        """A copy where the fields ``overrides`` set explicitly win."""
        values = {f.field: getattr(self, f.field) for f in _FLAGS}
        values.update({name: getattr(overrides, name) for name in overrides._explicit})
        return CompilerOptions(**values, _explicit=self._explicit | overrides._explicit)

    def to_string(self) -> str:
        """The canonical flag string of the fields that differ from the defaults ('' if none)."""
        default = CompilerOptions()
        out = []
        for f in _FLAGS:
            value = getattr(self, f.field)
            if value == getattr(default, f.field):
                continue
            if f.boolean:
                out.append(f"--{f.flag}" if value else f"--no-{f.flag}")
            else:
                out.append(f"--{f.flag} {value}")
        return " ".join(out)

    @staticmethod
    def usage() -> str:
        """One line per option: its flag and what it does."""
        lines = []
        for f in _FLAGS:
            spelled = f"--[no-]{f.flag}" if f.boolean else f"--{f.flag} N"
            lines.append(f"  {spelled:28} {f.help}")
        return "TT-Lang compiler options (ttl-bazel):\n" + "\n".join(lines)


_BY_FLAG = {f.flag: f for f in _FLAGS}


def _parse(tokens: list[str], *, strict: bool) -> dict[str, Any]:
    """Field values of the ``--ttl-*`` flags in ``tokens``; ``strict`` rejects other tokens.

    Hand-written rather than argparse: a program's argv also holds its own
    arguments, and an unknown ``--ttl-*`` flag there must still be an error.
    """
    values: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        name, eq, inline = token.partition("=")
        negated = name.startswith("--no-")
        bare = name[5:] if negated else name[2:] if name.startswith("--") else None
        flag = _BY_FLAG.get(bare) if bare is not None else None
        if flag is None:
            if strict or (bare or "").startswith("ttl-"):
                raise OptionsError(_unknown(token))
            continue
        if flag.boolean:
            if eq:
                raise OptionsError(f"{name} takes no value: write {name} or --no-{flag.flag}")
            values[flag.field] = not negated
            continue
        if negated:
            raise OptionsError(f"--no-{flag.flag} is not an option: write --{flag.flag} N")
        if not eq:
            if i >= len(tokens):
                raise OptionsError(f"{name} needs a value: write {name} N")
            inline = tokens[i]
            i += 1
        try:
            values[flag.field] = int(inline, 0)
        except ValueError:
            raise OptionsError(f"{name} {inline!r}: write a whole number of bytes") from None
    return values


# tt-lang flags for transformations ttl-bazel does not have: named as such in the error.
_UPSTREAM_ONLY = (
    "ttl-accumulation-strategy",
    "ttl-block-matmul",
    "ttl-subblock-sync",
    "ttl-combine-pack-tiles",
    "ttl-strict-f32-acc",
    "ttl-reuse-user-dfbs",
    "ttl-pipe-computed-addresses",
    "ttl-pipe-capacity-sync",
    "ttl-pipe-batch-tiles",
    "ttl-specialize-cores",
    "ttl-auto-sync",
)


def _unknown(token: str) -> str:
    name = token.partition("=")[0]
    honoured = ", ".join(f"--[no-]{f.flag}" if f.boolean else f"--{f.flag} N" for f in _FLAGS)
    bare = name.removeprefix("--no-").removeprefix("--")
    if bare in _UPSTREAM_ONLY:
        return (
            f"compiler option {token!r} selects a tt-lang transformation that ttl-bazel does "
            f"not have; remove it (ttl-bazel honours: {honoured})"
        )
    known = [f"--{f.flag}" for f in _FLAGS] + [f"--no-{f.flag}" for f in _FLAGS if f.boolean]
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"unknown compiler option {token!r}{hint}; ttl-bazel honours: {honoured}"


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the ``--ttl-*`` flags with their values, the other arguments) of ``argv``: a
    launcher (``ttl run``) takes the former and gives the program the latter."""
    ours: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        name, eq, _ = token.partition("=")
        bare = name.removeprefix("--no-").removeprefix("--")
        if not name.startswith("--") or not bare.startswith("ttl-"):
            rest.append(token)
            continue
        ours.append(token)
        flag = _BY_FLAG.get(bare)
        if flag is not None and not flag.boolean and not eq and i < len(argv):
            ours.append(argv[i])  # the flag's value
            i += 1
    return ours, rest


def help_requested(argv: list[str]) -> bool:
    """True if ``argv`` asks for the option list (``--ttl-help``)."""
    return "--ttl-help" in argv


__all__ = ["ENV_VAR", "CompilerOptions", "OptionsError", "help_requested", "split_argv"]
