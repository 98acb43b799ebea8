"""Semaphores, group transfers and per-node top-level values, run on the emulator.

The spec's barrier examples (examples/spec) must give the same data under
every schedule: forced quanta interleave the nodes' harts, and the same
programs with the barrier wait removed then read stale data, so the data
proves that the barrier orders the nodes. A barrier that is never released
is a DeadlockError naming the node, kernel, semaphore, its value and the line.
"""

from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest
from rt_bundle import ROOT, load_example

from ttl.compiler.driver import load_operation
from ttl.host import jit
from ttl.runtime import Device
from ttl.runtime.errors import DeadlockError
from ttl.specs import TensorSpec

BARRIERS = {
    "barrier_one_to_many": "                my_barrier.wait_eq(1)\n",
    "barrier_many_to_one": "            my_barrier.wait_eq(non_0_node_count)\n",
}


def _inputs(mod) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [TensorSpec.of(s).shape for s in mod.SPECS.values()]
    return [rng.uniform(-1, 1, s).astype(np.float32).astype(ml_dtypes.bfloat16) for s in shapes]


def _matches(mod, op, quantum: int | None) -> bool:
    arrays = _inputs(mod)
    n = len(inspect.signature(mod.reference).parameters)
    want = mod.reference(*[a.astype(np.float32) for a in arrays[:n]])
    want = want if isinstance(want, tuple) else (want,)
    jit.run_operation(op, *arrays, device=Device("wormhole_b0", mod.GRID, quantum=quantum))
    return all(
        np.array_equal(got.astype(np.float32), ref)
        for got, ref in zip(arrays[n:], want, strict=True)
    )


@pytest.mark.parametrize("name", sorted(BARRIERS))
def test_barrier_holds_under_interleaving_and_without_it_data_is_stale(name, tmp_path):
    path = ROOT / "examples" / "spec" / f"{name}.py"
    mod = load_example(path, "barrier")
    op = getattr(mod, mod.OPERATION)
    for quantum in (None, 7, 50):
        assert _matches(mod, op, quantum), f"quantum {quantum}"
    source = path.read_text()
    assert BARRIERS[name] in source
    broken = tmp_path / f"{name}_without_barrier.py"
    broken.write_text(source.replace(BARRIERS[name], BARRIERS[name].split("my_")[0] + "pass\n"))
    broken_mod = load_example(broken, "broken")
    broken_op = getattr(broken_mod, broken_mod.OPERATION)
    assert not all(_matches(broken_mod, broken_op, q) for q in (None, 7, 50))


SYNC = """\
import ttl


@ttl.operation(grid=(4, 1))
def op(x, y, z):
    node_num = ttl.node(dims=1)
    src = min(node_num + 1, 3)  # per node: 1, 2, 3, 3 (not affine: a table)
    go = ttl.Semaphore()
    done = ttl.Semaphore(5)
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        done.wait_ge(5)  # the initial value
        with dfb.reserve() as blk:
            if node_num == 0:
                ttl.copy(x[0, 0], blk).wait()
                ttl.copy(blk, y[0, 0]).wait()
                go.get_remote_multicast((slice(1, 4), 0)).set(1)
                done.wait_ge(7)
                ttl.copy(y[0, 3], blk).wait()
                ttl.copy(blk, y[0, 4]).wait()
            else:
                go.wait_eq(1)
                ttl.copy(y[0, 0], blk).wait()
                ttl.copy(blk, y[0, node_num]).wait()
                if node_num == 3:
                    done.get_remote((0, 0)).set(7)
        with dfb.reserve() as blk:
            gxf = ttl.GroupTransfer()
            gxf.add(ttl.copy(x[0, src], blk))
            gxf.wait_all()
            ttl.copy(blk, z[0, node_num]).wait()
"""


def test_multicast_range_remote_set_wait_ge_and_per_node_table(tmp_path):
    path = tmp_path / "sync.py"
    path.write_text(SYNC)
    op = load_operation(str(path), "op")
    result = op.compile({"x": "bf16[32,128]", "y": "bf16[32,160]", "z": "bf16[32,128]"})
    (dm,) = result.sources.values()
    assert "static const int32_t src_by_node[4] = {1, 2, 3, 3};" in dm
    assert "noc_semaphore_wait_min(sem_done_ptr, 5);" in dm
    assert (
        "noc_semaphore_set_remote(sem_dm__staging, get_noc_addr(noc_x_of(0), noc_y_of(0), "
        "sem_done));" in dm
    )
    assert (
        "get_noc_multicast_addr(noc_x_of(1), noc_y_of(0), noc_x_of(3), noc_y_of(0), sem_go), "
        "3 - (sender_in_range ? 1 : 0));" in dm
    )
    x = np.random.default_rng(1).uniform(-1, 1, (32, 128)).astype(ml_dtypes.bfloat16)
    for quantum in (None, 11):
        y = np.zeros((32, 160), ml_dtypes.bfloat16)
        z = np.zeros((32, 128), ml_dtypes.bfloat16)
        jit.run_operation(op, x, y, z, device=Device("wormhole_b0", (4, 1), quantum=quantum))
        tile0 = x[:, :32]
        for n in range(5):
            np.testing.assert_array_equal(y[:, n * 32 : (n + 1) * 32], tile0)
        for n, src in enumerate((1, 2, 3, 3)):
            np.testing.assert_array_equal(
                z[:, n * 32 : (n + 1) * 32], x[:, src * 32 : (src + 1) * 32]
            )


STUCK = """\
import ttl


@ttl.operation(grid=(2, 1))
def op(x, y):
    node_num = ttl.node(dims=1)
    ready = ttl.Semaphore()
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def dm():
        if node_num == 1:
            ready.wait_ge(2)
        with dfb.reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()
            ttl.copy(blk, y[0, node_num]).wait()
"""


def test_a_barrier_never_released_is_a_deadlock_naming_the_semaphore(tmp_path):
    path = tmp_path / "stuck.py"
    path.write_text(STUCK)
    op = load_operation(str(path), "op")
    x = np.ones((32, 32), ml_dtypes.bfloat16)
    y = np.zeros((32, 64), ml_dtypes.bfloat16)
    with pytest.raises(DeadlockError) as info:
        jit.run_operation(op, x, y)
    text = str(info.value)
    assert "node (1,0) dm0 kernel 'dm': blocked in noc_semaphore_wait_min(" in text
    assert "value 2) at stuck.py:13 (kernels/dm.cpp:" in text
    assert "semaphore 'ready' (index 0): current value 0" in text
    assert "node (0,0) dm0 kernel 'dm': finished" in text
    assert "Check that every semaphore or pipe a kernel waits on is set or sent" in text
    assert "DFB page" not in text  # no kernel waits on a DFB


def test_a_full_grid_deadlock_lists_the_blocked_kernels_and_counts_the_finished(tmp_path):
    """64 nodes, one stuck: its kernel comes first and the 63 finished ones are one line."""
    path = tmp_path / "stuck.py"
    path.write_text(STUCK.replace("grid=(2, 1)", "grid=(8, 8)"))
    op = load_operation(str(path), "op")
    x = np.ones((32, 32), ml_dtypes.bfloat16)
    y = np.zeros((32, 32 * 64), ml_dtypes.bfloat16)
    with pytest.raises(DeadlockError) as info:
        jit.run_operation(op, x, y)
    lines = str(info.value).splitlines()
    assert "kernel 'dm': blocked in noc_semaphore_wait_min(" in lines[1]
    assert "  (63 other kernels finished)" in lines
    assert not any(line.endswith(": finished") for line in lines)
