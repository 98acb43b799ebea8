"""Logical device domains (spec v0.21, "Device domain"): ``ttl.DeviceDomain``,
``DeviceRef``, ``DeviceRange``, ``current_index()``, ``is_current()``, ``index_order()``
and ``ttl.operation(device_domain=...)``.

"A device domain is a logical rectangular index set of devices. [...] A domain may
contain one named component or a product of named components. A device reference
identifies one member by its component coordinates. Device references use zero-based
coordinates, and `current_index()` assigns them a zero-based row-major order across
all component dimensions. [...] At execution, the flattened domain extent must match
the logical extent of the TT-NN mesh device."

Run on a 1x4 mesh, both targets, by tests/programs/device_domain.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import ttl
from ttl.errors import TTLCompileError

SPECS = {"x": "bf16[32,128]", "y": "bf16[32,32]"}

SOURCE = """
import ttl

DOMAIN = ttl.DeviceDomain([4])

@ttl.operation(grid=(1, 1), device_domain=DOMAIN)
def op(x, y):
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def move():
        with dfb.reserve() as blk:
            ttl.copy(x[0, {index}], blk).wait()
        with dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""


def test_current_index_is_the_last_runtime_arg(compile_source):
    result = compile_source(SOURCE.format(index="DOMAIN.current_index()"), "op", SPECS)
    args = result.manifest["runtime_args"]["per_node"]
    assert args[-1] == {"index": 4, "kind": "device_index"}  # 2 tensors, 1 column, 1 row
    assert "get_arg_val<uint32_t>(4)" in result.sources["move.cpp"]
    assert "ttl.device_index" in result.ir


def test_an_operation_without_device_queries_has_no_device_arg(compile_source):
    result = compile_source(SOURCE.format(index="0"), "op", SPECS)
    kinds = {a["kind"] for a in result.manifest["runtime_args"]["per_node"]}
    assert "device_index" not in kinds


def test_is_current_compares_with_each_index_of_a_range(compile_source):
    body = "1 if DOMAIN.is_current(ttl.DeviceRange(ttl.DeviceRef(1), ttl.DeviceRef(3))) else 0"
    cpp = compile_source(SOURCE.format(index=body), "op", SPECS).sources["move.cpp"]
    assert "device_index == 1" in cpp and "device_index == 2" in cpp
    assert "device_index == 3" not in cpp  # the upper bound is exclusive


def test_references_are_numbered_row_major_across_components():
    domain = ttl.DeviceDomain.product(rows=2, cols=ttl.DeviceDomain([3, 2]))
    assert domain.size == 12 and domain.dims == (2, 3, 2)
    assert domain.index_order(ttl.DeviceRef(1, 2, 1)) == 11
    assert domain.index_order(ttl.DeviceRef(rows=1, cols=(0, 1))) == 7
    box = ttl.DeviceRange(ttl.DeviceRef(0, 1, 0), ttl.DeviceRef(2, 2, 1))
    assert domain.indices(box) == [2, 8]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ttl.DeviceDomain([0]), "must be a positive integer"),
        (lambda: ttl.DeviceDomain.product(), "needs at least one named component"),
        (lambda: ttl.DeviceRef(1, cols=2), "positional or named coordinates, not both"),
        (lambda: ttl.DeviceRange(1, 2), "takes two ttl.DeviceRef bounds"),
        (lambda: ttl.DeviceDomain([4]).index_order(ttl.DeviceRef(4)), "is not a device of"),
        (
            lambda: ttl.DeviceDomain.product(a=2).index_order(ttl.DeviceRef(b=0)),
            "does not name the components",
        ),
        (
            lambda: ttl.DeviceDomain([4]).indices(
                ttl.DeviceRange(ttl.DeviceRef(2), ttl.DeviceRef(1))
            ),
            "is not a range of",
        ),
        (lambda: ttl.operation(device_domain=4), "device_domain= takes a ttl.DeviceDomain"),
    ],
    ids=[
        "extent",
        "empty-product",
        "mixed-ref",
        "range-bounds",
        "outside",
        "names",
        "range",
        "not-a-domain",
    ],
)
def test_bad_domains_and_references_are_located_errors(make, message):
    with pytest.raises(TTLCompileError) as info:
        make()
    assert message in info.value.message and info.value.loc is not None


def test_is_current_takes_a_reference_or_a_range(compile_error):
    source = SOURCE.format(index="0").replace(
        "        with dfb.wait() as blk:",
        "        z = DOMAIN.is_current(2)  # ERROR\n        with dfb.wait() as blk:",
    )
    err = compile_error(source, "op", SPECS)
    assert "is_current() takes a ttl.DeviceRef or a ttl.DeviceRange" in err.message


def test_current_index_outside_a_kernel_is_an_error():
    with pytest.raises(TTLCompileError, match="can only be used inside"):
        ttl.DeviceDomain([2]).current_index()


def test_a_domain_that_is_not_the_calls_mesh_is_an_error_at_the_call(tmp_path, monkeypatch):
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "domain_op.py"
    path.write_text(SOURCE.format(index="DOMAIN.current_index()"))
    import importlib.util

    spec = importlib.util.spec_from_file_location("domain_op", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import ml_dtypes

    x = np.zeros((32, 128), ml_dtypes.bfloat16)
    with pytest.raises(TTLCompileError) as info:
        module.op(x, np.zeros((32, 32), ml_dtypes.bfloat16))  # one device, a domain of 4
    assert "runs on ttl.DeviceDomain(device=[4]), 4 devices, but its tensors are on 1 device" in (
        info.value.message
    )
    assert info.value.loc is not None and info.value.loc.filename.endswith("test_device_domains.py")


@pytest.mark.parametrize(
    ("decorator", "words"),
    [
        ("@ttl.operation(grid=(1, 1))", "(it declares none)"),
        (
            "@ttl.operation(grid=(1, 1), device_domain=ttl.DeviceDomain([2]))",
            "is not the device domain of operation 'op' (ttl.DeviceDomain(device=[2]))",
        ),
    ],
    ids=["none", "another"],
)
def test_a_kernel_asks_about_its_operations_own_domain(compile_error, decorator, words):
    """The size check at the call is the operation's domain's: kernels may not use another
    (found by a new-user trial: another domain was accepted and never matched)."""
    source = SOURCE.format(index="DOMAIN.current_index()").replace(
        "@ttl.operation(grid=(1, 1), device_domain=DOMAIN)", decorator
    )
    source = source.replace(
        "], blk).wait()\n        with dfb.wait()",
        "], blk).wait()  # ERROR\n        with dfb.wait()",
    )
    err = compile_error(source, "op", SPECS)
    assert words in err.message, err.render()
    assert "device_domain=DOMAIN" in err.hint
