"""A copy with a ``ttl.Pipe`` outside ``if_src`` / ``if_dst`` runs where the program
guards it (spec v0.21: ``net.is_src()`` / ``net.is_dst()`` "or equivalent coordinate
predicates"). A node that is not the pipe's source (a send) or a destination (a
receive) stops at TT-Metal's ``ASSERT`` with a located error, rather than sending a
block no node expects or waiting for one that never comes."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

from ttl.runtime.errors import KernelFaultError

SOURCE = """
import ttl

@ttl.operation(grid=(2, 1))
def forward(x, out):
    pipe = ttl.Pipe(src=(0, 0), dst=(1, 0))
    net = ttl.PipeNet([pipe])
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    got = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def send():
        node_x, _ = ttl.node(dims=2)
        if node_x == 0:  # a coordinate guard: the pipe's source
            with dfb.reserve() as blk:
                ttl.copy(x[0, 0], blk).wait()
            with dfb.wait() as blk:
                ttl.copy(blk, pipe).wait()

    @ttl.datamovement()
    def receive():
        node_x, _ = ttl.node(dims=2)
        if {guard}:
            with got.reserve() as blk:
                ttl.copy(pipe, blk).wait()  # the receive
            with got.wait() as blk:
                ttl.copy(blk, out[0, 0]).wait()
"""


def _load(tmp_path, guard: str):
    path = tmp_path / f"forward_{abs(hash(guard))}.py"
    path.write_text(SOURCE.replace("{guard}", guard))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


@pytest.mark.parametrize("guard", ["node_x == 1", "net.is_dst()"])
def test_a_guarded_copy_with_a_pipe_runs(needs_device_cxx, fresh_jit, tmp_path, guard):
    module, _ = _load(tmp_path, guard)
    x = np.random.default_rng(0).standard_normal((32, 32)).astype(ml_dtypes.bfloat16)
    out = np.zeros((32, 32), ml_dtypes.bfloat16)
    module.forward(x, out)
    np.testing.assert_array_equal(out, x)


def test_a_node_outside_the_pipe_stops_at_the_copy(needs_device_cxx, fresh_jit, tmp_path):
    module, path = _load(tmp_path, "node_x >= 0")  # every node: (0, 0) is no destination
    x = np.zeros((32, 32), ml_dtypes.bfloat16)
    with pytest.raises(KernelFaultError) as info:
        module.forward(x, np.zeros((32, 32), ml_dtypes.bfloat16))
    text = str(info.value)
    line = SOURCE.splitlines().index("                ttl.copy(pipe, blk).wait()  # the receive")
    assert "node (0,0)" in text and f"{path.name}:{line + 1}" in text, text
    assert 'ASSERT(node_is_pipe_destination && "this node must be a destination of ' in text
    assert 'guard the copy with net.is_dst()") failed' in text, text
