"""Physical DFB index reuse only with proven bounded, disjoint lifecycles (issue 5 item 10).

Spec ("DFB dependencies and protocol effects"): "A complete summary can provide the
lifecycle proof needed for physical-index reuse." "A partial summary is valid but
does not prove a bounded lifecycle for that dependency. A dependency occurrence with
no listed effect is an opaque storage access for the complete call duration,
including when operand adaptation aliases multiple occurrences to the same SSA DFB."
"unknown_dfb_access=True ... For allocation, the call becomes an opaque occurrence on
every user-managed DFB in each scope where it may execute, including listed DFBs."
"""

from __future__ import annotations

from pathlib import Path

import pytest

SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}

PROGRAM = """
import ttl

HEADER = "stage.hpp"


@ttl.operation(grid=(1, 1))
def op(inp, out):
    first = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
    second = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def stage():
        ttl.call_extern_func(
            HEADER,
            "stage",
            template_args=[ttl.dfb_descriptor(first)],
            dfb_effects=[
                ttl.DFBEffect.reserve(first, tiles=1),
                ttl.DFBEffect.push(first, tiles=1),
                ttl.DFBEffect.wait(first, tiles=1),
                ttl.DFBEffect.pop(first, tiles=1),
            ],
            FIRST_EXTRA
        )
        ttl.call_extern_func(
            HEADER,
            "stage",
            SECOND_ARGS
        )
"""

COMPLETE = """template_args=[ttl.dfb_descriptor(second)],
            dfb_effects=[
                ttl.DFBEffect.reserve(second, tiles=1),
                ttl.DFBEffect.push(second, tiles=1),
                ttl.DFBEffect.wait(second, tiles=1),
                ttl.DFBEffect.pop(second, tiles=1),
            ],"""


@pytest.fixture
def header_dir(tmp_path: Path) -> tuple[str, ...]:
    (tmp_path / "stage.hpp").write_text("#pragma once\n")
    return (str(tmp_path),)


def _compile(compile_source, header_dir, second: str, first_extra: str = ""):
    src = PROGRAM.replace("SECOND_ARGS", second).replace("FIRST_EXTRA", first_extra)
    result = compile_source(src, "op", SPECS, include_dirs=header_dir)
    indices = [d["physical_index"] for d in result.manifest["logical_dfbs"]]
    reasons = {d["name"]: d["allocation"]["reason"] for d in result.plan["dfbs"]}
    return indices, reasons


def test_complete_summaries_reuse_one_index(compile_source, header_dir):
    indices, reasons = _compile(compile_source, header_dir, COMPLETE)
    assert indices == [0, 0]
    assert reasons["second"].startswith("reuses index 0 of 'first'")


@pytest.mark.parametrize(
    ("second", "why"),
    [
        (  # no listed effect: opaque for the whole call
            "template_args=[ttl.dfb_descriptor(second)],",
            (
                "external call 'stage' has no dfb_effects for dependency 0, an opaque access "
                "for the whole call"
            ),
        ),
        (  # partial summary: a wait with no pop
            COMPLETE.replace("ttl.DFBEffect.pop(second, tiles=1),", ""),
            "external call 'stage' lists a partial summary for dependency 0",
        ),
        (  # aliased occurrences: the second occurrence has no effect of its own
            "func_args=[second],\n" + " " * 12 + COMPLETE,
            "external call 'stage' has no dfb_effects for dependency",
        ),
    ],
)
def test_opaque_accesses_block_reuse(compile_source, header_dir, second, why):
    indices, reasons = _compile(compile_source, header_dir, second)
    assert indices == [0, 1]
    assert reasons["second"].startswith("not reused: " + why), reasons["second"]


def test_unknown_dfb_access_blocks_reuse_of_every_dfb(compile_source, header_dir):
    indices, reasons = _compile(
        compile_source, header_dir, COMPLETE, first_extra="unknown_dfb_access=True,"
    )
    assert indices == [0, 1]
    for name in ("first", "second"):
        assert "sets unknown_dfb_access, an opaque access to every DFB" in reasons[name]


def test_visible_protocol_ops_in_one_kernel_reuse(compile_source):
    # Visible ttl.reserve/push/wait/pop also prove a bounded lifecycle.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(inp, out):
        a = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
        b = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
        c = ttl.make_dataflow_buffer_like(inp, shape=(1, 2), block_count=2)

        @ttl.datamovement()
        def stage():
            for t in range(2):
                with a.reserve() as blk:
                    ttl.copy(inp[0, t], blk).wait()
                with a.wait() as blk:
                    ttl.copy(blk, out[0, t]).wait()
            with b.reserve() as blk:
                ttl.copy(inp[0, 2], blk).wait()
            with b.wait() as blk:
                ttl.copy(blk, out[0, 2]).wait()
            with c.reserve() as blk:
                ttl.copy(inp[0, 2:4], blk).wait()
            with c.wait() as blk:
                ttl.copy(blk, out[0, 2:4]).wait()
    """
    result = compile_source(src, "op", SPECS)
    assert [d["physical_index"] for d in result.manifest["logical_dfbs"]] == [0, 0, 1]
    reasons = {d["name"]: d["allocation"]["reason"] for d in result.plan["dfbs"]}
    assert reasons["b"].startswith("reuses index 0 of 'a'")
    # c has another block shape: a different configuration never shares an index.
    assert reasons["c"].startswith("bounded, but no earlier index")
