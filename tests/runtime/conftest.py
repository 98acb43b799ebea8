"""Shared fixtures: compile hand-written kernels with the device toolchain."""

from __future__ import annotations

from pathlib import Path

import pytest

from ttl.host import toolchain

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture
def build(tmp_path):
    """build(name_or_source, ct_args=(), name=None) -> ELF path.

    A bare name compiles tests/runtime/kernels/<name>.cc; anything containing a
    newline is kernel source written to tmp_path first.
    """
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    counter = iter(range(1_000_000))

    def _build(src: str, ct_args=(), name: str | None = None) -> Path:
        if "\n" in src:
            name = name or f"kernel{next(counter)}"
            path = tmp_path / f"{name}.cc"
            path.write_text(src)
        else:
            name = name or src
            path = KERNELS / f"{src}.cc"
        return toolchain.compile_kernel(
            path, tmp_path / f"{name}_{next(counter)}.elf", compile_time_args=ct_args
        )

    return _build
