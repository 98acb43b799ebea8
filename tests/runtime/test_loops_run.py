"""Loops whose termination the compiler decides: counter-driven while loops run."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ttl.compiler.driver import load_operation
from ttl.host import jit
from ttl.runtime import Device
from ttl.runtime.errors import RunawayKernelError

COUNTER_LOOP = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, y):
    rows = a.shape[0] // 32
    cols = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        n = 0
        while n < rows * cols:
            with a_dfb.reserve() as blk:
                ttl.copy(a[n // cols, n % cols], blk).wait()
            n = n + 1

    @ttl.datamovement()
    def write():
        n = rows * cols
        while n > 0:
            n = n - 1
            with a_dfb.wait() as blk:
                ttl.copy(blk, y[(rows * cols - 1 - n) // cols, (rows * cols - 1 - n) % cols]).wait()
"""


def test_counter_driven_while_loops_run(tmp_path):
    """`n = 0; while n < rows * cols: ...; n = n + 1` is a loop, not 'never ends'."""
    path = tmp_path / "counter_loop.py"
    path.write_text(COUNTER_LOOP)
    op = load_operation(str(path), "op")
    a = np.random.default_rng(0).standard_normal((64, 96)).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(a)
    jit.run_operation(op, a, y)
    np.testing.assert_array_equal(y, a)


SPIN = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a):
    @ttl.datamovement()
    def spin():
        n = 0
        while n < 1:
            n = n * 1
"""


def test_a_side_effect_free_endless_loop_is_kept_and_reported(tmp_path):
    """C++ may assume such a loop ends and delete it (-O2); -fno-finite-loops keeps it,
    so the run stops as a runaway instead of finishing silently."""
    path = tmp_path / "spin.py"
    path.write_text(SPIN)
    op = load_operation(str(path), "op")
    a = np.zeros((32, 32), ml_dtypes.bfloat16)
    device = Device("wormhole_b0", (1, 1), instruction_budget=200_000)
    with pytest.raises(RunawayKernelError, match="spin"):
        jit.run_operation(op, a, device=device)
