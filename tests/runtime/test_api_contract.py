"""Every function kernel_api.h declares is implemented (links into a kernel)."""

from __future__ import annotations

import re

from ttl.host import toolchain

_DECL = re.compile(r"^(?:uint32_t|uint64_t|void)\s+(\w+)\s*\(", re.MULTILINE)
_UNARY = re.compile(r"^TTL_DECLARE_UNARY_TILE_OP\((\w+)\)", re.MULTILINE)


def declared_functions() -> list[str]:
    text = (toolchain.INCLUDE_DIR / "ttl" / "kernel_api.h").read_text()
    names = _DECL.findall(text)
    for op in _UNARY.findall(text):
        names += [f"{op}_tile_init", f"{op}_tile"]
    return sorted(set(names))


def test_every_declared_function_links(build):
    names = declared_functions()
    assert {
        "cb_reserve_back",
        "noc_async_read_tile",
        "matmul_tiles",
        "exp_tile",
        "pack_reconfig_l1_acc",
        "get_noc_multicast_addr",
    } <= set(names)
    body = "\n".join(f"  sink(reinterpret_cast<const void*>(&{n}));" for n in names)
    src = f"""#include <cstdint>
#include "ttl/kernel_api.h"
volatile const void* keep;
void sink(const void* p) {{ keep = p; }}
void kernel_main() {{
{body}
  sink(reinterpret_cast<const void*>(&TensorAccessor::get_noc_addr));
}}
"""
    # A declaration without a definition fails to link: "undefined reference".
    build(src, name="all_api")
