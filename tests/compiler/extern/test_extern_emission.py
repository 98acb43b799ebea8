"""Issue 4 "Emitted C++": prelude order, DFBDescriptor members, device toolchain compile."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

from ttl.host import toolchain


def test_prelude_order(extern_compile):
    """`<cstdint>` first, then the `ttlang::DFBDescriptor` definition, then custom headers,
    then the kernel (DESIGN.md "Prelude order")."""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "shared_entry", kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func("extern_copy.hpp", "x", kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func(HEADER, "shared_entry", kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: #include <cstdint>
        CHECK: namespace ttlang {
        CHECK: struct DFBDescriptor {
        CHECK: #include "api/compute/common.h"
        CHECK: // Headers of external calls.
        CHECK-NEXT: #include "extern_entries.hpp"
        CHECK-NEXT: #include "extern_copy.hpp"
        CHECK-NOT: #include
        CHECK: void kernel_main() {
        """,
    )


def test_descriptor_members_are_constexpr(extern_compile, tmp_path):
    """A `ttlang::DFBDescriptor<index, pages_per_block, block_count, page_size_bytes>` exposes
    those four as constexpr static members usable in constant expressions; the emitted C++
    compiles with the device toolchain. (``dst`` is the harness's only DFB a kernel uses:
    ``src`` is never touched, so it takes no index.)"""
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    header = tmp_path / "include" / "check_descriptor.hpp"
    header.parent.mkdir()
    header.write_text(
        "#pragma once\n"
        "template <typename Source>\n"
        "void check_descriptor() {\n"
        '  static_assert(Source::index == 0, "index");\n'
        '  static_assert(Source::pages_per_block == 1, "pages");\n'
        '  static_assert(Source::block_count == 2, "blocks");\n'
        '  static_assert(Source::page_size_bytes == 2048, "page size");\n'
        "  constexpr uint32_t total = Source::pages_per_block * Source::block_count;\n"
        '  static_assert(total == 2, "usable in constant expressions");\n'
        "}\n"
    )
    r = extern_compile(
        """
        ttl.call_extern_func("check_descriptor.hpp", "check_descriptor",
                             template_args=[ttl.dfb_descriptor(dst)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        include_dirs=(str(header.parent),),
    )
    r.write(str(tmp_path / "out"))
    kernel = r.manifest["kernels"][0]
    toolchain.compile_kernel(
        tmp_path / "out" / kernel["source"],
        tmp_path / "k.elf",
        compile_time_args=[a["value"] for a in kernel["compile_time_args"]],
        defines=kernel["defines"],
        include_dirs=[header.parent],
    )
    assert (tmp_path / "k.elf").stat().st_size > 0
