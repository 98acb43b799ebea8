"""Spec section: DFB synchronization ownership."""

from __future__ import annotations

from compiler_testlib import filecheck


def test_pop_selector_places_an_otherwise_unused_wait(extern_compile):
    """ "`TensorBlock.push` and `TensorBlock.pop` accept one `kernel=` selector when a DFB
    transaction has no other use from which ownership can be inferred." (the spec example)"""
    r = extern_compile(
        """
        with src.reserve() as blk:
            ttl.copy(inp[0, 0], blk).wait()
        unused = src.wait()
        unused.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert [k["name"] for k in r.manifest["kernels"]] == ["data_movement"]
    filecheck(
        r.sources["data_movement.cpp"],
        """
        CHECK: cb_wait_front(dfb_src, 1);
        CHECK: cb_pop_front(dfb_src, 1);
        """,
    )


def test_ownership_is_inferred_from_uses(extern_compile):
    """ "Their logical-kernel ownership is derived from the acquired block's uses and release."
    (a copy puts its block in data movement, block math in compute)"""
    r = extern_compile(
        """
        with src.reserve() as a:
            ttl.copy(inp[0, 0], a).wait()
        with src.wait() as b, dst.reserve() as c:
            c.store(ttl.math.exp(b))
        with dst.wait() as e:
            ttl.copy(e, out[0, 0]).wait()
        """
    )
    dm, compute = r.sources["data_movement.cpp"], r.sources["compute.cpp"]
    filecheck(dm, "CHECK: cb_reserve_back(dfb_src, 1);\nCHECK: cb_wait_front(dfb_dst, 1);")
    filecheck(compute, "CHECK: cb_wait_front(dfb_src, 1);\nCHECK: cb_reserve_back(dfb_dst, 1);")
    assert "cb_wait_front(dfb_src" not in dm and "cb_reserve_back(dfb_src" not in compute


def test_reserve_and_wait_do_not_accept_kernel(extern_error):
    """ "`reserve` and `wait` do not accept `kernel=`.\""""
    err = extern_error(
        """
        @ttl.datamovement()
        def dm():
            blk = src.wait(kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR
            blk.pop()
        """
    )
    assert "wait() does not accept kernel=" in err.message
    assert "blk.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)" in err.hint


def test_conflicting_release_selector_is_rejected(extern_error):
    """ "An explicit release selector that conflicts with inferred ownership is invalid.\""""
    err = extern_error(
        """
        blk = src.reserve()
        ttl.copy(inp[0, 0], blk).wait()
        blk.push(kernel=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert (
        "selects the canonical compute kernel, but block 'blk' is used in the canonical "
        "data-movement kernel" in err.message
    )
    assert "remove kernel=" in err.hint


def test_transaction_without_use_or_selector_is_rejected(extern_error):
    """ "`TensorBlock.push` and `TensorBlock.pop` accept one `kernel=` selector when a DFB
    transaction has no other use" (without it the transaction has no owner)"""
    err = extern_error(
        """
        unused = src.wait()  # ERROR
        unused.pop()
        """
    )
    assert "block 'unused' has no use from which its logical kernel can be inferred" in err.message
    assert "pop(kernel=" in err.hint


def test_release_takes_one_selector(extern_error):
    """ "`TensorBlock.push` and `TensorBlock.pop` accept one `kernel=` selector\""""
    err = extern_error(
        """
        @ttl.datamovement()
        def dm():
            blk = src.wait()
            blk.pop(kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT)  # ERROR
        """
    )
    assert "a release takes one kernel= selector" in err.message


def test_release_selector_is_not_emitted(extern_compile):
    """ "The release selector affects unified-operation splitting only. Generated IR and C++
    retain the ordinary DFB push or pop signature; `kernel` is not an emitted operand or
    argument.\""""
    r = extern_compile(
        """
        unused = src.wait()
        unused.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(r.ir, "CHECK: ttl.pop %unused : !ttl.block<1x1xbf16>\n")
    filecheck(r.sources["data_movement.cpp"], "CHECK: cb_pop_front(dfb_src, 1);")


def test_release_selector_in_an_explicit_thread_has_no_effect(extern_compile):
    """ "An explicit thread may use the same signature, but its thread decorator already
    determines ownership, so the release selector has no additional effect.\""""
    r = extern_compile(
        """
        @ttl.compute()
        def compute():
            blk = src.wait()
            blk.pop(kernel=ttl.KernelKind.COMPUTE)

        @ttl.datamovement()
        def dm():
            with src.reserve() as b:
                ttl.copy(inp[0, 0], b).wait()
        """
    )
    filecheck(
        r.sources["compute.cpp"],
        "CHECK: cb_wait_front(dfb_src, 1);\nCHECK: cb_pop_front(dfb_src, 1);",
    )


def test_external_code_completes_before_return(extern_compile):
    """ "The compiler does not infer reserve, wait, push, or pop operations from the C++ body;
    the `dfb_effects` contract supplies those facts when required." (a call on a DFB adds no
    protocol ops to the IR)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    for op in ("ttl.reserve", "ttl.wait", "ttl.push", "ttl.pop"):
        assert op not in r.ir
