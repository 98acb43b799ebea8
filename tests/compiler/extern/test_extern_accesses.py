"""``dfb_accesses=[ttl.DFBAccess.inspect(dfb)]``: typed DFB accesses without queue
transactions (upstream's external-functions contract after mid-2026, in addition to
../shared/spec/external-functions.md, whose every sentence still holds).

"`ttl.DFBAccess.inspect(dfb)` states that the callee may read the selected DFB's
descriptor or contents but does not publish, consume, or leave that DFB changed. The
call remains a storage access, so reuse still requires strict lifetime order; the
summary establishes an identity queue-state transition. One dependency occurrence
cannot declare both a protocol effect and a non-transactional access."
"""

from __future__ import annotations

import importlib.util
import re

import ml_dtypes
import numpy as np
import pytest
from compiler_testlib import parse_ir

CALL = """
ttl.call_extern_func(HEADER, "f", template_args=[ttl.dfb_descriptor(src)],{extra}
                     kernel=ttl.KernelKind.COMPUTE)
"""


def _lifetime(ir: str, dfb: str) -> str:
    (line,) = (ln for ln in ir.splitlines() if f"ttl.dfb @{dfb} " in ln)
    return re.search(r"lifetime = (#ttl\.lifetime<.*?>)(?:,|\})", line)[1]


def test_an_inspected_dependency_is_a_storage_access_not_an_opaque_one(extern_compile):
    inspected = extern_compile(
        CALL.format(extra="\n    dfb_accesses=[ttl.DFBAccess.inspect(src)],")
    )
    assert "#ttl.dfb_effect<inspect, 0, 0>" in inspected.ir
    assert "opaque" not in _lifetime(inspected.ir, "src")
    assert "span [" in _lifetime(inspected.ir, "src")  # still an access, at the call
    plain = extern_compile(CALL.format(extra=""))
    assert "no dfb_effects for dependency 0, an opaque" in _lifetime(plain.ir, "src")


def test_an_interface_preserving_access_is_the_same_storage_access(extern_compile):
    """An earlier v0.21 draft's ``ttl.DFBAccess.interface_preserved(dfb)``: "the function
    may inspect or temporarily modify the DFB interface but must restore its complete
    configuration, pointers, occupancy, and initialization state before returning" (the
    access upstream's interface_preserved_external_access example declares)."""
    preserved = extern_compile(
        CALL.format(extra="\n    dfb_accesses=[ttl.DFBAccess.interface_preserved(src)],")
    )
    assert "#ttl.dfb_effect<interface_preserved, 0, 0>" in preserved.ir
    assert "opaque" not in _lifetime(preserved.ir, "src")
    assert "span [" in _lifetime(preserved.ir, "src")
    reparsed = parse_ir(preserved.ir)  # the kind prints and parses back
    reparsed.verify()
    assert str(reparsed) == preserved.ir.rstrip("\n")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("dfb_accesses=(ttl.DFBAccess.inspect(src),),", "must be a literal list"),
        ("dfb_accesses=[ttl.DFBEffect.wait(src, tiles=1)],", "is not a DFB access"),
        ("dfb_accesses=[ttl.DFBAccess.inspect(dst)],", "names DFB 'dst', which is not a DFB"),
        (
            "dfb_accesses=[ttl.DFBAccess.inspect(src), ttl.DFBAccess.inspect(src)],",
            "DFB 'src' is listed twice in dfb_accesses",
        ),
        (
            "dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)],\n"
            "    dfb_accesses=[ttl.DFBAccess.inspect(src)],",
            "one dependency declares one or the other",
        ),
        (
            "dfb_accesses=[ttl.DFBAccess.inspect(src), ttl.DFBAccess.interface_preserved(src)],",
            "DFB 'src' is listed twice in dfb_accesses",
        ),
        ("dfb_accesses=[ttl.DFBAccess.interface_preserved()],", "interface_preserved() takes one"),
    ],
)
def test_a_bad_access_list_is_an_error_at_its_line(extern_error, extra, message):
    err = extern_error(CALL.format(extra="\n    " + extra))
    assert message in err.message


HEADER = """#pragma once
#include <cstdint>
// Reads the DFB's descriptor only: it changes nothing.
template <typename Descriptor>
inline void check_descriptor() {
  static_assert(Descriptor::page_size_bytes == 2048, "one bf16 tile per page");
}
"""

PROGRAM = """
import ttl

INCLUDE = {include!r}

@ttl.operation(grid=(1, 1))
def copy_through(a, y):
    src = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    dst = ttl.make_dataflow_buffer_like(y, shape=(1, 1))
    with src.reserve() as blk:
        ttl.copy(a[0, 0], blk).wait()
    ttl.call_extern_func("inspect.hpp", "check_descriptor", include_paths=[INCLUDE],
                         template_args=[ttl.dfb_descriptor(src)],
                         dfb_accesses=[ttl.DFBAccess.inspect(src)],
                         kernel=ttl.KernelKind.COMPUTE)
    with src.wait() as x, dst.reserve() as o:
        o.store(x + x)
    with dst.wait() as o:
        ttl.copy(o, y[0, 0]).wait()
"""


def test_an_operation_with_an_inspecting_call_runs(tmp_path, monkeypatch):
    from ttl.host import toolchain

    if toolchain.find_compiler() is None:
        pytest.fail("the device compiler is missing: run tools/setup.sh")
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "inspect.hpp").write_text(HEADER)
    path = tmp_path / "inspect_op.py"
    path.write_text(PROGRAM.format(include=str(tmp_path)))
    spec = importlib.util.spec_from_file_location("inspect_op", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = np.random.default_rng(0).standard_normal((32, 32)).astype(ml_dtypes.bfloat16)
    y = np.zeros((32, 32), ml_dtypes.bfloat16)
    module.copy_through(a, y)
    np.testing.assert_array_equal(y, (a.astype(np.float32) * 2).astype(ml_dtypes.bfloat16))
