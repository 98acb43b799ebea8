"""Pipes on the emulator: loopback multicast, per-node NOC traffic, and a net that hangs."""

from __future__ import annotations

import json
import textwrap

import ml_dtypes
import numpy as np
import pytest

from ttl.compiler.driver import load_operation
from ttl.host import jit, toolchain
from ttl.runtime import DeadlockError, Device, DFBConfig, KernelSpec, Program, memmap

HEAD = '#include <cstdint>\n#include "api/dataflow/dataflow_api.h"\n'

# Node (0, 0) multicasts a word and a semaphore value to the whole 2x2 grid, itself included.
LOOPBACK = (
    HEAD
    + """
void kernel_main() {
  const uint32_t src = get_write_ptr(0);
  const uint32_t dst = get_write_ptr(1);
  if (get_relative_logical_x() == 0 && get_relative_logical_y() == 0) {
    *reinterpret_cast<volatile uint32_t*>(src) = 0xC0FFEEu;
    // NOC coordinates on wormhole_b0 are 18 + logical ones.
    const uint64_t grid = get_noc_multicast_addr(18, 18, 19, 19, dst);
    noc_async_write_multicast_loopback_src(src, grid, 4, NUM);
    noc_semaphore_set_multicast_loopback_src(
        get_semaphore(0), get_noc_multicast_addr(18, 18, 19, 19, get_semaphore(1)), 4);
    noc_async_write_barrier();
  }
}
"""
)
DFBS = [DFBConfig(0, 2048, 1, 1, "bf16"), DFBConfig(1, 2048, 1, 1, "bf16")]


def _dfb_base(node, index: int) -> int:
    return int(node.dfbs[index].words[memmap.DFB_BASE])


def test_loopback_multicast_reaches_the_sender_and_is_counted(build):
    dev = Device(grid=(2, 2))
    elf = build(LOOPBACK.replace("NUM", "4"), name="loopback")
    report = dev.launch(Program([KernelSpec("mc", elf, "dm0")], dfbs=DFBS, semaphores=[7, 0]))
    sem1 = memmap.NODE_REGS_BASE + memmap.SEM_OFFSET + 4
    for node in dev.nodes.values():
        assert node.read_word(_dfb_base(node, 1)) == 0xC0FFEE, node.coord
        assert node.read_word(sem1) == 7, node.coord
    assert report.noc_traffic[(0, 0)].multicasts == 2
    assert report.noc_traffic[(0, 0)].bytes_written == 2 * 4 * 4
    assert report.multicasts == 2


def test_loopback_multicast_with_the_wrong_count_is_a_fault(build):
    dev = Device(grid=(2, 2))
    elf = build(LOOPBACK.replace("NUM", "3"), name="loopback3")
    with pytest.raises(Exception, match=r"reaches 4 nodes \(the sender is included \(loopback\)\)"):
        dev.launch(Program([KernelSpec("mc", elf, "dm0")], dfbs=DFBS, semaphores=[7, 0]))


HANG = """
import ttl

@ttl.operation(grid=(2, 1))
def hang(a, y):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, 0))])
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def dm():
        x, row = ttl.node(dims=2)
        with dfb.reserve() as blk:
            ttl.copy(a[0, x], blk).wait()

            def pipe_src(pipe):
                ttl.copy(blk, pipe).wait()

            def pipe_dst(pipe):
                ttl.copy(pipe, blk).wait()  # RECEIVE

            if x == 5:  # never true: node (0, 0) never sends
                net.if_src(pipe_src)
            net.if_dst(pipe_dst)

    @ttl.datamovement()
    def out():
        x, row = ttl.node(dims=2)
        with dfb.wait() as blk:
            ttl.copy(blk, y[0, x]).wait()
"""


def test_receiver_that_never_gets_data_is_a_reported_deadlock(tmp_path, monkeypatch):
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    path = tmp_path / "hang.py"
    path.write_text(textwrap.dedent(HANG).lstrip())
    op = load_operation(str(path), "hang")
    a = np.zeros((32, 64), ml_dtypes.bfloat16)
    with pytest.raises(DeadlockError) as info:
        op(a, a.copy())
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "# RECEIVE" in t)
    msg = str(info.value)
    assert "node (1,0) dm0 kernel 'dm': blocked in noc_semaphore_wait(" in msg
    assert f"hang.py:{line} " in msg
    assert "current value 0" in msg


