"""``grid="auto"`` (the target's full grid, as tt-lang-sim 1.1.6) and ``ttl.TILE_SHAPE``."""

from __future__ import annotations

import re

import pytest

import ttl
from ttl.compiler.evaluate import parse_grid
from ttl.targets import TARGETS

SOURCE = """
import ttl


@ttl.operation(grid=GRID)
def op(a, y):
    rows = a.shape[0] // ttl.TILE_SHAPE[0]
    cols = a.shape[1] // ttl.TILE_SHAPE[1]
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows * cols):
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for c in range(cols):
                with a_dfb.reserve() as blk:
                    ttl.copy(a[r, c], blk).wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for c in range(cols):
                with y_dfb.wait() as blk:
                    ttl.copy(blk, y[r, c]).wait()
"""

# TILE_SHAPE folds to 32 in kernels: the C++ loops over 2 x 3 tiles.
SPECS = {"a": "bf16[64,96]", "y": "bf16[64,96]"}


def test_tile_shape_is_32_by_32():
    assert ttl.TILE_SHAPE == (32, 32)


@pytest.mark.parametrize("spelling", ["auto", "AUTO", "full"])
def test_auto_is_the_full_grid(spelling):
    assert parse_grid(spelling) == "full"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_auto_grid_operation_compiles_on_the_full_grid(compile_source, target):
    result = compile_source(SOURCE.replace("GRID", '"auto"'), "op", SPECS, target=target)
    full = compile_source(SOURCE.replace("GRID", '"full"'), "op", SPECS, target=target)
    x, y = TARGETS[target].full_grid
    assert result.manifest["grid"] == full.manifest["grid"] == {"x": x, "y": y}
    assert _unnamed(result.sources) == _unnamed(full.sources)


def _unnamed(sources: dict[str, str]) -> dict[str, str]:
    """The C++ without the source file's name (each compile writes its own file)."""
    return {name: re.sub(r"prog\d+\.py", "prog.py", text) for name, text in sources.items()}


def test_an_unknown_grid_word_is_a_located_error(compile_error):
    err = compile_error(SOURCE.replace("(grid=GRID)", '(grid="everything")  # ERROR'), "op", SPECS)
    assert "cannot parse grid 'everything'" in err.message
