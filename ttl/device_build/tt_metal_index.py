"""Which TT-Metal kernel API header declares each function, for build errors.

A kernel or an external header that calls a TT-Metal function the emulator
does not implement fails to compile with "'name' was not declared": this
module turns that into what to do. ``tt_metal_api_index.json`` next to it maps
every function of the pinned release's ``hw/inc/api`` headers to the headers
declaring it; it is generated from the pinned headers
(``python -m ttl.device_build.tt_metal_index``) and a test checks it is
current. Standard library only, as the rest of :mod:`ttl.device_build`.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

INDEX_FILE = Path(__file__).with_name("tt_metal_api_index.json")

# A function declared at the start of a line (top level: statements are indented), as
# TT-Metal's API headers write them: specifiers, a return type, the name.
_DEFINITION = re.compile(
    r"^(?:template\s*<[^;{]*?>\s*)?(?:\[\[[^\]]*\]\]\s*)?"
    r"(?:(?:ALWI|FORCE_INLINE|inline|constexpr|static)\s+)*"
    r"(?!(?:return|else|case|goto|typedef|using|namespace|struct|class|enum)\b)"
    r"(?:[A-Za-z_][\w:<>,*&]*\s+)+?\**&?([a-z_][a-z0-9_]*)\s*\(",
    re.MULTILINE,
)
_UNDECLARED = re.compile(
    r"^(?P<where>[^:\n]+:\d+):(?:\d+:)? error: (?:'(?P<a>\w+)' was not declared in this scope"
    r"|there are no arguments to '(?P<b>\w+)' that depend on a template parameter)",
    re.MULTILINE,
)
_DATA_MOVEMENT_DIRS = ("api/dataflow/", "api/tensor/")


def build_index(inc: Path) -> dict[str, list[str]]:
    """Function name -> the API headers (relative to ``hw/inc``) that define it."""
    index: dict[str, set[str]] = {}
    api = inc / "api"
    for path in sorted([*api.rglob("*.h"), *api.rglob("*.hpp")]):
        rel = path.relative_to(inc).as_posix()
        if "/experimental/" in rel:
            continue
        for match in _DEFINITION.finditer(path.read_text(encoding="utf-8", errors="replace")):
            if not match.group(1).startswith("_"):  # internals and __attribute__
                index.setdefault(match.group(1), set()).add(rel)
    return {name: sorted(headers) for name, headers in sorted(index.items())}


@functools.lru_cache(maxsize=1)
def _load() -> tuple[str, dict[str, list[str]]]:
    """The committed index's TT-Metal version and functions (none if the file is missing:
    errors then explain less)."""
    try:
        data = json.loads(INDEX_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "?", {}
    return str(data.get("version", "?")), dict(data.get("functions", {}))


def load_index() -> dict[str, list[str]]:
    """Function name -> the TT-Metal API headers that define it, from the committed index."""
    return _load()[1]


def explain_undeclared(
    output: str, *, compute: bool, emulator_headers: Iterable[Path] = ()
) -> list[str]:
    """One note per undeclared TT-Metal function in compiler ``output``.

    ``compute``: the kernel is a compute kernel. ``emulator_headers``: the
    emulator's device headers, to tell a missing ``#include`` from a function
    the emulator does not implement.
    """
    version, index = _load()
    emulator_text = "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in emulator_headers
    )
    notes, seen = [], set()
    for match in _UNDECLARED.finditer(output):
        name = match.group("a") or match.group("b")
        if name in seen:
            continue
        seen.add(name)
        headers = index.get(name)
        where = match.group("where")
        if not headers:
            if index:  # a header written for another release, or a misspelling
                notes.append(
                    f"{where}: `{name}` is not a function of TT-Metal {version}'s kernel API "
                    "(the release this toolchain pins, ttl/device_build/tt_metal.json): port "
                    "the code to that release's API"
                )
            continue
        if compute and all(h.startswith(_DATA_MOVEMENT_DIRS) for h in headers):
            notes.append(
                f"{where}: `{name}` is TT-Metal's data-movement API ({headers[0]}): a "
                "compute kernel (TRISC) cannot call it; move the call into a data-movement "
                "kernel (kernel=ttl.KernelKind.DATA_MOVEMENT)"
            )
        elif re.search(rf"\b{re.escape(name)}\b", emulator_text):
            include = f'#include "{headers[0]}"'
            notes.append(f"{where}: `{name}` is declared in TT-Metal's {headers[0]}: {include}")
        else:
            notes.append(
                f"{where}: `{name}` is TT-Metal {version}'s ({' and '.join(headers)}), but "
                "the emulator does not implement it (docs/tt-metal.md lists what it does)"
            )
    return notes


def main(argv: Sequence[str] | None = None) -> int:
    """Writes the index from the pinned headers (downloading them if needed)."""
    from ttl.device_build import tt_metal

    del argv
    root = tt_metal.headers()
    data = {"version": tt_metal.pin().version, "functions": build_index(root / "hw" / "inc")}
    INDEX_FILE.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{INDEX_FILE}: {len(data['functions'])} functions of TT-Metal {data['version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