NESTED = """
import ttl

@ttl.operation(grid=(2, 2))
def nested(a, y):
    # row net: (0, r) -> (1, r); column net: (1, 0) -> (1, 1)
    rows = ttl.PipeNet([ttl.Pipe(src=(0, r), dst=(1, r)) for r in range(2)])
    col = ttl.PipeNet([ttl.Pipe(src=(1, 0), dst=(1, 1))])
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        x, r = ttl.node(dims=2)
        with dfb.reserve() as blk:
            ttl.copy(a[r, x], blk).wait()

            def row_src(pipe):
                ttl.copy(blk, pipe).wait()

            def row_dst(pipe):
                ttl.copy(pipe, blk).wait()

                def col_src(p2):
                    ttl.copy(blk, p2).wait()

                col.if_src(col_src)

            def col_dst(pipe):
                ttl.copy(pipe, blk).wait()

            rows.if_src(row_src)
            rows.if_dst(row_dst)
            col.if_dst(col_dst)

    @ttl.datamovement()
    def out():
        x, r = ttl.node(dims=2)
        with dfb.wait() as blk:
            ttl.copy(blk, y[r, x]).wait()
"""


def test_condition_bodies_nest_across_nets(tmp_path, monkeypatch):
    """Row pipes (0, r) -> (1, r); node (1, 0) forwards what it got down the column net."""
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    path = tmp_path / "nested.py"
    path.write_text(NESTED.lstrip())
    op = load_operation(str(path), "nested")
    a = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(a)
    op(a, y)
    tiles = a.reshape(2, 32, 2, 32)
    want = tiles.copy()
    want[0, :, 1] = tiles[0, :, 0]  # (1, 0) received (0, 0)'s tile
    want[1, :, 1] = tiles[0, :, 0]  # (1, 1) received (0, 1)'s, then (1, 0)'s forwarded tile
    np.testing.assert_array_equal(y, want.reshape(64, 64))
    call = jit.profile().calls[-1]
    # Unicast pipes only; the per-node traffic is in the profile, as JSON data too.
    assert call.noc_traffic["1,0"].multicasts == 0
    assert json.loads(json.dumps(jit.profile().to_dict()))["calls"][-1]["noc_traffic"]["0,1"]


BOTH = """
import ttl

@ttl.operation(grid=(2, 1))
def both(a, y):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, 0))])
    done = ttl.Semaphore()
    to_sender = done.get_remote((0, 0))
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        x, r = ttl.node(dims=2)
        with dfb.reserve() as blk:
            ttl.copy(a[0, x], blk).wait()

            def src(pipe):
                ttl.copy(blk, pipe).wait()

            def dst(pipe):
                ttl.copy(pipe, blk).wait()
                to_sender.inc(1)

            net.if_src(src)
            net.if_dst(dst)
            if x == 0:
                done.wait_eq(1)

    @ttl.datamovement()
    def out():
        x, r = ttl.node(dims=2)
        with dfb.wait() as blk:
            ttl.copy(blk, y[0, x]).wait()
"""


def test_pipes_and_semaphores_share_one_semaphore_table(tmp_path, monkeypatch):
    """Pipe semaphores take ids 0.. and a ttl.Semaphore the next: both protocols work."""
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "both.py"
    path.write_text(BOTH.lstrip())
    op = load_operation(str(path), "both")
    result = op.compile({"a": "bf16[32,64]", "y": "bf16[32,64]"})
    table = {s["name"]: s["index"] for s in result.manifest["semaphores"]}
    assert table["pipe_one"] == 0 and table["done"] == 3, table
    a = np.random.default_rng(1).uniform(-1, 1, (32, 64)).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(a)
    op(a, y)
    np.testing.assert_array_equal(y[:, 32:], a[:, :32])  # node 1 got node 0's tile
    np.testing.assert_array_equal(y[:, :32], a[:, :32])
