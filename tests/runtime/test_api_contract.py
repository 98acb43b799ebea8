"""Every function the emulator's kernel API declares is implemented (links into a kernel),
and each kernel kind sees only its own API, as on TT-Metal's processors."""

from __future__ import annotations

import re

import pytest

from ttl.host import toolchain
from ttl.runtime.errors import LaunchError

_DECL = re.compile(r"^(?:uint32_t|uint64_t|uint8_t|void)\s+(\w+)\s*\(", re.MULTILINE)
_UNARY = re.compile(r"^TTL_DECLARE_UNARY_TILE_OP\((\w+)\)", re.MULTILINE)
_BLOCK = re.compile(r"^#if !defined\((TTL_\w+_KERNEL)\).*?^#endif", re.MULTILINE | re.DOTALL)
# Overloaded or templates: each form is called instead of having its address taken.
_OVERLOADED = {
    "get_noc_addr",
    "compute_kernel_hw_startup",
    "reconfig_data_format",
    "exp_tile",
    "exp_tile_init",
}


def _names(text: str) -> set[str]:
    names = set(_DECL.findall(text))
    for op in _UNARY.findall(text):
        names |= {f"{op}_tile_init", f"{op}_tile"}
    return names - _OVERLOADED - {"copy_tile_init"}  # (deprecated, as in TT-Metal)


def declared_functions() -> dict[str, set[str]]:
    """kernel_api.h's functions: those of every kernel, data movement only, compute only."""
    text = (toolchain.INCLUDE_DIR / "ttl" / "kernel_api.h").read_text()
    out = {"common": _names(_BLOCK.sub("", text)), "data_movement": set(), "compute": set()}
    for block in _BLOCK.finditer(text):
        hidden_from = block.group(1)
        kind = "data_movement" if hidden_from == "TTL_COMPUTE_KERNEL" else "compute"
        out[kind] |= _names(block.group(0))
    return out


def _sinks(names: set[str]) -> str:
    return "\n".join(f"  sink(reinterpret_cast<const void*>(&{n}));" for n in sorted(names))


def test_every_declared_function_links(build):
    names = declared_functions()
    assert "cb_reserve_back" in names["common"]
    assert {"noc_async_read_barrier", "get_noc_multicast_addr"} <= names["data_movement"]
    assert {"matmul_tiles", "log_tile", "pack_reconfig_l1_acc", "copy_init"} <= names["compute"]
    dm = f"""#include <cstdint>
#include "api/dataflow/dataflow_api.h"
volatile const void* keep;
void sink(const void* p) {{ keep = p; }}
void kernel_main() {{
{_sinks(names["common"] | names["data_movement"])}
  keep = reinterpret_cast<const void*>(get_noc_addr(18, 18, 0) + get_noc_addr(0));
  using Accessor = TensorAccessor<TensorAccessorArgs<0>>;
  const Accessor accessor(0, 64);
  keep = reinterpret_cast<const void*>(accessor.get_noc_addr(1));
  // TT-Metal's two-argument form, which takes the page size from the args.
  const auto from_args = TensorAccessor(TensorAccessorArgs<0>(), 0);
  keep = reinterpret_cast<const void*>(from_args.get_noc_addr(0));
  sink(reinterpret_cast<const void*>(&noc_async_read_page<Accessor>));
  sink(reinterpret_cast<const void*>(&noc_async_write_page<Accessor>));
}}
"""
    # A declaration without a definition fails to link: "undefined reference".
    build(dm, ct_args=[2, 64], name="all_dataflow_api")
    compute = f"""#include <cstdint>
#include "api/compute/common.h"
volatile const void* keep;
void sink(const void* p) {{ keep = p; }}
void kernel_main() {{
  compute_kernel_hw_startup(0, 1, 16);
  compute_kernel_hw_startup<SrcOrder::Reverse>(0, 1, 16);
  compute_kernel_hw_startup(0, 16);
  reconfig_data_format(0, 1);
  reconfig_data_format<SrcOrder::Reverse>(0, 1);
  sink(reinterpret_cast<const void*>(&exp_tile_init<>));
  sink(reinterpret_cast<const void*>(&exp_tile_init<true, 0x3f000000u, InputClamping::None>));
  sink(reinterpret_cast<const void*>(&exp_tile<>));
  sink(reinterpret_cast<const void*>(&exp_tile<true, true, InputClamping::None, 2>));
{_sinks(names["common"] | names["compute"])}
}}
"""
    build(compute, name="all_compute_api")


def test_a_compute_kernel_cannot_use_the_data_movement_api(build):
    """TT-Metal's TRISCs have no NOC API: neither does the emulator's compute API."""
    src = """#include <cstdint>
#include "api/compute/common.h"
void kernel_main() { noc_async_read_barrier(); }
"""
    with pytest.raises(LaunchError, match="'noc_async_read_barrier' was not declared"):
        build(src, name="compute_uses_noc")


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        ("api/compute/common.h", "api/dataflow/dataflow_api.h", "a compute kernel \\(TRISC\\)"),
        ("api/dataflow/dataflow_api.h", "api/compute/tile_move_copy.h", "a data-movement kernel"),
    ],
)
def test_one_kernel_cannot_include_both_apis(build, first, second, message):
    src = f'#include "{first}"\n#include "{second}"\nvoid kernel_main() {{}}\n'
    with pytest.raises(LaunchError, match=message):
        build(src, ct_args=[2, 64], name="both_apis")
