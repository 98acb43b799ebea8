"""Expand-only operations (spec v0.19, "Composing operations"): an operation that takes
DFBs (or pipe nets) as parameters is expanded into its caller and never called directly.
"""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

from ttl.errors import TTLCompileError

SOURCE = """
import ttl

@ttl.operation()
def double_into(src: ttl.DFB, dst: ttl.DFB):
    with src.wait() as x, dst.reserve() as o:
        o.store(x + x)

@ttl.operation(grid=(1, 1))
def twice_doubled(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    mid_dfb = ttl.make_dfb("bf16", shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))
    with a_dfb.reserve() as blk:
        ttl.copy(a[0, 0], blk).wait()
    double_into(a_dfb, mid_dfb)
    double_into(mid_dfb, y_dfb)
    with y_dfb.wait() as o:
        ttl.copy(o, y[0, 0]).wait()
"""


@pytest.fixture
def module(tmp_path, monkeypatch):
    from ttl.host import toolchain

    if toolchain.find_compiler() is None:
        pytest.fail("the device compiler is missing: run tools/setup.sh")
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "expand_only_ops.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("expand_only_ops", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_an_expand_only_operation_is_expanded_with_the_callers_dfbs(module):
    bf16 = ml_dtypes.bfloat16
    a = np.random.default_rng(0).standard_normal((32, 32)).astype(bf16)
    y = np.zeros((32, 32), bf16)
    module.twice_doubled(a, y)
    np.testing.assert_array_equal(y, (a.astype(np.float32) * 4).astype(bf16))


def test_an_expand_only_operation_called_directly_is_an_error(module):
    bf16 = ml_dtypes.bfloat16
    with pytest.raises(TTLCompileError) as info:
        module.double_into(np.zeros((32, 32), bf16), np.zeros((32, 32), bf16))
    err = info.value
    assert "operation 'double_into' is expand-only: its parameter 'src' is a ttl.DFB" in (
        err.message
    )
    assert err.loc.line == 5 and "compose it into another operation" in err.hint


def test_a_composition_argument_of_another_kind_is_an_error(write_source):
    from ttl.compiler.driver import compile_operation, load_operation

    source = SOURCE.replace("double_into(a_dfb, mid_dfb)", "double_into(a_dfb, 3)")
    op = load_operation(str(write_source(source)), "twice_doubled")
    with pytest.raises(TTLCompileError, match="a tensor or DFB of this operation"):
        compile_operation(op, {"a": "bf16[32,32]", "y": "bf16[32,32]"})
